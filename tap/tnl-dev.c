/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/tnl-dev.h"

#include <endian.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "packet/encap.h"
#include "tap/netdev.h"
#include "tap/tap.h"

/* Newer than some installed headers. */
#define IFLA_VXLAN_LOCALBYPASS_	31
#define IFLA_VXLAN_LABEL_POLICY_	32

/* Room for any of the kinds' attributes. */
#define TB_SIZE	64
_Static_assert(IFLA_VXLAN_MAX < TB_SIZE && IFLA_GENEVE_MAX < TB_SIZE &&
	       IFLA_GRE_MAX < TB_SIZE && IFLA_BAREUDP_MAX < TB_SIZE,
	       "TB_SIZE");

enum tnl_family { FAM_VXLAN, FAM_GENEVE, FAM_GRE, FAM_BAREUDP };

struct tnl_kind {
	const char *name;
	enum tnl_family fam;
	const struct vport_ops *ops;
	uint8_t family;			/* the underlay: 0 both */
	uint16_t default_port;		/* UDP tunnels */
	bool erspan;
	bool l3;			/* carries L3 packets (ARPHRD_NONE) */
};

/* The kernel's defaults: vxlan's module parameter udp_port (8472, not
 * IANA's 4789), geneve's IANA port; VXLAN-GPE's is IANA's. */
#define VXLAN_GPE_PORT	4790

static const struct tnl_kind kinds[] = {
	{ "vxlan", FAM_VXLAN, &vport_vxlan_ops, 0, 8472, false, false },
	{ "geneve", FAM_GENEVE, &vport_geneve_ops, 0, 6081, false, false },
	{ "gre", FAM_GRE, &vport_gre_ops, AF_INET, 0, false, true },
	{ "gretap", FAM_GRE, &vport_gre_ops, AF_INET, 0, false, false },
	{ "ip6gretap", FAM_GRE, &vport_gre_ops, AF_INET6, 0, false, false },
	{ "erspan", FAM_GRE, &vport_erspan_ops, AF_INET, 0, true, false },
	{ "ip6erspan", FAM_GRE, &vport_erspan_ops, AF_INET6, 0, true, false },
	{ "bareudp", FAM_BAREUDP, &vport_bareudp_ops, 0, 0, false, true },
};

static struct tnl_dev **devs;
static size_t n_devs;

const struct tnl_kind *
tnl_kind_find(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const char *
tnl_kind_name(const struct tnl_kind *kind)
{
	return kind->name;
}

/* The drivers' policies, as far as the daemon reads the data. */
static const struct attr_policy vxlan_policy[IFLA_VXLAN_MAX + 1] = {
	[IFLA_VXLAN_LEARNING] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_PROXY] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_RSC] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_L2MISS] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_L3MISS] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_REMCSUM_TX] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_REMCSUM_RX] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_REMCSUM_NOPARTIAL] = { .kind = ATTR_FLAG },
	/* IFLA_VXLAN_TTL_INHERIT, a flag, is read by its presence only:
	 * GETLINK gives it as a u8 (fill_vxlan, as the kernel). */
	[IFLA_VXLAN_PORT] = { .kind = ATTR_BE16 },
	[IFLA_VXLAN_COLLECT_METADATA] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_UDP_ZERO_CSUM6_RX] = { .kind = ATTR_U8 },
	[IFLA_VXLAN_GBP] = { .kind = ATTR_FLAG },
	[IFLA_VXLAN_GPE] = { .kind = ATTR_FLAG },
};

static const struct attr_policy geneve_policy[IFLA_GENEVE_MAX + 1] = {
	[IFLA_GENEVE_ID] = { .kind = ATTR_U32 },
	[IFLA_GENEVE_REMOTE] = { .kind = ATTR_UNSPEC, .len = 4 },
	[IFLA_GENEVE_REMOTE6] = { .kind = ATTR_UNSPEC, .len = 16 },
	[IFLA_GENEVE_TTL] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_TOS] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_PORT] = { .kind = ATTR_BE16 },
	[IFLA_GENEVE_COLLECT_METADATA] = { .kind = ATTR_FLAG },
	[IFLA_GENEVE_UDP_CSUM] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_UDP_ZERO_CSUM6_TX] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_UDP_ZERO_CSUM6_RX] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_DF] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_INNER_PROTO_INHERIT] = { .kind = ATTR_FLAG },
};

static const struct attr_policy bareudp_policy[IFLA_BAREUDP_MAX + 1] = {
	[IFLA_BAREUDP_PORT] = { .kind = ATTR_BE16 },
	[IFLA_BAREUDP_ETHERTYPE] = { .kind = ATTR_BE16 },
	[IFLA_BAREUDP_SRCPORT_MIN] = { .kind = ATTR_U16 },
	[IFLA_BAREUDP_MULTIPROTO_MODE] = { .kind = ATTR_FLAG },
};

/* The addresses are 4 bytes at least (ipgre), 16 (ip6gre). */
static const struct attr_policy gre_policy[IFLA_GRE_MAX + 1] = {
	[IFLA_GRE_IFLAGS] = { .kind = ATTR_BE16 },
	[IFLA_GRE_OFLAGS] = { .kind = ATTR_BE16 },
	[IFLA_GRE_IKEY] = { .kind = ATTR_BE32 },
	[IFLA_GRE_OKEY] = { .kind = ATTR_BE32 },
	[IFLA_GRE_LOCAL] = { .kind = ATTR_UNSPEC, .len = 4 },
	[IFLA_GRE_REMOTE] = { .kind = ATTR_UNSPEC, .len = 4 },
	[IFLA_GRE_TTL] = { .kind = ATTR_U8 },
	[IFLA_GRE_TOS] = { .kind = ATTR_U8 },
	[IFLA_GRE_PMTUDISC] = { .kind = ATTR_U8 },
	[IFLA_GRE_COLLECT_METADATA] = { .kind = ATTR_FLAG },
	[IFLA_GRE_ERSPAN_INDEX] = { .kind = ATTR_U32 },
	[IFLA_GRE_ERSPAN_VER] = { .kind = ATTR_U8 },
	[IFLA_GRE_ERSPAN_DIR] = { .kind = ATTR_U8 },
	[IFLA_GRE_ERSPAN_HWID] = { .kind = ATTR_U16 },
};

static uint16_t
be16_at(const struct nlattr *a)
{
	return ntohs(attr_get_u16(a));
}

/* A u8 attribute given and not 0. */
static bool
u8_set(const struct nlattr *a)
{
	return a && attr_get_u8(a);
}

/* vxlan_config_validate(): GPE only on a collect-metadata device, and
 * with none of the flags outside VXLAN_F_ALLOWED_GPE (learning is one,
 * and on unless asked off). */
static int
vxlan_gpe_check(const struct nlattr *const *tb, const struct tnl_dev *dev,
		bool collect_md, struct extack *ack)
{
	static const int u8_flags[] = {
		IFLA_VXLAN_PROXY, IFLA_VXLAN_RSC, IFLA_VXLAN_L2MISS,
		IFLA_VXLAN_L3MISS, IFLA_VXLAN_REMCSUM_TX, IFLA_VXLAN_REMCSUM_RX,
	};
	bool bad = !collect_md || dev->learning || tb[IFLA_VXLAN_GBP] ||
		   tb[IFLA_VXLAN_REMCSUM_NOPARTIAL] ||
		   tb[IFLA_VXLAN_TTL_INHERIT];

	for (size_t i = 0; i < sizeof(u8_flags) / sizeof(u8_flags[0]); i++)
		bad = bad || u8_set(tb[u8_flags[i]]);
	if (!bad)
		return 0;
	if (ack)
		ack->msg = "VXLAN GPE does not support this combination of "
			   "attributes";
	return -EINVAL;
}

/* An address attribute of the family's length, into the key as its
 * source or destination: shorter, the policy's -ERANGE (ip6gre's and
 * geneve's REMOTE6 ask 16 bytes, where the table above asks 4). */
static int
addr_get(const struct nlattr *a, uint8_t family, struct tun_key *k,
	 bool dst)
{
	size_t n = family == AF_INET ? 4 : 16;

	if ((size_t)attr_len(a) < n)
		return -ERANGE;
	k->family = family;
	if (family == AF_INET)
		memcpy(dst ? &k->ipv4_dst : &k->ipv4_src, attr_data(a), 4);
	else
		memcpy(dst ? &k->ipv6_dst : &k->ipv6_src, attr_data(a), 16);
	return 0;
}

/* geneve_nl2info(): the VNI below 2^24, one remote of either family. A
 * UDP checksum: asked for on IPv4, unless refused on IPv6. TTL 0 is the
 * route's hop limit (GRE's too; its IP packets' own in the kernel): the
 * default one's here, ENCAP_TTL_DEFAULT. */
static int
geneve_remote(const struct nlattr *const *tb, bool collect_md,
	      struct tnl_dev *dev, struct extack *ack)
{
	struct tun_key *k = &dev->remote;
	const struct nlattr *v4 = tb[IFLA_GENEVE_REMOTE];
	const struct nlattr *v6 = tb[IFLA_GENEVE_REMOTE6];
	uint32_t vni = tb[IFLA_GENEVE_ID] ? attr_get_u32(tb[IFLA_GENEVE_ID])
					  : 0;
	int err;

	if (vni >= 1u << 24) {
		if (ack)
			ack->msg = "Geneve ID must be lower than 16777216";
		return -ERANGE;
	}
	if (v4 && v6) {
		if (ack)
			ack->msg = "Cannot specify both IPv4 and IPv6 Remote "
				   "addresses";
		return -EINVAL;
	}
	if (collect_md || (!v4 && !v6))
		return 0;
	err = addr_get(v4 ? v4 : v6, v4 ? AF_INET : AF_INET6, k, true);
	if (err)
		return err;
	k->id = htobe64(vni);
	k->flags = TUN_F_KEY;
	dev->rx_keyed = true;
	dev->rx_id = k->id;
	if (v4 ? u8_set(tb[IFLA_GENEVE_UDP_CSUM])
	       : !u8_set(tb[IFLA_GENEVE_UDP_ZERO_CSUM6_TX]))
		k->flags |= TUN_F_CSUM;
	if (u8_set(tb[IFLA_GENEVE_DF]))
		k->flags |= TUN_F_DF;
	k->ttl = tb[IFLA_GENEVE_TTL] ? attr_get_u8(tb[IFLA_GENEVE_TTL]) : 0;
	if (!k->ttl)
		k->ttl = ENCAP_TTL_DEFAULT;
	k->tos = tb[IFLA_GENEVE_TOS] ? attr_get_u8(tb[IFLA_GENEVE_TOS]) : 0;
	return 0;
}

/* ipgre_netlink_parms() and ip6gre's, for a device of one remote: the
 * output key and flags (IFLA_GRE_OFLAGS and IFLAGS carry the GRE
 * header's, GRE_HF_*), the ERSPAN metadata; path MTU discovery (the
 * outer DF bit) on unless asked off, IPv4's. */
static int
gre_remote(const struct tnl_kind *kind, const struct nlattr *const *tb,
	   struct tnl_dev *dev)
{
	struct tun_key *k = &dev->remote;
	uint16_t oflags = tb[IFLA_GRE_OFLAGS]
			  ? ntohs(attr_get_u16(tb[IFLA_GRE_OFLAGS])) : 0;
	uint16_t iflags = tb[IFLA_GRE_IFLAGS]
			  ? ntohs(attr_get_u16(tb[IFLA_GRE_IFLAGS])) : 0;
	uint8_t family = kind->family;
	int err;

	if (!tb[IFLA_GRE_REMOTE])
		return 0;
	err = addr_get(tb[IFLA_GRE_REMOTE], family, k, true);
	if (!err && tb[IFLA_GRE_LOCAL])
		err = addr_get(tb[IFLA_GRE_LOCAL], family, k, false);
	if (err) {
		memset(k, 0, sizeof(*k));
		return err;
	}
	/* ERSPAN's session id is its key, which it always has, as the
	 * sequence numbers. */
	if (kind->erspan)
		oflags |= GRE_HF_KEY | GRE_HF_SEQ;
	if (oflags & GRE_HF_KEY) {
		k->flags |= TUN_F_KEY;
		if (tb[IFLA_GRE_OKEY])
			k->id = htobe64(ntohl(attr_get_u32(tb[IFLA_GRE_OKEY])));
	}
	dev->rx_keyed = kind->erspan || (iflags & GRE_HF_KEY);
	if (dev->rx_keyed && tb[IFLA_GRE_IKEY])
		dev->rx_id = htobe64(ntohl(attr_get_u32(tb[IFLA_GRE_IKEY])));
	if (oflags & GRE_HF_CSUM)
		k->flags |= TUN_F_CSUM;
	if (oflags & GRE_HF_SEQ)
		k->flags |= TUN_F_SEQ;
	if (family == AF_INET && (!tb[IFLA_GRE_PMTUDISC] ||
				  attr_get_u8(tb[IFLA_GRE_PMTUDISC])))
		k->flags |= TUN_F_DF;
	k->ttl = tb[IFLA_GRE_TTL] ? attr_get_u8(tb[IFLA_GRE_TTL]) : 0;
	if (!k->ttl)
		k->ttl = ENCAP_TTL_DEFAULT;
	/* ip6gre takes a flow label and traffic class in IFLA_GRE_FLOWINFO
	 * (not read: none here), not IFLA_GRE_TOS. */
	if (family == AF_INET && tb[IFLA_GRE_TOS])
		k->tos = attr_get_u8(tb[IFLA_GRE_TOS]);
	if (kind->erspan) {
		struct tun_erspan_opts o = { .version = dev->erspan_ver };

		if (o.version == 1 && tb[IFLA_GRE_ERSPAN_INDEX])
			o.u.index = htonl(attr_get_u32(
					tb[IFLA_GRE_ERSPAN_INDEX]));
		if (o.version == 2) {
			uint16_t hwid = tb[IFLA_GRE_ERSPAN_HWID]
				? attr_get_u16(tb[IFLA_GRE_ERSPAN_HWID]) : 0;
			uint16_t f = (hwid << ERSPAN_MD2_HWID_SHIFT) &
				     ERSPAN_MD2_HWID_MASK;

			if (tb[IFLA_GRE_ERSPAN_DIR] &&
			    attr_get_u8(tb[IFLA_GRE_ERSPAN_DIR]))
				f |= ERSPAN_MD2_DIR;
			o.u.md2.flags = htons(f);
		}
		k->opts_len = sizeof(o);
		memcpy(tun_key_opts(k), &o, sizeof(o));
		k->flags |= TUN_F_ERSPAN_OPT;
	}
	return 0;
}

/* bareudp2info() and bareudp_configure(): a port and a protocol given,
 * multiproto only for IPv4 and unicast MPLS; always collect-metadata. */
static int
bareudp_parse(const struct nlattr *const *tb, struct tnl_dev *dev,
	      bool *collect_md, struct extack *ack)
{
	const char *msg = NULL;
	uint16_t type;

	if (!tb[IFLA_BAREUDP_PORT])
		msg = "port not specified";
	else if (!tb[IFLA_BAREUDP_ETHERTYPE])
		msg = "ethertype not specified";
	if (msg) {
		if (ack)
			ack->msg = msg;
		return -EINVAL;
	}
	type = be16_at(tb[IFLA_BAREUDP_ETHERTYPE]);
	dev->cfg.dst_port = be16_at(tb[IFLA_BAREUDP_PORT]);
	dev->cfg.ethertype = type;
	dev->cfg.multiproto = tb[IFLA_BAREUDP_MULTIPROTO_MODE] != NULL;
	if (tb[IFLA_BAREUDP_SRCPORT_MIN])
		dev->cfg.port_min = attr_get_u16(tb[IFLA_BAREUDP_SRCPORT_MIN]);
	if (dev->cfg.multiproto && type != ETH_P_IP && type != ETH_P_MPLS_UC) {
		if (ack)
			ack->msg = "Cannot set multiproto mode for this "
				   "ethertype (only IPv4 and unicast MPLS are "
				   "supported)";
		return -EINVAL;
	}
	*collect_md = true;
	return 0;
}

int
tnl_kind_parse(const struct tnl_kind *kind, const struct nlattr *data,
	       struct tnl_dev *dev, bool *collect_md, struct extack *ack)
{
	const struct nlattr *tb[TB_SIZE] = { 0 };
	const struct attr_policy *policy = kind->fam == FAM_VXLAN
		? vxlan_policy : kind->fam == FAM_GENEVE ? geneve_policy
		: kind->fam == FAM_GRE ? gre_policy : bareudp_policy;
	int maxtype = kind->fam == FAM_VXLAN ? IFLA_VXLAN_MAX
		: kind->fam == FAM_GENEVE ? IFLA_GENEVE_MAX
		: kind->fam == FAM_GRE ? IFLA_GRE_MAX : IFLA_BAREUDP_MAX;
	int err;

	dev->kind = kind;
	dev->cfg = (struct vport_tunnel_config){
		.dst_port = kind->default_port,
		.family = kind->family,
		.l3 = kind->l3,
	};
	dev->learning = true;
	dev->erspan_ver = 1;
	memset(&dev->remote, 0, sizeof(dev->remote));
	dev->port = NULL;
	*collect_md = false;
	if (data) {
		err = attr_parse_nested(data, policy, maxtype, tb, ack);
		if (err)
			return err;
	}
	switch (kind->fam) {
	case FAM_VXLAN:
		*collect_md = u8_set(tb[IFLA_VXLAN_COLLECT_METADATA]);
		if (tb[IFLA_VXLAN_LEARNING])
			dev->learning = attr_get_u8(tb[IFLA_VXLAN_LEARNING]);
		dev->cfg.gpe = tb[IFLA_VXLAN_GPE] != NULL;
		if (dev->cfg.gpe) {
			err = vxlan_gpe_check(tb, dev, *collect_md, ack);
			if (err)
				return err;
			dev->cfg.dst_port = VXLAN_GPE_PORT;
			dev->cfg.l3 = true;
		}
		if (tb[IFLA_VXLAN_PORT] && be16_at(tb[IFLA_VXLAN_PORT]))
			dev->cfg.dst_port = be16_at(tb[IFLA_VXLAN_PORT]);
		dev->cfg.gbp = tb[IFLA_VXLAN_GBP] != NULL;
		dev->cfg.csum6_zero_rx =
			u8_set(tb[IFLA_VXLAN_UDP_ZERO_CSUM6_RX]);
		break;
	case FAM_GENEVE:
		*collect_md = tb[IFLA_GENEVE_COLLECT_METADATA] != NULL;
		err = geneve_remote(tb, *collect_md, dev, ack);
		if (err)
			return err;
		dev->cfg.l3 = tb[IFLA_GENEVE_INNER_PROTO_INHERIT] != NULL;
		if (tb[IFLA_GENEVE_PORT])
			dev->cfg.dst_port = be16_at(tb[IFLA_GENEVE_PORT]);
		dev->cfg.csum6_zero_rx =
			u8_set(tb[IFLA_GENEVE_UDP_ZERO_CSUM6_RX]);
		break;
	case FAM_BAREUDP:
		return bareudp_parse(tb, dev, collect_md, ack);
	case FAM_GRE:
		*collect_md = tb[IFLA_GRE_COLLECT_METADATA] != NULL;
		if (kind->erspan && tb[IFLA_GRE_ERSPAN_VER]) {
			dev->erspan_ver = attr_get_u8(tb[IFLA_GRE_ERSPAN_VER]);
			/* The kernel's erspan_validate(). */
			if (dev->erspan_ver > 2)
				return -EINVAL;
		}
		if (!*collect_md)
			return gre_remote(kind, tb, dev);
		break;
	}
	return 0;
}

struct tnl_dev *
tnl_dev_find(int netnsid, int ifindex, const char *name)
{
	for (size_t i = 0; i < n_devs; i++)
		if (devs[i]->netnsid == netnsid &&
		    ((ifindex > 0 && devs[i]->ifindex == ifindex) ||
		     (ifindex <= 0 && name && !strcmp(devs[i]->name, name))))
			return devs[i];
	return NULL;
}

/* The kernel's answer to a second collect-metadata device that would
 * take what want's takes: vxlan_vni_in_use() (-EEXIST), geneve_find_dev()
 * and bareudp_find_dev() (-EBUSY), one collect_md_tun per GRE kind
 * (-EEXIST); a UDP port taken by another kind's socket fails to bind
 * (-EADDRINUSE). 0 when none does.
 * Devices of one remote are told apart by it: GRE's raw sockets each see
 * every packet; but a UDP port's packets go to one socket of those bound
 * to it, so a device of one remote has its UDP port to itself here, where
 * the kernel's would share it (-EBUSY, geneve's answer). */
static int
conflict(const struct tnl_dev *want)
{
	const struct tnl_kind *k = want->kind;
	bool remote = want->remote.family;

	for (size_t i = 0; i < n_devs; i++) {
		const struct tnl_dev *d = devs[i];

		if (d->netnsid != want->netnsid)
			continue;
		if (k->fam == FAM_GRE) {
			if (d->kind == k && !remote && !d->remote.family)
				return -EEXIST;
		} else if (d->kind->fam != FAM_GRE &&
			   d->cfg.dst_port == want->cfg.dst_port) {
			if (remote || d->remote.family)
				return -EBUSY;
			/* vxlan: a socket per set of receive flags, and
			 * the port bound once. */
			if (d->kind->fam != k->fam ||
			    d->cfg.gpe != want->cfg.gpe)
				return -EADDRINUSE;
			return k->fam == FAM_VXLAN ? -EEXIST : -EBUSY;
		}
	}
	return 0;
}

static int
set_mtu_up(const char *name, uint32_t mtu, bool up)
{
	int err = 0;

	/* A TAP takes no more (the kernel's devices take up to 65535). */
	if (mtu > TAP_MTU_MAX)
		mtu = TAP_MTU_MAX;
	if (mtu)
		err = netdev_set_mtu(name, mtu);
	if (!err && up)
		err = netdev_set_up(name, true);
	return err;
}

/* The TAP of a device of another namespace: made here under a name the
 * kernel picks, so that none of ours is taken, moved there under its own
 * name (up, if asked: a move takes it down); or the one a predecessor
 * left there, as it is now. */
static int
make_elsewhere(struct tnl_dev *dev, int nsfd, uint32_t mtu, bool up)
{
	char made[IFNAMSIZ] = "tapdptn%d";
	int err;

	if (!strchr(dev->name, '%')) {
		dev->fd = tap_claim_moved(dev->netnsid, dev->name);
		if (dev->fd >= 0)
			return 0;
	}
	dev->fd = tap_open(made, dev->cfg.l3, false, true);
	if (dev->fd < 0)
		return dev->fd;
	err = set_mtu_up(made, mtu, false);
	/* Promiscuous, as a port on it makes it in ours (no ioctl reaches
	 * there). */
	if (!err)
		err = netdev_set_promisc(made, true);
	if (!err)
		err = tap_move(dev->fd, made, nsfd, dev->netnsid, dev->name,
			       up);
	if (err)
		tap_close(dev->fd);
	return err;
}

/* Whether a packet that came by tunnel k is the device's: the kernel's
 * lookup, by the remote address and the key. */
static bool
remote_matches(const struct tnl_dev *dev, const struct tun_key *k)
{
	const struct tun_key *r = &dev->remote;

	if (!k || k->family != r->family ||
	    (r->family == AF_INET ? k->ipv4_src != r->ipv4_dst
				  : memcmp(&k->ipv6_src, &r->ipv6_dst, 16)))
		return false;
	return dev->rx_keyed ? (k->flags & TUN_F_KEY) && k->id == dev->rx_id
			     : !(k->flags & TUN_F_KEY);
}

/* What a device of one remote receives, decapsulated by its port: into
 * the device, as the kernel's driver hands it to the stack. */
static void
remote_frame(struct vport *port, uint8_t *buf, size_t size, size_t len,
	     const struct virtio_net_hdr *vh, const struct tun_key *tun,
	     uint16_t l3_proto, void *owner)
{
	const struct tnl_dev *dev = owner;
	struct iovec iov[2] = {
		{ (void *)vh, sizeof(*vh) },
		{ buf + FRAME_HEADROOM, len },
	};

	/* Another's: the kernel finds no device for it, and drops it
	 * uncounted. A device down takes nothing (EIO). */
	if (remote_matches(dev, tun))
		(void)!writev(dev->fd, iov, 2);
}

static const struct vport_rx_ops remote_rx = { .frame = remote_frame };

struct tnl_dev *
tnl_dev_create(const struct tnl_dev *want, int nsfd, uint32_t mtu, bool up,
	       int *err)
{
	struct tnl_dev *dev, **grown;
	uint32_t got;
	bool kept;

	/* Another device of the name: tap_open's exclusive open says
	 * -EEXIST, after taking back the TAP a dead daemon left. */
	*err = conflict(want);
	if (*err)
		return NULL;
	kept = nsfd < 0 && !strchr(want->name, '%') &&
	       netdev_ifindex(want->name);
	dev = malloc(sizeof(*dev));
	grown = realloc(devs, (n_devs + 1) * sizeof(*devs));
	if (grown)
		devs = grown;
	if (!dev || !grown) {
		free(dev);
		*err = -ENOMEM;
		return NULL;
	}
	*dev = *want;
	dev->cfg.dev = dev;
	if (nsfd >= 0) {
		*err = make_elsewhere(dev, nsfd, mtu, up);
		if (*err) {
			free(dev);
			return NULL;
		}
		*err = netdev_lookup(dev->netnsid, dev->name, &dev->ifindex,
				     &got);
	} else {
		dev->fd = tap_open(dev->name, dev->cfg.l3, false, true);
		if (dev->fd < 0) {
			*err = dev->fd;
			free(dev);
			return NULL;
		}
		dev->ifindex = netdev_ifindex(dev->name);
		/* A TAP taken back keeps the MTU and state it has now. */
		*err = kept ? 0 : set_mtu_up(dev->name, mtu, up);
	}
	/* A device of one remote has a port of its own. */
	if (!*err && dev->remote.family)
		*err = vport_create(dev->kind->ops, dev->name, nsfd, &dev->cfg,
				    &remote_rx, dev, &dev->port);
	if (*err) {
		tap_close(dev->fd);
		free(dev);
		return NULL;
	}
	devs[n_devs++] = dev;
	return dev;
}

void
tnl_dev_destroy(struct tnl_dev *dev)
{
	vport_destroy(dev->port);
	for (size_t i = 0; i < n_devs; i++) {
		if (devs[i] == dev) {
			devs[i] = devs[--n_devs];
			break;
		}
	}
	tap_close(dev->fd);
	free(dev->made_by);
	free(dev);
}

struct tnl_dev *
tnl_dev_at(size_t i)
{
	return i < n_devs ? devs[i] : NULL;
}

bool
tnl_dev_any(int netnsid, bool holding)
{
	for (size_t i = 0; i < n_devs; i++)
		if (devs[i]->netnsid == netnsid && (!holding || devs[i]->port))
			return true;
	return false;
}

void
tnl_dev_destroy_in(int netnsid)
{
	for (size_t i = n_devs; i-- > 0;)
		if (devs[i]->netnsid == netnsid)
			tnl_dev_destroy(devs[i]);
}

void
tnl_dev_destroy_all(void)
{
	while (n_devs)
		tnl_dev_destroy(devs[0]);
	free(devs);
	devs = NULL;
}

const struct vport_ops *
tnl_dev_ops(const struct tnl_dev *dev)
{
	return dev->kind->ops;
}

static void
fill_vxlan(const struct tnl_dev *dev, struct msgbuf *mb)
{
	struct { uint16_t low, high; } range = { 0, 0 };

	msgbuf_put_u32(mb, IFLA_VXLAN_ID, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_TTL, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_TTL_INHERIT, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_TOS, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_DF, 0);
	msgbuf_put_u32(mb, IFLA_VXLAN_LABEL, 0);
	msgbuf_put_u32(mb, IFLA_VXLAN_LABEL_POLICY_, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_LEARNING, dev->learning);
	msgbuf_put_u8(mb, IFLA_VXLAN_PROXY, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_RSC, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_L2MISS, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_L3MISS, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_COLLECT_METADATA, 1);
	msgbuf_put_u32(mb, IFLA_VXLAN_AGEING, 300);
	msgbuf_put_u32(mb, IFLA_VXLAN_LIMIT, 0);
	msgbuf_put_u16(mb, IFLA_VXLAN_PORT, htons(dev->cfg.dst_port));
	/* The kernel's default: no UDP checksum over IPv4. */
	msgbuf_put_u8(mb, IFLA_VXLAN_UDP_CSUM, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_UDP_ZERO_CSUM6_TX, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_UDP_ZERO_CSUM6_RX,
		      dev->cfg.csum6_zero_rx);
	msgbuf_put_u8(mb, IFLA_VXLAN_REMCSUM_TX, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_REMCSUM_RX, 0);
	msgbuf_put_u8(mb, IFLA_VXLAN_LOCALBYPASS_, 1);
	msgbuf_put(mb, IFLA_VXLAN_PORT_RANGE, sizeof(range), &range);
	if (dev->cfg.gbp)
		msgbuf_put(mb, IFLA_VXLAN_GBP, 0, NULL);
	if (dev->cfg.gpe)
		msgbuf_put(mb, IFLA_VXLAN_GPE, 0, NULL);
}

/* geneve_fill_info(): a collect-metadata device's (no remote, no VNI of
 * its own) or one remote's. */
static void
fill_geneve(const struct tnl_dev *dev, struct msgbuf *mb)
{
	const struct tun_key *r = &dev->remote;

	msgbuf_put_u32(mb, IFLA_GENEVE_ID, be64toh(r->id));
	if (r->family == AF_INET)
		msgbuf_put(mb, IFLA_GENEVE_REMOTE, 4, &r->ipv4_dst);
	else if (r->family == AF_INET6)
		msgbuf_put(mb, IFLA_GENEVE_REMOTE6, 16, &r->ipv6_dst);
	msgbuf_put_u8(mb, IFLA_GENEVE_TTL, r->family ? r->ttl : 0);
	msgbuf_put_u8(mb, IFLA_GENEVE_TOS, r->tos);
	msgbuf_put_u32(mb, IFLA_GENEVE_LABEL, 0);
	msgbuf_put_u8(mb, IFLA_GENEVE_DF, !!(r->flags & TUN_F_DF));
	msgbuf_put_u16(mb, IFLA_GENEVE_PORT, htons(dev->cfg.dst_port));
	if (!r->family)
		msgbuf_put(mb, IFLA_GENEVE_COLLECT_METADATA, 0, NULL);
	if (r->family == AF_INET)
		msgbuf_put_u8(mb, IFLA_GENEVE_UDP_CSUM,
			      !!(r->flags & TUN_F_CSUM));
	else if (r->family == AF_INET6)
		msgbuf_put_u8(mb, IFLA_GENEVE_UDP_ZERO_CSUM6_TX,
			      !(r->flags & TUN_F_CSUM));
	msgbuf_put_u8(mb, IFLA_GENEVE_UDP_ZERO_CSUM6_RX,
		      dev->cfg.csum6_zero_rx);
	msgbuf_put_u8(mb, IFLA_GENEVE_TTL_INHERIT, 0);
	if (dev->cfg.l3)
		msgbuf_put(mb, IFLA_GENEVE_INNER_PROTO_INHERIT, 0, NULL);
}

/* ipgre_fill_info(), ip6gre_fill_info() and erspan's additions: a
 * collect-metadata device's (no addresses, keys or flags of its own) or
 * one remote's. */
static void
fill_gre(const struct tnl_dev *dev, struct msgbuf *mb)
{
	const struct tun_key *r = &dev->remote;
	bool v6 = dev->kind->family == AF_INET6;
	uint16_t oflags = 0, iflags = 0;
	struct tun_erspan_opts o = { .version = dev->erspan_ver };

	if (r->flags & TUN_F_KEY)
		oflags |= GRE_HF_KEY;
	if (r->flags & TUN_F_CSUM)
		oflags |= GRE_HF_CSUM;
	if (r->flags & TUN_F_SEQ)
		oflags |= GRE_HF_SEQ;
	if (dev->rx_keyed)
		iflags |= GRE_HF_KEY;
	if (r->flags & TUN_F_ERSPAN_OPT)
		memcpy(&o, tun_key_opts_const(r), sizeof(o));
	msgbuf_put_u32(mb, IFLA_GRE_LINK, 0);
	msgbuf_put_u16(mb, IFLA_GRE_IFLAGS, htons(iflags));
	msgbuf_put_u16(mb, IFLA_GRE_OFLAGS, htons(oflags));
	msgbuf_put_u32(mb, IFLA_GRE_IKEY, htonl(be64toh(dev->rx_id)));
	msgbuf_put_u32(mb, IFLA_GRE_OKEY, htonl(be64toh(r->id)));
	if (v6) {
		msgbuf_put(mb, IFLA_GRE_LOCAL, 16, &r->ipv6_src);
		msgbuf_put(mb, IFLA_GRE_REMOTE, 16, &r->ipv6_dst);
		msgbuf_put_u8(mb, IFLA_GRE_TTL, r->family ? r->ttl : 64);
		msgbuf_put_u8(mb, IFLA_GRE_ENCAP_LIMIT, 4);
		msgbuf_put_u32(mb, IFLA_GRE_FLOWINFO, 0);
		msgbuf_put_u32(mb, IFLA_GRE_FLAGS, 0);
		msgbuf_put_u32(mb, IFLA_GRE_FWMARK, 0);
	} else {
		msgbuf_put(mb, IFLA_GRE_LOCAL, 4, &r->ipv4_src);
		msgbuf_put(mb, IFLA_GRE_REMOTE, 4, &r->ipv4_dst);
		msgbuf_put_u8(mb, IFLA_GRE_TTL, r->ttl);
		msgbuf_put_u8(mb, IFLA_GRE_TOS, r->tos);
		msgbuf_put_u8(mb, IFLA_GRE_PMTUDISC,
			      !r->family || (r->flags & TUN_F_DF));
		msgbuf_put_u32(mb, IFLA_GRE_FWMARK, 0);
	}
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_TYPE, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_SPORT, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_DPORT, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_FLAGS, 0);
	if (!v6)
		msgbuf_put_u8(mb, IFLA_GRE_IGNORE_DF, 0);
	if (!r->family)
		msgbuf_put(mb, IFLA_GRE_COLLECT_METADATA, 0, NULL);
	if (dev->kind->erspan) {
		uint16_t f = ntohs(o.u.md2.flags);

		msgbuf_put_u8(mb, IFLA_GRE_ERSPAN_VER, dev->erspan_ver);
		if (dev->erspan_ver == 1)
			msgbuf_put_u32(mb, IFLA_GRE_ERSPAN_INDEX,
				       ntohl(o.u.index));
		else if (dev->erspan_ver == 2) {
			msgbuf_put_u8(mb, IFLA_GRE_ERSPAN_DIR,
				      !!(f & ERSPAN_MD2_DIR));
			msgbuf_put_u16(mb, IFLA_GRE_ERSPAN_HWID,
				       (f & ERSPAN_MD2_HWID_MASK) >>
				       ERSPAN_MD2_HWID_SHIFT);
		}
	}
}

void
tnl_dev_fill_info(const struct tnl_dev *dev, struct msgbuf *mb)
{
	struct nlattr *data;

	msgbuf_put_string(mb, IFLA_INFO_KIND, dev->kind->name);
	data = msgbuf_nest_start(mb, IFLA_INFO_DATA);
	switch (dev->kind->fam) {
	case FAM_VXLAN:
		fill_vxlan(dev, mb);
		break;
	case FAM_GENEVE:
		fill_geneve(dev, mb);
		break;
	case FAM_GRE:
		fill_gre(dev, mb);
		break;
	case FAM_BAREUDP:
		msgbuf_put_u16(mb, IFLA_BAREUDP_PORT, htons(dev->cfg.dst_port));
		msgbuf_put_u16(mb, IFLA_BAREUDP_ETHERTYPE,
			       htons(dev->cfg.ethertype));
		msgbuf_put_u16(mb, IFLA_BAREUDP_SRCPORT_MIN, dev->cfg.port_min);
		if (dev->cfg.multiproto)
			msgbuf_put(mb, IFLA_BAREUDP_MULTIPROTO_MODE, 0, NULL);
		break;
	}
	msgbuf_nest_end(mb, data);
}
