/* SPDX-License-Identifier: Apache-2.0 */
/* A frame's fp_key, made alike by the BPF programs and by the daemon (one
 * code for both, so the two cannot disagree on what a frame's key is).
 *
 * The fast path takes only frames whose flow key (flow/extract.c) is a
 * function of the fields fp_key holds: Ethernet with at most one 802.1Q
 * tag, then IPv4 without options and not a fragment, or IPv6 without
 * extension headers, carrying TCP, UDP or ICMP (not neighbour discovery),
 * or Ethernet/IPv4 ARP. Anything else is not taken (fp_key_parse() says
 * false) and goes the daemon's way; two taken frames with equal keys have
 * equal flow keys, so they match the same megaflows.
 *
 * h: the first hlen bytes (at most FP_HDR_MAX) of a frame of len bytes,
 * from its Ethernet header; a tag the device took off (hardware
 * acceleration) is given apart as hw_vlan and hw_tci (host order). */
#ifndef TAPDP_BPF_FASTPATH_KEY_H
#define TAPDP_BPF_FASTPATH_KEY_H

#include "bpf/fastpath-abi.h"

#ifndef FP_INLINE
#define FP_INLINE static inline __attribute__((always_inline))
#endif

#define FP_ETH_P_IP	0x0800
#define FP_ETH_P_ARP	0x0806
#define FP_ETH_P_8021Q	0x8100
#define FP_ETH_P_IPV6	0x86dd

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define fp_htons(x)	((__u16)__builtin_bswap16(x))
#else
#define fp_htons(x)	((__u16)(x))
#endif

FP_INLINE __u16
fp_rd16(const __u8 *h, __u32 off)
{
	return (__u16)(h[off] << 8 | h[off + 1]);
}

/* Stored as on the wire: the key keeps network order where the flow key
 * does. */
FP_INLINE __u16
fp_raw16(const __u8 *h, __u32 off)
{
	__u16 v;

	__builtin_memcpy(&v, h + off, 2);
	return v;
}

/* The transport header at th of a frame of len bytes, whose first hlen
 * bytes are at h. */
FP_INLINE int
fp_key_l4(const __u8 *h, __u32 hlen, __u32 th, __u32 len, struct fp_key *k,
	  __u8 icmp)
{
	__u32 doff;

	if (k->proto == icmp) {
		if (th + 8 > hlen)
			return 0;
		/* Neighbour discovery's key has more fields. */
		if (icmp == 58 && h[th] >= 133 && h[th] <= 137)
			return 0;
		k->tp_src = fp_htons(h[th]);
		k->tp_dst = fp_htons(h[th + 1]);
		return 1;
	}
	if (k->proto == 6) {
		if (th + 20 > hlen)
			return 0;
		doff = (__u32)(h[th + 12] >> 4) * 4;
		if (doff < 20 || th + doff > len)
			return 0;
		/* The data offset's nibble is not a flag. */
		k->tcp_flags = fp_raw16(h, th + 12) & fp_htons(0x0fff);
	} else if (k->proto == 17) {
		if (th + 8 > hlen)
			return 0;
	} else {
		return 0;
	}
	k->tp_src = fp_raw16(h, th);
	k->tp_dst = fp_raw16(h, th + 2);
	return 1;
}

/* IPv4 at nh (14 or 18). */
FP_INLINE int
fp_key_ipv4(const __u8 *h, __u32 hlen, __u32 len, __u32 nh,
	    struct fp_key *k)
{
	if (nh + 20 > hlen || h[nh] != 0x45)
		return 0;
	/* Fragments: MF or an offset. */
	if (fp_rd16(h, nh + 6) & 0x3fff)
		return 0;
	k->l3 = FP_L3_IPV4;
	k->tos = h[nh + 1];
	k->ttl = h[nh + 8];
	k->proto = h[nh + 9];
	__builtin_memcpy(k->src, h + nh + 12, 4);
	__builtin_memcpy(k->dst, h + nh + 16, 4);
	return fp_key_l4(h, hlen, nh + 20, len, k, 1);
}

/* IPv6 at nh (14 or 18). */
FP_INLINE int
fp_key_ipv6(const __u8 *h, __u32 hlen, __u32 len, __u32 nh,
	    struct fp_key *k)
{
	__u32 vtf;

	if (nh + 40 > hlen)
		return 0;
	vtf = (__u32)fp_rd16(h, nh) << 16 | fp_rd16(h, nh + 2);
	k->l3 = FP_L3_IPV6;
	k->tos = (__u8)(vtf >> 20);
	k->label = vtf & 0xfffff;
	k->proto = h[nh + 6];
	k->ttl = h[nh + 7];
	__builtin_memcpy(k->src, h + nh + 8, 16);
	__builtin_memcpy(k->dst, h + nh + 24, 16);
	return fp_key_l4(h, hlen, nh + 40, len, k, 58);
}

/* ARP at nh (14 or 18): Ethernet/IPv4 only. */
FP_INLINE int
fp_key_arp(const __u8 *h, __u32 hlen, __u32 nh, struct fp_key *k)
{
	if (nh + 28 > hlen || fp_rd16(h, nh) != 1 ||
	    fp_rd16(h, nh + 2) != FP_ETH_P_IP || h[nh + 4] != 6 ||
	    h[nh + 5] != 4)
		return 0;
	k->l3 = FP_L3_ARP;
	k->arp_op_hi = h[nh + 6];
	k->proto = h[nh + 7];
	__builtin_memcpy(k->arp_sha, h + nh + 8, 6);
	__builtin_memcpy(k->src, h + nh + 14, 4);
	__builtin_memcpy(k->arp_tha, h + nh + 18, 6);
	__builtin_memcpy(k->dst, h + nh + 24, 4);
	return 1;
}

/* The L3 header of the given type at nh. */
FP_INLINE int
fp_key_l3(const __u8 *h, __u32 hlen, __u32 len, __u32 nh, __u16 type,
	  struct fp_key *k)
{
	if (type == FP_ETH_P_IP)
		return fp_key_ipv4(h, hlen, len, nh, k);
	if (type == FP_ETH_P_IPV6)
		return fp_key_ipv6(h, hlen, len, nh, k);
	if (type == FP_ETH_P_ARP)
		return fp_key_arp(h, hlen, nh, k);
	return 0;
}

/* k zeroed by the caller, its ifindex set. 1: taken, 0: not. */
FP_INLINE int
fp_key_parse(const __u8 *h, __u32 hlen, __u32 len, int hw_vlan,
	     __u16 hw_tci, struct fp_key *k)
{
	__u16 type;

	if (hlen < 14 || hlen > len)
		return 0;
	__builtin_memcpy(k->eth_dst, h, 6);
	__builtin_memcpy(k->eth_src, h + 6, 6);
	type = fp_rd16(h, 12);
	if (hw_vlan) {
		k->vlan = 1;
		k->vlan_tci = hw_tci;
	} else if (type == FP_ETH_P_8021Q) {
		if (hlen < 18)
			return 0;
		k->vlan = 1;
		k->vlan_tci = fp_rd16(h, 14);
		/* Each offset a constant, as the verifier best follows. */
		return fp_key_l3(h, hlen, len, 18, fp_rd16(h, 16), k);
	}
	return fp_key_l3(h, hlen, len, 14, type, k);
}

#endif
