/* SPDX-License-Identifier: Apache-2.0 */
/* Segmentation in software: a frame with a GSO request (a TCP segment or
 * UDP datagram of up to 64 KiB, see packet/offload.h) cut into the complete
 * frames it stands for, as the kernel's TCP and UDP GSO do when no device
 * will: for an upcall (each segment its own message, as userspace gets no
 * offload metadata), for a tunnel port (each segment encapsulated and
 * sent on its own) and for a frame the kernel may not cut (NSH, MPLS).
 *
 * Every segment gets the frame's headers (Ethernet and VLAN tags as they
 * are, NSH or MPLS labels and an inner Ethernet header too, or none for
 * an L3 frame; IPv4 with its options or IPv6 with its extension headers;
 * TCP with its options or UDP) and its share of the
 * payload, at most mss bytes. Then, as the kernel makes them: IPv4 total
 * length and header checksum, the id counting up from the frame's one
 * segment after segment; IPv6 payload length; TCP sequence number advanced,
 * FIN and PSH on the last segment only, CWR on the first only (with or
 * without the ECN flag, which asks a device to do the same); UDP length.
 * The TCP or UDP checksum is complete: a partial one continues from the
 * pseudo-header sum the frame's field holds, as the kernel does; without
 * one (TCP only), it starts from the addresses. Nothing of the offload
 * request is left on a segment.
 *
 * A frame without GSO gives one segment, itself, its partial checksum (if
 * any) finished.
 *
 * The caller's frame is only read. A struct gso is one walk over one
 * frame, for one thread. */
#ifndef TAPDP_PACKET_GSO_H
#define TAPDP_PACKET_GSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet/offload.h"

struct gso {
	const uint8_t *frame;
	uint32_t len;
	uint32_t l3, l4, hlen;		/* IP and L4 headers, the payload */
	uint32_t mss;
	uint32_t off;			/* the next segment's payload */
	uint32_t csum;			/* the L4 pseudo-header sum, less its
					 * length */
	uint32_t seq;			/* the next segment's (TCP) */
	uint16_t ip_id;			/* the next segment's (IPv4) */
	uint8_t proto;			/* IPPROTO_TCP, IPPROTO_UDP; 0: not
					 * GSO */
	bool ipv6;
	bool done;
	struct virtio_net_hdr vh;	/* a frame without GSO: its checksum */
};

/* Starts the walk over the frame (len bytes; an IPv4 or IPv6 packet at
 * offset 0 when l3, else an Ethernet frame, VLAN tags included) that vh
 * describes, in segments of at most vh->gso_size payload bytes (for TCP no
 * fewer than 8, the kernel's floor), or of mss (when not 0) if smaller.
 *
 * 0, or -EINVAL when the request does not fit the frame: an unknown GSO
 * type, ECN on UDP, a 0 gso_size, hdr_len past the end, a frame of the
 * wrong IP version or transport for the type, headers that do not fit in
 * it, a partial checksum elsewhere than the transport's field (or none for
 * UDP), a segment too long for its length fields, more UDP segments than
 * the kernel takes. hdr_len is no more than a hint of where the payload
 * starts (the kernel's TAP driver takes one short of the headers and
 * raises it): the headers are found by reading them. -EPROTONOSUPPORT for
 * UDP fragmentation offload (VIRTIO_NET_HDR_GSO_UDP), which no port of
 * ours takes in. */
int gso_init(struct gso *g, const void *frame, size_t len, bool l3,
	     const struct virtio_net_hdr *vh, uint32_t mss);

/* Whether a device's own GSO can cut the frame (len bytes; l3 as for
 * gso_init) on any kernel: IP over Ethernet and VLAN tags. Not under NSH
 * or MPLS, whose GSO comes with openvswitch.ko (nsh, mpls_gso) and is
 * missing where the module is: such a frame leaves as its segments. */
bool gso_kernel_can(const void *frame, size_t len, bool l3);

/* Writes the next segment at out, which has room for gso_max(g) bytes;
 * returns its length, 0 when all were given. */
uint32_t gso_next(struct gso *g, void *out);

/* The longest segment the walk gives: the headers and one segment's
 * payload, or the frame itself when it asks for no segmentation. */
static inline uint32_t
gso_max(const struct gso *g)
{
	return g->proto ? g->hlen + g->mss : g->len;
}

#endif
