/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/encap.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "common/hash.h"
#include "common/unaligned.h"
#include "packet/csum.h"
#include "packet/eth.h"
#include "packet/ip.h"

#define ECN_MASK	0x03
#define ECN_NOT_ECT	0x00
#define ECN_ECT_1	0x01
#define ECN_ECT_0	0x02
#define ECN_CE		0x03

#define ERSPAN_EN_INFRAME	3	/* v1: the VLAN tag kept in the frame */
#define ERSPAN_BSO_SHORT	1	/* v2: below the Ethernet minimum */
#define ERSPAN_BSO_OVERSIZED	2	/* v2: above the Ethernet maximum */

/* The IPv4 demultiplexer looks this far into a GRE packet, and takes the
 * low 7 bits of its second byte as the version it dispatches on. */
#define GRE_DEMUX_MIN		12
#define GRE_DEMUX_VER_MASK	0x7f

/* The outer header's pseudo-header sum for len bytes of UDP. */
static uint32_t
udp_pseudo_sum(const struct encap_outer *o, uint32_t len)
{
	if (o->family == AF_INET)
		return csum_pseudo(&o->ipv4_src, &o->ipv4_dst, 4, IPPROTO_UDP,
				   len);
	return csum_pseudo(&o->ipv6_src, &o->ipv6_dst, 16, IPPROTO_UDP, len);
}

/* The id of a 24-bit VNI or a 32-bit key: its value in the low bits. */
static uint64_t
id_of(uint32_t v)
{
	return htobe64(v);
}

/* The low 32 bits of an id, host order: a GRE key, or a VNI's room. */
static uint32_t
id_low(const struct tun_key *key)
{
	return (uint32_t)be64toh(key->id);
}

/* A GRE header's length: its optional fields as its flags say. */
static size_t
gre_hlen(uint16_t flags)
{
	return GRE_HLEN + !!(flags & GRE_HF_CSUM) * GRE_OPT_LEN +
	       !!(flags & GRE_HF_KEY) * GRE_OPT_LEN +
	       !!(flags & GRE_HF_SEQ) * GRE_OPT_LEN;
}

/* Decapsulation. */

/* The outer ECN field carried into the inner IP header at l3 of the given
 * type, as the kernel's INET_ECN_decapsulate(). */
static int
ecn_decap(uint8_t outer, uint16_t type, uint8_t *l3)
{
	uint8_t inner;

	if (type == htons(ETH_P_IP))
		inner = l3[1];
	else
		inner = get_be32(l3) >> IPV6_TCLASS_SHIFT;
	if ((inner & ECN_MASK) == ECN_NOT_ECT)
		/* Any other outer mark is only logged by the kernel. */
		return (outer & ECN_MASK) == ECN_CE ? -EPROTO : 0;
	if ((outer & ECN_MASK) == ECN_CE)
		inner |= ECN_CE;
	else if ((outer & ECN_MASK) == ECN_ECT_1 &&
		 (inner & ECN_MASK) == ECN_ECT_0)
		inner = (inner & ~ECN_MASK) | ECN_ECT_1;
	else
		return 0;
	if (type == htons(ETH_P_IP)) {
		uint8_t word[2] = { l3[0], inner };

		csum_replace(l3 + offsetof(struct ipv4_header, csum), l3,
			     word, sizeof(word));
		l3[1] = inner;
	} else {
		uint32_t w = get_be32(l3) & ~(0xffu << IPV6_TCLASS_SHIFT);

		w = htonl(w | (uint32_t)inner << IPV6_TCLASS_SHIFT);
		memcpy(l3, &w, sizeof(w));
	}
	return 0;
}

/* The inner packet's own checks, as the kernel makes them once the tunnel
 * headers are pulled: an Ethernet header, the IP header its type (taken
 * without walking VLAN tags, as eth_type_trans() does) or the L3 type
 * promises, and the ECN handover into that header. */
static int
inner_check(const struct encap_outer *outer, uint8_t *data, size_t len,
	    struct encap_inner *in)
{
	uint8_t *p = data + in->off;
	uint16_t type = in->proto;
	size_t l3 = 0, need = 0;

	if (in->proto == htons(ETH_P_TEB)) {
		if (in->len < ETH_HLEN)
			return -EINVAL;
		type = get_unaligned16(p + ETH_ADDRS_LEN);
		l3 = ETH_HLEN;
	}
	if (type == htons(ETH_P_IP))
		need = IPV4_HLEN;
	else if (type == htons(ETH_P_IPV6))
		need = IPV6_HLEN;
	if (!need)
		return 0;
	if (in->len - l3 < need)
		return -EINVAL;
	return ecn_decap(outer->tos, type, p + l3);
}

static void
put_opts(struct tun_key *key, const void *opts, size_t len, uint16_t flag)
{
	key->opts_len = len;
	memcpy(tun_key_opts(key), opts, len);
	key->flags |= flag;
}

static int
vxlan_decap(const struct encap_port *port, const uint8_t *data, size_t len,
	    struct tun_key *key, struct encap_inner *in)
{
	const struct vxlan_header *vh =
		header_at(data, len, UDP_HLEN, VXLAN_HLEN);
	uint32_t flags, vni;

	if (!vh)
		return -EINVAL;
	flags = ntohl(vh->flags);
	vni = ntohl(vh->vni);
	if (!(flags & VXLAN_HF_VNI))
		return -EINVAL;
	flags &= ~VXLAN_HF_VNI;
	in->proto = htons(ETH_P_TEB);
	if (port->gpe) {
		/* Version 0 with a next protocol known, no OAM (not
		 * processed, so dropped). */
		if (!(flags & VXLAN_GPE_NP) || (flags & VXLAN_GPE_VER) ||
		    (flags & VXLAN_GPE_OAM))
			return -EINVAL;
		in->proto = nsh_np_to_eth_type(flags & VXLAN_GPE_PROTO);
		if (!in->proto)
			return -EINVAL;
		flags &= ~(VXLAN_GPE_NP | VXLAN_GPE_PROTO);
	} else if (port->gbp) {
		if (flags & VXLAN_HF_GBP) {
			struct tun_vxlan_opts o = {
				.gbp = flags & (VXLAN_GBP_DONT_LEARN |
						VXLAN_GBP_APPLIED |
						VXLAN_GBP_ID),
			};

			put_opts(key, &o, sizeof(o), TUN_F_VXLAN_OPT);
		}
		/* The extension owns the whole first word. */
		flags &= ~(VXLAN_HF_GBP | 0x00ffffff);
	}
	/* Reserved bits are refused, not ignored as RFC 7348 says. */
	if (flags || (vni & ((1u << VXLAN_VNI_SHIFT) - 1)))
		return -EINVAL;
	key->id = id_of(vni >> VXLAN_VNI_SHIFT);
	key->flags |= TUN_F_KEY;
	in->off = UDP_HLEN + VXLAN_HLEN;
	return 0;
}

static int
geneve_decap(const struct encap_port *port, const uint8_t *data, size_t len,
	     struct tun_key *key, struct encap_inner *in)
{
	const struct geneve_header *gh =
		header_at(data, len, UDP_HLEN, GENEVE_HLEN);
	size_t opts_len;

	if (!gh)
		return -EINVAL;
	if (gh->ver_optlen >> GENEVE_VER_SHIFT)
		return -EINVAL;
	if (!port->l3 && gh->proto != htons(ETH_P_TEB))
		return -EPROTONOSUPPORT;
	opts_len = (gh->ver_optlen & GENEVE_OPTLEN_MASK) * 4;
	if (len - UDP_HLEN - GENEVE_HLEN < opts_len)
		return -EINVAL;
	key->id = id_of((uint32_t)gh->vni[0] << 16 | gh->vni[1] << 8 |
			gh->vni[2]);
	key->flags |= TUN_F_KEY;
	if (gh->flags & GENEVE_F_OAM)
		key->flags |= TUN_F_OAM;
	if (gh->flags & GENEVE_F_CRIT)
		key->flags |= TUN_F_CRIT_OPT;
	/* The options are taken as they come: no TLV is checked. */
	if (opts_len)
		put_opts(key, gh + 1, opts_len, TUN_F_GENEVE_OPT);
	in->off = UDP_HLEN + GENEVE_HLEN + opts_len;
	in->proto = gh->proto;
	return 0;
}

/* bareudp_udp_encap_recv(): the packet right after the UDP header, of
 * the device's protocol: for IPv4, of the version its first byte says
 * (IPv6 only in multiproto mode); MPLS to a multicast outer destination
 * is multicast MPLS, only in multiproto mode. No key. */
static int
bareudp_decap(const struct encap_port *port, const struct encap_outer *outer,
	      const uint8_t *data, size_t len, struct encap_inner *in)
{
	in->off = UDP_HLEN;
	in->proto = port->ethertype;
	if (port->ethertype == htons(ETH_P_IP)) {
		uint8_t version;

		if (len <= UDP_HLEN)
			return -EINVAL;
		version = data[UDP_HLEN] >> 4;
		if (version == 6 && port->multiproto)
			in->proto = htons(ETH_P_IPV6);
		else if (version != 4)
			return -EINVAL;
	} else if (port->ethertype == htons(ETH_P_MPLS_UC)) {
		bool mcast = outer->family == AF_INET
			     ? IN_MULTICAST(ntohl(outer->ipv4_dst))
			     : IN6_IS_ADDR_MULTICAST(&outer->ipv6_dst);

		if (mcast && !port->multiproto)
			return -EINVAL;
		if (mcast)
			in->proto = htons(ETH_P_MPLS_MC);
	}
	return 0;
}

/* The UDP layer's checks before it hands the datagram to the tunnel:
 * the length field (0 in IPv6: all of it), the checksum unless 0 (a zero
 * IPv6 checksum is taken: OVS creates its devices with
 * udp6zerocsumrx). */
static int
udp_decap(const struct encap_port *port, const struct encap_outer *outer,
	  const uint8_t *data, size_t len, struct tun_key *key,
	  struct encap_inner *in)
{
	const struct udp_header *uh = header_at(data, len, 0, UDP_HLEN);
	size_t ulen;
	int err;

	if (!uh)
		return -EINVAL;
	ulen = ntohs(uh->len);
	if (!ulen && outer->family == AF_INET6)
		ulen = len;
	if (ulen < UDP_HLEN || ulen > len)
		return -EINVAL;
	len = ulen;
	if (uh->csum) {
		if (!outer->l4_checked &&
		    csum_fold(csum_add(udp_pseudo_sum(outer, len), data,
				       len)) != 0xffff)
			return -EBADMSG;
		key->flags |= TUN_F_CSUM;
	}
	key->tp_src = uh->src;
	key->tp_dst = uh->dst;
	if (port->kind == ENCAP_VXLAN)
		err = vxlan_decap(port, data, len, key, in);
	else if (port->kind == ENCAP_GENEVE)
		err = geneve_decap(port, data, len, key, in);
	else
		err = bareudp_decap(port, outer, data, len, in);
	in->len = len - in->off;
	return err;
}

/* ERSPAN after a GRE header of hlen bytes: the kernel's erspan_rcv() and
 * ip6erspan_rcv(). A GRE header without options before the ERSPAN type II
 * protocol is type I (no ERSPAN header) to IPv4; IPv6 reads an ERSPAN
 * header there all the same. */
static int
erspan_decap(const struct encap_outer *outer, const uint8_t *data,
	     size_t len, size_t hlen, uint16_t proto, uint32_t session,
	     struct tun_key *key, struct encap_inner *in)
{
	struct tun_erspan_opts o = { 0 };
	size_t md_len = ERSPAN_V2_MDLEN;

	if (outer->family == AF_INET && proto == htons(ETH_P_ERSPAN) &&
	    hlen == GRE_HLEN) {
		in->off = hlen;
	} else {
		const struct erspan_header *eh =
			header_at(data, len, hlen, ERSPAN_HLEN);

		if (!eh)
			return -EINVAL;
		o.version = ntohs(eh->ver_vlan) >> ERSPAN_VER_SHIFT;
		if (o.version == 1)
			md_len = ERSPAN_V1_MDLEN;
		/* Version 0 has no header; any above 2 is sized as 2. */
		in->off = hlen + (o.version ? ERSPAN_HLEN + md_len : 0);
		if (in->off > len)
			return -EINVAL;
	}
	in->len = len - in->off;
	in->proto = htons(ETH_P_TEB);
	if (in->len < ETH_HLEN)
		return -EINVAL;
	/* Where no ERSPAN metadata is, the kernel copies the frame's bytes
	 * there all the same; the Ethernet header holds them. */
	memcpy(&o.u, data + hlen + ERSPAN_HLEN, md_len);
	key->id = id_of(session);
	key->flags |= TUN_F_KEY;
	put_opts(key, &o, sizeof(o), TUN_F_ERSPAN_OPT);
	return 0;
}

/* gre_rcv(), gre_parse_header() and the gretap, ipgre, ip6gretap and
 * erspan receive paths after them. */
static int
gre_decap(const struct encap_port *port, const struct encap_outer *outer,
	  const uint8_t *data, size_t len, struct tun_key *key,
	  struct encap_inner *in)
{
	const struct gre_header *gh = header_at(data, len, 0, GRE_HLEN);
	uint32_t gkey = 0, session = 0;
	uint16_t flags, proto;
	size_t hlen, at;
	bool erspan;

	if (!gh)
		return -EINVAL;
	if (outer->family == AF_INET &&
	    (len < GRE_DEMUX_MIN || (data[1] & GRE_DEMUX_VER_MASK)))
		return -EINVAL;
	flags = ntohs(gh->flags);
	if (flags & (GRE_HF_VERSION | GRE_HF_ROUTING))
		return -EINVAL;
	hlen = gre_hlen(flags);
	if (len < hlen)
		return -EINVAL;
	at = GRE_HLEN;
	if (flags & GRE_HF_CSUM) {
		/* Over the GRE header and all that follows. */
		if (csum_fold(csum_add(0, data, len)) != 0xffff)
			return -EBADMSG;
		at += GRE_OPT_LEN;
	}
	if (flags & GRE_HF_KEY)
		gkey = get_be32(data + at);
	proto = gh->proto;
	/* WCCP: IPv4, after 4 bytes of its own unless an IPv4 header
	 * starts right away. */
	if (!flags && proto == htons(ETH_P_WCCP)) {
		if (len == hlen)
			return -EINVAL;
		proto = htons(ETH_P_IP);
		if ((data[hlen] & 0xf0) != 0x40)
			hlen += 4;
		if (hlen > len)
			return -EINVAL;
	}
	/* ERSPAN's key is its session id. */
	if ((proto == htons(ETH_P_ERSPAN) && hlen != GRE_HLEN) ||
	    proto == htons(ETH_P_ERSPAN2)) {
		const struct erspan_header *eh =
			header_at(data, len, hlen, ERSPAN_HLEN);

		if (!eh)
			return -EINVAL;
		session = ntohs(eh->cos_en_t_session) & ERSPAN_SESSION_MASK;
	}
	erspan = proto == htons(ETH_P_ERSPAN) ||
		 proto == htons(ETH_P_ERSPAN2);
	if (erspan != (port->kind == ENCAP_ERSPAN))
		return -EPROTONOSUPPORT;
	if (erspan) {
		int err = erspan_decap(outer, data, len, hlen, proto, session,
				       key, in);

		if (err)
			return err;
		if (flags & GRE_HF_SEQ)
			key->flags |= TUN_F_SEQ;
	} else {
		if (outer->family == AF_INET && !port->l3 &&
		    proto != htons(ETH_P_TEB))
			return -EPROTONOSUPPORT;	/* no ipgre device */
		/* IPv4 passes on the key and checksum flags only. */
		if (outer->family == AF_INET6 && (flags & GRE_HF_SEQ))
			key->flags |= TUN_F_SEQ;
		if (flags & GRE_HF_KEY) {
			key->id = id_of(gkey);
			key->flags |= TUN_F_KEY;
		}
		in->off = hlen;
		in->len = len - hlen;
		/* An ip6gretap device takes any payload for Ethernet. */
		in->proto = port->l3 ? proto : htons(ETH_P_TEB);
	}
	if (!!(flags & GRE_HF_CSUM) != port->gre_csum_in)
		return -EBADMSG;
	if (flags & GRE_HF_CSUM)
		key->flags |= TUN_F_CSUM;
	return 0;
}

int
encap_decap(const struct encap_port *port, const struct encap_outer *outer,
	    uint8_t *data, size_t len, struct tun_key *key,
	    struct encap_inner *inner)
{
	int err;

	memset(key, 0, sizeof(*key));
	memset(inner, 0, sizeof(*inner));
	if (outer->family == AF_INET) {
		key->ipv4_src = outer->ipv4_src;
		key->ipv4_dst = outer->ipv4_dst;
	} else if (outer->family == AF_INET6) {
		key->ipv6_src = outer->ipv6_src;
		key->ipv6_dst = outer->ipv6_dst;
	} else {
		return -EINVAL;
	}
	key->family = outer->family;
	key->tos = outer->tos;
	key->ttl = outer->ttl;
	if (outer->family == AF_INET && outer->df)
		key->flags |= TUN_F_DF;
	if (encap_udp(port->kind))
		err = udp_decap(port, outer, data, len, key, inner);
	else
		err = gre_decap(port, outer, data, len, key, inner);
	if (!err)
		err = inner_check(outer, data, len, inner);
	return err;
}

/* Encapsulation. */

/* The inner packet as the sender sees it: its L3 type (after up to two
 * VLAN tags and LLC/SNAP, where OVS's key extraction leaves the network
 * header), where that starts, and the IP header's DS field and TTL. */
struct inner_l3 {
	uint16_t type;
	size_t off;
	bool ip;
	uint8_t ds;
	uint8_t ttl;
};

static int
inner_l3(const uint8_t *frame, size_t len, uint16_t proto, struct inner_l3 *l)
{
	memset(l, 0, sizeof(*l));
	l->type = proto;
	if (proto == htons(ETH_P_TEB)) {
		struct eth_walk w;

		if (eth_walk(frame, len, ETH_TAGS_KEPT, ETH_WALK_LLC, &w))
			return -EINVAL;
		l->type = w.type;
		l->off = w.l3;
	}
	if (l->type == htons(ETH_P_IP)) {
		const struct ipv4_header *ip =
			header_at(frame, len, l->off, IPV4_HLEN);

		if (!ip)
			return -EINVAL;
		l->ds = ip->tos;
		l->ttl = ip->ttl;
		l->ip = true;
	} else if (l->type == htons(ETH_P_IPV6)) {
		const struct ipv6_header *ip6 =
			header_at(frame, len, l->off, IPV6_HLEN);

		if (!ip6)
			return -EINVAL;
		l->ds = ntohl(ip6->ver_tc_flow) >> IPV6_TCLASS_SHIFT;
		l->ttl = ip6->hop_limit;
		l->ip = true;
	}
	return 0;
}

/* The outer ECN field from the inner one: copied, but CE sent as ECT(0)
 * (RFC 6040's normal mode, the kernel's INET_ECN_encapsulate()). */
static uint8_t
ecn_encap(uint8_t tos, uint8_t inner)
{
	inner &= ECN_MASK;
	return (tos & ~ECN_MASK) | (inner == ECN_CE ? ECN_ECT_0 : inner);
}

/* The flow hash the source port and the flow label come from: the
 * packet's, else (as the kernel for a packet without one) a hash of the
 * Ethernet addresses and the protocol. */
static uint32_t
flow_hash(const struct encap_tx *tx, const uint8_t *frame, size_t len)
{
	uint64_t w[2] = { 0, 0 };

	if (tx->hash)
		return tx->hash;
	memcpy(w, frame, len < 2 * ETH_ALEN ? len : 2 * ETH_ALEN);
	return hash_words(w, 2, tx->proto);
}

uint16_t
encap_src_port(uint32_t hash, uint16_t min, uint16_t max)
{
	/* The high bits pick the port: fold the low ones in so the hash
	 * is not put on the wire as it is. */
	hash ^= hash << 16;
	return (uint16_t)(((uint64_t)hash * (uint16_t)(max - min)) >> 32) +
	       min;
}

void
encap_udp_ports(const struct encap_port *port, const struct tun_key *key,
		uint32_t hash, uint16_t *src, uint16_t *dst)
{
	if (port->kind == ENCAP_VXLAN) {
		*src = htons(encap_src_port(hash, port->port_min,
					    port->port_max));
		*dst = key->tp_dst ? key->tp_dst : port->dst_port;
	} else if (port->kind == ENCAP_BAREUDP) {
		*src = htons(encap_src_port(hash, port->port_min, UINT16_MAX));
		*dst = port->dst_port;
	} else {
		*src = htons(encap_src_port(hash, 1, UINT16_MAX));
		*dst = port->dst_port;
	}
}

/* Room for hlen bytes in front of the frame: the new start. */
static uint8_t *
push(struct encap_buf *b, size_t hlen)
{
	b->head -= hlen;
	b->len += hlen;
	return b->data + b->head;
}

static void
fill_outer(const struct tun_key *key, uint8_t proto,
	   struct encap_outer *o)
{
	memset(o, 0, sizeof(*o));
	o->family = key->family;
	o->ipv4_src = key->ipv4_src;
	o->ipv4_dst = key->ipv4_dst;
	o->ipv6_src = key->ipv6_src;
	o->ipv6_dst = key->ipv6_dst;
	o->proto = proto;
	o->df = key->family == AF_INET && (key->flags & TUN_F_DF);
}

/* The vxlan or geneve header's length (bareudp has none), and whether it
 * carries proto: bareudp_xmit()'s protocols, its own and multiproto's. */
static int
udp_tunnel_hlen(const struct encap_port *port, const struct tun_key *key,
		const struct encap_tx *tx, size_t *hlen)
{
	if (port->kind == ENCAP_BAREUDP) {
		bool also = port->multiproto &&
			    ((port->ethertype == htons(ETH_P_IP) &&
			      tx->proto == htons(ETH_P_IPV6)) ||
			     (port->ethertype == htons(ETH_P_MPLS_UC) &&
			      tx->proto == htons(ETH_P_MPLS_MC)));

		*hlen = 0;
		return tx->proto == port->ethertype || also ? 0 : -EINVAL;
	}
	if (port->kind == ENCAP_VXLAN) {
		if ((key->flags & TUN_F_VXLAN_OPT) &&
		    key->opts_len < sizeof(struct tun_vxlan_opts))
			return -EINVAL;
		if (port->gpe ? !nsh_np_from_eth_type(tx->proto)
			      : tx->proto != htons(ETH_P_TEB))
			return -EINVAL;
		*hlen = VXLAN_HLEN;
		return 0;
	}
	if (!port->l3 && tx->proto != htons(ETH_P_TEB))
		return -EINVAL;
	*hlen = GENEVE_HLEN;
	/* Options of another kind are not sent (the kernel would send
	 * their room unwritten). */
	if (key->flags & TUN_F_GENEVE_OPT) {
		if (key->opts_len % 4 || key->opts_len > GENEVE_OPTS_MAX)
			return -EINVAL;
		*hlen += key->opts_len;
	}
	return 0;
}

static void
vxlan_write(const struct encap_port *port, const struct tun_key *key,
	    uint16_t proto, struct vxlan_header *vh)
{
	uint32_t flags = VXLAN_HF_VNI;

	if (port->gpe) {
		flags |= VXLAN_GPE_NP | nsh_np_from_eth_type(proto);
	} else if (port->gbp && (key->flags & TUN_F_VXLAN_OPT)) {
		struct tun_vxlan_opts o;

		memcpy(&o, tun_key_opts_const(key), sizeof(o));
		if (o.gbp)
			flags |= VXLAN_HF_GBP |
				 (o.gbp & (VXLAN_GBP_DONT_LEARN |
					   VXLAN_GBP_APPLIED | VXLAN_GBP_ID));
	}
	vh->flags = htonl(flags);
	vh->vni = htonl(id_low(key) << VXLAN_VNI_SHIFT);
}

static void
geneve_write(const struct tun_key *key, uint16_t proto, size_t opts_len,
	     struct geneve_header *gh)
{
	uint32_t vni = id_low(key);

	gh->ver_optlen = opts_len / 4;
	gh->flags = (key->flags & TUN_F_OAM ? GENEVE_F_OAM : 0) |
		    (key->flags & TUN_F_CRIT_OPT ? GENEVE_F_CRIT : 0);
	gh->proto = proto;
	gh->vni[0] = vni >> 16;
	gh->vni[1] = vni >> 8;
	gh->vni[2] = vni;
	gh->reserved = 0;
	memcpy(gh + 1, tun_key_opts_const(key), opts_len);
}

static int
udp_push(const struct encap_port *port, const struct tun_key *key,
	 const struct encap_tx *tx, const struct inner_l3 *l,
	 struct encap_buf *b, struct encap_outer *o)
{
	uint32_t hash = flow_hash(tx, b->data + b->head, b->len);
	struct udp_header *uh;
	uint16_t sport, dport;
	size_t hlen;
	uint8_t *p;
	int err;

	err = udp_tunnel_hlen(port, key, tx, &hlen);
	if (err)
		return err;
	if (port->kind == ENCAP_VXLAN && port->port_min >= port->port_max)
		return -EINVAL;
	if (b->head < UDP_HLEN + hlen)
		return -ENOSPC;
	if (b->len + UDP_HLEN + hlen > UINT16_MAX)
		return -EMSGSIZE;
	p = push(b, UDP_HLEN + hlen);
	uh = (struct udp_header *)p;
	if (port->kind == ENCAP_VXLAN)
		vxlan_write(port, key, tx->proto,
			    (struct vxlan_header *)(uh + 1));
	else if (port->kind == ENCAP_GENEVE)
		geneve_write(key, port->l3 ? tx->proto : htons(ETH_P_TEB),
			     hlen - GENEVE_HLEN, (struct geneve_header *)(uh + 1));
	encap_udp_ports(port, key, hash, &sport, &dport);
	uh->src = sport;
	uh->dst = dport;
	uh->len = htons(b->len);
	uh->csum = 0;

	fill_outer(key, IPPROTO_UDP, o);
	o->tos = ecn_encap(key->tos, l->ds);
	o->ttl = key->ttl;
	/* Geneve sends a TTL of 0 as it is. */
	if (!o->ttl && port->kind == ENCAP_VXLAN)
		o->ttl = ENCAP_TTL_DEFAULT;
	/* Without TUN_F_CSUM no checksum, over IPv6 too (the devices send
	 * a zero one where the key asks for none). */
	if (key->flags & TUN_F_CSUM) {
		uint16_t sum = ~csum_fold(csum_add(udp_pseudo_sum(o, b->len),
						   p, b->len));

		uh->csum = sum ? sum : 0xffff;
	}
	return 0;
}

/* The ERSPAN header and its metadata words, as erspan_build_header() and
 * erspan_build_header_v2() make them. */
static void
erspan_write(const struct tun_key *key, const struct encap_tx *tx,
	     const struct inner_l3 *l, const uint8_t *frame, size_t len,
	     uint8_t *p)
{
	struct erspan_header *eh = (struct erspan_header *)p;
	struct tun_erspan_opts o;
	uint16_t vlan = 0, en = 0;
	uint8_t tos = 0, cos;
	bool tagged = len >= ETH_HLEN + sizeof(vlan) &&
		get_unaligned16(frame + ETH_ADDRS_LEN) == htons(ETH_P_8021Q);
	bool truncated = false;

	memcpy(&o, tun_key_opts_const(key), sizeof(o));
	if (tagged)
		vlan = get_be16(frame + ETH_HLEN) & ERSPAN_VLAN_MASK;
	/* The COS comes from the network header's second byte read as
	 * IPv4's TOS (outer IPv4) or from its traffic class bits read as
	 * IPv6's (outer IPv6), whatever the packet is. */
	if (l->off + 2 <= len)
		tos = key->family == AF_INET ? frame[l->off + 1]
			: (frame[l->off] << 4) | (frame[l->off + 1] >> 4);
	cos = tos >> 5;
	if (l->type == htons(ETH_P_IP))
		truncated = get_be16(frame + l->off +
				     offsetof(struct ipv4_header, tot_len)) >
			    len - l->off;
	else if (l->type == htons(ETH_P_IPV6))
		truncated = get_be16(frame + l->off +
				     offsetof(struct ipv6_header, payload_len)) >
			    len - l->off - IPV6_HLEN;
	if (o.version == 1) {
		uint32_t index = htonl(ntohl(o.u.index) & ERSPAN_V1_INDEX_MASK);

		en = tagged ? ERSPAN_EN_INFRAME : 0;
		memcpy(eh + 1, &index, sizeof(index));
	} else {
		struct erspan_md2 md = {
			.timestamp = htonl(tx->timestamp),
			.flags = htons(ERSPAN_MD2_P |
				       (ntohs(o.u.md2.flags) &
					(ERSPAN_MD2_HWID_MASK | ERSPAN_MD2_DIR))),
		};

		en = len < ETH_ZLEN ? ERSPAN_BSO_SHORT
		     : len > ETH_FRAME_LEN ? ERSPAN_BSO_OVERSIZED : 0;
		memcpy(eh + 1, &md, sizeof(md));
	}
	eh->ver_vlan = htons(o.version << ERSPAN_VER_SHIFT | vlan);
	eh->cos_en_t_session = htons(cos << ERSPAN_COS_SHIFT |
				     en << ERSPAN_EN_SHIFT |
				     (truncated ? ERSPAN_T : 0) |
				     (id_low(key) & ERSPAN_SESSION_MASK));
}

static int
gre_push(const struct encap_port *port, const struct tun_key *key,
	 const struct encap_tx *tx, const struct inner_l3 *l,
	 struct encap_buf *b, struct encap_outer *o)
{
	const uint8_t *frame = b->data + b->head;
	size_t frame_len = b->len, hlen, ehlen = 0;
	uint16_t gflags = 0, proto = tx->proto;
	struct gre_header *gh;
	uint8_t *p, *opt;

	if (port->kind == ENCAP_ERSPAN) {
		struct tun_erspan_opts eo;

		if (!(key->flags & TUN_F_ERSPAN_OPT) ||
		    key->opts_len < sizeof(eo))
			return -EINVAL;
		memcpy(&eo, tun_key_opts_const(key), sizeof(eo));
		if (eo.version != 1 && eo.version != 2)
			return -EINVAL;
		/* Always a sequence number, never a key or checksum. */
		gflags = GRE_HF_SEQ;
		proto = htons(eo.version == 1 ? ETH_P_ERSPAN : ETH_P_ERSPAN2);
		ehlen = ERSPAN_HLEN + (eo.version == 1 ? ERSPAN_V1_MDLEN
						       : ERSPAN_V2_MDLEN);
	} else {
		gflags = (key->flags & TUN_F_CSUM ? GRE_HF_CSUM : 0) |
			 (key->flags & TUN_F_KEY ? GRE_HF_KEY : 0) |
			 (key->flags & TUN_F_SEQ ? GRE_HF_SEQ : 0);
	}
	if ((!port->l3 || port->kind == ENCAP_ERSPAN) &&
	    tx->proto != htons(ETH_P_TEB))
		return -EINVAL;
	hlen = gre_hlen(gflags);
	if (b->head < hlen + ehlen)
		return -ENOSPC;
	if (ehlen)
		erspan_write(key, tx, l, frame, frame_len, push(b, ehlen));
	p = push(b, hlen);
	gh = (struct gre_header *)p;
	gh->flags = htons(gflags);
	gh->proto = proto;
	opt = p + GRE_HLEN;
	if (gflags & GRE_HF_CSUM) {
		memset(opt, 0, GRE_OPT_LEN);
		opt += GRE_OPT_LEN;
	}
	if (gflags & GRE_HF_KEY) {
		uint32_t k = htonl(id_low(key));

		memcpy(opt, &k, sizeof(k));
		opt += GRE_OPT_LEN;
	}
	if (gflags & GRE_HF_SEQ) {
		uint32_t s = htonl(tx->seq);

		memcpy(opt, &s, sizeof(s));
	}
	if (gflags & GRE_HF_CSUM)
		put_unaligned16(p + GRE_HLEN,
				~csum_fold(csum_add(0, p, b->len)));

	fill_outer(key, IPPROTO_GRE, o);
	o->tos = key->tos;
	o->ttl = key->ttl;
	if (!o->ttl)
		o->ttl = l->ip ? l->ttl : ENCAP_TTL_DEFAULT;
	if (key->family == AF_INET) {
		/* TOS 1 asks for the inner packet's. */
		if (o->tos == 1 && l->ip)
			o->tos = l->ds;
		o->tos = ecn_encap(o->tos, l->ds);
	} else {
		/* IPv6 sends the key's class as it is, and a flow label
		 * from the flow hash. */
		uint32_t h = flow_hash(tx, frame, frame_len);

		o->label = (h << 16 | h >> 16) & IPV6_LABEL_MASK;
	}
	return 0;
}

int
encap_push(const struct encap_port *port, const struct tun_key *key,
	   const struct encap_tx *tx, struct encap_buf *b,
	   struct encap_outer *outer)
{
	struct inner_l3 l;
	int err;

	if (key->family != AF_INET && key->family != AF_INET6)
		return -EINVAL;
	err = inner_l3(b->data + b->head, b->len, tx->proto, &l);
	if (err)
		return err;
	if (encap_udp(port->kind))
		return udp_push(port, key, tx, &l, b, outer);
	return gre_push(port, key, tx, &l, b, outer);
}

int
encap_push_ip(const struct encap_outer *o, uint16_t id, struct encap_buf *b)
{
	if (o->family == AF_INET) {
		struct ipv4_header *ip;

		if (b->head < IPV4_HLEN)
			return -ENOSPC;
		if (b->len + IPV4_HLEN > UINT16_MAX)
			return -EMSGSIZE;
		ip = (struct ipv4_header *)push(b, IPV4_HLEN);
		ip->ver_ihl = 4 << 4 | IPV4_HLEN / 4;
		ip->tos = o->tos;
		ip->tot_len = htons(b->len);
		ip->id = htons(id);
		ip->frag_off = o->df ? htons(IPV4_DF) : 0;
		ip->ttl = o->ttl;
		ip->protocol = o->proto;
		ip->saddr = o->ipv4_src;
		ip->daddr = o->ipv4_dst;
		ipv4_set_csum(ip);
		return 0;
	}
	if (o->family == AF_INET6) {
		struct ipv6_header *ip6;

		if (b->head < IPV6_HLEN)
			return -ENOSPC;
		if (b->len > UINT16_MAX)
			return -EMSGSIZE;
		ip6 = (struct ipv6_header *)push(b, IPV6_HLEN);
		ip6->ver_tc_flow = htonl(6u << 28 |
					 (uint32_t)o->tos << IPV6_TCLASS_SHIFT |
					 (o->label & IPV6_LABEL_MASK));
		ip6->payload_len = htons(b->len - IPV6_HLEN);
		ip6->nexthdr = o->proto;
		ip6->hop_limit = o->ttl;
		memcpy(ip6->saddr, &o->ipv6_src, sizeof(ip6->saddr));
		memcpy(ip6->daddr, &o->ipv6_dst, sizeof(ip6->daddr));
		return 0;
	}
	return -EINVAL;
}
