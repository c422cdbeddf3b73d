/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp_drop (include/tapdp/drop-uapi.h), a family of tapdpd's own: the
 * datapaths' drop counters by reason, dumped, and each drop as an event to
 * the "events" group while someone listens (through families.c's packet
 * sink). Events carry packet bytes, so joining the group needs
 * CAP_NET_ADMIN, as reading the kernel's tracepoint needs root. */
#include <errno.h>

#include "datapath/datapath.h"
#include "datapath/drop.h"
#include "families/families.h"
#include "genl-server/genl.h"

static const struct genl_family drop_family;

static void
put_reason(struct msgbuf *mb, uint32_t reason)
{
	msgbuf_put_u32(mb, TAPDP_DROP_ATTR_REASON, reason);
	msgbuf_put_string(mb, TAPDP_DROP_ATTR_REASON_NAME,
			  drop_reason_name(reason));
}

/* A GET message: the counts of dp (port NULL) or of its port; 0 or
 * -EMSGSIZE (nothing left in mb). */
static int
drop_family_fill(struct msgbuf *mb, const struct datapath *dp,
		 const struct dp_port *port, uint32_t portid, uint32_t seq,
		 uint16_t flags)
{
	uint64_t n[DROP_REASONS];
	struct nlattr *counts, *count;

	if (!genl_msg_start(mb, &drop_family, portid, seq, flags,
			    TAPDP_DROP_CMD_GET))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_DROP_ATTR_DP_IFINDEX, dp_ifindex(dp));
	msgbuf_put_string(mb, TAPDP_DROP_ATTR_DP_NAME, dp_name(dp));
	if (port) {
		msgbuf_put_u32(mb, TAPDP_DROP_ATTR_PORT_NO, port->port_no);
		msgbuf_put_string(mb, TAPDP_DROP_ATTR_PORT_NAME,
				  dp_port_name(port));
		dp_port_get_drops(port, n);
	} else {
		dp_get_drops(dp, n);
	}
	counts = msgbuf_nest_start(mb, TAPDP_DROP_ATTR_COUNTS);
	for (unsigned i = 0; i < DROP_REASONS; i++) {
		if (!n[i])
			continue;
		count = msgbuf_nest_start(mb, TAPDP_DROP_ATTR_COUNT);
		put_reason(mb, drop_reason_at(i));
		msgbuf_put_u64(mb, TAPDP_DROP_ATTR_PACKETS, n[i]);
		msgbuf_nest_end(mb, count);
	}
	msgbuf_nest_end(mb, counts);
	return msgbuf_end(mb);
}

/* args[0]: the datapath (dp_at); args[1]: 0 before its own message, then
 * one more than the next port number to look at. */
static int
drop_cmd_dump(struct genl_dump *d, struct msgbuf *mb)
{
	struct dp_net *net = nlsock_net(d->sk);
	uint32_t portid = nlsock_portid(d->sk), seq = d->nlh->nlmsg_seq;
	struct datapath *dp;
	struct dp_port *port;
	uint32_t no;

	while ((dp = dp_at(net, d->args[0]))) {
		if (!d->args[1]) {
			if (drop_family_fill(mb, dp, NULL, portid, seq,
					     NLM_F_MULTI))
				return mb->len;
			d->args[1] = 1;
		}
		no = d->args[1] - 1;
		while ((port = dp_port_next(dp, &no))) {
			if (drop_family_fill(mb, dp, port, portid, seq,
					     NLM_F_MULTI)) {
				d->args[1] = no + 1;
				return mb->len;
			}
			no++;
		}
		d->args[0]++;
		d->args[1] = 0;
	}
	return mb->len;
}

int
drop_family_event(struct msgbuf *mb, const struct dp_packet_event *ev)
{
	uint32_t snap = ev->len < TAPDP_DROP_EVENT_SNAPLEN
				? ev->len : TAPDP_DROP_EVENT_SNAPLEN;

	if (!genl_msg_start(mb, &drop_family, 0, 0, 0, TAPDP_DROP_CMD_EVENT))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_DROP_ATTR_DP_IFINDEX, ev->dp_ifindex);
	msgbuf_put_u32(mb, TAPDP_DROP_ATTR_PORT_NO, ev->port_no);
	put_reason(mb, ev->reason);
	if (ev->ufid)
		msgbuf_put(mb, TAPDP_DROP_ATTR_UFID, ev->ufid_len, ev->ufid);
	msgbuf_put_u32(mb, TAPDP_DROP_ATTR_PACKET_LEN, ev->len);
	msgbuf_put(mb, TAPDP_DROP_ATTR_PACKET, snap, ev->data);
	return msgbuf_end(mb);
}

bool
drop_family_listening(void)
{
	return nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP);
}

void
drop_family_send(const struct dp_packet_event *ev)
{
	char mem[512];
	struct msgbuf mb;

	msgbuf_init(&mb, mem, sizeof(mem));
	if (!drop_family_event(&mb, ev))
		genl_multicast(ev->net, GROUP_DROP, &mb);
}

static const struct genl_ops_entry drop_ops[] = {
	{ .cmd = TAPDP_DROP_CMD_GET, .dumpit = drop_cmd_dump },
};

static const struct genl_mcgrp drop_groups[] = {
	{ .name = TAPDP_DROP_MCGROUP, .id = GROUP_DROP,
	  .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static const struct genl_family drop_family = {
	.name = TAPDP_DROP_FAMILY,
	.id = FAMILY_ID_DROP,
	.version = TAPDP_DROP_VERSION,
	.maxattr = TAPDP_DROP_ATTR_MAX,
	.resv_start_op = TAPDP_DROP_CMD_EVENT + 1,
	.ops = drop_ops,
	.n_ops = sizeof(drop_ops) / sizeof(drop_ops[0]),
	.mcgrps = drop_groups,
	.n_mcgrps = 1,
};

void
drop_family_register(void)
{
	genl_register(&drop_family);
}
