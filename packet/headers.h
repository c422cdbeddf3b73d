/* SPDX-License-Identifier: Apache-2.0 */
/* Packet headers as they sit on the wire, and the one way to reach them:
 * header_at() hands out a header only when all of it lies inside the
 * buffer, as the kernel's pskb_may_pull() before ip_hdr().
 *
 * Every struct is packed (frames come at any alignment, so a header may
 * start at any byte) and its size is checked against the protocol's.
 * Multi-byte fields are in network byte order. Nothing here has state:
 * thread-safe, and the bytes stay the caller's. */
#ifndef TAPDP_PACKET_HEADERS_H
#define TAPDP_PACKET_HEADERS_H

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEADER_PACKED __attribute__((packed))

/* size bytes at off in data (len bytes long); NULL when they do not all
 * fit, off past the end included. */
static inline const void *
header_at(const void *data, size_t len, size_t off, size_t size)
{
	if (off > len || len - off < size)
		return NULL;
	return (const uint8_t *)data + off;
}

/* The same, for a header the caller rewrites. */
static inline void *
header_at_rw(void *data, size_t len, size_t off, size_t size)
{
	return (void *)header_at(data, len, off, size);
}

/* The bytes of a header up to the end of one of its fields: what must be
 * there to read or write that field. */
#define HEADER_UPTO(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))

/* Ethernet. */

struct eth_header {
	uint8_t eth_dst[ETH_ALEN];
	uint8_t eth_src[ETH_ALEN];
	uint16_t eth_type;		/* or the first tag's TPID */
} HEADER_PACKED;
_Static_assert(sizeof(struct eth_header) == ETH_HLEN, "Ethernet header");

/* Where tags are pushed and popped: right after the addresses. */
#define ETH_ADDRS_LEN	offsetof(struct eth_header, eth_type)

/* An 802.1Q or 802.1ad tag, in place of the type field it precedes. */
struct vlan_header {
	uint16_t tpid;			/* ETH_P_8021Q or ETH_P_8021AD */
	uint16_t tci;			/* priority, DEI, VLAN id */
} HEADER_PACKED;
#define VLAN_HLEN	sizeof(struct vlan_header)
_Static_assert(VLAN_HLEN == 4, "VLAN tag");

static inline bool
eth_type_vlan(uint16_t type)
{
	return type == htons(ETH_P_8021Q) || type == htons(ETH_P_8021AD);
}

/* The 802.2 LLC header with a SNAP extension, after an 802.3 length. */
struct llc_snap_header {
	uint8_t dsap;
	uint8_t ssap;
	uint8_t ctrl;
	uint8_t oui[3];
	uint16_t snap_type;
} HEADER_PACKED;
_Static_assert(sizeof(struct llc_snap_header) == 8, "LLC/SNAP header");
#define LLC_SAP_SNAP	0xaa

/* One MPLS label stack entry. */
struct mpls_header {
	uint32_t lse;			/* label, TC, bottom of stack, TTL */
} HEADER_PACKED;
_Static_assert(sizeof(struct mpls_header) == 4, "MPLS label");
#define MPLS_LSE_BOS	0x00000100	/* host order */

/* NSH's base header and service path header (RFC 8300); the context
 * headers follow (MD type 1: four words; MD type 2: TLVs). */
struct nsh_header {
	uint16_t ver_flags_ttl_len;	/* version 2, flags 2, TTL 6, length 6 */
	uint8_t md_type;
	uint8_t next_proto;
	uint32_t path_hdr;		/* service path id 24, index 8 */
} HEADER_PACKED;
#define NSH_BASE_HLEN	sizeof(struct nsh_header)
_Static_assert(NSH_BASE_HLEN == 8, "NSH base header");
#define NSH_VER_SHIFT	14
#define NSH_FLAGS_SHIFT	12
#define NSH_FLAGS_MASK	0x3000
#define NSH_TTL_SHIFT	6
#define NSH_TTL_MASK	0x0fc0
#define NSH_LEN_MASK	0x003f		/* in 4-byte words */
#define NSH_MD_TYPE1	1		/* fixed-length context */
#define NSH_MD_TYPE2	2		/* variable-length context */
#define NSH_MD1_HLEN	24		/* with MD type 1's context */
#define NSH_HLEN_MAX	256		/* what a push may build */
#define NSH_CTX_MAX	248		/* context bytes within it */

/* Next protocol values (shared with VXLAN-GPE). */
#define NSH_NP_IPV4	1
#define NSH_NP_IPV6	2
#define NSH_NP_ETHERNET	3
#define NSH_NP_NSH	4
#define NSH_NP_MPLS	5

/* The header's length in bytes, as its length field says. */
static inline size_t
nsh_hlen(const struct nsh_header *nsh)
{
	return (ntohs(nsh->ver_flags_ttl_len) & NSH_LEN_MASK) * 4;
}

/* The EtherType (be) a next protocol value stands for; 0: none. */
static inline uint16_t
nsh_np_to_eth_type(uint8_t np)
{
	switch (np) {
	case NSH_NP_IPV4:
		return htons(ETH_P_IP);
	case NSH_NP_IPV6:
		return htons(ETH_P_IPV6);
	case NSH_NP_ETHERNET:
		return htons(ETH_P_TEB);
	case NSH_NP_NSH:
		return htons(ETH_P_NSH);
	case NSH_NP_MPLS:
		return htons(ETH_P_MPLS_UC);
	}
	return 0;
}

/* The next protocol value of an EtherType (be); 0: none. */
static inline uint8_t
nsh_np_from_eth_type(uint16_t type)
{
	for (uint8_t np = NSH_NP_IPV4; np <= NSH_NP_MPLS; np++)
		if (nsh_np_to_eth_type(np) == type)
			return np;
	return 0;
}

/* ARP for IPv4 over Ethernet (RFC 826). */
struct arp_eth_header {
	uint16_t ar_hrd;
	uint16_t ar_pro;
	uint8_t ar_hln;
	uint8_t ar_pln;
	uint16_t ar_op;
	uint8_t ar_sha[ETH_ALEN];
	uint32_t ar_spa;
	uint8_t ar_tha[ETH_ALEN];
	uint32_t ar_tpa;
} HEADER_PACKED;
_Static_assert(sizeof(struct arp_eth_header) == 28, "Ethernet ARP");

/* IPv4. */

struct ipv4_header {
	uint8_t ver_ihl;		/* version 4 bits, IHL 4 bits */
	uint8_t tos;
	uint16_t tot_len;
	uint16_t id;
	uint16_t frag_off;		/* flags 3 bits, offset 13 bits */
	uint8_t ttl;
	uint8_t protocol;
	uint16_t csum;
	uint32_t saddr;
	uint32_t daddr;
} HEADER_PACKED;
#define IPV4_HLEN	sizeof(struct ipv4_header)
_Static_assert(IPV4_HLEN == 20, "IPv4 header");
#define IPV4_HLEN_MAX	60		/* with 40 bytes of options */
#define IPV4_DF		0x4000		/* host order, in frag_off */
#define IPV4_MF		0x2000		/* host order, in frag_off */
#define IPV4_OFFSET	0x1fff		/* 8-byte units */

static inline unsigned
ipv4_version(const struct ipv4_header *ip)
{
	return ip->ver_ihl >> 4;
}

/* The header's length with its options, from the IHL. */
static inline uint32_t
ipv4_hlen(const struct ipv4_header *ip)
{
	return (ip->ver_ihl & 0x0f) * 4;
}

/* IPv6 and its extension headers. */

struct ipv6_header {
	uint32_t ver_tc_flow;		/* version 4, class 8, label 20 bits */
	uint16_t payload_len;
	uint8_t nexthdr;
	uint8_t hop_limit;
	uint8_t saddr[16];
	uint8_t daddr[16];
} HEADER_PACKED;
#define IPV6_HLEN	sizeof(struct ipv6_header)
_Static_assert(IPV6_HLEN == 40, "IPv6 header");
#define IPV6_TCLASS_SHIFT	20
#define IPV6_LABEL_MASK		0x000fffff	/* host order */

static inline unsigned
ipv6_version(const struct ipv6_header *ip6)
{
	return ntohl(ip6->ver_tc_flow) >> 28;
}

/* The datagram's length: the fixed header and its payload. */
static inline uint32_t
ipv6_tot_len(const struct ipv6_header *ip6)
{
	return IPV6_HLEN + ntohs(ip6->payload_len);
}

/* Hop-by-hop and destination options; every extension header starts
 * with these two bytes, and none is shorter than 8. */
struct ipv6_opt_header {
	uint8_t nexthdr;
	uint8_t hdrlen;
} HEADER_PACKED;
_Static_assert(sizeof(struct ipv6_opt_header) == 2, "IPv6 options");
#define IPV6_EXTHDR_MIN	8

struct ipv6_frag_header {
	uint8_t nexthdr;
	uint8_t reserved;
	uint16_t frag_off;		/* offset 13 bits (bytes / 8), M */
	uint32_t id;
} HEADER_PACKED;
_Static_assert(sizeof(struct ipv6_frag_header) == 8, "IPv6 fragment");
#define IPV6_FRAG_OFFSET	0xfff8	/* host order: the offset in bytes */
#define IPV6_FRAG_MF		0x0001

/* An extension header's length: 8-byte units past the first 8. */
static inline uint32_t
ipv6_optlen(const struct ipv6_opt_header *h)
{
	return (h->hdrlen + 1) * 8;
}

/* AH counts 4-byte units, less 2 (RFC 4302). */
static inline uint32_t
ipv6_ahlen(const struct ipv6_opt_header *h)
{
	return (h->hdrlen + 2) * 4;
}

/* Transports. */

/* The ports every port-carrying transport (TCP, UDP, UDP-Lite, SCTP,
 * DCCP) starts with. */
struct l4_ports {
	uint16_t src;
	uint16_t dst;
} HEADER_PACKED;

struct tcp_header {
	uint16_t src;
	uint16_t dst;
	uint32_t seq;
	uint32_t ack;
	uint16_t doff_flags;		/* data offset 4 bits, flags 12 */
	uint16_t window;
	uint16_t csum;
	uint16_t urg_ptr;
} HEADER_PACKED;
#define TCP_HLEN	sizeof(struct tcp_header)
_Static_assert(TCP_HLEN == 20, "TCP header");
#define TCP_FLAGS_MASK	0x0fff		/* host order, in doff_flags */
#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_RST		0x04
#define TCP_PSH		0x08
#define TCP_ACK		0x10
#define TCP_URG		0x20
#define TCP_CWR		0x80

/* The header's length with its options, from the data offset. */
static inline uint32_t
tcp_hlen(const struct tcp_header *th)
{
	return (ntohs(th->doff_flags) >> 12) * 4;
}

/* FIN .. CWR: the flags byte. */
static inline uint8_t
tcp_flags(const struct tcp_header *th)
{
	return ntohs(th->doff_flags) & 0xff;
}

struct udp_header {
	uint16_t src;
	uint16_t dst;
	uint16_t len;
	uint16_t csum;
} HEADER_PACKED;
#define UDP_HLEN	sizeof(struct udp_header)
_Static_assert(UDP_HLEN == 8, "UDP header");

struct sctp_header {
	uint16_t src;
	uint16_t dst;
	uint32_t vtag;
	uint32_t csum;
} HEADER_PACKED;
_Static_assert(sizeof(struct sctp_header) == 12, "SCTP header");

/* DCCP's generic header with short sequence numbers: what its checksum
 * needs. */
struct dccp_header {
	uint16_t src;
	uint16_t dst;
	uint8_t doff;
	uint8_t cscov_ccval;
	uint16_t csum;
	uint32_t type_seq;
} HEADER_PACKED;
_Static_assert(sizeof(struct dccp_header) == 12, "DCCP header");

/* ICMP and ICMPv6 share this layout. The last four bytes are the echo
 * (and kin) query's identifier and sequence number; errors use them
 * otherwise and quote the offending packet after them. */
struct icmp_header {
	uint8_t type;
	uint8_t code;
	uint16_t csum;
	uint16_t id;
	uint16_t seq;
} HEADER_PACKED;
#define ICMP_HLEN	sizeof(struct icmp_header)
_Static_assert(ICMP_HLEN == 8, "ICMP header");

/* IPv6 neighbour solicitation and advertisement (RFC 4861). */
struct nd_msg {
	uint8_t type;
	uint8_t code;
	uint16_t csum;
	uint32_t flags;			/* reserved in a solicitation */
	uint8_t target[16];
} HEADER_PACKED;
_Static_assert(sizeof(struct nd_msg) == 24, "ND message");

/* A neighbour discovery option: its length counts 8-byte units. */
struct nd_opt_header {
	uint8_t type;
	uint8_t len;
} HEADER_PACKED;
#define ND_OPT_UNIT	8

/* The source or target link-layer address option, for Ethernet. */
struct nd_lla_opt {
	uint8_t type;
	uint8_t len;
	uint8_t mac[ETH_ALEN];
} HEADER_PACKED;
_Static_assert(sizeof(struct nd_lla_opt) == 8, "ND Ethernet address");

/* Tunnels. Flag words are given in host order. */

/* VXLAN (RFC 7348), with the group-based policy extension's fields in
 * its first word (draft-smith-vxlan-group-policy), or the generic
 * protocol extension's (draft-ietf-nvo3-vxlan-gpe): a version, the P and
 * O flags and the next protocol (the NSH_NP_* values) in its low byte. */
struct vxlan_header {
	uint32_t flags;			/* I flag; GBP: G, D, A, policy id;
					 * GPE: version, P, O, next protocol */
	uint32_t vni;			/* VNI 24 bits, then 8 reserved */
} HEADER_PACKED;
#define VXLAN_HLEN	sizeof(struct vxlan_header)
_Static_assert(VXLAN_HLEN == 8, "VXLAN header");
#define VXLAN_HF_VNI		0x08000000	/* the VNI is valid */
#define VXLAN_HF_GBP		0x80000000	/* a group policy id follows */
#define VXLAN_GBP_DONT_LEARN	0x00400000
#define VXLAN_GBP_APPLIED	0x00080000
#define VXLAN_GBP_ID		0x0000ffff
#define VXLAN_VNI_SHIFT		8
#define VXLAN_GPE_VER		0x30000000
#define VXLAN_GPE_NP		0x04000000	/* the next protocol is set */
#define VXLAN_GPE_OAM		0x01000000
#define VXLAN_GPE_PROTO		0x000000ff

/* Geneve (RFC 8926): options of opt_len 4-byte words follow. */
struct geneve_header {
	uint8_t ver_optlen;		/* version 2 bits, opt_len 6 bits */
	uint8_t flags;			/* O, C, 6 reserved */
	uint16_t proto;			/* the payload's ethertype */
	uint8_t vni[3];
	uint8_t reserved;
} HEADER_PACKED;
#define GENEVE_HLEN	sizeof(struct geneve_header)
_Static_assert(GENEVE_HLEN == 8, "Geneve header");
#define GENEVE_VER_SHIFT	6
#define GENEVE_OPTLEN_MASK	0x3f
#define GENEVE_F_OAM		0x80
#define GENEVE_F_CRIT		0x40	/* a critical option is present */
#define GENEVE_OPTS_MAX		(GENEVE_OPTLEN_MASK * 4)

/* One Geneve option: its data of len 4-byte words follows. */
struct geneve_opt_header {
	uint16_t opt_class;
	uint8_t type;			/* its top bit: critical */
	uint8_t len;			/* 3 reserved bits, length 5 bits */
} HEADER_PACKED;
_Static_assert(sizeof(struct geneve_opt_header) == 4, "Geneve option");
#define GENEVE_OPT_CRIT		0x80
#define GENEVE_OPT_LEN_MASK	0x1f

/* GRE (RFC 2784, keys and sequence numbers RFC 2890): the checksum (with
 * a reserved half word), key and sequence number follow, 4 bytes each, in
 * that order, as the flags say. */
struct gre_header {
	uint16_t flags;			/* C R K S s Recur(3) A flags(4) Ver(3) */
	uint16_t proto;
} HEADER_PACKED;
#define GRE_HLEN	sizeof(struct gre_header)
_Static_assert(GRE_HLEN == 4, "GRE header");
#define GRE_HF_CSUM		0x8000
#define GRE_HF_ROUTING		0x4000
#define GRE_HF_KEY		0x2000
#define GRE_HF_SEQ		0x1000
#define GRE_HF_VERSION		0x0007
#define GRE_OPT_LEN		4	/* each optional field */

/* ERSPAN type II and III (draft-foschiano-erspan), after a GRE header:
 * the common first word, then type II's index word or type III's. */
struct erspan_header {
	uint16_t ver_vlan;		/* version 4 bits, VLAN 12 bits */
	uint16_t cos_en_t_session;	/* COS 3, En 2, T 1, session id 10 */
} HEADER_PACKED;
#define ERSPAN_HLEN	sizeof(struct erspan_header)
_Static_assert(ERSPAN_HLEN == 4, "ERSPAN header");
#define ERSPAN_VER_SHIFT	12
#define ERSPAN_VLAN_MASK	0x0fff
#define ERSPAN_COS_SHIFT	13
#define ERSPAN_EN_SHIFT		11	/* v1: the VLAN encapsulation, v2: BSO */
#define ERSPAN_T		0x0400	/* the frame was truncated */
#define ERSPAN_SESSION_MASK	0x03ff
#define ERSPAN_V1_INDEX_MASK	0x000fffff
#define ERSPAN_V1_MDLEN		4	/* the index word */

/* Type III's second and third words. */
struct erspan_md2 {
	uint32_t timestamp;
	uint16_t sgt;			/* security group tag */
	uint16_t flags;			/* P, FT 5, hw id 6, D, Gra 2, O */
} HEADER_PACKED;
#define ERSPAN_V2_MDLEN	sizeof(struct erspan_md2)
_Static_assert(ERSPAN_V2_MDLEN == 8, "ERSPAN type III metadata");
#define ERSPAN_MD2_P		0x8000
#define ERSPAN_MD2_HWID_SHIFT	4
#define ERSPAN_MD2_HWID_MASK	0x03f0
#define ERSPAN_MD2_DIR		0x0008

#endif
