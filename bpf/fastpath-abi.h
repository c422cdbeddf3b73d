/* SPDX-License-Identifier: Apache-2.0 */
/* What the fast path's BPF programs and the daemon share: the maps' keys
 * and values, laid out once for both compilers (clang -target bpf and the
 * daemon's). Every struct is padded by hand and kept zeroed where unused:
 * the hash map compares keys as bytes.
 *
 * A frame's fp_key holds the fields of its headers that the daemon's flow
 * key is made from (bpf/fastpath-key.h). A megaflow the programs can run
 * is an fp_key value under an fp_key mask: fp_masks holds the masks (a
 * megaflow table's masks, as few), fp_flows each megaflow's masked value
 * with its mask's index, to what the megaflow does (fp_actions). A frame
 * is looked up under each mask in turn. The daemon puts a megaflow there
 * when it is made or changed, and takes it out before it answers the
 * request that deletes or changes it. */
#ifndef TAPDP_BPF_FASTPATH_ABI_H
#define TAPDP_BPF_FASTPATH_ABI_H

#include <linux/types.h>

#define FP_HDR_MAX	80	/* header bytes a key is made from */
#define FP_SLOTS	65536	/* megaflows in fp_flows */
#define FP_MASKS	16	/* masks in fp_masks */
#define FP_PORTS	1024	/* devices with counters of their own */

enum fp_l3 {
	FP_L3_IPV4 = 1,
	FP_L3_IPV6,
	FP_L3_ARP,
};

/* A frame's headers as its flow key is made of them: raw where the key
 * takes a field as is, so equal fp_keys make equal flow keys. */
struct fp_key {
	__u32 ifindex;			/* the device it came in by */
	__u8 eth_dst[6];
	__u8 eth_src[6];
	__u16 vlan_tci;			/* host order, as on the wire */
	__u8 vlan;			/* 1: one 802.1Q tag */
	__u8 l3;			/* enum fp_l3 */
	__u8 proto;			/* IP protocol; ARP: opcode's low byte */
	__u8 tos;
	__u8 ttl;
	__u8 arp_op_hi;			/* ARP: opcode's high byte */
	__u32 label;			/* IPv6 flow label, host order */
	__u16 tp_src;			/* be; ICMP: type */
	__u16 tp_dst;			/* be; ICMP: code */
	__u16 tcp_flags;		/* be, 12 bits */
	__u16 mask_id;			/* fp_flows: the mask's index */
	__u8 src[16];			/* IPv4 in the first 4; ARP: spa */
	__u8 dst[16];			/* ARP: tpa */
	__u8 arp_sha[6];
	__u8 arp_tha[6];
} __attribute__((aligned(8)));

struct fp_mask {
	struct fp_key mask;
	__u32 active;			/* 0: a free index */
	__u32 pad;
};

/* fp_conf's one element. */
struct fp_conf {
	__u32 n_masks;			/* indexes of fp_masks in use, below */
	__u32 bypass;			/* 1: every frame is the daemon's */
	__u32 drops_told;		/* 1: frames an entry would drop are
					 * the daemon's, which tells of each */
	__u32 pad;
};

/* What an entry does to a frame: ops in order, as the megaflow's actions
 * give them (datapath/fastpath-actions.h makes them), then the frame's
 * end: taken by its last output, or dropped (drop says why). */
enum fp_op_kind {
	FP_OP_OUTPUT = 1,
	FP_OP_PUSH_VLAN,
	FP_OP_POP_VLAN,
	FP_OP_SET_ETH,			/* with set_eth */
	FP_OP_SET_IPV4,			/* with set_l3 */
	FP_OP_SET_IPV6,			/* with set_l3 */
	FP_OP_SET_PORTS,		/* with set_l4: TCP's or UDP's */
};

/* An op on a frame whose tag, if it has one, is in its skb (the form a
 * netdev's frames arrive in; at most one such tag), and whose L3 header
 * is at l3: 14, or 18 after a tag pushed onto a tagged frame. The L4
 * header follows it (no IPv4 options, no IPv6 extension headers in an
 * eligible frame).
 *
 * An output goes to a device, by redirection to its transmit side, or to
 * its receive side (FP_OUT_INGRESS: an internal port's TAP, whose frames
 * the host receives). A frame longer than mtu there (not GSO; measured
 * as the frame's length less 14 before any op: the daemon has taken
 * what the ops add or remove off mtu) takes the daemon's path, which
 * drops it as the kernel does. */
#define FP_OUT_INGRESS	1u
struct fp_op {
	__u8 kind;			/* enum fp_op_kind */
	__u8 flags;			/* OUTPUT: FP_OUT_* */
	__u8 counted;			/* OUTPUT: the device's counters are
					 * ours */
	__u8 l3;			/* SET_*: the L3 header's offset */
	__u32 ifindex;			/* OUTPUT */
	__u32 mtu;			/* OUTPUT */
	__u16 tpid, tci;		/* PUSH_VLAN: host order, TCI without
					 * the present bit */
};

#define FP_OPS_MAX	8

/* The values and masks of an entry's sets, one of each kind (an entry
 * with two of a kind is not the programs'): as the fields lie in the
 * headers. */
struct fp_set_eth {
	__u8 val[12], mask[12];		/* dst, src */
};

struct fp_set_l3 {
	/* IPv4: src, dst, tos, ttl. IPv6: src, dst, tclass, hlimit,
	 * then the label's 20 bits in 4 bytes, big-endian. */
	__u8 val[40], mask[40];
};

struct fp_set_l4 {
	__u8 val[4], mask[4];		/* src, dst */
};

/* Why a frame an entry does not send on is dropped, as counted. */
enum fp_drop {
	FP_DROP_NONE,			/* its last op is an output */
	FP_DROP_LAST_ACTION,
	FP_DROP_EXPLICIT,
	FP_DROP_EXPLICIT_WITH_ERROR,
	FP_DROPS
};

/* FP_ACT_TAG_IN_SKB: the ops need the frame's tag in its skb; a frame
 * sent on an internal port with its tag in its bytes is moved to that
 * form first. */
#define FP_ACT_TAG_IN_SKB	1u
struct fp_actions {
	__u32 slot;			/* of fp_flow_stats */
	__u32 dp_ifindex;		/* of fp_dp_stats */
	__u8 n_ops;
	__u8 drop;			/* enum fp_drop */
	__u8 flags;			/* FP_ACT_* */
	__u8 pad[5];
	struct fp_op op[FP_OPS_MAX];
	struct fp_set_eth set_eth;
	struct fp_set_l3 set_l3;
	struct fp_set_l4 set_l4;
};

/* A flow's packets through the fast path, per CPU. */
struct fp_flow_stats {
	__u64 packets;
	__u64 bytes;
	__u64 used_ns;			/* CLOCK_MONOTONIC */
	__u64 tcp_flags;
};

/* A datapath's hits and the drops of its entries, per CPU. */
struct fp_dp_stats {
	__u64 n_hit;
	__u64 n_drop[FP_DROPS];		/* by enum fp_drop */
};

/* A port's frames that entries dropped, and a TAP device's frames the
 * fast path took from or gave to the host, which its driver did not
 * count. */
struct fp_port_stats {
	__u64 rx_packets, rx_bytes;	/* given to the host */
	__u64 tx_packets, tx_bytes;	/* taken from the host */
	__u64 n_drop[FP_DROPS];		/* that came in by it */
};

/* What the test program (fp_probe) records of each output instead of
 * sending the frame: where, and the frame as it leaves, with its tag in
 * its skb given apart. */
#define FP_TRACE_MAX	8
#define FP_TRACE_BYTES	160
struct fp_trace_out {
	__u32 ifindex;
	__u32 flags;
	__u32 len;			/* skb's: without a tag in the skb */
	__u16 vlan;			/* 1: a tag in the skb */
	__u16 vlan_proto, vlan_tci;	/* host order */
	__u16 pad;
	__u8 frame[FP_TRACE_BYTES];
};

/* fp_trace_n's one element: outputs recorded in fp_trace_outs, and how
 * the frame ended. */
struct fp_trace {
	__u32 n_out;
	__u32 drop;			/* enum fp_drop */
};

/* From the socket filter of a port's AF_PACKET ring to the tc program on
 * its ingress, which run one after the other for one frame on one CPU:
 * the filter keeps the frame from the ring and leaves here what to do
 * with it, the tc program does it. */
struct fp_handoff {
	__u32 ifindex;
	__u32 len;
	__u32 hash;
	__u32 valid;
	__u16 tcp_flags;
	__u16 pad[3];
	struct fp_actions act;
};

#endif
