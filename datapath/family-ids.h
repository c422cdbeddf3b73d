/* SPDX-License-Identifier: Apache-2.0 */
/* The fixed ids of the generic netlink families tapdpd serves, and of
 * their multicast groups: for the families (families/families.h) and for those
 * that read their messages without serving them (the journal).
 *
 * They sit in the ranges include/tapdp/proto.h reserves, above the
 * kernel's, so that neither can be mistaken for a kernel family or group
 * by a client that also talks to the kernel. */
#ifndef TAPDP_FAMILY_IDS_H
#define TAPDP_FAMILY_IDS_H

#include "genl-server/nlsock.h"

#define FAMILY_ID_DATAPATH	(TAPDP_FAMILY_ID_FIRST + 0)
#define FAMILY_ID_VPORT		(TAPDP_FAMILY_ID_FIRST + 1)
#define FAMILY_ID_FLOW		(TAPDP_FAMILY_ID_FIRST + 2)
#define FAMILY_ID_PACKET	(TAPDP_FAMILY_ID_FIRST + 3)
#define FAMILY_ID_METER		(TAPDP_FAMILY_ID_FIRST + 4)
#define FAMILY_ID_CT_LIMIT	(TAPDP_FAMILY_ID_FIRST + 5)
#define FAMILY_ID_PSAMPLE	(TAPDP_FAMILY_ID_FIRST + 6)
#define FAMILY_ID_DROP		(TAPDP_FAMILY_ID_FIRST + 7)
#define FAMILY_ID_CTL		(TAPDP_FAMILY_ID_FIRST + 8)

enum {
	GROUP_DATAPATH = NLSOCK_GROUP_BASE,
	GROUP_VPORT,
	GROUP_FLOW,
	GROUP_METER,
	GROUP_CT_LIMIT,
	GROUP_PSAMPLE_CONFIG,
	GROUP_PSAMPLE_PACKETS,
	GROUP_DROP,
	GROUP_CAPTURE,
	GROUP_NLMON,
};

#endif
