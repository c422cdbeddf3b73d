/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/gro.h"

#include <string.h>

#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/frame.h"
#include "packet/headers.h"
#include "packet/ip.h"

#define IP_LEN_MAX	0xffff

/* Flags a segment may differ from the first one in, and those that end a
 * train once joined. */
#define GRO_LAST_FLAGS	(TCP_FIN | TCP_PSH)

/* Where a segment's headers are: l3, l4, the payload; NULL if it is not
 * one a train takes (its TCP checksum is not checked here). */
struct seg {
	uint32_t l3, l4, hlen;
	bool ipv6;
	const struct tcp_header *th;
};

static bool
seg_parse(const uint8_t *f, size_t len, struct seg *s)
{
	struct eth_walk w;
	uint32_t l3len;

	if (eth_walk(f, len, ETH_TAGS_KEPT, 0, &w))
		return false;
	s->l3 = w.l3;
	if (w.type == htons(ETH_P_IP)) {
		const struct ipv4_header *ip =
			ipv4_header_at(f, len, s->l3, IP_CHECK_VERSION);

		/* No options, no fragment, a valid header checksum. */
		if (!ip || ipv4_hlen(ip) != IPV4_HLEN ||
		    ip->protocol != IPPROTO_TCP ||
		    (ntohs(ip->frag_off) & (IPV4_MF | IPV4_OFFSET)) ||
		    csum_fold(csum_add(0, ip, IPV4_HLEN)) != 0xffff)
			return false;
		l3len = ntohs(ip->tot_len);
		s->l4 = s->l3 + IPV4_HLEN;
		s->ipv6 = false;
	} else if (w.type == htons(ETH_P_IPV6)) {
		const struct ipv6_header *ip6 =
			ipv6_header_at(f, len, s->l3, IP_CHECK_VERSION);

		if (!ip6 || ip6->nexthdr != IPPROTO_TCP)
			return false;
		l3len = IPV6_HLEN + ntohs(ip6->payload_len);
		s->l4 = s->l3 + IPV6_HLEN;
		s->ipv6 = true;
	} else {
		return false;
	}
	/* No link padding: the IP length is the frame's. */
	if (s->l3 + l3len != len)
		return false;
	s->th = header_at(f, len, s->l4, TCP_HLEN);
	if (!s->th || tcp_hlen(s->th) < TCP_HLEN ||
	    s->l4 + tcp_hlen(s->th) > len)
		return false;
	s->hlen = s->l4 + tcp_hlen(s->th);
	return true;
}

/* The TCP checksum over the segment's transport bytes is right. */
static bool
tcp_csum_ok(const uint8_t *f, size_t len, const struct seg *s)
{
	uint32_t sum;

	if (s->ipv6) {
		const struct ipv6_header *ip6 = (const void *)(f + s->l3);

		sum = csum_pseudo(ip6->saddr, ip6->daddr, 16, IPPROTO_TCP,
				  len - s->l4);
	} else {
		const struct ipv4_header *ip = (const void *)(f + s->l3);

		sum = csum_pseudo(&ip->saddr, &ip->daddr, 4, IPPROTO_TCP,
				  len - s->l4);
	}
	return csum_fold(csum_add(sum, f + s->l4, len - s->l4)) == 0xffff;
}

bool
gro_start(struct gro *g, uint8_t *buf, const uint8_t *frame, size_t len)
{
	struct seg s;

	memset(g, 0, sizeof(*g));
	if (!seg_parse(frame, len, &s) || s.hlen == len ||
	    (tcp_flags(s.th) & (TCP_SYN | TCP_RST | TCP_URG | GRO_LAST_FLAGS)) ||
	    !tcp_csum_ok(frame, len, &s))
		return false;
	g->buf = buf;
	g->first = frame;
	g->len = len;
	g->l3 = s.l3;
	g->l4 = s.l4;
	g->hlen = s.hlen;
	g->ipv6 = s.ipv6;
	g->mss = len - s.hlen;
	g->next_seq = ntohl(s.th->seq) + g->mss;
	if (!s.ipv6)
		g->next_id = ntohs(((const struct ipv4_header *)
				    (frame + s.l3))->id) + 1;
	g->segs = 1;
	return true;
}

/* The IP headers match but for the fields a train lets vary. */
static bool
ip_same(const struct gro *g, const uint8_t *first, const uint8_t *f)
{
	if (g->ipv6) {
		const struct ipv6_header *a = (const void *)(first + g->l3);
		const struct ipv6_header *b = (const void *)(f + g->l3);

		return a->ver_tc_flow == b->ver_tc_flow &&
		       a->hop_limit == b->hop_limit &&
		       !memcmp(a->saddr, b->saddr, 16) &&
		       !memcmp(a->daddr, b->daddr, 16);
	} else {
		const struct ipv4_header *a = (const void *)(first + g->l3);
		const struct ipv4_header *b = (const void *)(f + g->l3);
		uint16_t id = ntohs(b->id);

		/* With DF the identification may as well stay fixed. */
		return a->tos == b->tos && a->frag_off == b->frag_off &&
		       a->ttl == b->ttl && a->saddr == b->saddr &&
		       a->daddr == b->daddr &&
		       (id == g->next_id ||
			((ntohs(b->frag_off) & IPV4_DF) && id == ntohs(a->id)));
	}
}

bool
gro_add(struct gro *g, const uint8_t *frame, size_t len)
{
	const uint8_t *first = g->segs == 1 ? g->first : g->buf;
	const struct tcp_header *a = (const void *)(first + g->l4), *b;
	uint32_t n;
	struct seg s;

	if (!g->segs || g->ended || !seg_parse(frame, len, &s) ||
	    s.l4 != g->l4 || s.hlen != g->hlen || s.ipv6 != g->ipv6)
		return false;
	b = s.th;
	n = len - s.hlen;
	if (!n || n > g->mss || ntohl(b->seq) != g->next_seq ||
	    g->len + n > FRAME_MAX || g->len + n - g->l3 > IP_LEN_MAX ||
	    /* Ethernet and VLAN headers, then IP and TCP. */
	    memcmp(first, frame, g->l3) || !ip_same(g, first, frame) ||
	    a->src != b->src || a->dst != b->dst || a->ack != b->ack ||
	    a->window != b->window || (tcp_flags(b) & TCP_CWR) ||
	    ((ntohs(a->doff_flags) ^ ntohs(b->doff_flags)) &
	     ~(GRO_LAST_FLAGS | TCP_CWR)) ||
	    memcmp(a + 1, b + 1, g->hlen - g->l4 - TCP_HLEN) ||
	    !tcp_csum_ok(frame, len, &s))
		return false;
	if (g->segs == 1)
		memcpy(g->buf, g->first, g->len);
	memcpy(g->buf + g->len, frame + s.hlen, n);
	g->len += n;
	g->segs++;
	g->next_seq += n;
	g->next_id++;
	g->flags |= tcp_flags(b) & GRO_LAST_FLAGS;
	g->ended = n < g->mss || g->flags;
	return true;
}

size_t
gro_finish(struct gro *g, struct virtio_net_hdr *vh)
{
	uint32_t l4len = g->len - g->l4;
	size_t len = g->len;
	struct tcp_header *th;
	uint16_t psum;

	memset(vh, 0, sizeof(*vh));
	if (g->segs < 2) {
		g->segs = 0;
		return 0;
	}
	g->segs = 0;
	th = (void *)(g->buf + g->l4);
	if (g->ipv6) {
		struct ipv6_header *ip6 = (void *)(g->buf + g->l3);

		ip6->payload_len = htons(l4len);
		psum = csum_fold(csum_pseudo(ip6->saddr, ip6->daddr, 16,
					     IPPROTO_TCP, l4len));
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	} else {
		struct ipv4_header *ip = (void *)(g->buf + g->l3);

		ip->tot_len = htons(len - g->l3);
		ipv4_set_csum(ip);
		psum = csum_fold(csum_pseudo(&ip->saddr, &ip->daddr, 4,
					     IPPROTO_TCP, l4len));
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	}
	if (tcp_flags(th) & TCP_CWR)
		vh->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	th->doff_flags |= htons(g->flags);
	/* A partial checksum: the pseudo-header's sum, for whoever sends
	 * the frame to finish. */
	th->csum = psum;
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = g->l4;
	vh->csum_offset = offsetof(struct tcp_header, csum);
	vh->gso_size = g->mss;
	vh->hdr_len = g->hlen;
	return len;
}
