/* SPDX-License-Identifier: Apache-2.0 */
/* Receive merging (packet/gro.h). A large TCP frame is cut by the software
 * segmentation (packet/gso.h) into the segments a sender's TSO would put on
 * the wire; merging them back must give the frame again, bit for bit once
 * both checksums are finished, with the GSO request it came with, and the
 * same flow key. Then what ends a train: a gap, a flag, an option or
 * another flow, a shorter segment, a bad checksum, a non-TCP packet. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flow/extract.h"
#include "flow/key.h"
#include "packet/csum.h"
#include "packet/frame.h"
#include "packet/gro.h"
#include "packet/gso.h"
#include "packet/headers.h"
#include "packet/offload.h"
#include "tests/unit/builders.h"

#define MSS	1348

static const uint8_t ip6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static uint8_t big[FRAME_MAX];
static uint8_t merged[FRAME_MAX];

/* A TCP frame of payload bytes with the flags, and 12 bytes of
 * timestamps; into big, its length returned. */
static size_t
build(bool v6, uint8_t flags, uint32_t payload)
{
	static const uint8_t ts[12] = { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tcphdr *th;
	uint8_t *p;
	struct fb b;

	fb_init(&b, big, sizeof(big));
	fb_eth(&b, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6) {
		fb_ipv6(&b, ip6_src, ip6_dst, IPPROTO_TCP);
	} else {
		struct iphdr *ip = fb_ipv4(&b, 0x0a000001, 0x0a000002,
					   IPPROTO_TCP);

		ip->id = htons(0xfff0);
		ip->frag_off = htons(0x4000);
	}
	th = fb_tcp(&b, 40000, 5201, 0xffff0000u, 77, flags);
	th->doff = 8;
	fb_put(&b, ts, sizeof(ts));
	p = fb_put(&b, NULL, payload);
	for (uint32_t i = 0; i < payload; i++)
		p[i] = (uint8_t)(i * 13 + i / 241);
	return fb_end(&b);
}

/* The frame in big cut into segments of mss by GSO: each a heap copy. */
struct segs {
	uint8_t *f[64];
	size_t len[64];
	unsigned n;
};

static void
cut(size_t len, bool v6, uint32_t mss, struct segs *s)
{
	struct virtio_net_hdr vh = {
		.gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6
			       : VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = mss,
	};
	static uint8_t seg[FRAME_MAX];
	struct gso g;
	uint32_t n;

	assert_int_equal(gso_init(&g, big, len, false, &vh, 0), 0);
	s->n = 0;
	while ((n = gso_next(&g, seg))) {
		assert_true(s->n < 64);
		s->f[s->n] = fb_copy(seg, n);
		s->len[s->n++] = n;
	}
}

static void
segs_free(struct segs *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->f[i]);
}

/* Merges segments from..to-1 as one train; the number that joined. */
static unsigned
merge(struct gro *g, struct segs *s, unsigned from, unsigned to)
{
	unsigned n = 1;

	assert_true(gro_start(g, merged, s->f[from], s->len[from]));
	for (unsigned i = from + 1; i < to && gro_add(g, s->f[i], s->len[i]);
	     i++)
		n++;
	return n;
}

/* Merging all of a frame's segments gives the frame and its request. */
static void
roundtrip(bool v6, uint8_t flags, uint32_t payload)
{
	size_t len = build(v6, flags, payload), out;
	struct virtio_net_hdr vh;
	struct flow_key k1, k2;
	struct flow_layers l;
	struct segs s;
	struct gro g;

	cut(len, v6, MSS, &s);
	assert_int_equal(merge(&g, &s, 0, s.n), s.n);
	out = gro_finish(&g, &vh);
	assert_int_equal(out, len);
	assert_int_equal(vh.gso_type & ~VIRTIO_NET_HDR_GSO_ECN,
			 v6 ? VIRTIO_NET_HDR_GSO_TCPV6
			    : VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(!!(vh.gso_type & VIRTIO_NET_HDR_GSO_ECN),
			 !!(flags & TCP_CWR));
	assert_int_equal(vh.gso_size, MSS);
	assert_int_equal(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(vh.hdr_len, len - payload);
	assert_int_equal(offload_csum_finish(merged, out, &vh), 0);
	assert_memory_equal(merged, big, len);
	/* The flow key of the merged frame is the frame's; the first
	 * segment's too when the flags are all on it. */
	memset(&k1, 0, sizeof(k1));
	memset(&k2, 0, sizeof(k2));
	assert_int_equal(flow_extract(merged, out, &k1, &l), 0);
	assert_int_equal(flow_extract(big, len, &k2, &l), 0);
	assert_memory_equal(&k1, &k2, sizeof(k1));
	if (!(flags & (TCP_PSH | TCP_FIN))) {
		memset(&k2, 0, sizeof(k2));
		assert_int_equal(flow_extract(s.f[0], s.len[0], &k2, &l), 0);
		assert_memory_equal(&k1, &k2, sizeof(k1));
	}
	segs_free(&s);
}

static void
test_v4(void **state)
{
	(void)state;
	roundtrip(false, TCP_ACK, 40 * MSS);
	roundtrip(false, TCP_ACK, 40 * MSS + 777);	/* a short last one */
	roundtrip(false, TCP_ACK | TCP_PSH, 10 * MSS + 1);
	roundtrip(false, TCP_ACK | TCP_CWR, 5 * MSS);
	roundtrip(false, TCP_ACK | TCP_FIN | TCP_PSH, 3 * MSS);
	roundtrip(false, TCP_ACK, 2 * MSS);
}

static void
test_v6(void **state)
{
	(void)state;
	roundtrip(true, TCP_ACK, 40 * MSS);
	roundtrip(true, TCP_ACK | TCP_PSH, 33 * MSS + 5);
	roundtrip(true, TCP_ACK, MSS + 1);
}

/* A lone segment stays the caller's; non-TCP, SYN, PSH, no payload or a
 * bad checksum start nothing. */
static void
test_no_train(void **state)
{
	struct virtio_net_hdr vh;
	struct segs s;
	struct gro g;
	size_t len;
	struct fb b;

	(void)state;
	len = build(false, TCP_ACK, 100);
	assert_true(gro_start(&g, merged, big, len));
	assert_int_equal(gro_finish(&g, &vh), 0);
	assert_int_equal(vh.gso_type, 0);
	assert_int_equal(vh.flags, 0);

	assert_false(gro_start(&g, merged, big, build(false, TCP_SYN, 100)));
	assert_false(gro_start(&g, merged, big,
			       build(false, TCP_ACK | TCP_PSH, 100)));
	assert_false(gro_start(&g, merged, big, build(true, TCP_ACK, 0)));
	len = build(true, TCP_ACK, 100);
	big[len - 1] ^= 1;
	assert_false(gro_start(&g, merged, big, len));

	fb_init(&b, big, sizeof(big));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_UDP);
	fb_udp(&b, 1, 2);
	fb_put(&b, NULL, 100);
	len = fb_end(&b);
	assert_false(gro_start(&g, merged, big, len));
	assert_false(gro_add(&g, big, len));

	/* A UDP packet between two segments ends the first train. */
	cut(build(false, TCP_ACK, 3 * MSS), false, MSS, &s);
	assert_true(gro_start(&g, merged, s.f[0], s.len[0]));
	assert_false(gro_add(&g, big, len));
	segs_free(&s);
}

/* Each of these segments breaks the train before it. */
static void
test_breaks(void **state)
{
	struct virtio_net_hdr vh;
	struct segs s;
	struct gro g;
	size_t len;

	(void)state;
	for (unsigned what = 0; what < 10; what++) {
		bool v6 = what & 1;
		uint8_t old[32];
		struct tcphdr *th;
		uint8_t *f;

		len = build(v6, TCP_ACK, 6 * MSS);
		cut(len, v6, MSS, &s);
		f = s.f[3];
		th = (struct tcphdr *)(f + s.len[3] - MSS - 32);
		memcpy(old, th, sizeof(old));
		switch (what) {
		case 0: case 1:		/* a gap: segment 2 missing */
			free(s.f[2]);
			s.f[2] = s.f[3];
			s.len[2] = s.len[3];
			s.f[3] = fb_copy(s.f[2], s.len[2]);
			f = s.f[2];
			th = (struct tcphdr *)(f + s.len[2] - MSS - 32);
			break;
		case 2: case 3:		/* another flag */
			th->urg = 1;
			break;
		case 4: case 5:		/* an option changed */
			((uint8_t *)(th + 1))[6]++;
			break;
		case 6: case 7:		/* another ack */
			th->ack_seq = htonl(78);
			break;
		case 8: case 9:		/* a longer segment */
			break;
		}
		if (what < 2) {
			assert_int_equal(merge(&g, &s, 0, s.n), 2);
		} else if (what >= 8) {
			/* The first segment shorter: the second does
			 * not fit its size. */
			size_t l2 = build(v6, TCP_ACK, 100);
			uint8_t *one = fb_copy(big, l2);

			assert_true(gro_start(&g, merged, one, l2));
			assert_false(gro_add(&g, s.f[0], s.len[0]));
			assert_int_equal(gro_finish(&g, &vh), 0);
			free(one);
			segs_free(&s);
			continue;
		} else {
			/* The checksum made right again: only the change
			 * breaks. */
			csum_replace(&th->check, old, th, sizeof(old));
			assert_int_equal(merge(&g, &s, 0, s.n), 3);
		}
		assert_int_not_equal(gro_finish(&g, &vh), 0);
		segs_free(&s);
	}
}

/* A short segment, or one with PSH, joins and ends the train; a corrupt
 * one does not join. */
static void
test_ends(void **state)
{
	struct virtio_net_hdr vh;
	struct segs s;
	struct gro g;
	size_t len, l2;
	uint8_t *extra;

	(void)state;
	len = build(false, TCP_ACK, 3 * MSS + 10);
	cut(len, false, MSS, &s);
	assert_int_equal(merge(&g, &s, 0, s.n), 4);
	/* Nothing after the short one. */
	l2 = build(false, TCP_ACK, MSS);
	extra = fb_copy(big, l2);
	assert_false(gro_add(&g, extra, l2));
	assert_int_equal(gro_finish(&g, &vh), 3 * MSS + 10 + 66);
	free(extra);
	segs_free(&s);

	len = build(true, TCP_ACK | TCP_PSH, 4 * MSS);
	cut(len, true, MSS, &s);
	s.f[2][s.len[2] - 1] ^= 0x40;		/* corrupt */
	assert_int_equal(merge(&g, &s, 0, s.n), 2);
	assert_int_equal(gro_finish(&g, &vh), 2 * MSS + 86);
	segs_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_no_train),
		cmocka_unit_test(test_breaks),
		cmocka_unit_test(test_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
