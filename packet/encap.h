/* SPDX-License-Identifier: Apache-2.0 */
/* Tunnel headers on byte buffers, as the kernel's vxlan, geneve, gretap
 * (ipgre for L3), ip6gretap, erspan and bareudp devices handle them in
 * the flow-based mode OVS creates them in:
 *
 *  - encap_decap(): the bytes after an outer IP header (a UDP header and
 *    the vxlan or geneve header or none, or a GRE header and what follows
 *    it),
 *    checked as the kernel's receive path checks them, give the struct
 *    tun_key the device would attach and where the inner frame is, or the
 *    kernel's drop as a negative errno;
 *  - encap_push(): the tunnel headers in front of a frame, from the
 *    struct tun_key a set(tunnel) action left, and the outer IP header's
 *    facts as the device would choose them;
 *  - encap_push_ip(): the outer IPv4 header (for a raw IP_HDRINCL send) or
 *    IPv6 header from those facts.
 *
 * No sockets, no routes: the caller learns the outer header's facts from
 * its socket, resolves the source address, keeps each device's sequence
 * counter and supplies the packet's flow hash.
 *
 * Pure functions on caller-owned bytes: thread-safe. */
#ifndef TAPDP_PACKET_ENCAP_H
#define TAPDP_PACKET_ENCAP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet/headers.h"
#include "packet/tun-key.h"

enum encap_kind {
	ENCAP_VXLAN,
	ENCAP_GENEVE,
	ENCAP_GRE,
	ENCAP_ERSPAN,
	ENCAP_BAREUDP,		/* the L3 packet alone in a UDP datagram */
};

/* Whether the kind's packets are UDP datagrams (else GRE). */
static inline bool
encap_udp(enum encap_kind kind)
{
	return kind != ENCAP_GRE && kind != ENCAP_ERSPAN;
}

/* What a tunnel device is configured with. */
struct encap_port {
	enum encap_kind kind;
	uint16_t dst_port;		/* be: vxlan, geneve: the UDP port */
	/* vxlan: the source ports, min to max - 1 (host order). The kernel
	 * takes net.ipv4.ip_local_port_range when the device has none, as
	 * OVS creates it; geneve always takes 1 to 65534; bareudp port_min
	 * (its srcport_min) to 65534. */
	uint16_t port_min;
	uint16_t port_max;
	/* bareudp: the inner packets' protocol (be); with multiproto, IPv6
	 * too for IPv4, MPLS multicast too for unicast. */
	uint16_t ethertype;
	bool multiproto;
	bool gbp;			/* vxlan: the GBP extension */
	bool gpe;			/* vxlan: the GPE extension (l3 too) */
	/* geneve: inner_proto_inherit; vxlan: GPE; gre: an ipgre device
	 * rather than gretap. Such a port carries L3 packets as well as
	 * Ethernet. */
	bool l3;
	/* gre, erspan: the device's input checksum flag. The kernel drops
	 * a packet whose GRE checksum bit differs from it; OVS leaves it
	 * off, so a GRE checksum on receive is a drop there. */
	bool gre_csum_in;
};

/* The outer IP header: what encap_decap() is told of it (family,
 * addresses, tos, ttl; df where the kernel answered as reports it), and
 * what encap_push() chooses for it. */
struct encap_outer {
	uint32_t ipv4_src;		/* be */
	uint32_t ipv4_dst;		/* be */
	struct in6_addr ipv6_src;
	struct in6_addr ipv6_dst;
	uint32_t label;			/* host order: IPv6 flow label */
	uint8_t family;			/* AF_INET, AF_INET6 */
	uint8_t proto;			/* IPPROTO_UDP, IPPROTO_GRE */
	uint8_t tos;			/* TOS, IPv6 traffic class */
	uint8_t ttl;			/* TTL, IPv6 hop limit */
	bool df;			/* IPv4: don't fragment */
	/* decap: the UDP layer has checked the datagram already (it came
	 * from a UDP socket, which took the header off: the caller wrote
	 * one back), so the checksum field only says whether there was
	 * one. */
	bool l4_checked;
};

/* Where encap_decap() found the inner packet. */
struct encap_inner {
	size_t off;
	size_t len;
	uint16_t proto;			/* be: ETH_P_TEB for an Ethernet
					 * frame, else the L3 ethertype */
};

/* What a send supplies beside the key. */
struct encap_tx {
	uint16_t proto;			/* be: ETH_P_TEB for an Ethernet
					 * frame, else the L3 ethertype */
	uint32_t hash;			/* the inner flow's hash */
	uint32_t seq;			/* gre with TUN_F_SEQ, erspan: the
					 * device's counter, post-incremented
					 * by the caller */
	uint32_t timestamp;		/* erspan v2: wall time, 100 us units */
};

/* A frame at data + head, len bytes, with head bytes of room before it. */
struct encap_buf {
	uint8_t *data;
	size_t head;
	size_t len;
};

/* The kernel's TTL when the key's is 0 and nothing else gives one:
 * net.ipv4.ip_default_ttl and net.ipv6.conf.*.hop_limit as they ship. */
#define ENCAP_TTL_DEFAULT	64

/* The most encap_push() and encap_push_ip() put in front of a frame:
 * IPv6, UDP, geneve with all its options. */
#define ENCAP_HLEN_MAX	(IPV6_HLEN + UDP_HLEN + GENEVE_HLEN + GENEVE_OPTS_MAX)

/* Decapsulates the len bytes at data that followed an outer IP header
 * described by outer (the datagram's end: trailing link padding
 * removed), received by a port configured as port. Fills key (zeroed
 * first; DF in its flags when outer says df) and inner. The inner IP header, if any, may be rewritten: the
 * outer header's ECN congestion mark is carried into it.
 *
 * Returns 0, or what the kernel would drop the packet for:
 *  -EINVAL		a header truncated or malformed (vxlan flags or
 *			reserved bits; VXLAN-GPE without a next protocol
 *			or of one it does not know, of a version not 0,
 *			an OAM packet; geneve version, GRE version or
 *			routing, an inner frame shorter than its Ethernet or
 *			IP header)
 *  -EBADMSG		a UDP or GRE checksum wrong, a GRE checksum present
 *			or absent against gre_csum_in
 *  -EPROTONOSUPPORT	a payload this port does not take: geneve or GRE
 *			carrying L3 to an Ethernet-only port, ERSPAN to a GRE
 *			port or GRE to an ERSPAN port
 *  -EPROTO		the outer header congestion-marked (CE), the inner
 *			IP packet not ECN-capable
 *
 * Left to the caller, as device matters: the kernel's drop of a frame
 * whose source MAC is the device's own. */
int encap_decap(const struct encap_port *port,
		const struct encap_outer *outer, uint8_t *data, size_t len,
		struct tun_key *key, struct encap_inner *inner);

/* The UDP source port (host order) for a flow hash, from min to max - 1,
 * spread as the kernel's udp_flow_src_port() spreads it. */
uint16_t encap_src_port(uint32_t hash, uint16_t min, uint16_t max);
/* The UDP ports (be) a vxlan or geneve port sends a packet of flow hash
 * hash by: the source from the flow hash, the destination the key's
 * (vxlan) or the port's. */
void encap_udp_ports(const struct encap_port *port, const struct tun_key *key,
		     uint32_t hash, uint16_t *src, uint16_t *dst);

/* Writes port's tunnel headers in front of the frame in b and moves
 * b->head back over them; fills outer for encap_push_ip(). The key's
 * family picks IPv4 or IPv6; its source address must already be
 * resolved (the UDP checksum covers it).
 *
 * Returns 0, or:
 *  -EINVAL	a key the device would drop (no family, vxlan or erspan
 *		options too short, an erspan version not 1 or 2, geneve
 *		options not in words), a payload the port does not carry
 *		(VXLAN-GPE: one without a next protocol value),
 *		an inner frame shorter than its Ethernet or IP header
 *  -ENOSPC	b->head too small for the headers
 *  -EMSGSIZE	the UDP datagram would pass 65535 bytes */
int encap_push(const struct encap_port *port, const struct tun_key *key,
	       const struct encap_tx *tx, struct encap_buf *b,
	       struct encap_outer *outer);

/* Writes the IPv4 header (IP identification id, host order; the header
 * checksum computed) or the IPv6 header outer describes in front of the
 * datagram in b and moves b->head back over it. Returns 0, -ENOSPC when
 * b->head is too small, -EMSGSIZE when the length does not fit its field,
 * -EINVAL for a family neither. */
int encap_push_ip(const struct encap_outer *outer, uint16_t id,
		  struct encap_buf *b);

#endif
