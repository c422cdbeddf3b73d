/* SPDX-License-Identifier: Apache-2.0 */
#include "flow/tun-netlink.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "common/nlerr.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"

#define NESTED		-1
#define VARIABLE	-2

/* Each attribute's payload length; PAD's is 0. */
static const int tun_lens[OVS_TUNNEL_KEY_ATTR_MAX + 1] = {
	[OVS_TUNNEL_KEY_ATTR_ID] = 8,
	[OVS_TUNNEL_KEY_ATTR_IPV4_SRC] = 4,
	[OVS_TUNNEL_KEY_ATTR_IPV4_DST] = 4,
	[OVS_TUNNEL_KEY_ATTR_TOS] = 1,
	[OVS_TUNNEL_KEY_ATTR_TTL] = 1,
	[OVS_TUNNEL_KEY_ATTR_TP_SRC] = 2,
	[OVS_TUNNEL_KEY_ATTR_TP_DST] = 2,
	[OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS] = VARIABLE,
	[OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS] = NESTED,
	[OVS_TUNNEL_KEY_ATTR_IPV6_SRC] = 16,
	[OVS_TUNNEL_KEY_ATTR_IPV6_DST] = 16,
	[OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS] = VARIABLE,
};

static const int vxlan_lens[OVS_VXLAN_EXT_MAX + 1] = {
	[OVS_VXLAN_EXT_GBP] = 4,
};

/* A geneve option: class, type (high bit: critical), length in words of
 * its data (low 5 bits), then the data. */
#define GENEVE_OPT_HLEN		4
#define GENEVE_CRIT_TYPE	0x80
#define GENEVE_LEN_MASK		0x1f

/* The type of a, within max and of the length lens[] says (NESTED,
 * VARIABLE: any), or -EINVAL; what names such attributes in the kernel's
 * error lines. */
static int
attr_check(const struct nlattr *a, int max, const int *lens,
	   const char *what, bool log)
{
	int type = attr_type(a), want;

	if (type > max) {
		ovs_nlerr(log, "%s %d out of range max %d", what, type, max);
		return -EINVAL;
	}
	want = lens[type];
	if (want != NESTED && want != VARIABLE && attr_len(a) != want) {
		ovs_nlerr(log, "%s %d has unexpected len %d expected %d", what,
			  type, attr_len(a), want);
		return -EINVAL;
	}
	return type;
}

/* len bytes of options, at the end of t->opts; a key's options length is
 * opts_len, a mask's all ones. */
static void
opts_copy(struct tun_key *t, const void *data, int len, uint8_t opts_len,
	  bool is_mask)
{
	memcpy(t->opts + TUN_OPTS_MAX - len, data, len);
	t->opts_len = is_mask ? 0xff : opts_len;
}

static int
geneve_opts(struct tun_key *t, const struct nlattr *a,
	    const struct tun_key *key, bool log)
{
	int len = attr_len(a);

	if (len > TUN_OPTS_LEN_MAX) {
		ovs_nlerr(log, "Geneve option length err (len %d, max %d).",
			  len, TUN_OPTS_LEN_MAX);
		return -EINVAL;
	}
	if (len % 4) {
		ovs_nlerr(log, "Geneve opt len %d is not a multiple of 4.",
			  len);
		return -EINVAL;
	}
	/* A key keeps its options' length, or a packet with more options
	 * would match it; a mask says which bytes of exactly those. */
	if (key && key->opts_len != len) {
		ovs_nlerr(log, "Geneve option len %d != mask len %d",
			  key->opts_len, len);
		return -EINVAL;
	}
	opts_copy(t, attr_data(a), len, len, key != NULL);
	return 0;
}

static int
vxlan_opts(struct tun_key *t, const struct nlattr *attr, bool is_mask,
	   bool log)
{
	struct tun_vxlan_opts o = { 0 };
	const struct nlattr *a;
	int rem;

	attr_for_each(a, attr_data(attr), attr_len(attr), rem) {
		int type = attr_check(a, OVS_VXLAN_EXT_MAX, vxlan_lens,
				      "VXLAN extension", log);

		if (type < 0)
			return type;
		if (type != OVS_VXLAN_EXT_GBP) {
			ovs_nlerr(log, "Unknown VXLAN extension attribute %d",
				  type);
			return -EINVAL;
		}
		o.gbp = attr_get_u32(a);
	}
	/* Unlike the tunnel nest, an unpadded last attribute (rem < 0)
	 * is refused too, as the kernel does. */
	if (rem) {
		ovs_nlerr(log, "VXLAN extension message has %d unknown bytes.",
			  rem);
		return -EINVAL;
	}
	opts_copy(t, &o, sizeof(o), sizeof(o), is_mask);
	return 0;
}

static int
erspan_opts(struct tun_key *t, const struct nlattr *a, bool is_mask,
	    bool log)
{
	int len = attr_len(a);

	if (len > TUN_OPTS_LEN_MAX) {
		ovs_nlerr(log, "ERSPAN option length err (len %d, max %d).",
			  len, TUN_OPTS_LEN_MAX);
		return -EINVAL;
	}
	/* Whatever came, a key's options are one struct erspan_metadata,
	 * the last bytes of what came or zeros before them. */
	opts_copy(t, attr_data(a), len, sizeof(struct tun_erspan_opts),
		  is_mask);
	return 0;
}

static int
opts_parse(struct tun_key *t, const struct nlattr *a,
	   const struct tun_key *key, bool log)
{
	switch (attr_type(a)) {
	case OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS:
		return geneve_opts(t, a, key, log);
	case OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS:
		return vxlan_opts(t, a, key != NULL, log);
	default:
		return erspan_opts(t, a, key != NULL, log);
	}
}

static uint16_t
opts_flag(int type)
{
	return type == OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS	  ? TUN_F_GENEVE_OPT
	       : type == OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS ? TUN_F_VXLAN_OPT
							: TUN_F_ERSPAN_OPT;
}

/* What a key must hold, the mask rules being checked already. */
static int
key_check(const struct tun_key *t, bool ipv4, bool ipv6, bool ttl,
	  bool bridge, bool log)
{
	if (!ipv4 && !ipv6) {
		ovs_nlerr(log, "IP tunnel dst address not specified");
		return -EINVAL;
	}
	if (bridge) {
		/* The bridge mode carries a tunnel id at most. */
		if (t->ipv4_src || t->ipv4_dst || t->tp_src || t->tp_dst ||
		    t->ttl || t->tos || (t->flags & ~TUN_F_KEY)) {
			ovs_nlerr(log, "IPv4 tun info is not correct");
			return -EINVAL;
		}
	} else if (ipv4 && !t->ipv4_dst) {
		ovs_nlerr(log, "IPv4 tunnel dst address is zero");
		return -EINVAL;
	}
	if (ipv6 && IN6_IS_ADDR_UNSPECIFIED(&t->ipv6_dst)) {
		ovs_nlerr(log, "IPv6 tunnel dst address is zero");
		return -EINVAL;
	}
	if (!ttl && !bridge) {
		ovs_nlerr(log, "IP tunnel TTL not specified.");
		return -EINVAL;
	}
	return 0;
}

int
tun_key_from_nlattr(struct tun_key *t, const struct nlattr *attr,
		    const struct tun_key *key, bool log)
{
	bool ipv4 = false, ipv6 = false, ttl = false, bridge = false;
	const struct nlattr *a;
	uint16_t flags = 0;
	int opts_type = 0;
	int rem, err;

	attr_for_each(a, attr_data(attr), attr_len(attr), rem) {
		int type = attr_check(a, OVS_TUNNEL_KEY_ATTR_MAX, tun_lens,
				      "Tunnel attr", log);

		if (type < 0)
			return type;
		switch (type) {
		case OVS_TUNNEL_KEY_ATTR_ID:
			t->id = attr_get_u64(a);
			flags |= TUN_F_KEY;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_SRC:
			t->ipv4_src = attr_get_u32(a);
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_DST:
			t->ipv4_dst = attr_get_u32(a);
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV6_SRC:
			memcpy(&t->ipv6_src, attr_data(a), 16);
			ipv6 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV6_DST:
			memcpy(&t->ipv6_dst, attr_data(a), 16);
			ipv6 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_TOS:
			t->tos = attr_get_u8(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_TTL:
			t->ttl = attr_get_u8(a);
			ttl = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT:
			flags |= TUN_F_DF;
			break;
		case OVS_TUNNEL_KEY_ATTR_CSUM:
			flags |= TUN_F_CSUM;
			break;
		case OVS_TUNNEL_KEY_ATTR_OAM:
			flags |= TUN_F_OAM;
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_SRC:
			t->tp_src = attr_get_u16(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_DST:
			t->tp_dst = attr_get_u16(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS:
		case OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS:
		case OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS:
			if (opts_type) {
				ovs_nlerr(log, "Multiple metadata blocks "
					  "provided");
				return -EINVAL;
			}
			err = opts_parse(t, a, key, log);
			if (err)
				return err;
			flags |= opts_flag(type);
			opts_type = type;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE:
			bridge = true;
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_PAD:
			break;
		}
	}
	t->flags = flags;
	t->family = key ? 0xff : ipv6 ? AF_INET6 : AF_INET;
	/* An unpadded last attribute leaves rem < 0: accepted. */
	if (rem > 0) {
		ovs_nlerr(log, "IP tunnel attribute has %d unknown bytes.", rem);
		return -EINVAL;
	}
	if (ipv4 && ipv6) {
		ovs_nlerr(log, "Mixed IPv4 and IPv6 tunnel attributes");
		return -EINVAL;
	}
	if (!key && (err = key_check(t, ipv4, ipv6, ttl, bridge, log)))
		return err;
	return opts_type;
}

/* set(tunnel)'s geneve options must be a chain of whole options. */
static int
geneve_chain(struct tun_key *t)
{
	const uint8_t *o = tun_key_opts_const(t);
	int left = t->opts_len;

	while (left > 0) {
		int len;

		if (left < GENEVE_OPT_HLEN)
			return -EINVAL;
		len = GENEVE_OPT_HLEN + (o[3] & GENEVE_LEN_MASK) * 4;
		if (len > left)
			return -EINVAL;
		if (o[2] & GENEVE_CRIT_TYPE)
			t->flags |= TUN_F_CRIT_OPT;
		o += len;
		left -= len;
	}
	return 0;
}

int
tun_key_from_set(struct tun_key *t, const struct nlattr *attr, bool log)
{
	int type;

	memset(t, 0, sizeof(*t));
	type = tun_key_from_nlattr(t, attr, NULL, log);
	if (type < 0)
		return type;
	/* The kernel keeps opts_len bytes of options, no more. */
	memset(t->opts, 0, TUN_OPTS_MAX - t->opts_len);
	if (type == OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS)
		return geneve_chain(t);
	return 0;
}

/* Every payload of the list all ones; the attributes of type 'nest' are
 * lists of their own. */
static void
mask_fill(char *data, int len, int nest)
{
	const struct nlattr *a;
	int rem;

	attr_for_each(a, data, len, rem) {
		/* a points into data, which is ours to write. */
		char *payload = data + ((const char *)a - data) + NLA_HDRLEN;

		if (attr_type(a) == nest)
			mask_fill(payload, attr_len(a), -1);
		else
			memset(payload, 0xff, attr_len(a));
	}
}

void
tun_nlattrs_mask_fill(void *data, int len)
{
	mask_fill(data, len, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
}

static void
put_flag(struct msgbuf *mb, uint16_t type)
{
	msgbuf_put(mb, type, 0, "");
}

/* The options of out, as long as key's. */
static void
put_opts(struct msgbuf *mb, const struct tun_key *key,
	 const struct tun_key *out)
{
	const uint8_t *o = out->opts + TUN_OPTS_MAX - key->opts_len;

	if (out->flags & TUN_F_GENEVE_OPT) {
		msgbuf_put(mb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, key->opts_len,
			   o);
	} else if (out->flags & TUN_F_VXLAN_OPT) {
		struct nlattr *nest = msgbuf_nest_start(
			mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
		struct tun_vxlan_opts v = { 0 };

		memcpy(&v, o, key->opts_len < sizeof(v) ? key->opts_len
							 : sizeof(v));
		msgbuf_put_u32(mb, OVS_VXLAN_EXT_GBP, v.gbp);
		msgbuf_nest_end(mb, nest);
	} else if (out->flags & TUN_F_ERSPAN_OPT) {
		msgbuf_put(mb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, key->opts_len,
			   o);
	}
}

void
tun_key_put(struct msgbuf *mb, uint16_t attr, const struct tun_key *key,
	    const struct tun_key *out, bool bridge)
{
	struct nlattr *nest = msgbuf_nest_start(mb, attr);

	if (out->flags & TUN_F_KEY)
		msgbuf_put_u64(mb, OVS_TUNNEL_KEY_ATTR_ID, out->id);
	if (bridge) {
		put_flag(mb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
		goto end;
	}
	if (key->family == AF_INET) {
		if (out->ipv4_src)
			msgbuf_put_u32(mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC,
				       out->ipv4_src);
		if (out->ipv4_dst)
			msgbuf_put_u32(mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
				       out->ipv4_dst);
	} else if (key->family == AF_INET6) {
		if (!IN6_IS_ADDR_UNSPECIFIED(&out->ipv6_src))
			msgbuf_put(mb, OVS_TUNNEL_KEY_ATTR_IPV6_SRC, 16,
				   &out->ipv6_src);
		if (!IN6_IS_ADDR_UNSPECIFIED(&out->ipv6_dst))
			msgbuf_put(mb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, 16,
				   &out->ipv6_dst);
	}
	if (out->tos)
		msgbuf_put_u8(mb, OVS_TUNNEL_KEY_ATTR_TOS, out->tos);
	msgbuf_put_u8(mb, OVS_TUNNEL_KEY_ATTR_TTL, out->ttl);
	if (out->flags & TUN_F_DF)
		put_flag(mb, OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT);
	if (out->flags & TUN_F_CSUM)
		put_flag(mb, OVS_TUNNEL_KEY_ATTR_CSUM);
	if (out->tp_src)
		msgbuf_put_u16(mb, OVS_TUNNEL_KEY_ATTR_TP_SRC, out->tp_src);
	if (out->tp_dst)
		msgbuf_put_u16(mb, OVS_TUNNEL_KEY_ATTR_TP_DST, out->tp_dst);
	if (out->flags & TUN_F_OAM)
		put_flag(mb, OVS_TUNNEL_KEY_ATTR_OAM);
	if (key->opts_len)
		put_opts(mb, key, out);
end:
	msgbuf_nest_end(mb, nest);
}
