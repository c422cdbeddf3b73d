/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel profiles: which Linux release's openvswitch module the daemon
 * answers as (tapdpd --kernel VERSION). A profile says what that module
 * knew of the uapi: the last action and key attribute it took, its
 * datapath and vport attribute maxima (what lies beyond is ignored, as
 * the kernel's liberal parsing ignored it), the user features it
 * accepted, the MPLS labels a key could carry, the last hash algorithm,
 * its packet family's last attribute, whether it parsed a userspace
 * action strictly and whether a received tunnel packet's DF bit reached
 * its key. Everything newer is refused or ignored as that
 * release refused or ignored it. The daemon's default is the running
 * kernel's release (kernel_profile_for_release); the table's newest,
 * 7.2, knows everything.
 *
 * The profile is chosen once, before the daemon serves or starts any
 * thread, and only read afterwards: no locking. The table is static. */
#ifndef TAPDP_COMMON_KERNEL_PROFILE_H
#define TAPDP_COMMON_KERNEL_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

struct kernel_profile {
	const char *name;		/* "5.10" */
	int action_max;			/* last OVS_ACTION_ATTR_* known */
	int key_max;			/* its OVS_KEY_ATTR_MAX */
	int dp_attr_max;		/* its OVS_DP_ATTR_MAX */
	int vport_attr_max;		/* its OVS_VPORT_ATTR_MAX */
	uint32_t user_features;		/* OVS_DP_F_* it accepts */
	unsigned mpls_labels;		/* labels in an OVS_KEY_ATTR_MPLS */
	uint32_t hash_alg_max;		/* last OVS_HASH_ALG_* */
	int packet_attr_max;		/* its OVS_PACKET_ATTR_MAX */
	/* A userspace action's unknown attributes and trailing bytes are
	 * refused (nla_parse_deprecated_strict), not ignored. */
	bool userspace_strict;
	/* A tunnel packet received in IPv4 with DF set has DF in its tunnel
	 * key (the tunnels' ip_tun_rx_dst), so in its upcalls and flows. */
	bool tunnel_rx_df;
};

/* The profile in use. */
const struct kernel_profile *kernel_profile(void);
/* Uses p from now on; NULL for the default. */
void kernel_profile_use(const struct kernel_profile *p);
/* The profile of that name ("5.10"), or NULL. */
const struct kernel_profile *kernel_profile_find(const char *name);
/* The profile a kernel of that release ("6.18.44-...") answers as: its
 * own, else the newest older one, else the oldest. */
const struct kernel_profile *kernel_profile_for_release(const char *release);
/* The i-th profile, oldest first; NULL past the end. */
const struct kernel_profile *kernel_profile_at(unsigned i);

#endif
