/* SPDX-License-Identifier: Apache-2.0 */
/* The datapath in its own context, with ports that need no device: the
 * packet path (a hit runs the flow's actions and counts, a miss becomes an
 * upcall, an upcall nobody takes is lost), OVS_PACKET_CMD_EXECUTE's
 * dp_execute, and the port and datapath registries of a context; drops
 * counted by reason, per datapath and per port, and told to the context's
 * drop sink while it listens. Upcalls go to a sink of the test's, which
 * hands each (portid, message) to the test thread through a socketpair;
 * drops to one that keeps the last. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <urcu.h>

#include "datapath/datapath.h"
#include "datapath/drop.h"
#include "datapath/metrics.h"
#include "datapath/trace.h"
#include "include/tapdp/ctl-uapi.h"
#include "genl-server/genl.h"
#include "flow/key-netlink.h"
#include "genl-server/attr.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define UPCALL_FAMILY	0x4ee
#define UPCALL_VERSION	1
#define WAIT_MS		2000

/* The sink: its error (0: deliver) and the socketpair to the test. */
static int sink_err;
static int sink_fd[2];

/* The packet sink: whether it listens to drops or to everything, the
 * drops it was told and the last, and every event's kind and port. */
static bool drop_listening, all_listening;
static uint64_t n_told, n_events;
static struct dp_packet_event told;
static uint8_t told_data[FAKE_FRAME_LEN];
static uint8_t told_ufid[16];
static uint32_t events[16];		/* kind << 16 | port_no */

#define EVENT(kind, port) ((uint32_t)(kind) << 16 | (port))

static bool
packets_listen(enum dp_packet_kind kind)
{
	return __atomic_load_n(&all_listening, __ATOMIC_RELAXED) ||
	       (kind == DP_PACKET_DROP &&
		__atomic_load_n(&drop_listening, __ATOMIC_RELAXED));
}

/* The receive thread's: the test reads what it kept once n_told and
 * n_events say so. */
static void
packets_tell(const struct dp_packet_event *ev)
{
	uint64_t n = __atomic_load_n(&n_events, __ATOMIC_RELAXED);

	if (n < sizeof(events) / sizeof(events[0]))
		events[n] = EVENT(ev->kind, ev->port_no);
	__atomic_store_n(&n_events, n + 1, __ATOMIC_RELEASE);
	if (ev->kind != DP_PACKET_DROP)
		return;
	told = *ev;
	memcpy(told_data, ev->data,
	       ev->len < sizeof(told_data) ? ev->len : sizeof(told_data));
	if (ev->ufid)
		memcpy(told_ufid, ev->ufid, ev->ufid_len);
	__atomic_fetch_add(&n_told, 1, __ATOMIC_RELEASE);
}

struct fixture {
	struct dp_net *net;
	struct datapath *dp;
	struct dp_port *a, *b;		/* 1 and 2: netdevs tdp-a, tdp-b */
};

static int
sink_send(struct dp_net *net, uint32_t portid, const void *msg, size_t len)
{
	struct iovec iov[2] = { { &portid, sizeof(portid) },
				{ (void *)msg, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int err = __atomic_load_n(&sink_err, __ATOMIC_RELAXED);

	if (err)
		return err;
	return sendmsg(sink_fd[1], &mh, MSG_DONTWAIT) < 0 ? -errno : 0;
}

/* The next upcall, waiting for it: the message's length (its portid in
 * *portid), or -1 when none comes. */
static ssize_t
upcall_recv(uint32_t *portid, void *buf, size_t size, int ms)
{
	struct pollfd pfd = { .fd = sink_fd[0], .events = POLLIN };
	struct iovec iov[2] = { { portid, sizeof(*portid) }, { buf, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	n = recvmsg(sink_fd[0], &mh, MSG_DONTWAIT);
	return n < (ssize_t)sizeof(*portid) ? -1 : n - (ssize_t)sizeof(*portid);
}

static uint64_t
atomic_read(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* The receive thread counts an upcall after sending it: these wait for
 * its counters (polling, at most WAIT_MS). */
static bool
wait_count(const uint64_t *v, uint64_t want)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (atomic_read(v) == want)
			return true;
		poll(NULL, 0, 1);
	}
	return false;
}

static bool
wait_lost(struct datapath *dp, uint64_t want)
{
	struct dp_stats st;

	for (int ms = 0; ms < WAIT_MS; ms++) {
		dp_get_stats(dp, &st);
		if (st.n_lost == want)
			return true;
		poll(NULL, 0, 1);
	}
	return false;
}

static int
setup(void **state)
{
	const struct dp_net_config cfg = {
		.upcall = { .family_id = UPCALL_FAMILY,
			    .version = UPCALL_VERSION, .send = sink_send },
		.packets = { .listening = packets_listen,
			     .send = packets_tell },
		.port_ops = fake_port_ops,
	};
	struct fixture *fx = test_calloc(1, sizeof(*fx));
	uint32_t pid0 = 0, pid_a = 77, pid_b = 78;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sink_fd), 0);
	sink_err = 0;
	drop_listening = false;
	all_listening = false;
	n_told = 0;
	n_events = 0;
	fx->net = dp_net_new(&cfg);
	assert_non_null(fx->net);
	assert_int_equal(dp_create(fx->net, "tdp0", &pid0, 1, &fx->dp), 0);
	assert_int_equal(fake_device_add("tdp-a"), 0);
	assert_int_equal(fake_device_add("tdp-b"), 0);
	assert_int_equal(dp_port_add(fx->dp, 1, OVS_VPORT_TYPE_NETDEV, "tdp-a",
				     NULL, &pid_a, 1, &fx->a), 0);
	assert_int_equal(dp_port_add(fx->dp, 2, OVS_VPORT_TYPE_NETDEV, "tdp-b",
				     NULL, &pid_b, 1, &fx->b), 0);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	dp_net_destroy(fx->net);
	rcu_barrier();
	fake_device_del("tdp-a");
	fake_device_del("tdp-b");
	close(sink_fd[0]);
	close(sink_fd[1]);
	test_free(fx);
	return 0;
}

/* Installs a flow for fake_frame() from in_port, with recirc_id (none:
 * 0) and the actions in acts, under the UFID "ufid" and ufid_extra
 * (ufid_len bytes in all). */
static struct flow *
flow_insert(struct datapath *dp, uint32_t in_port, const uint32_t *recirc_id,
	    const struct attrs *acts, const uint8_t *ufid_extra,
	    size_t ufid_len)
{
	struct flow_key key, mask;
	static struct attrs k;
	struct nlattr *nest;
	struct flow *flow;

	attrs_init(&k);
	nest = msgbuf_nest_start(&k.mb, OVS_FLOW_ATTR_KEY);
	if (recirc_id)
		msgbuf_put_u32(&k.mb, OVS_KEY_ATTR_RECIRC_ID, *recirc_id);
	fake_frame_key_put(&k.mb, in_port, fb_mac_src);
	msgbuf_nest_end(&k.mb, nest);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nest, NULL,
						 true), 0);
	flow = calloc(1, sizeof(*flow));
	assert_non_null(flow);
	flow->ufid_len = ufid_len;
	memcpy(flow->ufid, "ufid", 4);
	if (ufid_len > 4)
		memcpy(flow->ufid + 4, ufid_extra, ufid_len - 4);
	flow->actions = attrs_store_actions(acts, &key);
	assert_int_equal(dp_flow_insert(dp, flow, &key, &mask), 0);
	return flow;
}

/* Installs a flow for fake_frame() from in_port, with the actions in
 * acts. */
static struct flow *
flow_add(struct datapath *dp, uint32_t in_port, const struct attrs *acts)
{
	return flow_insert(dp, in_port, NULL, acts, NULL, 4);
}

/* The same, for the packets recirculated to recirc_id. */
static struct flow *
flow_add_recirc(struct datapath *dp, uint32_t in_port, uint32_t recirc_id,
		const struct attrs *acts)
{
	uint8_t id[2] = { in_port, recirc_id };

	return flow_insert(dp, in_port, &recirc_id, acts, id, sizeof(id) + 4);
}

static uint64_t
port_drops(const struct dp_port *port, uint32_t reason)
{
	uint64_t n[DROP_REASONS];

	dp_port_get_drops(port, n);
	return n[drop_reason_index(reason)];
}

static uint64_t
dp_drops(const struct datapath *dp, uint32_t reason)
{
	uint64_t n[DROP_REASONS];

	dp_get_drops(dp, n);
	return n[drop_reason_index(reason)];
}

/* Waits (at most WAIT_MS) for port's drops for reason to be want. */
static bool
wait_drops(const struct dp_port *port, uint32_t reason, uint64_t want)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (port_drops(port, reason) == want)
			return true;
		poll(NULL, 0, 1);
	}
	return false;
}

/* Checks an upcall's headers; returns its attributes' start. */
static const char *
upcall_check(const void *msg, ssize_t n, uint8_t cmd, struct datapath *dp,
	     int *rem)
{
	const struct nlmsghdr *nlh = msg;
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);
	const struct ovs_header *hdr = (const void *)((char *)gh +
						      GENL_HDRLEN);
	size_t off = NLMSG_LENGTH(GENL_HDRLEN + sizeof(*hdr));

	assert_true(n >= (ssize_t)off);
	assert_int_equal(nlh->nlmsg_len, n);
	assert_int_equal(nlh->nlmsg_type, UPCALL_FAMILY);
	assert_int_equal(gh->cmd, cmd);
	assert_int_equal(gh->version, UPCALL_VERSION);
	assert_int_equal(hdr->dp_ifindex, dp_ifindex(dp));
	*rem = n - off;
	return (const char *)msg + off;
}

static void
test_hit_runs_actions_and_counts(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN], out[128];
	size_t len = fake_frame(f);
	struct dp_stats st;
	struct flow *flow;
	uint32_t portid;

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	flow = flow_add(fx->dp, 1, &acts);
	fake_wire_send("tdp-a", f, len);
	assert_int_equal(fake_wire_recv("tdp-b", out, sizeof(out), WAIT_MS),
			 len);
	assert_memory_equal(out, f, len);
	/* Counted before the actions ran. */
	assert_int_equal(atomic_read(&flow->stats->packets), 1);
	assert_int_equal(atomic_read(&flow->stats->bytes), len);
	assert_true(atomic_read(&flow->stats->used_ms) != 0);
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_hit, 1);
	assert_int_equal(st.n_missed, 0);
	assert_int_equal(st.n_lost, 0);
	assert_int_equal(dp_flow_count(fx->dp), 1);
	assert_true(upcall_recv(&portid, out, sizeof(out), 0) < 0);
	/* Not back out where it came in, nor anywhere else. */
	assert_true(fake_wire_recv("tdp-a", out, sizeof(out), 0) < 0);
}

static void
test_miss_sends_upcall(void **state)
{
	struct fixture *fx = *state;
	const struct nlattr *a;
	uint8_t f[FAKE_FRAME_LEN], msg[1024];
	size_t len = fake_frame(f);
	struct flow_key key;
	struct dp_stats st;
	uint32_t portid;
	const char *p;
	ssize_t n;
	int rem;

	fake_wire_send("tdp-a", f, len);
	n = upcall_recv(&portid, msg, sizeof(msg), WAIT_MS);
	assert_true(n > 0);
	assert_int_equal(portid, 77);
	p = upcall_check(msg, n, OVS_PACKET_CMD_MISS, fx->dp, &rem);
	a = attrs_find(p, rem, OVS_PACKET_ATTR_PACKET);
	assert_non_null(a);
	assert_int_equal(attr_len(a), len);
	assert_memory_equal(attr_data(a), f, len);
	a = attrs_find(p, rem, OVS_PACKET_ATTR_KEY);
	assert_non_null(a);
	assert_int_equal(flow_match_from_nlattrs(&key, NULL, a, NULL, true),
			 0);
	assert_int_equal(key.in_port, 1);
	assert_int_equal(key.eth_type, htons(FAKE_ETH_TYPE));
	assert_memory_equal(key.eth_src, fb_mac_src, 6);
	a = attrs_find(p, rem, OVS_PACKET_ATTR_HASH);
	assert_non_null(a);
	assert_true(attr_get_u64(a) & (1ULL << 32)); /* a software hash */
	assert_null(attrs_find(p, rem, OVS_PACKET_ATTR_USERDATA));
	assert_null(attrs_find(p, rem, OVS_PACKET_ATTR_ACTIONS));
	assert_true(wait_count(&fx->a->upcall_success, 1));
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_missed, 1);
	assert_int_equal(st.n_hit, 0);
	assert_int_equal(st.n_lost, 0);
	assert_int_equal(atomic_read(&fx->a->upcall_fail), 0);
}

/* With per-CPU dispatch the miss goes to the datapath's handlers. */
static void
test_miss_per_cpu_dispatch(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[FAKE_FRAME_LEN], msg[1024];
	uint32_t pid = 55, portid;

	assert_int_equal(dp_set_features(fx->dp,
					 OVS_DP_F_DISPATCH_UPCALL_PER_CPU), 0);
	assert_int_equal(dp_set_cpu_pids(fx->dp, &pid, 1), 0);
	fake_wire_send("tdp-a", f, fake_frame(f));
	assert_true(upcall_recv(&portid, msg, sizeof(msg), WAIT_MS) > 0);
	assert_int_equal(portid, 55);
}

static void
test_userspace_action_sends_userdata(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN], msg[1024];
	size_t len = fake_frame(f);
	const struct nlattr *a;
	struct nlattr *user;
	struct dp_stats st;
	uint32_t portid;
	const char *p;
	ssize_t n;
	int rem;

	attrs_init(&acts);
	user = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&acts.mb, OVS_USERSPACE_ATTR_PID, 88);
	msgbuf_put(&acts.mb, OVS_USERSPACE_ATTR_USERDATA, 8, "cookie!!");
	msgbuf_nest_end(&acts.mb, user);
	flow_add(fx->dp, 1, &acts);
	fake_wire_send("tdp-a", f, len);
	n = upcall_recv(&portid, msg, sizeof(msg), WAIT_MS);
	assert_true(n > 0);
	assert_int_equal(portid, 88);
	p = upcall_check(msg, n, OVS_PACKET_CMD_ACTION, fx->dp, &rem);
	a = attrs_find(p, rem, OVS_PACKET_ATTR_USERDATA);
	assert_non_null(a);
	assert_int_equal(attr_len(a), 8);
	assert_memory_equal(attr_data(a), "cookie!!", 8);
	a = attrs_find(p, rem, OVS_PACKET_ATTR_PACKET);
	assert_non_null(a);
	assert_memory_equal(attr_data(a), f, len);
	assert_non_null(attrs_find(p, rem, OVS_PACKET_ATTR_KEY));
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_hit, 1);
	assert_int_equal(st.n_missed, 0);
}

/* userspace(egress_tun_port): the tunnel the packet would leave by,
 * completed by that port (source, UDP ports), after the key and userdata,
 * as the kernel's OVS_PACKET_ATTR_EGRESS_TUN_KEY; none for a port that is
 * no tunnel or a packet with no set(tunnel). */
static void
userspace_egress(struct fixture *fx, bool set_tunnel, uint32_t egress_port,
		 const struct nlattr **egress)
{
	static uint8_t msg[2048];
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];
	struct nlattr *set, *tun, *user;
	const struct nlattr *a;
	uint32_t portid;
	const char *p;
	ssize_t n;
	int rem;
	bool key_seen = false;

	attrs_init(&acts);
	if (set_tunnel) {
		set = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_SET);
		tun = msgbuf_nest_start(&acts.mb, OVS_KEY_ATTR_TUNNEL);
		msgbuf_put_u64(&acts.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(7));
		msgbuf_put_u32(&acts.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
			       htonl(0x0a000002));
		msgbuf_put_u8(&acts.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
		msgbuf_nest_end(&acts.mb, tun);
		msgbuf_nest_end(&acts.mb, set);
	}
	user = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&acts.mb, OVS_USERSPACE_ATTR_PID, 88);
	msgbuf_put(&acts.mb, OVS_USERSPACE_ATTR_USERDATA, 4, "tun!");
	msgbuf_put_u32(&acts.mb, OVS_USERSPACE_ATTR_EGRESS_TUN_PORT,
		       egress_port);
	msgbuf_nest_end(&acts.mb, user);
	flow_add(fx->dp, 1, &acts);
	fake_wire_send("tdp-a", f, fake_frame(f));
	n = upcall_recv(&portid, msg, sizeof(msg), WAIT_MS);
	assert_true(n > 0);
	p = upcall_check(msg, n, OVS_PACKET_CMD_ACTION, fx->dp, &rem);
	*egress = attrs_find(p, rem, OVS_PACKET_ATTR_EGRESS_TUN_KEY);
	/* The kernel's order: key, userdata, egress tunnel, packet. */
	attr_for_each(a, p, rem, rem) {
		if (attr_type(a) == OVS_PACKET_ATTR_KEY)
			key_seen = true;
		else if (attr_type(a) == OVS_PACKET_ATTR_EGRESS_TUN_KEY)
			assert_true(key_seen);
		else if (attr_type(a) == OVS_PACKET_ATTR_PACKET)
			break;
	}
}

static void
test_userspace_egress_tun_key(void **state)
{
	struct fixture *fx = *state;
	const struct nlattr *eg, *a;
	int found = 0, rem;

	userspace_egress(fx, true, 2, &eg);
	assert_non_null(eg);
	attr_for_each(a, attr_data(eg), attr_len(eg), rem) {
		switch (attr_type(a)) {
		case OVS_TUNNEL_KEY_ATTR_ID:
			assert_true(attr_get_u64(a) == htobe64(7));
			found |= 1;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_SRC:
			assert_int_equal(attr_get_u32(a),
					 htonl(FAKE_EGRESS_SRC));
			found |= 2;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_DST:
			assert_int_equal(attr_get_u32(a), htonl(0x0a000002));
			found |= 4;
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_SRC:
			assert_int_equal(attr_get_u16(a),
					 htons(FAKE_EGRESS_SPORT));
			found |= 8;
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_DST:
			assert_int_equal(attr_get_u16(a),
					 htons(FAKE_EGRESS_DPORT));
			found |= 16;
			break;
		case OVS_TUNNEL_KEY_ATTR_TTL:
			assert_int_equal(attr_get_u8(a), 64);
			found |= 32;
			break;
		}
	}
	assert_int_equal(found, 63);
}

/* No set(tunnel) before it. */
static void
test_userspace_egress_no_tunnel(void **state)
{
	const struct nlattr *eg;

	userspace_egress(*state, false, 2, &eg);
	assert_null(eg);
}

/* A port that is no tunnel (the local port's ops have none). */
static void
test_userspace_egress_not_tunnel_port(void **state)
{
	const struct nlattr *eg;

	userspace_egress(*state, true, OVSP_LOCAL, &eg);
	assert_null(eg);
}

/* A port that does not exist. */
static void
test_userspace_egress_no_port(void **state)
{
	const struct nlattr *eg;

	userspace_egress(*state, true, 99, &eg);
	assert_null(eg);
}

/* A port whose only pid is 0 has nobody to tell: the miss is lost. */
static void
test_miss_without_pid_is_lost(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[FAKE_FRAME_LEN], msg[1024];
	uint32_t none = 0, portid;
	struct dp_stats st;

	assert_int_equal(dp_port_set_pids(fx->a, &none, 1), 0);
	fake_wire_send("tdp-a", f, fake_frame(f));
	assert_true(wait_lost(fx->dp, 1));
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_missed, 1);
	assert_true(wait_count(&fx->a->upcall_fail, 1));
	assert_int_equal(atomic_read(&fx->a->upcall_success), 0);
	assert_true(upcall_recv(&portid, msg, sizeof(msg), 0) < 0);
}

/* The socket's queue is full: the sink refuses, the upcall is lost. */
static void
test_refused_upcall_is_lost(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[FAKE_FRAME_LEN], msg[1024];
	struct dp_stats st;
	uint32_t portid;

	__atomic_store_n(&sink_err, -ENOBUFS, __ATOMIC_RELAXED);
	fake_wire_send("tdp-a", f, fake_frame(f));
	assert_true(wait_lost(fx->dp, 1));
	assert_true(wait_count(&fx->a->upcall_fail, 1));
	/* The next one is delivered again. */
	__atomic_store_n(&sink_err, 0, __ATOMIC_RELAXED);
	fake_wire_send("tdp-a", f, fake_frame(f));
	assert_true(upcall_recv(&portid, msg, sizeof(msg), WAIT_MS) > 0);
	assert_true(wait_count(&fx->a->upcall_success, 1));
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_missed, 2);
	assert_int_equal(st.n_lost, 1);
}

/* Drops are counted on the datapath and the port the packet came in by:
 * a flow without actions (the kernel's OVS_DROP_LAST_ACTION), a miss
 * whose upcall fails (NOT_SPECIFIED, as the kernel's kfree_skb); a full
 * socket is no drop, only a lost upcall (the kernel's EAGAIN consumes the
 * packet). Nobody listens: nothing is told. */
static void
test_drops_per_port(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);

	attrs_init(&acts);
	flow_add(fx->dp, 1, &acts);
	__atomic_store_n(&sink_err, -ECONNREFUSED, __ATOMIC_RELAXED);
	fake_wire_send("tdp-a", f, len);
	fake_wire_send("tdp-a", f, len);
	fake_wire_send("tdp-b", f, len);
	assert_true(wait_drops(fx->a, TAPDP_DROP_OVS_LAST_ACTION, 2));
	assert_true(wait_drops(fx->b, TAPDP_DROP_NOT_SPECIFIED, 1));
	assert_int_equal(port_drops(fx->a, TAPDP_DROP_NOT_SPECIFIED), 0);
	assert_int_equal(port_drops(fx->b, TAPDP_DROP_OVS_LAST_ACTION), 0);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_LAST_ACTION), 2);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_NOT_SPECIFIED), 1);
	__atomic_store_n(&sink_err, -ENOBUFS, __ATOMIC_RELAXED);
	fake_wire_send("tdp-b", f, len);
	assert_true(wait_lost(fx->dp, 2));
	assert_int_equal(port_drops(fx->b, TAPDP_DROP_NOT_SPECIFIED), 1);
	assert_int_equal(atomic_read(&n_told), 0);
}

/* While the sink listens each drop is told: the datapath, the port it
 * came in by, the reason, the flow's UFID, the packet. */
static void
test_drop_told(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_DROP, 7);
	flow_add(fx->dp, 1, &acts);
	__atomic_store_n(&drop_listening, true, __ATOMIC_RELAXED);
	fake_wire_send("tdp-a", f, len);
	assert_true(wait_count(&n_told, 1));
	assert_int_equal(told.dp_ifindex, dp_ifindex(fx->dp));
	assert_int_equal(told.port_no, 1);
	assert_int_equal(told.reason, TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR);
	assert_int_equal(told.ufid_len, 4);
	assert_memory_equal(told_ufid, "ufid", 4);
	assert_int_equal(told.len, len);
	assert_memory_equal(told_data, f, len);
	/* A miss has no flow. */
	__atomic_store_n(&sink_err, -ECONNREFUSED, __ATOMIC_RELAXED);
	fake_wire_send("tdp-b", f, len);
	assert_true(wait_count(&n_told, 2));
	assert_int_equal(told.port_no, 2);
	assert_int_equal(told.reason, TAPDP_DROP_NOT_SPECIFIED);
	assert_null(told.ufid);
}

/* While everything is listened to, each step of a packet is told in
 * order: in by a port and out by another; in and up to userspace (a
 * miss); in and dropped. (That nothing is told while nobody listens,
 * test_drops_per_port shows.) */
static void
test_packets_told(void **state)
{
	struct fixture *fx = *state;
	static struct attrs out, none;
	uint8_t f[FAKE_FRAME_LEN], got[128];
	size_t len = fake_frame(f);

	attrs_init(&out);
	msgbuf_put_u32(&out.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	flow_add(fx->dp, 1, &out);
	__atomic_store_n(&all_listening, true, __ATOMIC_RELAXED);
	fake_wire_send("tdp-a", f, len);
	assert_int_equal(fake_wire_recv("tdp-b", got, sizeof(got), WAIT_MS),
			 len);
	assert_true(wait_count(&n_events, 2));
	assert_int_equal(events[0], EVENT(DP_PACKET_RX, 1));
	assert_int_equal(events[1], EVENT(DP_PACKET_TX, 2));
	/* A miss on port 2, its upcall delivered. */
	fake_wire_send("tdp-b", f, len);
	assert_true(wait_count(&n_events, 4));
	assert_int_equal(events[2], EVENT(DP_PACKET_RX, 2));
	assert_int_equal(events[3], EVENT(DP_PACKET_UPCALL, 2));
	/* A flow without actions: in, then dropped. */
	attrs_init(&none);
	dp_flow_flush(fx->dp);
	flow_add(fx->dp, 1, &none);
	fake_wire_send("tdp-a", f, len);
	assert_true(wait_count(&n_events, 6));
	assert_int_equal(events[4], EVENT(DP_PACKET_RX, 1));
	assert_int_equal(events[5], EVENT(DP_PACKET_DROP, 1));
	assert_int_equal(told.reason, TAPDP_DROP_OVS_LAST_ACTION);
}

/* Output to a port that does not exist: the kernel's DEV_READY. */
static void
test_output_to_no_port_drops(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 9);
	flow_add(fx->dp, 1, &acts);
	fake_wire_send("tdp-a", f, fake_frame(f));
	assert_true(wait_drops(fx->a, TAPDP_DROP_DEV_READY, 1));
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_LAST_ACTION), 0);
}

/* Recirculations through the datapath's flows, as the kernel's: a chain
 * of six (deeper than the three levels that run at once) gets out; a
 * loop recirculates 30 times through its flow and ends with
 * OVS_DROP_DEFERRED_LIMIT. */
static void
test_recirc_chain_and_loop(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN], out[128];
	size_t len = fake_frame(f);
	struct flow *flow[7];

	for (uint32_t id = 0; id < 7; id++) {
		attrs_init(&acts);
		if (id < 6)
			msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_RECIRC,
				       id + 1);
		else
			msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
		flow[id] = flow_add_recirc(fx->dp, 1, id, &acts);
	}
	fake_wire_send("tdp-a", f, len);
	assert_int_equal(fake_wire_recv("tdp-b", out, sizeof(out), WAIT_MS),
			 len);
	assert_memory_equal(out, f, len);
	for (uint32_t id = 0; id < 7; id++)
		assert_int_equal(atomic_read(&flow[id]->stats->packets), 1);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_DEFERRED_LIMIT), 0);
	/* From port 2: a flow that recirculates to itself. */
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_RECIRC, 1);
	flow_add_recirc(fx->dp, 2, 0, &acts);
	flow[0] = flow_add_recirc(fx->dp, 2, 1, &acts);
	fake_wire_send("tdp-b", f, len);
	assert_true(wait_drops(fx->b, TAPDP_DROP_OVS_DEFERRED_LIMIT, 1));
	assert_int_equal(atomic_read(&flow[0]->stats->packets), 30);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_RECURSION_LIMIT), 0);
	assert_true(fake_wire_recv("tdp-a", out, sizeof(out), 0) < 0);
}

/* A trace's steps, from the TRACE nest of a message built in mb. */
struct steps {
	unsigned n;
	uint32_t kind[256];
	const struct nlattr *tb[256][TAPDP_CTL_ATTR_MAX + 1];
	bool truncated;
};

/* Runs dp_trace on fake_frame() in by port in, into a message of cap
 * bytes, and reads its steps back. */
static void
trace(struct fixture *fx, struct dp_port *in, size_t cap, struct steps *st)
{
	static char mem[GENL_MSG_MAX];
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1], *nest, *a;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);
	struct msgbuf mb;
	int rem;

	memset(st, 0, sizeof(*st));
	msgbuf_init(&mb, mem, cap);
	assert_non_null(msgbuf_start(&mb, 0x20, 0, 1, 0, GENL_HDRLEN));
	rcu_read_lock();
	dp_trace(fx->dp, in, dp_net_conntrack(fx->net), f, len, &mb);
	rcu_read_unlock();
	assert_int_equal(msgbuf_end(&mb), 0);
	nest = attrs_find(mem + NLMSG_LENGTH(GENL_HDRLEN),
			  mb.len - NLMSG_LENGTH(GENL_HDRLEN),
			  TAPDP_CTL_ATTR_TRACE);
	assert_non_null(nest);
	assert_int_equal(attr_parse_nested(nest, NULL, TAPDP_CTL_ATTR_MAX, tb,
					   NULL), 0);
	st->truncated = tb[TAPDP_CTL_ATTR_TRUNCATED];
	attr_for_each(a, attr_data(nest), attr_len(nest), rem) {
		if (attr_type(a) != TAPDP_CTL_ATTR_STEP)
			continue;
		assert_true(st->n < 256);
		assert_int_equal(attr_parse_nested(a, NULL,
						   TAPDP_CTL_ATTR_MAX,
						   st->tb[st->n], NULL), 0);
		st->kind[st->n] = attr_get_u32(
			st->tb[st->n][TAPDP_CTL_ATTR_STEP_KIND]);
		st->n++;
	}
}

static unsigned
steps_of(const struct steps *st, uint32_t kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < st->n; i++)
		n += st->kind[i] == kind;
	return n;
}

/* A trace tells what the packet path would do, and does none of it: the
 * chain of recirculations with each megaflow, the port it would leave
 * by; no frame sent, no counter moved. A loop ends as the packet path
 * ends it, and an answer too small for the steps says it was cut. */
static void
test_trace(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t out[128];
	struct flow *flow[3];
	static struct steps st;
	struct dp_stats ds;
	uint32_t portid;
	unsigned last;

	for (uint32_t id = 0; id < 3; id++) {
		attrs_init(&acts);
		if (id < 2)
			msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_RECIRC, id + 1);
		else
			msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
		flow[id] = flow_add_recirc(fx->dp, 1, id, &acts);
	}
	trace(fx, fx->a, GENL_MSG_MAX, &st);
	assert_false(st.truncated);
	/* key, megaflow, action, recirc: twice; key, megaflow, action,
	 * output. */
	assert_int_equal(st.n, 12);
	assert_int_equal(steps_of(&st, TAPDP_CTL_STEP_FLOW), 3);
	assert_int_equal(steps_of(&st, TAPDP_CTL_STEP_RECIRC), 2);
	assert_int_equal(st.kind[0], TAPDP_CTL_STEP_KEY);
	assert_int_equal(st.kind[1], TAPDP_CTL_STEP_FLOW);
	assert_memory_equal(attr_data(st.tb[1][TAPDP_CTL_ATTR_UFID]), "ufid",
			    4);
	assert_non_null(st.tb[1][TAPDP_CTL_ATTR_FLOW_MASK]);
	assert_non_null(st.tb[1][TAPDP_CTL_ATTR_FLOW_ACTIONS]);
	last = st.n - 1;
	assert_int_equal(st.kind[last], TAPDP_CTL_STEP_OUTPUT);
	assert_int_equal(attr_get_u32(st.tb[last][TAPDP_CTL_ATTR_PORT_NO]), 2);
	assert_string_equal(attr_data(st.tb[last][TAPDP_CTL_ATTR_NAME]),
			    "tdp-b");
	assert_int_equal(attr_get_u32(st.tb[last][TAPDP_CTL_ATTR_DEPTH]), 2);
	assert_true(fake_wire_recv("tdp-b", out, sizeof(out), 0) < 0);
	for (uint32_t id = 0; id < 3; id++)
		assert_int_equal(atomic_read(&flow[id]->stats->packets), 0);
	dp_get_stats(fx->dp, &ds);
	assert_int_equal(ds.n_hit + ds.n_missed, 0);

	/* From port 2: a miss, to port 2's pid, sent nowhere. */
	trace(fx, fx->b, GENL_MSG_MAX, &st);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.kind[1], TAPDP_CTL_STEP_MISS);
	assert_int_equal(attr_get_u32(st.tb[1][TAPDP_CTL_ATTR_PORTID]), 78);
	assert_true(upcall_recv(&portid, out, sizeof(out), 0) < 0);

	/* A flow that recirculates to itself: ended by the deferral limit,
	 * as the packet path ends it; in 2 KiB, cut. */
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_RECIRC, 1);
	flow_add_recirc(fx->dp, 2, 0, &acts);
	flow[0] = flow_add_recirc(fx->dp, 2, 1, &acts);
	trace(fx, fx->b, GENL_MSG_MAX, &st);
	assert_false(st.truncated);
	last = st.n - 1;
	assert_int_equal(st.kind[last], TAPDP_CTL_STEP_DROP);
	assert_int_equal(attr_get_u32(st.tb[last][TAPDP_CTL_ATTR_REASON]),
			 TAPDP_DROP_OVS_DEFERRED_LIMIT);
	/* recirc_id 0's, then the 30 of test_recirc_chain_and_loop. */
	assert_int_equal(steps_of(&st, TAPDP_CTL_STEP_FLOW), 31);
	assert_int_equal(atomic_read(&flow[0]->stats->packets), 0);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_DEFERRED_LIMIT), 0);
	trace(fx, fx->b, 2048, &st);
	assert_true(st.truncated);
	assert_true(st.n > 2 && st.n < 30);
}

/* The Prometheus text: a sample per datapath and port, a name with a
 * double quote and a backslash escaped, the upcall histogram's
 * cumulative buckets. */
static void
test_metrics(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[FAKE_FRAME_LEN], out[128];
	size_t len = fake_frame(f), n = 0;
	struct datapath *odd;
	uint32_t pid = 0, portid;
	char *text = NULL;
	FILE *mf;

	assert_int_equal(dp_create(fx->net, "q\"d\\p", &pid, 1, &odd), 0);
	fake_wire_send("tdp-a", f, len);
	assert_true(upcall_recv(&portid, out, sizeof(out), WAIT_MS) > 0);
	assert_true(wait_count(&fx->a->upcall_success, 1));
	mf = open_memstream(&text, &n);
	assert_non_null(mf);
	dp_metrics_write(mf, fx->net);
	fclose(mf);
	assert_non_null(strstr(text, "\ntapdp_datapath_lookups_total{"
				     "datapath=\"tdp0\",result=\"missed\"} 1\n"));
	assert_non_null(strstr(text, "\ntapdp_datapath_flows{datapath="
				     "\"q\\\"d\\\\p\"} 0\n"));
	assert_non_null(strstr(text, "\ntapdp_port_packets_total{"
				     "datapath=\"tdp0\",port=\"tdp-a\","
				     "direction=\"rx\"} "));
	assert_non_null(strstr(text, "\ntapdp_upcalls_total{datapath=\"tdp0\","
				     "command=\"miss\"} 1\n"));
	assert_non_null(strstr(text, "\ntapdp_upcall_handler_sent_total{"
				     "datapath=\"tdp0\",portid=\"77\"} 1\n"));
	assert_non_null(strstr(text, "\ntapdp_miss_to_flow_seconds_bucket{"
				     "datapath=\"tdp0\",le=\"+Inf\"} 0\n"));
	assert_non_null(strstr(text, "# TYPE tapdp_miss_to_flow_seconds "
				     "histogram\n"));
	free(text);
	dp_destroy(odd);
}

/* A TCP segment of 4000 bytes from 10.0.0.1:40000 to 10.0.0.2:80 that
 * asks for segmentation into 1448-byte segments and a partial checksum, as
 * a TAP device hands one over. */
#define GSO_PAYLOAD	4000
#define GSO_SIZE	1448
#define GSO_SEQ		1000
#define GSO_HLEN	(ETH_HLEN + 20 + 20)

static size_t
gso_frame(uint8_t *f, size_t size, struct virtio_net_hdr *vh)
{
	uint8_t pseudo[12] = { 10, 0, 0, 1, 10, 0, 0, 2, 0, IPPROTO_TCP };
	uint16_t sum;
	uint8_t *p;
	struct fb b;
	size_t len;

	fb_init(&b, f, size);
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_TCP);
	fb_tcp(&b, 40000, 80, GSO_SEQ, 1, FB_ACK | FB_PSH);
	p = fb_put(&b, NULL, GSO_PAYLOAD);
	for (int i = 0; i < GSO_PAYLOAD; i++)
		p[i] = i;
	len = fb_end(&b);
	pseudo[10] = (len - ETH_HLEN - 20) >> 8;
	pseudo[11] = len - ETH_HLEN - 20;
	sum = fb_sum(pseudo, sizeof(pseudo));
	f[GSO_HLEN - 4] = sum >> 8;
	f[GSO_HLEN - 3] = sum;
	*vh = (struct virtio_net_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = GSO_HLEN,
		.gso_size = GSO_SIZE,
		.csum_start = ETH_HLEN + 20,
		.csum_offset = 16,
	};
	return len;
}

/* Segment i of gso_frame()'s frame, as the packet attribute of an upcall
 * carries it (cut to max_len bytes): a complete frame. */
static void
check_gso_segment(const struct nlattr *a, const uint8_t *f, unsigned i,
		  size_t max_len)
{
	size_t n = GSO_PAYLOAD - i * GSO_SIZE < GSO_SIZE
			   ? GSO_PAYLOAD - i * GSO_SIZE : GSO_SIZE;
	size_t len = GSO_HLEN + n;
	const uint8_t *seg = attr_data(a);
	const uint8_t *th = seg + ETH_HLEN + 20;

	assert_non_null(a);
	assert_int_equal(attr_len(a), len < max_len ? len : max_len);
	assert_memory_equal(seg, f, ETH_HLEN);
	assert_int_equal(seg[ETH_HLEN + 2] << 8 | seg[ETH_HLEN + 3],
			 len - ETH_HLEN);
	assert_int_equal((uint32_t)th[4] << 24 | th[5] << 16 | th[6] << 8 |
			 th[7], GSO_SEQ + i * GSO_SIZE);
	/* PSH on the last only. */
	assert_int_equal(th[13], n < GSO_SIZE ? FB_ACK | FB_PSH : FB_ACK);
	if (len > max_len)
		return;
	assert_true(fb_csums_ok(seg + ETH_HLEN, len - ETH_HLEN));
	assert_memory_equal(seg + GSO_HLEN, f + GSO_HLEN + i * GSO_SIZE, n);
}

/* The next upcall, which must come to portid with cmd: its attributes'
 * start (and length in *rem). */
static const char *
upcall_next(struct datapath *dp, uint8_t cmd, uint32_t portid, void *msg,
	    size_t size, int *rem)
{
	uint32_t got;
	ssize_t n = upcall_recv(&got, msg, size, WAIT_MS);

	assert_true(n > 0);
	assert_int_equal(got, portid);
	return upcall_check(msg, n, cmd, dp, rem);
}

/* A GSO frame that misses goes to userspace as its segments, each its own
 * upcall with the frame's key, as the kernel's queue_gso_packets(): one
 * miss, one upcall counted. */
static void
test_miss_gso_segments(void **state)
{
	struct fixture *fx = *state;
	static uint8_t f[GSO_HLEN + GSO_PAYLOAD], msg[4096];
	struct virtio_net_hdr vh;
	size_t len = gso_frame(f, sizeof(f), &vh);
	uint64_t hash = 0;
	struct dp_stats st;
	uint32_t portid;

	fake_wire_send_vnet("tdp-a", &vh, f, len);
	for (unsigned i = 0; i < 3; i++) {
		const struct nlattr *a;
		struct flow_key key;
		int rem;
		const char *p = upcall_next(fx->dp, OVS_PACKET_CMD_MISS, 77,
					    msg, sizeof(msg), &rem);

		check_gso_segment(attrs_find(p, rem, OVS_PACKET_ATTR_PACKET),
				  f, i, SIZE_MAX);
		assert_null(attrs_find(p, rem, OVS_PACKET_ATTR_LEN));
		a = attrs_find(p, rem, OVS_PACKET_ATTR_KEY);
		assert_non_null(a);
		assert_int_equal(flow_match_from_nlattrs(&key, NULL, a, NULL,
							 true), 0);
		assert_int_equal(key.in_port, 1);
		assert_int_equal(key.eth_type, htons(ETH_P_IP));
		assert_int_equal(key.ip_proto, IPPROTO_TCP);
		a = attrs_find(p, rem, OVS_PACKET_ATTR_HASH);
		assert_non_null(a);
		if (i)
			assert_int_equal(attr_get_u64(a), hash);
		hash = attr_get_u64(a);
	}
	assert_true(upcall_recv(&portid, msg, sizeof(msg), 0) < 0);
	assert_true(wait_count(&fx->a->upcall_success, 1));
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_missed, 1);
	assert_int_equal(st.n_lost, 0);
}

/* A GSO request the frame belies (TCPv6 on IPv4) cannot be segmented:
 * the upcall is lost, as the kernel's. */
static void
test_miss_gso_lie_is_lost(void **state)
{
	struct fixture *fx = *state;
	static uint8_t f[GSO_HLEN + GSO_PAYLOAD], msg[4096];
	struct virtio_net_hdr vh;
	size_t len = gso_frame(f, sizeof(f), &vh);
	uint32_t portid;

	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	fake_wire_send_vnet("tdp-a", &vh, f, len);
	assert_true(wait_lost(fx->dp, 1));
	assert_true(wait_count(&fx->a->upcall_fail, 1));
	assert_true(upcall_recv(&portid, msg, sizeof(msg), 0) < 0);
}

/* A GSO frame's miss whose upcall fails: the kernel frees every segment
 * it made (NOT_SPECIFIED each, the three of them), and the frame itself
 * unless the socket was only full (EAGAIN consumes it). */
static void
test_miss_gso_refused_drops_segments(void **state)
{
	struct fixture *fx = *state;
	static uint8_t f[GSO_HLEN + GSO_PAYLOAD];
	struct virtio_net_hdr vh;
	size_t len = gso_frame(f, sizeof(f), &vh);
	uint32_t none = 0;

	__atomic_store_n(&sink_err, -ENOBUFS, __ATOMIC_RELAXED);
	fake_wire_send_vnet("tdp-a", &vh, f, len);
	assert_true(wait_drops(fx->a, TAPDP_DROP_NOT_SPECIFIED, 3));
	assert_true(wait_lost(fx->dp, 1));
	__atomic_store_n(&sink_err, 0, __ATOMIC_RELAXED);
	/* Nobody to tell: the kernel gives up before it segments, so the
	 * frame alone. */
	assert_int_equal(dp_port_set_pids(fx->a, &none, 1), 0);
	fake_wire_send_vnet("tdp-a", &vh, f, len);
	assert_true(wait_drops(fx->a, TAPDP_DROP_NOT_SPECIFIED, 3 + 1));
	assert_true(wait_lost(fx->dp, 2));
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_NOT_SPECIFIED), 4);
}

/* A userspace action on a GSO frame: its segments too, each cut to the
 * length trunc() asked for, the segment's own length beside it. */
static void
test_userspace_action_gso_segments(void **state)
{
	struct fixture *fx = *state;
	static uint8_t f[GSO_HLEN + GSO_PAYLOAD], msg[4096];
	struct ovs_action_trunc tr = { .max_len = 100 };
	struct flow_key key = { .in_port = 1 }, mask = { .in_port = ~0u };
	struct virtio_net_hdr vh;
	size_t len = gso_frame(f, sizeof(f), &vh);
	static struct attrs acts;
	struct nlattr *user;
	struct flow *flow;
	uint32_t portid;

	attrs_init(&acts);
	attrs_put(&acts, OVS_ACTION_ATTR_TRUNC, &tr, sizeof(tr));
	user = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&acts.mb, OVS_USERSPACE_ATTR_PID, 88);
	msgbuf_nest_end(&acts.mb, user);
	/* Every frame from port 1. */
	flow = calloc(1, sizeof(*flow));
	assert_non_null(flow);
	flow->actions = attrs_store_actions(&acts, &key);
	assert_int_equal(dp_flow_insert(fx->dp, flow, &key, &mask), 0);
	fake_wire_send_vnet("tdp-a", &vh, f, len);
	for (unsigned i = 0; i < 3; i++) {
		const struct nlattr *a;
		int rem;
		const char *p = upcall_next(fx->dp, OVS_PACKET_CMD_ACTION, 88,
					    msg, sizeof(msg), &rem);

		check_gso_segment(attrs_find(p, rem, OVS_PACKET_ATTR_PACKET),
				  f, i, 100);
		a = attrs_find(p, rem, OVS_PACKET_ATTR_LEN);
		assert_non_null(a);
		assert_int_equal(attr_get_u32(a),
				 GSO_HLEN + (i < 2 ? GSO_SIZE
						   : GSO_PAYLOAD - 2 * GSO_SIZE));
	}
	assert_true(upcall_recv(&portid, msg, sizeof(msg), 0) < 0);
	assert_true(wait_count(&fx->a->upcall_success, 1));
}

static void
test_execute(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	struct flow_key md = { .in_port = 1,
			       .mac_proto = FLOW_MAC_ETHERNET };
	struct actions_stored *stored_acts;
	struct nlattr *user;
	uint8_t f[FAKE_FRAME_LEN], out[128], msg[1024];
	size_t len = fake_frame(f);
	struct dp_stats st;
	uint32_t portid;
	const char *p;
	ssize_t n;
	int rem;

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	user = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&acts.mb, OVS_USERSPACE_ATTR_PID, 90);
	msgbuf_nest_end(&acts.mb, user);
	stored_acts = attrs_store_actions(&acts, &md);
	assert_int_equal(dp_execute(fx->dp, f, len, &md, 0, 0, 0, stored_acts),
			 0);
	free(stored_acts);
	assert_int_equal(fake_wire_recv("tdp-b", out, sizeof(out), WAIT_MS),
			 len);
	assert_memory_equal(out, f, len);
	n = upcall_recv(&portid, msg, sizeof(msg), WAIT_MS);
	assert_true(n > 0);
	assert_int_equal(portid, 90);
	p = upcall_check(msg, n, OVS_PACKET_CMD_ACTION, fx->dp, &rem);
	assert_non_null(attrs_find(p, rem, OVS_PACKET_ATTR_PACKET));
	/* Executed packets are not the flow table's. */
	dp_get_stats(fx->dp, &st);
	assert_int_equal(st.n_hit + st.n_missed, 0);
}

/* A 2000-byte UDP datagram from 10.0.0.1 to 10.0.0.2 behind 'tags' VLAN
 * tags and 'labels' MPLS labels (the last the bottom of stack). */
static size_t
big_frame(uint8_t *f, size_t cap, int tags, int labels)
{
	uint16_t inner = labels ? ETH_P_MPLS_UC : ETH_P_IP;
	struct fb b;

	fb_init(&b, f, cap);
	fb_eth(&b, tags ? ETH_P_8021Q : inner);
	for (int i = 1; i <= tags; i++)
		fb_vlan(&b, i, i < tags ? ETH_P_8021Q : inner);
	for (int i = 1; i <= labels; i++) {
		uint32_t lse = htonl((uint32_t)(16 + i) << 12 |
				     (i == labels ? 0x100 : 0) | 64);

		fb_put(&b, &lse, sizeof(lse));
	}
	fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_UDP);
	fb_udp(&b, 1000, 2000);
	fb_put(&b, NULL, 2000 - 28);
	return fb_end(&b);
}

/* Out again through port 2 with the MRU of a datagram conntrack
 * reassembled: the drops where the kernel's do_output and ovs_fragment
 * give up, counted on the input port. */
static uint64_t
execute_with_mru(struct fixture *fx, const uint8_t *f, size_t len,
		 uint16_t mru, uint32_t reason)
{
	struct flow_key md = { .in_port = 1,
			       .mac_proto = FLOW_MAC_ETHERNET };
	struct actions_stored *out;
	static struct attrs acts;

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	out = attrs_store_actions(&acts, &md);
	assert_int_equal(dp_execute(fx->dp, f, len, &md, 0, mru, 0, out), 0);
	free(out);
	return port_drops(fx->a, reason);
}

static void
test_execute_fragment_drops(void **state)
{
	struct fixture *fx = *state;
	static uint8_t f[2100], out[2100];

	/* Behind a tag: fragmented, no drop; the first fragment carries
	 * what fits in 1400 bytes in eights. */
	assert_int_equal(execute_with_mru(fx, f, big_frame(f, sizeof(f), 1, 0),
					  1400, TAPDP_DROP_PKT_TOO_BIG), 0);
	assert_int_equal(fake_wire_recv("tdp-b", out, sizeof(out), WAIT_MS),
			 ETH_HLEN + VLAN_HLEN + 20 + (1380 & ~7));
	/* An MRU above the port's MTU (1500). */
	assert_int_equal(execute_with_mru(fx, f, big_frame(f, sizeof(f), 1, 0),
					  1600, TAPDP_DROP_PKT_TOO_BIG), 1);
	/* MPLS: the link layer ends at the bottom of stack, the tag the
	 * device took off not counted: five labels are past MAX_L2_LEN (30
	 * bytes), four are not, and not IP either. */
	assert_int_equal(execute_with_mru(fx, f, big_frame(f, sizeof(f), 1, 5),
					  1400,
					  TAPDP_DROP_OVS_FRAG_L2_TOO_LONG), 1);
	assert_int_equal(execute_with_mru(fx, f, big_frame(f, sizeof(f), 1, 4),
					  1400,
					  TAPDP_DROP_OVS_FRAG_INVALID_PROTO), 1);
	assert_int_equal(dp_drops(fx->dp, TAPDP_DROP_OVS_LAST_ACTION), 0);
}

/* What an unlocked execute does (families/packet-family.c): a datapath
 * found by its ifindex and executed on under RCU, here by two threads
 * that loop on it, while this one creates and destroys datapaths, as
 * requests under the control lock do. Nothing is read after it is freed
 * (the sanitizer build says so) and the executes go on. */
struct exec_race {
	struct dp_net *net;
	struct actions_stored *acts;
	int ifindex;			/* atomic: the datapath to look for */
	bool stop;			/* atomic */
	unsigned long found;		/* atomic */
};

static void *
exec_race_thread(void *arg)
{
	struct exec_race *r = arg;
	struct flow_key md = { .in_port = OVSP_LOCAL,
			       .mac_proto = FLOW_MAC_ETHERNET };
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);

	rcu_register_thread();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct datapath *dp;

		rcu_read_lock();
		dp = dp_by_ifindex(r->net, __atomic_load_n(&r->ifindex,
							   __ATOMIC_RELAXED));
		if (dp) {
			dp_execute(dp, f, len, &md, 0, 0, 0, r->acts);
			__atomic_fetch_add(&r->found, 1, __ATOMIC_RELAXED);
		}
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

static void
test_execute_races_destroy(void **state)
{
	struct fixture *fx = *state;
	struct exec_race r = { .net = fx->net };
	struct flow_key md = { .in_port = OVSP_LOCAL,
			       .mac_proto = FLOW_MAC_ETHERNET };
	static struct attrs acts;
	pthread_t th[2];
	uint32_t pid = 0;

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, OVSP_LOCAL);
	r.acts = attrs_store_actions(&acts, &md);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, exec_race_thread,
						&r), 0);
	for (int round = 0; round < 200; round++) {
		unsigned long before;
		struct datapath *dp;
		char name[16];

		snprintf(name, sizeof(name), "race%d", round % 3);
		assert_int_equal(dp_create(fx->net, name, &pid, 1, &dp), 0);
		before = __atomic_load_n(&r.found, __ATOMIC_RELAXED);
		__atomic_store_n(&r.ifindex, dp_ifindex(dp), __ATOMIC_RELAXED);
		/* Destroyed while the threads execute on it. */
		for (int spin = 0; spin < 1000000 &&
		     __atomic_load_n(&r.found, __ATOMIC_RELAXED) < before + 4;
		     spin++)
			sched_yield();
		dp_destroy(dp);
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	free(r.acts);
	assert_true(r.found >= 200 * 4);
	assert_non_null(dp_by_ifindex(fx->net, dp_ifindex(fx->dp)));
}

static void
test_ports_and_names(void **state)
{
	struct fixture *fx = *state;
	struct datapath *other;
	struct dp_port *port;
	uint32_t pid = 1, p;

	/* Lookups in the context. */
	assert_ptr_equal(dp_by_name(fx->net, "tdp0"), fx->dp);
	assert_null(dp_by_name(fx->net, "tdp-a"));	/* a port, not a dp */
	assert_ptr_equal(dp_by_ifindex(fx->net, dp_ifindex(fx->dp)), fx->dp);
	assert_ptr_equal(dp_at(fx->net, 0), fx->dp);
	assert_null(dp_at(fx->net, 1));
	assert_ptr_equal(dp_port_locate(fx->net, "tdp-b"), fx->b);
	assert_ptr_equal(dp_port_by_ifindex(fx->net, fx->b->vport->netnsid,
					    fx->b->vport->ifindex), fx->b);
	assert_string_equal(dp_name(fx->dp), "tdp0");
	/* Iteration in port order. */
	p = 0;
	assert_non_null(port = dp_port_next(fx->dp, &p));
	assert_int_equal(p, OVSP_LOCAL);
	p++;
	assert_ptr_equal(dp_port_next(fx->dp, &p), fx->a);
	p++;
	assert_ptr_equal(dp_port_next(fx->dp, &p), fx->b);
	assert_int_equal(p, 2);
	p++;
	assert_null(dp_port_next(fx->dp, &p));
	/* A taken number, a device attached, a datapath's own device. */
	assert_int_equal(dp_port_add(fx->dp, 2, OVS_VPORT_TYPE_INTERNAL, "x",
				     NULL, &pid, 1, NULL), -EBUSY);
	assert_int_equal(dp_port_add(fx->dp, 0, OVS_VPORT_TYPE_NETDEV, "tdp-a",
				     NULL, &pid, 1, NULL), -EBUSY);
	assert_int_equal(dp_port_add(fx->dp, 0, OVS_VPORT_TYPE_NETDEV, "tdp0",
				     NULL, &pid, 1, NULL), -EINVAL);
	assert_int_equal(dp_port_add(fx->dp, 0, OVS_VPORT_TYPE_NETDEV, "nodev",
				     NULL, &pid, 1, NULL), -ENODEV);
	assert_int_equal(dp_port_add(fx->dp, TAPDP_DP_MAX_PORTS,
				     OVS_VPORT_TYPE_INTERNAL, "x", NULL, &pid, 1,
				     NULL), -EFBIG);
	assert_int_equal(dp_port_add(fx->dp, 0, 99, "x", NULL, &pid, 1, NULL),
			 -EAFNOSUPPORT);
	/* Number 0 picks the lowest free one. */
	assert_int_equal(dp_port_add(fx->dp, 0, OVS_VPORT_TYPE_INTERNAL,
				     "tdp-c", NULL, &pid, 1, &port), 0);
	assert_int_equal(port->port_no, 3);
	/* A name is taken across the context's datapaths. */
	assert_int_equal(dp_create(fx->net, "tdp-c", &pid, 1, &other),
			 -EEXIST);
	assert_int_equal(dp_create(fx->net, "tdp1", &pid, 1, &other), 0);
	assert_ptr_equal(dp_at(fx->net, 1), other);
	dp_port_del(port);
	assert_null(dp_port_locate(fx->net, "tdp-c"));
	dp_destroy(other);
	assert_null(dp_at(fx->net, 1));
}

/* A context's tracker is its own, made once. */
static void
test_conntrack_per_context(void **state)
{
	struct fixture *fx = *state;
	const struct dp_net_config cfg = { .conntrack_max = 16 };
	struct dp_net *other = dp_net_new(&cfg);
	struct conntrack *ct = dp_net_conntrack(fx->net);

	assert_non_null(ct);
	assert_ptr_equal(dp_net_conntrack(fx->net), ct);
	assert_non_null(other);
	assert_ptr_not_equal(dp_net_conntrack(other), ct);
	dp_net_destroy(other);
}

static int
group_setup(void **state)
{
	rcu_register_thread();
	vport_set_rx_queues(1);
	return 0;
}

static int
group_teardown(void **state)
{
	rcu_unregister_thread();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_hit_runs_actions_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_miss_sends_upcall, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_miss_per_cpu_dispatch,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_action_sends_userdata, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_egress_tun_key, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_egress_no_tunnel, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_egress_not_tunnel_port, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_egress_no_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_miss_without_pid_is_lost,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_upcall_is_lost,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_drops_per_port, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_drop_told, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_packets_told, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_output_to_no_port_drops,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_miss_gso_segments, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_miss_gso_refused_drops_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recirc_chain_and_loop,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_miss_gso_lie_is_lost,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_userspace_action_gso_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_execute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_execute_fragment_drops,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_execute_races_destroy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_and_names, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conntrack_per_context,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("datapath", tests, group_setup,
					   group_teardown);
}
