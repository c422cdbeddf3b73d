/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp_ctl: a generic netlink family of tapdpd's own (the kernel has
 * none by this name) that tells what the daemon is doing, for tapdpctl.
 * What the OVS families already serve (datapaths, ports, flows, their
 * statistics) is not repeated here: tapdpctl asks them.
 *
 * - TAPDP_CTL_CMD_STATUS, a doit: one message about the daemon itself:
 *   its version, pid, uptime, the Linux release whose openvswitch module
 *   it answers as, its memory (resident, heap in use), the sockets open,
 *   and its tables with their entries.
 * - TAPDP_CTL_CMD_THREADS, a dump: one message per thread of the daemon
 *   (a port's receive queues have one each, so there may be thousands):
 *   its tid, name and the CPU time it used.
 * - TAPDP_CTL_CMD_CLIENTS, a dump: one message per emulated netlink
 *   socket: the pid and uid of the process that opened it, that process's
 *   command name, the protocol, the portid (0 while unbound), the groups
 *   it joined, the bytes waiting in it and its receive buffer.
 *
 * - TAPDP_CTL_CMD_UPCALLS, a dump: one message per datapath (DP_IFINDEX,
 *   DP_NAME) with its upcalls beyond the kernel's missed and lost: by
 *   command (UPCALL_MISS, UPCALL_ACTION), lost by reason (LOST_FULL,
 *   LOST_NO_SOCKET, LOST_OTHER), each handler's (HANDLERS: the portid
 *   they went to, SENT, LOST) in the order of its first, and how long
 *   misses waited for their flow NEW (WAIT buckets by decade of
 *   microseconds, WAIT_N, WAIT_SUM_US, WAIT_MAX_US).
 *
 * - the multicast group "capture": while someone listens, one
 *   TAPDP_CTL_CMD_PACKET per step of every packet: in by a port (RX), out
 *   by a port (TX), up to userspace (UPCALL: its UPCALL_CMD and PORTID),
 *   its upcall lost (UPCALL_LOST: the same, and the ERRNO), dropped (DROP,
 *   with the reason of tapdp_drop): the datapath, the port, the flow's
 *   UFID when it hit one, the time, the length and the first
 *   TAPDP_CTL_CAPTURE_SNAPLEN bytes.
 *
 * - the multicast group "nlmon": while someone listens, one
 *   TAPDP_CTL_CMD_NLMSG per datagram a client sends the daemon or the
 *   daemon queues to a client (TO_CLIENT), as the kernel's nlmon device
 *   shows them: the client's pid, uid, command, protocol and portid, the
 *   time, the length and the first TAPDP_CTL_NLMON_SNAPLEN bytes. Those
 *   of the group's own members are left out.
 *
 * - TAPDP_CTL_CMD_TRACE, a doit: a dry run of a frame (PACKET) that came
 *   in by port PORT_NO of datapath DP_IFINDEX. The answer holds TRACE, a
 *   nest of STEP nests in the order they happened, each with its
 *   STEP_KIND and DEPTH (recirculations so far) and, by kind:
 *   KEY (KEY: the OVS_KEY_ATTR_* extracted), MISS (MASKS_PROBED, PORTID
 *   the upcall would go to), FLOW (the megaflow hit: UFID, FLOW_KEY,
 *   FLOW_MASK and FLOW_ACTIONS as ovs_flow dumps them, MASKS_PROBED),
 *   ACTION (ACTION: the action attribute, whole), CT (CT_STATE, CT_ZONE,
 *   CT_MARK; ERRNO when the tracker would drop it), OUTPUT (PORT_NO,
 *   NAME, PACKET_LEN), USERSPACE (PORTID), RECIRC (RECIRC_ID), METER,
 *   PSAMPLE (GROUP), DROP (REASON, REASON_NAME). TRUNCATED: the steps
 *   left did not fit in the answer. Nothing is sent, counted, metered
 *   or committed: conntrack is looked up, not changed (a new connection
 *   shows +new, a committed one's NAT applies, a new one's does not).
 *
 * Anyone may ask STATUS, THREADS, CLIENTS and UPCALLS, as anyone may dump
 * the kernel's OVS families; the capture and nlmon carry packets and
 * other processes' requests, so joining them needs CAP_NET_ADMIN, as a
 * packet socket does, and a TRACE, a dry OVS_PACKET_CMD_EXECUTE that
 * reads the tracker, needs it as the execute does. */
#ifndef TAPDP_CTL_UAPI_H
#define TAPDP_CTL_UAPI_H

#define TAPDP_CTL_FAMILY	"tapdp_ctl"
#define TAPDP_CTL_VERSION	1
#define TAPDP_CTL_MCGROUP_CAPTURE	"capture"
/* Bytes of a packet a PACKET event carries at most: a jumbo frame. */
#define TAPDP_CTL_CAPTURE_SNAPLEN	9216
#define TAPDP_CTL_MCGROUP_NLMON	"nlmon"
/* Bytes of a datagram an NLMSG event carries at most: what fits in one
 * attribute. */
#define TAPDP_CTL_NLMON_SNAPLEN	65000

enum tapdp_ctl_cmd {
	TAPDP_CTL_CMD_UNSPEC,
	TAPDP_CTL_CMD_STATUS,
	TAPDP_CTL_CMD_CLIENTS,
	TAPDP_CTL_CMD_THREADS,
	TAPDP_CTL_CMD_PACKET,
	TAPDP_CTL_CMD_NLMSG,
	TAPDP_CTL_CMD_TRACE,
	TAPDP_CTL_CMD_UPCALLS,
};

/* TAPDP_CTL_ATTR_STEP_KIND of a TRACE's STEP. */
enum tapdp_ctl_step {
	TAPDP_CTL_STEP_KEY,
	TAPDP_CTL_STEP_MISS,
	TAPDP_CTL_STEP_FLOW,
	TAPDP_CTL_STEP_ACTION,
	TAPDP_CTL_STEP_CT,
	TAPDP_CTL_STEP_OUTPUT,
	TAPDP_CTL_STEP_USERSPACE,
	TAPDP_CTL_STEP_RECIRC,
	TAPDP_CTL_STEP_METER,
	TAPDP_CTL_STEP_PSAMPLE,
	TAPDP_CTL_STEP_DROP,
};

/* TAPDP_CTL_ATTR_KIND of a PACKET. */
enum tapdp_ctl_kind {
	TAPDP_CTL_KIND_RX,
	TAPDP_CTL_KIND_TX,
	TAPDP_CTL_KIND_UPCALL,
	TAPDP_CTL_KIND_DROP,
	TAPDP_CTL_KIND_UPCALL_LOST,
};

enum tapdp_ctl_attr {
	TAPDP_CTL_ATTR_UNSPEC,
	TAPDP_CTL_ATTR_VERSION,		/* string: tapdpd's */
	TAPDP_CTL_ATTR_PID,		/* u32 */
	TAPDP_CTL_ATTR_UPTIME_MS,	/* u64: since this process started */
	TAPDP_CTL_ATTR_KERNEL,		/* string: the release answered as */
	TAPDP_CTL_ATTR_RSS,		/* u64: resident bytes */
	TAPDP_CTL_ATTR_HEAP,		/* u64: bytes allocated and in use */
	TAPDP_CTL_ATTR_TID,		/* u32 */
	TAPDP_CTL_ATTR_NAME,		/* string */
	TAPDP_CTL_ATTR_CPU_MS,		/* u64: user and system time */
	TAPDP_CTL_ATTR_TABLES,		/* nest of TAPDP_CTL_ATTR_TABLE */
	TAPDP_CTL_ATTR_TABLE,		/* nest: NAME, DP_NAME?, ENTRIES */
	TAPDP_CTL_ATTR_DP_NAME,		/* string: the table's datapath */
	TAPDP_CTL_ATTR_ENTRIES,		/* u64 */
	TAPDP_CTL_ATTR_CLIENT_PID,	/* u32: the opener's (SO_PEERCRED) */
	TAPDP_CTL_ATTR_CLIENT_UID,	/* u32 */
	TAPDP_CTL_ATTR_COMM,		/* string: /proc/PID/comm, when readable */
	TAPDP_CTL_ATTR_PROTOCOL,	/* u32: NETLINK_GENERIC, ... */
	TAPDP_CTL_ATTR_PORTID,		/* u32 */
	TAPDP_CTL_ATTR_GROUPS,		/* u32 array: the groups joined */
	TAPDP_CTL_ATTR_QUEUED,		/* u32: bytes waiting to be read */
	TAPDP_CTL_ATTR_RCVBUF,		/* u32 */
	TAPDP_CTL_ATTR_CLIENTS,		/* u32: sockets open (in STATUS) */
	TAPDP_CTL_ATTR_DP_IFINDEX,	/* u32 */
	TAPDP_CTL_ATTR_PORT_NO,		/* u32 */
	TAPDP_CTL_ATTR_KIND,		/* u32: enum tapdp_ctl_kind */
	TAPDP_CTL_ATTR_REASON,		/* u32: a drop's, as tapdp_drop's */
	TAPDP_CTL_ATTR_REASON_NAME,	/* string, as the tracepoint names it */
	TAPDP_CTL_ATTR_UFID,		/* binary, 1 to 16 bytes */
	TAPDP_CTL_ATTR_TIMESTAMP_NS,	/* u64: since the epoch */
	TAPDP_CTL_ATTR_PACKET_LEN,	/* u32: the whole packet's */
	TAPDP_CTL_ATTR_PACKET,		/* binary: its first bytes */
	TAPDP_CTL_ATTR_TO_CLIENT,	/* flag: an NLMSG the daemon sent */
	TAPDP_CTL_ATTR_TRACE,		/* nest of TAPDP_CTL_ATTR_STEP */
	TAPDP_CTL_ATTR_STEP,		/* nest */
	TAPDP_CTL_ATTR_STEP_KIND,	/* u32: enum tapdp_ctl_step */
	TAPDP_CTL_ATTR_DEPTH,		/* u32 */
	TAPDP_CTL_ATTR_KEY,		/* nest of OVS_KEY_ATTR_* */
	TAPDP_CTL_ATTR_FLOW_KEY,	/* nest of OVS_KEY_ATTR_* */
	TAPDP_CTL_ATTR_FLOW_MASK,	/* nest of OVS_KEY_ATTR_* */
	TAPDP_CTL_ATTR_FLOW_ACTIONS,	/* nest of OVS_ACTION_ATTR_* */
	TAPDP_CTL_ATTR_MASKS_PROBED,	/* u32 */
	TAPDP_CTL_ATTR_ACTION,		/* binary: one OVS_ACTION_ATTR_* */
	TAPDP_CTL_ATTR_CT_STATE,	/* u32: OVS_CS_F_* */
	TAPDP_CTL_ATTR_CT_ZONE,		/* u32 */
	TAPDP_CTL_ATTR_CT_MARK,		/* u32 */
	TAPDP_CTL_ATTR_ERRNO,		/* u32: positive */
	TAPDP_CTL_ATTR_RECIRC_ID,	/* u32 */
	TAPDP_CTL_ATTR_GROUP,		/* u32: a psample group */
	TAPDP_CTL_ATTR_TRUNCATED,	/* flag */
	TAPDP_CTL_ATTR_UPCALL_CMD,	/* u32: OVS_PACKET_CMD_* */
	TAPDP_CTL_ATTR_UPCALL_MISS,	/* u64: misses sent up or lost */
	TAPDP_CTL_ATTR_UPCALL_ACTION,	/* u64: userspace actions, the same */
	TAPDP_CTL_ATTR_LOST_FULL,	/* u64: the socket's queue full */
	TAPDP_CTL_ATTR_LOST_NO_SOCKET,	/* u64: no pid, no socket at it */
	TAPDP_CTL_ATTR_LOST_OTHER,	/* u64 */
	TAPDP_CTL_ATTR_WAIT,		/* u64 array: waits < 10 us, < 100 us,
					 * ..., < 10 s, longer */
	TAPDP_CTL_ATTR_WAIT_N,		/* u64: misses whose flow came */
	TAPDP_CTL_ATTR_WAIT_SUM_US,	/* u64 */
	TAPDP_CTL_ATTR_WAIT_MAX_US,	/* u64 */
	TAPDP_CTL_ATTR_HANDLERS,	/* nest of TAPDP_CTL_ATTR_HANDLER */
	TAPDP_CTL_ATTR_HANDLER,		/* nest: PORTID, SENT, LOST */
	TAPDP_CTL_ATTR_SENT,		/* u64 */
	TAPDP_CTL_ATTR_LOST,		/* u64 */
	TAPDP_CTL_ATTR_BUFFERS,		/* nest of TAPDP_CTL_ATTR_BUFFER */
	TAPDP_CTL_ATTR_BUFFER,		/* nest: NAME, SIZE, MADE, FREE */
	TAPDP_CTL_ATTR_SIZE,		/* u32: bytes each */
	TAPDP_CTL_ATTR_MADE,		/* u32: allocated, in use or free */
	TAPDP_CTL_ATTR_FREE,		/* u32 */
	TAPDP_CTL_ATTR_NAMESPACES,	/* u32: network namespaces served, the
					 * daemon's included (in STATUS, to
					 * the daemon's namespace only) */
	TAPDP_CTL_ATTR_FAST_PATH,	/* string: "bpf", or "none (why)" */
	TAPDP_CTL_ATTR_FAST_PORTS,	/* nest of TAPDP_CTL_ATTR_FAST_PORT:
					 * in STATUS, the ports the fast path
					 * serves (the others stay on their
					 * rings) */
	TAPDP_CTL_ATTR_FAST_PORT,	/* nest: DP_NAME, PORT_NO */
	__TAPDP_CTL_ATTR_MAX
};
#define TAPDP_CTL_ATTR_MAX	(__TAPDP_CTL_ATTR_MAX - 1)

#endif
