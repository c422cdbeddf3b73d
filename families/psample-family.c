/* SPDX-License-Identifier: Apache-2.0 */
/* psample: the channel through which sampled packets reach userspace, as
 * the kernel's net/psample/psample.c serves it to the psample action of
 * the datapath.
 *
 * The kernel's execute_psample hands psample_sample_packet a group of its
 * own making, never registered: psample's group list (GET_GROUP, the
 * NEW_GROUP and DEL_GROUP notifications on "config") holds only the groups
 * that other users (tc's act_sample) take, and every sample of the
 * datapath carries sequence number 0. So here: GET_GROUP dumps nothing,
 * "config" stays silent, and each sample goes to the "packets" group,
 * which only CAP_NET_ADMIN may join. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "include/tapdp/psample-uapi.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "packet/tun-key.h"

/* The most a sample message may take (the kernel's
 * PSAMPLE_MAX_PACKET_SIZE): the packet's data is cut to fit. */
#define PSAMPLE_MSG_MAX	0xffff

static const struct genl_family psample_family;

/* The most PSAMPLE_ATTR_TUNNEL takes: every attribute, the largest
 * options. */
#define TUNNEL_ATTR_MAX	(NLA_HDRLEN + 12 + 2 * 20 + 8 * 8 + 4 * 4 + \
			 NLA_HDRLEN + TUN_OPTS_MAX)

/* PSAMPLE_ATTR_TUNNEL: the attributes of the tunnel's set fields, as the
 * kernel's psample puts them (no VXLAN options). */
static void
put_tunnel(struct msgbuf *mb, const struct tun_key *t)
{
	struct nlattr *nest = msgbuf_nest_start(mb, PSAMPLE_ATTR_TUNNEL);

	if (t->flags & TUN_F_KEY)
		msgbuf_put_u64(mb, PSAMPLE_TUNNEL_KEY_ATTR_ID, t->id);
	if (tun_key_bridge(t))
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE, 0,
			   NULL);
	if (t->family == AF_INET) {
		if (t->ipv4_src)
			msgbuf_put_u32(mb, PSAMPLE_TUNNEL_KEY_ATTR_IPV4_SRC,
				       t->ipv4_src);
		if (t->ipv4_dst)
			msgbuf_put_u32(mb, PSAMPLE_TUNNEL_KEY_ATTR_IPV4_DST,
				       t->ipv4_dst);
	} else {
		if (!IN6_IS_ADDR_UNSPECIFIED(&t->ipv6_src))
			msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_IPV6_SRC,
				   sizeof(t->ipv6_src), &t->ipv6_src);
		if (!IN6_IS_ADDR_UNSPECIFIED(&t->ipv6_dst))
			msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_IPV6_DST,
				   sizeof(t->ipv6_dst), &t->ipv6_dst);
	}
	if (t->tos)
		msgbuf_put_u8(mb, PSAMPLE_TUNNEL_KEY_ATTR_TOS, t->tos);
	msgbuf_put_u8(mb, PSAMPLE_TUNNEL_KEY_ATTR_TTL, t->ttl);
	if (t->flags & TUN_F_DF)
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_DONT_FRAGMENT, 0, NULL);
	if (t->flags & TUN_F_CSUM)
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_CSUM, 0, NULL);
	if (t->tp_src)
		msgbuf_put_u16(mb, PSAMPLE_TUNNEL_KEY_ATTR_TP_SRC, t->tp_src);
	if (t->tp_dst)
		msgbuf_put_u16(mb, PSAMPLE_TUNNEL_KEY_ATTR_TP_DST, t->tp_dst);
	if (t->flags & TUN_F_OAM)
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_OAM, 0, NULL);
	if (t->opts_len && (t->flags & TUN_F_GENEVE_OPT))
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_GENEVE_OPTS,
			   t->opts_len, tun_key_opts_const(t));
	else if (t->opts_len && (t->flags & TUN_F_ERSPAN_OPT))
		msgbuf_put(mb, PSAMPLE_TUNNEL_KEY_ATTR_ERSPAN_OPTS,
			   t->opts_len, tun_key_opts_const(t));
	msgbuf_nest_end(mb, nest);
}

/* The tunnel attribute, built once in tun (TUNNEL_ATTR_MAX bytes): its
 * length (0: no tunnel). */
static size_t
tunnel_attr(const struct dp_psample *s, void *tun)
{
	char mem[NLMSG_HDRLEN + TUNNEL_ATTR_MAX] __attribute__((aligned(4)));
	struct nlattr *nest;
	struct msgbuf mb;

	if (!s->tun)
		return 0;
	msgbuf_init(&mb, mem, sizeof(mem));
	msgbuf_start(&mb, 0, 0, 0, 0, 0);
	put_tunnel(&mb, s->tun);
	nest = (struct nlattr *)(mem + NLMSG_HDRLEN);
	if (mb.overflow)
		return 0;
	memcpy(tun, nest, NLA_ALIGN(nest->nla_len));
	return NLA_ALIGN(nest->nla_len);
}

/* The attributes' room before the data, as the kernel counts it. */
static size_t
meta_len(const struct dp_psample *s, size_t tun_len)
{
	return (s->in_ifindex ? NLA_ALIGN(NLA_HDRLEN + 2) : 0) +
	       4 * NLA_ALIGN(NLA_HDRLEN + 4) +	/* rate, size, group, seq */
	       NLA_ALIGN(NLA_HDRLEN + 8) +	/* timestamp */
	       NLA_ALIGN(NLA_HDRLEN + 2) +	/* protocol */
	       (s->cookie_len ? NLA_ALIGN(NLA_HDRLEN + s->cookie_len) : 0) +
	       NLA_HDRLEN +			/* rate as probability */
	       tun_len;
}

/* How much of the packet a sample carries: what trunc() left, cut so that
 * the attributes fit in PSAMPLE_MSG_MAX. */
static uint32_t
data_len(const struct dp_psample *s, size_t tun_len)
{
	size_t meta = meta_len(s, tun_len);
	uint32_t n = s->len < s->trunc_size ? s->len : s->trunc_size;

	if (meta + NLA_ALIGN(NLA_HDRLEN + n) > PSAMPLE_MSG_MAX)
		n = PSAMPLE_MSG_MAX - meta - NLA_HDRLEN - NLA_ALIGNTO;
	return n;
}

size_t
psample_sample_size(const struct dp_psample *s)
{
	size_t tun_len = s->tun ? TUNNEL_ATTR_MAX : 0;

	return NLMSG_HDRLEN + GENL_HDRLEN + meta_len(s, tun_len) +
	       NLA_ALIGN(NLA_HDRLEN + data_len(s, 0));
}

int
psample_sample_msg(struct msgbuf *mb, const struct dp_psample *s,
		   uint64_t now_ns)
{
	char tun[TUNNEL_ATTR_MAX] __attribute__((aligned(4)));
	size_t tun_len = tunnel_attr(s, tun);
	uint32_t n = data_len(s, tun_len);

	if (!genl_msg_start(mb, &psample_family, 0, 0, 0, PSAMPLE_CMD_SAMPLE))
		return -EMSGSIZE;
	if (s->in_ifindex)
		msgbuf_put_u16(mb, PSAMPLE_ATTR_IIFINDEX, s->in_ifindex);
	msgbuf_put_u32(mb, PSAMPLE_ATTR_SAMPLE_RATE, s->rate);
	msgbuf_put_u32(mb, PSAMPLE_ATTR_ORIGSIZE, s->len);
	msgbuf_put_u32(mb, PSAMPLE_ATTR_SAMPLE_GROUP, s->group);
	msgbuf_put_u32(mb, PSAMPLE_ATTR_GROUP_SEQ, 0);
	msgbuf_put_u64(mb, PSAMPLE_ATTR_TIMESTAMP, now_ns);
	msgbuf_put_u16(mb, PSAMPLE_ATTR_PROTO, s->proto);
	if (n)
		msgbuf_put(mb, PSAMPLE_ATTR_DATA, n, s->data);
	if (tun_len)
		msgbuf_put_raw(mb, tun, tun_len);
	if (s->cookie && s->cookie_len)
		msgbuf_put(mb, TAPDP_PSAMPLE_ATTR_USER_COOKIE, s->cookie_len,
			   s->cookie);
	msgbuf_put(mb, TAPDP_PSAMPLE_ATTR_SAMPLE_PROBABILITY, 0, NULL);
	return msgbuf_end(mb);
}

void
psample_family_sample(const struct dp_psample *s)
{
	size_t size;
	struct msgbuf mb;
	void *mem;

	/* Nobody listening: nothing is built, as the kernel's check. */
	if (!nlsock_has_listeners(NETLINK_GENERIC, GROUP_PSAMPLE_PACKETS))
		return;
	size = psample_sample_size(s);
	mem = malloc(size);
	if (!mem)
		return;
	msgbuf_init(&mb, mem, size);
	if (!psample_sample_msg(&mb, s, clock_real_ns()))
		nlsock_multicast(NETLINK_GENERIC, s->net,
				 GROUP_PSAMPLE_PACKETS, mb.buf, mb.len, 0);
	free(mem);
}

/* The datapath registers no group (see the top): the list is empty. */
static int
psample_get_group_dump(struct genl_dump *dump, struct msgbuf *mb)
{
	return 0;
}

static const struct genl_ops_entry psample_ops[] = {
	/* Anyone may read the groups. */
	{ .cmd = PSAMPLE_CMD_GET_GROUP, .dumpit = psample_get_group_dump },
};

static const struct genl_mcgrp psample_groups[] = {
	{ .name = PSAMPLE_NL_MCGRP_CONFIG_NAME, .id = GROUP_PSAMPLE_CONFIG },
	{ .name = PSAMPLE_NL_MCGRP_SAMPLE_NAME, .id = GROUP_PSAMPLE_PACKETS,
	  .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static const struct genl_family psample_family = {
	.name = PSAMPLE_GENL_NAME,
	.id = FAMILY_ID_PSAMPLE,
	.version = PSAMPLE_GENL_VERSION,
	.maxattr = TAPDP_PSAMPLE_ATTR_MAX,
	.resv_start_op = PSAMPLE_CMD_GET_GROUP + 1,
	.ops = psample_ops,
	.n_ops = 1,
	.mcgrps = psample_groups,
	.n_mcgrps = 2,
};

void
psample_family_register(void)
{
	genl_register(&psample_family);
}
