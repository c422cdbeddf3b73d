/* SPDX-License-Identifier: Apache-2.0 */
/* The Open vSwitch datapath uapi as Linux 7.2 defines it.
 *
 * Debian 12's linux-libc-dev ships the 6.1 header; this adds the numbers that
 * appeared since (they are ABI: the values never change), so every module
 * speaks the 7.2 protocol whatever headers the build machine has. */
#ifndef TAPDP_OVS_UAPI_H
#define TAPDP_OVS_UAPI_H

#include <linux/openvswitch.h>

/* 6.2: OVS_VPORT_ATTR_UPCALL_STATS follows OVS_VPORT_ATTR_NETNSID. */
#define TAPDP_VPORT_ATTR_UPCALL_STATS	(OVS_VPORT_ATTR_NETNSID + 1)
#define TAPDP_VPORT_ATTR_MAX		TAPDP_VPORT_ATTR_UPCALL_STATS
#define TAPDP_VPORT_UPCALL_ATTR_SUCCESS	0
#define TAPDP_VPORT_UPCALL_ATTR_FAIL	1

/* 6.4 and 6.11: explicit drop and psample actions. */
#define TAPDP_ACTION_ATTR_DROP		(OVS_ACTION_ATTR_DEC_TTL + 1)
#define TAPDP_ACTION_ATTR_PSAMPLE	(OVS_ACTION_ATTR_DEC_TTL + 2)
#define TAPDP_ACTION_ATTR_MAX		TAPDP_ACTION_ATTR_PSAMPLE
#define TAPDP_PSAMPLE_ATTR_GROUP	1
#define TAPDP_PSAMPLE_ATTR_COOKIE	2
#define TAPDP_PSAMPLE_COOKIE_MAX_SIZE	16
#define TAPDP_HASH_ALG_SYM_L4		(OVS_HASH_ALG_L4 + 1)

/* 6.16: an execute's upcalls go to the portid it names. */
#define TAPDP_PACKET_ATTR_UPCALL_PID	(OVS_PACKET_ATTR_HASH + 1)
#define TAPDP_PACKET_ATTR_MAX		TAPDP_PACKET_ATTR_UPCALL_PID

/* The kernel's port-number limit (USHRT_MAX, datapath.h). */
#define TAPDP_DP_MAX_PORTS		65535

#endif
