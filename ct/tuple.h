/* SPDX-License-Identifier: Apache-2.0 */
/* Connection tuples and what the tracker reads of a packet.
 *
 * A tuple names one direction of a connection: addresses, protocol, ports
 * (for ICMP echo-like messages the identifier and the type and code), and
 * the zone, so zones never see each other's connections. Tuples are
 * compared and hashed as bytes; unused bytes are zero.
 *
 * ct_packet_parse() reads an IPv4 or IPv6 packet as conntrack would see it
 * at PRE_ROUTING: header checks, checksum checks (unless the frame came
 * marked as already validated), the ICMP error's quoted packet. Pure
 * functions: thread-safe. */
#ifndef TAPDP_CT_TUPLE_H
#define TAPDP_CT_TUPLE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ct/ct-types.h"

struct ct_tuple {
	union {
		struct {
			union ct_addr src, dst;
			uint16_t sport, dport;	/* be; ICMP: sport is the id */
			uint8_t icmp_type;	/* ICMP and ICMPv6 only */
			uint8_t icmp_code;
			uint8_t proto;
			uint8_t family;		/* AF_INET, AF_INET6 */
			uint16_t zone;
			uint16_t pad;
			uint32_t pad2;
		};
		uint64_t w[6];		/* the same bytes: hashed, compared */
	};
} __attribute__((aligned(8)));

enum ct_parse_result {
	CT_PARSE_OK,			/* tuple describes the packet */
	CT_PARSE_ICMP_ERROR,		/* tuple is the quoted packet's */
	CT_PARSE_INVALID,		/* conntrack would not track it */
};

/* What the tracker knows of one packet. Offsets are from the L3 header. */
struct ct_packet {
	struct ct_tuple tuple;
	uint32_t l3_len;		/* the IP datagram, trimmed */
	uint32_t l4_off;
	uint32_t l4_len;
	uint32_t inner_off;		/* ICMP errors: the quoted header */
	uint32_t inner_l4_off;		/* and its L4 header, from l3 */
};

/* Parses the IP packet at l3 (len bytes up to the frame's end) of the
 * given family in zone. csum_ok: the L4 checksum is known good (or not
 * computed yet: offloaded). */
enum ct_parse_result ct_packet_parse(const uint8_t *l3, size_t len,
				     int family, uint16_t zone, bool csum_ok,
				     struct ct_packet *p);

/* The tuple of the other direction; false if the protocol has none (an
 * ICMP message that is not a request). */
bool ct_tuple_invert(const struct ct_tuple *t, struct ct_tuple *inv);

uint32_t ct_tuple_hash(const struct ct_tuple *t, uint32_t basis);

static inline bool
ct_tuple_equal(const struct ct_tuple *a, const struct ct_tuple *b)
{
	const uint64_t *x = a->w, *y = b->w;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		 (x[3] ^ y[3]) | (x[4] ^ y[4]) | (x[5] ^ y[5]));
}

/* ICMP (family AF_INET) or ICMPv6 (AF_INET6) protocol number. */
static inline uint8_t
ct_icmp_proto(int family)
{
	return family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
}

#endif
