/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/odp-key.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "include/tapdp/ovs-uapi.h"

/* How a field of a fixed-size key struct is written. */
enum kind {
	K_ETH,		/* 6 bytes, xx:xx:xx:xx:xx:xx */
	K_IP4,		/* dotted quad */
	K_IP6,		/* inet_ntop */
	K_U8,		/* decimal */
	K_U8X,		/* hex */
	K_BE16,		/* decimal */
	K_LABEL,	/* be32 hex, the 20 bits of a flow label */
	K_FRAG,		/* no, first, later */
};

struct field {
	const char *name;
	uint8_t off;
	enum kind kind;
};

static const uint8_t kind_size[] = {
	[K_ETH] = 6, [K_IP4] = 4, [K_IP6] = 16, [K_U8] = 1, [K_U8X] = 1,
	[K_BE16] = 2, [K_LABEL] = 4, [K_FRAG] = 1,
};

#define FIELDS_MAX 7

/* A key attribute made of fields. exact_len: the bytes whose mask must be
 * all ones for the attribute to be exact (or all zeros to be wildcarded),
 * 0 for all of them. */
struct layout {
	size_t size, exact_len;
	struct field f[FIELDS_MAX];
};

static const struct layout eth_layout = {
	12, 0, { { "src", 0, K_ETH }, { "dst", 6, K_ETH } },
};
static const struct layout ipv4_layout = {
	12, 0, { { "src", 0, K_IP4 }, { "dst", 4, K_IP4 },
		 { "proto", 8, K_U8 }, { "tos", 9, K_U8X },
		 { "ttl", 10, K_U8 }, { "frag", 11, K_FRAG } },
};
static const struct layout ipv6_layout = {
	40, 0, { { "src", 0, K_IP6 }, { "dst", 16, K_IP6 },
		 { "label", 32, K_LABEL }, { "proto", 36, K_U8 },
		 { "tclass", 37, K_U8X }, { "hlimit", 38, K_U8 },
		 { "frag", 39, K_FRAG } },
};
static const struct layout ports_layout = {
	4, 0, { { "src", 0, K_BE16 }, { "dst", 2, K_BE16 } },
};
static const struct layout icmp_layout = {
	2, 0, { { "type", 0, K_U8 }, { "code", 1, K_U8 } },
};
static const struct layout arp_layout = {
	24, 22, { { "sip", 0, K_IP4 }, { "tip", 4, K_IP4 },
		  { "op", 8, K_BE16 }, { "sha", 10, K_ETH },
		  { "tha", 16, K_ETH } },
};
static const struct layout nd_layout = {
	28, 0, { { "target", 0, K_IP6 }, { "sll", 16, K_ETH },
		 { "tll", 22, K_ETH } },
};
static const struct layout tuple4_layout = {
	16, 13, { { "src", 0, K_IP4 }, { "dst", 4, K_IP4 },
		  { "proto", 12, K_U8 }, { "tp_src", 8, K_BE16 },
		  { "tp_dst", 10, K_BE16 } },
};
static const struct layout tuple6_layout = {
	40, 37, { { "src", 0, K_IP6 }, { "dst", 16, K_IP6 },
		  { "proto", 36, K_U8 }, { "src_port", 32, K_BE16 },
		  { "dst_port", 34, K_BE16 } },
};

static const char *const attr_names[] = {
	[OVS_KEY_ATTR_ENCAP] = "encap",
	[OVS_KEY_ATTR_PRIORITY] = "skb_priority",
	[OVS_KEY_ATTR_IN_PORT] = "in_port",
	[OVS_KEY_ATTR_ETHERNET] = "eth",
	[OVS_KEY_ATTR_VLAN] = "vlan",
	[OVS_KEY_ATTR_ETHERTYPE] = "eth_type",
	[OVS_KEY_ATTR_IPV4] = "ipv4",
	[OVS_KEY_ATTR_IPV6] = "ipv6",
	[OVS_KEY_ATTR_TCP] = "tcp",
	[OVS_KEY_ATTR_UDP] = "udp",
	[OVS_KEY_ATTR_ICMP] = "icmp",
	[OVS_KEY_ATTR_ICMPV6] = "icmpv6",
	[OVS_KEY_ATTR_ARP] = "arp",
	[OVS_KEY_ATTR_ND] = "nd",
	[OVS_KEY_ATTR_SKB_MARK] = "skb_mark",
	[OVS_KEY_ATTR_TUNNEL] = "tunnel",
	[OVS_KEY_ATTR_SCTP] = "sctp",
	[OVS_KEY_ATTR_TCP_FLAGS] = "tcp_flags",
	[OVS_KEY_ATTR_DP_HASH] = "dp_hash",
	[OVS_KEY_ATTR_RECIRC_ID] = "recirc_id",
	[OVS_KEY_ATTR_MPLS] = "mpls",
	[OVS_KEY_ATTR_CT_STATE] = "ct_state",
	[OVS_KEY_ATTR_CT_ZONE] = "ct_zone",
	[OVS_KEY_ATTR_CT_MARK] = "ct_mark",
	[OVS_KEY_ATTR_CT_LABELS] = "ct_label",
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4] = "ct_tuple4",
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6] = "ct_tuple6",
	[OVS_KEY_ATTR_NSH] = "nsh",
	[OVS_KEY_ATTR_PACKET_TYPE] = "packet_type",
	[OVS_KEY_ATTR_ND_EXTENSIONS] = "nd_ext",
};

/* The fixed-size struct of attribute type, NULL for the others. */
static const struct layout *
layout_of(unsigned type)
{
	switch (type) {
	case OVS_KEY_ATTR_ETHERNET:
		return &eth_layout;
	case OVS_KEY_ATTR_IPV4:
		return &ipv4_layout;
	case OVS_KEY_ATTR_IPV6:
		return &ipv6_layout;
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
	case OVS_KEY_ATTR_SCTP:
		return &ports_layout;
	case OVS_KEY_ATTR_ICMP:
	case OVS_KEY_ATTR_ICMPV6:
		return &icmp_layout;
	case OVS_KEY_ATTR_ARP:
		return &arp_layout;
	case OVS_KEY_ATTR_ND:
		return &nd_layout;
	case OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4:
		return &tuple4_layout;
	case OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6:
		return &tuple6_layout;
	default:
		return NULL;
	}
}

/* The size an attribute of type has: 0 for any (nested, MPLS's stack),
 * -1 for a type this formatter does not know. */
static int
attr_size(unsigned type)
{
	const struct layout *l = layout_of(type);

	if (l)
		return l->size;
	switch (type) {
	case OVS_KEY_ATTR_PRIORITY:
	case OVS_KEY_ATTR_IN_PORT:
	case OVS_KEY_ATTR_SKB_MARK:
	case OVS_KEY_ATTR_DP_HASH:
	case OVS_KEY_ATTR_RECIRC_ID:
	case OVS_KEY_ATTR_CT_STATE:
	case OVS_KEY_ATTR_CT_MARK:
	case OVS_KEY_ATTR_PACKET_TYPE:
		return 4;
	case OVS_KEY_ATTR_VLAN:
	case OVS_KEY_ATTR_ETHERTYPE:
	case OVS_KEY_ATTR_TCP_FLAGS:
	case OVS_KEY_ATTR_CT_ZONE:
		return 2;
	case OVS_KEY_ATTR_CT_LABELS:
		return 16;
	case OVS_KEY_ATTR_ENCAP:
	case OVS_KEY_ATTR_TUNNEL:
	case OVS_KEY_ATTR_NSH:
	case OVS_KEY_ATTR_MPLS:
		return 0;
	default:
		return -1;
	}
}

static bool
nested(unsigned type)
{
	return type == OVS_KEY_ATTR_ENCAP || type == OVS_KEY_ATTR_TUNNEL ||
	       type == OVS_KEY_ATTR_NSH;
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static bool
all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Whether mask m of attribute type is all v (0xff: exact, 0: wildcard),
 * over the bits that count. */
static bool
mask_is(unsigned type, const struct nlattr *m, uint8_t v)
{
	const uint8_t *p = mnl_attr_get_payload(m);
	size_t n = mnl_attr_get_payload_len(m);
	const struct layout *l = layout_of(type);

	if (type == OVS_KEY_ATTR_ENCAP)
		return false;
	if (type == OVS_KEY_ATTR_TCP_FLAGS && n == 2)
		return ((p[0] << 8 | p[1]) & 0x0fff) == (v ? 0x0fff : 0);
	if (type == OVS_KEY_ATTR_IPV6 && n == 40)
		/* Of the label's 32 bits, the flow label's 20. */
		return (be32_at(p + 32) & 0xfffff) == (v ? 0xfffffu : 0) &&
		       all_bytes(p, 32, v) && all_bytes(p + 36, 4, v);
	if (l && l->exact_len && n >= l->exact_len)
		n = l->exact_len;
	return all_bytes(p, n, v);
}

/* The attribute of type in the len bytes at attrs, NULL if none. */
static const struct nlattr *
find(const void *attrs, size_t len, unsigned type)
{
	const struct nlattr *attr;

	if (!attrs)
		return NULL;
	mnl_attr_for_each_payload(attrs, len) {
		if (mnl_attr_get_type(attr) == type)
			return attr;
	}
	return NULL;
}

/* What is written between the parentheses of one attribute: fields
 * separated by commas, each only once past the first. */
struct out {
	FILE *f;
	bool first;
};

static void
sep(struct out *o)
{
	if (!o->first)
		fputc(',', o->f);
	o->first = false;
}

static void
put_eth(FILE *f, const uint8_t *e)
{
	fprintf(f, "%02x:%02x:%02x:%02x:%02x:%02x", e[0], e[1], e[2], e[3],
		e[4], e[5]);
}

static void
put_value(FILE *f, enum kind kind, const uint8_t *p)
{
	char buf[INET6_ADDRSTRLEN];

	switch (kind) {
	case K_ETH:
		put_eth(f, p);
		break;
	case K_IP4:
		fprintf(f, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
		break;
	case K_IP6:
		fputs(inet_ntop(AF_INET6, p, buf, sizeof(buf)), f);
		break;
	case K_U8:
		fprintf(f, "%u", p[0]);
		break;
	case K_U8X:
		fprintf(f, "%#x", p[0]);
		break;
	case K_BE16:
		fprintf(f, "%u", (unsigned)(p[0] << 8 | p[1]));
		break;
	case K_LABEL:
		fprintf(f, "%#x", be32_at(p));
		break;
	case K_FRAG:
		break;
	}
}

/* A mask written after a value and a slash. */
static void
put_mask(FILE *f, enum kind kind, const uint8_t *m)
{
	switch (kind) {
	case K_U8:
	case K_U8X:
		fprintf(f, "%#x", m[0]);
		break;
	case K_BE16:
		fprintf(f, "%#x", m[0] << 8 | m[1]);
		break;
	default:
		put_value(f, kind, m);
	}
}

static const char *
frag_name(uint8_t v)
{
	static const char *const names[] = { "no", "first", "later" };

	return v < 3 ? names[v] : "<error>";
}

/* A field: left out when the mask wildcards it, value/mask when it
 * masks it in part. m NULL: exact. */
static void
put_field(struct out *o, const struct field *fd, const uint8_t *k,
	  const uint8_t *m)
{
	size_t n = kind_size[fd->kind];
	bool empty, full;

	k += fd->off;
	if (m)
		m += fd->off;
	empty = m && all_bytes(m, n, 0);
	full = !m || all_bytes(m, n, 0xff);
	if (fd->kind == K_LABEL && m)
		full = (be32_at(m) & 0xfffff) == 0xfffff;
	if (empty)
		return;
	sep(o);
	if (fd->kind == K_FRAG) {
		if (full)
			fprintf(o->f, "%s=%s", fd->name, frag_name(k[0]));
		else
			fprintf(o->f, "error: partial mask not supported for "
				      "frag (%#x)", m[0]);
		return;
	}
	fprintf(o->f, "%s=", fd->name);
	put_value(o->f, fd->kind, k);
	if (!full) {
		fputc('/', o->f);
		put_mask(o->f, fd->kind, m);
	}
}

static const char *
ct_state_name(uint32_t bit)
{
	switch (bit) {
	case OVS_CS_F_NEW: return "new";
	case OVS_CS_F_ESTABLISHED: return "est";
	case OVS_CS_F_RELATED: return "rel";
	case OVS_CS_F_REPLY_DIR: return "rpl";
	case OVS_CS_F_INVALID: return "inv";
	case OVS_CS_F_TRACKED: return "trk";
	case OVS_CS_F_SRC_NAT: return "snat";
	case OVS_CS_F_DST_NAT: return "dnat";
	default: return NULL;
	}
}

static const char *
tcp_flag_name(uint32_t bit)
{
	static const char *const names[] = {
		"fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr", "ns",
		"[200]", "[400]", "[800]",
	};

	for (unsigned i = 0; i < 12; i++)
		if (bit == 1u << i)
			return names[i];
	return NULL;
}

/* Flags by name, joined by '|'; "0" when none; bits without a name as
 * one hex number at the end. */
static void
put_flags(FILE *f, uint32_t flags, const char *(*name)(uint32_t))
{
	uint32_t bad = 0;
	bool first = true;

	if (!flags) {
		fputc('0', f);
		return;
	}
	for (; flags; flags &= flags - 1) {
		uint32_t bit = flags & -flags;
		const char *s = name(bit);

		if (!s) {
			bad |= bit;
			continue;
		}
		fprintf(f, "%s%s", first ? "" : "|", s);
		first = false;
	}
	if (bad)
		fprintf(f, "%s0x%x", first ? "" : "|", bad);
}

/* Flags under a mask that is not exact: +name for a set bit the mask
 * keeps, -name for a clear one; "0/0" for an empty mask. */
static void
put_flags_masked(FILE *f, uint32_t flags, uint32_t mask,
		 const char *(*name)(uint32_t))
{
	if (!mask) {
		fputs("0/0", f);
		return;
	}
	for (; mask; mask &= mask - 1) {
		uint32_t bit = mask & -mask;
		const char *s = name(bit);

		fprintf(f, "%c%s", flags & bit ? '+' : '-', s ? s : "[Unknown]");
	}
}

/* An attribute's bytes in hex, a space between two. */
static void
put_hex(FILE *f, const struct nlattr *a)
{
	const uint8_t *p = mnl_attr_get_payload(a);

	for (unsigned i = 0; i < mnl_attr_get_payload_len(a); i++)
		fprintf(f, "%s%02x", i ? " " : "", p[i]);
}

/* n bytes as one hex number without its leading zeros ("0" for none),
 * most significant first (reversed: the last byte is). */
static void
put_hex_number(FILE *f, const uint8_t *p, size_t n, bool reversed)
{
	bool printed = false;

	for (size_t i = 0; i < n; i++) {
		uint8_t v = p[reversed ? n - 1 - i : i];

		if (!v && !printed)
			continue;
		fprintf(f, printed ? "%02x" : "0x%x", v);
		printed = true;
	}
	if (!printed)
		fputc('0', f);
}

static const char *
tun_flag_name(uint32_t bit)
{
	switch (bit) {
	case 1: return "oam";
	case 2: return "df";
	case 4: return "csum";
	case 8: return "key";
	default: return NULL;
	}
}

/* Geneve options: {class=,type=,len=,data} each, as the mask keeps them. */
static void
put_geneve(FILE *f, const uint8_t *k, const uint8_t *m, size_t len)
{
	static const struct field fclass = { "class", 0, K_BE16 };
	static const struct field ftype = { "type", 2, K_U8X };

	while (len) {
		size_t dlen, olen;
		struct out o = { .f = f, .first = true };

		if (len < 4) {
			fprintf(f, "opt len %zu less than minimum 4", len);
			return;
		}
		dlen = (k[3] & 0x1f) * 4;
		olen = 4 + dlen;
		if (olen > len) {
			fprintf(f, "opt len %zu greater than remaining %zu",
				olen, len);
			return;
		}
		fputc('{', f);
		/* The class in hex. */
		if (!m || m[0] || m[1]) {
			sep(&o);
			fprintf(f, "%s=%#x", fclass.name, k[0] << 8 | k[1]);
			if (m && (m[0] & m[1]) != 0xff)
				fprintf(f, "/%#x", m[0] << 8 | m[1]);
		}
		put_field(&o, &ftype, k, m);
		if (!m || (m[3] & 0x1f)) {
			uint8_t lm = m ? ((m[3] & 0x1f) == 0x1f ? 0xff
							       : m[3] & 0x1f)
				       : 0xff;

			sep(&o);
			fprintf(f, "len=%zu", dlen);
			if (lm != 0xff)
				fprintf(f, "/%#x", lm);
		}
		if (dlen && (!m || !all_bytes(m + 4, dlen, 0))) {
			sep(&o);
			put_hex_number(f, k + 4, dlen, false);
			if (m && !all_bytes(m + 4, dlen, 0xff)) {
				fputc('/', f);
				put_hex_number(f, m + 4, dlen, false);
			}
		}
		fputc('}', f);
		k += olen;
		if (m)
			m += olen;
		len -= olen;
	}
}

static uint64_t
be64_at(const uint8_t *p)
{
	return (uint64_t)be32_at(p) << 32 | be32_at(p + 4);
}

/* VXLAN's extensions: the group policy's id and flags. */
static void
put_vxlan(FILE *f, const struct nlattr *a, const struct nlattr *m,
	  bool masked)
{
	const struct nlattr *attr;

	fputs("vxlan(", f);
	mnl_attr_for_each_payload(mnl_attr_get_payload(a),
				  mnl_attr_get_payload_len(a)) {
		const struct nlattr *ma = m ? find(mnl_attr_get_payload(m),
						   mnl_attr_get_payload_len(m),
						   mnl_attr_get_type(attr))
					    : NULL;
		uint32_t v, mv;
		uint8_t id[2], idm[2], fl, flm;
		struct out o = { .f = f, .first = true };
		static const struct field fid = { "id", 0, K_BE16 };
		static const struct field ffl = { "flags", 0, K_U8X };

		if (mnl_attr_get_type(attr) != OVS_VXLAN_EXT_GBP ||
		    mnl_attr_get_payload_len(attr) != 4) {
			fprintf(f, "key%u(", mnl_attr_get_type(attr));
			put_hex(f, attr);
			fputc(')', f);
			continue;
		}
		v = mnl_attr_get_u32(attr);
		mv = ma && mnl_attr_get_payload_len(ma) == 4
			     ? mnl_attr_get_u32(ma) : 0;
		id[0] = v >> 8;
		id[1] = v;
		idm[0] = mv >> 8;
		idm[1] = mv;
		fl = v >> 16;
		flm = mv >> 16;
		fputs("gbp(", f);
		put_field(&o, &fid, id, masked ? idm : NULL);
		put_field(&o, &ffl, &fl, masked ? &flm : NULL);
		fputc(')', f);
	}
	fputc(')', f);
}

static const struct field tun_fields[] = {
	[OVS_TUNNEL_KEY_ATTR_IPV4_SRC] = { "src", 0, K_IP4 },
	[OVS_TUNNEL_KEY_ATTR_IPV4_DST] = { "dst", 0, K_IP4 },
	[OVS_TUNNEL_KEY_ATTR_TOS] = { "tos", 0, K_U8X },
	[OVS_TUNNEL_KEY_ATTR_TTL] = { "ttl", 0, K_U8 },
	[OVS_TUNNEL_KEY_ATTR_TP_SRC] = { "tp_src", 0, K_BE16 },
	[OVS_TUNNEL_KEY_ATTR_TP_DST] = { "tp_dst", 0, K_BE16 },
	[OVS_TUNNEL_KEY_ATTR_IPV6_SRC] = { "ipv6_src", 0, K_IP6 },
	[OVS_TUNNEL_KEY_ATTR_IPV6_DST] = { "ipv6_dst", 0, K_IP6 },
};

/* A tunnel key's fields, then its flags. m NULL: exact; all_wild: the
 * mask has no tunnel attribute, so every field is wildcarded. */
static void
put_tunnel(FILE *f, const struct nlattr *a, const struct nlattr *m,
	   bool all_wild)
{
	static const uint8_t zeros[16];
	uint32_t flags = 0, mflags = 0;
	struct out o = { .f = f, .first = true };
	bool masked = m || all_wild;
	const struct nlattr *attr;

	mnl_attr_for_each_payload(mnl_attr_get_payload(a),
				  mnl_attr_get_payload_len(a)) {
		unsigned t = mnl_attr_get_type(attr);
		const uint8_t *k = mnl_attr_get_payload(attr);
		size_t n = mnl_attr_get_payload_len(attr);
		const struct nlattr *ma = m ? find(mnl_attr_get_payload(m),
						   mnl_attr_get_payload_len(m),
						   t)
					    : NULL;
		/* A field the mask leaves out is wildcarded. */
		const uint8_t *mk = ma && mnl_attr_get_payload_len(ma) == n
					    ? mnl_attr_get_payload(ma)
					    : masked ? zeros : NULL;

		if (masked && n > sizeof(zeros) && !ma)
			mk = NULL;
		switch (t) {
		case OVS_TUNNEL_KEY_ATTR_ID:
			flags |= 8;
			if (masked)
				mflags |= 8;
			/* (Written only under a mask, as ovs-dpctl does.) */
			if (n == 8 && mk && !all_bytes(mk, 8, 0)) {
				sep(&o);
				fprintf(f, "tun_id=0x%llx",
					(unsigned long long)be64_at(k));
				if (!all_bytes(mk, 8, 0xff))
					fprintf(f, "/%#llx",
						(unsigned long long)be64_at(mk));
			}
			break;
		case OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS:
			sep(&o);
			put_vxlan(f, attr, ma, masked);
			break;
		case OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT:
			flags |= 2;
			break;
		case OVS_TUNNEL_KEY_ATTR_CSUM:
			flags |= 4;
			break;
		case OVS_TUNNEL_KEY_ATTR_OAM:
			flags |= 1;
			break;
		case OVS_TUNNEL_KEY_ATTR_PAD:
			break;
		case OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS:
			sep(&o);
			fputs("geneve(", f);
			if (ma && mnl_attr_get_payload_len(ma) != n)
				fprintf(f, "value len %zu different from mask "
					   "len %u", n,
					mnl_attr_get_payload_len(ma));
			else
				put_geneve(f, k, ma ? mnl_attr_get_payload(ma)
						    : NULL, n);
			fputc(')', f);
			break;
		default:
			if (t < sizeof(tun_fields) / sizeof(tun_fields[0]) &&
			    tun_fields[t].name &&
			    n == kind_size[tun_fields[t].kind]) {
				put_field(&o, &tun_fields[t], k,
					  masked ? mk : NULL);
			} else {
				sep(&o);
				fprintf(f, "key%u(", t);
				put_hex(f, attr);
				if (ma) {
					fputc('/', f);
					put_hex(f, ma);
				}
				fputc(')', f);
			}
		}
	}
	if (m) {
		mnl_attr_for_each_payload(mnl_attr_get_payload(m),
					  mnl_attr_get_payload_len(m)) {
			switch (mnl_attr_get_type(attr)) {
			case OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT:
				mflags |= 2;
				break;
			case OVS_TUNNEL_KEY_ATTR_CSUM:
				mflags |= 4;
				break;
			case OVS_TUNNEL_KEY_ATTR_OAM:
				mflags |= 1;
				break;
			}
		}
	}
	if (!masked || mflags) {
		sep(&o);
		fputs("flags(", f);
		if (!masked || mflags == 0xf)
			put_flags(f, flags, tun_flag_name);
		else
			put_flags_masked(f, flags, mflags, tun_flag_name);
		fputc(')', f);
	}
}

static uint32_t
u32_of(const struct nlattr *a)
{
	return mnl_attr_get_u32(a);
}

static uint16_t
be16_of(const struct nlattr *a)
{
	const uint8_t *p = mnl_attr_get_payload(a);

	return p[0] << 8 | p[1];
}

static void
put_vlan(struct out *o, uint16_t tci, uint16_t mask)
{
	if ((tci & 0xfff) || (mask & 0xfff)) {
		sep(o);
		fprintf(o->f, "vid=%u", tci & 0xfffu);
		if ((mask & 0xfff) != 0xfff)
			fprintf(o->f, "/0x%x", mask & 0xfff);
	}
	if ((tci >> 13) || (mask >> 13)) {
		sep(o);
		fprintf(o->f, "pcp=%u", (unsigned)(tci >> 13));
		if ((mask >> 13) != 7)
			fprintf(o->f, "/0x%x", mask >> 13);
	}
	if (!(tci & 0x1000)) {
		sep(o);
		fputs("cfi=0", o->f);
	}
}

static void
put_mpls(struct out *o, const struct nlattr *a, const struct nlattr *m)
{
	const uint8_t *k = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a) / 4;

	for (size_t i = 0; i < n; i++) {
		uint32_t lse = be32_at(k + 4 * i);

		sep(o);
		if (!m) {
			fprintf(o->f, "label=%u,tc=%u,ttl=%u,bos=%u", lse >> 12,
				(lse >> 9) & 7, lse & 0xff, (lse >> 8) & 1);
		} else {
			uint32_t ml = be32_at((const uint8_t *)
					      mnl_attr_get_payload(m) + 4 * i);

			fprintf(o->f, "label=%u/0x%x,tc=%u/%x,ttl=%u/0x%x,"
				      "bos=%u/%x", lse >> 12, ml >> 12,
				(lse >> 9) & 7, (ml >> 9) & 7, lse & 0xff,
				ml & 0xff, (lse >> 8) & 1, (ml >> 8) & 1);
		}
	}
}

static void format_attrs(FILE *f, const void *key, size_t key_len,
			 const void *mask, size_t mask_len, bool has_mask);

/* The inside of one attribute's parentheses. m NULL: exact. */
static void
put_attr(FILE *f, const struct nlattr *a, const struct nlattr *m)
{
	unsigned type = mnl_attr_get_type(a);
	const struct layout *l = layout_of(type);
	const uint8_t *k = mnl_attr_get_payload(a);
	const uint8_t *mk = m ? mnl_attr_get_payload(m) : NULL;
	bool exact = !m || mask_is(type, m, 0xff);
	bool m_empty = m && all_bytes(mk, mnl_attr_get_payload_len(m), 0);
	struct out o = { .f = f, .first = true };

	if (l) {
		for (unsigned i = 0; i < FIELDS_MAX && l->f[i].name; i++)
			put_field(&o, &l->f[i], k, mk);
		return;
	}
	switch (type) {
	case OVS_KEY_ATTR_ENCAP:
		/* An empty mask leaves the inner key exact. */
		format_attrs(f, k, mnl_attr_get_payload_len(a), mk,
			     m ? mnl_attr_get_payload_len(m) : 0,
			     m && mnl_attr_get_payload_len(m));
		break;
	case OVS_KEY_ATTR_PRIORITY:
	case OVS_KEY_ATTR_SKB_MARK:
	case OVS_KEY_ATTR_DP_HASH:
	case OVS_KEY_ATTR_RECIRC_ID:
		fprintf(f, "%#x", u32_of(a));
		if (!exact)
			fprintf(f, "/%#x", u32_of(m));
		break;
	case OVS_KEY_ATTR_CT_MARK:
		if (!m_empty) {
			fprintf(f, "%#x", u32_of(a));
			if (!exact)
				fprintf(f, "/%#x", u32_of(m));
		}
		break;
	case OVS_KEY_ATTR_CT_ZONE:
		if (!m_empty) {
			fprintf(f, "%#x", mnl_attr_get_u16(a));
			if (!exact)
				fprintf(f, "/%#x", mnl_attr_get_u16(m));
		}
		break;
	case OVS_KEY_ATTR_CT_LABELS:
		/* The label as one 128-bit number: its bytes in host order,
		 * most significant first. */
		if (!m_empty) {
			put_hex_number(f, k, 16, true);
			if (!exact) {
				fputc('/', f);
				put_hex_number(f, mk, 16, true);
			}
		}
		break;
	case OVS_KEY_ATTR_CT_STATE:
		if (exact)
			put_flags(f, u32_of(a), ct_state_name);
		else
			put_flags_masked(f, u32_of(a), m_empty ? 0 : u32_of(m),
					 ct_state_name);
		break;
	case OVS_KEY_ATTR_IN_PORT:
		fprintf(f, "%u", u32_of(a));
		if (!exact)
			fprintf(f, "/%#x", u32_of(m));
		break;
	case OVS_KEY_ATTR_PACKET_TYPE: {
		uint32_t v = be32_at(k), mv = m ? be32_at(mk) : 0xffffffff;
		uint8_t ns[2] = { v >> 24, v >> 16 }, id[2] = { v >> 8, v };
		uint8_t nsm[2] = { mv >> 24, mv >> 16 }, idm[2] = { mv >> 8, mv };
		static const struct field fns = { "ns", 0, K_BE16 };
		static const struct field fid = { "id", 0, K_BE16 };

		put_field(&o, &fns, ns, nsm);
		/* The id in hex. */
		if (idm[0] || idm[1]) {
			sep(&o);
			fprintf(f, "%s=%#x", fid.name, id[0] << 8 | id[1]);
			if ((idm[0] << 8 | idm[1]) != 0xffff)
				fprintf(f, "/%#x", idm[0] << 8 | idm[1]);
		}
		break;
	}
	case OVS_KEY_ATTR_ETHERTYPE:
		fprintf(f, "0x%04x", be16_of(a));
		if (!exact)
			fprintf(f, "/0x%04x", be16_of(m));
		break;
	case OVS_KEY_ATTR_VLAN:
		put_vlan(&o, be16_of(a), m ? be16_of(m) : 0xffff);
		break;
	case OVS_KEY_ATTR_MPLS:
		put_mpls(&o, a, exact ? NULL : m);
		break;
	case OVS_KEY_ATTR_TUNNEL:
		put_tunnel(f, a, m, false);
		break;
	case OVS_KEY_ATTR_TCP_FLAGS:
		if (exact)
			put_flags(f, be16_of(a), tcp_flag_name);
		else
			put_flags_masked(f, be16_of(a), be16_of(m) & 0x0fff,
					 tcp_flag_name);
		break;
	default:
		put_hex(f, a);
		if (!exact) {
			fputc('/', f);
			put_hex(f, m);
		}
	}
}

static void
put_name(FILE *f, unsigned type)
{
	if (type < sizeof(attr_names) / sizeof(attr_names[0]) &&
	    attr_names[type])
		fputs(attr_names[type], f);
	else
		fprintf(f, "key%u", type);
}

/* Whether a (and m, when given) have the size their type wants. */
static bool
size_ok(const struct nlattr *a, const struct nlattr *m)
{
	unsigned type = mnl_attr_get_type(a);
	int want = attr_size(type);
	size_t n = mnl_attr_get_payload_len(a);

	if (m && !nested(type) && mnl_attr_get_payload_len(m) != n)
		return false;
	if (type == OVS_KEY_ATTR_MPLS)
		return n && n % 4 == 0;
	return !want || (size_t)want == n;
}

static void
format_attrs(FILE *f, const void *key, size_t key_len, const void *mask,
	     size_t mask_len, bool has_mask)
{
	bool first = true, has_ethtype = false, has_packet_type = false;
	const struct nlattr *attr, *em;

	if (!key_len) {
		fputs("<empty>", f);
		return;
	}
	mnl_attr_for_each_payload(key, key_len) {
		const struct nlattr *a = attr;
		unsigned type = mnl_attr_get_type(a);
		const struct nlattr *m = find(mask, mask_len, type);
		bool wildcard = false;

		if (type == OVS_KEY_ATTR_ETHERTYPE)
			has_ethtype = true;
		else if (type == OVS_KEY_ATTR_PACKET_TYPE)
			has_packet_type = true;
		if (attr_size(type) < 0 || !size_ok(a, m)) {
			/* Unknown or of a wrong size: its bytes, and its
			 * mask's when it has one (no mask is taken as
			 * exact, none as all ones). */
			fputs(first ? "" : ",", f);
			put_name(f, type);
			fputc('(', f);
			put_hex(f, a);
			if (m) {
				fputc('/', f);
				put_hex(f, m);
			}
			fputc(')', f);
			first = false;
			continue;
		}
		if (has_mask)
			wildcard = !m || mask_is(type, m, 0);
		if (!wildcard || nested(type)) {
			fputs(first ? "" : ",", f);
			put_name(f, type);
			fputc('(', f);
			/* A nested key without its mask is all wildcarded:
			 * an encapsulated key shows what is left of it (its
			 * eth()), a tunnel or NSH nothing. */
			if (type == OVS_KEY_ATTR_ENCAP && has_mask && !m)
				format_attrs(f, mnl_attr_get_payload(a),
					     mnl_attr_get_payload_len(a),
					     NULL, 0, true);
			else if (type == OVS_KEY_ATTR_TUNNEL && has_mask && !m)
				put_tunnel(f, a, NULL, true);
			else if (!(nested(type) && has_mask && !m))
				put_attr(f, a, has_mask ? m : NULL);
			fputc(')', f);
			first = false;
		} else if (type == OVS_KEY_ATTR_ETHERNET && !has_packet_type) {
			/* An Ethernet packet, whatever its addresses: the
			 * kernel tells the packet's type by eth()'s
			 * presence. */
			fputs(first ? "eth()" : ",eth()", f);
			first = false;
		} else if (type == OVS_KEY_ATTR_PACKET_TYPE) {
			has_packet_type = false;
		}
	}
	em = find(mask, mask_len, OVS_KEY_ATTR_ETHERTYPE);
	if (!has_ethtype && em && mnl_attr_get_payload_len(em) == 2)
		fprintf(f, ",eth_type(0/0x%04x)", be16_of(em));
}

void
odp_key_format(FILE *f, const void *key, size_t key_len, const void *mask,
	       size_t mask_len)
{
	format_attrs(f, key, key_len, mask, mask && mask_len ? mask_len : 0,
		     mask && mask_len);
}

/* Whether the attributes nested in a hold only zeros; those of
 * vxlan_type (when not 0) hold attributes of their own. */
static bool
inner_zero(const struct nlattr *a, unsigned vxlan_type)
{
	const struct nlattr *attr;

	mnl_attr_for_each_payload(mnl_attr_get_payload(a),
				  mnl_attr_get_payload_len(a)) {
		if (vxlan_type && mnl_attr_get_type(attr) == vxlan_type ?
			    !inner_zero(attr, 0) :
			    !all_bytes(mnl_attr_get_payload(attr),
				       mnl_attr_get_payload_len(attr), 0))
			return false;
	}
	return true;
}

/* Whether mask attribute m wildcards all it covers. */
static bool
mask_zero(const struct nlattr *m)
{
	const struct nlattr *attr;

	switch (mnl_attr_get_type(m)) {
	case OVS_KEY_ATTR_ENCAP:
		mnl_attr_for_each_payload(mnl_attr_get_payload(m),
					  mnl_attr_get_payload_len(m)) {
			if (!mask_zero(attr))
				return false;
		}
		return true;
	case OVS_KEY_ATTR_TUNNEL:
		return inner_zero(m, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	case OVS_KEY_ATTR_NSH:
		return inner_zero(m, 0);
	default:
		return mask_is(mnl_attr_get_type(m), m, 0);
	}
}

/* The fields of one attribute's mask that are not all zeros. */
static void
put_mask_fields(FILE *f, const struct nlattr *m)
{
	unsigned type = mnl_attr_get_type(m);
	const struct layout *l = layout_of(type);
	const uint8_t *p = mnl_attr_get_payload(m);
	bool first = true;

	if (type == OVS_KEY_ATTR_ENCAP) {
		odp_mask_fields(f, p, mnl_attr_get_payload_len(m));
		return;
	}
	if (!l || mnl_attr_get_payload_len(m) != l->size)
		return;
	for (unsigned i = 0; i < FIELDS_MAX && l->f[i].name; i++) {
		if (all_bytes(p + l->f[i].off, kind_size[l->f[i].kind], 0))
			continue;
		fprintf(f, "%s%s", first ? "" : ",", l->f[i].name);
		first = false;
	}
}

void
odp_mask_fields(FILE *f, const void *mask, size_t mask_len)
{
	const struct nlattr *attr;
	bool first = true;

	mnl_attr_for_each_payload(mask, mask_len) {
		unsigned type = mnl_attr_get_type(attr);

		if (mask_zero(attr))
			continue;
		fputs(first ? "" : ",", f);
		put_name(f, type);
		if (layout_of(type) || type == OVS_KEY_ATTR_ENCAP) {
			fputc('(', f);
			put_mask_fields(f, attr);
			fputc(')', f);
		}
		first = false;
	}
}

void
odp_ufid_format(FILE *f, const void *ufid, size_t len)
{
	uint32_t w[4] = { 0 };

	memcpy(w, ufid, len < sizeof(w) ? len : sizeof(w));
	fprintf(f, "ufid:%08x-%04x-%04x-%04x-%04x%08x", w[0], w[1] >> 16,
		w[1] & 0xffff, w[2] >> 16, w[2] & 0xffff, w[3]);
}
