/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/nat.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "packet/csum.h"
#include "packet/headers.h"

/* Attempts at finding a free port before giving up on a range. */
#define PORT_ATTEMPTS	1024

static bool
has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

static bool
is_icmp(const struct ct_tuple *t)
{
	return t->proto == ct_icmp_proto(t->family);
}

/* Whether the mapping of c changes side manip of packets going in dir. */
static bool
mapped(const struct conn *c, int dir, enum ct_manip manip)
{
	uint32_t bit = manip == CT_MANIP_SRC ? CT_S_SRC_NAT : CT_S_DST_NAT;

	if (dir == CT_DIR_REPLY)
		bit ^= CT_S_NAT_MASK;
	return __atomic_load_n(&c->status, __ATOMIC_ACQUIRE) & bit;
}

static bool
addr_in_range(const struct ct_nat_range *r, int family, const union ct_addr *a)
{
	if (family == AF_INET)
		return ntohl(a->ip) >= ntohl(r->min_addr.ip) &&
		       ntohl(a->ip) <= ntohl(r->max_addr.ip);
	return memcmp(&a->ip6, &r->min_addr.ip6, 16) >= 0 &&
	       memcmp(&a->ip6, &r->max_addr.ip6, 16) <= 0;
}

/* An address of the range, the same for the same hosts. */
static void
pick_addr(const struct ct_nat_range *r, const struct ct_tuple *t,
	  union ct_addr *a)
{
	struct ct_tuple k = { .src = t->src, .family = t->family };
	/* Ranges are spread over the last 32 bits, as most are. */
	int w = t->family == AF_INET ? 0 : 3;
	uint32_t lo = ntohl(r->min_addr.ip6.s6_addr32[w]);
	uint32_t hi = ntohl(r->max_addr.ip6.s6_addr32[w]);

	if (addr_in_range(r, t->family, a))
		return;
	*a = r->min_addr;
	if (hi <= lo || (t->family == AF_INET6 &&
			 memcmp(&r->min_addr.ip6, &r->max_addr.ip6, 12)))
		return;
	if (!(r->flags & CT_RANGE_PERSISTENT))
		k.dst = t->dst;
	a->ip6.s6_addr32[w] =
		htonl(lo + ct_tuple_hash(&k, 0) % ((uint64_t)hi - lo + 1));
}

/* The connection's reply tuple if its original direction looked like
 * cand; true when no other connection has it. */
static bool
try_tuple(const struct nat_table *table, struct conn *c,
	  const struct ct_tuple *cand)
{
	struct ct_tuple rep;

	if (!ct_tuple_invert(cand, &rep) || table->taken(table, &rep))
		return false;
	c->tuple[CT_DIR_REPLY] = rep;
	return true;
}

/* A free port for cand (the tuple orig is mapped to, addresses chosen),
 * searched from an offset of orig's own: the connections a range maps to
 * one address have one mapped tuple before their port is chosen, and
 * starting all of them at its offset made each search walk past every
 * port the others took (1,000,000 connections onto 254 addresses: 1,600
 * set up per second instead of 100,000s). */
static bool
find_port(const struct nat_table *table, struct conn *c,
	  struct ct_tuple *cand, const struct ct_tuple *orig,
	  const struct ct_nat_range *r, enum ct_manip manip)
{
	bool icmp = is_icmp(cand);
	uint16_t *port = icmp || manip == CT_MANIP_SRC ? &cand->sport
						       : &cand->dport;
	uint32_t lo, hi, cur = ntohs(*port), span, off;
	bool given = r && (r->flags & CT_RANGE_PROTO);
	bool rnd = r && (r->flags & (CT_RANGE_PROTO_RANDOM |
				     CT_RANGE_PROTO_HASH));

	if (!icmp && !has_ports(cand->proto))
		return try_tuple(table, c, cand);
	if (given) {
		lo = r->min_port;
		hi = r->max_port < lo ? lo : r->max_port;
	} else if (icmp) {
		lo = 0, hi = 65535;
	} else if (manip == CT_MANIP_DST) {
		/* A destination port is changed only when asked to. */
		return try_tuple(table, c, cand);
	} else if (cur < 512) {
		lo = 1, hi = 511;
	} else if (cur < 1024) {
		lo = 600, hi = 1023;
	} else {
		lo = 1024, hi = 65535;
	}
	if (!rnd && cur >= lo && cur <= hi && try_tuple(table, c, cand))
		return true;
	span = hi - lo + 1;
	off = rnd ? (uint32_t)random() : ct_tuple_hash(orig, 0x5eed);
	for (uint32_t i = 0; i < span && i < PORT_ATTEMPTS; i++) {
		*port = htons(lo + (off + i) % span);
		if (try_tuple(table, c, cand))
			return true;
	}
	return false;
}

bool
nat_setup(const struct nat_table *table, struct conn *c,
	  const struct ct_nat_range *r, enum ct_manip manip)
{
	uint32_t done = manip == CT_MANIP_SRC ? CT_S_SRC_NAT_DONE
					      : CT_S_DST_NAT_DONE;
	uint32_t bit = manip == CT_MANIP_SRC ? CT_S_SRC_NAT : CT_S_DST_NAT;
	struct ct_tuple cur, cand;

	if (c->status & done)
		return true;
	/* The original direction as it leaves, after earlier mappings. */
	if (!ct_tuple_invert(&c->tuple[CT_DIR_REPLY], &cur))
		return false;
	cand = cur;
	if (r && (r->flags & CT_RANGE_MAP_IPS))
		pick_addr(r, &cur, manip == CT_MANIP_SRC ? &cand.src
							 : &cand.dst);
	if (!find_port(table, c, &cand, &cur, r, manip))
		return false;
	c->status |= done;
	if (!ct_tuple_equal(&cand, &cur))
		c->status |= bit;
	return true;
}

/* Rewrites 2 or 4/16 bytes at field to v, keeping the sums at each of
 * sums[] (NULL: none) right. l4sum is the L4 checksum, which covers the
 * field through the pseudo-header (addresses) or directly (ports). */
static void
rewrite(void *field, const void *v, size_t n, void *ipsum, void *l4sum,
	bool partial, bool pseudo, bool udp)
{
	uint8_t old[16];

	if (!memcmp(field, v, n))
		return;
	memcpy(old, field, n);
	memcpy(field, v, n);
	if (ipsum)
		csum_replace(ipsum, old, v, n);
	/* A partial sum covers the pseudo-header only. */
	if (l4sum && (pseudo || !partial))
		csum_update_l4(l4sum, old, v, n, partial && pseudo, udp);
}

/* The L4 checksum field at l4 (len bytes there), if present. */
static void *
l4_sum(uint8_t *l4, uint32_t len, uint8_t proto, int family)
{
	struct dccp_header *dccp;
	struct tcp_header *tcp;
	struct udp_header *udp;
	struct icmp_header *icmp;

	switch (proto) {
	case IPPROTO_TCP:
		tcp = header_at_rw(l4, len, 0,
				   HEADER_UPTO(struct tcp_header, csum));
		return tcp ? &tcp->csum : NULL;
	case IPPROTO_UDP:
		udp = header_at_rw(l4, len, 0, UDP_HLEN);
		if (!udp || (family == AF_INET && !udp->csum))
			return NULL;
		return &udp->csum;
	case IPPROTO_UDPLITE:
		/* Its checksum is never optional. */
		udp = header_at_rw(l4, len, 0, UDP_HLEN);
		return udp ? &udp->csum : NULL;
	case IPPROTO_DCCP:
		/* Updated only when the whole generic header is there (a
		 * quote may hold 8 bytes), as dccp_manip_pkt. */
		dccp = header_at_rw(l4, len, 0, sizeof(*dccp));
		return dccp ? &dccp->csum : NULL;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		icmp = header_at_rw(l4, len, 0,
				    HEADER_UPTO(struct icmp_header, csum));
		return icmp ? &icmp->csum : NULL;
	default:
		return NULL;
	}
}

static bool
icmp_has_id(int family, uint8_t type)
{
	if (family == AF_INET)
		return type == 0 || type == 8 || (type >= 13 && type <= 18);
	return type == 128 || type == 129;
}

/* Sets side manip of the IP packet at ip (its L4 header at l4_off, avail
 * bytes from ip) to that of target. */
static void
manip_packet(uint8_t *ip, uint32_t l4_off, uint32_t avail,
	     const struct ct_tuple *target, enum ct_manip manip, bool partial)
{
	int family = target->family;
	bool src = manip == CT_MANIP_SRC;
	uint8_t proto = target->proto, *l4 = ip + l4_off;
	uint32_t l4len = avail > l4_off ? avail - l4_off : 0;
	void *sum = l4_sum(l4, l4len, proto, family);
	bool udp = proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE;
	bool pseudo_l4 = proto != IPPROTO_ICMP;
	const union ct_addr *a = src ? &target->src : &target->dst;
	struct l4_ports *ports = header_at_rw(l4, l4len, 0, sizeof(*ports));
	struct icmp_header *icmp = header_at_rw(l4, l4len, 0, ICMP_HLEN);

	if (has_ports(proto) && ports) {
		if (src)
			rewrite(&ports->src, &target->sport, sizeof(ports->src),
				NULL, sum, partial, false, udp);
		else
			rewrite(&ports->dst, &target->dport, sizeof(ports->dst),
				NULL, sum, partial, false, udp);
	} else if (proto == ct_icmp_proto(family) && icmp &&
		   icmp_has_id(family, icmp->type)) {
		rewrite(&icmp->id, &target->sport, sizeof(icmp->id), NULL, sum,
			false, false, false);
	}
	if (family == AF_INET) {
		struct ipv4_header *ip4 = (struct ipv4_header *)ip;

		rewrite(src ? &ip4->saddr : &ip4->daddr, &a->ip,
			sizeof(a->ip), &ip4->csum, pseudo_l4 ? sum : NULL,
			partial, true, udp);
	} else {
		struct ipv6_header *ip6 = (struct ipv6_header *)ip;

		rewrite(src ? ip6->saddr : ip6->daddr, &a->ip6, sizeof(a->ip6),
			NULL, sum, partial, true, udp);
	}
	/* SCTP's CRC is computed again over what follows, whatever changed
	 * (sctp_manip_pkt), unless the sender left it to be finished. */
	if (proto == IPPROTO_SCTP && !partial) {
		struct sctp_header *sh = header_at_rw(l4, l4len, 0,
						      sizeof(*sh));

		if (sh)
			sh->csum = csum_sctp(sh, l4len);
	}
}

void
nat_packet(const struct conn *c, int dir, enum ct_manip manip, uint8_t *l3,
	   const struct ct_packet *p, bool partial)
{
	struct ct_tuple target;

	if (!mapped(c, dir, manip) ||
	    !ct_tuple_invert(&c->tuple[!dir], &target))
		return;
	manip_packet(l3, p->l4_off, p->l3_len, &target, manip, partial);
}

void
nat_icmp_error(const struct conn *c, int dir, enum ct_manip manip,
	       uint8_t *l3, const struct ct_packet *p, bool partial)
{
	const struct ct_tuple *other = &c->tuple[!dir];
	int family = other->family;
	bool src = manip == CT_MANIP_SRC;
	struct ct_tuple target;
	struct icmp_header *icmp = (struct icmp_header *)(l3 + p->l4_off);
	struct ipv4_header *ip4 = (struct ipv4_header *)l3;
	struct ipv6_header *ip6 = (struct ipv6_header *)l3;
	uint32_t len = p->l3_len - p->l4_off, s;

	if (!mapped(c, dir, manip) || !ct_tuple_invert(other, &target))
		return;
	/* The quote goes back to what its sender saw. */
	manip_packet(l3 + p->inner_off, p->inner_l4_off - p->inner_off,
		     p->l3_len - p->inner_off, other,
		     src ? CT_MANIP_DST : CT_MANIP_SRC, false);
	/* The outer header: addresses only (its L4 is the error). */
	target.proto = ct_icmp_proto(family);
	if (family == AF_INET)
		rewrite(src ? &ip4->saddr : &ip4->daddr,
			src ? &target.src.ip : &target.dst.ip,
			sizeof(ip4->saddr), &ip4->csum, NULL, false, false,
			false);
	else
		rewrite(src ? ip6->saddr : ip6->daddr,
			src ? &target.src.ip6 : &target.dst.ip6,
			sizeof(ip6->saddr), NULL, NULL, false, false, false);
	if (partial)
		return;
	/* The error's checksum covers the rewritten quote: sum it anew. */
	icmp->csum = 0;
	s = family == AF_INET
		    ? 0
		    : csum_pseudo(ip6->saddr, ip6->daddr, sizeof(ip6->saddr),
				  IPPROTO_ICMPV6, len);
	icmp->csum = ~csum_fold(csum_add(s, icmp, len));
}
