#include "flow/extract.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/openvswitch.h>
#include <net/if_arp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "common/unaligned.h"

/* Header sizes, as the kernel checks them. */
#define VLAN_HLEN	4
#define SNAP_HLEN	8	/* dsap, ssap, ctrl, oui[3], ethertype */
#define ARP_ETH_LEN	28	/* Ethernet/IPv4 ARP with its addresses */
#define MPLS_HLEN	4
#define NSH_BASE_HLEN	8
#define NSH_MD1_HLEN	24
#define IPV4_HLEN	20
#define IPV6_HLEN	40
#define TCP_HLEN	20
#define UDP_HLEN	8
#define SCTP_HLEN	12
#define ICMP_HLEN	8	/* ICMP and ICMPv6 alike */
#define ND_HLEN		24	/* ICMPv6 header and target address */
#define ND_OPT_LL_LEN	8	/* an Ethernet link-layer address option */

#define LLC_SAP_SNAP	0xaa
#define MPLS_BOS	0x00000100
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define IPV6_LABEL	0x000fffff
#define TCP_FLAGS	0x0fff

static uint16_t
ofs16(size_t ofs)
{
	return ofs < FLOW_OFS_NONE ? ofs : FLOW_OFS_NONE;
}

static bool
zero_mac(const uint8_t *m)
{
	return !(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]);
}

/* One 802.1Q or 802.1ad tag at *ofs. A tag with no room for the ethertype
 * after it is not a tag to the kernel: its TPID becomes the ethertype. */
static bool
vlan_tag(const uint8_t *f, size_t len, size_t *ofs, struct flow_vlan *vh)
{
	uint16_t tpid = get_unaligned16(f + *ofs);

	if (tpid != htons(ETH_P_8021Q) && tpid != htons(ETH_P_8021AD))
		return false;
	if (len - *ofs < VLAN_HLEN + 2)
		return false;
	vh->tpid = tpid;
	vh->tci = get_unaligned16(f + *ofs + 2) | htons(FLOW_VLAN_PRESENT);
	*ofs += VLAN_HLEN;
	return true;
}

/* The type field at *ofs, leaving *ofs on the L2 payload. Below 0x600 it
 * is an 802.3 length: only LLC/SNAP with a zero OUI carries an ethertype,
 * anything else is 802.2. A SNAP header is skipped even when its ethertype
 * is not one, as the kernel does. */
static uint16_t
ethertype(const uint8_t *f, size_t len, size_t *ofs)
{
	uint16_t type = get_unaligned16(f + *ofs);
	const uint8_t *llc;

	*ofs += 2;
	if (ntohs(type) >= ETH_P_802_3_MIN)
		return type;
	if (len - *ofs < SNAP_HLEN)
		return htons(ETH_P_802_2);
	llc = f + *ofs;
	if (llc[0] != LLC_SAP_SNAP || llc[1] != LLC_SAP_SNAP ||
	    (llc[3] | llc[4] | llc[5]) != 0)
		return htons(ETH_P_802_2);
	*ofs += SNAP_HLEN;
	type = get_unaligned16(llc + 6);
	return ntohs(type) >= ETH_P_802_3_MIN ? type : htons(ETH_P_802_2);
}

/* Neighbour solicitation and advertisement: the target and the Ethernet
 * link-layer address options, whichever message carries them. */
static void
parse_nd(const uint8_t *f, size_t len, size_t th, struct flow_key *key)
{
	size_t ofs, olen;
	uint8_t *ll;

	switch (f[th]) {
	case ND_NEIGHBOR_SOLICIT:
	case ND_NEIGHBOR_ADVERT:
		break;
	default:
		return;
	}
	if (f[th + 1] != 0 || len - th < ND_HLEN)
		return;
	memcpy(&key->nd_target, f + th + 8, sizeof(key->nd_target));
	for (ofs = th + ND_HLEN; len - ofs >= 8; ofs += olen) {
		olen = f[ofs + 1] * 8;
		/* A bad length ends the walk but keeps what was found. */
		if (olen == 0 || olen > len - ofs)
			return;
		if (olen != ND_OPT_LL_LEN)
			continue;
		if (f[ofs] == ND_OPT_SOURCE_LINKADDR)
			ll = key->nd_sll;
		else if (f[ofs] == ND_OPT_TARGET_LINKADDR)
			ll = key->nd_tll;
		else
			continue;
		/* A second (non-zero) address of one kind voids the lot. */
		if (!zero_mac(ll)) {
			memset(&key->nd_target, 0, sizeof(key->nd_target));
			memset(key->nd_sll, 0, sizeof(key->nd_sll));
			memset(key->nd_tll, 0, sizeof(key->nd_tll));
			return;
		}
		memcpy(ll, f + ofs + 2, ETH_ALEN);
	}
}

/* The transport header at th (th <= len). icmp is the ICMP flavour of the
 * L3 protocol. A header too short, or a TCP data offset that does not fit,
 * leaves the L4 fields zero, as the kernel clears them. */
static void
parse_l4(const uint8_t *f, size_t len, size_t th, struct flow_key *key,
	 uint8_t icmp)
{
	size_t hlen;

	if (key->ip_proto == icmp) {
		if (len - th < ICMP_HLEN)
			return;
		/* Type and code go in the port fields, 16 bits wide. */
		key->tp_src = htons(f[th]);
		key->tp_dst = htons(f[th + 1]);
		if (icmp == IPPROTO_ICMPV6)
			parse_nd(f, len, th, key);
		return;
	}
	switch (key->ip_proto) {
	case IPPROTO_TCP:
		if (len - th < TCP_HLEN)
			return;
		hlen = (f[th + 12] >> 4) * 4;
		if (hlen < TCP_HLEN || len - th < hlen)
			return;
		/* The data offset's low nibble is gone, NS and reserved
		 * bits stay. */
		key->tcp_flags = get_unaligned16(f + th + 12) & htons(TCP_FLAGS);
		break;
	case IPPROTO_UDP:
		if (len - th < UDP_HLEN)
			return;
		break;
	case IPPROTO_SCTP:
		if (len - th < SCTP_HLEN)
			return;
		break;
	default:
		return;
	}
	key->tp_src = get_unaligned16(f + th);
	key->tp_dst = get_unaligned16(f + th + 2);
}

/* IPv4 at nh. The version is not checked, nor the total length: the
 * kernel does not. A header too short or with a bad IHL leaves every L3
 * field zero, eth_type kept. */
static void
parse_ipv4(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	size_t ihl;
	uint16_t frag;

	if (len - nh < IPV4_HLEN)
		return;
	ihl = (f[nh] & 0x0f) * 4;
	if (ihl < IPV4_HLEN || len - nh < ihl)
		return;
	l->l4 = ofs16(nh + ihl);
	key->ip_tos = f[nh + 1];
	key->ip_ttl = f[nh + 8];
	key->ip_proto = f[nh + 9];
	memcpy(&key->ipv4_src, f + nh + 12, sizeof(key->ipv4_src));
	memcpy(&key->ipv4_dst, f + nh + 16, sizeof(key->ipv4_dst));
	frag = ntohs(get_unaligned16(f + nh + 6));
	if (frag & IP_OFFSET) {
		/* A later fragment has no transport header to read. */
		key->ip_frag = OVS_FRAG_TYPE_LATER;
		return;
	}
	key->ip_frag = frag & IP_MF ? OVS_FRAG_TYPE_FIRST : OVS_FRAG_TYPE_NONE;
	parse_l4(f, len, nh + ihl, key, IPPROTO_ICMP);
}

/* ARP and RARP: only Ethernet/IPv4 ARP fills the key, the rest stays
 * zero. The key has 8 bits for the opcode; larger ones match as 0. */
static void
parse_arp(const uint8_t *f, size_t len, size_t nh, struct flow_key *key)
{
	uint16_t op;

	if (len - nh < ARP_ETH_LEN ||
	    get_unaligned16(f + nh) != htons(ARPHRD_ETHER) ||
	    get_unaligned16(f + nh + 2) != htons(ETH_P_IP) ||
	    f[nh + 4] != ETH_ALEN || f[nh + 5] != 4)
		return;
	op = ntohs(get_unaligned16(f + nh + 6));
	key->ip_proto = op <= 0xff ? op : 0;
	memcpy(key->arp_sha, f + nh + 8, ETH_ALEN);
	memcpy(&key->ipv4_src, f + nh + 14, sizeof(key->ipv4_src));
	memcpy(key->arp_tha, f + nh + 18, ETH_ALEN);
	memcpy(&key->ipv4_dst, f + nh + 24, sizeof(key->ipv4_dst));
}

/* The label stack: the top FLOW_MPLS_DEPTH labels are kept, the rest are
 * walked to the bottom of stack. The kernel stores labels as it reads them
 * but sets the mask only once it reached the bottom, so a truncated stack
 * keeps its labels with a zero mask. */
static void
parse_mpls(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	size_t n, ofs = nh;
	uint32_t lse;

	l->l2_5 = l->l3;
	l->l3 = FLOW_OFS_NONE;
	for (n = 0;; n++, ofs += MPLS_HLEN) {
		if (len - ofs < MPLS_HLEN)
			return;
		lse = get_unaligned32(f + ofs);
		if (n < FLOW_MPLS_DEPTH)
			key->mpls_lse[n] = lse;
		if (lse & htonl(MPLS_BOS))
			break;
	}
	n = n < FLOW_MPLS_DEPTH ? n + 1 : FLOW_MPLS_DEPTH;
	key->mpls_labels_mask = (1u << n) - 1;
	l->l3 = ofs16(ofs + MPLS_HLEN);
}

/* What the kernel's ipv6_ext_hdr() calls an extension header: not ESP. */
static bool
ipv6_ext(uint8_t nexthdr)
{
	switch (nexthdr) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_NONE:
	case IPPROTO_DSTOPTS:
		return true;
	default:
		return false;
	}
}

/* One more header of kind bit, which RFC 2460 orders after those in
 * before; a third destination options header breaks any order. */
static uint16_t
exthdr_seen(uint16_t seen, uint16_t bit, uint16_t before, unsigned ndest)
{
	if (seen & bit)
		seen |= FLOW_IPV6_EXTHDR_UNREP;
	if ((seen & ~(before | FLOW_IPV6_EXTHDR_UNREP)) || ndest >= 2)
		seen |= FLOW_IPV6_EXTHDR_UNSEQ;
	return seen | bit;
}

/* The extension headers present and whether they follow the order RFC 2460
 * recommends. The kernel steps over every header with the generic length,
 * AH and fragment headers included, and stops at the first one it cannot
 * read; ESP is not an extension header to it, so ESP is never flagged. */
static uint16_t
ipv6_exthdrs(const uint8_t *f, size_t len, size_t nh)
{
	uint8_t next = f[nh + 6];
	size_t ofs = nh + IPV6_HLEN;
	unsigned ndest = 0;
	uint16_t seen = 0;

	while (ipv6_ext(next)) {
		switch (next) {
		case IPPROTO_NONE:
			return seen | FLOW_IPV6_EXTHDR_NONEXT;
		case IPPROTO_HOPOPTS:
			if (seen & FLOW_IPV6_EXTHDR_HOP)
				seen |= FLOW_IPV6_EXTHDR_UNREP;
			/* Hop-by-hop counts only as the first header. */
			seen |= seen ? FLOW_IPV6_EXTHDR_UNSEQ :
			    FLOW_IPV6_EXTHDR_HOP;
			break;
		case IPPROTO_DSTOPTS:
			/* Two are expected: before routing, and last. */
			if (ndest == 0) {
				seen = exthdr_seen(seen, FLOW_IPV6_EXTHDR_DEST,
				    FLOW_IPV6_EXTHDR_HOP, 0);
			} else if (ndest == 1) {
				if (seen & ~(FLOW_IPV6_EXTHDR_HOP |
				    FLOW_IPV6_EXTHDR_DEST |
				    FLOW_IPV6_EXTHDR_ROUTER |
				    FLOW_IPV6_EXTHDR_FRAG |
				    FLOW_IPV6_EXTHDR_AUTH |
				    FLOW_IPV6_EXTHDR_UNREP))
					seen |= FLOW_IPV6_EXTHDR_UNSEQ;
			} else {
				seen |= FLOW_IPV6_EXTHDR_UNREP;
			}
			ndest++;
			break;
		case IPPROTO_ROUTING:
			seen = exthdr_seen(seen, FLOW_IPV6_EXTHDR_ROUTER,
			    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_DEST, ndest);
			break;
		case IPPROTO_FRAGMENT:
			seen = exthdr_seen(seen, FLOW_IPV6_EXTHDR_FRAG,
			    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_DEST |
			    FLOW_IPV6_EXTHDR_ROUTER, ndest);
			break;
		case IPPROTO_AH:
			seen = exthdr_seen(seen, FLOW_IPV6_EXTHDR_AUTH,
			    FLOW_IPV6_EXTHDR_HOP | FLOW_IPV6_EXTHDR_DEST |
			    FLOW_IPV6_EXTHDR_ROUTER | FLOW_IPV6_EXTHDR_FRAG,
			    ndest);
			break;
		}
		if (ofs + 2 > len)
			break;
		next = f[ofs];
		ofs += (f[ofs + 1] + 1) * 8;
	}
	return seen;
}

/* The upper-layer header, found as the kernel's ipv6_find_hdr() finds it
 * with no target: returns its protocol and sets *th, or returns -1 when
 * the chain is truncated. *frag tells a fragment header was met, and
 * *fragoff is the offset of a later fragment, which ends the walk; the
 * kernel gives up (-1, offset 0) if another extension header follows it. */
static int
ipv6_upper(const uint8_t *f, size_t len, size_t nh, size_t *th, bool *frag,
	   uint16_t *fragoff)
{
	uint8_t next = f[nh + 6];
	size_t ofs = nh + IPV6_HLEN, hlen;
	uint16_t off;

	while (ipv6_ext(next) && next != IPPROTO_NONE) {
		if (len - ofs < 2)
			return -1;
		if (next == IPPROTO_FRAGMENT) {
			*frag = true;
			if (len - ofs < 4)
				return -1;
			off = ntohs(get_unaligned16(f + ofs + 2)) & ~7;
			if (off) {
				if (ipv6_ext(f[ofs]) && f[ofs] != IPPROTO_NONE)
					return -1;
				*fragoff = off;
				return f[ofs];
			}
			hlen = 8;
		} else if (next == IPPROTO_AH) {
			hlen = (f[ofs + 1] + 2) * 4;
		} else {
			/* A routing header must hold its fixed part. */
			if (next == IPPROTO_ROUTING && len - ofs < 4)
				return -1;
			hlen = (f[ofs + 1] + 1) * 8;
		}
		if (len - ofs < hlen)
			return -1;
		next = f[ofs];
		ofs += hlen;
	}
	*th = ofs;
	return next;
}

/* IPv6 at nh. A header too short leaves every L3 field zero. A chain the
 * kernel cannot walk keeps the L3 fields with "no next header" as the
 * protocol; a later fragment has the fragment header as its protocol. */
static void
parse_ipv6(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	uint16_t fragoff = 0;
	bool frag = false;
	size_t th = 0;
	int proto;

	if (len - nh < IPV6_HLEN)
		return;
	key->ipv6_exthdrs = ipv6_exthdrs(f, len, nh);
	key->ip_tos = (ntohs(get_unaligned16(f + nh)) >> 4) & 0xff;
	key->ip_ttl = f[nh + 7];
	key->ipv6_label = get_unaligned32(f + nh) & htonl(IPV6_LABEL);
	memcpy(&key->ipv6_src, f + nh + 8, sizeof(key->ipv6_src));
	memcpy(&key->ipv6_dst, f + nh + 24, sizeof(key->ipv6_dst));

	proto = ipv6_upper(f, len, nh, &th, &frag, &fragoff);
	if (fragoff) {
		key->ip_frag = OVS_FRAG_TYPE_LATER;
		key->ip_proto = IPPROTO_FRAGMENT;
		return;
	}
	if (frag)
		key->ip_frag = OVS_FRAG_TYPE_FIRST;
	if (proto < 0) {
		key->ip_proto = IPPROTO_NONE;
		return;
	}
	key->ip_proto = proto;
	l->l4 = ofs16(th);
	parse_l4(f, len, th, key, IPPROTO_ICMPV6);
}

/* The key has no NSH fields, but the kernel drops a frame whose NSH header
 * it cannot parse, so its checks are kept. */
static int
check_nsh(const uint8_t *f, size_t len, size_t nh)
{
	uint16_t word;
	size_t hlen;

	if (len - nh < NSH_BASE_HLEN)
		return -EINVAL;
	word = ntohs(get_unaligned16(f + nh));
	hlen = (word & 0x3f) * 4;
	if ((word >> 14) != 0 || len - nh < hlen)
		return -EINVAL;
	switch (f[nh + 2]) {	/* MD type */
	case 1:
		return hlen == NSH_MD1_HLEN ? 0 : -EINVAL;
	case 2:
		return 0;
	default:
		return -EINVAL;
	}
}

/* The L3 header at nh and what it carries, for either kind of packet. */
static int
parse_l3(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	 struct flow_layers *layers)
{
	layers->l3 = ofs16(nh);
	switch (ntohs(key->eth_type)) {
	case ETH_P_IP:
		parse_ipv4(f, len, nh, key, layers);
		break;
	case ETH_P_ARP:
	case ETH_P_RARP:
		parse_arp(f, len, nh, key);
		break;
	case ETH_P_MPLS_UC:
	case ETH_P_MPLS_MC:
		parse_mpls(f, len, nh, key, layers);
		break;
	case ETH_P_IPV6:
		parse_ipv6(f, len, nh, key, layers);
		break;
	case ETH_P_NSH:
		return check_nsh(f, len, nh);
	}
	return 0;
}

int
flow_extract(const void *frame, size_t len, struct flow_key *key,
	     struct flow_layers *layers)
{
	const size_t l2 = offsetof(struct flow_key, eth_src);
	const uint8_t *f = frame;
	size_t nh = 2 * ETH_ALEN;

	memset((char *)key + l2, 0, sizeof(*key) - l2);
	key->mac_proto = FLOW_MAC_ETHERNET;
	layers->l2_5 = layers->l3 = layers->l4 = FLOW_OFS_NONE;
	if (len < ETH_HLEN)
		return -EINVAL;

	memcpy(key->eth_dst, f, ETH_ALEN);
	memcpy(key->eth_src, f + ETH_ALEN, ETH_ALEN);
	/* The inner tag is looked for only behind an outer one. */
	if (vlan_tag(f, len, &nh, &key->vlan))
		vlan_tag(f, len, &nh, &key->cvlan);
	key->eth_type = ethertype(f, len, &nh);
	return parse_l3(f, len, nh, key, layers);
}

int
flow_extract_l3(const void *packet, size_t len, uint16_t eth_type,
		struct flow_key *key, struct flow_layers *layers)
{
	const size_t l2 = offsetof(struct flow_key, eth_src);

	memset((char *)key + l2, 0, sizeof(*key) - l2);
	key->mac_proto = FLOW_MAC_NONE;
	key->eth_type = eth_type;
	layers->l2_5 = layers->l3 = layers->l4 = FLOW_OFS_NONE;
	/* A VLAN tag needs the Ethernet header it follows. */
	if (eth_type == htons(ETH_P_8021Q) || eth_type == htons(ETH_P_8021AD))
		return -EINVAL;
	return parse_l3(packet, len, 0, key, layers);
}

int
flow_extract_packet(const void *data, size_t len, bool l3,
		    struct flow_key *key, struct flow_layers *layers)
{
	return l3 ? flow_extract_l3(data, len, key->eth_type, key, layers)
		  : flow_extract(data, len, key, layers);
}
