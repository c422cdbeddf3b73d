/* SPDX-License-Identifier: Apache-2.0 */
/* A packet's tunnel metadata: the outer headers it came in by (set by the
 * tunnel port that decapsulated it) or is to leave by (set by the
 * set(tunnel(...)) action, read by the tunnel port that encapsulates it).
 * The kernel's ip_tunnel_key with its options, as OVS_KEY_ATTR_TUNNEL
 * carries them.
 *
 * It is the first part of struct flow_key, so that a megaflow matches on it
 * byte-wise like the rest: the options sit at the end of opts[] (the last
 * opts_len bytes), next to the fixed fields, so a mask over a few option
 * bytes covers only a few words. Everything unused is zero. Fields the
 * attributes carry in network order are kept in network order (be).
 *
 * Plain data: owned by whoever holds the key or the action. */
#ifndef TAPDP_PACKET_TUN_KEY_H
#define TAPDP_PACKET_TUN_KEY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "packet/headers.h"

/* The kernel's IP_TUNNEL_OPTS_MAX (255), rounded up to a word. */
#define TUN_OPTS_MAX	256
#define TUN_OPTS_LEN_MAX	255	/* the most the options may take */

/* flags: what the outer headers said, or are to say. */
#define TUN_F_KEY		0x0001	/* a key (VNI, GRE key) is present */
#define TUN_F_CSUM		0x0002	/* outer UDP / GRE checksum */
#define TUN_F_DF		0x0004	/* don't fragment the outer packet */
#define TUN_F_OAM		0x0008	/* geneve/vxlan-gpe OAM bit */
#define TUN_F_SEQ		0x0010	/* GRE sequence number */
#define TUN_F_GENEVE_OPT	0x0020	/* opts: geneve TLVs */
#define TUN_F_VXLAN_OPT		0x0040	/* opts: struct tun_vxlan_opts */
#define TUN_F_ERSPAN_OPT	0x0080	/* opts: struct tun_erspan_opts */
/* A geneve option is critical: the header's C bit. Received, it is the
 * bit; to send, set(tunnel) sets it when an option's type has its top bit
 * (the kernel's IP_TUNNEL_CRIT_OPT_BIT; OVS's attributes do not carry it). */
#define TUN_F_CRIT_OPT		0x0100
#define TUN_F_OPTS	(TUN_F_GENEVE_OPT | TUN_F_VXLAN_OPT | TUN_F_ERSPAN_OPT)

/* VXLAN's group-based policy extension: the 32-bit word of
 * OVS_VXLAN_EXT_GBP (flags << 16 | policy id), host order. */
struct tun_vxlan_opts {
	uint32_t gbp;
};

/* ERSPAN's metadata, laid out as the kernel's struct erspan_metadata
 * (what OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS carries, 12 bytes): version 1
 * carries the index word, version 2 the type III words as on the wire
 * (direction and hardware id among their bits). */
struct tun_erspan_opts {
	uint32_t version;		/* host order: 1 or 2 (received: any) */
	union {
		uint32_t index;		/* be: v1 */
		struct erspan_md2 md2;	/* v2 */
	} u;
};
_Static_assert(sizeof(struct tun_erspan_opts) == 12, "erspan_metadata");

struct tun_key {
	uint8_t opts[TUN_OPTS_MAX];	/* the last opts_len bytes */
	uint64_t id;			/* be: the VNI (vxlan, geneve), GRE key */
	uint32_t ipv4_src;		/* be */
	uint32_t ipv4_dst;		/* be */
	struct in6_addr ipv6_src;
	struct in6_addr ipv6_dst;
	uint16_t flags;			/* TUN_F_* */
	uint16_t tp_src;		/* be: outer UDP ports */
	uint16_t tp_dst;		/* be */
	uint8_t tos;			/* TOS, or IPv6 traffic class */
	uint8_t ttl;			/* TTL, or IPv6 hop limit */
	uint8_t family;			/* AF_INET, AF_INET6; 0: no tunnel */
	uint8_t opts_len;
	uint8_t pad[6];
} __attribute__((aligned(8)));

/* A set(tunnel) key of IPv4 without a destination: the kernel's
 * IP_TUNNEL_INFO_BRIDGE mode (OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE), where
 * a VXLAN port finds the destination in its forwarding table. */
static inline bool
tun_key_bridge(const struct tun_key *t)
{
	return t->family == AF_INET && !t->ipv4_dst;
}

/* The options: the last opts_len bytes of opts[]. */
static inline uint8_t *
tun_key_opts(struct tun_key *t)
{
	return t->opts + TUN_OPTS_MAX - t->opts_len;
}

static inline const uint8_t *
tun_key_opts_const(const struct tun_key *t)
{
	return t->opts + TUN_OPTS_MAX - t->opts_len;
}

#endif
