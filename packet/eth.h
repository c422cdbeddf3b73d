/* SPDX-License-Identifier: Apache-2.0 */
/* Ethernet frames: the walk past VLAN tags to the type field, and what an
 * 802.3 length stands for, as the kernel's parse_vlan() and
 * parse_ethertype() see them.
 *
 * Pure functions on caller-owned bytes: thread-safe. */
#ifndef TAPDP_PACKET_ETH_H
#define TAPDP_PACKET_ETH_H

#include <stddef.h>
#include <stdint.h>

#include "packet/headers.h"

#define ETH_TAGS_KEPT	2		/* tags eth_walk() reports */

/* eth_walk() flags. */
#define ETH_WALK_LLC	(1u << 0)	/* resolve an 802.3 length */

struct eth_walk {
	uint16_t type;			/* the payload's type, network order */
	uint32_t type_at;		/* the field it came from */
	uint32_t l3;			/* the payload */
	unsigned n_tags;		/* tags stepped over */
	struct vlan_header tag[ETH_TAGS_KEPT];	/* the outer ones */
};

/* Walks the frame (len bytes) past at most max_tags 802.1Q/802.1ad tags to
 * its type field. A tag counts only with room for a type field after it;
 * without, its TPID is the type. With ETH_WALK_LLC, a type below 0x600 is
 * an 802.3 length: an LLC/SNAP header with a zero OUI gives its ethertype
 * (ETH_P_802_2 if that is a length too) and is stepped over; anything else
 * is ETH_P_802_2. Returns 0, or -EINVAL when the frame is shorter than an
 * Ethernet header. */
int eth_walk(const void *frame, size_t len, unsigned max_tags,
	     unsigned flags, struct eth_walk *w);

#endif
