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
#include <bpf/bpf_endian.h>
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

/* fp_probe's record (tests only). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_trace);
} fp_trace_n SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_TRACE_MAX);
	__type(key, __u32);
	__type(value, struct fp_trace_out);
} fp_trace_outs SEC(".maps");

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
			/* A drop someone listens for is told by the
			 * daemon. */
			return a->drop && conf->drops_told ? NULL : a;
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

	if (a->n_ops > FP_OPS_MAX)
		return 0;
	if (skb->gso_size)
		return 1;
#pragma clang loop unroll(full)
	for (int i = 0; i < FP_OPS_MAX; i++)
		if (i < a->n_ops && a->op[i].kind == FP_OP_OUTPUT &&
		    l3 > a->op[i].mtu)
			return 0;
	return 1;
}

/* A frame sent with its tag in its bytes, for ops that want it in the
 * skb: 0 when it is there, -1 when the frame cannot be moved (left as
 * it was), -2 when it was changed but not moved (dropped). */
static __always_inline int
tag_to_skb(struct __sk_buff *skb, const struct fp_key *k)
{
	__u8 tci[2];

	if (!k->vlan || skb->vlan_present)
		return 0;
	if (skb->protocol != bpf_htons(FP_ETH_P_8021Q) ||
	    bpf_skb_load_bytes(skb, 14, tci, 2) || bpf_skb_vlan_pop(skb))
		return -1;
	if (skb->vlan_present ||
	    bpf_skb_vlan_push(skb, bpf_htons(FP_ETH_P_8021Q),
			      (__u16)(tci[0] << 8 | tci[1])))
		return -2;
	return 0;
}

/* The frame's length on the wire: with a tag its skb holds. */
static __always_inline __u32
wire_len(const struct __sk_buff *skb)
{
	return skb->len + (skb->vlan_present ? 4 : 0);
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

static __always_inline void
count_drop(__u32 dp, __u32 in, __u32 why)
{
	struct fp_dp_stats *ds = bpf_map_lookup_elem(&fp_dp_stats, &dp);
	struct fp_port_stats *ps = bpf_map_lookup_elem(&fp_port_stats, &in);

	if (why >= FP_DROPS)
		return;
	if (ds)
		ds->n_drop[why]++;
	if (ps)
		ps->n_drop[why]++;
}

/* The entry of the frame being forwarded: in this CPU's handoff slot,
 * where the ring's filter or the internal port's program copied it. The
 * global functions below take it from there: their arguments are the
 * context and scalars only, as every kernel with global functions
 * checks them. */
static __always_inline struct fp_handoff *
handoff(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fp_handoff, &zero);
}

/* Sets: each field as net/openvswitch/actions.c sets it, checksums
 * updated by the helpers that do what its own calls do, so that the
 * frames are the kernel's to the bit. 0, or -1 when a helper failed.
 *
 * Global functions: the verifier checks each once, not once for each
 * op of the unrolled loop that calls it (a daemon that may not bypass
 * its speculation checks, an upgraded one, would load for seconds). */

static __always_inline __u8
masked8(__u8 old, __u8 val, __u8 mask)
{
	return (old & ~mask) | (val & mask);
}

__noinline int
fp_set_eth(struct __sk_buff *skb)
{
	struct fp_handoff *ho = handoff();
	const struct fp_set_eth *s;
	__u8 h[12];

	if (!ho)
		return -1;
	s = &ho->act.set_eth;
	if (bpf_skb_load_bytes(skb, 0, h, sizeof(h)))
		return -1;
	for (int i = 0; i < 12; i++)
		h[i] = masked8(h[i], s->val[i], s->mask[i]);
	return bpf_skb_store_bytes(skb, 0, h, sizeof(h),
				   BPF_F_RECOMPUTE_CSUM) ? -1 : 0;
}

/* The L4 checksum's offset in the frame for an address or port change
 * (0: none to change) and the helper's flags for it. */
static __always_inline __u32
l4_csum(__u32 l4, __u8 proto, int addr, __u64 *flags)
{
	*flags = addr ? BPF_F_PSEUDO_HDR : 0;
	if (proto == 6)
		return l4 + 16;
	if (proto == 17) {
		/* No checksum stays none. */
		*flags |= BPF_F_MARK_MANGLED_0;
		return l4 + 6;
	}
	if (proto == 58 && addr)
		return l4 + 2;
	return 0;
}

__noinline int
fp_set_ipv4(struct __sk_buff *skb, __u32 l3)
{
	struct fp_handoff *ho = handoff();
	const struct fp_set_l3 *s;
	__u32 csum, l4 = l3 + 20;
	__u64 l4flags;
	__u8 ip[20], tos;
	__u16 check;

	if (!ho)
		return -1;
	s = &ho->act.set_l3;
	if (bpf_skb_load_bytes(skb, l3, ip, sizeof(ip)))
		return -1;
	csum = l4_csum(l4, ip[9], 1, &l4flags);
#pragma clang loop unroll(full)
	for (int f = 0; f < 2; f++) {
		__u32 old, new, m, v;

		__builtin_memcpy(&old, ip + 12 + 4 * f, 4);
		__builtin_memcpy(&m, s->mask + 4 * f, 4);
		__builtin_memcpy(&v, s->val + 4 * f, 4);
		new = (old & ~m) | (v & m);
		if (!m || new == old)
			continue;
		if (csum && bpf_l4_csum_replace(skb, csum, old, new,
						l4flags | 4))
			return -1;
		if (bpf_l3_csum_replace(skb, l3 + 10, old, new, 4) ||
		    bpf_skb_store_bytes(skb, l3 + 12 + 4 * f, &new, 4, 0))
			return -1;
	}
	if (s->mask[8]) {
		/* ipv4_change_dsfield()'s sum, to its last carry; the
		 * value is not masked there either. */
		if (bpf_skb_load_bytes(skb, l3 + 10, &check, 2))
			return -1;
		tos = (ip[1] & ~s->mask[8]) | s->val[8];
		csum = bpf_ntohs(check) + ip[1];
		if ((csum + 1) >> 16)
			csum = (csum + 1) & 0xffff;
		csum -= tos;
		csum += csum >> 16;
		check = bpf_htons((__u16)csum);
		if (bpf_skb_store_bytes(skb, l3 + 10, &check, 2, 0) ||
		    bpf_skb_store_bytes(skb, l3 + 1, &tos, 1, 0))
			return -1;
	}
	if (s->mask[9]) {
		__u8 ttl = masked8(ip[8], s->val[9], s->mask[9]);

		if (bpf_l3_csum_replace(skb, l3 + 10, bpf_htons(ip[8] << 8),
					bpf_htons(ttl << 8), 2) ||
		    bpf_skb_store_bytes(skb, l3 + 8, &ttl, 1, 0))
			return -1;
	}
	return 0;
}

__noinline int
fp_set_ipv6(struct __sk_buff *skb, __u32 l3)
{
	struct fp_handoff *ho = handoff();
	const struct fp_set_l3 *s;
	__u32 csum, l4 = l3 + 40, w, wm, wv;
	__u64 l4flags;
	__u8 ip[40];

	if (!ho)
		return -1;
	s = &ho->act.set_l3;
	if (bpf_skb_load_bytes(skb, l3, ip, sizeof(ip)))
		return -1;
	csum = l4_csum(l4, ip[6], 1, &l4flags);
#pragma clang loop unroll(full)
	for (int f = 0; f < 2; f++) {
		__u32 old[4], new[4], any = 0, diff = 0;
		__s64 sum;

#pragma clang loop unroll(full)
		for (int j = 0; j < 4; j++) {
			__u32 m, v;

			__builtin_memcpy(&old[j], ip + 8 + 16 * f + 4 * j, 4);
			__builtin_memcpy(&m, s->mask + 16 * f + 4 * j, 4);
			__builtin_memcpy(&v, s->val + 16 * f + 4 * j, 4);
			new[j] = (old[j] & ~m) | (v & m);
			any |= m;
			diff |= new[j] ^ old[j];
		}
		if (!any || !diff)
			continue;
		if (csum) {
			sum = bpf_csum_diff(old, 16, new, 16, 0);
			if (sum < 0 || bpf_l4_csum_replace(skb, csum, 0,
							   (__u32)sum,
							   l4flags))
				return -1;
		}
		if (bpf_skb_store_bytes(skb, l3 + 8 + 16 * f, new, 16, 0))
			return -1;
	}
	/* Traffic class and flow label share the first word with the
	 * version; the hop limit is a byte of its own. */
	__builtin_memcpy(&w, ip, 4);
	w = bpf_ntohl(w);
	__builtin_memcpy(&wm, s->mask + 34, 4);
	__builtin_memcpy(&wv, s->val + 34, 4);
	wm = (bpf_ntohl(wm) & 0xfffff) | (__u32)s->mask[32] << 20;
	wv = (bpf_ntohl(wv) & 0xfffff) | (__u32)s->val[32] << 20;
	if (wm) {
		w = bpf_htonl((w & ~wm) | (wv & wm));
		if (bpf_skb_store_bytes(skb, l3, &w, 4,
					BPF_F_RECOMPUTE_CSUM))
			return -1;
	}
	if (s->mask[33]) {
		__u8 hl = masked8(ip[7], s->val[33], s->mask[33]);

		if (bpf_skb_store_bytes(skb, l3 + 7, &hl, 1,
					BPF_F_RECOMPUTE_CSUM))
			return -1;
	}
	return 0;
}

__noinline int
fp_set_ports(struct __sk_buff *skb, __u32 l3, int ipv6)
{
	struct fp_handoff *ho = handoff();
	__u32 l4 = l3 + (ipv6 ? 40 : 20), csum;
	const struct fp_set_l4 *s;
	__u64 l4flags;
	__u8 proto;
	__u16 p[2];

	if (!ho)
		return -1;
	s = &ho->act.set_l4;
	if (bpf_skb_load_bytes(skb, l4, p, 4) ||
	    bpf_skb_load_bytes(skb, l3 + (ipv6 ? 6 : 9), &proto, 1))
		return -1;
	csum = l4_csum(l4, proto, 0, &l4flags);
#pragma clang loop unroll(full)
	for (int f = 0; f < 2; f++) {
		__u16 m, v, new;

		__builtin_memcpy(&m, s->mask + 2 * f, 2);
		__builtin_memcpy(&v, s->val + 2 * f, 2);
		new = (p[f] & ~m) | (v & m);
		if (!m || new == p[f])
			continue;
		if (csum && bpf_l4_csum_replace(skb, csum, p[f], new,
						l4flags | 2))
			return -1;
		if (bpf_skb_store_bytes(skb, l4 + 2 * f, &new, 2, 0))
			return -1;
	}
	return 0;
}

/* An output of the test program: recorded, not sent. */
static __always_inline void
trace_out(struct __sk_buff *skb, const struct fp_op *op)
{
	__u32 zero = 0, i, len = skb->len;
	struct fp_trace *t = bpf_map_lookup_elem(&fp_trace_n, &zero);
	struct fp_trace_out *o;

	if (!t)
		return;
	i = t->n_out;
	o = bpf_map_lookup_elem(&fp_trace_outs, &i);
	if (!o)
		return;
	t->n_out = i + 1;
	o->ifindex = op->ifindex;
	o->flags = op->flags;
	o->len = len;
	o->vlan = skb->vlan_present;
	o->vlan_proto = bpf_ntohs((__u16)skb->vlan_proto);
	o->vlan_tci = (__u16)skb->vlan_tci;
	if (len < 14)
		return;
	/* The upper bound on the register the helper is given, which the
	 * compiler would have checked on a copy. */
	asm volatile("if %[l] <= %[max] goto 1f\n\t"
		     "%[l] = %[max]\n"
		     "1:"
		     : [l] "+r"(len)
		     : [max] "i"(FP_TRACE_BYTES));
	bpf_skb_load_bytes(skb, 0, o->frame, len);
}

static __always_inline void
trace_end(__u32 why)
{
	__u32 zero = 0;
	struct fp_trace *t = bpf_map_lookup_elem(&fp_trace_n, &zero);

	if (t)
		t->drop = why;
}

/* One op other than an output (its fields given): 0, or -1 when a
 * helper failed. */
__noinline int
fp_run_op(struct __sk_buff *skb, __u32 kind, __u32 l3, __u32 flags,
	  __u32 tag)
{
	switch (kind) {
	case FP_OP_PUSH_VLAN:
		return bpf_skb_vlan_push(skb, bpf_htons((__u16)(tag >> 16)),
					 (__u16)tag) ? -1 : 0;
	case FP_OP_POP_VLAN:
		return bpf_skb_vlan_pop(skb) ? -1 : 0;
	case FP_OP_SET_ETH:
		return fp_set_eth(skb);
	case FP_OP_SET_IPV4:
		return fp_set_ipv4(skb, l3);
	case FP_OP_SET_IPV6:
		return fp_set_ipv6(skb, l3);
	case FP_OP_SET_PORTS:
		return fp_set_ports(skb, l3, flags);
	}
	return -1;
}

/* A hit, its entry in the handoff slot: the flow's and the datapath's
 * counters, then the ops. probe: the test program's, which records the
 * outputs. Global, so that the verifier checks it once, not once for
 * each mask a lookup tried. */
__noinline int
fp_execute(struct __sk_buff *skb, int probe)
{
	__u32 slot, dp, in = skb->ifindex, n;
	__u32 len = wire_len(skb);
	struct fp_handoff *ho = handoff();
	const struct fp_actions *a;
	struct fp_flow_stats *fs;
	struct fp_dp_stats *ds;

	if (!ho)
		return TC_ACT_OK;
	a = &ho->act;
	slot = a->slot;
	dp = a->dp_ifindex;
	n = a->n_ops;
	fs = bpf_map_lookup_elem(&fp_flow_stats, &slot);
	ds = bpf_map_lookup_elem(&fp_dp_stats, &dp);
	if (fs) {
		fs->packets++;
		fs->bytes += len;
		fs->used_ns = bpf_ktime_get_ns();
		fs->tcp_flags |= ho->tcp_flags;
	}
	if (ds)
		ds->n_hit++;
	/* Unrolled, so that every offset into the map value is a
	 * constant, as the verifier wants of a program loaded without
	 * CAP_PERFMON (an upgraded daemon's). */
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < FP_OPS_MAX; i++) {
		const struct fp_op *op = &a->op[i];
		int last;
		__u64 f;

		if (i >= n)
			break;
		if (op->kind != FP_OP_OUTPUT) {
			if (fp_run_op(skb, op->kind, op->l3, op->flags,
				      (__u32)op->tpid << 16 | op->tci))
				return TC_ACT_SHOT;
			continue;
		}
		/* The last action, an output, takes the frame itself. */
		last = i == n - 1 && a->drop == FP_DROP_NONE;
		if (probe) {
			trace_out(skb, op);
			if (last)
				return TC_ACT_REDIRECT;
			continue;
		}
		if (op->counted)
			count_port(op->ifindex, wire_len(skb), 1);
		f = op->flags & FP_OUT_INGRESS ? BPF_F_INGRESS : 0;
		if (last)
			return bpf_redirect(op->ifindex, f);
		bpf_clone_redirect(skb, op->ifindex, f);
	}
	count_drop(dp, in, a->drop);
	if (probe)
		trace_end(a->drop);
	return TC_ACT_SHOT;
}

/* A netdev port's ring: 0 keeps the frame from it (the tc program that
 * runs next forwards it), ~0 lets the ring have all of it. */
SEC("socket")
int
fp_ring(struct __sk_buff *skb)
{
	struct fp_handoff *ho = handoff();
	struct fp_actions *a;
	struct fp_key k;

	if (!ho)
		return ~0;
	ho->valid = 0;
	if (!frame_key(skb, &k))
		return ~0;
	a = lookup(&k);
	/* (A netdev's frames come with their tag in the skb.) */
	if (!a || !fits(skb, a) ||
	    ((a->flags & FP_ACT_TAG_IN_SKB) && k.vlan && !skb->vlan_present))
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
	struct fp_handoff *ho = handoff();

	if (!ho || !ho->valid)
		return TC_ACT_OK;
	ho->valid = 0;
	if (ho->ifindex != skb->ifindex || ho->len != skb->len ||
	    ho->hash != skb->hash)
		return TC_ACT_OK;
	return fp_execute(skb, 0);
}

/* An internal port's frame, taken or not: TC_ACT_OK leaves it to the
 * daemon. */
static __always_inline int
tap_out(struct __sk_buff *skb, const int probe)
{
	struct fp_handoff *ho = handoff();
	struct fp_actions *a;
	struct fp_key k;
	int moved;

	if (!ho || !frame_key(skb, &k))
		return TC_ACT_OK;
	a = lookup(&k);
	if (!a)
		return TC_ACT_OK;
	if (a->flags & FP_ACT_TAG_IN_SKB) {
		moved = tag_to_skb(skb, &k);
		if (moved == -1)
			return TC_ACT_OK;
		if (moved)
			return TC_ACT_SHOT;
	}
	if (!fits(skb, a))
		return TC_ACT_OK;
	if (!probe)
		count_port(skb->ifindex, skb->len, 0);
	/* (No ring filter runs for these frames: the slot is free.) */
	__builtin_memcpy(&ho->act, a, sizeof(ho->act));
	ho->tcp_flags = k.tcp_flags;
	ho->valid = 0;
	return fp_execute(skb, probe);
}

/* tc egress of an internal port's TAP: frames the host sends. */
SEC("tc")
int
fp_tap_out(struct __sk_buff *skb)
{
	return tap_out(skb, 0);
}

/* fp_tap_out for tests (BPF_PROG_TEST_RUN): its outputs are recorded
 * in fp_trace_outs, not sent. */
SEC("tc")
int
fp_probe(struct __sk_buff *skb)
{
	return tap_out(skb, 1);
}
