#include "ct/tuple.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "common/hash.h"
#include "common/unaligned.h"
#include "packet/csum.h"

/* TCP flag bits the validity table is indexed by (PSH, ECE, CWR aside). */
#define TH_FIN	0x01
#define TH_SYN	0x02
#define TH_RST	0x04
#define TH_ACK	0x10
#define TH_URG	0x20

/* The flag combinations a TCP segment may carry; others are invalid. */
static bool
tcp_flags_valid(uint8_t f)
{
	switch (f & (TH_FIN | TH_SYN | TH_RST | TH_ACK | TH_URG)) {
	case TH_SYN:
	case TH_SYN | TH_URG:
	case TH_SYN | TH_ACK:
	case TH_RST:
	case TH_RST | TH_ACK:
	case TH_FIN | TH_ACK:
	case TH_FIN | TH_ACK | TH_URG:
	case TH_ACK:
	case TH_ACK | TH_URG:
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
	uint32_t s;

	if (family == AF_INET)
		s = proto == IPPROTO_ICMP
			    ? 0
			    : csum_pseudo(l3 + 12, l3 + 16, 4, proto, len);
	else
		s = csum_pseudo(l3 + 8, l3 + 24, 16, proto, len);
	return csum_fold(csum_add(s, l3 + off, len)) == 0xffff;
}

/* The IP header at l3: protocol, L4 offset, datagram length. Fragments
 * and broken headers fail. */
static bool
parse_l3(const uint8_t *l3, size_t len, int family, uint8_t *proto,
	 uint32_t *l4_off, uint32_t *l3_len, struct ct_tuple *t)
{
	if (family == AF_INET) {
		uint32_t ihl, tot;

		if (len < 20 || (l3[0] >> 4) != 4)
			return false;
		ihl = (l3[0] & 0xf) * 4;
		tot = ntohs(get_unaligned16(l3 + 2));
		if (ihl < 20 || tot < ihl || tot > len)
			return false;
		if (get_unaligned16(l3 + 6) & htons(0x3fff))	/* MF or offset */
			return false;
		memcpy(&t->src.ip, l3 + 12, 4);
		memcpy(&t->dst.ip, l3 + 16, 4);
		*proto = l3[9];
		*l4_off = ihl;
		*l3_len = tot;
		return true;
	}

	uint32_t off = 40, tot;
	uint8_t nh;

	if (len < 40 || (l3[0] >> 4) != 6)
		return false;
	tot = 40 + ntohs(get_unaligned16(l3 + 4));
	if (tot > len)
		return false;
	memcpy(&t->src.ip6, l3 + 8, 16);
	memcpy(&t->dst.ip6, l3 + 24, 16);
	nh = l3[6];
	for (;;) {
		switch (nh) {
		case 0:		/* hop-by-hop */
		case 43:	/* routing */
		case 60:	/* destination options */
			if (off + 8 > tot)
				return false;
			nh = l3[off];
			off += (l3[off + 1] + 1) * 8;
			continue;
		case 51:	/* AH */
			if (off + 8 > tot)
				return false;
			nh = l3[off];
			off += (l3[off + 1] + 2) * 4;
			continue;
		case 44:	/* fragment: reassembled before tracking */
			return false;
		default:
			break;
		}
		break;
	}
	if (off > tot)
		return false;
	*proto = nh;
	*l4_off = off;
	*l3_len = tot;
	return true;
}

/* The L4 part of the tuple: ports, or ICMP id/type/code. */
static bool
parse_l4(const uint8_t *l4, uint32_t len, int family, struct ct_tuple *t)
{
	switch (t->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		if (len < 4)
			return false;
		memcpy(&t->sport, l4, 2);
		memcpy(&t->dport, l4 + 2, 2);
		return true;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (t->proto != ct_icmp_proto(family) || len < 8)
			return false;
		t->icmp_type = l4[0];
		t->icmp_code = l4[1];
		memcpy(&t->sport, l4 + 4, 2);
		return true;
	default:
		return true;
	}
}

/* The packet an ICMP error quotes, from inner (len bytes). */
static enum ct_parse_result
parse_inner(const uint8_t *inner, uint32_t len, int family, uint16_t zone,
	    struct ct_packet *p)
{
	struct ct_tuple *t = &p->tuple;
	uint32_t l4_off, l3_len;
	uint8_t proto;

	memset(t, 0, sizeof(*t));
	t->family = family;
	t->zone = zone;
	/* The quote may be cut short: parse as if it were whole. */
	if (family == AF_INET) {
		uint32_t ihl;

		if (len < 20 || (inner[0] >> 4) != 4)
			return CT_PARSE_INVALID;
		ihl = (inner[0] & 0xf) * 4;
		if (ihl < 20 || ihl > len ||
		    (get_unaligned16(inner + 6) & htons(0x1fff)))
			return CT_PARSE_INVALID;
		memcpy(&t->src.ip, inner + 12, 4);
		memcpy(&t->dst.ip, inner + 16, 4);
		proto = inner[9];
		l4_off = ihl;
	} else {
		uint8_t buf[40 + 256];

		/* Reuse the header walk on a copy with a made-up length. */
		if (len < 40)
			return CT_PARSE_INVALID;
		if (!parse_l3(inner, len, family, &proto, &l4_off, &l3_len, t)) {
			if (len > sizeof(buf))
				return CT_PARSE_INVALID;
			memcpy(buf, inner, len);
			buf[4] = (len - 40) >> 8;
			buf[5] = (len - 40) & 0xff;
			if (!parse_l3(buf, len, family, &proto, &l4_off,
				      &l3_len, t))
				return CT_PARSE_INVALID;
		}
	}
	t->proto = proto;
	if (l4_off > len)
		return CT_PARSE_INVALID;
	p->inner_l4_off = p->inner_off + l4_off;
	if (proto == ct_icmp_proto(family)) {
		/* An error about an error is not tracked. */
		if (len - l4_off < 8 || icmp_is_error(family, inner[l4_off]))
			return CT_PARSE_INVALID;
	} else if (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
		   proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
		   proto == IPPROTO_DCCP) {
		if (len - l4_off < 8)
			return CT_PARSE_INVALID;
	}
	return parse_l4(inner + l4_off, len - l4_off, family, t)
		       ? CT_PARSE_ICMP_ERROR
		       : CT_PARSE_INVALID;
}

enum ct_parse_result
ct_packet_parse(const uint8_t *l3, size_t len, int family, uint16_t zone,
		bool csum_ok, struct ct_packet *p)
{
	struct ct_tuple *t = &p->tuple;
	const uint8_t *l4;
	uint8_t proto;

	memset(p, 0, sizeof(*p));
	t->family = family;
	t->zone = zone;
	if (!parse_l3(l3, len, family, &proto, &p->l4_off, &p->l3_len, t))
		return CT_PARSE_INVALID;
	t->proto = proto;
	p->l4_len = p->l3_len - p->l4_off;
	l4 = l3 + p->l4_off;
	switch (proto) {
	case IPPROTO_TCP: {
		uint32_t doff;

		if (p->l4_len < 20)
			return CT_PARSE_INVALID;
		doff = (l4[12] >> 4) * 4;
		if (doff < 20 || doff > p->l4_len || !tcp_flags_valid(l4[13]))
			return CT_PARSE_INVALID;
		break;
	}
	case IPPROTO_UDP: {
		uint32_t ulen;

		if (p->l4_len < 8)
			return CT_PARSE_INVALID;
		ulen = ntohs(get_unaligned16(l4 + 4));
		if (ulen < 8 || ulen > p->l4_len)
			return CT_PARSE_INVALID;
		/* IPv4 UDP may go without a checksum; IPv6 may not. */
		if (!get_unaligned16(l4 + 6)) {
			if (family == AF_INET6)
				return CT_PARSE_INVALID;
			csum_ok = true;
		}
		break;
	}
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (proto != ct_icmp_proto(family))
			break;
		if (p->l4_len < 8)
			return CT_PARSE_INVALID;
		break;
	default:
		break;
	}
	if (!csum_ok && (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
			 proto == ct_icmp_proto(family)) &&
	    !l4_csum_good(l3, family, proto, p->l4_off, p->l4_len))
		return CT_PARSE_INVALID;
	if (proto == ct_icmp_proto(family) && icmp_is_error(family, l4[0])) {
		p->inner_off = p->l4_off + 8;
		return parse_inner(l3 + p->inner_off, p->l3_len - p->inner_off,
				   family, zone, p);
	}
	return parse_l4(l4, p->l4_len, family, t) ? CT_PARSE_OK
						   : CT_PARSE_INVALID;
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
	*inv = *t;
	inv->src = t->dst;
	inv->dst = t->src;
	if (t->proto == ct_icmp_proto(t->family)) {
		uint8_t r = icmp_inverse(t->family, t->icmp_type);

		/* The id stays where it is: both directions carry it. */
		if (!r)
			return false;
		inv->icmp_type = r - 1;
		return true;
	}
	inv->sport = t->dport;
	inv->dport = t->sport;
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
	const uint64_t *w = (const uint64_t *)t;
	uint64_t h;

	_Static_assert(sizeof(*t) == 48, "a tuple is six words");
	/* Three lanes of independent products, then one to mix them. */
	h = hash_mum(w[0] ^ k[0] ^ basis, w[1] ^ k[1]) ^
	    hash_mum(w[2] ^ k[2], w[3] ^ k[3]) ^
	    hash_mum(w[4] ^ k[4], w[5] ^ k[5]);
	return (uint32_t)hash_mum(h, k[5]);
}
