/* SPDX-License-Identifier: Apache-2.0 */
/* The walk along an IPv6 packet's extension headers, for every reader:
 * the flow key (the kernel's ipv6_find_hdr() and the walk behind the key's
 * exthdrs field), conntrack's tuple (ipv6_skip_exthdr()), and reassembly
 * and fragmentation (the unfragmentable part).
 *
 * Hop-by-hop, routing and destination options headers are always stepped
 * over; what else is, and how lengths are read, the flags say. A header
 * stepped over must fit in the buffer whole, unless IPV6_EXTHDR_OPTLEN.
 *
 * Pure functions on caller-owned bytes: thread-safe. */
#ifndef TAPDP_PACKET_IPV6_EXTHDR_H
#define TAPDP_PACKET_IPV6_EXTHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Also step over authentication headers (their length rule: RFC 4302). */
#define IPV6_EXTHDR_AH		(1u << 0)
/* Also step over a first fragment's header. A later fragment's ends the
 * walk (frag_off says so) after its first 4 bytes; with another extension
 * header behind it, the walk fails, as ipv6_find_hdr() gives up. */
#define IPV6_EXTHDR_FRAG	(1u << 1)
/* End where the fragmentable part begins: at a destination options header
 * that no routing header follows (it must still have its 8 bytes). */
#define IPV6_EXTHDR_UNFRAG	(1u << 2)
/* The walk behind the kernel's flow key exthdrs field: every extension
 * header, AH and fragment ones too, with the generic length, of which
 * only the first 2 bytes need to be there; off may end past the end. */
#define IPV6_EXTHDR_OPTLEN	(1u << 3)

struct ipv6_exthdr_walk {
	uint32_t off;			/* where the walk is */
	uint32_t nexthdr_at;		/* the next header field naming it */
	uint8_t nexthdr;		/* what it is */
	bool frag;			/* a fragment header was met */
	uint16_t frag_off;		/* a later fragment's offset, bytes
					 * (the walk is at its header) */
};

/* Starts a walk at the IPv6 header at nh in data (len bytes): at what
 * follows its 40 bytes. -EINVAL if they are not there. */
int ipv6_exthdr_start(const void *data, size_t len, size_t nh,
		      struct ipv6_exthdr_walk *w);

/* Steps over the header the walk is at: 1 when it did; 0 when the walk
 * ends there (not a header the flags step over; a later fragment);
 * -EINVAL when the header does not fit, w->frag still telling whether a
 * fragment header was met. */
int ipv6_exthdr_step(const void *data, size_t len, unsigned flags,
		     struct ipv6_exthdr_walk *w);

/* Starts and steps until the walk ends: 0 (w->off and w->nexthdr the
 * upper-layer header, or where the flags stopped) or -EINVAL. */
int ipv6_exthdr_skip(const void *data, size_t len, size_t nh, unsigned flags,
		     struct ipv6_exthdr_walk *w);

#endif
