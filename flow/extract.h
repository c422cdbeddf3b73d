/* SPDX-License-Identifier: Apache-2.0 */
/* Packet to flow key: what the kernel's key_extract() finds in an Ethernet
 * frame or an L3 packet (net/openvswitch/flow.c, Linux 6.12), field for
 * field, including its quirks on truncated and malformed headers, since a megaflow that
 * userspace installs must match the keys the kernel would have made.
 *
 * Reads only the frame, writes only the key and the layers: no allocation,
 * no locks, no shared state. Thread-safe; call it from any receive thread. */
#ifndef TAPDP_FLOW_EXTRACT_H
#define TAPDP_FLOW_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/key.h"

/* ipv6_exthdrs bits: the OpenFlow 1.2 OFPIEH12_* values the kernel uses. */
#define FLOW_IPV6_EXTHDR_NONEXT	(1 << 0)	/* "no next header" met */
#define FLOW_IPV6_EXTHDR_ESP	(1 << 1)	/* never set: see extract.c */
#define FLOW_IPV6_EXTHDR_AUTH	(1 << 2)
#define FLOW_IPV6_EXTHDR_DEST	(1 << 3)
#define FLOW_IPV6_EXTHDR_FRAG	(1 << 4)
#define FLOW_IPV6_EXTHDR_ROUTER	(1 << 5)
#define FLOW_IPV6_EXTHDR_HOP	(1 << 6)	/* hop-by-hop, and first */
#define FLOW_IPV6_EXTHDR_UNREP	(1 << 7)	/* a header repeated */
#define FLOW_IPV6_EXTHDR_UNSEQ	(1 << 8)	/* out of RFC 2460 order */

/* Offsets of the headers found, from the frame start; FLOW_OFS_NONE when
 * absent (or beyond 0xfffe, which only a frame over 64 KiB can have).
 *  l2_5: the first MPLS label (MPLS frames only);
 *  l3:   the L2 payload, past VLAN tags and any LLC/SNAP header; for MPLS,
 *        past the bottom-of-stack label (none if the stack is truncated);
 *  l4:   the transport header, where the kernel sets it: past a valid IPv4
 *        header (later fragments too), past the IPv6 header chain (not for
 *        later fragments). The key says whether it was complete. */
#define FLOW_OFS_NONE	0xffff

struct flow_layers {
	uint16_t l2_5;
	uint16_t l3;
	uint16_t l4;
};

/* Fills key from eth_src to its end (zeroed first) and sets mac_proto to
 * FLOW_MAC_ETHERNET; the other metadata (priority .. ct_labels) is the
 * caller's and is left untouched. Never reads past frame + len.
 * Returns 0, or -EINVAL when the kernel would drop the frame: shorter than
 * an Ethernet header, or a malformed NSH header. */
int flow_extract(const void *frame, size_t len, struct flow_key *key,
		 struct flow_layers *layers);

/* The same for an L3 packet (no Ethernet header, as after pop_eth) whose
 * protocol is eth_type: sets mac_proto to FLOW_MAC_NONE and eth_type, and
 * parses the packet from its first byte. -EINVAL for a VLAN eth_type. */
int flow_extract_l3(const void *packet, size_t len, uint16_t eth_type,
		    struct flow_key *key, struct flow_layers *layers);

/* One or the other: an L3 packet by the protocol key->eth_type already
 * holds (the kernel's skb->protocol), else an Ethernet frame. */
int flow_extract_packet(const void *data, size_t len, bool l3,
			struct flow_key *key, struct flow_layers *layers);

#endif
