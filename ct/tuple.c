/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/tuple.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "common/hash.h"
#include "packet/csum.h"
#include "packet/headers.h"
#include "packet/ip.h"
#include "packet/ipv6-exthdr.h"

/* An ICMP error quotes at least this much of the transport header. */
#define QUOTE_L4_MIN	8

/* A tuple is written a word at a time, never a field at a time: every
 * packet's tuple is hashed as words right after it is built, and a word
 * read back from the narrower stores of its fields waits until they reach
 * the cache (no store-to-load forwarding), which cost a tenth of a
 * tracked packet's time. AT(): n bytes of v (as the host holds them) at
 * byte off of a word, as memory would hold them there. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AT(v, off, n)	((uint64_t)(v) << (8 * (off)))
#else
#define AT(v, off, n)	((uint64_t)(v) << (8 * (8 - (off) - (n))))
#endif
#define W4(field)	(offsetof(struct ct_tuple, field) - 32)
_Static_assert(offsetof(struct ct_tuple, sport) == 32 &&
	       offsetof(struct ct_tuple, family) == 39 &&
	       offsetof(struct ct_tuple, zone) == 40, "the tuple's words");

/* Words 0-3: the addresses, n bytes each (4 or 16), zero-padded. */
static void
tuple_set_addrs(struct ct_tuple *t, const void *src, const void *dst,
		size_t n)
{
	const uint8_t *s = src, *d = dst;
	uint64_t a, b;
	uint32_t v;

	if (n == 4) {
		memcpy(&v, s, 4);
		t->w[0] = AT(v, 0, 4);
		t->w[1] = 0;
		memcpy(&v, d, 4);
		t->w[2] = AT(v, 0, 4);
		t->w[3] = 0;
		return;
	}
	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 8);
	t->w[0] = a;
	t->w[1] = b;
	memcpy(&a, d, 8);
	memcpy(&b, d + 8, 8);
	t->w[2] = a;
	t->w[3] = b;
}

/* Words 4-5: ports (ICMP: id, type, code), protocol, family, zone. */
static void
tuple_set_l4(struct ct_tuple *t, uint16_t sport, uint16_t dport,
	     uint8_t type, uint8_t code, uint8_t proto, uint8_t family,
	     uint16_t zone)
{
	t->w[4] = AT(sport, W4(sport), 2) | AT(dport, W4(dport), 2) |
		  AT(type, W4(icmp_type), 1) | AT(code, W4(icmp_code), 1) |
		  AT(proto, W4(proto), 1) | AT(family, W4(family), 1);
	t->w[5] = AT(zone, 0, 2);
}

/* The flag combinations a TCP segment may carry (PSH, ECE, CWR aside);
 * others are invalid. */
static bool
tcp_flags_valid(uint8_t f)
{
	switch (f & (TCP_FIN | TCP_SYN | TCP_RST | TCP_ACK | TCP_URG)) {
	case TCP_SYN:
	case TCP_SYN | TCP_URG:
	case TCP_SYN | TCP_ACK:
	case TCP_RST:
	case TCP_RST | TCP_ACK:
	case TCP_FIN | TCP_ACK:
	case TCP_FIN | TCP_ACK | TCP_URG:
	case TCP_ACK:
	case TCP_ACK | TCP_URG:
		return true;
	default:
		return false;
	}
}

static bool
icmp_is_error(int family, uint8_t type)
{
	if (family == AF_INET)
		return type == 3 || type == 4 || type == 5 || type == 11 ||
		       type == 12;
	return type < 128;
}

/* The L4 checksum over the pseudo-header; true when it verifies. */
static bool
l4_csum_good(const uint8_t *l3, int family, uint8_t proto, uint32_t off,
	     uint32_t len)
{
	const struct ipv4_header *ip = (const void *)l3;
	const struct ipv6_header *ip6 = (const void *)l3;
	uint32_t s;

	if (family == AF_INET)
		s = proto == IPPROTO_ICMP
			    ? 0
			    : csum_pseudo(&ip->saddr, &ip->daddr,
					  sizeof(ip->saddr), proto, len);
	else
		s = csum_pseudo(ip6->saddr, ip6->daddr, sizeof(ip6->saddr),
				proto, len);
	return csum_fold(csum_add(s, l3 + off, len)) == 0xffff;
}

/* The upper-layer header of the IPv6 packet at l3, its headers read up to
 * bound: conntrack steps over AH too (ipv6_skip_exthdr()); fragments are
 * reassembled before tracking, so a fragment header fails. */
static bool
ipv6_upper(const uint8_t *l3, uint32_t bound, uint8_t *proto,
	   uint32_t *l4_off)
{
	struct ipv6_exthdr_walk w;

	if (ipv6_exthdr_skip(l3, bound, 0, IPV6_EXTHDR_AH, &w) ||
	    w.nexthdr == IPPROTO_FRAGMENT)
		return false;
	*proto = w.nexthdr;
	*l4_off = w.off;
	return true;
}

/* The IP header at l3: protocol, L4 offset, datagram length. Fragments
 * and broken headers fail. */
static bool
parse_l3(const uint8_t *l3, size_t len, int family, uint8_t *proto,
	 uint32_t *l4_off, uint32_t *l3_len, struct ct_tuple *t)
{
	const unsigned checks = IP_CHECK_VERSION | IP_CHECK_LENGTH;

	if (family == AF_INET) {
		const struct ipv4_header *ip = ipv4_header_at(l3, len, 0,
							      checks);

		if (!ip || (ip->frag_off & htons(IPV4_MF | IPV4_OFFSET)))
			return false;
		tuple_set_addrs(t, &ip->saddr, &ip->daddr, 4);
		*proto = ip->protocol;
		*l4_off = ipv4_hlen(ip);
		*l3_len = ntohs(ip->tot_len);
		return true;
	}

	const struct ipv6_header *ip6 = ipv6_header_at(l3, len, 0, checks);

	if (!ip6)
		return false;
	tuple_set_addrs(t, ip6->saddr, ip6->daddr, 16);
	if (!ipv6_upper(l3, ipv6_tot_len(ip6), proto, l4_off))
		return false;
	*l3_len = ipv6_tot_len(ip6);
	return true;
}

/* The rest of the tuple: ports (ICMP: id, type and code), protocol,
 * family, zone. Inlined into each packet's parse: 2.5% of a tracked
 * packet's time as a call. */
static inline __attribute__((always_inline)) bool
parse_l4(const uint8_t *l4, uint32_t len, uint8_t proto, int family,
	 uint16_t zone, struct ct_tuple *t)
{
	const struct icmp_header *ih;
	const struct l4_ports *ports;

	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		ports = header_at(l4, len, 0, sizeof(*ports));
		if (!ports)
			return false;
		tuple_set_l4(t, ports->src, ports->dst, 0, 0, proto, family,
			     zone);
		return true;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		ih = header_at(l4, len, 0, ICMP_HLEN);
		if (proto != ct_icmp_proto(family) || !ih)
			return false;
		tuple_set_l4(t, ih->id, 0, ih->type, ih->code, proto, family,
			     zone);
		return true;
	default:
		tuple_set_l4(t, 0, 0, 0, 0, proto, family, zone);
		return true;
	}
}

/* The packet an ICMP error quotes, from inner (len bytes). */
static enum ct_parse_result
parse_inner(const uint8_t *inner, uint32_t len, int family, uint16_t zone,
	    struct ct_packet *p)
{
	struct ct_tuple *t = &p->tuple;
	const struct icmp_header *ih;
	uint32_t l4_off;
	uint8_t proto;

	/* The quote may be cut short: parse as if it were whole. */
	if (family == AF_INET) {
		const struct ipv4_header *ip =
			ipv4_header_at(inner, len, 0, IP_CHECK_VERSION);

		if (!ip || (ip->frag_off & htons(IPV4_OFFSET)))
			return CT_PARSE_INVALID;
		tuple_set_addrs(t, &ip->saddr, &ip->daddr, 4);
		proto = ip->protocol;
		l4_off = ipv4_hlen(ip);
	} else {
		const struct ipv6_header *ip6 =
			ipv6_header_at(inner, len, 0, IP_CHECK_VERSION);

		if (!ip6)
			return CT_PARSE_INVALID;
		tuple_set_addrs(t, ip6->saddr, ip6->daddr, 16);
		/* Its headers are read up to where the quote ends. */
		if (!ipv6_upper(inner, len, &proto, &l4_off))
			return CT_PARSE_INVALID;
	}
	p->inner_l4_off = p->inner_off + l4_off;
	if (proto == ct_icmp_proto(family)) {
		/* An error about an error is not tracked. */
		ih = header_at(inner, len, l4_off, ICMP_HLEN);
		if (!ih || icmp_is_error(family, ih->type))
			return CT_PARSE_INVALID;
	} else if (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
		   proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
		   proto == IPPROTO_DCCP) {
		if (!header_at(inner, len, l4_off, QUOTE_L4_MIN))
			return CT_PARSE_INVALID;
	}
	return parse_l4(inner + l4_off, len - l4_off, proto, family, zone, t)
		       ? CT_PARSE_ICMP_ERROR
		       : CT_PARSE_INVALID;
}

enum ct_parse_result
ct_packet_parse(const uint8_t *l3, size_t len, int family, uint16_t zone,
		bool csum_ok, struct ct_packet *p)
{
	struct ct_tuple *t = &p->tuple;
	const struct tcp_header *tcp;
	const struct udp_header *udp;
	const uint8_t *l4;
	uint8_t proto;

	/* The tuple is left out: written whole below, or not used. */
	memset((uint8_t *)p + sizeof(*t), 0, sizeof(*p) - sizeof(*t));
	if (!parse_l3(l3, len, family, &proto, &p->l4_off, &p->l3_len, t))
		return CT_PARSE_INVALID;
	p->l4_len = p->l3_len - p->l4_off;
	l4 = l3 + p->l4_off;
	switch (proto) {
	case IPPROTO_TCP:
		tcp = header_at(l4, p->l4_len, 0, TCP_HLEN);
		if (!tcp || tcp_hlen(tcp) < TCP_HLEN ||
		    tcp_hlen(tcp) > p->l4_len || !tcp_flags_valid(tcp_flags(tcp)))
			return CT_PARSE_INVALID;
		break;
	case IPPROTO_UDP:
		udp = header_at(l4, p->l4_len, 0, UDP_HLEN);
		if (!udp || ntohs(udp->len) < UDP_HLEN ||
		    ntohs(udp->len) > p->l4_len)
			return CT_PARSE_INVALID;
		/* IPv4 UDP may go without a checksum; IPv6 may not. */
		if (!udp->csum) {
			if (family == AF_INET6)
				return CT_PARSE_INVALID;
			csum_ok = true;
		}
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (proto != ct_icmp_proto(family))
			break;
		if (!header_at(l4, p->l4_len, 0, ICMP_HLEN))
			return CT_PARSE_INVALID;
		break;
	default:
		break;
	}
	if (!csum_ok && (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
			 proto == ct_icmp_proto(family)) &&
	    !l4_csum_good(l3, family, proto, p->l4_off, p->l4_len))
		return CT_PARSE_INVALID;
	if (proto == ct_icmp_proto(family) &&
	    icmp_is_error(family, ((const struct icmp_header *)l4)->type)) {
		p->inner_off = p->l4_off + ICMP_HLEN;
		return parse_inner(l3 + p->inner_off, p->l3_len - p->inner_off,
				   family, zone, p);
	}
	return parse_l4(l4, p->l4_len, proto, family, zone, t)
		       ? CT_PARSE_OK : CT_PARSE_INVALID;
}

/* ICMP requests and their replies; 0 when the type has no pair. */
static uint8_t
icmp_inverse(int family, uint8_t type)
{
	static const uint8_t v4[19] = {
		[8] = 0 + 1, [0] = 8 + 1, [13] = 14 + 1, [14] = 13 + 1,
		[15] = 16 + 1, [16] = 15 + 1, [17] = 18 + 1, [18] = 17 + 1,
	};

	if (family == AF_INET)
		return type < sizeof(v4) ? v4[type] : 0;
	switch (type) {
	case 128: return 129 + 1;	/* echo */
	case 129: return 128 + 1;
	case 139: return 140 + 1;	/* node information */
	case 140: return 139 + 1;
	default: return 0;
	}
}

bool
ct_tuple_invert(const struct ct_tuple *t, struct ct_tuple *inv)
{
	uint8_t type = t->icmp_type, r = 0;
	uint16_t sport = t->sport, dport = t->dport;

	if (t->proto == ct_icmp_proto(t->family)) {
		r = icmp_inverse(t->family, t->icmp_type);
		if (!r)
			return false;
		/* The id stays where it is: both directions carry it. */
		type = r - 1;
	} else {
		sport = t->dport;
		dport = t->sport;
	}
	inv->w[0] = t->w[2];
	inv->w[1] = t->w[3];
	inv->w[2] = t->w[0];
	inv->w[3] = t->w[1];
	tuple_set_l4(inv, sport, dport, type, t->icmp_code, t->proto,
		     t->family, t->zone);
	return true;
}

uint32_t
ct_tuple_hash(const struct ct_tuple *t, uint32_t basis)
{
	static const uint64_t k[6] = {
		0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
		0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull,
		0x1d8e4e27c47d124full, 0x9e3779b97f4a7c15ull,
	};
	const uint64_t *w = t->w;
	uint64_t h;

	_Static_assert(sizeof(*t) == 48, "a tuple is six words");
	/* Three lanes of independent products, then one to mix them. */
	h = hash_mum(w[0] ^ k[0] ^ basis, w[1] ^ k[1]) ^
	    hash_mum(w[2] ^ k[2], w[3] ^ k[3]) ^
	    hash_mum(w[4] ^ k[4], w[5] ^ k[5]);
	return (uint32_t)hash_mum(h, k[5]);
}
