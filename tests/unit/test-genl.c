/* SPDX-License-Identifier: Apache-2.0 */
/* Generic netlink dispatch: headers, errors, ACKs, dumps and the OVS
 * families' error paths, against the kernel's answers. Each test talks to a
 * real nlsock over a socketpair, as the shim does. */
#include <errno.h>
#include <linux/openvswitch.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "families/families.h"
#include "include/tapdp/proto.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/unit/nl-test.h"

/* The datapath context the test sockets act on. */
static struct dp_net *net;

static int
setup(void **state)
{
	*state = fx_new(net, NETLINK_GENERIC, true);
	return 0;
}

static int
teardown(void **state)
{
	fx_free(*state);
	return 0;
}

static void
getfamily_by_name(struct fx *f, const char *name)
{
	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 0);
	msgbuf_put_string(&f->req, CTRL_ATTR_FAMILY_NAME, name);
	req_end(f);
	send_req(f);
}

static void
test_getfamily_by_name(void **state)
{
	struct fx *f = *state;
	ssize_t n;

	getfamily_by_name(f, "ovs_vport");
	n = recv_rep(f);
	assert_true(n > 0);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_seq, 99);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_pid, 4242);
	assert_int_equal(attr_get_u16(rep_attr(f, 0, CTRL_ATTR_FAMILY_ID)),
			 FAMILY_ID_VPORT);
	assert_int_equal(attr_get_u32(rep_attr(f, 0, CTRL_ATTR_HDRSIZE)), 4);
	assert_int_equal(attr_get_u32(rep_attr(f, 0, CTRL_ATTR_VERSION)),
			 OVS_VPORT_VERSION);
	assert_non_null(rep_attr(f, 0, CTRL_ATTR_OPS));
	assert_non_null(rep_attr(f, 0, CTRL_ATTR_MCAST_GROUPS));
	assert_true(recv_rep(f) < 0); /* no ACK unless asked */
}

static void
test_getfamily_errors(void **state)
{
	struct fx *f = *state;
	uint16_t id = 0x7777;

	getfamily_by_name(f, "nope");
	assert_int_equal(rep_error(f, recv_rep(f)), -ENOENT);
	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 0);
	msgbuf_put(&f->req, CTRL_ATTR_FAMILY_ID, sizeof(id), &id);
	assert_int_equal(ask(f), -ENOENT);
	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 0);
	assert_int_equal(ask(f), -EINVAL);
}

static void
test_unknown_family_echoes_request(void **state)
{
	struct fx *f = *state;
	ssize_t n;

	req_start(f, 0x3333, 0, 1, 4);
	req_end(f);
	size_t reqlen = f->req.len;

	send_req(f);
	n = recv_rep(f);
	assert_int_equal(rep_error(f, n), -ENOENT);
	assert_int_equal(n, NLMSG_LENGTH(sizeof(struct nlmsgerr)) +
			 reqlen - NLMSG_HDRLEN);
	/* With NETLINK_CAP_ACK only the header comes back. */
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_CAP_ACK, 1);
	req_start(f, 0x3333, 0, 1, 4);
	req_end(f);
	send_req(f);
	n = recv_rep(f);
	assert_int_equal(n, NLMSG_LENGTH(sizeof(struct nlmsgerr)));
	assert_true(((struct nlmsghdr *)f->rep)->nlmsg_flags & NLM_F_CAPPED);
}

static void
test_short_and_truncated_messages(void **state)
{
	struct fx *f = *state;
	struct nlmsghdr *nlh;

	/* No room for the OVS header: EINVAL. */
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, 0);
	assert_int_equal(ask(f), -EINVAL);
	/* A length past the datagram: silently dropped, as the kernel. */
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_ACK, OVS_DP_CMD_GET, 4);
	nlh = req_cur(f);
	nlh->nlmsg_len = 2000;
	genl_rcv(f->sk, f->req.buf, NLMSG_LENGTH(GENL_HDRLEN + 4));
	msgbuf_cancel(&f->req);
	assert_true(recv_rep(f) < 0);
	/* Not a request: only ACKed when asked. */
	req_start(f, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 0);
	req_cur(f)->nlmsg_flags = NLM_F_ACK;
	assert_int_equal(ask(f), 0);
	assert_true(recv_rep(f) < 0);
}

static void
test_unknown_cmd_and_reserved(void **state)
{
	struct fx *f = *state;
	struct genlmsghdr *gh;

	req_start(f, FAMILY_ID_DATAPATH, 0, 200, 4);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	/* Past resv_start_op the reserved field must be 0. */
	req_start(f, FAMILY_ID_DATAPATH, 0, 200, 4);
	gh = NLMSG_DATA(req_cur(f));
	gh->reserved = 1;
	assert_int_equal(ask(f), -EINVAL);
	/* A dump of a command without a dumpit. */
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_DUMP, OVS_DP_CMD_SET, 4);
	assert_int_equal(ask(f), -EOPNOTSUPP);
}

static void
test_dp_errors(void **state)
{
	struct fx *f = *state;
	uint32_t pid = 0, feat = 1u << 31, size = 4097, odd = 100;
	struct nlmsghdr *nlh;

	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, 4);
	assert_int_equal(ask(f), -ENODEV);
	/* NEW needs a name and an upcall pid. */
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "x");
	assert_int_equal(ask(f), -EINVAL);
	/* Unknown feature bits, before anything is created. */
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "tapdp-unit0");
	msgbuf_put(&f->req, OVS_DP_ATTR_UPCALL_PID, 4, &pid);
	msgbuf_put(&f->req, OVS_DP_ATTR_USER_FEATURES, 4, &feat);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	/* Cache size: policy range, then power of two. */
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_EXT_ACK, 1);
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "tapdp-unit0");
	msgbuf_put(&f->req, OVS_DP_ATTR_UPCALL_PID, 4, &pid);
	msgbuf_put(&f->req, OVS_DP_ATTR_MASKS_CACHE_SIZE, 4, &size);
	assert_int_equal(ask(f), -ERANGE);
	nlh = (void *)f->rep;
	assert_true(nlh->nlmsg_flags & NLM_F_ACK_TLVS);
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "tapdp-unit0");
	msgbuf_put(&f->req, OVS_DP_ATTR_UPCALL_PID, 4, &pid);
	msgbuf_put(&f->req, OVS_DP_ATTR_MASKS_CACHE_SIZE, 4, &odd);
	assert_int_equal(ask(f), -EINVAL);
}

static void
test_unprivileged_gets_eperm(void **state)
{
	struct fx *f = fx_new(net, NETLINK_GENERIC, false);
	uint32_t pid = 0;

	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "tapdp-unit1");
	msgbuf_put(&f->req, OVS_DP_ATTR_UPCALL_PID, 4, &pid);
	assert_int_equal(ask(f), -EPERM);
	/* Reads stay open. */
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, 4);
	assert_int_equal(ask(f), -ENODEV);
	fx_free(f);
}

static void
test_vport_errors(void **state)
{
	struct fx *f = *state;
	uint32_t big = 70000;
	int32_t ifindex = 1;

	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, 4);
	assert_int_equal(ask(f), -EINVAL);
	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, 4);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_IFINDEX, 4, &ifindex);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, 4);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_PORT_NO, 4, &big);
	assert_int_equal(ask(f), -EFBIG);
	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, 4);
	msgbuf_put_string(&f->req, OVS_VPORT_ATTR_NAME, "nosuchport");
	assert_int_equal(ask(f), -ENODEV);
}

static void
test_dumps(void **state)
{
	struct fx *f = *state;
	struct nlmsghdr *nlh = (void *)f->rep;

	/* No datapath: the dump is just DONE with 0. */
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_DUMP, OVS_DP_CMD_GET, 4);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(nlh->nlmsg_type, NLMSG_DONE);
	assert_int_equal(*(int *)NLMSG_DATA(nlh), 0);
	assert_false(genl_dump_running(f->sk));
	/* A vport dump of a missing datapath ends with -ENODEV in DONE. */
	req_start(f, FAMILY_ID_VPORT, NLM_F_DUMP, OVS_VPORT_CMD_GET, 4);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(nlh->nlmsg_type, NLMSG_DONE);
	assert_int_equal(*(int *)NLMSG_DATA(nlh), -ENODEV);
	/* The family dump: parts, then DONE on demand. */
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETFAMILY, 0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_true(nlh->nlmsg_flags & NLM_F_MULTI);
	assert_int_equal(nlh->nlmsg_type, GENL_ID_CTRL);
	while (genl_dump_next(f->sk))
		recv_rep(f);
	int done = 0;

	/* The kernel's families follow; its DONE may share their datagram. */
	for (ssize_t n; (n = recv_rep(f)) > 0;)
		for (struct nlmsghdr *m = nlh; NLMSG_OK(m, n);
		     m = NLMSG_NEXT(m, n))
			done |= m->nlmsg_type == NLMSG_DONE;
	assert_true(done);
}

static void
test_batch_goes_on_after_error(void **state)
{
	struct fx *f = *state;

	req_start(f, 0x3333, 0, 1, 4);
	req_end(f);
	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 0);
	msgbuf_put_string(&f->req, CTRL_ATTR_FAMILY_NAME, "ovs_flow");
	assert_int_equal(ask(f), -ENOENT);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_type,
			 GENL_ID_CTRL);
}

static void
test_meter_errors(void **state)
{
	struct fx *f = *state;
	struct nlattr *bands;
	uint32_t id = 7;

	/* No id: EINVAL. */
	req_start(f, FAMILY_ID_METER, 0, OVS_METER_CMD_GET, 4);
	assert_int_equal(ask(f), -EINVAL);
	/* SET validates its bands before looking for the datapath. */
	req_start(f, FAMILY_ID_METER, 0, OVS_METER_CMD_SET, 4);
	msgbuf_put(&f->req, OVS_METER_ATTR_ID, 4, &id);
	assert_int_equal(ask(f), -EINVAL);
	/* A band of nothing but a rate. */
	req_start(f, FAMILY_ID_METER, 0, OVS_METER_CMD_SET, 4);
	msgbuf_put(&f->req, OVS_METER_ATTR_ID, 4, &id);
	bands = msgbuf_nest_start(&f->req, OVS_METER_ATTR_BANDS);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_RATE, 0);
	msgbuf_nest_end(&f->req, bands);
	assert_int_equal(ask(f), -EINVAL);
	/* Then the datapath. */
	req_start(f, FAMILY_ID_METER, 0, OVS_METER_CMD_FEATURES, 4);
	assert_int_equal(ask(f), -ENODEV);
	req_start(f, FAMILY_ID_METER, 0, OVS_METER_CMD_DEL, 4);
	msgbuf_put(&f->req, OVS_METER_ATTR_ID, 4, &id);
	assert_int_equal(ask(f), -ENODEV);
}

/* A zone-limit nest whose length is not a multiple of the entry, last in
 * the message: the kernel walks its length rounded up, so the short tail
 * is a second entry; nothing past the message may be read (the message
 * sits in a buffer of exactly its size, which ASan guards). */
static void
test_ct_limit_get_short_tail(void **state)
{
	struct fx *f = *state;
	struct ovs_zone_limit zl[2] = { { .zone_id = 5 }, { .zone_id = 7 } };
	const size_t tail = sizeof(zl[0]) + 10;
	const struct nlattr *nest;
	struct nlmsghdr *nlh;
	const uint32_t *got;
	size_t len;
	char *msg;

	req_start(f, FAMILY_ID_CT_LIMIT, 0, OVS_CT_LIMIT_CMD_GET,
		  sizeof(struct ovs_header));
	msgbuf_put(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT, tail, zl);
	nlh = req_cur(f);
	len = NLMSG_ALIGN(nlh->nlmsg_len) - NLA_ALIGN(NLA_HDRLEN + tail) +
	      NLA_HDRLEN + tail;
	nlh->nlmsg_len = len;
	msg = malloc(len);
	memcpy(msg, nlh, len);
	genl_rcv(f->sk, msg, len);
	free(msg);
	msgbuf_cancel(&f->req);

	assert_true(recv_rep(f) > 0);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_type,
			 FAMILY_ID_CT_LIMIT);
	nest = rep_attr(f, sizeof(struct ovs_header),
			OVS_CT_LIMIT_ATTR_ZONE_LIMIT);
	assert_non_null(nest);
	assert_int_equal(attr_len(nest), 2 * sizeof(struct ovs_zone_limit));
	got = attr_data(nest);
	assert_int_equal(got[0], 5);
	assert_int_equal(got[3], 7);
}

/* What a GETPOLICY dump said: its op map and its attribute descriptions. */
struct policy_seen {
	int ops, attrs;
	int op_do[256], op_dump[256];		/* -1: none */
	uint32_t type[4][64];			/* NL_ATTR_TYPE_*, 0: none */
	uint64_t max_u[4][64], max_len[4][64];
	int64_t min_s[4][64];
};

static void
policy_seen_init(struct policy_seen *ps)
{
	memset(ps, 0, sizeof(*ps));
	for (int i = 0; i < 256; i++)
		ps->op_do[i] = ps->op_dump[i] = -1;
}

static void
see_policy(const struct nlmsghdr *m, void *arg)
{
	const char *p = (const char *)NLMSG_DATA(m) + GENL_HDRLEN;
	int rem = m->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	const struct nlattr *map = attrs_find(p, rem, CTRL_ATTR_OP_POLICY);
	const struct nlattr *pol = attrs_find(p, rem, CTRL_ATTR_POLICY);
	struct policy_seen *ps = arg;
	const struct nlattr *a, *idx, *at, *v;
	int r;

	assert_int_equal(m->nlmsg_type, GENL_ID_CTRL);
	assert_int_equal(((const struct genlmsghdr *)NLMSG_DATA(m))->cmd,
			 CTRL_CMD_GETPOLICY);
	assert_non_null(attrs_find(p, rem, CTRL_ATTR_FAMILY_ID));
	/* One of the two per message, as the kernel. */
	assert_true(!map != !pol);
	if (map) {
		attr_for_each(a, attr_data(map), attr_len(map), r) {
			v = attrs_find(attr_data(a), attr_len(a),
				       CTRL_ATTR_POLICY_DO);
			if (v)
				ps->op_do[attr_type(a)] = attr_get_u32(v);
			v = attrs_find(attr_data(a), attr_len(a),
				       CTRL_ATTR_POLICY_DUMP);
			if (v)
				ps->op_dump[attr_type(a)] = attr_get_u32(v);
			ps->ops++;
		}
		return;
	}
	idx = attr_data(pol);
	assert_true(attr_type(idx) < 4);
	at = attr_data(idx);
	assert_true(attr_type(at) < 64);
	ps->attrs++;
	v = attrs_find(attr_data(at), attr_len(at), NL_POLICY_TYPE_ATTR_TYPE);
	assert_non_null(v);
	ps->type[attr_type(idx)][attr_type(at)] = attr_get_u32(v);
	v = attrs_find(attr_data(at), attr_len(at),
		       NL_POLICY_TYPE_ATTR_MAX_VALUE_U);
	if (v)
		ps->max_u[attr_type(idx)][attr_type(at)] = attr_get_u64(v);
	v = attrs_find(attr_data(at), attr_len(at),
		       NL_POLICY_TYPE_ATTR_MIN_VALUE_S);
	if (v)
		ps->min_s[attr_type(idx)][attr_type(at)] =
			(int64_t)attr_get_u64(v);
	v = attrs_find(attr_data(at), attr_len(at),
		       NL_POLICY_TYPE_ATTR_MAX_LENGTH);
	if (v)
		ps->max_len[attr_type(idx)][attr_type(at)] = attr_get_u32(v);
}

/* ovs_datapath as the 6.12 kernel describes it: every op's doit checked
 * against the family policy, dumps unchecked; one message per attribute
 * the policy says something of. */
static void
test_getpolicy_family(void **state)
{
	struct fx *f = *state;
	struct policy_seen ps;

	policy_seen_init(&ps);
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 0);
	msgbuf_put_string(&f->req, CTRL_ATTR_FAMILY_NAME, "ovs_datapath");
	req_end(f);
	dump_all(f, see_policy, &ps);
	assert_int_equal(ps.ops, 4);
	for (int cmd = OVS_DP_CMD_NEW; cmd <= OVS_DP_CMD_SET; cmd++) {
		assert_int_equal(ps.op_do[cmd], 0);
		assert_int_equal(ps.op_dump[cmd], -1);
	}
	assert_int_equal(ps.attrs, 5);
	assert_int_equal(ps.type[0][OVS_DP_ATTR_NAME], NL_ATTR_TYPE_NUL_STRING);
	assert_int_equal(ps.max_len[0][OVS_DP_ATTR_NAME], IFNAMSIZ - 1);
	assert_int_equal(ps.type[0][OVS_DP_ATTR_UPCALL_PID], NL_ATTR_TYPE_U32);
	assert_int_equal(ps.max_u[0][OVS_DP_ATTR_UPCALL_PID], UINT32_MAX);
	assert_int_equal(ps.max_u[0][OVS_DP_ATTR_MASKS_CACHE_SIZE], 4096);
	assert_int_equal(ps.type[0][OVS_DP_ATTR_IFINDEX], NL_ATTR_TYPE_S32);
	assert_int_equal(ps.min_s[0][OVS_DP_ATTR_IFINDEX], 0);
	/* Unspecified kinds (stats) are left out. */
	assert_int_equal(ps.type[0][OVS_DP_ATTR_STATS], 0);
}

/* One op by family id; nlctrl's own ops with their dump policies. */
static void
test_getpolicy_op(void **state)
{
	struct fx *f = *state;
	struct policy_seen ps;

	policy_seen_init(&ps);
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 0);
	msgbuf_put_u16(&f->req, CTRL_ATTR_FAMILY_ID, FAMILY_ID_FLOW);
	msgbuf_put_u32(&f->req, CTRL_ATTR_OP, OVS_FLOW_CMD_GET);
	req_end(f);
	dump_all(f, see_policy, &ps);
	assert_int_equal(ps.ops, 1);
	assert_int_equal(ps.op_do[OVS_FLOW_CMD_GET], 0);
	assert_int_equal(ps.op_dump[OVS_FLOW_CMD_GET], -1);
	assert_int_equal(ps.type[0][OVS_FLOW_ATTR_KEY], NL_ATTR_TYPE_NESTED);
	assert_int_equal(ps.type[0][OVS_FLOW_ATTR_PROBE], NL_ATTR_TYPE_FLAG);
	assert_int_equal(ps.type[0][OVS_FLOW_ATTR_UFID], 0);
	assert_int_equal(ps.attrs, 6);

	policy_seen_init(&ps);
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 0);
	msgbuf_put_string(&f->req, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	req_end(f);
	dump_all(f, see_policy, &ps);
	assert_int_equal(ps.op_do[CTRL_CMD_GETFAMILY], 0);
	assert_int_equal(ps.op_dump[CTRL_CMD_GETFAMILY], 0);
	assert_int_equal(ps.op_do[CTRL_CMD_GETPOLICY], -1);
	assert_int_equal(ps.op_dump[CTRL_CMD_GETPOLICY], 1);
	assert_int_equal(ps.type[1][CTRL_ATTR_OP], NL_ATTR_TYPE_U32);
	assert_int_equal(ps.attrs, 5);
}

static void
test_getpolicy_errors(void **state)
{
	struct fx *f = *state;

	/* Neither id nor name. */
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 0);
	assert_int_equal(ask(f), -EINVAL);
	/* An op the family does not have. */
	req_start(f, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 0);
	msgbuf_put_u16(&f->req, CTRL_ATTR_FAMILY_ID, FAMILY_ID_DATAPATH);
	msgbuf_put_u32(&f->req, CTRL_ATTR_OP, 200);
	assert_int_equal(ask(f), -ENOENT);
	/* Only a dump. */
	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETPOLICY, 0);
	msgbuf_put_u16(&f->req, CTRL_ATTR_FAMILY_ID, FAMILY_ID_DATAPATH);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	assert_false(genl_dump_running(f->sk));
}

static int
group_setup(void **state)
{
	const struct dp_net_config cfg = { .upcall = packet_family_upcalls };

	net = dp_net_new(&cfg);
	nl_serve();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_end();
	dp_net_destroy(net);
	return 0;
}

/* nlsock_dgram_charge_max() bounds what one datagram adds to an AF_UNIX
 * socket's queue on the running kernel, from empty to past the point
 * where the kernel pages the datagram. */
static void
test_dgram_charge_bound(void **state)
{
	static const size_t lens[] = { 0, 1, 20, 64, 200, 400, 1000, 2000,
				       4000, 4097, 8000, 16000, 33000, 65536,
				       150000 };
	static char buf[150000];
	int sv[2], big = 1 << 20;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int before = 0, after = 0;

		assert_int_equal(ioctl(sv[0], SIOCOUTQ, &before), 0);
		assert_int_equal(send(sv[0], buf, lens[i], 0),
				 (ssize_t)lens[i]);
		assert_int_equal(ioctl(sv[0], SIOCOUTQ, &after), 0);
		assert_true(after > before);
		assert_true((size_t)(after - before) <=
			    nlsock_dgram_charge_max(lens[i]));
		assert_int_equal(recv(sv[1], buf, sizeof(buf), 0),
				 (ssize_t)lens[i]);
	}
	close(sv[0]);
	close(sv[1]);
}

/* A unicast is refused exactly when the queue is over rcvbuf before it,
 * the kernel's rule, whatever the daemon skips asking; once the client
 * reads, deliveries go on. */
static void
test_unicast_refused_over_rcvbuf(void **state)
{
	struct fx *f = *state;
	static char msg[400], rbuf[1000];
	unsigned sent = 0, refused = 0;

	assert_int_equal(nlsock_setsockopt(f->sk, SOL_SOCKET, SO_RCVBUF,
					   20000), 0);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 200; i++) {
			size_t q = nlsock_queued(f->sk);
			int err = nlsock_unicast(f->sk, msg, sizeof(msg));

			assert_int_equal(err, q > 20000 ? -ENOBUFS : 0);
			if (err)
				refused++;
			else
				sent++;
		}
		assert_int_not_equal(__atomic_exchange_n(&f->shared->overrun,
							 0, __ATOMIC_RELAXED),
				     0);
		while (recv(f->peer, rbuf, sizeof(rbuf), MSG_DONTWAIT) > 0)
			;
		assert_int_equal(nlsock_queued(f->sk), 0);
	}
	/* A 400-byte datagram takes about 1.3 KB of the 20,000. */
	assert_true(sent >= 3 * 10);
	assert_true(refused >= 3 * 150);
}

/* The one walk over a client's datagram: every length is checked against
 * what is left before it is aligned, so a walk always ends. */
static void
test_nlmsg_span(void **state)
{
	uint32_t buf[16] = { 0 };
	struct nlmsghdr *a = (void *)buf, *b = (void *)&buf[8];

	a->nlmsg_len = 0xffffffff;	/* NLMSG_ALIGN wraps it to 0 */
	assert_int_equal(nlmsg_span(buf, sizeof(buf), 0), 0);
	a->nlmsg_len = 0xfffffffd;
	assert_int_equal(nlmsg_span(buf, sizeof(buf), 0), 0);
	a->nlmsg_len = NLMSG_HDRLEN - 1;
	assert_int_equal(nlmsg_span(buf, sizeof(buf), 0), 0);
	a->nlmsg_len = 32;
	assert_int_equal(nlmsg_span(buf, sizeof(buf), 0), 32);
	/* The last one unaligned: the walk stops at the end, not past. */
	b->nlmsg_len = 31;
	assert_int_equal(nlmsg_span(buf, 63, 32), 31);
	assert_int_equal(nlmsg_span(buf, 63, 63), 0);
	/* Too few bytes left for a header, or an offset past the end. */
	assert_int_equal(nlmsg_span(buf, 40, 32), 0);
	assert_int_equal(nlmsg_span(buf, 16, 64), 0);
	/* A length past the datagram's end. */
	b->nlmsg_len = 33;
	assert_int_equal(nlmsg_span(buf, sizeof(buf), 32), 0);
}

static void
join(struct fx *f, uint32_t group)
{
	assert_int_equal(nlsock_setsockopt(f->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP, group), 0);
}

/* Two namespaces' sockets (two contexts): each has its own portids, sees
 * only its own datapaths and hears only its own notifications, as with
 * the kernel's per-namespace netlink. */
static void
test_namespaces_apart(void **state)
{
	struct dp_net *other = nl_net_new();
	struct fx *a = fx_new(net, NETLINK_GENERIC, true);
	struct fx *a_member = fx_new(net, NETLINK_GENERIC, false);
	struct fx *b = fx_new(other, NETLINK_GENERIC, true);
	struct fx *b_member = fx_new(other, NETLINK_GENERIC, false);
	static const char msg[] = "upcall";
	uint32_t pid = 0;
	ssize_t n;

	/* The same autobind portid (4242) in both. */
	assert_int_equal(nlsock_portid(a->sk), nlsock_portid(b->sk));
	assert_int_equal(nlsock_unicast_portid(NETLINK_GENERIC, other,
					       nlsock_portid(b->sk), msg,
					       sizeof(msg)), 0);
	assert_int_equal(recv_rep(b), sizeof(msg));
	assert_int_equal(recv_rep(a), -1);

	join(a_member, GROUP_DATAPATH);
	join(b_member, GROUP_DATAPATH);
	req_start(a, FAMILY_ID_DATAPATH, NLM_F_ACK, OVS_DP_CMD_NEW, 4);
	msgbuf_put_string(&a->req, OVS_DP_ATTR_NAME, "tapdp-ns1");
	msgbuf_put(&a->req, OVS_DP_ATTR_UPCALL_PID, 4, &pid);
	assert_int_equal(ask(a), 0);
	n = recv_rep(a_member);
	assert_true(n > 0);
	assert_int_equal(((struct nlmsghdr *)a_member->rep)->nlmsg_type,
			 FAMILY_ID_DATAPATH);
	assert_int_equal(recv_rep(b_member), -1);

	/* The other namespace has no such datapath, and may make its own of
	 * the same name. */
	req_start(b, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, 4);
	msgbuf_put_string(&b->req, OVS_DP_ATTR_NAME, "tapdp-ns1");
	assert_int_equal(ask(b), -ENODEV);
	assert_null(dp_by_name(other, "tapdp-ns1"));
	assert_non_null(dp_by_name(net, "tapdp-ns1"));

	req_start(a, FAMILY_ID_DATAPATH, NLM_F_ACK, OVS_DP_CMD_DEL, 4);
	msgbuf_put_string(&a->req, OVS_DP_ATTR_NAME, "tapdp-ns1");
	req_end(a);
	send_req(a);
	fx_free(a);
	fx_free(a_member);
	fx_free(b);
	fx_free(b_member);
	dp_net_destroy(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_getfamily_by_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_getfamily_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_unknown_family_echoes_request, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_short_and_truncated_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_cmd_and_reserved,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dp_errors, setup,
						teardown),
		cmocka_unit_test(test_unprivileged_gets_eperm),
		cmocka_unit_test_setup_teardown(test_vport_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dumps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getpolicy_family, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_getpolicy_op, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_getpolicy_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_batch_goes_on_after_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_meter_errors, setup,
						teardown),
		cmocka_unit_test(test_dgram_charge_bound),
		cmocka_unit_test(test_namespaces_apart),
		cmocka_unit_test(test_nlmsg_span),
		cmocka_unit_test_setup_teardown(test_unicast_refused_over_rcvbuf,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ct_limit_get_short_tail,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("genl", tests, group_setup,
					   group_teardown);
}
