/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/tnl-dev.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap/netdev.h"
#include "tap/tap.h"

/* Newer than some installed headers. */
#define IFLA_VXLAN_LOCALBYPASS_	31
#define IFLA_VXLAN_LABEL_POLICY_	32

/* Room for any of the kinds' attributes. */
#define TB_SIZE	64
_Static_assert(IFLA_VXLAN_MAX < TB_SIZE && IFLA_GENEVE_MAX < TB_SIZE &&
	       IFLA_GRE_MAX < TB_SIZE, "TB_SIZE");

enum tnl_family { FAM_VXLAN, FAM_GENEVE, FAM_GRE };

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
	[IFLA_GENEVE_PORT] = { .kind = ATTR_BE16 },
	[IFLA_GENEVE_COLLECT_METADATA] = { .kind = ATTR_FLAG },
	[IFLA_GENEVE_UDP_ZERO_CSUM6_RX] = { .kind = ATTR_U8 },
	[IFLA_GENEVE_INNER_PROTO_INHERIT] = { .kind = ATTR_FLAG },
};

static const struct attr_policy gre_policy[IFLA_GRE_MAX + 1] = {
	[IFLA_GRE_COLLECT_METADATA] = { .kind = ATTR_FLAG },
	[IFLA_GRE_ERSPAN_VER] = { .kind = ATTR_U8 },
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

int
tnl_kind_parse(const struct tnl_kind *kind, const struct nlattr *data,
	       struct tnl_dev *dev, bool *collect_md, struct extack *ack)
{
	const struct nlattr *tb[TB_SIZE] = { 0 };
	const struct attr_policy *policy = kind->fam == FAM_VXLAN
		? vxlan_policy : kind->fam == FAM_GENEVE ? geneve_policy
		: gre_policy;
	int maxtype = kind->fam == FAM_VXLAN ? IFLA_VXLAN_MAX
		: kind->fam == FAM_GENEVE ? IFLA_GENEVE_MAX : IFLA_GRE_MAX;
	int err;

	dev->kind = kind;
	dev->cfg = (struct vport_tunnel_config){
		.dst_port = kind->default_port,
		.family = kind->family,
		.l3 = kind->l3,
	};
	dev->learning = true;
	dev->erspan_ver = 1;
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
		dev->cfg.l3 = tb[IFLA_GENEVE_INNER_PROTO_INHERIT] != NULL;
		if (tb[IFLA_GENEVE_PORT])
			dev->cfg.dst_port = be16_at(tb[IFLA_GENEVE_PORT]);
		dev->cfg.csum6_zero_rx =
			u8_set(tb[IFLA_GENEVE_UDP_ZERO_CSUM6_RX]);
		break;
	case FAM_GRE:
		*collect_md = tb[IFLA_GRE_COLLECT_METADATA] != NULL;
		if (kind->erspan && tb[IFLA_GRE_ERSPAN_VER]) {
			dev->erspan_ver = attr_get_u8(tb[IFLA_GRE_ERSPAN_VER]);
			/* The kernel's erspan_validate(). */
			if (dev->erspan_ver > 2)
				return -EINVAL;
		}
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
 * (-EBUSY), one collect_md_tun per GRE kind (-EEXIST); a UDP port taken by
 * another kind's socket fails to bind (-EADDRINUSE). 0 when none does. */
static int
conflict(const struct tnl_dev *want)
{
	const struct tnl_kind *k = want->kind;

	for (size_t i = 0; i < n_devs; i++) {
		const struct tnl_dev *d = devs[i];

		if (d->netnsid != want->netnsid)
			continue;
		if (k->fam == FAM_GRE) {
			if (d->kind == k)
				return -EEXIST;
		} else if (d->kind->fam != FAM_GRE &&
			   d->cfg.dst_port == want->cfg.dst_port) {
			/* vxlan: a socket per set of receive flags, and
			 * the port bound once. */
			if (d->kind->fam != k->fam ||
			    d->cfg.gpe != want->cfg.gpe)
				return -EADDRINUSE;
			return k->fam == FAM_GENEVE ? -EBUSY : -EEXIST;
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

static void
fill_geneve(const struct tnl_dev *dev, struct msgbuf *mb)
{
	msgbuf_put_u32(mb, IFLA_GENEVE_ID, 0);
	msgbuf_put_u8(mb, IFLA_GENEVE_TTL, 0);
	msgbuf_put_u8(mb, IFLA_GENEVE_TOS, 0);
	msgbuf_put_u32(mb, IFLA_GENEVE_LABEL, 0);
	msgbuf_put_u8(mb, IFLA_GENEVE_DF, 0);
	msgbuf_put_u16(mb, IFLA_GENEVE_PORT, htons(dev->cfg.dst_port));
	msgbuf_put(mb, IFLA_GENEVE_COLLECT_METADATA, 0, NULL);
	msgbuf_put_u8(mb, IFLA_GENEVE_UDP_ZERO_CSUM6_RX,
		      dev->cfg.csum6_zero_rx);
	msgbuf_put_u8(mb, IFLA_GENEVE_TTL_INHERIT, 0);
	if (dev->cfg.l3)
		msgbuf_put(mb, IFLA_GENEVE_INNER_PROTO_INHERIT, 0, NULL);
}

/* ipgre_fill_info(), ip6gre_fill_info() and erspan's additions for a
 * collect-metadata device: no addresses, keys or flags of its own. */
static void
fill_gre(const struct tnl_dev *dev, struct msgbuf *mb)
{
	static const struct in6_addr any6;
	bool v6 = dev->kind->family == AF_INET6;

	msgbuf_put_u32(mb, IFLA_GRE_LINK, 0);
	msgbuf_put_u16(mb, IFLA_GRE_IFLAGS, 0);
	msgbuf_put_u16(mb, IFLA_GRE_OFLAGS, 0);
	msgbuf_put_u32(mb, IFLA_GRE_IKEY, 0);
	msgbuf_put_u32(mb, IFLA_GRE_OKEY, 0);
	if (v6) {
		msgbuf_put(mb, IFLA_GRE_LOCAL, sizeof(any6), &any6);
		msgbuf_put(mb, IFLA_GRE_REMOTE, sizeof(any6), &any6);
		msgbuf_put_u8(mb, IFLA_GRE_TTL, 64);
		msgbuf_put_u8(mb, IFLA_GRE_ENCAP_LIMIT, 4);
		msgbuf_put_u32(mb, IFLA_GRE_FLOWINFO, 0);
		msgbuf_put_u32(mb, IFLA_GRE_FLAGS, 0);
		msgbuf_put_u32(mb, IFLA_GRE_FWMARK, 0);
	} else {
		msgbuf_put_u32(mb, IFLA_GRE_LOCAL, 0);
		msgbuf_put_u32(mb, IFLA_GRE_REMOTE, 0);
		msgbuf_put_u8(mb, IFLA_GRE_TTL, 0);
		msgbuf_put_u8(mb, IFLA_GRE_TOS, 0);
		msgbuf_put_u8(mb, IFLA_GRE_PMTUDISC, 1);
		msgbuf_put_u32(mb, IFLA_GRE_FWMARK, 0);
	}
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_TYPE, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_SPORT, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_DPORT, 0);
	msgbuf_put_u16(mb, IFLA_GRE_ENCAP_FLAGS, 0);
	if (!v6)
		msgbuf_put_u8(mb, IFLA_GRE_IGNORE_DF, 0);
	msgbuf_put(mb, IFLA_GRE_COLLECT_METADATA, 0, NULL);
	if (dev->kind->erspan) {
		msgbuf_put_u8(mb, IFLA_GRE_ERSPAN_VER, dev->erspan_ver);
		if (dev->erspan_ver == 1)
			msgbuf_put_u32(mb, IFLA_GRE_ERSPAN_INDEX, 0);
		else if (dev->erspan_ver == 2) {
			msgbuf_put_u8(mb, IFLA_GRE_ERSPAN_DIR, 0);
			msgbuf_put_u16(mb, IFLA_GRE_ERSPAN_HWID, 0);
		}
	}
}

void
tnl_dev_fill_linkinfo(const struct tnl_dev *dev, struct msgbuf *mb)
{
	struct nlattr *info = msgbuf_nest_start(mb, IFLA_LINKINFO), *data;

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
	}
	msgbuf_nest_end(mb, data);
	msgbuf_nest_end(mb, info);
}
