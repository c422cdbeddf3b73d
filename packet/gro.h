/* SPDX-License-Identifier: Apache-2.0 */
/* Receive merging: consecutive TCP segments of one flow (Ethernet frames,
 * IPv4 without options or IPv6 without extension headers) joined into one
 * frame with a GSO request, as the kernel's GRO joins them (so that a
 * tunnel port hands the VM's port one large frame where the kernel's
 * vxlan or geneve device would hand over its GRO'd skb).
 *
 * A train starts with a segment that carries payload, a valid TCP
 * checksum and neither SYN, RST, URG, FIN nor PSH. A segment joins it when
 * everything before its TCP payload equals the first segment's but for
 * the IP length, checksum and identification (counting up by one, or
 * fixed with DF), the TCP sequence number (the one expected next), the
 * checksum (valid) and FIN and PSH; when no CWR is set in it; and when its
 * payload is no longer than the first's. A shorter segment, or one with
 * FIN or PSH, joins and ends the train. The merged frame keeps the first
 * segment's headers with the train's lengths, FIN and PSH of the last, a
 * partial TCP checksum and a GSO request of the first segment's size (ECN
 * when the first carried CWR), as the kernel's tcp_gro_complete() leaves
 * them.
 *
 * The first segment is only read until a second joins; then it and what
 * follows are copied into the caller's buffer. A struct gro is one train,
 * for one thread. */
#ifndef TAPDP_PACKET_GRO_H
#define TAPDP_PACKET_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet/offload.h"

struct gro {
	uint8_t *buf;			/* FRAME_MAX bytes, the caller's */
	const uint8_t *first;		/* the first segment, while alone */
	size_t len;			/* the train's frame, so far */
	uint32_t l3, l4, hlen;		/* IP, TCP, payload */
	uint32_t mss;			/* the first segment's payload */
	uint32_t next_seq;
	uint16_t next_id;		/* IPv4 */
	uint8_t flags;			/* FIN and PSH seen */
	unsigned segs;			/* 0: no train */
	bool ipv6;
	bool ended;			/* nothing more may join */
};

/* Starts a train at the frame (len bytes, an Ethernet frame), which stays
 * the caller's and unchanged until gro_finish() or a gro_add(); buf is
 * where a merged frame is built. true if the frame may start one; false
 * (g has no train) if not. */
bool gro_start(struct gro *g, uint8_t *buf, const uint8_t *frame,
	       size_t len);

/* Joins the frame to the train if it may; true if it did (its bytes were
 * copied: the caller may reuse them). */
bool gro_add(struct gro *g, const uint8_t *frame, size_t len);

/* Ends the train. With more than one segment, completes the merged frame
 * in buf, sets its offload request in vh and returns its length; with the
 * first segment alone returns 0 (the caller still has it as it was). */
size_t gro_finish(struct gro *g, struct virtio_net_hdr *vh);

#endif
