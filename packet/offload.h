/* SPDX-License-Identifier: Apache-2.0 */
/* The offload request a frame carries beside it (the virtio-net header a
 * TAP or AF_PACKET socket gives and takes): its offsets point into the
 * frame, so they move when headers are inserted or removed in front of
 * what they point at. Pure functions on the header. */
#ifndef TAPDP_PACKET_OFFLOAD_H
#define TAPDP_PACKET_OFFLOAD_H

#include <linux/virtio_net.h>
#include <stdint.h>

/* n bytes inserted (n > 0) or removed (n < 0) at offset off. */
static inline void
offload_shift(struct virtio_net_hdr *vh, uint32_t off, int n)
{
	if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && vh->csum_start >= off)
		vh->csum_start += n;
	if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE && vh->hdr_len >= off)
		vh->hdr_len += n;
}

#endif
