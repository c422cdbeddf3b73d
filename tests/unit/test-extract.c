/* SPDX-License-Identifier: Apache-2.0 */
/* Flow key extraction against what the kernel's key_extract() makes of the
 * same frames. Every frame is copied into a heap buffer of its exact size,
 * so the sanitizers catch any read past its end; every test compares the
 * whole key, so a field set by mistake fails as surely as one missed. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/openvswitch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flow/extract.h"
#include "tests/unit/builders.h"

#define NONE	FLOW_OFS_NONE
#define META	0xa5	/* the caller's metadata, and garbage to overwrite */

#define FRAME_MAX	128
#define A4	0x0a000001	/* 10.0.0.1 */
#define B4	0x0a000002	/* 10.0.0.2 */

static const uint8_t v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Begins a frame in f (FRAME_MAX bytes): Ethernet of this type. */
static struct fb
frame(uint8_t *f, uint16_t type)
{
	struct fb b;

	fb_init(&b, f, FRAME_MAX);
	fb_eth(&b, type);
	return b;
}

static int
extract(const uint8_t *frame, size_t len, struct flow_key *key,
	struct flow_layers *l)
{
	uint8_t *copy = fb_copy(frame, len);
	int err;

	memset(key, META, sizeof(*key));
	memset(l, 0, sizeof(*l));
	err = flow_extract(copy, len, key, l);
	free(copy);
	return err;
}

/* The key flow_extract() must leave for an Ethernet frame of this type
 * with nothing else parsed: metadata untouched, the rest zero. */
static void
expect_eth(struct flow_key *e, uint16_t type)
{
	const size_t l2 = offsetof(struct flow_key, eth_src);

	memset(e, META, l2);
	memset((char *)e + l2, 0, sizeof(*e) - l2);
	e->mac_proto = FLOW_MAC_ETHERNET;
	memcpy(e->eth_dst, fb_mac_dst, 6);
	memcpy(e->eth_src, fb_mac_src, 6);
	e->eth_type = htons(type);
}

static void
expect_ipv4(struct flow_key *e, uint8_t proto, uint8_t tos, uint8_t ttl,
	    uint8_t frag, uint32_t src, uint32_t dst)
{
	e->ip_proto = proto;
	e->ip_tos = tos;
	e->ip_ttl = ttl;
	e->ip_frag = frag;
	e->ipv4_src = htonl(src);
	e->ipv4_dst = htonl(dst);
}

static void
expect_ipv6(struct flow_key *e, uint8_t proto, uint8_t frag,
	    uint16_t exthdrs)
{
	e->ip_proto = proto;
	e->ip_ttl = 64;
	e->ip_frag = frag;
	memcpy(&e->ipv6_src, v6_src, 16);
	memcpy(&e->ipv6_dst, v6_dst, 16);
	e->ipv6_exthdrs = exthdrs;
}

static void
assert_layers(const struct flow_layers *l, uint16_t l2_5, uint16_t l3,
	      uint16_t l4)
{
	assert_int_equal(l->l2_5, l2_5);
	assert_int_equal(l->l3, l3);
	assert_int_equal(l->l4, l4);
}

/* TOS 0xb8, DF, TTL 64, 192.168.0.1 -> 192.168.0.2; TCP 12345 -> 80,
 * NS + SYN + ACK. */
static size_t
tcp4(uint8_t *f)
{
	struct fb b = frame(f, ETH_P_IP);
	struct iphdr *ip = fb_ipv4(&b, 0xc0a80001, 0xc0a80002, IPPROTO_TCP);
	struct tcphdr *th;

	ip->tos = 0xb8;
	ip->id = htons(0x1234);
	ip->frag_off = htons(0x4000);
	th = fb_tcp(&b, 12345, 80, 1, 0, FB_SYN | FB_ACK);
	((uint8_t *)th)[12] |= 0x01;
	return fb_end(&b);
}

static void
test_ipv4_tcp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;

	assert_int_equal(extract(f, tcp4(f), &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 6, 0xb8, 64, OVS_FRAG_TYPE_NONE, 0xc0a80001,
		    0xc0a80002);
	e.tp_src = htons(12345);
	e.tp_dst = htons(80);
	e.tcp_flags = htons(0x112);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 34);
}

static void
test_ipv4_tcp_bad_data_offset(void **state)
{
	uint8_t f[FRAME_MAX];
	size_t len = tcp4(f);
	struct flow_key k, e;
	struct flow_layers l;

	/* Data offset 4 (16 bytes) and 6 (beyond the frame): no L4. */
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 6, 0xb8, 64, OVS_FRAG_TYPE_NONE, 0xc0a80001,
		    0xc0a80002);
	f[46] = 0x41;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
	f[46] = 0x61;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 34);
}

/* Every prefix of a TCP frame: -EINVAL only without an Ethernet header,
 * then the IP fields once the IP header is whole, the ports and flags once
 * the TCP header is. */
static void
test_truncated_tcp(void **state)
{
	uint8_t f[FRAME_MAX];
	size_t whole = tcp4(f);
	struct flow_key k, e;
	struct flow_layers l;

	for (size_t len = 0; len <= whole; len++) {
		int err = extract(f, len, &k, &l);

		if (len < 14) {
			assert_int_equal(err, -EINVAL);
			assert_int_equal(k.eth_type, 0);
			assert_layers(&l, NONE, NONE, NONE);
			continue;
		}
		assert_int_equal(err, 0);
		expect_eth(&e, 0x0800);
		if (len >= 34)
			expect_ipv4(&e, 6, 0xb8, 64, OVS_FRAG_TYPE_NONE,
				    0xc0a80001, 0xc0a80002);
		if (len == whole) {
			e.tp_src = htons(12345);
			e.tp_dst = htons(80);
			e.tcp_flags = htons(0x112);
		}
		assert_memory_equal(&k, &e, sizeof(k));
		assert_layers(&l, NONE, 14, len >= 34 ? 34 : NONE);
	}
}

static void
test_ipv4_options_udp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_IP);
	struct iphdr *ip = fb_ipv4(&b, A4, B4, IPPROTO_UDP);
	struct flow_key k, e;
	struct flow_layers l;

	/* IHL 6: a 4-byte option (NOPs) before UDP 53 -> 5353 */
	ip->ttl = 1;
	ip->ihl = 6;
	fb_put(&b, "\x01\x01\x01\x00", 4);
	fb_udp(&b, 53, 5353);
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 17, 0, 1, OVS_FRAG_TYPE_NONE, 0x0a000001, 0x0a000002);
	e.tp_src = htons(53);
	e.tp_dst = htons(5353);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 38);
}

static void
test_ipv4_bad_ihl(void **state)
{
	uint8_t f[FRAME_MAX];
	size_t len = tcp4(f);
	struct flow_key k, e;
	struct flow_layers l;

	/* IHL 4 is below the fixed header, IHL 15 beyond the frame: the L3
	 * fields stay zero, the ethertype stays IPv4. */
	expect_eth(&e, 0x0800);
	f[14] = 0x44;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);
	f[14] = 0x4f;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_ipv4_sctp_and_other(void **state)
{
	/* SCTP 2905 -> 2906, verification tag, checksum */
	static const uint8_t sctp[] = {
		0x0b, 0x59, 0x0b, 0x5a, 1, 2, 3, 4, 5, 6, 7, 8,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_IP);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_ipv4(&b, A4, B4, IPPROTO_SCTP);
	fb_put(&b, sctp, sizeof(sctp));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 132, 0, 64, OVS_FRAG_TYPE_NONE, 0x0a000001,
		    0x0a000002);
	e.tp_src = htons(2905);
	e.tp_dst = htons(2906);
	assert_memory_equal(&k, &e, sizeof(k));

	/* SCTP one byte short, then GRE: protocol only. */
	assert_int_equal(extract(f, len - 1, &k, &l), 0);
	e.tp_src = e.tp_dst = 0;
	assert_memory_equal(&k, &e, sizeof(k));
	f[23] = 47;
	assert_int_equal(extract(f, len, &k, &l), 0);
	e.ip_proto = 47;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 34);
}

static void
test_ipv4_icmp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_IP);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_ipv4(&b, A4, B4, IPPROTO_ICMP);
	fb_icmp(&b, ICMP_DEST_UNREACH, ICMP_HOST_UNREACH);
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 1, 0, 64, OVS_FRAG_TYPE_NONE, 0x0a000001, 0x0a000002);
	e.tp_src = htons(3);
	e.tp_dst = htons(1);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 34);

	/* Seven bytes of ICMP: no type or code. */
	assert_int_equal(extract(f, len - 1, &k, &l), 0);
	e.tp_src = e.tp_dst = 0;
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_ipv4_fragments(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_IP);
	struct iphdr *ip = fb_ipv4(&b, A4, B4, IPPROTO_UDP);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	/* MF, offset 0 */
	ip->id = htons(0xabcd);
	ip->frag_off = htons(0x2000);
	fb_udp(&b, 1024, 2049);
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 17, 0, 64, OVS_FRAG_TYPE_FIRST, 0x0a000001,
		    0x0a000002);
	e.tp_src = htons(1024);
	e.tp_dst = htons(2049);
	assert_memory_equal(&k, &e, sizeof(k));

	/* Offset 185 (1480 bytes), MF: the bytes after the header are
	 * payload, not ports. */
	f[20] = 0x20;
	f[21] = 0xb9;
	assert_int_equal(extract(f, len, &k, &l), 0);
	e.ip_frag = OVS_FRAG_TYPE_LATER;
	e.tp_src = e.tp_dst = 0;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 34);

	/* The last fragment (no MF) is a later one too. */
	f[20] = 0x00;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
}

/* Who has 10.0.0.2, tell 10.0.0.1; Ethernet padding to 60 bytes. */
static size_t
arp_req(uint8_t *f)
{
	static const uint8_t arp[] = {
		0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01,
		0x02, 0, 0, 0, 0, 0x01, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
	};
	struct fb b = frame(f, ETH_P_ARP);

	fb_put(&b, arp, sizeof(arp));
	fb_put(&b, NULL, 60 - b.len);
	return fb_end(&b);
}

static void
test_arp_request(void **state)
{
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;

	assert_int_equal(extract(f, arp_req(f), &k, &l), 0);
	expect_eth(&e, 0x0806);
	e.ip_proto = 1;
	e.ipv4_src = htonl(0x0a000001);
	e.ipv4_dst = htonl(0x0a000002);
	memcpy(e.arp_sha, fb_mac_src, 6);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);
}

static void
test_arp_odd(void **state)
{
	uint8_t f[FRAME_MAX];
	size_t len = arp_req(f);
	struct flow_key k, e;
	struct flow_layers l;

	/* RARP reply with a 16-bit opcode: the addresses, opcode 0. */
	f[13] = 0x35;
	f[12] = 0x80;
	f[20] = 0x01;
	f[21] = 0x04;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x8035);
	e.ipv4_src = htonl(0x0a000001);
	e.ipv4_dst = htonl(0x0a000002);
	memcpy(e.arp_sha, fb_mac_src, 6);
	assert_memory_equal(&k, &e, sizeof(k));

	/* Not Ethernet/IPv4 (hardware length 8), or one byte short of the
	 * addresses: nothing but the ethertype. */
	arp_req(f);
	f[18] = 8;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0806);
	assert_memory_equal(&k, &e, sizeof(k));
	arp_req(f);
	assert_int_equal(extract(f, 14 + 27, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_vlan_single(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_8021Q);
	struct flow_key k, e;
	struct flow_layers l;

	fb_vlan(&b, 0x2064, ETH_P_IP);		/* PCP 1, VID 100 */
	fb_ipv4(&b, A4, B4, IPPROTO_UDP);
	fb_udp(&b, 7, 9);
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x0800);
	e.vlan.tpid = htons(0x8100);
	e.vlan.tci = htons(0x3064);
	expect_ipv4(&e, 17, 0, 64, OVS_FRAG_TYPE_NONE, 0x0a000001, 0x0a000002);
	e.tp_src = htons(7);
	e.tp_dst = htons(9);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 18, 38);
}

static void
test_vlan_double_and_third(void **state)
{
	/* 10.0.0.1 is at 02:00:00:00:00:01, to 10.0.0.2 */
	static const uint8_t reply[] = {
		0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x02,
		0x02, 0, 0, 0, 0, 0x01, 10, 0, 0, 1,
		0x02, 0, 0, 0, 0, 0x02, 10, 0, 0, 2,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_8021AD);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	/* S-tag VID 10, C-tag PCP 7 VID 5 with DEI set */
	fb_vlan(&b, 0x000a, ETH_P_8021Q);
	fb_vlan(&b, 0xf005, ETH_P_ARP);
	fb_put(&b, reply, sizeof(reply));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0806);
	e.vlan.tpid = htons(0x88a8);
	e.vlan.tci = htons(0x100a);
	e.cvlan.tpid = htons(0x8100);
	e.cvlan.tci = htons(0xf005);
	e.ip_proto = 2;
	e.ipv4_src = htonl(0x0a000001);
	e.ipv4_dst = htonl(0x0a000002);
	memcpy(e.arp_sha, fb_mac_src, 6);
	memcpy(e.arp_tha, fb_mac_dst, 6);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 22, NONE);

	/* A third tag is not parsed: its TPID is the ethertype. */
	f[20] = 0x81;
	f[21] = 0x00;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x8100);
	e.vlan.tpid = htons(0x88a8);
	e.vlan.tci = htons(0x100a);
	e.cvlan.tpid = htons(0x8100);
	e.cvlan.tci = htons(0xf005);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 22, NONE);
}

/* A tag needs its 4 bytes and the 2 of the next type; short of that the
 * TPID is taken as the ethertype. */
static void
test_vlan_truncated(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_8021Q);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_vlan(&b, 0x0005, ETH_P_8021Q);
	fb_vlan(&b, 0x0006, 0x88cc);
	len = fb_end(&b);

	for (size_t cut = 14; cut < 18; cut++) {
		assert_int_equal(extract(f, cut, &k, &l), 0);
		expect_eth(&e, 0x8100);
		assert_memory_equal(&k, &e, sizeof(k));
		assert_layers(&l, NONE, 14, NONE);
	}
	for (size_t cut = 18; cut < 22; cut++) {
		assert_int_equal(extract(f, cut, &k, &l), 0);
		expect_eth(&e, 0x8100);
		e.vlan.tpid = htons(0x8100);
		e.vlan.tci = htons(0x1005);
		assert_memory_equal(&k, &e, sizeof(k));
		assert_layers(&l, NONE, 18, NONE);
	}
	assert_int_equal(extract(f, len, &k, &l), 0);
	e.eth_type = htons(0x88cc);
	e.cvlan.tpid = htons(0x8100);
	e.cvlan.tci = htons(0x1006);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 22, NONE);
}

static void
test_mpls_two_labels(void **state)
{
	/* label 100 TTL 64; label 200 TC 5, bottom, TTL 63 */
	static const uint8_t labels[] = {
		0x00, 0x06, 0x40, 0x40, 0x00, 0x0c, 0x8b, 0x3f,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_MPLS_UC);
	struct flow_key k, e;
	struct flow_layers l;

	fb_put(&b, labels, sizeof(labels));
	fb_ipv4(&b, A4, B4, IPPROTO_UDP);
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x8847);
	e.mpls_lse[0] = htonl(0x00064040);
	e.mpls_lse[1] = htonl(0x000c8b3f);
	e.mpls_labels_mask = 3;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, 14, 22, NONE);

	/* Cut in the second label: the first is kept, the mask is not. */
	assert_int_equal(extract(f, 21, &k, &l), 0);
	e.mpls_lse[1] = 0;
	e.mpls_labels_mask = 0;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, 14, NONE, NONE);
}

static void
test_mpls_deep_stack(void **state)
{
	static const uint8_t labels[] = {
		0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x20, 0x02,
		0x00, 0x00, 0x30, 0x03, 0x00, 0x00, 0x41, 0x04,
		0xde, 0xad,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_MPLS_MC);
	struct flow_key k, e;
	struct flow_layers l;

	/* Four labels: the top three are kept. */
	fb_put(&b, labels, sizeof(labels));
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x8848);
	e.mpls_lse[0] = htonl(0x1001);
	e.mpls_lse[1] = htonl(0x2002);
	e.mpls_lse[2] = htonl(0x3003);
	e.mpls_labels_mask = 7;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, 14, 30, NONE);
}

/* Begins an IPv6 packet from v6_src to v6_dst in f. */
static struct fb
ipv6(uint8_t *f, uint8_t next)
{
	struct fb b = frame(f, ETH_P_IPV6);

	fb_ipv6(&b, v6_src, v6_dst, next);
	return b;
}

static void
test_ipv6_tcp(void **state)
{
	/* NOP, NOP, timestamps */
	static const uint8_t options[] = {
		0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 2,
	};
	/* version 6, traffic class 0xab, flow label 0x12345 */
	const uint32_t vtf = htonl(0x6ab12345);
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_IPV6);
	struct ipv6hdr *ip = fb_ipv6(&b, v6_src, v6_dst, IPPROTO_TCP);
	struct flow_key k, e;
	struct flow_layers l;
	struct tcphdr *th;
	size_t len;

	memcpy(ip, &vtf, 4);
	ip->hop_limit = 255;
	/* 443 -> 50000, data offset 8 (an options block), FIN + ACK */
	th = fb_tcp(&b, 443, 50000, 1, 0, FB_FIN | FB_ACK);
	th->doff = 8;
	fb_put(&b, options, sizeof(options));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 6, OVS_FRAG_TYPE_NONE, 0);
	e.ip_tos = 0xab;
	e.ip_ttl = 255;
	e.ipv6_label = htonl(0x12345);
	e.tp_src = htons(443);
	e.tp_dst = htons(50000);
	e.tcp_flags = htons(0x011);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 54);

	/* The options block cut short: no ports. */
	assert_int_equal(extract(f, len - 1, &k, &l), 0);
	e.tp_src = e.tp_dst = e.tcp_flags = 0;
	assert_memory_equal(&k, &e, sizeof(k));

	/* A short IPv6 header: nothing past the ethertype. */
	assert_int_equal(extract(f, 53, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);
}

static void
test_ipv6_hop_and_fragment(void **state)
{
	static const uint8_t exthdrs[] = {
		/* hop-by-hop: PadN */
		44, 0, 0x01, 0x04, 0, 0, 0, 0,
		/* fragment: offset 0, M, id */
		17, 0, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = ipv6(f, IPPROTO_HOPOPTS);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_put(&b, exthdrs, sizeof(exthdrs));
	fb_udp(&b, 53, 68);
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 17, OVS_FRAG_TYPE_FIRST,
		    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_FRAG);
	e.tp_src = htons(53);
	e.tp_dst = htons(68);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 70);

	/* Offset 100: a later fragment, with the fragment header as its
	 * protocol. */
	f[64] = 0x03;
	f[65] = 0x20;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 44, OVS_FRAG_TYPE_LATER,
		    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_FRAG);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	/* A later fragment followed by an extension header: the kernel's
	 * walk gives up without the offset, so the key says first fragment,
	 * no next header. The flag walk goes on into the payload, whose
	 * first byte (0) reads as a second hop-by-hop header. */
	f[62] = 60;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 59, OVS_FRAG_TYPE_FIRST,
		    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_FRAG |
		    FLOW_IPV6_EXTHDR_DEST | FLOW_IPV6_EXTHDR_UNSEQ |
		    FLOW_IPV6_EXTHDR_UNREP);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	/* The fragment header cut before its offset: first fragment, no
	 * next header. */
	f[62] = 17;
	assert_int_equal(extract(f, 14 + 40 + 8 + 3, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 59, OVS_FRAG_TYPE_FIRST,
		    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_FRAG);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_ipv6_exthdr_flags(void **state)
{
	/* Routing, hop-by-hop, routing again, no next header. */
	static const uint8_t disorder[] = {
		0, 0, 0, 0, 0, 0, 0, 0,
		43, 0, 0x01, 0x04, 0, 0, 0, 0,
		59, 0, 0, 0, 0, 0, 0, 0,
	};
	/* Destination, routing, destination: the order RFC 2460 wants. */
	static const uint8_t inorder[] = {
		43, 0, 0x01, 0x04, 0, 0, 0, 0,
		60, 0, 0, 0, 0, 0, 0, 0,
		17, 0, 0x01, 0x04, 0, 0, 0, 0,
	};
	/* AH (12 bytes) then destination options ending the chain. The
	 * kernel's flag walk steps over AH as if 16 bytes long, lands in the
	 * options' padding (a zero: hop-by-hop) and never sees "no next
	 * header", while the protocol walk finds it. */
	static const uint8_t ah[] = {
		60, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
		59, 0, 0x01, 0x04, 0, 0, 0, 0,
	};
	/* ESP: not an extension header to the kernel. */
	static const uint8_t esp[] = {
		0, 0, 0, 1, 0, 0, 0, 1,
	};
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;
	struct fb b;
	size_t len;

	b = ipv6(f, IPPROTO_ROUTING);
	fb_put(&b, disorder, sizeof(disorder));
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 59, OVS_FRAG_TYPE_NONE,
		    FLOW_IPV6_EXTHDR_ROUTER | FLOW_IPV6_EXTHDR_UNSEQ |
		    FLOW_IPV6_EXTHDR_UNREP | FLOW_IPV6_EXTHDR_NONEXT);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 78);

	b = ipv6(f, IPPROTO_DSTOPTS);
	fb_put(&b, inorder, sizeof(inorder));
	fb_udp(&b, 1, 2);
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 17, OVS_FRAG_TYPE_NONE,
		    FLOW_IPV6_EXTHDR_DEST | FLOW_IPV6_EXTHDR_ROUTER);
	e.tp_src = htons(1);
	e.tp_dst = htons(2);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 78);

	b = ipv6(f, IPPROTO_AH);
	fb_put(&b, ah, sizeof(ah));
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 59, OVS_FRAG_TYPE_NONE,
		    FLOW_IPV6_EXTHDR_AUTH | FLOW_IPV6_EXTHDR_DEST |
		    FLOW_IPV6_EXTHDR_UNSEQ);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 74);

	b = ipv6(f, IPPROTO_ESP);
	fb_put(&b, esp, sizeof(esp));
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 50, OVS_FRAG_TYPE_NONE, 0);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 54);

	/* The routing header's length runs past the frame: the flags are
	 * kept, the protocol is "no next header" and there is no L4. */
	b = ipv6(f, IPPROTO_DSTOPTS);
	fb_put(&b, inorder, sizeof(inorder));
	fb_udp(&b, 1, 2);
	fb_end(&b);
	assert_int_equal(extract(f, 14 + 40 + 8 + 4, &k, &l), 0);
	expect_eth(&e, 0x86dd);
	expect_ipv6(&e, 59, OVS_FRAG_TYPE_NONE,
		    FLOW_IPV6_EXTHDR_DEST | FLOW_IPV6_EXTHDR_ROUTER);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);
}

static const uint8_t ll_a[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t mc[16] = { 0xff, 0x02, [11] = 1, 0xff, 0, 0, 2 };
static const uint8_t ll_b[16] = { 0xfe, 0x80, [15] = 2 };

/* A neighbour solicitation fe80::1 -> ff02::1:ff00:2 for fe80::2 with
 * these options, in f; its length. */
static size_t
ns(uint8_t *f, const void *options, size_t len)
{
	struct fb b = frame(f, ETH_P_IPV6);

	fb_ipv6(&b, ll_a, mc, IPPROTO_ICMPV6)->hop_limit = 255;
	fb_icmp(&b, 135, 0);
	fb_put(&b, ll_b, 16);
	fb_put(&b, options, len);
	return fb_end(&b);
}

static void
expect_ns(struct flow_key *e)
{
	expect_eth(e, 0x86dd);
	e->ip_proto = 58;
	e->ip_ttl = 255;
	memcpy(&e->ipv6_src, ll_a, 16);
	memcpy(&e->ipv6_dst, mc, 16);
	e->tp_src = htons(135);
}

static void
test_nd_solicitation_sll(void **state)
{
	/* an unknown option first, then the source link-layer address */
	static const uint8_t options[] = {
		14, 1, 0, 0, 0, 0, 0, 0,
		1, 1, 0x02, 0, 0, 0, 0, 0x01,
	};
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;

	assert_int_equal(extract(f, ns(f, options, sizeof(options)), &k, &l),
			 0);
	expect_ns(&e);
	memcpy(&e.nd_target, ll_b, 16);
	memcpy(e.nd_sll, fb_mac_src, 6);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, 54);

	/* No room for the target: type and code only. */
	assert_int_equal(extract(f, 14 + 40 + 23, &k, &l), 0);
	expect_ns(&e);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_nd_advert_tll(void **state)
{
	/* target link-layer address, then a 16-byte one, ignored */
	static const uint8_t options[] = {
		2, 1, 0x02, 0, 0, 0, 0, 0x02,
		2, 2, 0x02, 0, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t f[FRAME_MAX];
	size_t len = ns(f, options, sizeof(options));
	struct flow_key k, e;
	struct flow_layers l;

	f[54] = 136;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_ns(&e);
	e.tp_src = htons(136);
	memcpy(&e.nd_target, ll_b, 16);
	memcpy(e.nd_tll, fb_mac_dst, 6);
	assert_memory_equal(&k, &e, sizeof(k));

	/* Code 1: not neighbour discovery. */
	f[55] = 1;
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_ns(&e);
	e.tp_src = htons(136);
	e.tp_dst = htons(1);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_nd_malformed(void **state)
{
	/* Two source addresses: the kernel voids target and addresses. */
	static const uint8_t twice[] = {
		1, 1, 0x02, 0, 0, 0, 0, 0x01,
		2, 1, 0x02, 0, 0, 0, 0, 0x02,
		1, 1, 0x02, 0, 0, 0, 0, 0x03,
	};
	/* A zero-length option ends the walk, keeping what was found. */
	static const uint8_t zero_len[] = {
		1, 1, 0x02, 0, 0, 0, 0, 0x01,
		2, 0, 0x02, 0, 0, 0, 0, 0x02,
		2, 1, 0x02, 0, 0, 0, 0, 0x02,
	};
	/* An option longer than the message: the same. */
	static const uint8_t too_long[] = {
		2, 1, 0x02, 0, 0, 0, 0, 0x02,
		1, 3, 0x02, 0, 0, 0, 0, 0x01,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* A first all-zero address does not count as one. */
	static const uint8_t zero_first[] = {
		1, 1, 0, 0, 0, 0, 0, 0,
		1, 1, 0x02, 0, 0, 0, 0, 0x01,
	};
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;

	assert_int_equal(extract(f, ns(f, twice, sizeof(twice)), &k, &l), 0);
	expect_ns(&e);
	assert_memory_equal(&k, &e, sizeof(k));

	assert_int_equal(extract(f, ns(f, zero_len, sizeof(zero_len)), &k, &l),
			 0);
	memcpy(&e.nd_target, ll_b, 16);
	memcpy(e.nd_sll, fb_mac_src, 6);
	assert_memory_equal(&k, &e, sizeof(k));

	assert_int_equal(extract(f, ns(f, too_long, sizeof(too_long)), &k, &l),
			 0);
	expect_ns(&e);
	memcpy(&e.nd_target, ll_b, 16);
	memcpy(e.nd_tll, fb_mac_dst, 6);
	assert_memory_equal(&k, &e, sizeof(k));

	assert_int_equal(extract(f, ns(f, zero_first, sizeof(zero_first)), &k,
				 &l), 0);
	expect_ns(&e);
	memcpy(&e.nd_target, ll_b, 16);
	memcpy(e.nd_sll, fb_mac_src, 6);
	assert_memory_equal(&k, &e, sizeof(k));
}

static void
test_llc_and_snap(void **state)
{
	/* LLC for STP (0x42) */
	static const uint8_t llc[] = {
		0x42, 0x42, 0x03, 0, 0, 0, 0, 0, 0, 0,
	};
	/* SNAP, zero OUI, IPv4 inside */
	static const uint8_t snap_ip[] = {
		0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00,
	};
	/* SNAP, Cisco's OUI */
	static const uint8_t snap_cisco[] = {
		0xaa, 0xaa, 0x03, 0x00, 0x00, 0x0c, 0x20, 0x00,
	};
	uint8_t f[FRAME_MAX];
	struct flow_key k, e;
	struct flow_layers l;
	struct fb b;
	size_t len;

	/* 802.3 lengths in the type field */
	b = frame(f, 0x26);
	fb_put(&b, llc, sizeof(llc));
	assert_int_equal(extract(f, fb_end(&b), &k, &l), 0);
	expect_eth(&e, 0x0004);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	b = frame(f, 0x2e);
	fb_put(&b, snap_ip, sizeof(snap_ip));
	fb_ipv4(&b, A4, B4, IPPROTO_UDP);
	fb_udp(&b, 7, 9);
	len = fb_end(&b);
	/* Under 8 bytes of LLC: 802.2 whatever they say. */
	assert_int_equal(extract(f, 14 + 7, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0800);
	expect_ipv4(&e, 17, 0, 64, OVS_FRAG_TYPE_NONE, 0x0a000001, 0x0a000002);
	e.tp_src = htons(7);
	e.tp_dst = htons(9);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 22, 42);

	/* A non-zero OUI (Cisco): 802.2, the SNAP header is the payload. */
	b = frame(f, 0x26);
	fb_put(&b, snap_cisco, sizeof(snap_cisco));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x0004);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	/* Zero OUI with a length for the type: 802.2, but the SNAP header
	 * is skipped. */
	f[19] = 0;
	f[20] = 0x01;
	f[21] = 0x00;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 22, NONE);
}

static void
test_nsh(void **state)
{
	/* version 0, length 3 words, MD type 2, next protocol */
	static const uint8_t nsh[] = {
		0x00, 0x03, 0x02, 0x03, 0x00, 0x00, 0x01, 0xff,
		0x00, 0x00, 0x00, 0x00,
	};
	uint8_t f[FRAME_MAX];
	struct fb b = frame(f, ETH_P_NSH);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_put(&b, nsh, sizeof(nsh));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, 0x894f);
	/* The base header; an MD type 2 context is not in the key. */
	e.nsh.base.mdtype = 2;
	e.nsh.base.np = 3;
	e.nsh.base.path_hdr = htonl(0x000001ff);
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	/* Too short for its length, too short for the base header, a
	 * version of 1, MD type 1 not 24 bytes long: dropped. */
	assert_int_equal(extract(f, len - 1, &k, &l), -EINVAL);
	assert_int_equal(extract(f, 14 + 7, &k, &l), -EINVAL);
	f[14] = 0x40;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
	f[14] = 0xc0;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
	f[14] = 0x00;
	f[16] = 0x01;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
	/* MD type 2 of any length the frame holds, even shorter than the
	 * base header (the kernel checks only that the frame has that). */
	f[16] = 0x02;
	f[15] = 0x00;
	assert_int_equal(extract(f, len, &k, &l), 0);
	assert_int_equal(k.nsh.base.path_hdr, htonl(0x000001ff));
}

/* MD type 1: flags, TTL, the path and the context in the key, as an
 * Ethernet frame and as an L3 packet (after a push_nsh); the MD type
 * byte taken whole, as the kernel does. */
static void
test_nsh_md1(void **state)
{
	/* flags 2, TTL 63, length 6 words; MD type 1, next IPv4; path
	 * 0x123456, index 7; context. */
	static const uint8_t nsh[] = {
		0x2f, 0xc6, 0x01, 0x01, 0x12, 0x34, 0x56, 0x07,
		0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
		0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44,
	};
	uint8_t f[FRAME_MAX], *copy;
	struct fb b = frame(f, ETH_P_NSH);
	struct flow_key k, e;
	struct flow_layers l;
	size_t len;

	fb_put(&b, nsh, sizeof(nsh));
	len = fb_end(&b);
	assert_int_equal(extract(f, len, &k, &l), 0);
	expect_eth(&e, ETH_P_NSH);
	e.nsh.base.flags = 2;
	e.nsh.base.ttl = 63;
	e.nsh.base.mdtype = 1;
	e.nsh.base.np = 1;
	e.nsh.base.path_hdr = htonl(0x12345607);
	for (int i = 0; i < 4; i++)
		e.nsh.context[i] = htonl(0x11111111u * (i + 1));
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 14, NONE);

	/* The same header as an L3 packet. */
	copy = fb_copy(nsh, sizeof(nsh));
	memset(&k, META, sizeof(k));
	assert_int_equal(flow_extract_l3(copy, sizeof(nsh), htons(ETH_P_NSH),
					 &k, &l), 0);
	free(copy);
	memset(e.eth_src, 0, 6);
	memset(e.eth_dst, 0, 6);
	e.mac_proto = FLOW_MAC_NONE;
	assert_memory_equal(&k, &e, sizeof(k));
	assert_layers(&l, NONE, 0, NONE);

	/* MD type 1 is 24 bytes long: 28 (and the frame that long) fails,
	 * as does a context cut short. */
	f[15] = 0xc7;
	fb_put(&b, "\0\0\0\0", 4);
	assert_int_equal(extract(f, fb_end(&b), &k, &l), -EINVAL);
	f[15] = 0xc6;
	assert_int_equal(extract(f, len - 1, &k, &l), -EINVAL);
	/* MD types 0, 3 and 0x11 (the reserved nibble set) are unknown. */
	f[16] = 0x00;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
	f[16] = 0x03;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
	f[16] = 0x11;
	assert_int_equal(extract(f, len, &k, &l), -EINVAL);
}

/* The caller's metadata survives, whatever it holds. */
static void
test_metadata_kept(void **state)
{
	uint8_t f[FRAME_MAX];
	size_t len = tcp4(f);
	struct flow_layers l;
	struct flow_key k;
	uint8_t *copy = malloc(len);

	assert_non_null(copy);
	memcpy(copy, f, len);
	memset(&k, 0x3c, sizeof(k));
	k.mac_proto = FLOW_MAC_NONE;
	assert_int_equal(flow_extract(copy, len, &k, &l), 0);
	free(copy);
	assert_int_equal(k.priority, 0x3c3c3c3c);
	assert_int_equal(k.in_port, 0x3c3c3c3c);
	assert_int_equal(k.ct_zone, 0x3c3c);
	assert_int_equal(k.ct_labels[15], 0x3c);
	assert_int_equal(k.mac_proto, FLOW_MAC_ETHERNET);
	assert_int_equal(k.ct_orig_tp_dst, 0x3c3c);	/* metadata: kept */
	assert_int_equal(k.nd_tll[5], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_tcp),
		cmocka_unit_test(test_ipv4_tcp_bad_data_offset),
		cmocka_unit_test(test_truncated_tcp),
		cmocka_unit_test(test_ipv4_options_udp),
		cmocka_unit_test(test_ipv4_bad_ihl),
		cmocka_unit_test(test_ipv4_sctp_and_other),
		cmocka_unit_test(test_ipv4_icmp),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_arp_request),
		cmocka_unit_test(test_arp_odd),
		cmocka_unit_test(test_vlan_single),
		cmocka_unit_test(test_vlan_double_and_third),
		cmocka_unit_test(test_vlan_truncated),
		cmocka_unit_test(test_mpls_two_labels),
		cmocka_unit_test(test_mpls_deep_stack),
		cmocka_unit_test(test_ipv6_tcp),
		cmocka_unit_test(test_ipv6_hop_and_fragment),
		cmocka_unit_test(test_ipv6_exthdr_flags),
		cmocka_unit_test(test_nd_solicitation_sll),
		cmocka_unit_test(test_nd_advert_tll),
		cmocka_unit_test(test_nd_malformed),
		cmocka_unit_test(test_llc_and_snap),
		cmocka_unit_test(test_nsh),
		cmocka_unit_test(test_nsh_md1),
		cmocka_unit_test(test_metadata_kept),
	};

	return cmocka_run_group_tests_name("extract", tests, NULL, NULL);
}
