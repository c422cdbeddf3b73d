/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/gso.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "common/unaligned.h"
#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/frame.h"
#include "packet/headers.h"
#include "packet/ip.h"
#include "packet/ipv6-exthdr.h"
#include "packet/offload.h"

/* The kernel's floor under a TCP gso_size, and its ceiling on the
 * datagrams one UDP GSO frame may carry (include/linux/udp.h). */
#define GSO_TCP_MIN_SIZE	8
#define GSO_UDP_MAX_SEGS	128

#define IP_LEN_MAX		0xffff

/* Past an MPLS label stack at at, to the bottom label's end; 0 when the
 * stack does not end in the frame. */
static size_t
mpls_end(const uint8_t *f, size_t len, size_t at)
{
	const struct mpls_header *m;

	while ((m = header_at(f, len, at, sizeof(*m)))) {
		at += sizeof(*m);
		if (get_unaligned32(&m->lse) & htonl(MPLS_LSE_BOS))
			return at;
	}
	return 0;
}

/* The IP header's version: from the EtherType, or its own first nibble in
 * an L3 frame. Finds where it starts; 0 when it is not IP. An Ethernet
 * frame may carry it in NSH, directly or in an inner Ethernet frame, as
 * the kernel's nsh_gso_segment() finds it, or under MPLS labels, as
 * mpls_gso_segment() does: there the GSO type's version (want, 0 for
 * either) tells an IP packet from an Ethernet frame, as the skb's inner
 * protocol does in the kernel. The NSH headers or labels then go with
 * every segment as they are. */
static unsigned
ip_version(const uint8_t *f, size_t len, bool l3, unsigned want,
	   uint32_t *nh)
{
	const struct nsh_header *nsh;
	struct eth_walk w;
	uint16_t type;
	unsigned v;
	size_t at;

	if (l3) {
		*nh = 0;
		return len ? f[0] >> 4 : 0;
	}
	if (eth_walk(f, len, UINT_MAX, 0, &w))
		return 0;
	type = w.type;
	at = w.l3;
	if (type == htons(ETH_P_NSH)) {
		nsh = header_at(f, len, at, sizeof(*nsh));
		if (!nsh || nsh_hlen(nsh) < NSH_BASE_HLEN ||
		    !header_at(f, len, at, nsh_hlen(nsh)))
			return 0;
		type = nsh_np_to_eth_type(nsh->next_proto);
		at += nsh_hlen(nsh);
	} else if (type == htons(ETH_P_MPLS_UC) ||
		   type == htons(ETH_P_MPLS_MC)) {
		at = mpls_end(f, len, at);
		if (!at || at >= len)
			return 0;
		v = f[at] >> 4;
		if ((v == 4 || v == 6) && (!want || v == want))
			type = v == 4 ? htons(ETH_P_IP) : htons(ETH_P_IPV6);
		else
			type = htons(ETH_P_TEB);
	}
	if (type == htons(ETH_P_TEB)) {
		if (eth_walk(f + at, len - at, UINT_MAX, 0, &w))
			return 0;
		type = w.type;
		at += w.l3;
	}
	*nh = at;
	return type == htons(ETH_P_IP) ? 4 : type == htons(ETH_P_IPV6) ? 6 : 0;
}

bool
gso_kernel_can(const void *frame, size_t len, bool l3)
{
	struct eth_walk w;

	if (l3)
		return true;
	return !eth_walk(frame, len, UINT_MAX, 0, &w) &&
	       (w.type == htons(ETH_P_IP) || w.type == htons(ETH_P_IPV6));
}

/* The IP header at g->l3: sets l4, proto, ipv6, ip_id and the
 * pseudo-header sum (length 0). */
static int
parse_ip(struct gso *g, unsigned version)
{
	const struct ipv4_header *ip;
	const struct ipv6_header *ip6;
	struct ipv6_exthdr_walk w;

	if (version == 4) {
		ip = ipv4_header_at(g->frame, g->len, g->l3, IP_CHECK_VERSION);
		if (!ip)
			return -EINVAL;
		g->l4 = g->l3 + ipv4_hlen(ip);
		g->proto = ip->protocol;
		g->ip_id = ntohs(ip->id);
		g->csum = csum_pseudo(&ip->saddr, &ip->daddr, sizeof(ip->saddr),
				      g->proto, 0);
		return 0;
	}
	ip6 = ipv6_header_at(g->frame, g->len, g->l3, IP_CHECK_VERSION);
	/* Past hop-by-hop, routing and destination options, as the kernel's
	 * IPv6 GSO: a fragment header ends the walk, and no transport is
	 * found. */
	if (!ip6 || ipv6_exthdr_skip(g->frame, g->len, g->l3, 0, &w))
		return -EINVAL;
	g->ipv6 = true;
	g->l4 = w.off;
	g->proto = w.nexthdr;
	g->csum = csum_pseudo(ip6->saddr, ip6->daddr, sizeof(ip6->saddr),
			      g->proto, 0);
	return 0;
}

/* The transport header at g->l4 (of the protocol the type wants): sets
 * hlen and seq; its checksum field's offset in *field. */
static int
parse_l4(struct gso *g, uint32_t *field)
{
	const struct tcp_header *th;

	if (g->proto == IPPROTO_UDP) {
		if (!header_at(g->frame, g->len, g->l4, UDP_HLEN))
			return -EINVAL;
		g->hlen = g->l4 + UDP_HLEN;
		*field = offsetof(struct udp_header, csum);
		return 0;
	}
	th = header_at(g->frame, g->len, g->l4, TCP_HLEN);
	if (!th || tcp_hlen(th) < TCP_HLEN ||
	    !header_at(g->frame, g->len, g->l4, tcp_hlen(th)))
		return -EINVAL;
	g->hlen = g->l4 + tcp_hlen(th);
	g->seq = ntohl(th->seq);
	*field = offsetof(struct tcp_header, csum);
	return 0;
}

/* A partial checksum's field holds the pseudo-header sum with the length
 * the kernel's GSO takes out again: the transport's whole length for TCP,
 * the UDP header's length field for UDP. Without one (TCP), the sum starts
 * from the addresses, as parse_ip() left it. */
static int
parse_csum(struct gso *g, const struct virtio_net_hdr *vh, uint32_t field)
{
	uint32_t old;
	uint16_t sum;

	if (!(vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return g->proto == IPPROTO_UDP ? -EINVAL : 0;
	if (vh->csum_start != g->l4 || vh->csum_offset != field)
		return -EINVAL;
	memcpy(&sum, g->frame + g->l4 + field, sizeof(sum));
	if (g->proto == IPPROTO_TCP) {
		old = ~htonl(g->len - g->l4);
	} else {
		const struct udp_header *uh = (const void *)(g->frame + g->l4);

		old = ~htonl(ntohs(uh->len));
	}
	g->csum = csum_add(csum_add(0, &sum, sizeof(sum)), &old, sizeof(old));
	return 0;
}

/* Whether the longest segment's lengths fit their 16-bit fields (the
 * IPv6 payload length covers the UDP one, the IPv4 total length both). */
static bool
lengths_fit(const struct gso *g)
{
	uint32_t payload = g->len - g->hlen;
	uint32_t seg = g->hlen + (payload < g->mss ? payload : g->mss);

	return seg - g->l3 - (g->ipv6 ? IPV6_HLEN : 0) <= IP_LEN_MAX;
}

int
gso_init(struct gso *g, const void *frame, size_t len, bool l3,
	 const struct virtio_net_hdr *vh, uint32_t mss)
{
	uint8_t type = vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	unsigned want_version = 0, version;
	uint32_t gso_size = vh->gso_size, field;
	uint8_t want_proto;
	int err;

	memset(g, 0, sizeof(*g));
	if (len > FRAME_MAX)
		return -EINVAL;
	g->frame = frame;
	g->len = len;
	if (vh->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		g->vh = *vh;
		return (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		       (size_t)vh->csum_start + vh->csum_offset +
				       sizeof(uint16_t) > len ? -EINVAL : 0;
	}
	switch (type) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		want_version = 4;
		want_proto = IPPROTO_TCP;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		want_version = 6;
		want_proto = IPPROTO_TCP;
		break;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		if (vh->gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		want_proto = IPPROTO_UDP;
		break;
	case VIRTIO_NET_HDR_GSO_UDP:
		return -EPROTONOSUPPORT;
	default:
		return -EINVAL;
	}
	if (!gso_size || vh->hdr_len > len)
		return -EINVAL;
	version = ip_version(frame, len, l3, want_version, &g->l3);
	if ((version != 4 && version != 6) ||
	    (want_version && version != want_version))
		return -EINVAL;
	err = parse_ip(g, version);
	if (err)
		return err;
	if (g->proto != want_proto)
		return -EINVAL;
	err = parse_l4(g, &field);
	if (!err)
		err = parse_csum(g, vh, field);
	if (err)
		return err;
	if (g->proto == IPPROTO_TCP && gso_size < GSO_TCP_MIN_SIZE)
		gso_size = GSO_TCP_MIN_SIZE;
	if (g->proto == IPPROTO_UDP &&
	    g->len - g->hlen > gso_size * GSO_UDP_MAX_SEGS)
		return -EINVAL;
	g->mss = mss && mss < gso_size ? mss : gso_size;
	g->off = g->hlen;
	return lengths_fit(g) ? 0 : -EINVAL;
}

/* The IP and transport headers of a segment of n payload bytes at out
 * (seg bytes), copied from the frame's. */
static void
fix_headers(struct gso *g, uint8_t *out, uint32_t seg, uint32_t n,
	    bool first, bool last)
{
	uint32_t l4len = seg - g->l4, field, sum;
	uint16_t v = 0;

	if (g->ipv6) {
		struct ipv6_header *ip6 = (void *)(out + g->l3);

		ip6->payload_len = htons(seg - g->l3 - IPV6_HLEN);
	} else {
		struct ipv4_header *ip = (void *)(out + g->l3);

		ip->tot_len = htons(seg - g->l3);
		ip->id = htons(g->ip_id++);
		ipv4_set_csum(ip);
	}
	if (g->proto == IPPROTO_TCP) {
		struct tcp_header *th = (void *)(out + g->l4);
		uint16_t clear = 0;

		th->seq = htonl(g->seq);
		g->seq += n;
		if (!last)
			clear |= TCP_FIN | TCP_PSH;
		if (!first)
			clear |= TCP_CWR;
		th->doff_flags &= ~htons(clear);
		field = offsetof(struct tcp_header, csum);
	} else {
		struct udp_header *uh = (void *)(out + g->l4);

		uh->len = htons(l4len);
		field = offsetof(struct udp_header, csum);
	}
	memcpy(out + g->l4 + field, &v, sizeof(v));
	sum = htonl(l4len);
	sum = csum_add(csum_add(g->csum, &sum, sizeof(sum)), out + g->l4,
		       l4len);
	v = ~csum_fold(sum);
	/* UDP's 0 means "no checksum": all ones stands for it. */
	if (!v && g->proto == IPPROTO_UDP)
		v = 0xffff;
	memcpy(out + g->l4 + field, &v, sizeof(v));
}

uint32_t
gso_next(struct gso *g, void *out)
{
	uint8_t *o = out;
	uint32_t n, seg;
	bool first;

	if (g->done)
		return 0;
	g->done = true;
	if (!g->proto) {
		memcpy(o, g->frame, g->len);
		/* gso_init() checked the field is inside. */
		offload_csum_finish(o, g->len, &g->vh);
		return g->len;
	}
	first = g->off == g->hlen;
	n = g->len - g->off < g->mss ? g->len - g->off : g->mss;
	seg = g->hlen + n;
	memcpy(o, g->frame, g->hlen);
	memcpy(o + g->hlen, g->frame + g->off, n);
	g->off += n;
	g->done = g->off == g->len;
	fix_headers(g, o, seg, n, first, g->done);
	return seg;
}
