/* SPDX-License-Identifier: Apache-2.0 */
#include "actions/actions.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/unaligned.h"
#include "flow/key-netlink.h"
#include "include/tapdp/drop-uapi.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/frame.h"
#include "packet/headers.h"

/* The kernel's limits (net/openvswitch/actions.c): executions nest at
 * most RECURSION_LIMIT deep (a recirculation's lookup is one more); a
 * clone, sample, check_pkt_len branch or recirculation that needs a key
 * of its own runs at once only while the level is at most KEY_LEVELS,
 * deeper ones wait in the thread's queue for the outermost execution to
 * end. The kernel's queue of 10 takes 9 (its put refuses the last slot);
 * a packet past them is dropped. */
#define RECURSION_LIMIT	5
#define KEY_LEVELS	(RECURSION_LIMIT - 2)
#define DEFER_SLOTS	9

/* Copies that run at once are outstanding at most two per level (one
 * with its own key raises the level; one without has no nesting but a
 * recirculation); more than that is kept for safety. */
#define SCRATCH_LEVELS	24

struct exec {
	const struct actions_env *env;
	const struct actions_stored *acts;	/* the whole list */
	int err;	/* what ended it, as do_execute_actions() returns */
};

/* Actions (a recirculation when actions is NULL) waiting for the
 * outermost execution to end, on a copy of the packet and key in the
 * slot's own buffer, as the kernel queues a clone of the skb. */
struct deferred {
	struct actions_env env;
	const struct actions_stored *acts;
	const void *actions;
	int len;
	struct packet pkt;
	struct flow_key key;
	uint8_t *buf;			/* FRAME_BUF_SIZE, held */
};

static __thread uint8_t *scratch[SCRATCH_LEVELS];
static __thread unsigned copy_level;	/* scratch buffers in use */
static __thread unsigned exec_level;	/* the kernel's exec_actions_level */
static __thread struct deferred *defer_q;	/* DEFER_SLOTS, kept */
static __thread unsigned defer_head, defer_tail;
static __thread uint32_t rnd_state = 0x9e3779b9;

static void execute_list(struct exec *x, struct packet *pkt,
			 struct flow_key *key, const void *acts, int len);

static void
drop(const struct exec *x, const struct packet *pkt, uint32_t reason)
{
	if (x->env->drop)
		x->env->drop(x->env->ctx, pkt, reason);
}

/* An action failed with err: the packet is dropped and the lists it was
 * in end, err going back to whoever executed them. */
static void
fail(struct exec *x, const struct packet *pkt, int err)
{
	drop(x, pkt, TAPDP_DROP_OVS_ACTION_ERROR);
	x->err = err;
}

static uint32_t
rnd(void)
{
	/* xorshift32: sampling needs speed, not quality. */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

uint32_t
packet_hash(struct packet *pkt, const struct flow_key *key)
{
	uint64_t w[4], src[2], dst[2];
	uint32_t h;

	if (pkt->hash)
		return pkt->hash;
	/* Each field xored with its peer: both directions hash alike. */
	memcpy(src, &key->ipv6_src, 16);
	memcpy(dst, &key->ipv6_dst, 16);
	w[0] = (uint64_t)(key->ipv4_src ^ key->ipv4_dst) << 32 |
	       (uint16_t)(key->tp_src ^ key->tp_dst);
	w[1] = src[0] ^ dst[0];
	w[2] = src[1] ^ dst[1];
	w[3] = (uint32_t)key->ip_proto << 16 | key->eth_type;
	h = hash_words(w, 4, 0);
	pkt->hash = h ? h : 1;
	return pkt->hash;
}

/* A copy of pkt into *buf (from the frame pool, taken at first use and
 * held until actions_release()), for actions that must not touch the
 * original. */
static bool
packet_copy(uint8_t **buf, const struct packet *pkt, struct packet *copy)
{
	if (pkt->len > FRAME_MAX)
		return false;
	if (!*buf && !(*buf = buf_pool_get(&frame_pool)))
		return false;
	*copy = *pkt;
	copy->data = *buf + FRAME_HEADROOM;
	copy->headroom = FRAME_HEADROOM;
	copy->tailroom = FRAME_BUF_SIZE - FRAME_HEADROOM - pkt->len;
	memcpy(copy->data, pkt->data, pkt->len);
	return true;
}

/* Whether the actions may change the key, as the kernel's
 * actions_may_change_flow(), whose answer (with the action being the last
 * of its list) it keeps as the exec flag of a clone, sample or
 * check_pkt_len branch: a list that cannot runs on the caller's key. */
static bool
may_change_key(const void *acts, int len)
{
	const struct nlattr *a;
	int rem;

	attr_for_each(a, acts, len, rem) {
		switch (attr_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
		case OVS_ACTION_ATTR_RECIRC:
		case OVS_ACTION_ATTR_TRUNC:
		case OVS_ACTION_ATTR_USERSPACE:
		case TAPDP_ACTION_ATTR_DROP:
		case TAPDP_ACTION_ATTR_PSAMPLE:
			break;
		default:
			return true;
		}
	}
	return false;
}

/* Queues acts (NULL: a recirculation to recirc_id) on a copy of the
 * packet and key for the outermost execution to run; a full queue drops
 * the packet (the copy the kernel would have queued). */
static void
defer(const struct exec *x, const struct packet *pkt,
      const struct flow_key *key, uint32_t recirc_id, const void *acts,
      int len)
{
	struct deferred *d;

	if (!defer_q && !(defer_q = calloc(DEFER_SLOTS, sizeof(*defer_q)))) {
		drop(x, pkt, TAPDP_DROP_OVS_DEFERRED_LIMIT);
		return;
	}
	d = &defer_q[defer_head];
	if (defer_head >= DEFER_SLOTS || !packet_copy(&d->buf, pkt, &d->pkt)) {
		drop(x, pkt, TAPDP_DROP_OVS_DEFERRED_LIMIT);
		return;
	}
	defer_head++;
	d->env = *x->env;
	d->acts = x->acts;
	d->actions = acts;
	d->len = len;
	d->key = *key;
	if (!acts)
		d->key.recirc_id = recirc_id;
}

/* Runs what the executions queued, and what that queues in turn, then
 * empties the queue, as the kernel's process_deferred_actions(). */
static void
run_deferred(void)
{
	while (defer_tail < defer_head) {
		struct deferred *d = &defer_q[defer_tail++];
		struct exec x = { .env = &d->env, .acts = d->acts };

		if (d->actions)
			execute_list(&x, &d->pkt, &d->key, d->actions, d->len);
		else
			d->env.recirc(d->env.ctx, &d->pkt, &d->key);
	}
	defer_head = defer_tail = 0;
}

/* Runs acts, or recirculates to recirc_id when acts is NULL, on a copy of
 * the packet unless last (the list consumes what it runs on), as the
 * kernel's clone_execute(): with a key of its own when own_key, one level
 * deeper, queued when the level is past KEY_LEVELS. Without memory for a
 * copy the action is skipped, as the kernel skips it when it cannot
 * clone. */
static void
clone_execute(struct exec *x, struct packet *pkt, struct flow_key *key,
	      uint32_t recirc_id, const void *acts, int len, bool last,
	      bool own_key)
{
	struct flow_key k2;
	struct packet copy;

	if (own_key && exec_level > KEY_LEVELS) {
		defer(x, pkt, key, recirc_id, acts, len);
		return;
	}
	if (!last) {
		if (copy_level >= SCRATCH_LEVELS ||
		    !packet_copy(&scratch[copy_level], pkt, &copy))
			return;
		pkt = &copy;
		copy_level++;
	}
	if (own_key) {
		k2 = *key;
		key = &k2;
	}
	if (!acts) {
		key->recirc_id = recirc_id;
		x->env->recirc(x->env->ctx, pkt, key);
	} else if (own_key) {
		exec_level++;
		execute_list(x, pkt, key, acts, len);
		exec_level--;
	} else {
		execute_list(x, pkt, key, acts, len);
	}
	if (!last)
		copy_level--;
}

/* A clone, sample or check_pkt_len branch: its own key unless it is the
 * last action or its list cannot change the key. */
static void
execute_nested(struct exec *x, struct packet *pkt, struct flow_key *key,
	       const void *acts, int len, bool last)
{
	clone_execute(x, pkt, key, 0, acts, len, last,
		      !last && may_change_key(acts, len));
}

/* Refreshes the header offsets (and the key's packet fields) after an
 * action moved headers, as the kernel's key update for an invalidated key:
 * an L3 packet is parsed as its eth_type says. */
static void
refresh(struct packet *pkt, struct flow_key *key)
{
	if (!pkt->key_valid)
		packet_extract(pkt, key);
}

/* The L4 checksum field of the packet, if its header is complete. */
static void *
l4_csum(struct packet *pkt, const struct flow_key *key)
{
	uint32_t l4 = pkt->layers.l4;
	struct icmp_header *icmp;
	struct tcp_header *tcp;
	struct udp_header *udp;

	if (l4 == FLOW_OFS_NONE || key->ip_frag == OVS_FRAG_TYPE_LATER)
		return NULL;
	switch (key->ip_proto) {
	case IPPROTO_TCP:
		tcp = header_at_rw(pkt->data, pkt->len, l4, TCP_HLEN);
		return tcp ? &tcp->csum : NULL;
	case IPPROTO_UDP:
		udp = header_at_rw(pkt->data, pkt->len, l4, UDP_HLEN);
		/* An IPv4 UDP checksum of zero means none. */
		if (!udp || (key->eth_type == htons(ETH_P_IP) && !udp->csum))
			return NULL;
		return &udp->csum;
	case IPPROTO_ICMPV6:
		icmp = header_at_rw(pkt->data, pkt->len, l4,
				    HEADER_UPTO(struct icmp_header, csum));
		return icmp ? &icmp->csum : NULL;
	default:
		return NULL;
	}
}

/* Writes n bytes at p: (old & ~mask) | (val & mask); the old bytes are
 * returned in old (may be NULL when no checksum depends on them). */
static void
masked_write(void *p, const void *val, const void *mask, size_t n,
	     uint8_t *old)
{
	const uint8_t *v = val, *m = mask;
	uint8_t *b = p;

	if (old)
		memcpy(old, b, n);
	for (size_t i = 0; i < n; i++)
		b[i] = (b[i] & ~m[i]) | (v[i] & m[i]);
}

/* Sets an IP address (n bytes at addr) under the IPv4 header checksum
 * (ipsum; NULL for IPv6) and the L4 checksum (l4sum; NULL: none). */
static void
set_addr(const struct packet *pkt, const struct flow_key *key, void *addr,
	 const void *val, const void *mask, size_t n, void *ipsum,
	 void *l4sum)
{
	uint8_t old[16];

	masked_write(addr, val, mask, n, old);
	if (ipsum)
		csum_replace(ipsum, old, addr, n);
	if (l4sum)
		csum_update_l4(l4sum, old, addr, n, packet_csum_partial(pkt),
			       key->ip_proto == IPPROTO_UDP);
}

static void
set_eth(struct packet *pkt, struct flow_key *key, const uint8_t *v,
	const uint8_t *m)
{
	const struct ovs_key_ethernet *val = (const void *)v;
	const struct ovs_key_ethernet *mask = (const void *)m;
	struct eth_header *eh = header_at_rw(pkt->data, pkt->len, 0,
					     sizeof(*eh));

	if (!eh)
		return;
	masked_write(eh->eth_src, val->eth_src, mask->eth_src, ETH_ALEN,
		     NULL);
	masked_write(eh->eth_dst, val->eth_dst, mask->eth_dst, ETH_ALEN,
		     NULL);
	memcpy(key->eth_src, eh->eth_src, ETH_ALEN);
	memcpy(key->eth_dst, eh->eth_dst, ETH_ALEN);
}

static void
set_ipv4(struct packet *pkt, struct flow_key *key, const uint8_t *v,
	 const uint8_t *m)
{
	struct ovs_key_ipv4 val, mask;
	uint32_t l3 = pkt->layers.l3;
	struct ipv4_header *ip;
	uint8_t old[2];
	void *l4sum;

	memcpy(&val, v, sizeof(val));
	memcpy(&mask, m, sizeof(mask));
	if (l3 == FLOW_OFS_NONE)
		return;
	ip = header_at_rw(pkt->data, pkt->len, l3, IPV4_HLEN);
	if (!ip)
		return;
	l4sum = l4_csum(pkt, key);
	set_addr(pkt, key, &ip->saddr, &val.ipv4_src, &mask.ipv4_src,
		 sizeof(ip->saddr), &ip->csum, l4sum);
	set_addr(pkt, key, &ip->daddr, &val.ipv4_dst, &mask.ipv4_dst,
		 sizeof(ip->daddr), &ip->csum, l4sum);
	/* tos and ttl share 16-bit checksum words with their neighbours. */
	memcpy(old, &ip->ver_ihl, sizeof(old));
	ip->tos = (ip->tos & ~mask.ipv4_tos) | (val.ipv4_tos & mask.ipv4_tos);
	csum_replace(&ip->csum, old, &ip->ver_ihl, sizeof(old));
	memcpy(old, &ip->ttl, sizeof(old));
	ip->ttl = (ip->ttl & ~mask.ipv4_ttl) | (val.ipv4_ttl & mask.ipv4_ttl);
	csum_replace(&ip->csum, old, &ip->ttl, sizeof(old));
	key->ipv4_src = ip->saddr;
	key->ipv4_dst = ip->daddr;
	key->ip_tos = ip->tos;
	key->ip_ttl = ip->ttl;
}

static void
set_ipv6(struct packet *pkt, struct flow_key *key, const uint8_t *v,
	 const uint8_t *m)
{
	struct ovs_key_ipv6 val, mask;
	uint32_t l3 = pkt->layers.l3, w, wm, wv;
	struct ipv6_header *ip6;
	void *l4sum;

	memcpy(&val, v, sizeof(val));
	memcpy(&mask, m, sizeof(mask));
	if (l3 == FLOW_OFS_NONE)
		return;
	ip6 = header_at_rw(pkt->data, pkt->len, l3, IPV6_HLEN);
	if (!ip6)
		return;
	l4sum = l4_csum(pkt, key);
	set_addr(pkt, key, ip6->saddr, val.ipv6_src, mask.ipv6_src,
		 sizeof(ip6->saddr), NULL, l4sum);
	set_addr(pkt, key, ip6->daddr, val.ipv6_dst, mask.ipv6_dst,
		 sizeof(ip6->daddr), NULL, l4sum);
	/* Version, traffic class and flow label share the first word. */
	w = ntohl(ip6->ver_tc_flow);
	wm = ((uint32_t)mask.ipv6_tclass << IPV6_TCLASS_SHIFT) |
	     (ntohl(mask.ipv6_label) & IPV6_LABEL_MASK);
	wv = ((uint32_t)val.ipv6_tclass << IPV6_TCLASS_SHIFT) |
	     (ntohl(val.ipv6_label) & IPV6_LABEL_MASK);
	w = (w & ~wm) | (wv & wm);
	ip6->ver_tc_flow = htonl(w);
	ip6->hop_limit = (ip6->hop_limit & ~mask.ipv6_hlimit) |
			 (val.ipv6_hlimit & mask.ipv6_hlimit);
	memcpy(&key->ipv6_src, ip6->saddr, sizeof(key->ipv6_src));
	memcpy(&key->ipv6_dst, ip6->daddr, sizeof(key->ipv6_dst));
	key->ip_tos = (w >> IPV6_TCLASS_SHIFT) & 0xff;
	key->ipv6_label = htonl(w & IPV6_LABEL_MASK);
	key->ip_ttl = ip6->hop_limit;
}

static void
set_ports(struct packet *pkt, struct flow_key *key, const uint8_t *v,
	  const uint8_t *m)
{
	uint32_t l4 = pkt->layers.l4;
	uint8_t *sum = l4_csum(pkt, key), old[sizeof(struct l4_ports)];
	struct sctp_header *sh = NULL;
	struct l4_ports *ports;
	uint32_t crc = 0;

	if (l4 == FLOW_OFS_NONE)
		return;
	ports = header_at_rw(pkt->data, pkt->len, l4, sizeof(*ports));
	if (!ports)
		return;
	/* SCTP's CRC32c is not incremental: computed before and after, an
	 * error it had carried through (set_sctp). */
	if (key->ip_proto == IPPROTO_SCTP)
		sh = header_at_rw(pkt->data, pkt->len, l4, sizeof(*sh));
	if (sh)
		crc = csum_sctp(sh, pkt->len - l4);
	masked_write(ports, v, m, sizeof(*ports), old);
	if (sh)
		sh->csum ^= crc ^ csum_sctp(sh, pkt->len - l4);
	/* A partial checksum covers the ports when it is finished. */
	if (sum && !packet_csum_partial(pkt))
		csum_update_l4(sum, old, ports, sizeof(*ports), false,
			       key->ip_proto == IPPROTO_UDP);
	key->tp_src = ports->src;
	key->tp_dst = ports->dst;
}

/* -EINVAL for a set of the conntrack fields, which validation lets
 * through and the kernel's execution fails. */
static int
set_masked(struct packet *pkt, struct flow_key *key, const struct nlattr *a,
	   bool masked)
{
	const struct nlattr *k = attr_data(a);
	int len = masked ? attr_len(k) / 2 : attr_len(k);
	const uint8_t *val = attr_data(k);
	uint8_t ones[64];
	const uint8_t *mask;

	if (masked) {
		mask = val + len;
	} else {
		memset(ones, 0xff, sizeof(ones));
		mask = ones;
		if (len > (int)sizeof(ones))
			return 0;	/* validation allows none */
	}
	refresh(pkt, key);
	switch (attr_type(k)) {
	case OVS_KEY_ATTR_PRIORITY: {
		uint32_t v, mk;

		memcpy(&v, val, 4);
		memcpy(&mk, mask, 4);
		key->priority = (key->priority & ~mk) | (v & mk);
		break;
	}
	case OVS_KEY_ATTR_SKB_MARK: {
		uint32_t v, mk;

		memcpy(&v, val, 4);
		memcpy(&mk, mask, 4);
		key->skb_mark = (key->skb_mark & ~mk) | (v & mk);
		break;
	}
	case OVS_KEY_ATTR_ETHERNET:
		set_eth(pkt, key, val, mask);
		break;
	case OVS_KEY_ATTR_IPV4:
		set_ipv4(pkt, key, val, mask);
		break;
	case OVS_KEY_ATTR_IPV6:
		set_ipv6(pkt, key, val, mask);
		break;
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
	case OVS_KEY_ATTR_SCTP:
		set_ports(pkt, key, val, mask);
		break;
	case OVS_KEY_ATTR_MPLS: {
		struct mpls_header *mh;

		if (pkt->layers.l2_5 == FLOW_OFS_NONE)
			break;
		mh = header_at_rw(pkt->data, pkt->len, pkt->layers.l2_5,
				  sizeof(*mh));
		if (mh) {
			masked_write(mh, val, mask, sizeof(*mh), NULL);
			key->mpls_lse[0] = mh->lse;
		}
		break;
	}
	default:
		/* CT_MARK, CT_LABELS: set through the ct action only. */
		return -EINVAL;
	}
	return 0;
}

static void
push_vlan(struct packet *pkt, struct flow_key *key, const struct nlattr *a)
{
	struct ovs_action_push_vlan v;
	struct vlan_header *tag;

	memcpy(&v, attr_data(a), sizeof(v));
	if (pkt->len < sizeof(struct eth_header) ||
	    !packet_insert(pkt, ETH_ADDRS_LEN, VLAN_HLEN))
		return;
	tag = (struct vlan_header *)(pkt->data + ETH_ADDRS_LEN);
	/* On the wire the CFI/present bit is not a flag of ours. */
	tag->tpid = v.vlan_tpid;
	tag->tci = v.vlan_tci & htons(~FLOW_VLAN_PRESENT);
	pkt->key_valid = false;
	refresh(pkt, key);
}

static void
pop_vlan(struct packet *pkt, struct flow_key *key)
{
	const struct eth_header *eh =
		header_at(pkt->data, pkt->len, 0, sizeof(*eh) + VLAN_HLEN);

	if (!eh || !eth_type_vlan(eh->eth_type))
		return;
	packet_remove(pkt, ETH_ADDRS_LEN, VLAN_HLEN);
	pkt->key_valid = false;
	refresh(pkt, key);
}

/* The end of the Ethernet header and every VLAN tag after it, where MPLS
 * labels go, and the type field before it; false when the frame is
 * shorter than an Ethernet header. */
static bool
l2_end(const struct packet *pkt, struct eth_walk *w)
{
	return !eth_walk(pkt->data, pkt->len, UINT_MAX, 0, w);
}

static void
push_mpls(struct packet *pkt, struct flow_key *key, uint32_t lse,
	  uint16_t ethertype, bool keep_eth)
{
	struct eth_walk w;
	uint32_t at = 0;

	if (keep_eth) {
		if (!l2_end(pkt, &w))
			return;
		at = w.l3;
	}
	if (!packet_insert(pkt, at, sizeof(struct mpls_header)))
		return;
	((struct mpls_header *)(pkt->data + at))->lse = lse;
	if (keep_eth)
		put_unaligned16(pkt->data + w.type_at, ethertype);
	else
		pkt->l3 = true;
	key->eth_type = ethertype;
	pkt->key_valid = false;
	refresh(pkt, key);
}

static void
pop_mpls(struct packet *pkt, struct flow_key *key, uint16_t ethertype)
{
	struct eth_walk w;
	uint32_t at = 0;

	if (!pkt->l3) {
		if (!l2_end(pkt, &w))
			return;
		at = w.l3;
	}
	if (!header_at(pkt->data, pkt->len, at, sizeof(struct mpls_header)))
		return;
	packet_remove(pkt, at, sizeof(struct mpls_header));
	if (!pkt->l3)
		put_unaligned16(pkt->data + w.type_at, ethertype);
	/* An Ethernet frame was carried: it is the packet now. */
	if (ethertype == htons(ETH_P_TEB))
		pkt->l3 = false;
	key->eth_type = ethertype;
	pkt->key_valid = false;
	refresh(pkt, key);
}

static void
push_eth(struct packet *pkt, struct flow_key *key, const struct nlattr *a)
{
	struct ovs_action_push_eth e;
	struct eth_header *eh;

	memcpy(&e, attr_data(a), sizeof(e));
	if (!packet_insert(pkt, 0, sizeof(*eh)))
		return;
	eh = (struct eth_header *)pkt->data;
	memcpy(eh->eth_dst, e.addresses.eth_dst, ETH_ALEN);
	memcpy(eh->eth_src, e.addresses.eth_src, ETH_ALEN);
	eh->eth_type = key->eth_type;
	pkt->l3 = false;
	key->mac_proto = FLOW_MAC_ETHERNET;
	pkt->key_valid = false;
	refresh(pkt, key);
}

static void
pop_eth(struct packet *pkt, struct flow_key *key)
{
	if (pkt->len < sizeof(struct eth_header))
		return;
	packet_remove(pkt, 0, sizeof(struct eth_header));
	pkt->l3 = true;
	key->mac_proto = FLOW_MAC_NONE;
	pkt->key_valid = false;
}

/* push_nsh: the whole packet, Ethernet header included, behind the NSH
 * header the action builds, whose next protocol says what it carries, as
 * the kernel's nsh_push(), with its errors. The packet is then an L3 NSH
 * packet. */
static int
push_nsh(struct packet *pkt, struct flow_key *key, const struct nlattr *a)
{
	uint8_t hdr[NSH_HLEN_MAX];
	size_t hlen = flow_nsh_push_header(a, hdr);
	uint8_t np = pkt->l3 ? nsh_np_from_eth_type(key->eth_type)
			     : NSH_NP_ETHERNET;

	if (!np)
		return -EAFNOSUPPORT;
	if (!packet_insert(pkt, 0, hlen))
		return -ENOMEM;
	memcpy(pkt->data, hdr, hlen);
	/* A header whose length wrapped to 0 still gets its protocol
	 * written, into the packet, as the kernel writes it. */
	if (pkt->len > offsetof(struct nsh_header, next_proto))
		((struct nsh_header *)pkt->data)->next_proto = np;
	pkt->l3 = true;
	key->eth_type = htons(ETH_P_NSH);
	key->mac_proto = FLOW_MAC_NONE;
	pkt->key_valid = false;
	return 0;
}

/* pop_nsh: what the header carried becomes the packet, an Ethernet frame
 * or an L3 packet, as the kernel's nsh_pop(). The header is read at the
 * packet's start, as the kernel reads it, even from a frame that still
 * has its Ethernet header. Its errors are nsh_pop()'s. */
static int
pop_nsh(struct packet *pkt, struct flow_key *key)
{
	const struct nsh_header *nsh = header_at(pkt->data, pkt->len, 0,
						 sizeof(*nsh));
	uint16_t proto;
	size_t hlen;

	if (!nsh)
		return -ENOMEM;
	hlen = nsh_hlen(nsh);
	proto = nsh_np_to_eth_type(nsh->next_proto);
	if (hlen < NSH_BASE_HLEN)
		return -EINVAL;
	if (!header_at(pkt->data, pkt->len, 0, hlen))
		return -ENOMEM;
	if (!proto)
		return -EAFNOSUPPORT;
	packet_remove(pkt, 0, hlen);
	pkt->l3 = proto != htons(ETH_P_TEB);
	key->eth_type = proto;
	key->mac_proto = pkt->l3 ? FLOW_MAC_NONE : FLOW_MAC_ETHERNET;
	pkt->key_valid = false;
	return 0;
}

/* Returns true when the TTL ran out: the nested actions then take the
 * packet and end the list, as the kernel's exception path does; without
 * any, it is dropped. */
static bool
dec_ttl(struct exec *x, struct packet *pkt, struct flow_key *key,
	const struct nlattr *a)
{
	const struct nlattr *inner = attr_data(a);
	struct ipv4_header *ip = NULL;
	struct ipv6_header *ip6 = NULL;
	uint32_t l3;
	uint8_t old[2];

	refresh(pkt, key);
	l3 = pkt->layers.l3;
	if (l3 == FLOW_OFS_NONE)
		return false;
	if (key->eth_type == htons(ETH_P_IP))
		ip = header_at_rw(pkt->data, pkt->len, l3, IPV4_HLEN);
	else if (key->eth_type == htons(ETH_P_IPV6))
		ip6 = header_at_rw(pkt->data, pkt->len, l3, IPV6_HLEN);
	if (ip) {
		if (ip->ttl > 1) {
			/* ttl shares a checksum word with the protocol. */
			memcpy(old, &ip->ttl, sizeof(old));
			ip->ttl--;
			csum_replace(&ip->csum, old, &ip->ttl, sizeof(old));
			key->ip_ttl = ip->ttl;
			return false;
		}
	} else if (ip6) {
		if (ip6->hop_limit > 1) {
			key->ip_ttl = --ip6->hop_limit;
			return false;
		}
	} else {
		return false;
	}
	if (attr_len(inner))
		execute_list(x, pkt, key, attr_data(inner), attr_len(inner));
	else
		drop(x, pkt, TAPDP_DROP_OVS_IP_TTL);
	return true;
}

static void
check_pkt_len(struct exec *x, struct packet *pkt, struct flow_key *key,
	      const struct nlattr *a, bool last)
{
	const struct nlattr *tb[OVS_CHECK_PKT_LEN_ATTR_MAX + 1];
	const struct nlattr *acts;

	attr_parse_nested(a, NULL, OVS_CHECK_PKT_LEN_ATTR_MAX, tb, NULL);
	acts = pkt->len <= attr_get_u16(tb[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN])
		       ? tb[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL]
		       : tb[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER];
	execute_nested(x, pkt, key, attr_data(acts), attr_len(acts), last);
}

static void
sample(struct exec *x, struct packet *pkt, struct flow_key *key,
       const struct nlattr *a, bool last)
{
	const struct nlattr *tb[OVS_SAMPLE_ATTR_MAX + 1];
	uint32_t prob, outer;

	attr_parse_nested(a, NULL, OVS_SAMPLE_ATTR_MAX, tb, NULL);
	prob = attr_get_u32(tb[OVS_SAMPLE_ATTR_PROBABILITY]);
	if (!prob || (prob != UINT32_MAX && rnd() >= prob)) {
		if (last)
			drop(x, pkt, TAPDP_DROP_OVS_LAST_ACTION);
		return;
	}
	/* The nested actions (and their copies) run at this probability:
	 * a psample among them reports it as its rate. */
	outer = pkt->probability;
	pkt->probability = prob;
	execute_nested(x, pkt, key, attr_data(tb[OVS_SAMPLE_ATTR_ACTIONS]),
		       attr_len(tb[OVS_SAMPLE_ATTR_ACTIONS]), last);
	pkt->probability = outer;
}

/* psample(group, cookie): the packet to a psample group, at the rate of
 * the sample() around it (every packet: UINT32_MAX). */
static void
psample(struct exec *x, const struct packet *pkt, const struct flow_key *key,
	const struct nlattr *a)
{
	const struct nlattr *tb[TAPDP_PSAMPLE_ATTR_COOKIE + 1];

	attr_parse_nested(a, NULL, TAPDP_PSAMPLE_ATTR_COOKIE, tb, NULL);
	x->env->psample(x->env->ctx, pkt, key,
			attr_get_u32(tb[TAPDP_PSAMPLE_ATTR_GROUP]),
			tb[TAPDP_PSAMPLE_ATTR_COOKIE],
			pkt->probability ? pkt->probability : UINT32_MAX);
}

static void
recirc(struct exec *x, struct packet *pkt, struct flow_key *key,
       uint32_t id, bool last)
{
	refresh(pkt, key);
	clone_execute(x, pkt, key, id, NULL, 0, last, true);
}

/* The parsed form kept for the action a of the list: of n entries of
 * 'size' bytes at 'parsed', each starting with the offset of its action,
 * in order. NULL: none. */
static const void *
parsed_at(const struct actions_stored *acts, const void *parsed, size_t size,
	  uint32_t n, const struct nlattr *a)
{
	uint32_t off = (const uint8_t *)a - acts->data;
	uint32_t lo = 0, hi = n;
	const uint32_t *at;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		at = (const void *)((const char *)parsed + mid * size);
		if (*at < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = (const void *)((const char *)parsed + lo * size);
	return lo < n && *at == off ? at : NULL;
}

_Static_assert(offsetof(struct actions_ct, offset) == 0 &&
	       offsetof(struct actions_tun, offset) == 0,
	       "parsed forms start with their action's offset");

static const struct ct_action *
parsed_ct(const struct actions_stored *acts, const struct nlattr *a)
{
	const struct actions_ct *p = parsed_at(acts, acts->ct, sizeof(*p),
					       acts->n_ct, a);

	return p ? &p->ct : NULL;
}

/* set(tunnel): the packet leaves by the tunnel kept for a. */
static void
set_tunnel(const struct exec *x, struct packet *pkt, const struct nlattr *a)
{
	const struct actions_tun *p = parsed_at(x->acts, x->acts->tun,
						sizeof(*p), x->acts->n_tun, a);

	pkt->egress_tun = p ? &p->tun : NULL;
}

/* The ct action a on the packet; false: it goes no further, with the
 * tracker's error for the list (none for a fragment it holds). A packet
 * that an earlier action (an MPLS push) took out of the IP version the
 * action was parsed for is dropped, as conntrack drops what it cannot
 * track. */
static bool
run_ct(struct exec *x, struct packet *pkt, struct flow_key *key,
       const struct nlattr *a)
{
	const struct ct_action *ct = parsed_ct(x->acts, a);
	int err;

	refresh(pkt, key);
	if (!ct || ct->family != flow_key_family(key)) {
		drop(x, pkt, TAPDP_DROP_OVS_CONNTRACK);
		return false;
	}
	err = x->env->ct(x->env->ctx, pkt, key, ct);
	if (err && err != -EINPROGRESS)
		x->err = err;
	return !err;
}

static bool
is_last(const struct nlattr *a, int rem)
{
	return a->nla_len == rem;
}

static void
execute_list(struct exec *x, struct packet *pkt, struct flow_key *key,
	     const void *acts, int len)
{
	const struct actions_env *env = x->env;
	const struct nlattr *a;
	int rem, err;

	attr_for_each(a, acts, len, rem) {
		bool last = is_last(a, rem);

		if (env->step)
			env->step(env->ctx, a, pkt, key);
		switch (attr_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
			env->output(env->ctx, pkt, key, attr_get_u32(a));
			if (last)
				return;
			pkt->trunc = 0;
			break;
		case OVS_ACTION_ATTR_TRUNC: {
			struct ovs_action_trunc t;

			memcpy(&t, attr_data(a), sizeof(t));
			pkt->trunc = t.max_len;
			break;
		}
		case OVS_ACTION_ATTR_USERSPACE:
			refresh(pkt, key);
			env->userspace(env->ctx, pkt, key, a, x->acts->data,
				       x->acts->len);
			if (last)
				return;
			pkt->trunc = 0;
			break;
		case OVS_ACTION_ATTR_HASH: {
			struct ovs_action_hash h;
			uint32_t v;

			memcpy(&h, attr_data(a), sizeof(h));
			refresh(pkt, key);
			v = hash_2x32(packet_hash(pkt, key), h.hash_basis);
			key->dp_hash = v ? v : 1;
			break;
		}
		case OVS_ACTION_ATTR_RECIRC:
			recirc(x, pkt, key, attr_get_u32(a), last);
			if (last)
				return;
			break;
		case OVS_ACTION_ATTR_SET:
			if (attr_type(attr_data(a)) == OVS_KEY_ATTR_TUNNEL) {
				set_tunnel(x, pkt, a);
				break;
			}
			/* fall through */
		case OVS_ACTION_ATTR_SET_MASKED:
			err = set_masked(pkt, key, a,
					 attr_type(a) == OVS_ACTION_ATTR_SET_MASKED);
			if (err) {
				fail(x, pkt, err);
				return;
			}
			break;
		case OVS_ACTION_ATTR_PUSH_VLAN:
			push_vlan(pkt, key, a);
			break;
		case OVS_ACTION_ATTR_POP_VLAN:
			pop_vlan(pkt, key);
			break;
		case OVS_ACTION_ATTR_SAMPLE:
		case OVS_ACTION_ATTR_CLONE:
		case OVS_ACTION_ATTR_CHECK_PKT_LEN:
			if (attr_type(a) == OVS_ACTION_ATTR_SAMPLE)
				sample(x, pkt, key, a, last);
			else if (attr_type(a) == OVS_ACTION_ATTR_CLONE)
				execute_nested(x, pkt, key, attr_data(a),
					       attr_len(a), last);
			else
				check_pkt_len(x, pkt, key, a, last);
			if (last)
				return;
			/* A branch's error ends the list that holds it too. */
			if (x->err) {
				drop(x, pkt, TAPDP_DROP_OVS_ACTION_ERROR);
				return;
			}
			break;
		case OVS_ACTION_ATTR_DEC_TTL:
			if (dec_ttl(x, pkt, key, a))
				return;
			break;
		case OVS_ACTION_ATTR_METER:
			if (env->meter(env->ctx, pkt, attr_get_u32(a))) {
				drop(x, pkt, TAPDP_DROP_OVS_METER);
				return;
			}
			break;
		case OVS_ACTION_ATTR_CT:
			if (!run_ct(x, pkt, key, a))
				return;
			break;
		case OVS_ACTION_ATTR_CT_CLEAR:
			flow_key_clear_ct(key);
			break;
		case OVS_ACTION_ATTR_PUSH_MPLS: {
			struct ovs_action_push_mpls m;

			memcpy(&m, attr_data(a), sizeof(m));
			push_mpls(pkt, key, m.mpls_lse, m.mpls_ethertype,
				  !pkt->l3);
			break;
		}
		case OVS_ACTION_ATTR_ADD_MPLS: {
			struct ovs_action_add_mpls m;

			memcpy(&m, attr_data(a), sizeof(m));
			push_mpls(pkt, key, m.mpls_lse, m.mpls_ethertype,
				  (m.tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK) &&
					  !pkt->l3);
			break;
		}
		case OVS_ACTION_ATTR_POP_MPLS:
			pop_mpls(pkt, key, attr_get_u16(a));
			break;
		case OVS_ACTION_ATTR_PUSH_ETH:
			push_eth(pkt, key, a);
			break;
		case OVS_ACTION_ATTR_POP_ETH:
			pop_eth(pkt, key);
			break;
		case TAPDP_ACTION_ATTR_PSAMPLE:
			psample(x, pkt, key, a);
			pkt->trunc = 0;
			/* As the last action it takes the packet: no drop. */
			if (last)
				return;
			break;
		case OVS_ACTION_ATTR_PUSH_NSH:
			err = push_nsh(pkt, key, a);
			if (err) {
				fail(x, pkt, err);
				return;
			}
			break;
		case OVS_ACTION_ATTR_POP_NSH:
			err = pop_nsh(pkt, key);
			if (err) {
				fail(x, pkt, err);
				return;
			}
			break;
		case TAPDP_ACTION_ATTR_DROP:
			drop(x, pkt, attr_get_u32(a)
					     ? TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR
					     : TAPDP_DROP_OVS_EXPLICIT);
			return;
		}
	}
	drop(x, pkt, TAPDP_DROP_OVS_LAST_ACTION);
}

int
actions_execute(const struct actions_env *env, struct packet *pkt,
		struct flow_key *key, const struct actions_stored *acts)
{
	struct exec x = { .env = env, .acts = acts };

	/* A loop through ports back into the datapath ends here. */
	if (exec_level >= RECURSION_LIMIT) {
		drop(&x, pkt, TAPDP_DROP_OVS_RECURSION_LIMIT);
		return -ENETDOWN;
	}
	exec_level++;
	execute_list(&x, pkt, key, acts->data, acts->len);
	if (exec_level == 1)
		run_deferred();
	exec_level--;
	return x.err;
}

void
actions_release(void)
{
	for (unsigned i = 0; i < SCRATCH_LEVELS && scratch[i]; i++) {
		buf_pool_put(&frame_pool, scratch[i]);
		scratch[i] = NULL;
	}
	for (unsigned i = 0; defer_q && i < DEFER_SLOTS && defer_q[i].buf;
	     i++) {
		buf_pool_put(&frame_pool, defer_q[i].buf);
		defer_q[i].buf = NULL;
	}
}

void
actions_thread_free(void)
{
	actions_release();
	free(defer_q);
	defer_q = NULL;
}
