/* SPDX-License-Identifier: Apache-2.0 */
/* Software segmentation (packet/gso.h): TCP over IPv4 and IPv6 (VLAN tags,
 * IPv6 extension headers, TCP options, no Ethernet at all), UDP GSO, the
 * size override, a frame without GSO, and every lie a virtio-net header
 * can tell. Each segment is checked whole: its payload is the frame's next
 * share, its headers are the frame's but for the fields segmentation sets,
 * which are as the kernel sets them, and its checksums verify by the
 * builders' own sums (tests/unit/builders.h), not packet/csum.c's. Frames
 * and segments are heap buffers of their exact length, so that the
 * sanitizers catch a byte read or written past them. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "packet/frame.h"
#include "packet/gso.h"
#include "packet/headers.h"
#include "packet/offload.h"
#include "tests/unit/builders.h"

#define MSS		1448
#define SEQ		0xfffff000u	/* wraps within a 64 KiB frame */
#define IP_ID		0xfffe		/* wraps too */

static const uint8_t ip6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* What a test frame is made of. */
struct spec {
	bool v6;
	bool udp;
	bool l3;		/* no Ethernet header */
	unsigned tags;		/* VLAN tags */
	bool nsh;		/* in NSH (MD type 1) and an inner Ethernet */
	unsigned labels;	/* MPLS labels behind the Ethernet header */
	bool mpls_eth;		/* ...and an inner Ethernet under them */
	bool exthdrs;		/* IPv6: hop-by-hop and destination options */
	bool tcp_opts;		/* 12 bytes of TCP options */
	uint8_t flags;		/* TCP */
	uint32_t payload;
};

struct frame {
	uint8_t *f;		/* heap, len bytes */
	size_t len;
	uint32_t l3, l4, hlen;
	bool v6;
	uint8_t proto;
};

static uint8_t
pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + i / 251);
}

/* The frame the spec says, with its checksums complete. */
static struct frame
build(const struct spec *s)
{
	static uint8_t buf[FRAME_MAX];
	struct frame fr = { .v6 = s->v6 };
	uint8_t *payload;
	struct fb b;

	fb_init(&b, buf, sizeof(buf));
	if (!s->l3) {
		uint16_t type = s->v6 ? ETH_P_IPV6 : ETH_P_IP;

		/* length 6 words, MD type 1, next protocol Ethernet */
		static const uint8_t nsh[24] = { 0x0f, 0xc6, 1, 3, 0, 0, 1,
						 0xff, [23] = 9 };

		if (s->nsh) {
			fb_eth(&b, ETH_P_NSH);
			fb_put(&b, nsh, sizeof(nsh));
		}
		if (s->labels) {
			fb_eth(&b, ETH_P_MPLS_UC);
			for (unsigned i = 0; i < s->labels; i++) {
				uint32_t lse = (100 + i) << 12 | 64;

				if (i + 1 == s->labels)
					lse |= MPLS_LSE_BOS;
				lse = htonl(lse);
				fb_put(&b, &lse, sizeof(lse));
			}
		}
		/* Under labels, IP may follow the bottom one directly. */
		if (!s->labels || s->mpls_eth)
			fb_eth(&b, s->tags ? ETH_P_8021AD : type);
		for (unsigned i = 0; i < s->tags; i++)
			fb_vlan(&b, 100 + i,
				i + 1 < s->tags ? ETH_P_8021Q : type);
	}
	fr.l3 = b.len;
	fr.proto = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
	if (s->v6) {
		static const uint8_t hbh[8] = { IPPROTO_DSTOPTS, 0, 1, 4 };
		static const uint8_t dst[8] = { IPPROTO_TCP, 0, 1, 4 };
		uint8_t d[8];

		fb_ipv6(&b, ip6_src, ip6_dst,
			s->exthdrs ? IPPROTO_HOPOPTS : fr.proto);
		if (s->exthdrs) {
			memcpy(d, dst, sizeof(d));
			d[0] = fr.proto;
			fb_put(&b, hbh, sizeof(hbh));
			fb_put(&b, d, sizeof(d));
		}
	} else {
		struct iphdr *ip = fb_ipv4(&b, 0x0a000001, 0x0a000002,
					   fr.proto);

		ip->id = htons(IP_ID);
		ip->frag_off = htons(0x4000);	/* DF */
		ip->tos = 0x02;			/* ECT(0) */
	}
	fr.l4 = b.len;
	if (s->udp) {
		fb_udp(&b, 4000, 5000);
	} else {
		struct tcphdr *th = fb_tcp(&b, 40000, 80, SEQ, 0x12345678,
					   s->flags);

		if (s->tcp_opts) {
			static const uint8_t ts[12] = { 1, 1, 8, 10, 1, 2, 3,
							4, 5, 6, 7, 8 };

			th->doff = 8;
			fb_put(&b, ts, sizeof(ts));
		}
	}
	fr.hlen = b.len;
	payload = fb_put(&b, NULL, s->payload);
	for (uint32_t i = 0; i < s->payload; i++)
		payload[i] = pattern(i);
	fr.len = fb_end(&b);
	fr.f = malloc(fr.len);
	assert_non_null(fr.f);
	memcpy(fr.f, buf, fr.len);
	return fr;
}

static void
frame_free(struct frame *fr)
{
	free(fr->f);
}

/* The pseudo-header of the segment's transport (l4len bytes) followed by
 * the transport itself, summed: 0xffff when its checksum is right. */
static uint16_t
l4_sum(const uint8_t *seg, const struct frame *fr, uint32_t l4len,
       bool with_l4)
{
	static uint8_t tmp[40 + FRAME_MAX];
	const uint8_t *ip = seg + fr->l3;
	size_t n;

	if (fr->v6) {
		memcpy(tmp, ip + 8, 32);
		tmp[32] = l4len >> 24;
		tmp[33] = l4len >> 16;
		tmp[34] = l4len >> 8;
		tmp[35] = l4len;
		tmp[36] = tmp[37] = tmp[38] = 0;
		tmp[39] = fr->proto;
		n = 40;
	} else {
		memcpy(tmp, ip + 12, 8);
		tmp[8] = 0;
		tmp[9] = fr->proto;
		tmp[10] = l4len >> 8;
		tmp[11] = l4len;
		n = 12;
	}
	if (with_l4) {
		memcpy(tmp + n, seg + fr->l4, l4len);
		n += l4len;
	}
	return fb_sum(tmp, n);
}

static uint16_t
be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static uint32_t
csum_field(const struct frame *fr)
{
	return fr->proto == IPPROTO_TCP ? 16 : 6;
}

/* The request a sender makes for the frame: a partial checksum whose
 * field holds the pseudo-header sum (the whole transport's length), as
 * the kernel leaves it. */
static struct virtio_net_hdr
request(const struct frame *fr, uint8_t gso_type, uint16_t gso_size)
{
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = gso_type,
		.hdr_len = fr->hlen,
		.gso_size = gso_size,
		.csum_start = fr->l4,
		.csum_offset = csum_field(fr),
	};

	put16(fr->f + fr->l4 + csum_field(fr),
	      l4_sum(fr->f, fr, fr->len - fr->l4, false));
	return vh;
}

static uint8_t
tcp_type(const struct frame *fr)
{
	return fr->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
}

/* Checks segment i (len bytes, payload at off in the frame, n bytes, of
 * count) against the frame. */
static void
check_segment(const struct frame *fr, const uint8_t *seg, uint32_t len,
	      uint32_t off, uint32_t n, unsigned i, unsigned count)
{
	uint8_t *hdrs = malloc(fr->hlen);
	uint8_t *ip = hdrs + fr->l3, *l4 = hdrs + fr->l4;

	assert_int_equal(len, fr->hlen + n);
	assert_memory_equal(seg + fr->hlen, fr->f + off, n);
	assert_non_null(hdrs);
	memcpy(hdrs, seg, fr->hlen);
	if (fr->v6) {
		assert_int_equal(be16(ip + 4), len - fr->l3 - 40);
		memcpy(ip + 4, fr->f + fr->l3 + 4, 2);
	} else {
		assert_int_equal(be16(ip + 2), len - fr->l3);
		assert_int_equal(be16(ip + 4), (uint16_t)(IP_ID + i));
		assert_int_equal(fb_sum(ip, (ip[0] & 0xf) * 4), 0xffff);
		memcpy(ip + 2, fr->f + fr->l3 + 2, 4);	/* length, id */
		memcpy(ip + 10, fr->f + fr->l3 + 10, 2);
	}
	assert_int_equal(l4_sum(seg, fr, len - fr->l4, true), 0xffff);
	if (fr->proto == IPPROTO_TCP) {
		uint8_t flags = fr->f[fr->l4 + 13];

		assert_int_equal(be32(l4 + 4),
				 SEQ + (off - fr->hlen));
		if (i + 1 < count)
			flags &= ~(TCP_FIN | TCP_PSH);
		if (i)
			flags &= ~TCP_CWR;
		assert_int_equal(l4[13], flags);
		memcpy(l4 + 4, fr->f + fr->l4 + 4, 4);
		l4[13] = fr->f[fr->l4 + 13];
		memcpy(l4 + 16, fr->f + fr->l4 + 16, 2);
	} else {
		assert_int_equal(be16(l4 + 4), len - fr->l4);
		memcpy(l4 + 4, fr->f + fr->l4 + 4, 4);	/* length, sum */
	}
	/* Nothing else differs. */
	assert_memory_equal(hdrs, fr->f, fr->hlen);
	free(hdrs);
}

/* Segments the frame and checks each segment, expecting segments of
 * seg_size payload bytes (the last shorter); returns how many came. */
static unsigned
segment(const struct frame *fr, const struct virtio_net_hdr *vh,
	uint32_t mss, uint32_t seg_size)
{
	uint32_t payload = fr->len - fr->hlen, off = fr->hlen;
	unsigned count = payload ? (payload + seg_size - 1) / seg_size : 1;
	uint8_t *seg;
	struct gso g;
	uint32_t len;
	unsigned i;

	assert_int_equal(gso_init(&g, fr->f, fr->len, fr->l3 == 0, vh, mss),
			 0);
	/* Segments fit in gso_max() bytes, exactly (the sanitizers see a
	 * write past them), and a full one takes all of it. */
	assert_int_equal(gso_max(&g), fr->hlen + seg_size);
	seg = malloc(gso_max(&g));
	assert_non_null(seg);
	for (i = 0; (len = gso_next(&g, seg)); i++) {
		uint32_t n = fr->len - off < seg_size ? fr->len - off
						      : seg_size;

		assert_true(i < count);
		check_segment(fr, seg, len, off, n, i, count);
		off += n;
	}
	assert_int_equal(i, count);
	assert_int_equal(off, fr->len);
	assert_int_equal(gso_next(&g, seg), 0);
	free(seg);
	return i;
}

static void
test_tcp4(void **state)
{
	struct spec s = { .flags = FB_ACK | FB_PSH | FB_FIN,
			  .payload = 4000, .tcp_opts = true };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	/* 1448, 1448 and a shorter last one. */
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* A 64 KiB frame, as TCP hands a TAP device one: 45 segments, the
 * sequence number and the IPv4 id wrapping on the way. */
static void
test_tcp4_64k(void **state)
{
	struct spec s = { .flags = FB_ACK | FB_PSH,
			  .payload = FRAME_IP_MAX - 20 - 32, .tcp_opts = true };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(segment(&fr, &vh, 0, MSS), 46);
	frame_free(&fr);
}

static void
test_tcp4_vlan(void **state)
{
	struct spec s = { .tags = 1, .flags = FB_ACK, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
	s.tags = 2;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* In NSH behind an Ethernet header (the frame a push_nsh and a push_eth
 * make), with an inner tag: the outer headers go with every segment. A
 * next protocol that names nothing, or an NSH length short of the base
 * header, is not segmented. */
static void
test_tcp_in_nsh(void **state)
{
	struct spec s = { .nsh = true, .flags = FB_ACK, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);
	struct gso g;

	assert_int_equal(fr.l3, 14 + 24 + 14);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	fr.f[14 + 3] = 0x06;
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), -EINVAL);
	fr.f[14 + 3] = 0x03;
	fr.f[14 + 1] = 0xc1;
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), -EINVAL);
	frame_free(&fr);
	s.v6 = true;
	s.tags = 1;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* Under MPLS labels (a push_mpls), IP right under the bottom label or in
 * an inner Ethernet frame: the labels go with every segment. The GSO
 * type's IP version tells the two apart; a stack with no bottom label is
 * not segmented. */
static void
test_tcp_under_mpls(void **state)
{
	struct spec s = { .labels = 1, .flags = FB_ACK, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);
	struct gso g;

	assert_int_equal(fr.l3, 14 + 4);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	fr.f[14 + 2] &= ~1;		/* no bottom of stack */
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), -EINVAL);
	frame_free(&fr);
	s.labels = 3;
	s.v6 = true;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(fr.l3, 14 + 12);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
	s.labels = 2;
	s.mpls_eth = true;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(fr.l3, 14 + 8 + 14);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* What any kernel's device GSO cuts: IP behind Ethernet and tags, or an
 * L3 packet; not NSH or MPLS, whose GSO comes with openvswitch.ko. */
static void
test_kernel_can(void **state)
{
	static const struct {
		struct spec s;
		bool can;
	} cases[] = {
		{ { .tags = 2, .flags = FB_ACK, .payload = 3000 }, true },
		{ { .l3 = true, .flags = FB_ACK, .payload = 3000 }, true },
		{ { .nsh = true, .flags = FB_ACK, .payload = 3000 }, false },
		{ { .labels = 1, .flags = FB_ACK, .payload = 3000 }, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame fr = build(&cases[i].s);

		assert_int_equal(gso_kernel_can(fr.f, fr.len, cases[i].s.l3),
				 cases[i].can);
		frame_free(&fr);
	}
}

static void
test_tcp6(void **state)
{
	struct spec s = { .v6 = true, .flags = FB_ACK | FB_PSH,
			  .payload = 5000, .tcp_opts = true };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(segment(&fr, &vh, 0, MSS), 4);
	frame_free(&fr);
}

static void
test_tcp6_vlan_exthdrs(void **state)
{
	struct spec s = { .v6 = true, .tags = 1, .exthdrs = true,
			  .flags = FB_ACK | FB_FIN, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(fr.l4, fr.l3 + 40 + 16);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* An IP packet without Ethernet (after pop_eth). */
static void
test_l3(void **state)
{
	struct spec s = { .l3 = true, .flags = FB_ACK, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(fr.l3, 0);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
	s.v6 = true;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

static void
test_udp(void **state)
{
	struct spec s = { .udp = true, .payload = 4000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh =
		request(&fr, VIRTIO_NET_HDR_GSO_UDP_L4, 1400);

	assert_int_equal(segment(&fr, &vh, 0, 1400), 3);
	frame_free(&fr);
	s.v6 = true;
	s.tags = 1;
	s.exthdrs = true;
	fr = build(&s);
	vh = request(&fr, VIRTIO_NET_HDR_GSO_UDP_L4, 1400);
	assert_int_equal(segment(&fr, &vh, 0, 1400), 3);
	frame_free(&fr);
}

/* A UDP datagram whose checksum comes out as 0 carries all ones: 0 would
 * say it has none. */
static void
test_udp_csum_zero(void **state)
{
	struct spec s = { .udp = true, .payload = 200 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh =
		request(&fr, VIRTIO_NET_HDR_GSO_UDP_L4, 100);
	uint8_t *seg = malloc(fr.len);
	uint16_t sum;
	struct gso g;

	assert_non_null(seg);
	/* The first datagram's sum without its checksum and its first two
	 * payload bytes; those bytes then make it all ones. */
	fr.f[fr.hlen] = fr.f[fr.hlen + 1] = 0;
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), 0);
	assert_int_equal(gso_next(&g, seg), fr.hlen + 100);
	seg[fr.l4 + 6] = seg[fr.l4 + 7] = 0;
	sum = ~l4_sum(seg, &fr, 8 + 100, true);
	put16(fr.f + fr.hlen, sum);
	assert_int_equal(segment(&fr, &vh, 0, 100), 2);
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), 0);
	assert_int_equal(gso_next(&g, seg), fr.hlen + 100);
	assert_int_equal(be16(seg + fr.l4 + 6), 0xffff);
	free(seg);
	frame_free(&fr);
}

/* Payload of exactly one gso_size, or less, or none: one segment, with
 * every flag the frame had. */
static void
test_one_segment(void **state)
{
	static const uint32_t sizes[] = { MSS, MSS - 1, 1, 0 };
	struct spec s = { .flags = FB_ACK | FB_PSH | FB_FIN | TCP_CWR };

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct frame fr;
		struct virtio_net_hdr vh;

		s.payload = sizes[i];
		fr = build(&s);
		vh = request(&fr, tcp_type(&fr), MSS);
		assert_int_equal(segment(&fr, &vh, 0, MSS), 1);
		frame_free(&fr);
	}
}

/* The caller's size wins when smaller; the kernel's floor of 8 bytes
 * under a TCP gso_size does not bind it. */
static void
test_mss_override(void **state)
{
	struct spec s = { .flags = FB_ACK | FB_PSH, .payload = 4000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	assert_int_equal(segment(&fr, &vh, 1000, 1000), 4);
	assert_int_equal(segment(&fr, &vh, 2000, MSS), 3);
	vh.gso_size = 1;
	assert_int_equal(segment(&fr, &vh, 0, 8), 500);
	frame_free(&fr);
	s.payload = 40;
	fr = build(&s);
	vh = request(&fr, tcp_type(&fr), MSS);
	assert_int_equal(segment(&fr, &vh, 3, 3), 14);
	frame_free(&fr);
}

/* CWR on the first segment only, with the ECN flag or without; ECE stays
 * on all. */
static void
test_ecn(void **state)
{
	struct spec s = { .flags = FB_ACK | TCP_CWR | 0x40, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(
		&fr, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, MSS);
	uint8_t *seg = malloc(fr.len);
	struct gso g;

	assert_non_null(seg);
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), 0);
	assert_true(gso_next(&g, seg));
	assert_int_equal(seg[fr.l4 + 13], FB_ACK | TCP_CWR | 0x40);
	assert_true(gso_next(&g, seg));
	assert_int_equal(seg[fr.l4 + 13], FB_ACK | 0x40);
	assert_true(gso_next(&g, seg));
	assert_int_equal(seg[fr.l4 + 13], FB_ACK | 0x40);
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	free(seg);
	frame_free(&fr);
}

/* Without a partial checksum the TCP one starts from the addresses,
 * whatever the field held. */
static void
test_tcp_csum_complete(void **state)
{
	struct spec s = { .v6 = true, .flags = FB_ACK, .payload = 3000 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), MSS);

	vh.flags = 0;
	vh.csum_start = vh.csum_offset = 0;
	fr.f[fr.l4 + 16] ^= 0x5a;
	assert_int_equal(segment(&fr, &vh, 0, MSS), 3);
	frame_free(&fr);
}

/* A frame without GSO comes out as it is, its partial checksum finished. */
static void
test_no_gso(void **state)
{
	struct spec s = { .udp = true, .payload = 100 };
	struct frame fr = build(&s);
	uint8_t *want = malloc(fr.len), *seg = malloc(fr.len);
	struct virtio_net_hdr vh;
	struct gso g;

	assert_non_null(want);
	assert_non_null(seg);
	memcpy(want, fr.f, fr.len);
	vh = request(&fr, VIRTIO_NET_HDR_GSO_NONE, 0);
	assert_memory_not_equal(fr.f, want, fr.len);
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, MSS), 0);
	assert_int_equal(gso_max(&g), fr.len);
	assert_int_equal(gso_next(&g, seg), fr.len);
	assert_memory_equal(seg, want, fr.len);
	assert_int_equal(gso_next(&g, seg), 0);
	/* Nothing asked: a copy. */
	vh.flags = 0;
	assert_int_equal(gso_init(&g, fr.f, fr.len, false, &vh, 0), 0);
	assert_int_equal(gso_next(&g, seg), fr.len);
	assert_memory_equal(seg, fr.f, fr.len);
	assert_int_equal(gso_next(&g, seg), 0);
	free(want);
	free(seg);
	frame_free(&fr);
}

static int
init(const struct frame *fr, const struct virtio_net_hdr *vh)
{
	struct gso g;

	return gso_init(&g, fr->f, fr->len, fr->l3 == 0, vh, 0);
}

/* The same on the frame's first len bytes, in a buffer of that length. */
static int
cut_init(const struct frame *fr, size_t len, const struct virtio_net_hdr *vh)
{
	uint8_t *cut = malloc(len);
	struct gso g;
	int err;

	assert_non_null(cut);
	memcpy(cut, fr->f, len);
	err = gso_init(&g, cut, len, fr->l3 == 0, vh, 0);
	free(cut);
	return err;
}

/* A lie in the header about the frame, one at a time. */
static void
test_lies(void **state)
{
	struct spec s4 = { .flags = FB_ACK, .payload = 3000 };
	struct spec s6 = { .v6 = true, .flags = FB_ACK, .payload = 3000 };
	struct spec su = { .udp = true, .payload = 3000 };
	struct frame f4 = build(&s4), f6 = build(&s6), fu = build(&su);
	struct virtio_net_hdr ok4 = request(&f4, VIRTIO_NET_HDR_GSO_TCPV4, MSS);
	struct virtio_net_hdr ok6 = request(&f6, VIRTIO_NET_HDR_GSO_TCPV6, MSS);
	struct virtio_net_hdr oku =
		request(&fu, VIRTIO_NET_HDR_GSO_UDP_L4, MSS);
	struct virtio_net_hdr vh;
	struct gso g;

	assert_int_equal(init(&f4, &ok4), 0);
	assert_int_equal(init(&f6, &ok6), 0);
	assert_int_equal(init(&fu, &oku), 0);

	vh = ok4, vh.gso_size = 0;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok4, vh.hdr_len = f4.len + 1;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	/* Short of the headers: a hint the kernel raises. */
	vh = ok4, vh.hdr_len = 0;
	assert_int_equal(init(&f4, &vh), 0);
	vh = ok4, vh.gso_type = 7;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok4, vh.gso_type = VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok4, vh.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	assert_int_equal(init(&f4, &vh), -EPROTONOSUPPORT);
	/* The wrong family, the wrong transport. */
	vh = ok4, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok6, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	assert_int_equal(init(&f6, &vh), -EINVAL);
	vh = ok4, vh.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
	vh.csum_offset = 6;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = oku, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.csum_offset = 16;
	assert_int_equal(init(&fu, &vh), -EINVAL);
	vh = oku, vh.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(init(&fu, &vh), -EINVAL);
	/* The checksum elsewhere, or none for UDP. */
	vh = ok4, vh.csum_start = f4.l3;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok4, vh.csum_offset = 6;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	vh = ok6, vh.csum_start += 2;
	assert_int_equal(init(&f6, &vh), -EINVAL);
	vh = oku, vh.flags = 0;
	assert_int_equal(init(&fu, &vh), -EINVAL);
	/* More datagrams than the kernel takes in one frame. */
	vh = oku, vh.gso_size = 23;
	assert_int_equal(init(&fu, &vh), -EINVAL);
	vh.gso_size = 24;
	assert_int_equal(init(&fu, &vh), 0);
	/* A frame longer than any. */
	assert_int_equal(gso_init(&g, f4.f, FRAME_MAX + 1, false, &ok4, 0),
			 -EINVAL);
	/* Without GSO: a checksum field past the end. */
	vh = (struct virtio_net_hdr){ .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
				      .csum_start = f4.len - 2 };
	assert_int_equal(init(&f4, &vh), 0);
	vh.csum_offset = 1;
	assert_int_equal(init(&f4, &vh), -EINVAL);
	frame_free(&f4);
	frame_free(&f6);
	frame_free(&fu);
}

/* Lies in the frame's own headers. */
static void
test_bad_headers(void **state)
{
	struct spec s4 = { .flags = FB_ACK, .payload = 3000 };
	struct spec s6 = { .v6 = true, .flags = FB_ACK, .payload = 3000 };
	struct frame f4 = build(&s4), f6 = build(&s6);
	struct virtio_net_hdr vh4 = request(&f4, VIRTIO_NET_HDR_GSO_TCPV4, MSS);
	struct virtio_net_hdr vh6 = request(&f6, VIRTIO_NET_HDR_GSO_TCPV6, MSS);
	uint8_t *ip4 = f4.f + f4.l3, *ip6 = f6.f + f6.l3;
	uint8_t save;

	/* Not IP. */
	f4.f[12] = 0x08, f4.f[13] = 0x06;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	f4.f[13] = 0x00;
	/* IPv4: the version, an IHL under 5 or past the TCP header. */
	save = ip4[0];
	ip4[0] = 0x65;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	ip4[0] = 0x44;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	ip4[0] = 0x4f;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	ip4[0] = save;
	ip4[9] = IPPROTO_UDP;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	ip4[9] = IPPROTO_TCP;
	/* TCP's data offset under 5, past the end. */
	save = f4.f[f4.l4 + 12];
	f4.f[f4.l4 + 12] = 0x40;
	assert_int_equal(init(&f4, &vh4), -EINVAL);
	f4.f[f4.l4 + 12] = save;
	assert_int_equal(init(&f4, &vh4), 0);
	/* Cut inside the TCP header, or before the end its options claim
	 * (hdr_len out of the way). */
	vh4.hdr_len = 0;
	assert_int_equal(cut_init(&f4, f4.l4 + 19, &vh4), -EINVAL);
	f4.f[f4.l4 + 12] = 0xf0;
	assert_int_equal(cut_init(&f4, f4.l4 + 59, &vh4), -EINVAL);
	assert_int_equal(cut_init(&f4, f4.l4 + 60, &vh4), 0);
	f4.f[f4.l4 + 12] = save;
	/* IPv6: the version, a fragment header, an extension header cut. */
	ip6[0] = 0x40;
	assert_int_equal(init(&f6, &vh6), -EINVAL);
	ip6[0] = 0x60;
	ip6[6] = IPPROTO_FRAGMENT;
	assert_int_equal(init(&f6, &vh6), -EINVAL);
	ip6[6] = IPPROTO_DSTOPTS;
	save = ip6[41];
	ip6[41] = 1;			/* 16 bytes */
	vh6.hdr_len = 0;
	assert_int_equal(cut_init(&f6, f6.l3 + 40 + 15, &vh6), -EINVAL);
	ip6[41] = save;
	ip6[6] = IPPROTO_TCP;
	assert_int_equal(init(&f6, &vh6), 0);
	frame_free(&f4);
	frame_free(&f6);
}

/* Cut at every length: refused while a header is cut, accepted after;
 * nothing is read past the end (the sanitizers watch). */
static void
test_truncated(void **state)
{
	struct spec s = { .v6 = true, .tags = 2, .exthdrs = true,
			  .tcp_opts = true, .flags = FB_ACK, .payload = 100 };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), 40);

	vh.hdr_len = 0;
	for (size_t len = 0; len <= fr.len; len++) {
		uint8_t *cut = malloc(len ? len : 1), *seg = malloc(fr.len);
		struct gso g;
		int err;

		assert_non_null(cut);
		assert_non_null(seg);
		memcpy(cut, fr.f, len);
		err = gso_init(&g, cut, len, false, &vh, 0);
		assert_int_equal(err, len < fr.hlen ? -EINVAL : 0);
		while (!err && gso_next(&g, seg))
			;
		free(cut);
		free(seg);
	}
	frame_free(&fr);
}

/* A segment whose IP length would not fit its 16 bits. */
static void
test_too_long(void **state)
{
	struct spec s = { .flags = FB_ACK, .payload = FRAME_IP_MAX };
	struct frame fr = build(&s);
	struct virtio_net_hdr vh = request(&fr, tcp_type(&fr), 0xffff);

	assert_int_equal(init(&fr, &vh), -EINVAL);
	vh.gso_size = 0xffff - 40;
	assert_int_equal(init(&fr, &vh), 0);
	vh.gso_size = 0xffff - 39;
	assert_int_equal(init(&fr, &vh), -EINVAL);
	frame_free(&fr);
}

/* The pseudo-header's sum, folded, in network order: by hand. */
static uint16_t
pseudo_sum(const uint8_t *src, const uint8_t *dst, size_t alen,
	   uint8_t proto, uint32_t l4len)
{
	uint32_t s = proto + (l4len >> 16) + (l4len & 0xffff);

	for (size_t i = 0; i < alen; i += 2)
		s += (src[i] << 8 | src[i + 1]) + (dst[i] << 8 | dst[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons(s);
}

/* A partial checksum lost on the way is recognised (TCP and UDP, IPv4 and
 * IPv6, behind a tag) and, finished, verifies; a complete one and a
 * fragment's are left alone. */
static void
test_partial_guess(void **state)
{
	static const uint8_t a4[4] = { 10, 0, 0, 1 }, b4[4] = { 10, 0, 0, 2 };
	static const uint8_t a6[16] = { 0xfd, [15] = 1 };
	static const uint8_t b6[16] = { 0xfd, [15] = 2 };

	for (int c = 0; c < 5; c++) {
		bool v6 = c == 3, udp = c == 1;
		uint8_t buf[256], proto = udp ? IPPROTO_UDP : IPPROTO_TCP;
		struct virtio_net_hdr vh = { 0 };
		size_t len, l4len;
		uint16_t ps;
		struct fb b;

		fb_init(&b, buf, sizeof(buf));
		fb_eth(&b, c == 2 ? 0x8100 : v6 ? 0x86dd : 0x0800);
		if (c == 2)
			fb_vlan(&b, 7, 0x0800);
		if (v6)
			fb_ipv6(&b, a6, b6, proto);
		else
			fb_ipv4(&b, 0x0a000001, 0x0a000002, proto);
		if (udp)
			fb_udp(&b, 1000, 2000);
		else
			fb_tcp(&b, 1000, 2000, 1, 0, 0x18);
		fb_put(&b, "payload bytes", 13);
		len = fb_end(&b);
		l4len = len - b.l4;
		/* Complete: nothing to guess. */
		assert_false(offload_csum_partial_guess(buf, len, 0, &vh));
		assert_int_equal(vh.flags, 0);
		/* Partial: the field holds the pseudo-header's sum. */
		ps = v6 ? pseudo_sum(a6, b6, 16, proto, l4len)
			: pseudo_sum(a4, b4, 4, proto, l4len);
		memcpy(buf + b.l4 + (udp ? 6 : 16), &ps, 2);
		if (c == 4) {
			/* A first fragment: not the whole segment. */
			buf[b.l3 + 6] = 0x20;
			fb_ipv4_csum(buf + b.l3);
			assert_false(offload_csum_partial_guess(buf, len, 0,
								&vh));
			continue;
		}
		assert_true(offload_csum_partial_guess(buf, len, 0, &vh));
		assert_true(vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(vh.csum_start, b.l4);
		assert_int_equal(vh.csum_offset, udp ? 6 : 16);
		assert_false(fb_csums_ok(buf + b.l3, len - b.l3));
		assert_int_equal(offload_csum_finish(buf, len, &vh), 0);
		assert_true(fb_csums_ok(buf + b.l3, len - b.l3));
		/* Cut short of its IP length: no guess. */
		vh = (struct virtio_net_hdr){ 0 };
		memcpy(buf + b.l4 + (udp ? 6 : 16), &ps, 2);
		assert_false(offload_csum_partial_guess(buf, len - 1, 0, &vh));
		/* The same packet without Ethernet: an L3 packet of its
		 * protocol. */
		assert_true(offload_csum_partial_guess(buf + b.l3, len - b.l3,
						       htons(v6 ? 0x86dd
							       : 0x0800),
						       &vh));
		assert_int_equal(vh.csum_start, b.l4 - b.l3);
		assert_int_equal(vh.csum_offset, udp ? 6 : 16);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp4_64k),
		cmocka_unit_test(test_tcp4_vlan),
		cmocka_unit_test(test_tcp_in_nsh),
		cmocka_unit_test(test_tcp_under_mpls),
		cmocka_unit_test(test_kernel_can),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_tcp6_vlan_exthdrs),
		cmocka_unit_test(test_l3),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_udp_csum_zero),
		cmocka_unit_test(test_one_segment),
		cmocka_unit_test(test_mss_override),
		cmocka_unit_test(test_ecn),
		cmocka_unit_test(test_tcp_csum_complete),
		cmocka_unit_test(test_no_gso),
		cmocka_unit_test(test_lies),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_partial_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
