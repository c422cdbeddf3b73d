/* The packet layer's walkers and checks on hand-made headers: the
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

#define MACS	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01

/* A heap copy of the first len bytes of src, freed by done(). */
static uint8_t *
cut(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, src, len);
	return p;
}

static void
done(uint8_t *p)
{
	free(p);
}

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

/* 802.1ad outer tag (VLAN 5), 802.1Q inner tag (VLAN 6, PCP 7), IPv4. */
static const uint8_t qinq[] = {
	MACS, 0x88, 0xa8, 0x00, 0x05, 0x81, 0x00, 0xe0, 0x06,
	0x08, 0x00, 0x45,
};

static void
test_eth_untagged(void **state)
{
	static const uint8_t f[] = { MACS, 0x86, 0xdd, 0x60 };
	struct eth_walk w;

	assert_int_equal(eth_walk(f, sizeof(f), UINT_MAX, 0, &w), 0);
	assert_int_equal(w.type, htons(0x86dd));
	assert_int_equal(w.type_at, 12);
	assert_int_equal(w.l3, 14);
	assert_int_equal(w.n_tags, 0);
	/* An Ethernet header and no payload is a frame still. */
	assert_int_equal(eth_walk(f, 14, UINT_MAX, 0, &w), 0);
	assert_int_equal(w.l3, 14);
	for (size_t len = 0; len < 14; len++) {
		uint8_t *p = cut(f, len);

		assert_int_equal(eth_walk(p, len, UINT_MAX, 0, &w), -EINVAL);
		done(p);
	}
}

static void
test_eth_double_tag(void **state)
{
	struct eth_walk w;

	assert_int_equal(eth_walk(qinq, sizeof(qinq), 2, 0, &w), 0);
	assert_int_equal(w.n_tags, 2);
	assert_int_equal(w.tag[0].tpid, htons(0x88a8));
	assert_int_equal(w.tag[0].tci, htons(0x0005));
	assert_int_equal(w.tag[1].tpid, htons(0x8100));
	assert_int_equal(w.tag[1].tci, htons(0xe006));
	assert_int_equal(w.type, htons(0x0800));
	assert_int_equal(w.type_at, 20);
	assert_int_equal(w.l3, 22);

	/* One tag allowed: the inner TPID is the type. */
	assert_int_equal(eth_walk(qinq, sizeof(qinq), 1, 0, &w), 0);
	assert_int_equal(w.n_tags, 1);
	assert_int_equal(w.type, htons(0x8100));
	assert_int_equal(w.l3, 18);

	/* None allowed: the outer TPID is. */
	assert_int_equal(eth_walk(qinq, sizeof(qinq), 0, 0, &w), 0);
	assert_int_equal(w.n_tags, 0);
	assert_int_equal(w.type, htons(0x88a8));
	assert_int_equal(w.l3, 14);
}

static void
test_eth_third_tag(void **state)
{
	static const uint8_t f[] = {
		MACS, 0x81, 0x00, 0x00, 0x01, 0x81, 0x00, 0x00, 0x02,
		0x88, 0xa8, 0x00, 0x03, 0x86, 0xdd,
	};
	struct eth_walk w;

	assert_int_equal(eth_walk(f, sizeof(f), ETH_TAGS_KEPT, 0, &w), 0);
	assert_int_equal(w.n_tags, 2);
	assert_int_equal(w.type, htons(0x88a8));
	assert_int_equal(w.l3, 22);
	/* Unbounded: all three stepped over, the first two reported. */
	assert_int_equal(eth_walk(f, sizeof(f), UINT_MAX, 0, &w), 0);
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
	for (size_t len = 14; len <= sizeof(qinq); len++) {
		uint8_t *p = cut(qinq, len);
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
		done(p);
	}
}

static void
test_eth_llc(void **state)
{
	/* 802.3 length, SNAP with a zero OUI carrying IPv4. */
	static const uint8_t snap[] = {
		MACS, 0x00, 0x30, 0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00, 0x45,
	};
	uint8_t f[sizeof(snap)];
	struct eth_walk w;

	assert_int_equal(eth_walk(snap, sizeof(snap), 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(0x0800));
	assert_int_equal(w.type_at, 20);
	assert_int_equal(w.l3, 22);
	/* Without the flag the length is the type. */
	assert_int_equal(eth_walk(snap, sizeof(snap), 2, 0, &w), 0);
	assert_int_equal(w.type, htons(0x0030));
	assert_int_equal(w.l3, 14);
	/* SNAP cut short, or not SNAP: 802.2, nothing stepped over. */
	for (size_t len = 14; len < 22; len++) {
		uint8_t *p = cut(snap, len);

		assert_int_equal(eth_walk(p, len, 2, ETH_WALK_LLC, &w), 0);
		assert_int_equal(w.type, htons(ETH_P_802_2));
		assert_int_equal(w.l3, 14);
		done(p);
	}
	memcpy(f, snap, sizeof(f));
	f[18] = 1;				/* an OUI */
	assert_int_equal(eth_walk(f, sizeof(f), 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 14);
	memcpy(f, snap, sizeof(f));
	f[15] = 0x42;				/* not SNAP */
	assert_int_equal(eth_walk(f, sizeof(f), 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 14);
	/* SNAP carrying a length: 802.2, but the header is stepped over. */
	memcpy(f, snap, sizeof(f));
	f[20] = 0x05;
	f[21] = 0xdc;
	assert_int_equal(eth_walk(f, sizeof(f), 2, ETH_WALK_LLC, &w), 0);
	assert_int_equal(w.type, htons(ETH_P_802_2));
	assert_int_equal(w.l3, 22);
}

/* IHL 5, total length 28, DF, TTL 64, UDP, 192.168.0.1 -> 192.168.0.2,
 * then 8 bytes. */
static const uint8_t ip4[] = {
	0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x40, 0x00,
	0x40, 0x11, 0x00, 0x00, 192, 168, 0, 1, 192, 168, 0, 2,
	0x04, 0x00, 0x00, 0x35, 0x00, 0x08, 0x00, 0x00,
};

/* Whether the IPv4 header in f cut to len passes the checks. */
static bool
v4(const uint8_t *f, size_t len, unsigned checks)
{
	uint8_t *p = cut(f, len);
	bool ok = ipv4_header_at(p, len, 0, checks) == (void *)p;

	done(p);
	return ok;
}

static void
test_ipv4_checks(void **state)
{
	const unsigned all = IP_CHECK_VERSION | IP_CHECK_LENGTH;
	uint8_t f[64];

	assert_true(v4(ip4, sizeof(ip4), all));
	for (size_t len = 0; len < IPV4_HLEN; len++)
		assert_false(v4(ip4, len, 0));
	/* The total length may run short of the buffer, not past it. */
	for (size_t len = IPV4_HLEN; len < sizeof(ip4); len++) {
		assert_true(v4(ip4, len, IP_CHECK_VERSION));
		assert_false(v4(ip4, len, all));
	}

	memcpy(f, ip4, sizeof(ip4));
	for (unsigned ihl = 0; ihl < 5; ihl++) {
		f[0] = 0x40 | ihl;
		assert_false(v4(f, sizeof(ip4), 0));
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

	memcpy(f, ip4, sizeof(ip4));
	f[0] = 0x65;				/* version 6 */
	assert_false(v4(f, sizeof(ip4), IP_CHECK_VERSION));
	assert_true(v4(f, sizeof(ip4), IP_CHECK_LENGTH));
	memcpy(f, ip4, sizeof(ip4));
	f[3] = 0x1d;				/* one past the buffer */
	assert_false(v4(f, sizeof(ip4), IP_CHECK_LENGTH));
	assert_true(v4(f, sizeof(ip4), IP_CHECK_VERSION));
}

static void
test_ipv4_at_offset(void **state)
{
	uint8_t f[14 + sizeof(ip4)];
	const struct ipv4_header *ip;

	memset(f, 0xee, 14);
	memcpy(f + 14, ip4, sizeof(ip4));
	ip = ipv4_header_at(f, sizeof(f), 14, IP_CHECK_LENGTH);
	assert_ptr_equal(ip, f + 14);
	assert_int_equal(ipv4_hlen(ip), 20);
	assert_int_equal(ip->protocol, IPPROTO_UDP);
	assert_int_equal(ip->saddr, htonl(0xc0a80001));
	assert_null(ipv4_header_at(f, sizeof(f) - 1, 14, IP_CHECK_LENGTH));
	assert_null(ipv4_header_at(f, sizeof(f), sizeof(f) + 1, 0));
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

/* 2001:db8::1 -> 2001:db8::2 carrying plen bytes, next header next. */
#define IPV6(plen, next) \
	0x60, 0x00, 0x00, 0x00, 0x00, plen, next, 64, \
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, \
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02
#define TCP_PORTS	0x30, 0x39, 0x00, 0x50

static void
test_ipv6_checks(void **state)
{
	static const uint8_t f[] = { IPV6(4, IPPROTO_TCP), TCP_PORTS };
	const unsigned all = IP_CHECK_VERSION | IP_CHECK_LENGTH;
	uint8_t g[sizeof(f)];

	for (size_t len = 0; len <= sizeof(f); len++) {
		uint8_t *p = cut(f, len);

		if (len < IPV6_HLEN)
			assert_null(ipv6_header_at(p, len, 0, 0));
		else
			assert_non_null(ipv6_header_at(p, len, 0, 0));
		/* Its payload length says 44 bytes. */
		if (len < sizeof(f))
			assert_null(ipv6_header_at(p, len, 0, all));
		else
			assert_non_null(ipv6_header_at(p, len, 0, all));
		done(p);
	}
	memcpy(g, f, sizeof(g));
	g[0] = 0x45;
	assert_null(ipv6_header_at(g, sizeof(g), 0, IP_CHECK_VERSION));
	assert_non_null(ipv6_header_at(g, sizeof(g), 0, IP_CHECK_LENGTH));
	assert_int_equal(ipv6_tot_len((const struct ipv6_header *)f), 44);
}

/* Walks f cut to len from nh; the result, the walk in w. */
static int
walk(const uint8_t *f, size_t len, size_t nh, unsigned flags,
     struct ipv6_exthdr_walk *w)
{
	uint8_t *p = cut(f, len);
	int err = ipv6_exthdr_skip(p, len, nh, flags, w);

	done(p);
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
	static const uint8_t f[] = { IPV6(4, IPPROTO_TCP), TCP_PORTS };
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(f, sizeof(f), 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 40, 6);
	assert_false(w.frag);
	assert_int_equal(w.frag_off, 0);
	/* The IPv6 header itself must be there. */
	for (size_t len = 0; len < IPV6_HLEN; len++)
		assert_int_equal(walk(f, len, 0, 0, &w), -EINVAL);
	assert_int_equal(walk(f, IPV6_HLEN, 0, 0, &w), 0);
	assert_int_equal(walk(f, sizeof(f), 5, 0, &w), -EINVAL);
}

/* Hop-by-hop (8 bytes), routing (16), destination options (8), TCP. */
static const uint8_t chain[] = {
	IPV6(36, IPPROTO_HOPOPTS),
	IPPROTO_ROUTING, 0, 1, 4, 0, 0, 0, 0,
	IPPROTO_DSTOPTS, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0,
	TCP_PORTS,
};

static void
test_exthdr_each_kind(void **state)
{
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(chain, sizeof(chain), 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 72, 64);
	/* One step at a time. */
	assert_int_equal(ipv6_exthdr_start(chain, sizeof(chain), 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_HOPOPTS);
	assert_int_equal(ipv6_exthdr_step(chain, sizeof(chain), 0, &w), 1);
	assert_walk(&w, IPPROTO_ROUTING, 48, 40);
	assert_int_equal(ipv6_exthdr_step(chain, sizeof(chain), 0, &w), 1);
	assert_int_equal(w.nexthdr, IPPROTO_DSTOPTS);
	assert_int_equal(w.off, 64);
	assert_int_equal(ipv6_exthdr_step(chain, sizeof(chain), 0, &w), 1);
	assert_int_equal(ipv6_exthdr_step(chain, sizeof(chain), 0, &w), 0);
	assert_int_equal(w.off, 72);
}

/* Every header must fit whole: a walk cut anywhere in the chain fails,
 * one cut at the upper-layer header does not. */
static void
test_exthdr_truncated(void **state)
{
	struct ipv6_exthdr_walk w;

	for (size_t len = IPV6_HLEN; len <= sizeof(chain); len++) {
		int err = walk(chain, len, 0, IPV6_EXTHDR_AH, &w);

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
	static const uint8_t esp[] = { IPV6(8, IPPROTO_ESP), 0, 0, 0, 1,
				       0, 0, 0, 1 };
	static const uint8_t none[] = {
		IPV6(8, IPPROTO_DSTOPTS), IPPROTO_NONE, 0, 1, 4, 0, 0, 0, 0,
	};
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(esp, sizeof(esp), 0, IPV6_EXTHDR_AH, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_ESP);
	assert_int_equal(w.off, 40);
	assert_int_equal(walk(none, sizeof(none), 0, IPV6_EXTHDR_AH, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_NONE);
	assert_int_equal(w.off, 48);
}

/* AH with a length of 4: (4 + 2) * 4 = 24 bytes, where the generic rule
 * would say 40. */
static const uint8_t ah[] = {
	IPV6(28, IPPROTO_AH),
	IPPROTO_TCP, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	TCP_PORTS,
};

static void
test_exthdr_ah(void **state)
{
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(ah, sizeof(ah), 0, IPV6_EXTHDR_AH, &w), 0);
	assert_walk(&w, IPPROTO_TCP, 64, 40);
	for (size_t len = 40; len < 64; len++)
		assert_int_equal(walk(ah, len, 0, IPV6_EXTHDR_AH, &w),
				 -EINVAL);
	/* Not asked to: the walk ends at AH. */
	assert_int_equal(walk(ah, sizeof(ah), 0, 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_AH);
	assert_int_equal(w.off, 40);
	assert_int_equal(walk(ah, sizeof(ah), 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.off, 40);
}

/* A fragment header (first fragment, more to come) before TCP. */
static const uint8_t frag_first[] = {
	IPV6(12, IPPROTO_FRAGMENT),
	IPPROTO_TCP, 0, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,
	TCP_PORTS,
};

static void
test_exthdr_first_fragment(void **state)
{
	struct ipv6_exthdr_walk w;

	assert_int_equal(walk(frag_first, sizeof(frag_first), 0,
			      IPV6_EXTHDR_FRAG, &w), 0);
	assert_true(w.frag);
	assert_int_equal(w.frag_off, 0);
	assert_int_equal(w.nexthdr, IPPROTO_TCP);
	assert_int_equal(w.off, 48);
	/* The first two bytes missing: no fragment header was read. */
	for (size_t len = 40; len < 42; len++) {
		assert_int_equal(walk(frag_first, len, 0, IPV6_EXTHDR_FRAG,
				      &w), -EINVAL);
		assert_false(w.frag);
	}
	/* Met, but cut short of its 8 bytes. */
	for (size_t len = 42; len < 48; len++) {
		assert_int_equal(walk(frag_first, len, 0, IPV6_EXTHDR_FRAG,
				      &w), -EINVAL);
		assert_true(w.frag);
	}
	/* Not asked to step over it: the walk ends there. */
	assert_int_equal(walk(frag_first, sizeof(frag_first), 0, 0, &w), 0);
	assert_walk(&w, IPPROTO_FRAGMENT, 40, 6);
	assert_false(w.frag);
}

static void
test_exthdr_later_fragment(void **state)
{
	uint8_t f[sizeof(frag_first)];
	struct ipv6_exthdr_walk w;

	memcpy(f, frag_first, sizeof(f));
	f[42] = 0x05;			/* offset 0x05a8 bytes, M */
	f[43] = 0xa9;
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_FRAG, &w), 0);
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
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_FRAG, &w), -EINVAL);
	assert_true(w.frag);
	assert_int_equal(w.frag_off, 0);
	f[40] = IPPROTO_AH;
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_FRAG, &w), -EINVAL);
	/* ... but "no next header" is not one. */
	f[40] = IPPROTO_NONE;
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.frag_off, 0x5a8);
	/* A first fragment with a header behind is stepped over as any. */
	memcpy(f, frag_first, sizeof(f));
	f[40] = IPPROTO_NONE;
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_FRAG, &w), 0);
	assert_int_equal(w.frag_off, 0);
	assert_int_equal(w.nexthdr, IPPROTO_NONE);
	assert_int_equal(w.off, 48);
}

/* Hop-by-hop, destination options before routing, routing, destination
 * options, UDP: the unfragmentable part ends at the second destination
 * options header. */
static const uint8_t unfrag[] = {
	IPV6(40, IPPROTO_HOPOPTS),
	IPPROTO_DSTOPTS, 0, 1, 4, 0, 0, 0, 0,
	IPPROTO_ROUTING, 0, 1, 4, 0, 0, 0, 0,
	IPPROTO_DSTOPTS, 0, 0, 0, 0, 0, 0, 0,
	IPPROTO_UDP, 0, 1, 4, 0, 0, 0, 0,
	0x04, 0x00, 0x00, 0x35, 0x00, 0x08, 0x00, 0x00,
};

static void
test_exthdr_unfragmentable(void **state)
{
	struct ipv6_exthdr_walk w;
	uint8_t f[sizeof(unfrag)];

	assert_int_equal(walk(unfrag, sizeof(unfrag), 0, IPV6_EXTHDR_UNFRAG,
			      &w), 0);
	assert_walk(&w, IPPROTO_DSTOPTS, 64, 56);
	/* The last header must have its 8 bytes even where it ends the
	 * walk. */
	for (size_t len = 64; len < 72; len++)
		assert_int_equal(walk(unfrag, len, 0, IPV6_EXTHDR_UNFRAG, &w),
				 -EINVAL);
	assert_int_equal(walk(unfrag, 72, 0, IPV6_EXTHDR_UNFRAG, &w), 0);
	/* Without the mode every header goes. */
	assert_int_equal(walk(unfrag, sizeof(unfrag), 0, 0, &w), 0);
	assert_int_equal(w.nexthdr, IPPROTO_UDP);
	assert_int_equal(w.off, 72);
	/* Destination options first and no routing header: all of it is
	 * fragmentable. */
	memcpy(f, unfrag, sizeof(f));
	f[6] = IPPROTO_DSTOPTS;
	f[40] = IPPROTO_UDP;
	assert_int_equal(walk(f, sizeof(f), 0, IPV6_EXTHDR_UNFRAG, &w), 0);
	assert_int_equal(w.off, 40);
	assert_int_equal(w.nexthdr_at, 6);
}

/* The flow key's walk: generic lengths for all, two bytes enough. */
static void
test_exthdr_optlen(void **state)
{
	struct ipv6_exthdr_walk w;

	/* AH by the generic rule: (4 + 1) * 8 = 40 bytes, past the end. */
	assert_int_equal(ipv6_exthdr_start(ah, sizeof(ah), 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(ah, sizeof(ah), IPV6_EXTHDR_OPTLEN,
					  &w), 1);
	assert_int_equal(w.nexthdr, IPPROTO_TCP);
	assert_int_equal(w.off, 80);
	/* A fragment header is stepped over too, even a later one. */
	assert_int_equal(ipv6_exthdr_start(frag_first, 42, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(frag_first, 42, IPV6_EXTHDR_OPTLEN,
					  &w), 1);
	assert_int_equal(w.off, 48);
	assert_false(w.frag);
	assert_int_equal(ipv6_exthdr_start(frag_first, 41, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(frag_first, 41, IPV6_EXTHDR_OPTLEN,
					  &w), -EINVAL);
	/* Past the end: the next step fails. */
	assert_int_equal(ipv6_exthdr_start(chain, 42, 0, &w), 0);
	assert_int_equal(ipv6_exthdr_step(chain, 42, IPV6_EXTHDR_OPTLEN, &w),
			 1);
	assert_int_equal(w.off, 48);
	assert_int_equal(ipv6_exthdr_step(chain, 42, IPV6_EXTHDR_OPTLEN, &w),
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
