/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel profiles (tapdpd --kernel): the table, and per profile what an
 * action list, a flow key and the datapath and vport families accept,
 * against what each release's module answered (docs/COMPATIBILITY.md,
 * "Kernel profiles"). The expectations are written out per release here,
 * not read back from the table. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <urcu.h>

#include "actions/actions-netlink.h"
#include "common/kernel-profile.h"
#include "datapath/datapath.h"
#include "datapath/families.h"
#include "flow/key-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "netlink/attr.h"
#include "netlink/genl.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define HDR	sizeof(struct ovs_header)

static const char *const names[] = { "5.4", "5.10", "5.15", "6.1", "6.6",
				     "6.12" };
#define N_NAMES	(sizeof(names) / sizeof(names[0]))

static struct dp_net *net;

static void
use(const char *name)
{
	const struct kernel_profile *p = kernel_profile_find(name);

	assert_non_null(p);
	kernel_profile_use(p);
}

/* Whether release 'name' is at least 'since' (both from names[]). */
static bool
since(const char *name, const char *first)
{
	unsigned i, j;

	for (i = 0; i < N_NAMES && strcmp(names[i], name); i++)
		;
	for (j = 0; j < N_NAMES && strcmp(names[j], first); j++)
		;
	assert_true(i < N_NAMES && j < N_NAMES);
	return i >= j;
}

static void
test_table(void **state)
{
	const struct kernel_profile *p;
	unsigned i;

	for (i = 0; (p = kernel_profile_at(i)); i++) {
		assert_true(i < N_NAMES);
		assert_string_equal(p->name, names[i]);
		assert_ptr_equal(kernel_profile_find(names[i]), p);
	}
	assert_int_equal(i, N_NAMES);
	assert_null(kernel_profile_find("4.19"));
	assert_null(kernel_profile_find("6"));
	assert_null(kernel_profile_find(""));
	/* The default is the newest, which knows every number tapdp does. */
	assert_string_equal(kernel_profile()->name, "6.12");
	p = kernel_profile();
	assert_int_equal(p->action_max, TAPDP_ACTION_ATTR_MAX);
	assert_int_equal(p->key_max, OVS_KEY_ATTR_MAX);
	assert_int_equal(p->dp_attr_max, OVS_DP_ATTR_MAX);
	assert_int_equal(p->vport_attr_max, TAPDP_VPORT_ATTR_MAX);
	use("5.4");
	assert_string_equal(kernel_profile()->name, "5.4");
	kernel_profile_use(NULL);
	assert_string_equal(kernel_profile()->name, "6.12");
}

static const struct flow_key *
arp_key(void)
{
	static struct flow_key k;

	memset(&k, 0, sizeof(k));
	k.mac_proto = FLOW_MAC_ETHERNET;
	k.eth_type = htons(ETH_P_ARP);
	return &k;
}

/* One action of 'type' (built by the switch below) then nothing. */
static int
validate_one_action(int type)
{
	struct ovs_action_hash h = { .hash_alg = TAPDP_HASH_ALG_SYM_L4 };
	struct nlattr *acts, *nest, *inner;
	struct attrs b;

	attrs_init(&b);
	acts = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_ACTIONS);
	switch (type) {
	case OVS_ACTION_ATTR_HASH:
		attrs_put(&b, OVS_ACTION_ATTR_HASH, &h, sizeof(h));
		break;
	case OVS_ACTION_ATTR_CHECK_PKT_LEN:
		nest = msgbuf_nest_start(&b.mb, type);
		msgbuf_put_u16(&b.mb, OVS_CHECK_PKT_LEN_ATTR_PKT_LEN, 100);
		msgbuf_nest_end(&b.mb, msgbuf_nest_start(&b.mb,
			OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER));
		msgbuf_nest_end(&b.mb, msgbuf_nest_start(&b.mb,
			OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL));
		msgbuf_nest_end(&b.mb, nest);
		break;
	case OVS_ACTION_ATTR_DEC_TTL:
		nest = msgbuf_nest_start(&b.mb, type);
		inner = msgbuf_nest_start(&b.mb, OVS_DEC_TTL_ATTR_ACTION);
		msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 1);
		msgbuf_nest_end(&b.mb, inner);
		msgbuf_nest_end(&b.mb, nest);
		break;
	case TAPDP_ACTION_ATTR_DROP:
		msgbuf_put_u32(&b.mb, type, 0);
		break;
	case TAPDP_ACTION_ATTR_PSAMPLE:
		nest = msgbuf_nest_start(&b.mb, type);
		msgbuf_put_u32(&b.mb, TAPDP_PSAMPLE_ATTR_GROUP, 7);
		msgbuf_nest_end(&b.mb, nest);
		break;
	default:
		fail();
	}
	msgbuf_nest_end(&b.mb, acts);
	return actions_validate(attrs_data(&b), arp_key(), false);
}

static void
test_actions(void **state)
{
	for (unsigned i = 0; i < N_NAMES; i++) {
		const char *n = names[i];

		use(n);
		assert_int_equal(validate_one_action(
			OVS_ACTION_ATTR_CHECK_PKT_LEN), 0);
		/* add_mpls (5.6) and dec_ttl (5.7). */
		assert_int_equal(validate_one_action(OVS_ACTION_ATTR_DEC_TTL),
				 since(n, "5.10") ? 0 : -EINVAL);
		assert_int_equal(validate_one_action(TAPDP_ACTION_ATTR_DROP),
				 since(n, "6.6") ? 0 : -EINVAL);
		assert_int_equal(validate_one_action(
			TAPDP_ACTION_ATTR_PSAMPLE),
				 since(n, "6.12") ? 0 : -EINVAL);
		/* sym_l4 hashing came in 6.5. */
		assert_int_equal(validate_one_action(OVS_ACTION_ATTR_HASH),
				 since(n, "6.6") ? 0 : -EINVAL);
	}
	kernel_profile_use(NULL);
}

/* eth(),eth_type(0x8847),mpls(n labels) */
static int
mpls_key(unsigned n)
{
	uint32_t lse[3] = { htonl(0x1000), htonl(0x2000), htonl(0x3100) };
	struct ovs_key_ethernet eth;
	struct flow_key key, mask;
	struct nlattr *k;
	struct attrs b;

	memset(&eth, 0, sizeof(eth));
	lse[n - 1] |= htonl(0x100);	/* bottom of stack */
	attrs_init(&b);
	k = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_KEY);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_MPLS_UC));
	attrs_put(&b, OVS_KEY_ATTR_MPLS, lse, n * sizeof(lse[0]));
	msgbuf_nest_end(&b.mb, k);
	return flow_match_from_nlattrs(&key, &mask, k, NULL, false);
}

/* eth(),eth_type(0x86dd),ipv6(proto=59),ipv6_exthdrs(0) */
static int
ipv6_exthdrs_key(void)
{
	struct ovs_key_ipv6 ip = { .ipv6_proto = 59, .ipv6_hlimit = 64 };
	struct ovs_key_ipv6_exthdrs x = { 0 };
	struct ovs_key_ethernet eth;
	struct flow_key key, mask;
	struct nlattr *k;
	struct attrs b;

	memset(&eth, 0, sizeof(eth));
	attrs_init(&b);
	k = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_KEY);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_IPV6));
	attrs_put(&b, OVS_KEY_ATTR_IPV6, &ip, sizeof(ip));
	attrs_put(&b, OVS_KEY_ATTR_IPV6_EXTHDRS, &x, sizeof(x));
	msgbuf_nest_end(&b.mb, k);
	return flow_match_from_nlattrs(&key, &mask, k, NULL, false);
}

static void
test_keys(void **state)
{
	for (unsigned i = 0; i < N_NAMES; i++) {
		const char *n = names[i];

		use(n);
		assert_int_equal(mpls_key(1), 0);
		/* Three labels in a key from 5.5 on. */
		assert_int_equal(mpls_key(2), since(n, "5.10") ? 0 : -EINVAL);
		assert_int_equal(mpls_key(3), since(n, "5.10") ? 0 : -EINVAL);
		/* IPv6 extension headers: after 5.15, by 6.1. */
		assert_int_equal(ipv6_exthdrs_key(),
				 since(n, "6.1") ? 0 : -EINVAL);
	}
	kernel_profile_use(NULL);
}

/* The families registered again as 'name' serves them. */
static void
serve_as(const char *name)
{
	nl_serve_end();
	kernel_profile_use(name ? kernel_profile_find(name) : NULL);
	nl_serve();
}

static int
transact(struct fx *f)
{
	ssize_t n;

	send_req(f);
	n = recv_rep(f);
	assert_true(n > 0);
	if (((struct nlmsghdr *)f->rep)->nlmsg_type == NLMSG_ERROR)
		return rep_error(f, n);
	return 0;
}

static void
dp_request(struct fx *f, uint8_t cmd, const char *name)
{
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, cmd, HDR);
	msgbuf_put(&f->req, OVS_DP_ATTR_NAME, strlen(name) + 1, name);
}

static void
test_families(void **state)
{
	static const uint32_t pid = 1;

	for (unsigned i = 0; i < N_NAMES; i++) {
		const char *n = names[i];
		struct datapath *dp;
		struct fx *f;
		int err;

		serve_as(n);
		f = fx_new(net, NETLINK_GENERIC, true);
		dp_request(f, OVS_DP_CMD_NEW, "kp0");
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_UPCALL_PID, 0);
		req_end(f);
		assert_int_equal(transact(f), 0);
		/* An invalid size (not a power of two) refused where the
		 * attribute is known, ignored past 5.4's maxattr. */
		dp_request(f, OVS_DP_CMD_SET, "kp0");
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_MASKS_CACHE_SIZE, 3);
		req_end(f);
		assert_int_equal(transact(f), since(n, "5.10") ? -EINVAL : 0);
		dp_request(f, OVS_DP_CMD_GET, "kp0");
		req_end(f);
		assert_int_equal(transact(f), 0);
		assert_true(!rep_attr(f, HDR, OVS_DP_ATTR_MASKS_CACHE_SIZE) ==
			    !since(n, "5.10"));
		/* Per-CPU dispatch came in 5.15. */
		dp_request(f, OVS_DP_CMD_SET, "kp0");
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES,
			       OVS_DP_F_DISPATCH_UPCALL_PER_CPU);
		msgbuf_put(&f->req, OVS_DP_ATTR_PER_CPU_PIDS, sizeof(pid),
			   &pid);
		req_end(f);
		err = transact(f);
		assert_int_equal(err, since(n, "5.15") ? 0 : -EOPNOTSUPP);
		/* The echoed reply carries the pids from 6.1 on. */
		assert_true(err || !rep_attr(f, HDR, OVS_DP_ATTR_PER_CPU_PIDS) ==
				   !since(n, "6.1"));
		/* Vport replies carry upcall stats from 6.2 on. */
		dp = dp_at(net, 0);
		req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, HDR);
		((struct ovs_header *)(NLMSG_DATA(req_cur(f)) +
				       GENL_HDRLEN))->dp_ifindex =
			dp_ifindex(dp);
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 0);
		req_end(f);
		assert_int_equal(transact(f), 0);
		assert_true(!rep_attr(f, HDR, TAPDP_VPORT_ATTR_UPCALL_STATS) ==
			    !since(n, "6.6"));
		fx_free(f);
		dp_destroy(dp);
		rcu_barrier();
	}
	serve_as(NULL);
}

static int
group_setup(void **state)
{
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.port_ops = fake_port_ops,
	};

	rcu_register_thread();
	vport_set_rx_queues(1);
	net = dp_net_new(&cfg);
	nl_serve();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_end();
	dp_net_destroy(net);
	rcu_barrier();
	rcu_unregister_thread();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_families),
	};

	return cmocka_run_group_tests_name("kernel-profile", tests,
					   group_setup, group_teardown);
}
