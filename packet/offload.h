/* SPDX-License-Identifier: Apache-2.0 */
/* The offload request a frame carries beside it (the virtio-net header a
 * TAP or AF_PACKET socket gives and takes): its offsets point into the
 * frame, so they move when headers are inserted or removed in front of
 * what they point at; a partial checksum is finished here for whoever
 * takes the frame without the header.
 *
 * Pure functions on the caller's header and bytes: thread-safe. */
#ifndef TAPDP_PACKET_OFFLOAD_H
#define TAPDP_PACKET_OFFLOAD_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5	/* Linux 5.18 */
#endif

/* n bytes inserted (n > 0) or removed (n < 0) at offset off. */
static inline void
offload_shift(struct virtio_net_hdr *vh, uint32_t off, int n)
{
	if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && vh->csum_start >= off)
		vh->csum_start += n;
	if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE && vh->hdr_len >= off)
		vh->hdr_len += n;
}

/* Finishes the partial checksum vh asks for, in the frame (len bytes),
 * and clears the request: the sum from csum_start to the end, written at
 * csum_start + csum_offset (a 0 result written as all ones). Returns 0
 * (nothing asked counts too), or -EINVAL, touching nothing, when the field
 * is not inside the frame. GSO is left as it is. */
int offload_csum_finish(void *frame, size_t len, struct virtio_net_hdr *vh);

/* The request a frame (Ethernet, len bytes; or an L3 packet of protocol
 * l3_proto, be, when that is not 0) lost on the way: a TCP or UDP
 * packet whose checksum field holds just its pseudo-header's sum is a
 * partial checksum, as a sender on this host hands it over (a tunnel's
 * inner packet from a local vxlan device, through a UDP socket, keeps
 * the bytes and loses the request). Sets the request in vh (which asks
 * for nothing yet) so that whoever sends it on finishes it; true if so.
 * A complete checksum equals the pseudo-header's sum only when the
 * segment's own bytes sum to zero, a case left as it is. */
bool offload_csum_partial_guess(const void *frame, size_t len,
				uint16_t l3_proto,
				struct virtio_net_hdr *vh);

#endif
