/* SPDX-License-Identifier: Apache-2.0 */
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

#include "packet/eth.h"
#include "packet/headers.h"
#include "packet/ip.h"
#include "packet/ipv6-exthdr.h"

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

/* Neighbour solicitation and advertisement: the target and the Ethernet
 * link-layer address options, whichever message carries them. */
static void
parse_nd(const uint8_t *f, size_t len, size_t th, struct flow_key *key)
{
	const struct nd_msg *nd = header_at(f, len, th, sizeof(*nd));
	const struct nd_opt_header *opt;
	size_t ofs, olen;
	uint8_t *ll;

	if (!nd || nd->code != 0 ||
	    (nd->type != ND_NEIGHBOR_SOLICIT && nd->type != ND_NEIGHBOR_ADVERT))
		return;
	memcpy(&key->nd_target, nd->target, sizeof(key->nd_target));
	for (ofs = th + sizeof(*nd);
	     (opt = header_at(f, len, ofs, ND_OPT_UNIT)); ofs += olen) {
		olen = opt->len * ND_OPT_UNIT;
		/* A bad length ends the walk but keeps what was found. */
		if (olen == 0 || olen > len - ofs)
			return;
		if (olen != sizeof(struct nd_lla_opt))
			continue;
		if (opt->type == ND_OPT_SOURCE_LINKADDR)
			ll = key->nd_sll;
		else if (opt->type == ND_OPT_TARGET_LINKADDR)
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
		memcpy(ll, ((const struct nd_lla_opt *)opt)->mac, ETH_ALEN);
	}
}

/* The transport header at th (th <= len). icmp is the ICMP flavour of the
 * L3 protocol. A header too short, or a TCP data offset that does not fit,
 * leaves the L4 fields zero, as the kernel clears them. */
static void
parse_l4(const uint8_t *f, size_t len, size_t th, struct flow_key *key,
	 uint8_t icmp)
{
	const struct tcp_header *tcp;
	const struct l4_ports *ports;

	if (key->ip_proto == icmp) {
		const struct icmp_header *ih = header_at(f, len, th, ICMP_HLEN);

		if (!ih)
			return;
		/* Type and code go in the port fields, 16 bits wide. */
		key->tp_src = htons(ih->type);
		key->tp_dst = htons(ih->code);
		if (icmp == IPPROTO_ICMPV6)
			parse_nd(f, len, th, key);
		return;
	}
	switch (key->ip_proto) {
	case IPPROTO_TCP:
		tcp = header_at(f, len, th, TCP_HLEN);
		if (!tcp || tcp_hlen(tcp) < TCP_HLEN ||
		    !header_at(f, len, th, tcp_hlen(tcp)))
			return;
		/* The data offset's low nibble is gone, NS and reserved
		 * bits stay. */
		key->tcp_flags = tcp->doff_flags & htons(TCP_FLAGS_MASK);
		break;
	case IPPROTO_UDP:
		if (!header_at(f, len, th, UDP_HLEN))
			return;
		break;
	case IPPROTO_SCTP:
		if (!header_at(f, len, th, sizeof(struct sctp_header)))
			return;
		break;
	default:
		return;
	}
	ports = (const struct l4_ports *)(f + th);
	key->tp_src = ports->src;
	key->tp_dst = ports->dst;
}

/* IPv4 at nh. The version is not checked, nor the total length: the
 * kernel does not. A header too short or with a bad IHL leaves every L3
 * field zero, eth_type kept. */
static void
parse_ipv4(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	const struct ipv4_header *ip = ipv4_header_at(f, len, nh, 0);
	uint16_t frag;

	if (!ip)
		return;
	l->l4 = ofs16(nh + ipv4_hlen(ip));
	key->ip_tos = ip->tos;
	key->ip_ttl = ip->ttl;
	key->ip_proto = ip->protocol;
	key->ipv4_src = ip->saddr;
	key->ipv4_dst = ip->daddr;
	frag = ntohs(ip->frag_off);
	if (frag & IPV4_OFFSET) {
		/* A later fragment has no transport header to read. */
		key->ip_frag = OVS_FRAG_TYPE_LATER;
		return;
	}
	key->ip_frag = frag & IPV4_MF ? OVS_FRAG_TYPE_FIRST
				      : OVS_FRAG_TYPE_NONE;
	parse_l4(f, len, nh + ipv4_hlen(ip), key, IPPROTO_ICMP);
}

/* ARP and RARP: only Ethernet/IPv4 ARP fills the key, the rest stays
 * zero. The key has 8 bits for the opcode; larger ones match as 0. */
static void
parse_arp(const uint8_t *f, size_t len, size_t nh, struct flow_key *key)
{
	const struct arp_eth_header *arp = header_at(f, len, nh, sizeof(*arp));
	uint16_t op;

	if (!arp || arp->ar_hrd != htons(ARPHRD_ETHER) ||
	    arp->ar_pro != htons(ETH_P_IP) || arp->ar_hln != ETH_ALEN ||
	    arp->ar_pln != sizeof(arp->ar_spa))
		return;
	op = ntohs(arp->ar_op);
	key->ip_proto = op <= 0xff ? op : 0;
	memcpy(key->arp_sha, arp->ar_sha, ETH_ALEN);
	key->ipv4_src = arp->ar_spa;
	memcpy(key->arp_tha, arp->ar_tha, ETH_ALEN);
	key->ipv4_dst = arp->ar_tpa;
}

/* The label stack: the top FLOW_MPLS_DEPTH labels are kept, the rest are
 * walked to the bottom of stack. The kernel stores labels as it reads them
 * but sets the mask only once it reached the bottom, so a truncated stack
 * keeps its labels with a zero mask. */
static void
parse_mpls(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	const struct mpls_header *mh;
	size_t n, ofs = nh;

	l->l2_5 = l->l3;
	l->l3 = FLOW_OFS_NONE;
	for (n = 0;; n++, ofs += sizeof(*mh)) {
		mh = header_at(f, len, ofs, sizeof(*mh));
		if (!mh)
			return;
		if (n < FLOW_MPLS_DEPTH)
			key->mpls_lse[n] = mh->lse;
		if (mh->lse & htonl(MPLS_LSE_BOS))
			break;
	}
	n = n < FLOW_MPLS_DEPTH ? n + 1 : FLOW_MPLS_DEPTH;
	key->mpls_labels_mask = (1u << n) - 1;
	l->l3 = ofs16(ofs + sizeof(*mh));
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
	struct ipv6_exthdr_walk w;
	unsigned ndest = 0;
	uint16_t seen = 0;

	if (ipv6_exthdr_start(f, len, nh, &w))
		return 0;
	do {
		switch (w.nexthdr) {
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
		default:
			return seen;
		}
	} while (ipv6_exthdr_step(f, len, IPV6_EXTHDR_OPTLEN, &w) > 0);
	return seen;
}

/* IPv6 at nh. A header too short leaves every L3 field zero. The
 * upper-layer header is found as the kernel's ipv6_find_hdr() finds it
 * with no target; a chain it cannot walk keeps the L3 fields with "no
 * next header" as the protocol; a later fragment has the fragment header
 * as its protocol. */
static void
parse_ipv6(const uint8_t *f, size_t len, size_t nh, struct flow_key *key,
	   struct flow_layers *l)
{
	const struct ipv6_header *ip6 = ipv6_header_at(f, len, nh, 0);
	struct ipv6_exthdr_walk w;
	uint32_t vtf;
	int err;

	if (!ip6)
		return;
	key->ipv6_exthdrs = ipv6_exthdrs(f, len, nh);
	vtf = ntohl(ip6->ver_tc_flow);
	key->ip_tos = (vtf >> IPV6_TCLASS_SHIFT) & 0xff;
	key->ip_ttl = ip6->hop_limit;
	key->ipv6_label = htonl(vtf & IPV6_LABEL_MASK);
	memcpy(&key->ipv6_src, ip6->saddr, sizeof(key->ipv6_src));
	memcpy(&key->ipv6_dst, ip6->daddr, sizeof(key->ipv6_dst));

	err = ipv6_exthdr_skip(f, len, nh, IPV6_EXTHDR_AH | IPV6_EXTHDR_FRAG,
			       &w);
	if (w.frag_off) {
		key->ip_frag = OVS_FRAG_TYPE_LATER;
		key->ip_proto = IPPROTO_FRAGMENT;
		return;
	}
	if (w.frag)
		key->ip_frag = OVS_FRAG_TYPE_FIRST;
	if (err) {
		key->ip_proto = IPPROTO_NONE;
		return;
	}
	key->ip_proto = w.nexthdr;
	l->l4 = ofs16(w.off);
	parse_l4(f, len, w.off, key, IPPROTO_ICMPV6);
}

/* NSH at nh: the base header's fields and an MD type 1 context. A
 * header shorter than its length, of another version or of an unknown MD
 * type, or an MD type 1 header not 24 bytes long, fails the packet, as
 * the kernel's parse_nsh(); an MD type 2 context is not looked at. */
static int
parse_nsh(const uint8_t *f, size_t len, size_t nh, struct flow_key *key)
{
	const struct nsh_header *nsh = header_at(f, len, nh, sizeof(*nsh));
	size_t hlen;
	uint16_t word;

	if (!nsh)
		return -EINVAL;
	word = ntohs(nsh->ver_flags_ttl_len);
	hlen = nsh_hlen(nsh);
	if ((word >> NSH_VER_SHIFT) != 0 || !header_at(f, len, nh, hlen))
		return -EINVAL;
	key->nsh.base.flags = (word & NSH_FLAGS_MASK) >> NSH_FLAGS_SHIFT;
	key->nsh.base.ttl = (word & NSH_TTL_MASK) >> NSH_TTL_SHIFT;
	key->nsh.base.mdtype = nsh->md_type;
	key->nsh.base.np = nsh->next_proto;
	key->nsh.base.path_hdr = nsh->path_hdr;
	switch (nsh->md_type) {
	case NSH_MD_TYPE1:
		if (hlen != NSH_MD1_HLEN)
			return -EINVAL;
		memcpy(key->nsh.context, f + nh + sizeof(*nsh),
		       sizeof(key->nsh.context));
		return 0;
	case NSH_MD_TYPE2:
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
		return parse_nsh(f, len, nh, key);
	}
	return 0;
}

/* A tag as the key holds it: the TCI marked present. */
static void
vlan_key(struct flow_vlan *v, const struct vlan_header *tag)
{
	v->tpid = tag->tpid;
	v->tci = tag->tci | htons(FLOW_VLAN_PRESENT);
}

int
flow_extract(const void *frame, size_t len, struct flow_key *key,
	     struct flow_layers *layers)
{
	const size_t l2 = offsetof(struct flow_key, eth_src);
	const struct eth_header *eh = frame;
	struct eth_walk w;

	memset((char *)key + l2, 0, sizeof(*key) - l2);
	key->mac_proto = FLOW_MAC_ETHERNET;
	layers->l2_5 = layers->l3 = layers->l4 = FLOW_OFS_NONE;
	if (eth_walk(frame, len, ETH_TAGS_KEPT, ETH_WALK_LLC, &w))
		return -EINVAL;

	memcpy(key->eth_dst, eh->eth_dst, ETH_ALEN);
	memcpy(key->eth_src, eh->eth_src, ETH_ALEN);
	if (w.n_tags > 0)
		vlan_key(&key->vlan, &w.tag[0]);
	if (w.n_tags > 1)
		vlan_key(&key->cvlan, &w.tag[1]);
	key->eth_type = w.type;
	return parse_l3(frame, len, w.l3, key, layers);
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
	if (eth_type_vlan(eth_type))
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
