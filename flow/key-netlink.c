/* SPDX-License-Identifier: Apache-2.0 */
#include "flow/key-netlink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <string.h>

#include "common/kernel-profile.h"
#include "common/nlerr.h"
#include "flow/tun-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "packet/headers.h"

#define ATTR_NESTED_LEN		-1
#define ATTR_VARIABLE_LEN	-2
#define KEY_ATTR_MAX		OVS_KEY_ATTR_IPV6_EXTHDRS
#define BIT(t)			(1ULL << (t))
#define NDISC_NS		135
#define NDISC_NA		136

/* The exact payload length of each key attribute. */
static const int key_lens[KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_ENCAP] = ATTR_NESTED_LEN,
	[OVS_KEY_ATTR_PRIORITY] = 4,
	[OVS_KEY_ATTR_IN_PORT] = 4,
	[OVS_KEY_ATTR_SKB_MARK] = 4,
	[OVS_KEY_ATTR_ETHERNET] = sizeof(struct ovs_key_ethernet),
	[OVS_KEY_ATTR_VLAN] = 2,
	[OVS_KEY_ATTR_ETHERTYPE] = 2,
	[OVS_KEY_ATTR_IPV4] = sizeof(struct ovs_key_ipv4),
	[OVS_KEY_ATTR_IPV6] = sizeof(struct ovs_key_ipv6),
	[OVS_KEY_ATTR_TCP] = sizeof(struct ovs_key_tcp),
	[OVS_KEY_ATTR_TCP_FLAGS] = 2,
	[OVS_KEY_ATTR_UDP] = sizeof(struct ovs_key_udp),
	[OVS_KEY_ATTR_SCTP] = sizeof(struct ovs_key_sctp),
	[OVS_KEY_ATTR_ICMP] = sizeof(struct ovs_key_icmp),
	[OVS_KEY_ATTR_ICMPV6] = sizeof(struct ovs_key_icmpv6),
	[OVS_KEY_ATTR_ARP] = sizeof(struct ovs_key_arp),
	[OVS_KEY_ATTR_ND] = sizeof(struct ovs_key_nd),
	[OVS_KEY_ATTR_RECIRC_ID] = 4,
	[OVS_KEY_ATTR_DP_HASH] = 4,
	[OVS_KEY_ATTR_TUNNEL] = ATTR_NESTED_LEN,
	[OVS_KEY_ATTR_MPLS] = ATTR_VARIABLE_LEN,
	[OVS_KEY_ATTR_CT_STATE] = 4,
	[OVS_KEY_ATTR_CT_ZONE] = 2,
	[OVS_KEY_ATTR_CT_MARK] = 4,
	[OVS_KEY_ATTR_CT_LABELS] = sizeof(struct ovs_key_ct_labels),
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4] =
		sizeof(struct ovs_key_ct_tuple_ipv4),
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6] =
		sizeof(struct ovs_key_ct_tuple_ipv6),
	[OVS_KEY_ATTR_NSH] = ATTR_NESTED_LEN,
	[OVS_KEY_ATTR_IPV6_EXTHDRS] = sizeof(struct ovs_key_ipv6_exthdrs),
};

/* Conntrack state bits the datapath knows (all of them, with NAT). */
#define CT_SUPPORTED_MASK						\
	(OVS_CS_F_NEW | OVS_CS_F_ESTABLISHED | OVS_CS_F_RELATED |	\
	 OVS_CS_F_REPLY_DIR | OVS_CS_F_INVALID | OVS_CS_F_TRACKED |	\
	 OVS_CS_F_SRC_NAT | OVS_CS_F_DST_NAT)

struct match {
	struct flow_key *key;
	struct flow_key *mask;
};

static bool
is_vlan_type(uint16_t be_type)
{
	return be_type == htons(ETH_P_8021Q) || be_type == htons(ETH_P_8021AD);
}

static bool
is_mpls_type(uint16_t be_type)
{
	return be_type == htons(ETH_P_MPLS_UC) ||
	       be_type == htons(ETH_P_MPLS_MC);
}

static uint16_t
get_be16(const struct nlattr *a)
{
	return attr_get_u16(a);
}

static bool
all_zero(const void *p, int len)
{
	const uint8_t *b = p;

	for (int i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* The payload length the profile's kernel wanted for a key attribute: one
 * label's worth of MPLS where it knew only one. */
static int
key_len(uint16_t type)
{
	if (type == OVS_KEY_ATTR_MPLS && kernel_profile()->mpls_labels == 1)
		return sizeof(struct ovs_key_mpls);
	return key_lens[type];
}

/* Collects the attributes of one nest into a[] and *attrs. For a mask (nz),
 * an all-zero attribute is as good as absent. */
static int
collect(const void *data, int len, const struct nlattr **a, uint64_t *attrs,
	bool log, bool nz)
{
	const struct nlattr *nla;
	int rem;

	int max = kernel_profile()->key_max;

	attr_for_each(nla, data, len, rem) {
		uint16_t type = attr_type(nla);
		int want;

		if (type > max) {
			ovs_nlerr(log, "Key type %d is out of range max %d",
				  type, max);
			return -EINVAL;
		}
		if (type == OVS_KEY_ATTR_PACKET_TYPE ||
		    type == OVS_KEY_ATTR_ND_EXTENSIONS ||
		    type == OVS_KEY_ATTR_TUNNEL_INFO) {
			ovs_nlerr(log, "Key type %d is not supported", type);
			return -EINVAL;
		}
		if (*attrs & BIT(type)) {
			ovs_nlerr(log, "Duplicate key (type %d).", type);
			return -EINVAL;
		}
		want = key_len(type);
		if (want >= 0 && attr_len(nla) != want) {
			ovs_nlerr(log, "Key %d has unexpected len %d expected "
				  "%d", type, attr_len(nla), want);
			return -EINVAL;
		}
		if (!nz || !all_zero(attr_data(nla), attr_len(nla))) {
			*attrs |= BIT(type);
			a[type] = nla;
		}
	}
	if (rem) {
		ovs_nlerr(log, "Message has %d unknown bytes.", rem);
		return -EINVAL;
	}
	return 0;
}

static int
collect_nest(const struct nlattr *nest, const struct nlattr **a,
	     uint64_t *attrs, bool log, bool nz)
{
	return collect(attr_data(nest), attr_len(nest), a, attrs, log, nz);
}

static struct flow_vlan *
vlan_of(struct flow_key *k, bool inner)
{
	return inner ? &k->cvlan : &k->vlan;
}

/* 1 when this level is a VLAN to decode, 0 when it is not, or -EINVAL. */
static int
vlan_key_check(uint64_t attrs, bool inner, const struct nlattr **a, bool log)
{
	const char *what = inner ? "C-VLAN" : "VLAN";
	uint16_t tci = 0;

	if (!((attrs & BIT(OVS_KEY_ATTR_ETHERNET)) &&
	      (attrs & BIT(OVS_KEY_ATTR_ETHERTYPE)) &&
	      is_vlan_type(get_be16(a[OVS_KEY_ATTR_ETHERTYPE]))))
		return 0;
	if (!((attrs & BIT(OVS_KEY_ATTR_VLAN)) &&
	      (attrs & BIT(OVS_KEY_ATTR_ENCAP)))) {
		ovs_nlerr(log, "Invalid %s frame", what);
		return -EINVAL;
	}
	if (a[OVS_KEY_ATTR_VLAN])
		tci = get_be16(a[OVS_KEY_ATTR_VLAN]);
	if (!(tci & htons(FLOW_VLAN_PRESENT))) {
		if (tci) {
			ovs_nlerr(log, "%s TCI does not have VLAN_CFI_MASK bit "
				  "set.", what);
			return -EINVAL;
		}
		if (attr_len(a[OVS_KEY_ATTR_ENCAP])) {
			ovs_nlerr(log, "Truncated %s header has non-zero encap "
				  "attribute.", what);
			return -EINVAL;
		}
	}
	return 1;
}

static int
vlan_mask_check(const struct match *m, uint64_t attrs, bool inner,
		const struct nlattr **a, bool log)
{
	const char *what = inner ? "C-VLAN" : "VLAN";
	uint16_t tci = 0, tpid = 0;

	if (!(attrs & BIT(OVS_KEY_ATTR_ENCAP)))
		return 0;
	if (!(vlan_of(m->key, inner)->tci & htons(FLOW_VLAN_PRESENT))) {
		ovs_nlerr(log, "Encap mask attribute is set for non-%s frame.",
			  what);
		return -EINVAL;
	}
	/* As the kernel, a[] still holds the key's attributes where the mask
	 * has none. */
	if (a[OVS_KEY_ATTR_VLAN])
		tci = get_be16(a[OVS_KEY_ATTR_VLAN]);
	if (a[OVS_KEY_ATTR_ETHERTYPE])
		tpid = get_be16(a[OVS_KEY_ATTR_ETHERTYPE]);
	if (tpid != htons(0xffff)) {
		ovs_nlerr(log, "Must have an exact match on %s TPID (mask=%x).",
			  what, ntohs(tpid));
		return -EINVAL;
	}
	if (!(tci & htons(FLOW_VLAN_PRESENT))) {
		ovs_nlerr(log, "%s TCI mask does not have exact match for "
			  "VLAN_CFI_MASK bit.", what);
		return -EINVAL;
	}
	return 1;
}

static int
vlan_level(struct match *m, uint64_t *attrs, bool inner,
	   const struct nlattr **a, bool is_mask, bool log)
{
	struct flow_key *k = is_mask ? m->mask : m->key;
	struct flow_vlan *v = vlan_of(k, inner);
	int err;

	err = is_mask ? vlan_mask_check(m, *attrs, inner, a, log)
		      : vlan_key_check(*attrs, inner, a, log);
	if (err <= 0)
		return err;
	v->tci = a[OVS_KEY_ATTR_VLAN] ? get_be16(a[OVS_KEY_ATTR_VLAN]) : 0;
	v->tpid = a[OVS_KEY_ATTR_ETHERTYPE]
			  ? get_be16(a[OVS_KEY_ATTR_ETHERTYPE]) : 0;
	*attrs &= ~(BIT(OVS_KEY_ATTR_ENCAP) | BIT(OVS_KEY_ATTR_VLAN) |
		    BIT(OVS_KEY_ATTR_ETHERTYPE));
	return collect_nest(a[OVS_KEY_ATTR_ENCAP], a, attrs, log, is_mask);
}

static int
vlans(struct match *m, uint64_t *attrs, const struct nlattr **a,
      bool is_mask, bool log)
{
	int err = vlan_level(m, attrs, false, a, is_mask, log);

	if (err)
		return err;
	if (m->key->vlan.tci & htons(FLOW_VLAN_PRESENT))
		return vlan_level(m, attrs, true, a, is_mask, log);
	return 0;
}

static int
eth_type(struct match *m, uint64_t *attrs, const struct nlattr **a,
	 bool is_mask, bool log)
{
	uint16_t type = get_be16(a[OVS_KEY_ATTR_ETHERTYPE]);

	if (is_mask) {
		type = htons(0xffff);	/* always an exact match */
	} else if (ntohs(type) < ETH_P_802_3_MIN) {
		ovs_nlerr(log, "EtherType %x is less than min %x", ntohs(type),
			  ETH_P_802_3_MIN);
		return -EINVAL;
	}
	(is_mask ? m->mask : m->key)->eth_type = type;
	*attrs &= ~BIT(OVS_KEY_ATTR_ETHERTYPE);
	return 0;
}

static int
metadata(struct match *m, uint64_t *attrs, const struct nlattr **a,
	 bool is_mask, bool log)
{
	struct flow_key *k = is_mask ? m->mask : m->key;
	uint8_t mac_proto = FLOW_MAC_ETHERNET;

	if (*attrs & BIT(OVS_KEY_ATTR_DP_HASH)) {
		k->dp_hash = attr_get_u32(a[OVS_KEY_ATTR_DP_HASH]);
		*attrs &= ~BIT(OVS_KEY_ATTR_DP_HASH);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_RECIRC_ID)) {
		k->recirc_id = attr_get_u32(a[OVS_KEY_ATTR_RECIRC_ID]);
		*attrs &= ~BIT(OVS_KEY_ATTR_RECIRC_ID);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_PRIORITY)) {
		k->priority = attr_get_u32(a[OVS_KEY_ATTR_PRIORITY]);
		*attrs &= ~BIT(OVS_KEY_ATTR_PRIORITY);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_IN_PORT)) {
		uint32_t port = attr_get_u32(a[OVS_KEY_ATTR_IN_PORT]);

		if (is_mask) {
			port = 0xffff;	/* always an exact match */
		} else if (port >= FLOW_IN_PORT_NONE) {
			ovs_nlerr(log, "Port %d exceeds max allowable %d",
				  port, FLOW_IN_PORT_NONE);
			return -EINVAL;
		}
		k->in_port = port;
		*attrs &= ~BIT(OVS_KEY_ATTR_IN_PORT);
	} else if (!is_mask) {
		k->in_port = FLOW_IN_PORT_NONE;
	}
	if (*attrs & BIT(OVS_KEY_ATTR_SKB_MARK)) {
		k->skb_mark = attr_get_u32(a[OVS_KEY_ATTR_SKB_MARK]);
		*attrs &= ~BIT(OVS_KEY_ATTR_SKB_MARK);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_TUNNEL)) {
		if (tun_key_from_nlattr(&k->tun, a[OVS_KEY_ATTR_TUNNEL],
					is_mask ? &m->key->tun : NULL, log) < 0)
			return -EINVAL;
		*attrs &= ~BIT(OVS_KEY_ATTR_TUNNEL);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_STATE)) {
		uint32_t st = attr_get_u32(a[OVS_KEY_ATTR_CT_STATE]);

		if (st & ~CT_SUPPORTED_MASK) {
			ovs_nlerr(log, "ct_state flags %08x unsupported", st);
			return -EINVAL;
		}
		k->ct_state = st;
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_STATE);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_ZONE)) {
		k->ct_zone = attr_get_u16(a[OVS_KEY_ATTR_CT_ZONE]);
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_ZONE);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_MARK)) {
		k->ct_mark = attr_get_u32(a[OVS_KEY_ATTR_CT_MARK]);
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_MARK);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_LABELS)) {
		memcpy(k->ct_labels, attr_data(a[OVS_KEY_ATTR_CT_LABELS]),
		       sizeof(k->ct_labels));
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_LABELS);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4)) {
		struct ovs_key_ct_tuple_ipv4 t;

		memcpy(&t, attr_data(a[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4]),
		       sizeof(t));
		k->ct_orig_ipv4_src = t.ipv4_src;
		k->ct_orig_ipv4_dst = t.ipv4_dst;
		k->ct_orig_tp_src = t.src_port;
		k->ct_orig_tp_dst = t.dst_port;
		k->ct_orig_proto = t.ipv4_proto;
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4);
	}
	if (*attrs & BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6)) {
		struct ovs_key_ct_tuple_ipv6 t;

		memcpy(&t, attr_data(a[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6]),
		       sizeof(t));
		memcpy(&k->ct_orig_ipv6_src, t.ipv6_src, 16);
		memcpy(&k->ct_orig_ipv6_dst, t.ipv6_dst, 16);
		k->ct_orig_tp_src = t.src_port;
		k->ct_orig_tp_dst = t.dst_port;
		k->ct_orig_proto = t.ipv6_proto;
		*attrs &= ~BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6);
	}
	/* An EtherType without an Ethernet header: an L3 packet. */
	if (!(*attrs & BIT(OVS_KEY_ATTR_ETHERNET)) &&
	    (*attrs & BIT(OVS_KEY_ATTR_ETHERTYPE)))
		mac_proto = FLOW_MAC_NONE;
	k->mac_proto = is_mask ? 0xff : mac_proto;
	if (mac_proto == FLOW_MAC_NONE)
		return eth_type(m, attrs, a, is_mask, log);
	return 0;
}

/* The exact payload length of each NSH key attribute. */
static const int nsh_lens[OVS_NSH_KEY_ATTR_MAX + 1] = {
	[OVS_NSH_KEY_ATTR_BASE] = sizeof(struct ovs_nsh_key_base),
	[OVS_NSH_KEY_ATTR_MD1] = sizeof(struct ovs_nsh_key_md1),
	[OVS_NSH_KEY_ATTR_MD2] = ATTR_VARIABLE_LEN,
};

/* The contents of an OVS_KEY_ATTR_NSH, of a key, a mask or a push_nsh
 * (nsh may be NULL: checked only), as the kernel's
 * nsh_key_put_from_nlattr(): attributes may repeat (the last counts), an
 * MD type 2 context only in a push. 0 or -EINVAL. */
static int
nsh_from_nlattr(struct flow_nsh *nsh, const struct nlattr *attr,
		bool is_mask, bool is_push, bool log)
{
	bool has_base = false, has_md1 = false, has_md2 = false;
	const struct nlattr *a;
	uint8_t mdtype = 0;
	int rem;

	attr_for_each(a, attr_data(attr), attr_len(attr), rem) {
		int type = attr_type(a), len = attr_len(a);

		if (type > OVS_NSH_KEY_ATTR_MAX) {
			ovs_nlerr(log, "nsh attr %d is out of range max %d",
				  type, OVS_NSH_KEY_ATTR_MAX);
			return -EINVAL;
		}
		if (nsh_lens[type] != ATTR_VARIABLE_LEN &&
		    len != nsh_lens[type]) {
			ovs_nlerr(log, "nsh attr %d has unexpected len %d "
				  "expected %d", type, len, nsh_lens[type]);
			return -EINVAL;
		}
		switch (type) {
		case OVS_NSH_KEY_ATTR_BASE:
			has_base = true;
			mdtype = ((const struct ovs_nsh_key_base *)
				  attr_data(a))->mdtype;
			if (nsh)
				memcpy(&nsh->base, attr_data(a), len);
			break;
		case OVS_NSH_KEY_ATTR_MD1:
			has_md1 = true;
			if (nsh)
				memcpy(nsh->context, attr_data(a), len);
			break;
		case OVS_NSH_KEY_ATTR_MD2:
			/* Not matched yet: only a push may carry one. */
			if (!is_push)
				return -EINVAL;
			has_md2 = true;
			if (len <= 0 || len > NSH_CTX_MAX) {
				ovs_nlerr(log, "Invalid MD length %d for MD "
					  "type %d", len, mdtype);
				return -EINVAL;
			}
			break;
		default:
			ovs_nlerr(log, "Unknown nsh attribute %d", type);
			return -EINVAL;
		}
	}
	if (rem > 0) {
		ovs_nlerr(log, "nsh attribute has %d unknown bytes.", rem);
		return -EINVAL;
	}
	/* The kernel logs these whatever the caller asked. */
	if (has_md1 && has_md2) {
		ovs_nlerr(true, "invalid nsh attribute: md1 and md2 are "
			  "exclusive.");
		return -EINVAL;
	}
	if (is_mask)
		return 0;
	if ((has_md1 && mdtype != NSH_MD_TYPE1) ||
	    (has_md2 && mdtype != NSH_MD_TYPE2)) {
		ovs_nlerr(true, "nsh attribute has unmatched MD type %d.",
			  mdtype);
		return -EINVAL;
	}
	if (is_push && (!has_base || (!has_md1 && !has_md2))) {
		ovs_nlerr(true, "push_nsh: missing base or metadata "
			  "attributes");
		return -EINVAL;
	}
	return 0;
}

static int
l2_to_l4(struct match *m, uint64_t attrs, const struct nlattr **a,
	 bool is_mask, bool log)
{
	struct flow_key *k = is_mask ? m->mask : m->key;
	int err;

	err = metadata(m, &attrs, a, is_mask, log);
	if (err)
		return err;
	if (attrs & BIT(OVS_KEY_ATTR_ETHERNET)) {
		struct ovs_key_ethernet eth;

		memcpy(&eth, attr_data(a[OVS_KEY_ATTR_ETHERNET]), sizeof(eth));
		memcpy(k->eth_src, eth.eth_src, 6);
		memcpy(k->eth_dst, eth.eth_dst, 6);
		attrs &= ~BIT(OVS_KEY_ATTR_ETHERNET);
		if (attrs & BIT(OVS_KEY_ATTR_VLAN)) {
			ovs_nlerr(log, "VLAN attribute unexpected.");
			return -EINVAL;
		}
		if (attrs & BIT(OVS_KEY_ATTR_ETHERTYPE)) {
			err = eth_type(m, &attrs, a, is_mask, log);
			if (err)
				return err;
		} else if (!is_mask) {
			k->eth_type = htons(ETH_P_802_2);
		}
	} else if (!m->key->eth_type) {
		ovs_nlerr(log, "Either Ethernet header or EtherType is "
			  "required.");
		return -EINVAL;
	}

	if (attrs & BIT(OVS_KEY_ATTR_IPV4)) {
		struct ovs_key_ipv4 v4;

		memcpy(&v4, attr_data(a[OVS_KEY_ATTR_IPV4]), sizeof(v4));
		if (!is_mask && v4.ipv4_frag > OVS_FRAG_TYPE_MAX) {
			ovs_nlerr(log, "IPv4 frag type %d is out of range max "
				  "%d", v4.ipv4_frag, OVS_FRAG_TYPE_MAX);
			return -EINVAL;
		}
		k->ip_proto = v4.ipv4_proto;
		k->ip_tos = v4.ipv4_tos;
		k->ip_ttl = v4.ipv4_ttl;
		k->ip_frag = v4.ipv4_frag;
		k->ipv4_src = v4.ipv4_src;
		k->ipv4_dst = v4.ipv4_dst;
		attrs &= ~BIT(OVS_KEY_ATTR_IPV4);
	}
	if (attrs & BIT(OVS_KEY_ATTR_IPV6)) {
		struct ovs_key_ipv6 v6;

		memcpy(&v6, attr_data(a[OVS_KEY_ATTR_IPV6]), sizeof(v6));
		if (!is_mask && v6.ipv6_frag > OVS_FRAG_TYPE_MAX) {
			ovs_nlerr(log, "IPv6 frag type %d is out of range max "
				  "%d", v6.ipv6_frag, OVS_FRAG_TYPE_MAX);
			return -EINVAL;
		}
		if (!is_mask && (v6.ipv6_label & htonl(0xfff00000))) {
			ovs_nlerr(log, "IPv6 flow label %x is out of range "
				  "(max=%x)", ntohl(v6.ipv6_label),
				  (1 << 20) - 1);
			return -EINVAL;
		}
		k->ipv6_label = v6.ipv6_label;
		k->ip_proto = v6.ipv6_proto;
		k->ip_tos = v6.ipv6_tclass;
		k->ip_ttl = v6.ipv6_hlimit;
		k->ip_frag = v6.ipv6_frag;
		memcpy(&k->ipv6_src, v6.ipv6_src, 16);
		memcpy(&k->ipv6_dst, v6.ipv6_dst, 16);
		attrs &= ~BIT(OVS_KEY_ATTR_IPV6);
	}
	if (attrs & BIT(OVS_KEY_ATTR_IPV6_EXTHDRS)) {
		struct ovs_key_ipv6_exthdrs x;

		memcpy(&x, attr_data(a[OVS_KEY_ATTR_IPV6_EXTHDRS]), sizeof(x));
		k->ipv6_exthdrs = x.hdrs;
		attrs &= ~BIT(OVS_KEY_ATTR_IPV6_EXTHDRS);
	}
	if (attrs & BIT(OVS_KEY_ATTR_ARP)) {
		struct ovs_key_arp arp;

		memcpy(&arp, attr_data(a[OVS_KEY_ATTR_ARP]), sizeof(arp));
		if (!is_mask && (arp.arp_op & htons(0xff00))) {
			ovs_nlerr(log, "Unknown ARP opcode (opcode=%d).",
				  arp.arp_op);
			return -EINVAL;
		}
		k->ipv4_src = arp.arp_sip;
		k->ipv4_dst = arp.arp_tip;
		k->ip_proto = (uint8_t)ntohs(arp.arp_op);
		memcpy(k->arp_sha, arp.arp_sha, 6);
		memcpy(k->arp_tha, arp.arp_tha, 6);
		attrs &= ~BIT(OVS_KEY_ATTR_ARP);
	}
	if (attrs & BIT(OVS_KEY_ATTR_NSH)) {
		if (nsh_from_nlattr(&k->nsh, a[OVS_KEY_ATTR_NSH], is_mask,
				    false, log))
			return -EINVAL;
		attrs &= ~BIT(OVS_KEY_ATTR_NSH);
	}
	if (attrs & BIT(OVS_KEY_ATTR_MPLS)) {
		int len = attr_len(a[OVS_KEY_ATTR_MPLS]);
		unsigned n = len / 4;

		if (n == 0 || n > FLOW_MPLS_DEPTH || len % 4)
			return -EINVAL;
		memcpy(k->mpls_lse, attr_data(a[OVS_KEY_ATTR_MPLS]), n * 4);
		k->mpls_labels_mask = (1u << n) - 1;
		attrs &= ~BIT(OVS_KEY_ATTR_MPLS);
	}
	if (attrs & BIT(OVS_KEY_ATTR_TCP)) {
		struct ovs_key_tcp t;

		memcpy(&t, attr_data(a[OVS_KEY_ATTR_TCP]), sizeof(t));
		k->tp_src = t.tcp_src;
		k->tp_dst = t.tcp_dst;
		attrs &= ~BIT(OVS_KEY_ATTR_TCP);
	}
	if (attrs & BIT(OVS_KEY_ATTR_TCP_FLAGS)) {
		k->tcp_flags = get_be16(a[OVS_KEY_ATTR_TCP_FLAGS]);
		attrs &= ~BIT(OVS_KEY_ATTR_TCP_FLAGS);
	}
	if (attrs & BIT(OVS_KEY_ATTR_UDP)) {
		struct ovs_key_udp u;

		memcpy(&u, attr_data(a[OVS_KEY_ATTR_UDP]), sizeof(u));
		k->tp_src = u.udp_src;
		k->tp_dst = u.udp_dst;
		attrs &= ~BIT(OVS_KEY_ATTR_UDP);
	}
	if (attrs & BIT(OVS_KEY_ATTR_SCTP)) {
		struct ovs_key_sctp s;

		memcpy(&s, attr_data(a[OVS_KEY_ATTR_SCTP]), sizeof(s));
		k->tp_src = s.sctp_src;
		k->tp_dst = s.sctp_dst;
		attrs &= ~BIT(OVS_KEY_ATTR_SCTP);
	}
	if (attrs & BIT(OVS_KEY_ATTR_ICMP)) {
		const struct ovs_key_icmp *i = attr_data(a[OVS_KEY_ATTR_ICMP]);

		k->tp_src = htons(i->icmp_type);
		k->tp_dst = htons(i->icmp_code);
		attrs &= ~BIT(OVS_KEY_ATTR_ICMP);
	}
	if (attrs & BIT(OVS_KEY_ATTR_ICMPV6)) {
		const struct ovs_key_icmpv6 *i =
			attr_data(a[OVS_KEY_ATTR_ICMPV6]);

		k->tp_src = htons(i->icmpv6_type);
		k->tp_dst = htons(i->icmpv6_code);
		attrs &= ~BIT(OVS_KEY_ATTR_ICMPV6);
	}
	if (attrs & BIT(OVS_KEY_ATTR_ND)) {
		struct ovs_key_nd nd;

		memcpy(&nd, attr_data(a[OVS_KEY_ATTR_ND]), sizeof(nd));
		memcpy(&k->nd_target, nd.nd_target, 16);
		memcpy(k->nd_sll, nd.nd_sll, 6);
		memcpy(k->nd_tll, nd.nd_tll, 6);
		attrs &= ~BIT(OVS_KEY_ATTR_ND);
	}
	if (attrs) {
		ovs_nlerr(log, "Unknown key attributes %llx",
			  (unsigned long long)attrs);
		return -EINVAL;
	}
	return 0;
}

/* Which L4 attributes an IP key expects, and whether its mask may have
 * them (the protocol matched exactly). */
static void
expect_l4(const struct match *m, uint64_t *expected, uint64_t *allowed,
	  bool v6)
{
	const struct flow_key *key = m->key;
	bool exact = m->mask && m->mask->ip_proto == 0xff;
	uint64_t bits = 0;

	if (key->ip_frag == OVS_FRAG_TYPE_LATER)
		return;
	switch (key->ip_proto) {
	case IPPROTO_UDP:
		bits = BIT(OVS_KEY_ATTR_UDP);
		break;
	case IPPROTO_SCTP:
		bits = BIT(OVS_KEY_ATTR_SCTP);
		break;
	case IPPROTO_TCP:
		bits = BIT(OVS_KEY_ATTR_TCP) | BIT(OVS_KEY_ATTR_TCP_FLAGS);
		break;
	case IPPROTO_ICMP:
		bits = v6 ? 0 : BIT(OVS_KEY_ATTR_ICMP);
		break;
	case IPPROTO_ICMPV6:
		bits = v6 ? BIT(OVS_KEY_ATTR_ICMPV6) : 0;
		break;
	}
	*expected |= bits;
	if (exact)
		*allowed |= bits;
	if (v6 && key->ip_proto == IPPROTO_ICMPV6 &&
	    (key->tp_src == htons(NDISC_NS) || key->tp_src == htons(NDISC_NA))) {
		*expected |= BIT(OVS_KEY_ATTR_ND);
		/* The kernel keeps the ND fields where the IPv6 original
		 * tuple would be: never both. */
		*allowed &= ~BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6);
		if (m->mask && m->mask->tp_src == htons(0xff))
			*allowed |= BIT(OVS_KEY_ATTR_ND);
	}
}

static bool
match_validate(const struct match *m, uint64_t key_attrs, uint64_t mask_attrs,
	       bool log)
{
	const struct flow_key *key = m->key;
	bool exact_type = m->mask && m->mask->eth_type == htons(0xffff);
	uint64_t expected = 0, allowed = key_attrs;

	allowed &= ~(BIT(OVS_KEY_ATTR_IPV4) |
		     BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4) |
		     BIT(OVS_KEY_ATTR_IPV6) |
		     BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6) |
		     BIT(OVS_KEY_ATTR_TCP) | BIT(OVS_KEY_ATTR_TCP_FLAGS) |
		     BIT(OVS_KEY_ATTR_UDP) | BIT(OVS_KEY_ATTR_SCTP) |
		     BIT(OVS_KEY_ATTR_ICMP) | BIT(OVS_KEY_ATTR_ICMPV6) |
		     BIT(OVS_KEY_ATTR_ARP) | BIT(OVS_KEY_ATTR_ND) |
		     BIT(OVS_KEY_ATTR_MPLS) | BIT(OVS_KEY_ATTR_NSH));
	allowed |= BIT(OVS_KEY_ATTR_TUNNEL) | BIT(OVS_KEY_ATTR_IN_PORT) |
		   BIT(OVS_KEY_ATTR_ETHERTYPE);

	if (key->eth_type == htons(ETH_P_ARP) ||
	    key->eth_type == htons(ETH_P_RARP)) {
		expected |= BIT(OVS_KEY_ATTR_ARP);
		if (exact_type)
			allowed |= BIT(OVS_KEY_ATTR_ARP);
	}
	if (is_mpls_type(key->eth_type)) {
		expected |= BIT(OVS_KEY_ATTR_MPLS);
		if (exact_type)
			allowed |= BIT(OVS_KEY_ATTR_MPLS);
	}
	if (key->eth_type == htons(ETH_P_IP)) {
		expected |= BIT(OVS_KEY_ATTR_IPV4);
		if (exact_type)
			allowed |= BIT(OVS_KEY_ATTR_IPV4) |
				   BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4);
		expect_l4(m, &expected, &allowed, false);
	}
	if (key->eth_type == htons(ETH_P_IPV6)) {
		expected |= BIT(OVS_KEY_ATTR_IPV6);
		if (exact_type)
			allowed |= BIT(OVS_KEY_ATTR_IPV6) |
				   BIT(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6);
		expect_l4(m, &expected, &allowed, true);
	}
	if (key->eth_type == htons(ETH_P_NSH)) {
		expected |= BIT(OVS_KEY_ATTR_NSH);
		if (exact_type)
			allowed |= BIT(OVS_KEY_ATTR_NSH);
	}
	if ((key_attrs & expected) != expected) {
		ovs_nlerr(log, "Missing key (keys=%llx, expected=%llx)",
			  (unsigned long long)key_attrs,
			  (unsigned long long)expected);
		return false;
	}
	if ((mask_attrs & allowed) != mask_attrs) {
		ovs_nlerr(log, "Unexpected mask (mask=%llx, allowed=%llx)",
			  (unsigned long long)mask_attrs,
			  (unsigned long long)allowed);
		return false;
	}
	return true;
}

/* A tunnel key's outer headers, matched exactly by a key given without a
 * mask even where the key has no attribute (zeros are not sent), as the
 * kernel does; the flags, family and options follow the attributes. */
static void
tun_mask_headers(struct tun_key *m)
{
	m->id = ~0ULL;
	m->ipv4_src = m->ipv4_dst = ~0u;
	memset(&m->ipv6_src, 0xff, sizeof(m->ipv6_src));
	memset(&m->ipv6_dst, 0xff, sizeof(m->ipv6_dst));
	m->tp_src = m->tp_dst = 0xffff;
	m->tos = m->ttl = 0xff;
}

/* The same for an NSH key's attributes, none of them nested. */
static void
fill_nsh_mask(char *data, int len)
{
	const struct nlattr *nla;
	int rem;

	attr_for_each(nla, data, len, rem)
		memset(data + ((const char *)nla - data) + NLA_HDRLEN, 0xff,
		       attr_len(nla));
}

/* The exact-match mask of a key: every attribute's bytes set, recursively
 * through nests, as the kernel builds it when no mask is given. */
static void
fill_mask_attrs(char *data, int len)
{
	const struct nlattr *nla;
	int rem;

	attr_for_each(nla, data, len, rem) {
		uint16_t type = attr_type(nla);
		/* nla points into data, which is ours to write. */
		char *payload = data + ((const char *)nla - data) + NLA_HDRLEN;

		if (type == OVS_KEY_ATTR_TUNNEL)
			tun_nlattrs_mask_fill(payload, attr_len(nla));
		else if (type == OVS_KEY_ATTR_NSH)
			fill_nsh_mask(payload, attr_len(nla));
		else if (type <= KEY_ATTR_MAX &&
			 key_lens[type] == ATTR_NESTED_LEN)
			fill_mask_attrs(payload, attr_len(nla));
		else
			memset(payload, 0xff, attr_len(nla));
		if (type == OVS_KEY_ATTR_CT_STATE) {
			uint32_t st = CT_SUPPORTED_MASK;

			memcpy(payload, &st, sizeof(st));
		}
	}
}

int
flow_match_from_nlattrs(struct flow_key *key, struct flow_key *mask,
			const struct nlattr *nla_key,
			const struct nlattr *nla_mask, bool log)
{
	const struct nlattr *a[KEY_ATTR_MAX + 1] = { 0 };
	struct match m = { .key = key, .mask = mask };
	uint64_t key_attrs = 0, mask_attrs = 0;
	char exact[4096];
	int err;

	memset(key, 0, sizeof(*key));
	if (mask)
		memset(mask, 0, sizeof(*mask));
	err = collect_nest(nla_key, a, &key_attrs, log, false);
	if (!err)
		err = vlans(&m, &key_attrs, a, false, log);
	if (!err)
		err = l2_to_l4(&m, key_attrs, a, false, log);
	if (err || !mask)
		goto out;
	if (!nla_mask) {
		if ((size_t)nla_key->nla_len > sizeof(exact))
			return -EINVAL;
		memcpy(exact, nla_key, nla_key->nla_len);
		fill_mask_attrs(exact + NLA_HDRLEN, attr_len(nla_key));
		nla_mask = (const struct nlattr *)exact;
		if (key->tun.family)
			tun_mask_headers(&mask->tun);
	}
	err = collect_nest(nla_mask, a, &mask_attrs, log, true);
	if (err)
		return err;
	/* The TCIs are always matched exactly. */
	mask->vlan.tci = htons(0xffff);
	mask->cvlan.tci = htons(0xffff);
	err = vlans(&m, &mask_attrs, a, true, log);
	if (!err)
		err = l2_to_l4(&m, mask_attrs, a, true, log);
out:
	if (!err && !match_validate(&m, key_attrs, mask_attrs, log))
		err = -EINVAL;
	return err;
}

int
flow_metadata_from_nlattrs(struct flow_key *key, const struct nlattr *nla_key,
			   bool log)
{
	const struct nlattr *a[KEY_ATTR_MAX + 1] = { 0 };
	struct match m = { .key = key };
	uint64_t attrs = 0;
	int err;

	memset(key, 0, sizeof(*key));
	err = collect_nest(nla_key, a, &attrs, log, false);
	if (err)
		return err;
	key->in_port = FLOW_IN_PORT_NONE;
	return metadata(&m, &attrs, a, false, log);
}

static void
put_vlan(struct msgbuf *mb, const struct flow_vlan *v, bool is_mask)
{
	msgbuf_put_u16(mb, OVS_KEY_ATTR_ETHERTYPE,
		       is_mask ? htons(0xffff) : v->tpid);
	msgbuf_put_u16(mb, OVS_KEY_ATTR_VLAN, v->tci);
}

static void
put_ct(struct msgbuf *mb, const struct flow_key *key,
       const struct flow_key *out)
{
	msgbuf_put_u32(mb, OVS_KEY_ATTR_CT_STATE, out->ct_state);
	msgbuf_put_u16(mb, OVS_KEY_ATTR_CT_ZONE, out->ct_zone);
	msgbuf_put_u32(mb, OVS_KEY_ATTR_CT_MARK, out->ct_mark);
	msgbuf_put(mb, OVS_KEY_ATTR_CT_LABELS, sizeof(out->ct_labels),
		   out->ct_labels);
	if (!key->ct_orig_proto)
		return;
	if (key->eth_type == htons(ETH_P_IP)) {
		struct ovs_key_ct_tuple_ipv4 t = {
			.ipv4_src = out->ct_orig_ipv4_src,
			.ipv4_dst = out->ct_orig_ipv4_dst,
			.src_port = out->ct_orig_tp_src,
			.dst_port = out->ct_orig_tp_dst,
			.ipv4_proto = out->ct_orig_proto,
		};

		msgbuf_put(mb, OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4, sizeof(t), &t);
	} else if (key->eth_type == htons(ETH_P_IPV6)) {
		struct ovs_key_ct_tuple_ipv6 t = {
			.src_port = out->ct_orig_tp_src,
			.dst_port = out->ct_orig_tp_dst,
			.ipv6_proto = out->ct_orig_proto,
		};

		memcpy(t.ipv6_src, &out->ct_orig_ipv6_src, 16);
		memcpy(t.ipv6_dst, &out->ct_orig_ipv6_dst, 16);
		msgbuf_put(mb, OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6, sizeof(t), &t);
	}
}

/* An MD type 1 context goes with the key's base header; a mask always
 * has one. */
static void
put_nsh(struct msgbuf *mb, const struct flow_nsh *nsh, bool is_mask)
{
	struct nlattr *nest = msgbuf_nest_start(mb, OVS_KEY_ATTR_NSH);

	msgbuf_put(mb, OVS_NSH_KEY_ATTR_BASE, sizeof(nsh->base), &nsh->base);
	if (is_mask || nsh->base.mdtype == NSH_MD_TYPE1)
		msgbuf_put(mb, OVS_NSH_KEY_ATTR_MD1, sizeof(nsh->context),
			   nsh->context);
	msgbuf_nest_end(mb, nest);
}

static void
put_l3(struct msgbuf *mb, const struct flow_key *key,
       const struct flow_key *out, bool is_mask)
{
	if (key->eth_type == htons(ETH_P_IP)) {
		struct ovs_key_ipv4 v4 = {
			.ipv4_src = out->ipv4_src,
			.ipv4_dst = out->ipv4_dst,
			.ipv4_proto = out->ip_proto,
			.ipv4_tos = out->ip_tos,
			.ipv4_ttl = out->ip_ttl,
			.ipv4_frag = out->ip_frag,
		};

		msgbuf_put(mb, OVS_KEY_ATTR_IPV4, sizeof(v4), &v4);
	} else if (key->eth_type == htons(ETH_P_IPV6)) {
		struct ovs_key_ipv6 v6 = {
			.ipv6_label = out->ipv6_label,
			.ipv6_proto = out->ip_proto,
			.ipv6_tclass = out->ip_tos,
			.ipv6_hlimit = out->ip_ttl,
			.ipv6_frag = out->ip_frag,
		};
		struct ovs_key_ipv6_exthdrs x = { .hdrs = out->ipv6_exthdrs };

		memcpy(v6.ipv6_src, &out->ipv6_src, 16);
		memcpy(v6.ipv6_dst, &out->ipv6_dst, 16);
		msgbuf_put(mb, OVS_KEY_ATTR_IPV6, sizeof(v6), &v6);
		msgbuf_put(mb, OVS_KEY_ATTR_IPV6_EXTHDRS, sizeof(x), &x);
	} else if (key->eth_type == htons(ETH_P_ARP) ||
		   key->eth_type == htons(ETH_P_RARP)) {
		struct ovs_key_arp arp = {
			.arp_sip = out->ipv4_src,
			.arp_tip = out->ipv4_dst,
			.arp_op = htons(out->ip_proto),
		};

		memcpy(arp.arp_sha, out->arp_sha, 6);
		memcpy(arp.arp_tha, out->arp_tha, 6);
		msgbuf_put(mb, OVS_KEY_ATTR_ARP, sizeof(arp), &arp);
	} else if (key->eth_type == htons(ETH_P_NSH)) {
		put_nsh(mb, &out->nsh, is_mask);
	} else if (is_mpls_type(key->eth_type)) {
		unsigned n = __builtin_popcount(out->mpls_labels_mask);

		if (n > FLOW_MPLS_DEPTH)
			n = FLOW_MPLS_DEPTH;
		msgbuf_put(mb, OVS_KEY_ATTR_MPLS, n * 4, out->mpls_lse);
	}
}

static void
put_l4(struct msgbuf *mb, const struct flow_key *key,
       const struct flow_key *out)
{
	bool v4 = key->eth_type == htons(ETH_P_IP);
	bool v6 = key->eth_type == htons(ETH_P_IPV6);

	if ((!v4 && !v6) || key->ip_frag == OVS_FRAG_TYPE_LATER)
		return;
	if (key->ip_proto == IPPROTO_TCP) {
		struct ovs_key_tcp t = { out->tp_src, out->tp_dst };

		msgbuf_put(mb, OVS_KEY_ATTR_TCP, sizeof(t), &t);
		msgbuf_put_u16(mb, OVS_KEY_ATTR_TCP_FLAGS, out->tcp_flags);
	} else if (key->ip_proto == IPPROTO_UDP) {
		struct ovs_key_udp u = { out->tp_src, out->tp_dst };

		msgbuf_put(mb, OVS_KEY_ATTR_UDP, sizeof(u), &u);
	} else if (key->ip_proto == IPPROTO_SCTP) {
		struct ovs_key_sctp s = { out->tp_src, out->tp_dst };

		msgbuf_put(mb, OVS_KEY_ATTR_SCTP, sizeof(s), &s);
	} else if (v4 && key->ip_proto == IPPROTO_ICMP) {
		struct ovs_key_icmp i = { ntohs(out->tp_src),
					  ntohs(out->tp_dst) };

		msgbuf_put(mb, OVS_KEY_ATTR_ICMP, sizeof(i), &i);
	} else if (v6 && key->ip_proto == IPPROTO_ICMPV6) {
		struct ovs_key_icmpv6 i = { ntohs(out->tp_src),
					    ntohs(out->tp_dst) };

		msgbuf_put(mb, OVS_KEY_ATTR_ICMPV6, sizeof(i), &i);
		if (key->tp_src == htons(NDISC_NS) ||
		    key->tp_src == htons(NDISC_NA)) {
			struct ovs_key_nd nd;

			memcpy(nd.nd_target, &out->nd_target, 16);
			memcpy(nd.nd_sll, out->nd_sll, 6);
			memcpy(nd.nd_tll, out->nd_tll, 6);
			msgbuf_put(mb, OVS_KEY_ATTR_ND, sizeof(nd), &nd);
		}
	}
}

void
flow_key_put(struct msgbuf *mb, uint16_t attr, const struct flow_key *key,
	     const struct flow_key *out, bool is_mask)
{
	struct nlattr *nest = msgbuf_nest_start(mb, attr);
	struct nlattr *encap = NULL, *inner = NULL;

	msgbuf_put_u32(mb, OVS_KEY_ATTR_RECIRC_ID, out->recirc_id);
	msgbuf_put_u32(mb, OVS_KEY_ATTR_DP_HASH, out->dp_hash);
	msgbuf_put_u32(mb, OVS_KEY_ATTR_PRIORITY, out->priority);
	/* A mask says how "no tunnel" is matched too. */
	if (key->tun.family || is_mask)
		tun_key_put(mb, OVS_KEY_ATTR_TUNNEL, &key->tun, &out->tun, false);
	if (key->in_port == FLOW_IN_PORT_NONE) {
		if (is_mask && out->in_port == 0xffff)
			msgbuf_put_u32(mb, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
	} else {
		/* A mask's upper half is all ones: the port is 16 bits. */
		msgbuf_put_u32(mb, OVS_KEY_ATTR_IN_PORT,
			       (is_mask ? 0xffff0000u : 0) |
			       (out->in_port & 0xffff));
	}
	msgbuf_put_u32(mb, OVS_KEY_ATTR_SKB_MARK, out->skb_mark);
	put_ct(mb, key, out);
	if (key->mac_proto == FLOW_MAC_ETHERNET) {
		struct ovs_key_ethernet eth;

		memcpy(eth.eth_src, out->eth_src, 6);
		memcpy(eth.eth_dst, out->eth_dst, 6);
		msgbuf_put(mb, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
		if (key->vlan.tci || is_vlan_type(key->eth_type)) {
			put_vlan(mb, &out->vlan, is_mask);
			encap = msgbuf_nest_start(mb, OVS_KEY_ATTR_ENCAP);
			if (!key->vlan.tci)
				goto unencap;
			if (key->cvlan.tci || is_vlan_type(key->eth_type)) {
				put_vlan(mb, &out->cvlan, is_mask);
				inner = msgbuf_nest_start(mb,
							  OVS_KEY_ATTR_ENCAP);
				if (!key->cvlan.tci)
					goto unencap;
			}
		}
		if (key->eth_type == htons(ETH_P_802_2)) {
			/* 802.2 frames: no EtherType in the key, an exact one
			 * in the mask (unless wildcarded). */
			if (is_mask && out->eth_type)
				msgbuf_put_u16(mb, OVS_KEY_ATTR_ETHERTYPE,
					       out->eth_type);
			goto unencap;
		}
	}
	msgbuf_put_u16(mb, OVS_KEY_ATTR_ETHERTYPE, out->eth_type);
	/* A third tag: nothing more is known of the packet. */
	if (is_vlan_type(key->eth_type))
		goto unencap;
	put_l3(mb, key, out, is_mask);
	put_l4(mb, key, out);
unencap:
	msgbuf_nest_end(mb, inner);
	msgbuf_nest_end(mb, encap);
	msgbuf_nest_end(mb, nest);
}

bool
flow_nsh_push_valid(const struct nlattr *push, bool log)
{
	const struct nlattr *nsh = attr_data(push);

	/* Exactly one attribute, the NSH key. */
	if (attr_len(push) < NLA_HDRLEN || nsh->nla_len < NLA_HDRLEN ||
	    nsh->nla_len > attr_len(push) ||
	    NLA_ALIGN(nsh->nla_len) != attr_len(push) ||
	    attr_type(nsh) != OVS_KEY_ATTR_NSH)
		return false;
	return !nsh_from_nlattr(NULL, nsh, false, true, log);
}

size_t
flow_nsh_push_header(const struct nlattr *push, uint8_t *hdr)
{
	struct nsh_header *nh = (struct nsh_header *)hdr;
	const struct nlattr *a;
	uint8_t flags = 0, ttl = 0;
	size_t ctx_len = 0;
	int rem;

	memset(nh, 0, sizeof(*nh));
	attr_for_each(a, attr_data(attr_data(push)),
		      attr_len(attr_data(push)), rem) {
		const struct ovs_nsh_key_base *base = attr_data(a);

		switch (attr_type(a)) {
		case OVS_NSH_KEY_ATTR_BASE:
			flags = base->flags;
			ttl = base->ttl;
			nh->md_type = base->mdtype;
			nh->next_proto = base->np;
			nh->path_hdr = base->path_hdr;
			break;
		case OVS_NSH_KEY_ATTR_MD1:
		case OVS_NSH_KEY_ATTR_MD2:
			/* Validated: at most NSH_CTX_MAX bytes. */
			ctx_len = attr_len(a);
			memcpy(hdr + NSH_BASE_HLEN, attr_data(a), ctx_len);
			break;
		}
	}
	/* A context not a multiple of 4 bytes long is cut to one, and the
	 * longest (248 bytes) wraps the 6-bit length to 0, as in the
	 * kernel. */
	nh->ver_flags_ttl_len =
		htons(((flags << NSH_FLAGS_SHIFT) & NSH_FLAGS_MASK) |
		      ((ttl << NSH_TTL_SHIFT) & NSH_TTL_MASK) |
		      (((NSH_BASE_HLEN + ctx_len) >> 2) & NSH_LEN_MASK));
	return nsh_hlen(nh);
}
