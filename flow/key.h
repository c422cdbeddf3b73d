/* SPDX-License-Identifier: Apache-2.0 */
/* The flow key: everything a megaflow may match on, for one packet.
 *
 * One flat struct, compared and hashed as bytes, so a mask is a flow_key
 * too (1 bits: significant) and a masked key is a byte-wise AND. Unused
 * fields and padding are always zero. Multi-byte fields that the netlink
 * attributes carry in network order are kept in network order (marked be);
 * the rest in host order. The semantics are those of the kernel's
 * sw_flow_key (net/openvswitch/flow.h):
 *
 *  - vlan/cvlan: tpid and tci as on the wire, with FLOW_VLAN_PRESENT
 *    (0x1000, the CFI/DEI bit) set in tci when the tag exists;
 *  - ip_proto carries the ARP opcode (when <= 0xff) for ARP packets;
 *  - tp_src/tp_dst carry the ICMP/ICMPv6 type and code (htons(type));
 *  - ip_frag is OVS_FRAG_TYPE_NONE/FIRST/LATER;
 *  - in_port is the datapath port number (FLOW_IN_PORT_NONE: none);
 *  - tun is the tunnel the packet came in by (tun.family 0: none), as
 *    the kernel's tun_key, tun_opts, tun_opts_len and tun_proto; not the
 *    tunnel a set(tunnel) action gives it to leave by (struct packet);
 *  - nsh is an NSH packet's base header and MD type 1 context, as the
 *    kernel's ovs_key_nsh (an MD type 2 context is not matched: zero).
 *
 * A key lives on the stack of the thread that handles the packet. */
#ifndef TAPDP_FLOW_KEY_H
#define TAPDP_FLOW_KEY_H

#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdint.h>

#include "include/tapdp/ovs-uapi.h"
#include "packet/tun-key.h"

#define FLOW_MPLS_DEPTH		3
#define FLOW_VLAN_PRESENT	0x1000	/* host order; tci is be */
#define FLOW_IN_PORT_NONE	65535	/* the kernel's DP_MAX_PORTS */

enum flow_mac_proto {
	FLOW_MAC_NONE = 0,		/* L3 packet, no Ethernet header */
	FLOW_MAC_ETHERNET = 1,
};

struct flow_vlan {
	uint16_t tpid;			/* be; 0 when no tag */
	uint16_t tci;			/* be; FLOW_VLAN_PRESENT when tagged */
};

/* The NSH fields, laid out as the netlink attributes carry them. */
struct flow_nsh {
	struct ovs_nsh_key_base base;	/* flags, ttl, mdtype, np, path_hdr */
	uint32_t context[NSH_MD1_CONTEXT_SIZE];	/* be */
};

struct flow_key {
	/* Metadata. The tunnel first, its options at its very start: a
	 * mask without options begins past them, one with a few options
	 * covers a few of their words. */
	struct tun_key tun;
	uint32_t priority;
	uint32_t skb_mark;
	uint32_t in_port;
	uint32_t recirc_id;
	uint32_t dp_hash;
	uint8_t mac_proto;		/* enum flow_mac_proto */
	uint8_t ct_state;		/* OVS_CS_F_* */
	uint8_t ct_orig_proto;
	uint8_t pad0;
	uint16_t ct_zone;
	uint16_t pad1;
	uint32_t ct_mark;
	uint8_t ct_labels[16];
	/* The tracked connection's original direction (ct_orig_proto != 0),
	 * metadata too: re-extracting the frame keeps it. */
	uint32_t ct_orig_ipv4_src;	/* be */
	uint32_t ct_orig_ipv4_dst;	/* be */
	struct in6_addr ct_orig_ipv6_src;
	struct in6_addr ct_orig_ipv6_dst;
	uint16_t ct_orig_tp_src;	/* be */
	uint16_t ct_orig_tp_dst;	/* be */

	/* L2. */
	uint8_t eth_src[6];
	uint8_t eth_dst[6];
	struct flow_vlan vlan;		/* outer tag */
	struct flow_vlan cvlan;		/* inner tag */
	uint16_t eth_type;		/* be */
	uint16_t pad2;

	/* MPLS. */
	uint32_t mpls_labels_mask;	/* bit i: label i present */
	uint32_t mpls_lse[FLOW_MPLS_DEPTH];	/* be */

	/* L3. */
	uint8_t ip_proto;
	uint8_t ip_tos;
	uint8_t ip_ttl;
	uint8_t ip_frag;
	uint32_t ipv4_src;		/* be; ARP: spa */
	uint32_t ipv4_dst;		/* be; ARP: tpa */
	uint8_t arp_sha[6];
	uint8_t arp_tha[6];
	struct in6_addr ipv6_src;
	struct in6_addr ipv6_dst;
	uint32_t ipv6_label;		/* be, 20 bits */
	uint16_t ipv6_exthdrs;		/* OVS_IPV6_EXTHDR_* seen */
	uint16_t pad3;
	struct in6_addr nd_target;
	uint8_t nd_sll[6];
	uint8_t nd_tll[6];

	/* L4. */
	uint16_t tp_src;		/* be */
	uint16_t tp_dst;		/* be */
	uint16_t tcp_flags;		/* be, 12 bits */
	uint16_t pad4;

	/* NSH (eth_type ETH_P_NSH). */
	struct flow_nsh nsh;
} __attribute__((aligned(8)));

/* AF_INET or AF_INET6 for an IPv4 or IPv6 key, else 0. */
static inline int
flow_key_family(const struct flow_key *k)
{
	if (k->eth_type == htons(ETH_P_IP))
		return AF_INET;
	if (k->eth_type == htons(ETH_P_IPV6))
		return AF_INET6;
	return 0;
}

/* The ct_* fields of a packet never tracked (ct_clear, new packets). */
static inline void
flow_key_clear_ct(struct flow_key *k)
{
	k->ct_state = 0;
	k->ct_orig_proto = 0;
	k->ct_zone = 0;
	k->ct_mark = 0;
	__builtin_memset(k->ct_labels, 0, sizeof(k->ct_labels));
	k->ct_orig_ipv4_src = k->ct_orig_ipv4_dst = 0;
	__builtin_memset(&k->ct_orig_ipv6_src, 0, 16);
	__builtin_memset(&k->ct_orig_ipv6_dst, 0, 16);
	k->ct_orig_tp_src = k->ct_orig_tp_dst = 0;
}

#endif
