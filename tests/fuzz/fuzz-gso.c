/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a virtio-net header (10 bytes), a segment size to
 * impose (2 bytes, little-endian, 0 for none), a byte whose low bit says
 * the frame has no Ethernet header, then the frame, segmented by
 * packet/gso.h. Beyond the sanitizers' bounds checks (the frame and each
 * segment's buffer are heap copies of the frame's exact length), it holds
 * gso_init() and gso_next() to their contract: only -EINVAL or
 * -EPROTONOSUPPORT refuse; the segments hold the frame's headers and, in
 * order, its whole payload, none larger than the size; a TCP checksum made
 * from the addresses (no partial one given) verifies. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "packet/csum.h"
#include "packet/gso.h"
#include "packet/headers.h"

#define PREFIX	(sizeof(struct virtio_net_hdr) + 3)

/* The transport checksum of the segment verifies. */
static int
l4_csum_ok(const struct gso *g, const uint8_t *seg, uint32_t len)
{
	uint32_t l4len = len - g->l4, s;

	if (g->ipv6) {
		const struct ipv6_header *ip6 = (const void *)(seg + g->l3);

		s = csum_pseudo(ip6->saddr, ip6->daddr, 16, g->proto, l4len);
	} else {
		const struct ipv4_header *ip = (const void *)(seg + g->l3);

		s = csum_pseudo(&ip->saddr, &ip->daddr, 4, g->proto, l4len);
	}
	return csum_fold(csum_add(s, seg + g->l4, l4len)) == 0xffff;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtio_net_hdr vh;
	uint32_t mss, off, len, n = 0;
	uint8_t *f, *seg;
	struct gso g;
	bool l3;
	int err;

	if (size < PREFIX)
		return 0;
	memcpy(&vh, data, sizeof(vh));
	mss = data[sizeof(vh)] | data[sizeof(vh) + 1] << 8;
	l3 = data[sizeof(vh) + 2] & 1;
	size -= PREFIX;
	f = malloc(size ? size : 1);
	seg = malloc(size ? size : 1);
	if (!f || !seg)
		abort();
	memcpy(f, data + PREFIX, size);
	err = gso_init(&g, f, size, l3, &vh, mss);
	if (err && err != -EINVAL && err != -EPROTONOSUPPORT)
		abort();
	off = g.hlen;
	while (!err && (len = gso_next(&g, seg))) {
		if (len > size)
			abort();
		n++;
		if (!g.proto) {
			if (len != size || n > 1)
				abort();
			continue;
		}
		if (len < g.hlen || len - g.hlen > g.mss ||
		    memcmp(seg, f, g.l3) || memcmp(seg + g.l3 + 20, f + g.l3 + 20, g.l4 - g.l3 - 20) ||
		    memcmp(seg + g.hlen, f + off, len - g.hlen))
			abort();
		off += len - g.hlen;
		if (g.proto == IPPROTO_TCP &&
		    !(vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    !l4_csum_ok(&g, seg, len))
			abort();
	}
	if (!err && g.proto && off != size)
		abort();
	free(f);
	free(seg);
	return 0;
}
