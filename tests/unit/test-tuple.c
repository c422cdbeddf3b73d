/* SPDX-License-Identifier: Apache-2.0 */
/* ct/tuple.c's tuples as the rest of the tracker reads them: a parsed
 * packet's tuple, and its inverse, byte for byte the tuple its fields
 * name (ctnetlink and NAT build tuples field by field, the parser a word
 * at a time, and a connection is found only when both agree), for both
 * families, the protocols with ports, ICMP, one without, an ICMP error's
 * quoted packet, and any zone. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ct/tuple.h"
#include "tests/unit/builders.h"

#define IP_A	0x0a000001
#define IP_B	0xc0a80102

static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_b[16] = { 0xfe, 0x80, [8] = 0x12, [15] = 0xfe };

static uint8_t frame[512];

/* Parses the frame b built (its last IP header), into p. */
static enum ct_parse_result
parse(struct fb *b, int family, uint16_t zone, struct ct_packet *p)
{
	size_t len = fb_end(b);

	return ct_packet_parse(frame + b->l3, len - b->l3, family, zone,
			       false, p);
}

/* The tuple its fields name, every other byte zero. */
static struct ct_tuple
named(int family, const void *src, const void *dst, uint8_t proto,
      uint16_t sport, uint16_t dport, uint8_t type, uint8_t code,
      uint16_t zone)
{
	struct ct_tuple t;

	memset(&t, 0, sizeof(t));
	t.family = family;
	if (family == AF_INET) {
		memcpy(&t.src.ip, src, 4);
		memcpy(&t.dst.ip, dst, 4);
	} else {
		memcpy(&t.src.ip6, src, 16);
		memcpy(&t.dst.ip6, dst, 16);
	}
	t.proto = proto;
	t.sport = htons(sport);
	t.dport = htons(dport);
	t.icmp_type = type;
	t.icmp_code = code;
	t.zone = zone;
	return t;
}

/* got is want, byte for byte, and hashes as it does. */
static void
assert_tuple(const struct ct_tuple *got, const struct ct_tuple *want)
{
	assert_memory_equal(got, want, sizeof(*want));
	assert_true(ct_tuple_equal(got, want));
	assert_int_equal(ct_tuple_hash(got, 7), ct_tuple_hash(want, 7));
}

/* inv is t's inverse, and t is inv's. */
static void
assert_inverse(const struct ct_tuple *t, const struct ct_tuple *want)
{
	struct ct_tuple inv, back;

	assert_true(ct_tuple_invert(t, &inv));
	assert_tuple(&inv, want);
	assert_true(ct_tuple_invert(&inv, &back));
	assert_tuple(&back, t);
}

static void
test_ipv4_ports(void **state)
{
	uint32_t a = htonl(IP_A), b4 = htonl(IP_B);
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_TCP };
	struct ct_packet p;
	struct ct_tuple want;
	struct fb b;

	for (unsigned i = 0; i < 2; i++) {
		fb_init(&b, frame, sizeof(frame));
		fb_eth(&b, ETH_P_IP);
		fb_ipv4(&b, IP_A, IP_B, protos[i]);
		if (protos[i] == IPPROTO_UDP)
			fb_udp(&b, 40000, 53);
		else
			fb_tcp(&b, 40000, 53, 1, 0, FB_SYN);
		assert_int_equal(parse(&b, AF_INET, 0x1234, &p), CT_PARSE_OK);
		want = named(AF_INET, &a, &b4, protos[i], 40000, 53, 0, 0,
			     0x1234);
		assert_tuple(&p.tuple, &want);
		want = named(AF_INET, &b4, &a, protos[i], 53, 40000, 0, 0,
			     0x1234);
		assert_inverse(&p.tuple, &want);
	}
}

static void
test_ipv6_ports(void **state)
{
	struct ct_packet p;
	struct ct_tuple want;
	struct fb b;

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IPV6);
	fb_ipv6(&b, ip6_a, ip6_b, IPPROTO_TCP);
	fb_tcp(&b, 1, 65535, 1, 0, FB_SYN);
	assert_int_equal(parse(&b, AF_INET6, 65535, &p), CT_PARSE_OK);
	want = named(AF_INET6, ip6_a, ip6_b, IPPROTO_TCP, 1, 65535, 0, 0,
		     65535);
	assert_tuple(&p.tuple, &want);
	want = named(AF_INET6, ip6_b, ip6_a, IPPROTO_TCP, 65535, 1, 0, 0,
		     65535);
	assert_inverse(&p.tuple, &want);
}

/* Echo requests: the id where the source port goes, the type and code,
 * the reply's type in the inverse and the same id. */
static void
test_icmp_echo(void **state)
{
	uint32_t a = htonl(IP_A), b4 = htonl(IP_B);
	struct icmphdr *ih;
	struct ct_packet p;
	struct ct_tuple want;
	struct fb b;

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, IP_A, IP_B, IPPROTO_ICMP);
	ih = fb_icmp(&b, 8, 0);
	ih->un.echo.id = htons(0x4242);
	assert_int_equal(parse(&b, AF_INET, 3, &p), CT_PARSE_OK);
	want = named(AF_INET, &a, &b4, IPPROTO_ICMP, 0x4242, 0, 8, 0, 3);
	assert_tuple(&p.tuple, &want);
	want = named(AF_INET, &b4, &a, IPPROTO_ICMP, 0x4242, 0, 0, 0, 3);
	assert_inverse(&p.tuple, &want);

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IPV6);
	fb_ipv6(&b, ip6_b, ip6_a, IPPROTO_ICMPV6);
	ih = fb_icmp(&b, 128, 0);
	ih->un.echo.id = htons(7);
	assert_int_equal(parse(&b, AF_INET6, 0, &p), CT_PARSE_OK);
	want = named(AF_INET6, ip6_b, ip6_a, IPPROTO_ICMPV6, 7, 0, 128, 0,
		     0);
	assert_tuple(&p.tuple, &want);
	want = named(AF_INET6, ip6_a, ip6_b, IPPROTO_ICMPV6, 7, 0, 129, 0,
		     0);
	assert_inverse(&p.tuple, &want);
}

/* A protocol without ports: addresses, protocol, family and zone. */
static void
test_no_ports(void **state)
{
	uint32_t a = htonl(IP_A), b4 = htonl(IP_B);
	struct ct_packet p;
	struct ct_tuple want;
	struct fb b;

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, IP_A, IP_B, IPPROTO_GRE);
	fb_put(&b, "\x00\x00\x65\x58", 4);
	assert_int_equal(parse(&b, AF_INET, 9, &p), CT_PARSE_OK);
	want = named(AF_INET, &a, &b4, IPPROTO_GRE, 0, 0, 0, 0, 9);
	assert_tuple(&p.tuple, &want);
	want = named(AF_INET, &b4, &a, IPPROTO_GRE, 0, 0, 0, 0, 9);
	assert_inverse(&p.tuple, &want);
}

/* An ICMP error: the tuple is the quoted packet's, as its sender sent
 * it; an error has no inverse. */
static void
test_icmp_error(void **state)
{
	uint32_t a = htonl(IP_A), b4 = htonl(IP_B);
	struct ct_tuple want, inv;
	uint8_t quote[28];
	struct ct_packet p;
	struct fb b, q;
	size_t qlen;

	fb_init(&q, quote, sizeof(quote));
	fb_ipv4(&q, IP_A, IP_B, IPPROTO_UDP);
	fb_udp(&q, 5000, 6000);
	qlen = fb_end(&q);

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, IP_B, IP_A, IPPROTO_ICMP);
	fb_icmp(&b, 3, 3);
	fb_put(&b, quote, qlen);
	assert_int_equal(parse(&b, AF_INET, 0, &p), CT_PARSE_ICMP_ERROR);
	want = named(AF_INET, &a, &b4, IPPROTO_UDP, 5000, 6000, 0, 0, 0);
	assert_tuple(&p.tuple, &want);

	want = named(AF_INET, &b4, &a, IPPROTO_ICMP, 0, 0, 3, 3, 0);
	assert_false(ct_tuple_invert(&want, &inv));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_ports),
		cmocka_unit_test(test_ipv6_ports),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_no_ports),
		cmocka_unit_test(test_icmp_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
