/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/offload.h"

#include <errno.h>
#include <string.h>

#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/ip.h"

int
offload_csum_finish(void *frame, size_t len, struct virtio_net_hdr *vh)
{
	size_t start = vh->csum_start, at = start + vh->csum_offset;
	uint8_t *f = frame;
	uint16_t v;

	if (!(vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return 0;
	if (at > len || len - at < sizeof(v))
		return -EINVAL;
	v = ~csum_fold(csum_add(0, f + start, len - start));
	/* A UDP checksum of 0 is sent as all ones; TCP's 0 is fine too. */
	if (!v)
		v = 0xffff;
	memcpy(f + at, &v, sizeof(v));
	vh->flags &= ~VIRTIO_NET_HDR_F_NEEDS_CSUM;
	return 0;
}

bool
offload_csum_partial_guess(const void *frame, size_t len, uint16_t l3_proto,
			   struct virtio_net_hdr *vh)
{
	const uint8_t *f = frame;
	struct eth_walk w = { .type = l3_proto, .l3 = 0 };
	uint32_t l4, l4len, sum;
	uint16_t field, off;
	uint8_t proto;

	if (!l3_proto && eth_walk(f, len, 2, 0, &w) < 0)
		return false;
	if (w.type == htons(ETH_P_IP)) {
		const struct ipv4_header *ip =
			ipv4_header_at(f, len, w.l3, IP_CHECK_LENGTH);

		if (!ip || ntohs(ip->frag_off) & (IPV4_MF | IPV4_OFFSET))
			return false;
		l4 = w.l3 + ipv4_hlen(ip);
		l4len = ntohs(ip->tot_len) - ipv4_hlen(ip);
		proto = ip->protocol;
		sum = csum_pseudo(&ip->saddr, &ip->daddr, 4, proto, l4len);
	} else if (w.type == htons(ETH_P_IPV6)) {
		const struct ipv6_header *ip6 =
			ipv6_header_at(f, len, w.l3, IP_CHECK_LENGTH);

		/* Extension headers aside: the sender's own packets. */
		if (!ip6)
			return false;
		l4 = w.l3 + IPV6_HLEN;
		l4len = ntohs(ip6->payload_len);
		proto = ip6->nexthdr;
		sum = csum_pseudo(ip6->saddr, ip6->daddr, 16, proto, l4len);
	} else {
		return false;
	}
	if (proto == IPPROTO_TCP)
		off = 16;
	else if (proto == IPPROTO_UDP)
		off = 6;
	else
		return false;
	if (l4 + off + sizeof(field) > len || l4 + l4len > len)
		return false;
	memcpy(&field, f + l4 + off, sizeof(field));
	if (field != csum_fold(sum))
		return false;
	vh->flags |= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = l4;
	vh->csum_offset = off;
	return true;
}
