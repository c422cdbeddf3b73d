/* SPDX-License-Identifier: Apache-2.0 */
#include "common/kernel-profile.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "include/tapdp/ovs-uapi.h"

/* Until IPV6_EXTHDRS came (after 5.15, before 6.1) the kernel's key enum
 * ended with NSH and the kernel-only TUNNEL_INFO right after it; then
 * TUNNEL_INFO moved past the types userspace had taken. */
#define KEY_OLD		(OVS_KEY_ATTR_NSH + 1)
#define KEY_EXT		OVS_KEY_ATTR_IPV6_EXTHDRS
#define F_OLD		(OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS | \
			 OVS_DP_F_TC_RECIRC_SHARING)
#define F_PER_CPU	(F_OLD | OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
#define A_CPL		OVS_ACTION_ATTR_CHECK_PKT_LEN
#define A_DEC_TTL	OVS_ACTION_ATTR_DEC_TTL
#define A_DROP		TAPDP_ACTION_ATTR_DROP
#define A_PSAMPLE	TAPDP_ACTION_ATTR_PSAMPLE
#define DP_PAD		OVS_DP_ATTR_PAD
#define DP_MASKS	OVS_DP_ATTR_MASKS_CACHE_SIZE
#define DP_PIDS		OVS_DP_ATTR_PER_CPU_PIDS
#define DP_IFIDX	OVS_DP_ATTR_IFINDEX
#define VP_NSID		OVS_VPORT_ATTR_NETNSID
#define VP_STATS	TAPDP_VPORT_ATTR_UPCALL_STATS
#define H_L4		OVS_HASH_ALG_L4
#define H_SYM		TAPDP_HASH_ALG_SYM_L4
#define P_HASH		OVS_PACKET_ATTR_HASH
#define P_PID		TAPDP_PACKET_ATTR_UPCALL_PID
#define LIB		false	/* userspace action: liberal */
#define STRICT		true
#define NO_DF		false	/* received tunnel keys: no DF */
#define RX_DF		true

/* Oldest first; the sources of each value are in docs/COMPATIBILITY.md
 * ("Kernel profiles"). */
static const struct kernel_profile profiles[] = {
	/* name   action     key      dp        vport     features  MPLS hash
	 *	  packet  userspace rx DF */
	{ "5.4",  A_CPL,     KEY_OLD, DP_PAD,   VP_NSID,  F_OLD,     1, H_L4,
		  P_HASH, LIB,    NO_DF },
	{ "5.10", A_DEC_TTL, KEY_OLD, DP_MASKS, VP_NSID,  F_OLD,     3, H_L4,
		  P_HASH, LIB,    NO_DF },
	{ "5.15", A_DEC_TTL, KEY_OLD, DP_PIDS,  VP_NSID,  F_PER_CPU, 3, H_L4,
		  P_HASH, LIB,    NO_DF },
	{ "6.1",  A_DEC_TTL, KEY_EXT, DP_IFIDX, VP_NSID,  F_PER_CPU, 3, H_L4,
		  P_HASH, LIB,    NO_DF },
	{ "6.6",  A_DROP,    KEY_EXT, DP_IFIDX, VP_STATS, F_PER_CPU, 3, H_SYM,
		  P_HASH, LIB,    NO_DF },
	{ "6.12", A_PSAMPLE, KEY_EXT, DP_IFIDX, VP_STATS, F_PER_CPU, 3, H_SYM,
		  P_HASH, LIB,    NO_DF },
	{ "6.18", A_PSAMPLE, KEY_EXT, DP_IFIDX, VP_STATS, F_PER_CPU, 3, H_SYM,
		  P_PID,  STRICT, RX_DF },
	{ "7.2",  A_PSAMPLE, KEY_EXT, DP_IFIDX, VP_STATS, F_PER_CPU, 3, H_SYM,
		  P_PID,  STRICT, RX_DF },
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

/* "X.Y..." as X * 1000 + Y; -1 for what is no release. */
static int
release_number(const char *s)
{
	unsigned major, minor;

	if (sscanf(s, "%u.%u", &major, &minor) != 2 || major > 999 ||
	    minor > 999)
		return -1;
	return (int)(major * 1000 + minor);
}

const struct kernel_profile *
kernel_profile_for_release(const char *release)
{
	int want = release_number(release);
	const struct kernel_profile *best = &profiles[0];

	for (unsigned i = 0; i < N_PROFILES; i++)
		if (release_number(profiles[i].name) <= want)
			best = &profiles[i];
	return best;
}

const struct kernel_profile *
kernel_profile_at(unsigned i)
{
	return i < N_PROFILES ? &profiles[i] : NULL;
}
