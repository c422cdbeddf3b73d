/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/unit/builders.h"

#include <arpa/inet.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "actions/actions-netlink.h"
#include "common/unaligned.h"
#include "include/tapdp/ovs-uapi.h"

const uint8_t fb_mac_dst[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x02 };
const uint8_t fb_mac_src[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };

void
fb_init(struct fb *b, void *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->l3 = b->l4 = FB_NONE;
	b->l4_proto = 0;
	b->hdr_at = b->hdr_len = 0;
}

/* Writes the header kept apart into the frame. */
static void
flush(struct fb *b)
{
	if (!b->hdr_len)
		return;
	memcpy(b->buf + b->hdr_at, &b->hdr, b->hdr_len);
	b->hdr_len = 0;
}

void *
fb_put(struct fb *b, const void *data, size_t len)
{
	uint8_t *p;

	flush(b);
	if (len > b->cap - b->len)
		builders_fail("a frame longer than its buffer");
	p = b->buf + b->len;
	if (data)
		memcpy(p, data, len);
	else
		memset(p, 0, len);
	b->len += len;
	return p;
}

void
fb_eth(struct fb *b, uint16_t type)
{
	uint8_t *p = fb_put(b, NULL, ETH_HLEN);

	memcpy(p, fb_mac_dst, ETH_ALEN);
	memcpy(p + ETH_ALEN, fb_mac_src, ETH_ALEN);
	put_be16(p + 2 * ETH_ALEN, type);
}

void
fb_vlan(struct fb *b, uint16_t tci, uint16_t type)
{
	uint8_t *p = fb_put(b, NULL, 4);

	put_be16(p, tci);
	put_be16(p + 2, type);
}

/* Takes room for a header of 'len' bytes, kept apart until the next call;
 * returns it, zeroed. */
static void *
header(struct fb *b, size_t len)
{
	size_t at = b->len;

	fb_put(b, NULL, len);
	memset(&b->hdr, 0, sizeof(b->hdr));
	b->hdr_at = at;
	b->hdr_len = len;
	return &b->hdr;
}

struct iphdr *
fb_ipv4(struct fb *b, uint32_t src, uint32_t dst, uint8_t proto)
{
	struct iphdr *ip;

	b->l3 = b->len;
	b->l4 = FB_NONE;
	ip = header(b, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->saddr = htonl(src);
	ip->daddr = htonl(dst);
	return ip;
}

struct ipv6hdr *
fb_ipv6(struct fb *b, const void *src, const void *dst, uint8_t next)
{
	struct ipv6hdr *ip;

	b->l3 = b->len;
	b->l4 = FB_NONE;
	ip = header(b, sizeof(*ip));
	ip->version = 6;
	ip->nexthdr = next;
	ip->hop_limit = 64;
	memcpy(&ip->saddr, src, 16);
	memcpy(&ip->daddr, dst, 16);
	return ip;
}

static void *
l4_start(struct fb *b, uint8_t proto, size_t len)
{
	if (b->l3 == FB_NONE)
		builders_fail("an L4 header without an IP header before it");
	b->l4 = b->len;
	b->l4_proto = proto;
	return header(b, len);
}

struct tcphdr *
fb_tcp(struct fb *b, uint16_t sport, uint16_t dport, uint32_t seq,
       uint32_t ack, uint8_t flags)
{
	struct tcphdr *th = l4_start(b, IPPROTO_TCP, sizeof(*th));

	th->source = htons(sport);
	th->dest = htons(dport);
	th->seq = htonl(seq);
	th->ack_seq = htonl(ack);
	th->doff = 5;
	((uint8_t *)th)[13] = flags;
	th->window = htons(65535);
	return th;
}

struct udphdr *
fb_udp(struct fb *b, uint16_t sport, uint16_t dport)
{
	struct udphdr *uh = l4_start(b, IPPROTO_UDP, sizeof(*uh));

	uh->source = htons(sport);
	uh->dest = htons(dport);
	return uh;
}

void
fb_ports(struct fb *b, uint8_t proto, uint16_t sport, uint16_t dport)
{
	uint8_t *h = l4_start(b, proto, proto == IPPROTO_UDPLITE ? 8 : 12);

	put_be16(h, sport);
	put_be16(h + 2, dport);
	if (proto == IPPROTO_DCCP)
		h[4] = 3;		/* data offset: 3 words */
}

static bool
is_ipv6(const uint8_t *l3)
{
	return l3[0] >> 4 == 6;
}

struct icmphdr *
fb_icmp(struct fb *b, uint8_t type, uint8_t code)
{
	bool v6;
	struct icmphdr *ih;

	flush(b);
	v6 = b->l3 != FB_NONE && is_ipv6(b->buf + b->l3);
	ih = l4_start(b, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, sizeof(*ih));

	ih->type = type;
	ih->code = code;
	return ih;
}

/* Sums 16-bit big-endian words into 's', unfolded. */
static uint32_t
sum_add(uint32_t s, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		s += get_be16(p + i);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static uint16_t
sum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

uint16_t
fb_sum(const void *p, size_t len)
{
	return sum_fold(sum_add(0, p, len));
}

void
fb_ipv4_csum(void *ip)
{
	uint8_t *h = ip;

	put_be16(h + 10, 0);
	put_be16(h + 10, ~fb_sum(h, (h[0] & 0xf) * 4));
}

/* The pseudo-header's sum for 'len' bytes of 'proto' in the packet at l3. */
static uint32_t
pseudo_sum(const uint8_t *l3, uint8_t proto, size_t len)
{
	uint32_t s = is_ipv6(l3) ? sum_add(0, l3 + 8, 32)
				 : sum_add(0, l3 + 12, 8);

	return s + proto + len;
}

/* Where a protocol's checksum sits in its header, and whether the
 * pseudo-header counts; -1 for a protocol without one here. */
static int
csum_offset(uint8_t proto, bool *pseudo)
{
	*pseudo = proto != IPPROTO_ICMP;
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_DCCP:
		return 6;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return 2;
	}
	return -1;
}

/* SCTP's CRC32c, bit by bit (RFC 9260, appendix A), with its field at
 * bytes 8-11 taken as zero; in the field's byte order. */
static uint32_t
sctp_crc(const uint8_t *l4, size_t len)
{
	uint32_t crc = ~0u;

	for (size_t i = 0; i < len; i++) {
		crc ^= i >= 8 && i < 12 ? 0 : l4[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
	}
	crc = ~crc;
	return htole32(crc);
}

size_t
fb_end(struct fb *b)
{
	uint8_t *l3, *l4;
	size_t l4len;
	uint16_t sum;
	bool pseudo;
	int at;

	flush(b);
	if (b->l3 == FB_NONE)
		return b->len;
	l3 = b->buf + b->l3;
	if (is_ipv6(l3)) {
		put_be16(l3 + 4, b->len - b->l3 - sizeof(struct ipv6hdr));
	} else {
		put_be16(l3 + 2, b->len - b->l3);
		fb_ipv4_csum(l3);
	}
	if (b->l4 == FB_NONE)
		return b->len;
	l4 = b->buf + b->l4;
	l4len = b->len - b->l4;
	if (b->l4_proto == IPPROTO_UDP || b->l4_proto == IPPROTO_UDPLITE)
		put_be16(l4 + 4, l4len);
	if (b->l4_proto == IPPROTO_SCTP) {
		uint32_t crc = sctp_crc(l4, l4len);

		memcpy(l4 + 8, &crc, 4);
		return b->len;
	}
	at = csum_offset(b->l4_proto, &pseudo);
	put_be16(l4 + at, 0);
	sum = ~sum_fold(sum_add(pseudo ? pseudo_sum(l3, b->l4_proto, l4len)
				       : 0, l4, l4len));
	/* A UDP checksum of 0 says there is none: its other form. */
	if (b->l4_proto == IPPROTO_UDP && sum == 0)
		sum = 0xffff;
	put_be16(l4 + at, sum);
	return b->len;
}

bool
fb_csums_ok(const void *ip, size_t len)
{
	const uint8_t *l3 = ip, *l4;
	size_t hlen, l4len;
	uint8_t proto;
	bool pseudo;
	int at;

	/* Lengths that do not hold together: nothing verifies. */
	if (!len)
		return false;
	if (is_ipv6(l3)) {
		hlen = sizeof(struct ipv6hdr);
		if (len < hlen)
			return false;
		proto = l3[6];
		l4len = get_be16(l3 + 4);
	} else {
		hlen = (l3[0] & 0xf) * 4;
		if (hlen < sizeof(struct iphdr) || len < hlen ||
		    get_be16(l3 + 2) < hlen)
			return false;
		if (fb_sum(l3, hlen) != 0xffff)
			return false;
		proto = l3[9];
		l4len = get_be16(l3 + 2) - hlen;
	}
	if (len - hlen < l4len)
		return false;
	l4 = l3 + hlen;
	if (proto == IPPROTO_SCTP) {
		uint32_t crc = sctp_crc(l4, l4len);

		return l4len >= 12 && !memcmp(l4 + 8, &crc, 4);
	}
	at = csum_offset(proto, &pseudo);
	if (at < 0)
		return true;
	if (l4len < (size_t)at + 2)
		return false;
	if (proto == IPPROTO_UDP && !get_be16(l4 + at))
		return true;
	return sum_fold(sum_add(pseudo ? pseudo_sum(l3, proto, l4len) : 0, l4,
				l4len)) == 0xffff;
}

static void
check(const struct attrs *a)
{
	if (a->mb.overflow)
		builders_fail("an attribute list longer than its buffer");
}

uint8_t *
fb_copy(const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		builders_fail("no memory for a frame's copy");
	memcpy(p, src, len);
	return p;
}

void
attrs_init(struct attrs *a)
{
	msgbuf_init(&a->mb, a->mem, sizeof(a->mem));
	if (!msgbuf_start(&a->mb, 0, 0, 0, 0, 0))
		builders_fail("no room for an attribute list");
}

struct nlattr *
attrs_put(struct attrs *a, uint16_t type, const void *data, size_t len)
{
	struct nlattr *at = (void *)((char *)a->mb.cur +
				     NLMSG_ALIGN(a->mb.cur->nlmsg_len));

	msgbuf_put(&a->mb, type, len, data);
	check(a);
	return at;
}

const struct nlattr *
attrs_data(const struct attrs *a)
{
	check(a);
	return (const void *)((const char *)a->mb.cur + NLMSG_HDRLEN);
}

size_t
attrs_len(const struct attrs *a)
{
	check(a);
	return a->mb.cur->nlmsg_len - NLMSG_HDRLEN;
}

struct actions_stored *
attrs_store_actions(const struct attrs *acts, const struct flow_key *key)
{
	static struct attrs nest;
	const struct nlattr *list;
	struct actions_stored *stored;

	attrs_init(&nest);
	list = attrs_put(&nest, OVS_FLOW_ATTR_ACTIONS, attrs_data(acts),
			 attrs_len(acts));
	if (actions_validate(list, key, false))
		builders_fail("an action list actions_validate() refuses");
	stored = actions_store(list, key);
	if (!stored)
		builders_fail("no memory for stored actions");
	return stored;
}
