/* SPDX-License-Identifier: Apache-2.0 */
/* Frame sizes every buffer is made from, and the pool of buffers for any
 * frame: ports receive into them, the action engine copies into them,
 * reassembly and upcalls build in them. */
#ifndef TAPDP_PACKET_FRAME_H
#define TAPDP_PACKET_FRAME_H

#include "common/buf-pool.h"

/* The largest IP datagram, rounded to 64 KiB: a GSO frame's payload, a
 * reassembled datagram. */
#define FRAME_IP_MAX	65536

/* Room for the headers in front of an IP datagram: Ethernet, VLAN tags,
 * MPLS labels. */
#define FRAME_L2_MAX	256

/* The largest frame a port delivers or the datapath handles. */
#define FRAME_MAX	(FRAME_IP_MAX + FRAME_L2_MAX)

/* Room kept in front of a frame so that actions push headers in place. */
#define FRAME_HEADROOM	128

/* Room kept behind the largest frame in a buffer made for it. */
#define FRAME_TAILROOM	256

/* A buffer for any frame, with both rooms. */
#define FRAME_BUF_SIZE	(FRAME_HEADROOM + FRAME_MAX + FRAME_TAILROOM)

/* FRAME_BUF_SIZE buffers, taken for a burst or a use (common/buf-pool.h). */
extern struct buf_pool frame_pool;

#endif
