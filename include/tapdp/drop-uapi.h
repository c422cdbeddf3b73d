/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp_drop: a generic netlink family of tapdpd's own (the kernel has
 * none by this name) that tells why the datapath dropped packets.
 *
 * The kernel gives these reasons only to the skb:kfree_skb tracepoint;
 * tapdpd counts the same reasons, by the same numbers, for the same
 * packets, and serves them here (docs/COMPATIBILITY.md, "Drop reasons"):
 *
 * - TAPDP_DROP_CMD_GET, a dump: per datapath one message without
 *   TAPDP_DROP_ATTR_PORT_NO (every drop of the datapath, those of ports
 *   since deleted included), then one per port with it. Each lists, in
 *   TAPDP_DROP_ATTR_COUNTS, a TAPDP_DROP_ATTR_COUNT nest per reason that
 *   has dropped a packet: its number, its name and the packet count.
 * - the multicast group "events": one TAPDP_DROP_CMD_EVENT per packet
 *   dropped while someone listens: the datapath, the port the packet came
 *   in by, the reason, the UFID of the flow it hit (when it hit one that
 *   has a UFID), its length and its first TAPDP_DROP_EVENT_SNAPLEN bytes.
 *
 * A drop is counted on the port the packet came in by (for a packet
 * userspace executed, the port of its in_port, else the local port), as
 * the kernel's skb carries its input vport. */
#ifndef TAPDP_DROP_UAPI_H
#define TAPDP_DROP_UAPI_H

#define TAPDP_DROP_FAMILY	"tapdp_drop"
#define TAPDP_DROP_MCGROUP	"events"
#define TAPDP_DROP_VERSION	1
/* Bytes of the packet an event carries at most. */
#define TAPDP_DROP_EVENT_SNAPLEN	128

enum tapdp_drop_cmd {
	TAPDP_DROP_CMD_UNSPEC,
	TAPDP_DROP_CMD_GET,
	TAPDP_DROP_CMD_EVENT,
};

enum tapdp_drop_attr {
	TAPDP_DROP_ATTR_UNSPEC,
	TAPDP_DROP_ATTR_DP_IFINDEX,	/* u32 */
	TAPDP_DROP_ATTR_DP_NAME,	/* string */
	TAPDP_DROP_ATTR_PORT_NO,	/* u32 */
	TAPDP_DROP_ATTR_PORT_NAME,	/* string */
	TAPDP_DROP_ATTR_COUNTS,		/* nest of TAPDP_DROP_ATTR_COUNT */
	TAPDP_DROP_ATTR_COUNT,		/* nest: REASON, REASON_NAME, PACKETS */
	TAPDP_DROP_ATTR_REASON,		/* u32: enum tapdp_drop_reason */
	TAPDP_DROP_ATTR_REASON_NAME,	/* string, as the tracepoint names it */
	TAPDP_DROP_ATTR_PACKETS,	/* u64 */
	TAPDP_DROP_ATTR_UFID,		/* binary, 1 to 16 bytes */
	TAPDP_DROP_ATTR_PACKET_LEN,	/* u32: the whole packet's */
	TAPDP_DROP_ATTR_PACKET,		/* binary: its first bytes */
	__TAPDP_DROP_ATTR_MAX
};
#define TAPDP_DROP_ATTR_MAX	(__TAPDP_DROP_ATTR_MAX - 1)

/* The kernel's numbers (enum skb_drop_reason of Linux 6.12, and the
 * OVS_DROP_* of net/openvswitch/drop.h in the openvswitch subsystem,
 * 3 << 16): they are what the tracepoint reports. */
#define TAPDP_DROP_SUBSYS_OVS	(3u << 16)
enum tapdp_drop_reason {
	TAPDP_DROP_NOT_SPECIFIED = 2,
	TAPDP_DROP_DEV_READY = 70,
	TAPDP_DROP_NOMEM = 72,
	TAPDP_DROP_PKT_TOO_BIG = 80,
	TAPDP_DROP_OVS_LAST_ACTION = TAPDP_DROP_SUBSYS_OVS + 1,
	TAPDP_DROP_OVS_ACTION_ERROR,
	TAPDP_DROP_OVS_EXPLICIT,
	TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR,
	TAPDP_DROP_OVS_METER,
	TAPDP_DROP_OVS_RECURSION_LIMIT,
	TAPDP_DROP_OVS_DEFERRED_LIMIT,
	TAPDP_DROP_OVS_FRAG_L2_TOO_LONG,
	TAPDP_DROP_OVS_FRAG_INVALID_PROTO,
	TAPDP_DROP_OVS_CONNTRACK,
	TAPDP_DROP_OVS_IP_TTL,
};

#endif
