/* SPDX-License-Identifier: Apache-2.0 */
/* The packet layer's walkers and checks on headers made for them: the
 * Ethernet tag walk, the IPv4 and IPv6 header checks, the IPv6
 * extension-header walk in each of its modes, option lists, the IPv4
 * header checksum. Every input is copied into a heap buffer of the length
 * under test, so the sanitizers catch a read past it; truncations are
 * tried at every length. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/headers.h"
#include "packet/ip.h"
#include "packet/ipv6-exthdr.h"
#include "packet/options.h"
#include "tests/unit/builders.h"

/* Room for any input here. */
#define BUF	128

static void
test_header_at(void **state)
{
	uint8_t buf[10] = { 0 };

	assert_ptr_equal(header_at(buf, 10, 0, 10), buf);
	assert_ptr_equal(header_at(buf, 10, 6, 4), buf + 6);
	assert_ptr_equal(header_at(buf, 10, 10, 0), buf + 10);
	assert_null(header_at(buf, 10, 7, 4));
	assert_null(header_at(buf, 10, 11, 0));
	assert_null(header_at(buf, 10, SIZE_MAX, 2));
	assert_null(header_at(buf, 10, 2, SIZE_MAX));
	assert_ptr_equal(header_at_rw(buf, 10, 2, 8), buf + 2);
	assert_null(header_at_rw(buf, 10, 3, 8));
}

/* 802.1ad outer tag (VLAN 5), 802.1Q inner tag (VLAN 6, PCP 7), IPv4's
 * first byte. */
static size_t
qinq(uint8_t *f)
{
	struct fb b;

	fb_init(&b, f, BUF);
	fb_eth(&b, ETH_P_8021AD);
	fb_vlan(&b, 0x0005, ETH_P_8021Q);
	fb_vlan(&b, 0xe006, ETH_P_IP);
	fb_put(&b, "\x45", 1);
	return fb_end(&b);
}

static void
test_eth_untagged(void **state)
{
	uint8_t f[BUF];
	struct eth_walk w;
	struct fb b;

	fb_init(&b, f, sizeof(f));
	fb_eth(&b, ETH_P_IPV6);
	fb_put(&b, "\x60", 1);
	assert_int_equal(eth_walk(f, fb_end(&b), UINT_MAX, 0, &w), 0);
	assert_int_equal(w.type, htons(0x86dd));
	assert_int_equal(w.type_at, 12);
	assert_int_equal(w.l3, 14);
	assert_int_equal(w.n_tags, 0);
	/* An Ethernet header and no payload is a frame still. */
	assert_int_equal(eth_walk(f, 14, UINT_MAX, 0, &w), 0);
	assert_int_equal(w.l3, 14);
	for (size_t len = 0; len < 14; len++) {
		uint8_t *p = fb_copy(f, len);

		assert_int_equal(eth_walk(p, len, UINT_MAX, 0, &w), -EINVAL);
		free(p);
	}
}

static void
test_eth_double_tag(void **state)
{
	uint8_t f[BUF];
	size_t len = qinq(f);
	struct eth_walk w;

	assert_int_equal(eth_walk(f, len, 2, 0, &w), 0);
	assert_int_equal(w.n_tags, 2);
	assert_int_equal(w.tag[0].tpid, htons(0x88a8));
	assert_int_equal(w.tag[0].tci, htons(0x0005));
	assert_int_equal(w.tag[1].tpid, htons(0x8100));
	assert_int_equal(w.tag[1].tci, htons(0xe006));
	assert_int_equal(w.type, htons(0x0800));
	assert_int_equal(w.type_at, 20);
	assert_int_equal(w.l3, 22);

	/* One tag allowed: the inner TPID is the type. */
	assert_int_equal(eth_walk(f, len, 1, 0, &w), 0);
	assert_int_equal(w.n_tags, 1);
	assert_int_equal(w.type, htons(0x8100));
	assert_int_equal(w.l3, 18);

	/* None allowed: the outer TPID is. */
	assert_int_equal(eth_walk(f, len, 0, 0, &w), 0);
	assert_int_equal(w.n_tags, 0);
	assert_int_equal(w.type, htons(0x88a8));
	assert_int_equal(w.l3, 14);
}

static void
test_eth_third_tag(void **state)
{
	uint8_t f[BUF];
	struct eth_walk w;
	struct fb b;
	size_t len;

	fb_init(&b, f, sizeof(f));
	fb_eth(&b, ETH_P_8021Q);
	fb_vlan(&b, 1, ETH_P_8021Q);
	fb_vlan(&b, 2, ETH_P_8021AD);
	fb_vlan(&b, 3, ETH_P_IPV6);
	len = fb_end(&b);
	assert_int_equal(eth_walk(f, len, ETH_TAGS_KEPT, 0, &w), 0);
	assert_int_equal(w.n_tags, 2);
	assert_int_equal(w.type, htons(0x88a8));
	assert_int_equal(w.l3, 22);
	/* Unbounded: all three stepped over, the first two reported. */
	assert_int_equal(eth_walk(f, len, UINT_MAX, 0, &w), 0);
	assert_int_equal(w.n_tags, 3);
	assert_int_equal(w.tag[1].tci, htons(2));
	assert_int_equal(w.type, htons(0x86dd));
	assert_int_equal(w.type_at, 24);
	assert_int_equal(w.l3, 26);
}

/* A tag counts only with its type field after it. */
static void
test_eth_tags_truncated(void **state)
{
	uint8_t f[BUF];
	size_t n = qinq(f);

	for (size_t len = 14; len <= n; len++) {
		uint8_t *p = fb_copy(f, len);
		struct eth_walk w;

		assert_int_equal(eth_walk(p, len, UINT_MAX, 0, &w), 0);
		if (len < 18) {
			assert_int_equal(w.n_tags, 0);
			assert_int_equal(w.type, htons(0x88a8));
			assert_int_equal(w.l3, 14);
		} else if (len < 22) {
			assert_int_equal(w.n_tags, 1);
			assert_int_equal(w.type, htons(0x8100));
			assert_int_equal(w.l3, 18);
		} else {
			assert_int_equal(w.n_tags, 2);
			assert_int_equal(w.type, htons(0x0800));
			assert_int_equal(w.l3, 22);
		}
		assert_true(w.l3 <= len);
		free(p);
	}
}

static void
test_eth_llc(void **state)
{
	/* 802.3 length, SNAP with a zero OUI carrying IPv4. */
	static const uint8_t llc_snap[] = {
		0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00, 0x45,
	};
	uint8_t snap[BUF], f[BUF];
	struct eth_walk w;
	struct fb b;
	size_t len;

	fb_init(&b, snap, sizeof(snap));
	fb_eth(&b, 0x0030);
	fb_put(&b, llc_snap, sizeof(llc_snap));
	len = fb_end(&b);
	assert_int_equal(eth_walk(snap, len, 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(0x0800));
	assert_int_equal(w.type_at, 20);
	assert_int_equal(w.l3, 22);
	/* Without the flag the length is the type. */
	assert_int_equal(eth_walk(snap, len, 2, 0, &w), 0);
	assert_int_equal(w.type, htons(0x0030));
	assert_int_equal(w.l3, 14);
	/* SNAP cut short, or not SNAP: 802.2, nothing stepped over. */
	for (size_t n = 14; n < 22; n++) {
		uint8_t *p = fb_copy(snap, n);

		assert_int_equal(eth_walk(p, n, 2, ETH_WALK_LLC, &w), 0);
		assert_int_equal(w.type, htons(ETH_P_802_2));
		assert_int_equal(w.l3, 14);
		free(p);
	}
	memcpy(f, snap, len);
	f[18] = 1;				/* an OUI */
	assert_int_equal(eth_walk(f, len, 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 14);
	memcpy(f, snap, len);
	f[15] = 0x42;				/* not SNAP */
	assert_int_equal(eth_walk(f, len, 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 14);
	/* SNAP carrying a length: 802.2, but the header is stepped over. */
	memcpy(f, snap, len);
	f[20] = 0x05;
	f[21] = 0xdc;
	assert_int_equal(eth_walk(f, len, 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 22);
}

/* At f: IHL 5, total length 28, DF, TTL 64, UDP, 192.168.0.1 ->
 * 192.168.0.2, then the 8 bytes of a UDP header. Returns 28. */
static size_t
ip4(uint8_t *f)
{
	struct iphdr *ip;
	struct fb b;

	fb_init(&b, f, BUF);
	ip = fb_ipv4(&b, 0xc0a80001, 0xc0a80002, IPPROTO_UDP);
	ip->id = htons(1);
	ip->frag_off = htons(0x4000);	/* DF */
	fb_udp(&b, 1024, 53);
	return fb_end(&b);
}

/* Whether the IPv4 header in f cut to len passes the checks. */
static bool
v4(const uint8_t *f, size_t len, unsigned checks)
{
	uint8_t *p = fb_copy(f, len);
	bool ok = ipv4_header_at(p, len, 0, checks) == (void *)p;

	free(p);
	return ok;
}

static void
test_ipv4_checks(void **state)
{
	const unsigned all = IP_CHECK_VERSION | IP_CHECK_LENGTH;
	uint8_t p[BUF], f[64];
	size_t n = ip4(p);

	assert_true(v4(p, n, all));
	for (size_t len = 0; len < IPV4_HLEN; len++)
		assert_false(v4(p, len, 0));
	/* The total length may run short of the buffer, not past it. */
	for (size_t len = IPV4_HLEN; len < n; len++) {
		assert_true(v4(p, len, IP_CHECK_VERSION));
		assert_false(v4(p, len, all));
	}

	memcpy(f, p, n);
	for (unsigned ihl = 0; ihl < 5; ihl++) {
		f[0] = 0x40 | ihl;
		assert_false(v4(f, n, 0));
	}
	/* Options: the IHL's length must be there, whatever the checks. */
	memset(f + IPV4_HLEN, 1, sizeof(f) - IPV4_HLEN);
	for (unsigned ihl = 5; ihl <= 15; ihl++) {
		f[0] = 0x40 | ihl;
		f[2] = 0;
		f[3] = ihl * 4;
		assert_true(v4(f, ihl * 4, all));
		assert_false(v4(f, ihl * 4 - 1, 0));
		/* A total length shorter than the header. */
		f[3] = ihl * 4 - 1;
		assert_false(v4(f, ihl * 4, all));
		assert_true(v4(f, ihl * 4, IP_CHECK_VERSION));
	}

	memcpy(f, p, n);
	f[0] = 0x65;				/* version 6 */
	assert_false(v4(f, n, IP_CHECK_VERSION));
	assert_true(v4(f, n, IP_CHECK_LENGTH));
	memcpy(f, p, n);
	f[3] = 0x1d;				/* one past the buffer */
	assert_false(v4(f, n, IP_CHECK_LENGTH));
	assert_true(v4(f, n, IP_CHECK_VERSION));
}

static void
test_ipv4_at_offset(void **state)
{
	uint8_t f[14 + BUF];
	const struct ipv4_header *ip;
	size_t len = 14 + ip4(f + 14);

	memset(f, 0xee, 14);
	ip = ipv4_header_at(f, len, 14, IP_CHECK_LENGTH);
	assert_ptr_equal(ip, f + 14);
	assert_int_equal(ipv4_hlen(ip), 20);
	assert_int_equal(ip->protocol, IPPROTO_UDP);
	assert_int_equal(ip->saddr, htonl(0xc0a80001));
	assert_null(ipv4_header_at(f, len - 1, 14, IP_CHECK_LENGTH));
	assert_null(ipv4_header_at(f, len, len + 1, 0));
}

/* The header checksum of RFC 1071's usual example. */
static void
test_ipv4_csum(void **state)
{
	uint8_t h[IPV4_HLEN] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0xaa, 0xaa, 0xc0, 0xa8, 0x00, 0x01,
		0xc0, 0xa8, 0x00, 0xc7,
	};

	ipv4_set_csum((struct ipv4_header *)h);
	assert_int_equal(h[10], 0xb8);
	assert_int_equal(h[11], 0x61);
	assert_int_equal(csum_fold(csum_add(0, h, sizeof(h))), 0xffff);
}

/* At f: IPv6 from 2001:db8::1 to 2001:db8::2 (hop limit 64, payload
 * length right), next header next, then the len bytes at rest (extension
 * headers, the upper layer's first bytes). Returns its length. */
static size_t
ipv6(uint8_t *f, uint8_t next, const void *rest, size_t len)
{
	static const uint8_t src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	struct fb b;

	fb_init(&b, f, BUF);
	fb_ipv6(&b, src, dst, next);
	fb_put(&b, rest, len);
	return fb_end(&b);
}

/* The first bytes of a TCP header: ports 12345 -> 80. */
#define TCP_PORTS	0x30, 0x39, 0x00, 0x50

/* IPv6, then TCP's ports. */
static size_t
tcp6(uint8_t *f)
{
	static const uint8_t ports[] = { TCP_PORTS };

	return ipv6(f, IPPROTO_TCP, ports, sizeof(ports));
}

static void
test_ipv6_checks(void **state)
{
	const unsigned all = IP_CHECK_VERSION | IP_CHECK_LENGTH;
	uint8_t f[BUF], g[BUF];
	size_t n = tcp6(f);

	for (size_t len = 0; len <= n; len++) {
		uint8_t *p = fb_copy(f, len);

		if (len < IPV6_HLEN)
			assert_null(ipv6_header_at(p, len, 0, 0));
		else
			assert_non_null(ipv6_header_at(p, len, 0, 0));
		/* Its payload length says 44 bytes. */
		if (len < n)
			assert_null(ipv6_header_at(p, len, 0, all));
		else
			assert_non_null(ipv6_header_at(p, len, 0, all));
		free(p);
	}
	memcpy(g, f, n);
	g[0] = 0x45;
	assert_null(ipv6_header_at(g, n, 0, IP_CHECK_VERSION));
	assert_non_null(ipv6_header_at(g, n, 0, IP_CHECK_LENGTH));
	assert_int_equal(ipv6_tot_len((const struct ipv6_header *)f), 44);
}

/* Walks f cut to len from nh; the result, the walk in w. */
static int
walk(const uint8_t *f, size_t len, size_t nh, unsigned flags,
     struct ipv6_exthdr_walk *w)
{
	uint8_t *p = fb_copy(f, len);
	int err = ipv6_exthdr_skip(p, len, nh, flags, w);

	free(p);
	return err;
}

/* Where the walk ended: at off, a header of type nexthdr named at at. */
static void
assert_walk(const struct ipv6_exthdr_walk *w, uint8_t nexthdr, uint32_t off,
	    uint32_t at)
{
	assert_int_equal(w->nexthdr, nexthdr);
	assert_int_equal(w->off, off);
	assert_int_equal(w->nexthdr_at, at);
}

static void
test_exthdr_none(void **state)
{
	uint8_t f[BUF];
	size_t n = tcp6(f);
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(f, n, 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 40, 6);
	assert_false(w.frag);
	assert_int_equal(w.frag_off, 0);
	/* The IPv6 header itself must be there. */
	for (size_t len = 0; len < IPV6_HLEN; len++)
		assert_int_equal(walk(f, len, 0, 0, &w), -EINVAL);
	assert_int_equal(walk(f, IPV6_HLEN, 0, 0, &w), 0);
	assert_int_equal(walk(f, n, 5, 0, &w), -EINVAL);
}

/* Hop-by-hop (8 bytes), routing (16), destination options (8), TCP. */
static size_t
chain(uint8_t *f)
{
	static const uint8_t rest[] = {
		IPPROTO_ROUTING, 0, 1, 4, 0, 0, 0, 0,
		IPPROTO_DSTOPTS, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0,
		TCP_PORTS,
	};

	return ipv6(f, IPPROTO_HOPOPTS, rest, sizeof(rest));
}

static void
test_exthdr_each_kind(void **state)
{
	uint8_t f[BUF];
	size_t n = chain(f);
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(f, n, 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 72, 64);
	/* One step at a time. */
	assert_int_equal(ipv6_exthdr_start(f, n, 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_HOPOPTS);
	assert_int_equal(ipv6_exthdr_step(f, n, 0, &w), 1);
	assert_walk(&w, IPPROTO_ROUTING, 48, 40);
	assert_int_equal(ipv6_exthdr_step(f, n, 0, &w), 1);
	assert_int_equal(w.nexthdr, IPPROTO_DSTOPTS);
	assert_int_equal(w.off, 64);
	assert_int_equal(ipv6_exthdr_step(f, n, 0, &w), 1);
	assert_int_equal(ipv6_exthdr_step(f, n, 0, &w), 0);
	assert_int_equal(w.off, 72);
}

/* Every header must fit whole: a walk cut anywhere in the chain fails,
 * one cut at the upper-layer header does not. */
static void
test_exthdr_truncated(void **state)
{
	uint8_t f[BUF];
	size_t n = chain(f);
	struct ipv6_exthdr_walk w;

	for (size_t len = IPV6_HLEN; len <= n; len++) {
		int err = walk(f, len, 0, IPV6_EXTHDR_AH, &w);

		if (len < 72) {
			assert_int_equal(err, -EINVAL);
		} else {
			assert_int_equal(err, 0);
			assert_int_equal(w.off, 72);
		}
	}
}

static void
test_exthdr_stops(void **state)
{
	static const uint8_t esp[] = { 0, 0, 0, 1, 0, 0, 0, 1 };
	static const uint8_t none[] = { IPPROTO_NONE, 0, 1, 4, 0, 0, 0, 0 };
	struct ipv6_exthdr_walk w;
	uint8_t f[BUF];
	size_t n;

	n = ipv6(f, IPPROTO_ESP, esp, sizeof(esp));
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_AH, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_ESP);
	assert_int_equal(w.off, 40);
	n = ipv6(f, IPPROTO_DSTOPTS, none, sizeof(none));
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_AH, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_NONE);
	assert_int_equal(w.off, 48);
}

/* AH with a length of 4: (4 + 2) * 4 = 24 bytes, where the generic rule
 * would say 40. */
static size_t
ah(uint8_t *f)
{
	static const uint8_t rest[] = {
		IPPROTO_TCP, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		TCP_PORTS,
	};

	return ipv6(f, IPPROTO_AH, rest, sizeof(rest));
}

static void
test_exthdr_ah(void **state)
{
	uint8_t f[BUF];
	size_t n = ah(f);
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_AH, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 64, 40);
	for (size_t len = 40; len < 64; len++)
		assert_int_equal(walk(f, len, 0, IPV6_EXTHDR_AH, &w),
				 -EINVAL);
	/* Not asked to: the walk ends at AH. */
	assert_int_equal(walk(f, n, 0, 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_AH);
	assert_int_equal(w.off, 40);
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.off, 40);
}

/* A fragment header (first fragment, more to come) before TCP. */
static size_t
frag_first(uint8_t *f)
{
	static const uint8_t rest[] = {
		IPPROTO_TCP, 0, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,
		TCP_PORTS,
	};

	return ipv6(f, IPPROTO_FRAGMENT, rest, sizeof(rest));
}

static void
test_exthdr_first_fragment(void **state)
{
	uint8_t f[BUF];
	size_t n = frag_first(f);
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(f, n, 0,
			      IPV6_EXTHDR_FRAG, &w), 0);
	assert_true(w.frag);
	assert_int_equal(w.frag_off, 0);
	assert_int_equal(w.nexthdr, IPPROTO_TCP);
	assert_int_equal(w.off, 48);
	/* The first two bytes missing: no fragment header was read. */
	for (size_t len = 40; len < 42; len++) {
		assert_int_equal(walk(f, len, 0, IPV6_EXTHDR_FRAG,
				      &w), -EINVAL);
		assert_false(w.frag);
	}
	/* Met, but cut short of its 8 bytes. */
	for (size_t len = 42; len < 48; len++) {
		assert_int_equal(walk(f, len, 0, IPV6_EXTHDR_FRAG,
				      &w), -EINVAL);
		assert_true(w.frag);
	}
	/* Not asked to step over it: the walk ends there. */
	assert_int_equal(walk(f, n, 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_FRAGMENT, 40, 6);
	assert_false(w.frag);
}

static void
test_exthdr_later_fragment(void **state)
{
	uint8_t f[BUF];
	size_t n = frag_first(f);
	struct ipv6_exthdr_walk w;

	f[42] = 0x05;			/* offset 0x05a8 bytes, M */
	f[43] = 0xa9;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_true(w.frag);
	assert_int_equal(w.frag_off, 0x5a8);
	assert_int_equal(w.nexthdr, IPPROTO_FRAGMENT);
	assert_int_equal(w.off, 40);
	/* Its first 4 bytes are enough. */
	assert_int_equal(walk(f, 44, 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.frag_off, 0x5a8);
	assert_int_equal(walk(f, 43, 0, IPV6_EXTHDR_FRAG, &w), -EINVAL);
	assert_true(w.frag);
	/* Another extension header behind it: the walk gives up... */
	f[40] = IPPROTO_DSTOPTS;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), -EINVAL);
	assert_true(w.frag);
	assert_int_equal(w.frag_off, 0);
	f[40] = IPPROTO_AH;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), -EINVAL);
	/* ... but "no next header" is not one. */
	f[40] = IPPROTO_NONE;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.frag_off, 0x5a8);
	/* A first fragment with a header behind is stepped over as any. */
	frag_first(f);
	f[40] = IPPROTO_NONE;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.frag_off, 0);
	assert_int_equal(w.nexthdr, IPPROTO_NONE);
	assert_int_equal(w.off, 48);
}

/* Hop-by-hop, destination options before routing, routing, destination
 * options, UDP: the unfragmentable part ends at the second destination
 * options header. */
static size_t
unfrag(uint8_t *f)
{
	static const uint8_t rest[] = {
		IPPROTO_DSTOPTS, 0, 1, 4, 0, 0, 0, 0,
		IPPROTO_ROUTING, 0, 1, 4, 0, 0, 0, 0,
		IPPROTO_DSTOPTS, 0, 0, 0, 0, 0, 0, 0,
		IPPROTO_UDP, 0, 1, 4, 0, 0, 0, 0,
		0x04, 0x00, 0x00, 0x35, 0x00, 0x08, 0x00, 0x00,
	};

	return ipv6(f, IPPROTO_HOPOPTS, rest, sizeof(rest));
}

static void
test_exthdr_unfragmentable(void **state)
{
	struct ipv6_exthdr_walk w;
	uint8_t u[BUF], f[BUF];
	size_t n = unfrag(u);

	assert_int_equal(walk(u, n, 0, IPV6_EXTHDR_UNFRAG,
			      &w), 0);
	assert_walk(&w, IPPROTO_DSTOPTS, 64, 56);
	/* The last header must have its 8 bytes even where it ends the
	 * walk. */
	for (size_t len = 64; len < 72; len++)
		assert_int_equal(walk(u, len, 0, IPV6_EXTHDR_UNFRAG, &w),
				 -EINVAL);
	assert_int_equal(walk(u, 72, 0, IPV6_EXTHDR_UNFRAG, &w), 0);
	/* Without the mode every header goes. */
	assert_int_equal(walk(u, n, 0, 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_UDP);
	assert_int_equal(w.off, 72);
	/* Destination options first and no routing header: all of it is
	 * fragmentable. */
	memcpy(f, u, n);
	f[6] = IPPROTO_DSTOPTS;
	f[40] = IPPROTO_UDP;
	assert_int_equal(walk(f, n, 0, IPV6_EXTHDR_UNFRAG, &w), 0);
	assert_int_equal(w.off, 40);
	assert_int_equal(w.nexthdr_at, 6);
}

/* The flow key's walk: generic lengths for all, two bytes enough. */
static void
test_exthdr_optlen(void **state)
{
	struct ipv6_exthdr_walk w;
	uint8_t f[BUF];
	size_t n = ah(f);

	/* AH by the generic rule: (4 + 1) * 8 = 40 bytes, past the end. */
	assert_int_equal(ipv6_exthdr_start(f, n, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(f, n, IPV6_EXTHDR_OPTLEN,
					  &w), 1);
	assert_int_equal(w.nexthdr, IPPROTO_TCP);
	assert_int_equal(w.off, 80);
	/* A fragment header is stepped over too, even a later one. */
	frag_first(f);
	assert_int_equal(ipv6_exthdr_start(f, 42, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(f, 42, IPV6_EXTHDR_OPTLEN,
					  &w), 1);
	assert_int_equal(w.off, 48);
	assert_false(w.frag);
	assert_int_equal(ipv6_exthdr_start(f, 41, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(f, 41, IPV6_EXTHDR_OPTLEN,
					  &w), -EINVAL);
	/* Past the end: the next step fails. */
	chain(f);
	assert_int_equal(ipv6_exthdr_start(f, 42, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(f, 42, IPV6_EXTHDR_OPTLEN, &w),
			 1);
	assert_int_equal(w.off, 48);
	assert_int_equal(ipv6_exthdr_step(f, 42, IPV6_EXTHDR_OPTLEN, &w),
			 -EINVAL);
}

/* IPv4 options: a no-op, record route (7 bytes), a security option with
 * the copied bit, then the end of the list. */
static void
test_options(void **state)
{
	static const uint8_t o[] = {
		OPT_NOP, 7, 7, 4, 0, 0, 0, 0, 0x82, 3, 0xab, OPT_END, 0x44,
	};
	const struct ip_option *opt;
	size_t at = 0;

	opt = option_next(o, sizeof(o), &at);
	assert_non_null(opt);
	assert_int_equal(at, 1);
	assert_int_equal(opt->kind, 7);
	at += opt->len;
	opt = option_next(o, sizeof(o), &at);
	assert_non_null(opt);
	assert_int_equal(at, 8);
	assert_int_equal(opt->kind, 0x82);
	assert_int_equal(opt->data[0], 0xab);
	at += opt->len;
	assert_null(option_next(o, sizeof(o), &at));
	/* An option that runs past the list, or a length below 2, ends it;
	 * so does a kind without its length byte. */
	at = 1;
	assert_null(option_next(o, 7, &at));
	at = 8;
	assert_null(option_next(o, 9, &at));
	at = 8;
	assert_null(option_next(o, 10, &at));
	{
		static const uint8_t bad[] = { 3, 1, 0, 0 };

		at = 0;
		assert_null(option_next(bad, sizeof(bad), &at));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_at),
		cmocka_unit_test(test_eth_untagged),
		cmocka_unit_test(test_eth_double_tag),
		cmocka_unit_test(test_eth_third_tag),
		cmocka_unit_test(test_eth_tags_truncated),
		cmocka_unit_test(test_eth_llc),
		cmocka_unit_test(test_ipv4_checks),
		cmocka_unit_test(test_ipv4_at_offset),
		cmocka_unit_test(test_ipv4_csum),
		cmocka_unit_test(test_ipv6_checks),
		cmocka_unit_test(test_exthdr_none),
		cmocka_unit_test(test_exthdr_each_kind),
		cmocka_unit_test(test_exthdr_truncated),
		cmocka_unit_test(test_exthdr_stops),
		cmocka_unit_test(test_exthdr_ah),
		cmocka_unit_test(test_exthdr_first_fragment),
		cmocka_unit_test(test_exthdr_later_fragment),
		cmocka_unit_test(test_exthdr_unfragmentable),
		cmocka_unit_test(test_exthdr_optlen),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests_name("packet", tests, NULL, NULL);
}
