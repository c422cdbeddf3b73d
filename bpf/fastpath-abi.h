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
#define FP_OUT_MAX	4	/* outputs of one entry */
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
};

/* Where an output goes: a device, by redirection to its transmit side,
 * or to its receive side (FP_OUT_INGRESS: an internal port's TAP, whose
 * frames the host receives). Frames longer than mtu (not GSO) take the
 * daemon's path, which drops them as the kernel does. */
#define FP_OUT_INGRESS	1u
struct fp_out {
	__u32 ifindex;
	__u32 flags;
	__u32 mtu;
	__u32 counted;			/* 1: the device's counters are ours */
};

/* The outputs in the order the actions give them, but for the last one,
 * which is out[0]: the programs send clones of the frame to out[1] to
 * out[n_out - 1], then the frame itself to out[0]. */
struct fp_actions {
	__u32 slot;			/* of fp_flow_stats */
	__u32 dp_ifindex;		/* of fp_dp_stats */
	__u32 n_out;			/* 0: drop */
	__u32 pad;
	struct fp_out out[FP_OUT_MAX];
};

/* A flow's packets through the fast path, per CPU. */
struct fp_flow_stats {
	__u64 packets;
	__u64 bytes;
	__u64 used_ns;			/* CLOCK_MONOTONIC */
	__u64 tcp_flags;
};

/* A datapath's hits, per CPU. */
struct fp_dp_stats {
	__u64 n_hit;
};

/* A TAP device's frames the fast path took from or gave to the host,
 * which its driver did not count. */
struct fp_port_stats {
	__u64 rx_packets, rx_bytes;	/* given to the host */
	__u64 tx_packets, tx_bytes;	/* taken from the host */
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
