/* SPDX-License-Identifier: Apache-2.0 */
/* Drop reasons: the kernel's numbers and names, the per-thread counters
 * under concurrent packet threads, the reason the action engine gives at
 * each of the kernel's drop sites, the datapath counting per datapath and
 * per port and telling its drop sink (only while it listens), and the
 * tapdp_drop family's messages: the GET dump, the events, who may join. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <urcu.h>

#include "actions/actions.h"
#include "datapath/datapath.h"
#include "datapath/drop.h"
#include "datapath/families.h"
#include "flow/extract.h"
#include "flow/key-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "netlink/attr.h"
#include "netlink/genl.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define WAIT_MS	2000

/* The reasons and their names. */

static void
test_reason_table(void **state)
{
	assert_int_equal(TAPDP_DROP_OVS_LAST_ACTION, 0x30001);
	assert_int_equal(TAPDP_DROP_OVS_EXPLICIT, 0x30003);
	assert_int_equal(TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR, 0x30004);
	assert_int_equal(TAPDP_DROP_OVS_IP_TTL, 0x3000b);
	assert_string_equal(drop_reason_name(0x30001), "OVS_DROP_LAST_ACTION");
	assert_string_equal(drop_reason_name(0x3000a), "OVS_DROP_CONNTRACK");
	assert_string_equal(drop_reason_name(2), "NOT_SPECIFIED");
	assert_string_equal(drop_reason_name(80), "PKT_TOO_BIG");
	assert_null(drop_reason_name(0x3000c));
	assert_null(drop_reason_name(1));	/* SKB_CONSUMED: no drop */
	assert_int_equal(drop_reason_index(0x3000c), -1);
	for (unsigned i = 0; i < DROP_REASONS; i++) {
		assert_int_equal(drop_reason_index(drop_reason_at(i)), (int)i);
		assert_non_null(drop_reason_name(drop_reason_at(i)));
	}
}

/* Counters: threads add without locks, in their own slots or sharing
 * one; the sum loses nothing. */

#define THREADS		4
#define PER_THREAD	100000

struct adder {
	struct drop_counters *c;
	unsigned slot;
};

static void *
add_many(void *arg)
{
	struct adder *a = arg;

	for (int i = 0; i < PER_THREAD; i++)
		drop_count(a->c, a->slot, i & 1 ? TAPDP_DROP_OVS_METER
						 : TAPDP_DROP_NOT_SPECIFIED);
	return NULL;
}

static void
test_counters_concurrent(void **state)
{
	struct drop_counters *c = drop_counters_new();
	struct adder a[THREADS];
	pthread_t t[THREADS];
	uint64_t n[DROP_REASONS];

	assert_non_null(c);
	for (int i = 0; i < THREADS; i++) {
		/* Two threads in slot 3, one past the last slot (wraps to
		 * 0), one in 5. */
		a[i] = (struct adder){ .c = c,
				       .slot = (unsigned[]){ 3, 3, DROP_SLOTS,
							     5 }[i] };
		assert_int_equal(pthread_create(&t[i], NULL, add_many, &a[i]),
				 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	drop_count(c, 0, 0x3000c);	/* unknown: not counted */
	drop_sum(c, n);
	for (unsigned i = 0; i < DROP_REASONS; i++) {
		uint32_t r = drop_reason_at(i);

		assert_int_equal(n[i], r == TAPDP_DROP_OVS_METER ||
						       r == TAPDP_DROP_NOT_SPECIFIED
					       ? THREADS * PER_THREAD / 2
					       : 0);
	}
	free(c);
}

/* The action engine: which reason, how many times. */

static uint32_t drops[16];
static int n_drops, n_outputs, n_recircs;
static bool meter_drops;

static void
env_output(void *ctx, const struct packet *pkt, const struct flow_key *key,
	   uint32_t port)
{
	n_outputs++;
}

static void
env_userspace(void *ctx, const struct packet *pkt, const struct flow_key *key,
	      const struct nlattr *ua, const void *acts, int len)
{
}

static const struct actions_stored *recirc_acts;
static const struct actions_env env;

/* Runs the same list again, as a flow recirculating to itself. */
static void
env_recirc(void *ctx, struct packet *pkt, struct flow_key *key)
{
	n_recircs++;
	actions_execute(&env, pkt, key, recirc_acts);
}

static bool
env_meter(void *ctx, const struct packet *pkt, uint32_t id)
{
	return meter_drops;
}

static void
env_drop(void *ctx, const struct packet *pkt, uint32_t reason)
{
	assert_true(n_drops < 16);
	drops[n_drops++] = reason;
}

static const struct actions_env env = {
	.output = env_output, .userspace = env_userspace,
	.recirc = env_recirc, .meter = env_meter, .drop = env_drop,
};

/* An Ethernet/IPv4/UDP frame with that TTL. */
static size_t
udp_frame(uint8_t *f, uint8_t ttl)
{
	struct iphdr *ip;
	struct fb b;

	fb_init(&b, f, 128);
	fb_eth(&b, ETH_P_IP);
	ip = fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_UDP);
	ip->ttl = ttl;
	fb_udp(&b, 1000, 2000);
	fb_put(&b, "payload!", 8);
	return fb_end(&b);
}

/* Runs acts on a UDP frame with TTL ttl; the drops land in drops[]. */
static void
run(const struct attrs *acts, uint8_t ttl)
{
	static uint8_t buf[4096];
	struct actions_stored *stored;
	struct flow_key key;
	struct packet pkt;
	uint8_t f[128];
	size_t len = udp_frame(f, ttl);

	n_drops = n_outputs = n_recircs = 0;
	packet_init(&pkt, buf, sizeof(buf), len);
	memcpy(pkt.data, f, len);
	memset(&key, 0, sizeof(key));
	assert_int_equal(flow_extract(pkt.data, pkt.len, &key, &pkt.layers),
			 0);
	pkt.key_valid = true;
	stored = attrs_store_actions(acts, &key);
	recirc_acts = stored;
	actions_execute(&env, &pkt, &key, stored);
	free(stored);
}

static void
assert_drops(int n, uint32_t reason)
{
	assert_int_equal(n_drops, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(drops[i], reason);
}

static void
test_engine_list_end(void **state)
{
	static struct attrs a;
	struct nlattr *clone;

	/* No actions: the kernel's LAST_ACTION (ovs-dpctl's "drop"). */
	attrs_init(&a);
	run(&a, 64);
	assert_drops(1, TAPDP_DROP_OVS_LAST_ACTION);
	/* Out as the last action: consumed. */
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	run(&a, 64);
	assert_drops(0, 0);
	/* An output that is not the last, then nothing: the packet is
	 * dropped after its copy left. */
	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	attrs_put(&a, OVS_ACTION_ATTR_CT_CLEAR, NULL, 0);
	run(&a, 64);
	assert_int_equal(n_outputs, 1);
	assert_drops(1, TAPDP_DROP_OVS_LAST_ACTION);
	/* clone() runs on a copy whose list ends without output (a drop),
	 * then the packet leaves: one drop. */
	attrs_init(&a);
	clone = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CLONE);
	attrs_put(&a, OVS_ACTION_ATTR_CT_CLEAR, NULL, 0);
	msgbuf_nest_end(&a.mb, clone);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	run(&a, 64);
	assert_int_equal(n_outputs, 1);
	assert_drops(1, TAPDP_DROP_OVS_LAST_ACTION);
	/* clone(output) as the last action: its list takes the packet. */
	attrs_init(&a);
	clone = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CLONE);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, clone);
	run(&a, 64);
	assert_int_equal(n_outputs, 1);
	assert_drops(0, 0);
}

static void
test_engine_userspace_and_sample(void **state)
{
	static struct attrs a;
	struct nlattr *nest, *acts;

	/* userspace as the last action consumes the packet. */
	attrs_init(&a);
	nest = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&a.mb, OVS_USERSPACE_ATTR_PID, 7);
	msgbuf_nest_end(&a.mb, nest);
	run(&a, 64);
	assert_drops(0, 0);
	/* A last sample that does not sample: LAST_ACTION. */
	attrs_init(&a);
	nest = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_SAMPLE);
	msgbuf_put_u32(&a.mb, OVS_SAMPLE_ATTR_PROBABILITY, 0);
	acts = msgbuf_nest_start(&a.mb, OVS_SAMPLE_ATTR_ACTIONS);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, acts);
	msgbuf_nest_end(&a.mb, nest);
	run(&a, 64);
	assert_int_equal(n_outputs, 0);
	assert_drops(1, TAPDP_DROP_OVS_LAST_ACTION);
}

static void
test_engine_explicit_meter_error(void **state)
{
	static const uint32_t mark[2] = { 1, 0xffffffff };
	static struct attrs a;
	struct nlattr *set;

	attrs_init(&a);
	msgbuf_put_u32(&a.mb, TAPDP_ACTION_ATTR_DROP, 0);
	run(&a, 64);
	assert_drops(1, TAPDP_DROP_OVS_EXPLICIT);
	attrs_init(&a);
	msgbuf_put_u32(&a.mb, TAPDP_ACTION_ATTR_DROP, 42);
	run(&a, 64);
	assert_drops(1, TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR);
	/* A meter whose band drops. */
	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_METER, 1);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	meter_drops = true;
	run(&a, 64);
	assert_int_equal(n_outputs, 0);
	assert_drops(1, TAPDP_DROP_OVS_METER);
	meter_drops = false;
	run(&a, 64);
	assert_int_equal(n_outputs, 1);
	assert_drops(0, 0);
	/* A set of ct_mark fails at execution, as the kernel's. */
	attrs_init(&a);
	set = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_SET_MASKED);
	attrs_put(&a, OVS_KEY_ATTR_CT_MARK, mark, sizeof(mark));
	msgbuf_nest_end(&a.mb, set);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	run(&a, 64);
	assert_int_equal(n_outputs, 0);
	assert_drops(1, TAPDP_DROP_OVS_ACTION_ERROR);
}

/* dec_ttl(le_1(actions)) then output. */
static void
put_dec_ttl(struct attrs *a, bool output_on_expiry)
{
	struct nlattr *dec, *act;

	dec = msgbuf_nest_start(&a->mb, OVS_ACTION_ATTR_DEC_TTL);
	act = msgbuf_nest_start(&a->mb, OVS_DEC_TTL_ATTR_ACTION);
	if (output_on_expiry)
		msgbuf_put_u32(&a->mb, OVS_ACTION_ATTR_OUTPUT, 9);
	msgbuf_nest_end(&a->mb, act);
	msgbuf_nest_end(&a->mb, dec);
	msgbuf_put_u32(&a->mb, OVS_ACTION_ATTR_OUTPUT, 2);
}

static void
test_engine_ttl(void **state)
{
	static struct attrs a;

	attrs_init(&a);
	put_dec_ttl(&a, false);
	run(&a, 64);
	assert_int_equal(n_outputs, 1);
	assert_drops(0, 0);
	/* Expired, no exception actions: IP_TTL, the list ends. */
	run(&a, 1);
	assert_int_equal(n_outputs, 0);
	assert_drops(1, TAPDP_DROP_OVS_IP_TTL);
	/* Expired, with exception actions: they take the packet. */
	attrs_init(&a);
	put_dec_ttl(&a, true);
	run(&a, 1);
	assert_int_equal(n_outputs, 1);
	assert_drops(0, 0);
}

static void
test_engine_recursion_limit(void **state)
{
	static struct attrs a;

	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 1);
	run(&a, 64);
	assert_int_equal(n_recircs, 5);
	assert_drops(1, TAPDP_DROP_OVS_RECURSION_LIMIT);
}

/* The datapath: counts per datapath and per port, and its sink. */

static bool sink_listening;
static int n_sent;
static struct dp_drop_event sent;
static uint8_t sent_data[FAKE_FRAME_LEN];
static uint8_t sent_ufid[16];
static int upcall_err;

static bool
sink_listens(void)
{
	return __atomic_load_n(&sink_listening, __ATOMIC_RELAXED);
}

/* The receive thread's: what the test reads once n_sent says so. */
static void
sink_send(const struct dp_drop_event *ev)
{
	sent = *ev;
	memcpy(sent_data, ev->data,
	       ev->len < sizeof(sent_data) ? ev->len : sizeof(sent_data));
	if (ev->ufid)
		memcpy(sent_ufid, ev->ufid, ev->ufid_len);
	__atomic_fetch_add(&n_sent, 1, __ATOMIC_RELEASE);
}

static int
upcall_send(uint32_t portid, const void *msg, size_t len)
{
	return upcall_err;
}

struct fixture {
	struct dp_net *net;
	struct datapath *dp;
	struct dp_port *a, *b;		/* 1 and 2: netdevs tdr-a, tdr-b */
};

static int
dp_setup(void **state)
{
	const struct dp_net_config cfg = {
		.upcall = { .family_id = 0x4ee, .version = 1,
			    .send = upcall_send },
		.drops = { .listening = sink_listens, .send = sink_send },
		.port_ops = fake_port_ops,
	};
	struct fixture *fx = test_calloc(1, sizeof(*fx));
	uint32_t pid0 = 0, pid_a = 77, pid_b = 78;

	sink_listening = false;
	n_sent = 0;
	upcall_err = 0;
	fx->net = dp_net_new(&cfg);
	assert_non_null(fx->net);
	assert_int_equal(dp_create(fx->net, "tdr0", &pid0, 1, &fx->dp), 0);
	assert_int_equal(fake_device_add("tdr-a"), 0);
	assert_int_equal(fake_device_add("tdr-b"), 0);
	assert_int_equal(dp_port_add(fx->dp, 1, OVS_VPORT_TYPE_NETDEV, "tdr-a",
				     NULL, &pid_a, 1, &fx->a), 0);
	assert_int_equal(dp_port_add(fx->dp, 2, OVS_VPORT_TYPE_NETDEV, "tdr-b",
				     NULL, &pid_b, 1, &fx->b), 0);
	*state = fx;
	return 0;
}

static int
dp_teardown(void **state)
{
	struct fixture *fx = *state;

	dp_net_destroy(fx->net);
	rcu_barrier();
	fake_device_del("tdr-a");
	fake_device_del("tdr-b");
	test_free(fx);
	return 0;
}

/* A flow for fake_frame() from in_port, with the actions in acts and
 * the UFID "ufid" and the port's number. */
static void
flow_add(struct datapath *dp, uint32_t in_port, const struct attrs *acts)
{
	struct flow_key key, mask;
	static struct attrs k;
	struct nlattr *nest;
	struct flow *flow;

	attrs_init(&k);
	nest = fake_frame_key(&k.mb, OVS_FLOW_ATTR_KEY, in_port, fb_mac_src);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nest, NULL,
						 true), 0);
	flow = calloc(1, sizeof(*flow));
	assert_non_null(flow);
	flow->ufid_len = 5;
	memcpy(flow->ufid, "ufid", 4);
	flow->ufid[4] = in_port;
	flow->actions = attrs_store_actions(acts, &key);
	assert_int_equal(dp_flow_insert(dp, flow, &key, &mask), 0);
}

static uint64_t
port_count(const struct dp_port *port, uint32_t reason)
{
	uint64_t n[DROP_REASONS];

	dp_port_get_drops(port, n);
	return n[drop_reason_index(reason)];
}

static uint64_t
dp_count(const struct datapath *dp, uint32_t reason)
{
	uint64_t n[DROP_REASONS];

	dp_get_drops(dp, n);
	return n[drop_reason_index(reason)];
}

/* Waits (at most WAIT_MS) for port's count of reason to be want. */
static bool
wait_port_count(const struct dp_port *port, uint32_t reason, uint64_t want)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (port_count(port, reason) == want)
			return true;
		poll(NULL, 0, 1);
	}
	return false;
}

static void
test_dp_counts_per_port(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);

	attrs_init(&acts);
	flow_add(fx->dp, 1, &acts);		/* no actions */
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 9);
	flow_add(fx->dp, 2, &acts);		/* to no port */
	fake_wire_send("tdr-a", f, len);
	fake_wire_send("tdr-a", f, len);
	fake_wire_send("tdr-b", f, len);
	assert_true(wait_port_count(fx->a, TAPDP_DROP_OVS_LAST_ACTION, 2));
	assert_true(wait_port_count(fx->b, TAPDP_DROP_DEV_READY, 1));
	assert_int_equal(port_count(fx->b, TAPDP_DROP_OVS_LAST_ACTION), 0);
	assert_int_equal(port_count(fx->a, TAPDP_DROP_DEV_READY), 0);
	assert_int_equal(dp_count(fx->dp, TAPDP_DROP_OVS_LAST_ACTION), 2);
	assert_int_equal(dp_count(fx->dp, TAPDP_DROP_DEV_READY), 1);
	/* Nobody listened: nothing was built. */
	assert_int_equal(__atomic_load_n(&n_sent, __ATOMIC_ACQUIRE), 0);
}

static bool
wait_sent(int want)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (__atomic_load_n(&n_sent, __ATOMIC_ACQUIRE) == want)
			return true;
		poll(NULL, 0, 1);
	}
	return false;
}

static void
test_dp_event(void **state)
{
	struct fixture *fx = *state;
	static struct attrs acts;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);

	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_DROP, 7);
	flow_add(fx->dp, 1, &acts);
	__atomic_store_n(&sink_listening, true, __ATOMIC_RELAXED);
	fake_wire_send("tdr-a", f, len);
	assert_true(wait_sent(1));
	assert_int_equal(sent.dp_ifindex, dp_ifindex(fx->dp));
	assert_int_equal(sent.port_no, 1);
	assert_int_equal(sent.reason, TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR);
	assert_int_equal(sent.ufid_len, 5);
	assert_memory_equal(sent_ufid, "ufid\1", 5);
	assert_int_equal(sent.len, len);
	assert_memory_equal(sent_data, f, len);
	assert_int_equal(port_count(fx->a, TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR),
			 1);
}

/* A miss whose upcall fails is the kernel's NOT_SPECIFIED, without a
 * flow; a full socket (ENOBUFS here, EAGAIN there) is no drop. */
static void
test_dp_failed_upcall(void **state)
{
	struct fixture *fx = *state;
	uint8_t f[FAKE_FRAME_LEN];
	size_t len = fake_frame(f);
	struct dp_stats st;

	__atomic_store_n(&sink_listening, true, __ATOMIC_RELAXED);
	upcall_err = -ECONNREFUSED;
	fake_wire_send("tdr-a", f, len);
	assert_true(wait_sent(1));
	assert_int_equal(sent.reason, TAPDP_DROP_NOT_SPECIFIED);
	assert_null(sent.ufid);
	assert_int_equal(port_count(fx->a, TAPDP_DROP_NOT_SPECIFIED), 1);
	upcall_err = -ENOBUFS;
	fake_wire_send("tdr-a", f, len);
	for (int ms = 0; ms < WAIT_MS; ms++) {
		dp_get_stats(fx->dp, &st);
		if (st.n_lost == 2)
			break;
		poll(NULL, 0, 1);
	}
	assert_int_equal(st.n_lost, 2);
	assert_int_equal(port_count(fx->a, TAPDP_DROP_NOT_SPECIFIED), 1);
	assert_int_equal(__atomic_load_n(&n_sent, __ATOMIC_ACQUIRE), 1);
}

/* The family's messages. */

static struct dp_net *net;

/* The attributes of the tapdp_drop message nlh. */
static void
parse_msg(const struct nlmsghdr *nlh, uint8_t cmd,
	  const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1])
{
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);

	assert_int_equal(nlh->nlmsg_type, FAMILY_ID_DROP);
	assert_int_equal(gh->cmd, cmd);
	assert_int_equal(gh->version, TAPDP_DROP_VERSION);
	assert_int_equal(attr_parse((const char *)gh + GENL_HDRLEN,
				    nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				    NULL, TAPDP_DROP_ATTR_MAX, tb, NULL), 0);
}

static void
test_event_encoding(void **state)
{
	static const uint8_t ufid[16] = { 1, 2, 3, [15] = 16 };
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	uint8_t pkt[300], mem[512];
	struct dp_drop_event ev = {
		.dp_ifindex = 12, .port_no = 3,
		.reason = TAPDP_DROP_OVS_CONNTRACK,
		.ufid = ufid, .ufid_len = 16, .data = pkt, .len = sizeof(pkt),
	};
	struct msgbuf mb;

	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_int_equal(drop_family_event(&mb, &ev), 0);
	parse_msg((const void *)mb.buf, TAPDP_DROP_CMD_EVENT, tb);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_DP_IFINDEX]), 12);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]), 3);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_REASON]), 0x3000a);
	assert_string_equal(attr_data(tb[TAPDP_DROP_ATTR_REASON_NAME]),
			    "OVS_DROP_CONNTRACK");
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_UFID]), 16);
	assert_memory_equal(attr_data(tb[TAPDP_DROP_ATTR_UFID]), ufid, 16);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PACKET_LEN]), 300);
	/* The first bytes only. */
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_PACKET]),
			 TAPDP_DROP_EVENT_SNAPLEN);
	assert_memory_equal(attr_data(tb[TAPDP_DROP_ATTR_PACKET]), pkt,
			    TAPDP_DROP_EVENT_SNAPLEN);
	/* No flow, a short packet: no UFID, the whole packet. */
	ev.ufid = NULL;
	ev.len = 20;
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_int_equal(drop_family_event(&mb, &ev), 0);
	parse_msg((const void *)mb.buf, TAPDP_DROP_CMD_EVENT, tb);
	assert_null(tb[TAPDP_DROP_ATTR_UFID]);
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_PACKET]), 20);
	/* No room: nothing left behind. */
	msgbuf_init(&mb, mem, 64);
	assert_int_equal(drop_family_event(&mb, &ev), -EMSGSIZE);
	assert_int_equal(mb.len, 0);
}

struct seen {
	int n_dp, n_port;
	uint64_t dp_explicit, port1_explicit, port2_any;
};

static uint64_t
count_of(const struct nlattr *counts, uint32_t reason)
{
	const struct nlattr *c, *tb[TAPDP_DROP_ATTR_MAX + 1];
	int rem;

	attr_for_each(c, attr_data(counts), attr_len(counts), rem) {
		assert_int_equal(attr_type(c), TAPDP_DROP_ATTR_COUNT);
		assert_int_equal(attr_parse_nested(c, NULL, TAPDP_DROP_ATTR_MAX,
						   tb, NULL), 0);
		assert_string_equal(
			attr_data(tb[TAPDP_DROP_ATTR_REASON_NAME]),
			drop_reason_name(attr_get_u32(
				tb[TAPDP_DROP_ATTR_REASON])));
		if (attr_get_u32(tb[TAPDP_DROP_ATTR_REASON]) == reason)
			return attr_get_u64(tb[TAPDP_DROP_ATTR_PACKETS]);
	}
	return 0;
}

static void
on_msg(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	struct seen *s = arg;
	const struct nlattr *counts;

	parse_msg(nlh, TAPDP_DROP_CMD_GET, tb);
	if (strcmp(attr_data(tb[TAPDP_DROP_ATTR_DP_NAME]), "tdq0"))
		return;
	counts = tb[TAPDP_DROP_ATTR_COUNTS];
	assert_non_null(counts);
	if (!tb[TAPDP_DROP_ATTR_PORT_NO]) {
		s->n_dp++;
		s->dp_explicit = count_of(counts, TAPDP_DROP_OVS_EXPLICIT);
		return;
	}
	s->n_port++;
	if (attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]) == 1) {
		assert_string_equal(attr_data(tb[TAPDP_DROP_ATTR_PORT_NAME]),
				    "tdq-a");
		s->port1_explicit = count_of(counts, TAPDP_DROP_OVS_EXPLICIT);
	} else if (attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]) == 2) {
		s->port2_any = attr_len(counts);
	}
}

static void
test_get_dump(void **state)
{
	struct fx *f = fx_new(net, NETLINK_GENERIC, false);
	uint32_t pid = 0, pid_a = 5;
	uint8_t frame[FAKE_FRAME_LEN];
	static struct attrs acts;
	struct seen s = { 0 };
	struct datapath *dp;
	struct dp_port *a;

	assert_int_equal(dp_create(net, "tdq0", &pid, 1, &dp), 0);
	assert_int_equal(fake_device_add("tdq-a"), 0);
	assert_int_equal(fake_device_add("tdq-b"), 0);
	assert_int_equal(dp_port_add(dp, 1, OVS_VPORT_TYPE_NETDEV, "tdq-a",
				     NULL, &pid_a, 1, &a), 0);
	assert_int_equal(dp_port_add(dp, 2, OVS_VPORT_TYPE_NETDEV, "tdq-b",
				     NULL, &pid_a, 1, NULL), 0);
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_DROP, 0);
	flow_add(dp, 1, &acts);
	fake_wire_send("tdq-a", frame, fake_frame(frame));
	fake_wire_send("tdq-a", frame, fake_frame(frame));
	fake_wire_send("tdq-a", frame, fake_frame(frame));
	assert_true(wait_port_count(a, TAPDP_DROP_OVS_EXPLICIT, 3));
	/* Anyone may read the counts. */
	req_start(f, FAMILY_ID_DROP, NLM_F_DUMP, TAPDP_DROP_CMD_GET, 0);
	req_end(f);
	assert_true(dump_all(f, on_msg, &s) >= 1);
	assert_int_equal(s.n_dp, 1);
	assert_int_equal(s.n_port, 3);		/* local, 1, 2 */
	assert_int_equal(s.dp_explicit, 3);
	assert_int_equal(s.port1_explicit, 3);
	assert_int_equal(s.port2_any, 0);
	fx_free(f);
	dp_destroy(dp);
	fake_device_del("tdq-a");
	fake_device_del("tdq-b");
}

/* Events carry packets: only CAP_NET_ADMIN joins, as the group says. */
static void
test_join_needs_admin(void **state)
{
	struct fx *user = fx_new(net, NETLINK_GENERIC, false);
	struct fx *admin = fx_new(net, NETLINK_GENERIC, true);

	assert_int_equal(genl_join_check(user->sk, GROUP_DROP), -EPERM);
	assert_int_equal(genl_join_check(admin->sk, GROUP_DROP), 0);
	/* The OVS groups stay open to all, as the kernel's. */
	assert_int_equal(genl_join_check(user->sk, GROUP_DATAPATH), 0);
	assert_false(nlsock_has_listeners(GROUP_DROP));
	assert_int_equal(nlsock_setsockopt(admin->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP, GROUP_DROP),
			 0);
	assert_true(nlsock_has_listeners(GROUP_DROP));
	/* Joining twice is one membership. */
	nlsock_setsockopt(admin->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DROP);
	nlsock_setsockopt(admin->sk, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
			  GROUP_DROP);
	assert_false(nlsock_has_listeners(GROUP_DROP));
	nlsock_setsockopt(admin->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DROP);
	fx_free(admin);		/* leaving with the socket */
	assert_false(nlsock_has_listeners(GROUP_DROP));
	fx_free(user);
}

static int
group_setup(void **state)
{
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.drops = drop_family_sink,
		.port_ops = fake_port_ops,
	};

	rcu_register_thread();
	vport_set_rx_queues(1);
	net = dp_net_new(&cfg);
	nl_serve();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_end();
	dp_net_destroy(net);
	rcu_barrier();
	rcu_unregister_thread();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_table),
		cmocka_unit_test(test_counters_concurrent),
		cmocka_unit_test(test_engine_list_end),
		cmocka_unit_test(test_engine_userspace_and_sample),
		cmocka_unit_test(test_engine_explicit_meter_error),
		cmocka_unit_test(test_engine_ttl),
		cmocka_unit_test(test_engine_recursion_limit),
		cmocka_unit_test_setup_teardown(test_dp_counts_per_port,
						dp_setup, dp_teardown),
		cmocka_unit_test_setup_teardown(test_dp_event, dp_setup,
						dp_teardown),
		cmocka_unit_test_setup_teardown(test_dp_failed_upcall,
						dp_setup, dp_teardown),
		cmocka_unit_test(test_event_encoding),
		cmocka_unit_test(test_get_dump),
		cmocka_unit_test(test_join_needs_admin),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
