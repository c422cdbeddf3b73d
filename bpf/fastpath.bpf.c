// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/* The fast path's programs: frames whose megaflow the daemon put in
 * fp_flows are forwarded in the kernel, the rest go the daemon's way
 * unchanged (bpf/fastpath-abi.h says what the maps hold,
 * docs/ARCHITECTURE.md why these hooks).
 *
 * A netdev port's frames reach the daemon's AF_PACKET ring (a packet tap)
 * before tc ingress: fp_ring, the ring's socket filter, decides (keeps a
 * frame it takes from the ring), fp_netdev_in on tc ingress acts on that
 * decision, so each frame is seen once and looked up once. An internal
 * port's frames, which the host sends to its TAP, are taken by fp_tap_out
 * on tc egress before the TAP queues them for the daemon. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "bpf/fastpath-key.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_SLOTS);
	__type(key, struct fp_key);
	__type(value, struct fp_actions);
} fp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_MASKS);
	__type(key, __u32);
	__type(value, struct fp_mask);
} fp_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_conf);
} fp_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_SLOTS);
	__type(key, __u32);
	__type(value, struct fp_flow_stats);
} fp_flow_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FP_PORTS);
	__type(key, __u32);
	__type(value, struct fp_dp_stats);
} fp_dp_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FP_PORTS);
	__type(key, __u32);
	__type(value, struct fp_port_stats);
} fp_port_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_handoff);
} fp_handoff SEC(".maps");

/* The frame's key; 0 when the fast path does not take it. */
static __always_inline int
frame_key(struct __sk_buff *skb, struct fp_key *k)
{
	__u8 h[FP_HDR_MAX];
	__u32 hlen = skb->len < FP_HDR_MAX ? skb->len : FP_HDR_MAX;

	__builtin_memset(h, 0, sizeof(h));
	__builtin_memset(k, 0, sizeof(*k));
	if (hlen < 14 || bpf_skb_load_bytes(skb, 0, h, hlen) < 0)
		return 0;
	k->ifindex = skb->ifindex;
	return fp_key_parse(h, hlen, skb->len, skb->vlan_present,
			    (__u16)skb->vlan_tci, k);
}

/* The megaflow the frame's key k matches, under each mask in turn. */
static __always_inline struct fp_actions *
lookup(const struct fp_key *k)
{
	__u32 zero = 0, n;
	struct fp_conf *conf = bpf_map_lookup_elem(&fp_conf, &zero);
	struct fp_key mk;

	if (!conf || conf->bypass)
		return NULL;
	n = conf->n_masks;
	/* Unrolled: each index a constant, no loop for the verifier. */
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < FP_MASKS; i++) {
		const __u64 *kw = (const __u64 *)k;
		__u64 *mw = (__u64 *)&mk;
		struct fp_actions *a;
		const __u64 *w;
		struct fp_mask *m;

		__u32 idx = i;

		if (i >= n)
			break;
		m = bpf_map_lookup_elem(&fp_masks, &idx);
		if (!m || !m->active)
			continue;
		w = (const __u64 *)&m->mask;
		for (int j = 0; j < (int)(sizeof(mk) / 8); j++)
			mw[j] = kw[j] & w[j];
		mk.mask_id = i;
		a = bpf_map_lookup_elem(&fp_flows, &mk);
		if (a)
			return a;
	}
	return NULL;
}

/* Whether each output takes the frame as the daemon's would: a frame
 * over an output's MTU (not GSO) is left to the daemon, which drops it
 * and counts it as the kernel does. */
static __always_inline int
fits(const struct __sk_buff *skb, const struct fp_actions *a)
{
	__u32 l3 = skb->len - 14;

	if (a->n_out == 0 || a->n_out > FP_OUT_MAX)
		return 0;
	if (skb->gso_size)
		return 1;
#pragma clang loop unroll(full)
	for (int i = 0; i < FP_OUT_MAX; i++)
		if (i < a->n_out && l3 > a->out[i].mtu)
			return 0;
	return 1;
}

static __always_inline void
count_port(__u32 ifindex, __u32 len, int rx)
{
	struct fp_port_stats *ps = bpf_map_lookup_elem(&fp_port_stats,
						       &ifindex);

	if (!ps)
		return;
	if (rx) {
		ps->rx_packets++;
		ps->rx_bytes += len;
	} else {
		ps->tx_packets++;
		ps->tx_bytes += len;
	}
}

/* A hit: the flow's and the datapath's counters, then the outputs. */
static __always_inline int
execute(struct __sk_buff *skb, const struct fp_actions *a, __u16 tcp_flags)
{
	__u32 slot = a->slot, dp = a->dp_ifindex;
	__u32 len = skb->len + (skb->vlan_present ? 4 : 0);
	struct fp_flow_stats *fs = bpf_map_lookup_elem(&fp_flow_stats, &slot);
	struct fp_dp_stats *ds = bpf_map_lookup_elem(&fp_dp_stats, &dp);
	__u32 n = a->n_out;

	if (fs) {
		fs->packets++;
		fs->bytes += len;
		fs->used_ns = bpf_ktime_get_ns();
		fs->tcp_flags |= tcp_flags;
	}
	if (ds)
		ds->n_hit++;
	/* The outputs before the last one are clones, the last one the
	 * frame itself, at out[0] (fastpath-abi.h): every offset into the
	 * map value a constant, as the verifier wants of a program loaded
	 * without CAP_PERFMON (an upgraded daemon's). */
	if (n == 0 || n > FP_OUT_MAX)
		return TC_ACT_SHOT;
#pragma clang loop unroll(full)
	for (__u32 i = 1; i < FP_OUT_MAX; i++) {
		const struct fp_out *o = &a->out[i];

		if (i >= n)
			break;
		if (o->counted)
			count_port(o->ifindex, skb->len, 1);
		bpf_clone_redirect(skb, o->ifindex,
				   o->flags & FP_OUT_INGRESS ? BPF_F_INGRESS
							     : 0);
	}
	if (a->out[0].counted)
		count_port(a->out[0].ifindex, skb->len, 1);
	return bpf_redirect(a->out[0].ifindex,
			    a->out[0].flags & FP_OUT_INGRESS ? BPF_F_INGRESS
							     : 0);
}

/* A netdev port's ring: 0 keeps the frame from it (the tc program that
 * runs next forwards it), ~0 lets the ring have all of it. */
SEC("socket")
int
fp_ring(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct fp_handoff *ho = bpf_map_lookup_elem(&fp_handoff, &zero);
	struct fp_actions *a;
	struct fp_key k;

	if (!ho)
		return ~0;
	ho->valid = 0;
	if (!frame_key(skb, &k))
		return ~0;
	a = lookup(&k);
	if (!a || !fits(skb, a))
		return ~0;
	ho->ifindex = skb->ifindex;
	ho->len = skb->len;
	ho->hash = skb->hash;
	ho->tcp_flags = k.tcp_flags;
	__builtin_memcpy(&ho->act, a, sizeof(ho->act));
	ho->valid = 1;
	return 0;
}

/* tc ingress of a netdev port: what the ring's filter decided. */
SEC("tc")
int
fp_netdev_in(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct fp_handoff *ho = bpf_map_lookup_elem(&fp_handoff, &zero);

	if (!ho || !ho->valid)
		return TC_ACT_OK;
	ho->valid = 0;
	if (ho->ifindex != skb->ifindex || ho->len != skb->len ||
	    ho->hash != skb->hash)
		return TC_ACT_OK;
	return execute(skb, &ho->act, ho->tcp_flags);
}

/* tc egress of an internal port's TAP: frames the host sends. */
SEC("tc")
int
fp_tap_out(struct __sk_buff *skb)
{
	struct fp_actions *a;
	struct fp_key k;

	if (!frame_key(skb, &k))
		return TC_ACT_OK;
	a = lookup(&k);
	if (!a || !fits(skb, a))
		return TC_ACT_OK;
	count_port(skb->ifindex, skb->len, 0);
	return execute(skb, a, k.tcp_flags);
}
