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

static const uint32_t ip4[2] = { IP_A, IP_B };
static const uint8_t ip6[2][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	{ 0xfe, 0x80, [8] = 0x12, [15] = 0xfe },
};
static const int families[2] = { AF_INET, AF_INET6 };

static uint8_t frame[512];

/* A frame of family from host a to host b (0 or 1) carrying proto. */
static void
start(struct fb *fb, int family, int a, int b, uint8_t proto)
{
	fb_init(fb, frame, sizeof(frame));
	if (family == AF_INET) {
		fb_eth(fb, ETH_P_IP);
		fb_ipv4(fb, ip4[a], ip4[b], proto);
	} else {
		fb_eth(fb, ETH_P_IPV6);
		fb_ipv6(fb, ip6[a], ip6[b], proto);
	}
}

/* Parses the frame fb built (its last IP header), into p. */
static enum ct_parse_result
parse(struct fb *fb, int family, uint16_t zone, struct ct_packet *p)
{
	size_t len = fb_end(fb);

	return ct_packet_parse(frame + fb->l3, len - fb->l3, family, zone,
			       false, p);
}

/* The tuple its fields name, from host a to host b, every other byte
 * zero. */
static struct ct_tuple
named(int family, int a, int b, uint8_t proto, uint16_t sport,
      uint16_t dport, uint8_t type, uint8_t code, uint16_t zone)
{
	struct ct_tuple t;

	memset(&t, 0, sizeof(t));
	t.family = family;
	if (family == AF_INET) {
		t.src.ip = htonl(ip4[a]);
		t.dst.ip = htonl(ip4[b]);
	} else {
		memcpy(&t.src.ip6, ip6[a], 16);
		memcpy(&t.dst.ip6, ip6[b], 16);
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

/* The packet parsed as want, whose inverse is inv, and inv's is want. */
static void
assert_parsed(struct fb *fb, const struct ct_tuple *want,
	      const struct ct_tuple *inv)
{
	struct ct_tuple got, back;
	struct ct_packet p;

	assert_int_equal(parse(fb, want->family, want->zone, &p),
			 CT_PARSE_OK);
	assert_tuple(&p.tuple, want);
	assert_true(ct_tuple_invert(&p.tuple, &got));
	assert_tuple(&got, inv);
	assert_true(ct_tuple_invert(&got, &back));
	assert_tuple(&back, want);
}

/* UDP and TCP, both families, zones from 0 to the largest. */
static void
test_ports(void **state)
{
	static const struct {
		uint8_t proto;
		uint16_t sport, dport, zone;
	} cases[] = {
		{ IPPROTO_UDP, 40000, 53, 0 },
		{ IPPROTO_TCP, 1, 65535, 0x1234 },
		{ IPPROTO_UDP, 65535, 1, 65535 },
	};
	struct ct_tuple want, inv;
	struct fb fb;

	for (unsigned f = 0; f < 2; f++) {
		for (unsigned i = 0; i < 3; i++) {
			uint16_t sp = cases[i].sport, dp = cases[i].dport;
			uint8_t proto = cases[i].proto;

			start(&fb, families[f], 0, 1, proto);
			if (proto == IPPROTO_UDP)
				fb_udp(&fb, sp, dp);
			else
				fb_tcp(&fb, sp, dp, 1, 0, FB_SYN);
			want = named(families[f], 0, 1, proto, sp, dp, 0, 0,
				     cases[i].zone);
			inv = named(families[f], 1, 0, proto, dp, sp, 0, 0,
				    cases[i].zone);
			assert_parsed(&fb, &want, &inv);
		}
	}
}

/* Echo requests: the id where the source port goes, the type and code;
 * the inverse has the reply's type and the same id. */
static void
test_icmp_echo(void **state)
{
	static const uint8_t proto[2] = { IPPROTO_ICMP, IPPROTO_ICMPV6 };
	static const uint8_t req[2] = { 8, 128 }, rep[2] = { 0, 129 };
	struct ct_tuple want, inv;
	struct icmphdr *ih;
	struct fb fb;

	for (unsigned f = 0; f < 2; f++) {
		start(&fb, families[f], 1, 0, proto[f]);
		ih = fb_icmp(&fb, req[f], 0);
		ih->un.echo.id = htons(0x4242);
		want = named(families[f], 1, 0, proto[f], 0x4242, 0, req[f],
			     0, 3);
		inv = named(families[f], 0, 1, proto[f], 0x4242, 0, rep[f],
			    0, 3);
		assert_parsed(&fb, &want, &inv);
	}
}

/* A protocol without ports: addresses, protocol, family and zone. */
static void
test_no_ports(void **state)
{
	struct ct_tuple want, inv;
	struct fb fb;

	for (unsigned f = 0; f < 2; f++) {
		start(&fb, families[f], 0, 1, IPPROTO_GRE);
		fb_put(&fb, "\x00\x00\x65\x58", 4);
		want = named(families[f], 0, 1, IPPROTO_GRE, 0, 0, 0, 0, 9);
		inv = named(families[f], 1, 0, IPPROTO_GRE, 0, 0, 0, 0, 9);
		assert_parsed(&fb, &want, &inv);
	}
}

/* An ICMP error: the tuple is the quoted packet's, as its sender sent
 * it; an error has no inverse. */
static void
test_icmp_error(void **state)
{
	struct ct_tuple want, inv;
	uint8_t quote[28];
	struct ct_packet p;
	struct fb fb, q;
	size_t qlen;

	fb_init(&q, quote, sizeof(quote));
	fb_ipv4(&q, IP_A, IP_B, IPPROTO_UDP);
	fb_udp(&q, 5000, 6000);
	qlen = fb_end(&q);

	start(&fb, AF_INET, 1, 0, IPPROTO_ICMP);
	fb_icmp(&fb, 3, 3);
	fb_put(&fb, quote, qlen);
	assert_int_equal(parse(&fb, AF_INET, 0, &p), CT_PARSE_ICMP_ERROR);
	want = named(AF_INET, 0, 1, IPPROTO_UDP, 5000, 6000, 0, 0, 0);
	assert_tuple(&p.tuple, &want);

	want = named(AF_INET, 1, 0, IPPROTO_ICMP, 0, 0, 3, 3, 0);
	assert_false(ct_tuple_invert(&want, &inv));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_no_ports),
		cmocka_unit_test(test_icmp_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
