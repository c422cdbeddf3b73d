/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel profile table (tapdpd --kernel): its releases in order, the
 * lookup by name and by a running kernel's release, the default. What each profile accepts is tested where
 * it is accepted: test-flow-netlink (actions, keys), test-families
 * (datapath and vport attributes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/kernel-profile.h"
#include "include/tapdp/ovs-uapi.h"

static void
test_table(void **state)
{
	static const char *const names[] = { "5.4", "5.10", "5.15", "6.1",
					     "6.6", "6.12", "6.18", "7.2" };
	const struct kernel_profile *p, *prev = NULL;
	unsigned i;

	for (i = 0; (p = kernel_profile_at(i)); i++) {
		assert_true(i < sizeof(names) / sizeof(names[0]));
		assert_string_equal(p->name, names[i]);
		assert_ptr_equal(kernel_profile_find(names[i]), p);
		/* A release knows what the one before it knew. */
		if (prev) {
			assert_true(p->action_max >= prev->action_max);
			assert_true(p->key_max >= prev->key_max);
			assert_true(p->dp_attr_max >= prev->dp_attr_max);
			assert_true(p->vport_attr_max >= prev->vport_attr_max);
			assert_int_equal(p->user_features & prev->user_features,
					 prev->user_features);
			assert_true(p->mpls_labels >= prev->mpls_labels);
			assert_true(p->hash_alg_max >= prev->hash_alg_max);
			assert_true(p->packet_attr_max >=
				    prev->packet_attr_max);
			assert_true(p->userspace_strict >=
				    prev->userspace_strict);
			assert_true(p->tunnel_rx_df >= prev->tunnel_rx_df);
		}
		prev = p;
	}
	assert_int_equal(i, sizeof(names) / sizeof(names[0]));
	assert_null(kernel_profile_find("4.19"));
	assert_null(kernel_profile_find("6"));
	assert_null(kernel_profile_find(""));
	/* The default is the newest, which knows every number tapdp does. */
	p = kernel_profile();
	assert_ptr_equal(p, prev);
	assert_int_equal(p->action_max, TAPDP_ACTION_ATTR_MAX);
	assert_int_equal(p->key_max, OVS_KEY_ATTR_MAX);
	assert_int_equal(p->dp_attr_max, OVS_DP_ATTR_MAX);
	assert_int_equal(p->vport_attr_max, TAPDP_VPORT_ATTR_MAX);
	assert_int_equal(p->packet_attr_max, TAPDP_PACKET_ATTR_MAX);
	assert_true(p->tunnel_rx_df);
	/* 6.12's tunnels kept no DF on receive; 6.18's udp_tun_rx_dst does. */
	assert_false(kernel_profile_find("6.12")->tunnel_rx_df);
	assert_true(kernel_profile_find("6.18")->tunnel_rx_df);
	kernel_profile_use(kernel_profile_find("5.4"));
	assert_string_equal(kernel_profile()->name, "5.4");
	kernel_profile_use(NULL);
	assert_ptr_equal(kernel_profile(), prev);
}

/* A kernel answers as its release's profile, else the newest older
 * one; older than all, or no release at all: the oldest. */
static void
test_for_release(void **state)
{
	static const struct {
		const char *release, *profile;
	} cases[] = {
		{ "6.18.44-fc-v1272", "6.18" }, { "6.18", "6.18" },
		{ "6.19.2-amd64", "6.18" }, { "7.3.4-1", "7.2" },
		{ "8.0.0", "7.2" }, { "6.12.57+deb13-amd64", "6.12" },
		{ "6.13", "6.12" }, { "6.2.0", "6.1" }, { "5.10.0-30", "5.10" },
		{ "5.11", "5.10" }, { "5.4.0", "5.4" }, { "4.19.0", "5.4" },
		{ "", "5.4" }, { "six", "5.4" }, { "6", "5.4" },
		{ "99999.1", "5.4" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(
			kernel_profile_for_release(cases[i].release)->name,
			cases[i].profile);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_for_release),
	};

	return cmocka_run_group_tests_name("kernel-profile", tests, NULL,
					   NULL);
}
