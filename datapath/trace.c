/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actions/actions.h"
#include "datapath/drop.h"
#include "flow/extract.h"
#include "flow/key-netlink.h"
#include "flow/packet.h"
#include "flow/table.h"
#include "include/tapdp/ctl-uapi.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "packet/frame.h"

struct trace {
	struct datapath *dp;
	struct dp_port *in;
	struct conntrack *ct;
	struct msgbuf *mb;
	unsigned depth;			/* recirculations so far */
	bool full;			/* a step did not fit: no more */
	/* The step being put, and the message's length before it. */
	struct nlattr *step;
	size_t mark;
};

static void trace_lookup(struct trace *t, struct packet *pkt,
			 struct flow_key *key);

/* Opens a step; false once the answer is full. */
static bool
step_begin(struct trace *t, enum tapdp_ctl_step kind)
{
	if (t->full)
		return false;
	t->mark = msgbuf_mark(t->mb);
	t->step = msgbuf_nest_start(t->mb, TAPDP_CTL_ATTR_STEP);
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_STEP_KIND, kind);
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_DEPTH, t->depth);
	return true;
}

/* Closes it, or takes it back when it overflowed the answer. */
static void
step_end(struct trace *t)
{
	if (t->mb->overflow) {
		msgbuf_rewind(t->mb, t->mark);
		t->full = true;
		return;
	}
	msgbuf_nest_end(t->mb, t->step);
}

static void
trace_output(void *c, const struct packet *pkt, const struct flow_key *key,
	     uint32_t port_no)
{
	struct trace *t = c;
	struct dp_port *port = dp_port_get(t->dp, port_no);

	/* As env_output() refuses them. */
	if (!port || (pkt->l3 && !port->vport->l3)) {
		if (step_begin(t, TAPDP_CTL_STEP_DROP)) {
			uint32_t r = port ? TAPDP_DROP_NOT_SPECIFIED
					  : TAPDP_DROP_DEV_READY;

			msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_PORT_NO, port_no);
			msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_REASON, r);
			msgbuf_put_string(t->mb, TAPDP_CTL_ATTR_REASON_NAME,
					  drop_reason_name(r));
			step_end(t);
		}
		return;
	}
	if (!step_begin(t, TAPDP_CTL_STEP_OUTPUT))
		return;
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_PORT_NO, port_no);
	msgbuf_put_string(t->mb, TAPDP_CTL_ATTR_NAME, dp_port_name(port));
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_PACKET_LEN, packet_out_len(pkt));
	step_end(t);
}

static void
trace_userspace(void *c, const struct packet *pkt, const struct flow_key *key,
		const struct nlattr *ua, const void *acts, int acts_len)
{
	const struct nlattr *tb[OVS_USERSPACE_ATTR_MAX + 1];
	struct trace *t = c;
	uint32_t portid;

	attr_parse_nested(ua, NULL, OVS_USERSPACE_ATTR_MAX, tb, NULL);
	if (dp_features(t->dp) & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
		portid = dp_upcall_portid(t->dp, NULL,
					  packet_hash((struct packet *)pkt,
						      key));
	else
		portid = attr_get_u32(tb[OVS_USERSPACE_ATTR_PID]);
	if (!step_begin(t, TAPDP_CTL_STEP_USERSPACE))
		return;
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_PORTID, portid);
	step_end(t);
}

static void
trace_recirc(void *c, struct packet *pkt, struct flow_key *key)
{
	struct trace *t = c;

	if (step_begin(t, TAPDP_CTL_STEP_RECIRC)) {
		msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_RECIRC_ID, key->recirc_id);
		step_end(t);
	}
	t->depth++;
	trace_lookup(t, pkt, key);
	t->depth--;
}

/* Meters are not run: the trace neither spends a band's tokens nor
 * guesses what they would say. */
static bool
trace_meter(void *c, const struct packet *pkt, uint32_t meter_id)
{
	struct trace *t = c;

	if (step_begin(t, TAPDP_CTL_STEP_METER))
		step_end(t);
	return false;
}

static int
trace_ct(void *c, struct packet *pkt, struct flow_key *key,
	 const struct ct_action *a)
{
	struct trace *t = c;
	int err = t->ct ? conntrack_peek(t->ct, pkt, key, a) : -ENOMEM;

	if (!step_begin(t, TAPDP_CTL_STEP_CT))
		return err;
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_CT_STATE, key->ct_state);
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_CT_ZONE, key->ct_zone);
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_CT_MARK, key->ct_mark);
	if (err)
		msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_ERRNO, -err);
	step_end(t);
	/* A fragment's datagram is not gathered here: it ends the trace as
	 * it would wait; the tracker's refusals are drops, as env_ct()'s. */
	if (err && err != -EINPROGRESS &&
	    step_begin(t, TAPDP_CTL_STEP_DROP)) {
		msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_REASON,
			       TAPDP_DROP_OVS_CONNTRACK);
		msgbuf_put_string(t->mb, TAPDP_CTL_ATTR_REASON_NAME,
				  drop_reason_name(TAPDP_DROP_OVS_CONNTRACK));
		step_end(t);
	}
	return err;
}

static void
trace_psample(void *c, const struct packet *pkt, const struct flow_key *key,
	      uint32_t group, const struct nlattr *cookie, uint32_t rate)
{
	struct trace *t = c;

	if (!step_begin(t, TAPDP_CTL_STEP_PSAMPLE))
		return;
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_GROUP, group);
	step_end(t);
}

static void
trace_drop(void *c, const struct packet *pkt, uint32_t reason)
{
	struct trace *t = c;

	if (!step_begin(t, TAPDP_CTL_STEP_DROP))
		return;
	msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_REASON, reason);
	msgbuf_put_string(t->mb, TAPDP_CTL_ATTR_REASON_NAME,
			  drop_reason_name(reason));
	step_end(t);
}

static void
trace_action(void *c, const struct nlattr *a, const struct packet *pkt,
	     const struct flow_key *key)
{
	struct trace *t = c;

	if (!step_begin(t, TAPDP_CTL_STEP_ACTION))
		return;
	msgbuf_put(t->mb, TAPDP_CTL_ATTR_ACTION, a->nla_len, a);
	step_end(t);
}

static const struct actions_env trace_ops = {
	.output = trace_output,
	.userspace = trace_userspace,
	.recirc = trace_recirc,
	.meter = trace_meter,
	.ct = trace_ct,
	.psample = trace_psample,
	.drop = trace_drop,
	.step = trace_action,
};

/* The megaflow as an ovs_flow dump shows it: a flow without a UFID by the
 * key it was given. */
static void
put_flow(struct trace *t, const struct flow *flow)
{
	const struct actions_stored *acts = rcu_dereference(flow->actions);
	struct nlattr *nest;

	if (flow->ufid_len)
		msgbuf_put(t->mb, TAPDP_CTL_ATTR_UFID, flow->ufid_len,
			   flow->ufid);
	flow_key_put(t->mb, TAPDP_CTL_ATTR_FLOW_KEY,
		     flow->ufid_len ? &flow->key : flow->unmasked_key,
		     flow->ufid_len ? &flow->key : flow->unmasked_key, false);
	flow_key_put(t->mb, TAPDP_CTL_ATTR_FLOW_MASK, &flow->key,
		     flow_table_mask_key(flow), true);
	nest = msgbuf_nest_start(t->mb, TAPDP_CTL_ATTR_FLOW_ACTIONS);
	msgbuf_put_raw(t->mb, acts->data, acts->len);
	msgbuf_nest_end(t->mb, nest);
}

/* dp_process() told instead of done. */
static void
trace_lookup(struct trace *t, struct packet *pkt, struct flow_key *key)
{
	struct actions_env env = trace_ops;
	uint32_t n_mask_hit = 0;
	struct flow *flow;

	if (step_begin(t, TAPDP_CTL_STEP_KEY)) {
		flow_key_put(t->mb, TAPDP_CTL_ATTR_KEY, key, key, false);
		step_end(t);
	}
	flow = dp_flow_lookup(t->dp, key, &n_mask_hit);
	if (!flow) {
		uint32_t portid = dp_upcall_portid(t->dp, t->in,
						   packet_hash(pkt, key));

		if (step_begin(t, TAPDP_CTL_STEP_MISS)) {
			msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_MASKS_PROBED,
				       n_mask_hit);
			msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_PORTID, portid);
			step_end(t);
		}
		/* No pid to send it to: dropped, as dp_process() drops it. */
		if (!portid)
			trace_drop(t, pkt, TAPDP_DROP_NOT_SPECIFIED);
		return;
	}
	if (step_begin(t, TAPDP_CTL_STEP_FLOW)) {
		msgbuf_put_u32(t->mb, TAPDP_CTL_ATTR_MASKS_PROBED, n_mask_hit);
		put_flow(t, flow);
		step_end(t);
	}
	env.ctx = t;
	actions_execute(&env, pkt, key, rcu_dereference(flow->actions));
}

void
dp_trace(struct datapath *dp, struct dp_port *in, struct conntrack *ct,
	 const void *frame, size_t len, struct msgbuf *mb)
{
	struct trace t = { .dp = dp, .in = in, .ct = ct, .mb = mb };
	/* Room for what actions may push. */
	size_t size = FRAME_HEADROOM + len + FRAME_L2_MAX;
	struct nlattr *nest = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_TRACE);
	uint8_t *buf = malloc(size);
	struct flow_key key;
	struct packet pkt;

	if (!buf) {
		mb->overflow = true;
		return;
	}
	packet_init(&pkt, buf, size, len);
	memcpy(pkt.data, frame, len);
	memset(&key, 0, sizeof(key));
	key.in_port = in->port_no;
	if (packet_extract(&pkt, &key) < 0) {
		trace_drop(&t, &pkt, TAPDP_DROP_NOT_SPECIFIED);
	} else {
		pkt.key_valid = true;
		trace_lookup(&t, &pkt, &key);
	}
	actions_release();
	free(buf);
	if (t.full)
		msgbuf_put(mb, TAPDP_CTL_ATTR_TRUNCATED, 0, NULL);
	msgbuf_nest_end(mb, nest);
}
