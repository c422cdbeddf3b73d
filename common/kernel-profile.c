/* SPDX-License-Identifier: Apache-2.0 */
#include "common/kernel-profile.h"

#include <stddef.h>
#include <string.h>

#include "include/tapdp/ovs-uapi.h"

/* Until IPV6_EXTHDRS came (after 5.15, before 6.1) the kernel's key enum
 * ended with NSH and the kernel-only TUNNEL_INFO right after it; then
 * TUNNEL_INFO moved past the types userspace had taken. */
#define KEY_MAX_OLD	(OVS_KEY_ATTR_NSH + 1)
#define FEATURES_OLD	(OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS | \
			 OVS_DP_F_TC_RECIRC_SHARING)
#define FEATURES_5_15	(FEATURES_OLD | OVS_DP_F_DISPATCH_UPCALL_PER_CPU)

/* Oldest first; the sources of each value are in docs/COMPATIBILITY.md
 * ("Kernel profiles"). */
static const struct kernel_profile profiles[] = {
	{ .name = "5.4",
	  .action_max = OVS_ACTION_ATTR_CHECK_PKT_LEN,
	  .key_max = KEY_MAX_OLD,
	  .dp_attr_max = OVS_DP_ATTR_PAD,
	  .vport_attr_max = OVS_VPORT_ATTR_NETNSID,
	  .user_features = FEATURES_OLD,
	  .mpls_labels = 1,
	  .hash_alg_max = OVS_HASH_ALG_L4 },
	{ .name = "5.10",
	  .action_max = OVS_ACTION_ATTR_DEC_TTL,
	  .key_max = KEY_MAX_OLD,
	  .dp_attr_max = OVS_DP_ATTR_MASKS_CACHE_SIZE,
	  .vport_attr_max = OVS_VPORT_ATTR_NETNSID,
	  .user_features = FEATURES_OLD,
	  .mpls_labels = 3,
	  .hash_alg_max = OVS_HASH_ALG_L4 },
	{ .name = "5.15",
	  .action_max = OVS_ACTION_ATTR_DEC_TTL,
	  .key_max = KEY_MAX_OLD,
	  .dp_attr_max = OVS_DP_ATTR_PER_CPU_PIDS,
	  .vport_attr_max = OVS_VPORT_ATTR_NETNSID,
	  .user_features = FEATURES_5_15,
	  .mpls_labels = 3,
	  .hash_alg_max = OVS_HASH_ALG_L4 },
	{ .name = "6.1",
	  .action_max = OVS_ACTION_ATTR_DEC_TTL,
	  .key_max = OVS_KEY_ATTR_IPV6_EXTHDRS,
	  .dp_attr_max = OVS_DP_ATTR_IFINDEX,
	  .vport_attr_max = OVS_VPORT_ATTR_NETNSID,
	  .user_features = FEATURES_5_15,
	  .mpls_labels = 3,
	  .hash_alg_max = OVS_HASH_ALG_L4 },
	{ .name = "6.6",
	  .action_max = TAPDP_ACTION_ATTR_DROP,
	  .key_max = OVS_KEY_ATTR_IPV6_EXTHDRS,
	  .dp_attr_max = OVS_DP_ATTR_IFINDEX,
	  .vport_attr_max = TAPDP_VPORT_ATTR_UPCALL_STATS,
	  .user_features = FEATURES_5_15,
	  .mpls_labels = 3,
	  .hash_alg_max = TAPDP_HASH_ALG_SYM_L4 },
	{ .name = "6.12",
	  .action_max = TAPDP_ACTION_ATTR_PSAMPLE,
	  .key_max = OVS_KEY_ATTR_IPV6_EXTHDRS,
	  .dp_attr_max = OVS_DP_ATTR_IFINDEX,
	  .vport_attr_max = TAPDP_VPORT_ATTR_UPCALL_STATS,
	  .user_features = FEATURES_5_15,
	  .mpls_labels = 3,
	  .hash_alg_max = TAPDP_HASH_ALG_SYM_L4 },
};

#define N_PROFILES	(sizeof(profiles) / sizeof(profiles[0]))
#define DEFAULT		(&profiles[N_PROFILES - 1])

static const struct kernel_profile *current = DEFAULT;

const struct kernel_profile *
kernel_profile(void)
{
	return current;
}

void
kernel_profile_use(const struct kernel_profile *p)
{
	current = p ? p : DEFAULT;
}

const struct kernel_profile *
kernel_profile_find(const char *name)
{
	for (unsigned i = 0; i < N_PROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const struct kernel_profile *
kernel_profile_at(unsigned i)
{
	return i < N_PROFILES ? &profiles[i] : NULL;
}
