/* SPDX-License-Identifier: Apache-2.0 */
/* Drop reasons: the kernel's numbers and names, the per-thread counters
 * under concurrent packet threads, and the reason the action engine gives
 * at each of the kernel's drop sites. (The datapath's counting is in
 * test-datapath.c, tapdp_drop's messages in test-families.c.) */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "actions/actions.h"
#include "datapath/drop.h"
#include "flow/extract.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "tests/unit/builders.h"

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
static uint32_t outputs[32];		/* the ports, in order */
static bool meter_drops;

static const struct actions_stored *recirc_acts[8];	/* by recirc_id */
static const struct actions_env env;

/* Port 99 loops back into the datapath, as a patch of ports would: the
 * packet runs the list again. */
#define LOOP_PORT	99

static void
env_output(void *ctx, const struct packet *pkt, const struct flow_key *key,
	   uint32_t port)
{
	struct flow_key k2 = *key;
	struct packet p2 = *pkt;

	if (n_outputs < 32)
		outputs[n_outputs] = port;
	n_outputs++;
	if (port == LOOP_PORT)
		actions_execute(&env, &p2, &k2, recirc_acts[0]);
}

static void
env_userspace(void *ctx, const struct packet *pkt, const struct flow_key *key,
	      const struct nlattr *ua, const void *acts, int len)
{
}

/* Runs the list stored for the recirc_id (a list recirculating to its
 * own id loops), as the datapath runs the flow it looks up. */
static void
env_recirc(void *ctx, struct packet *pkt, struct flow_key *key)
{
	n_recircs++;
	assert_true(key->recirc_id < 8 && recirc_acts[key->recirc_id]);
	actions_execute(&env, pkt, key, recirc_acts[key->recirc_id]);
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

/* Runs acts[0] on a UDP frame with TTL ttl, acts[i] being recirc_id
 * i's list (n of them); the drops land in drops[]. */
static void
run_chain(const struct attrs *acts, unsigned n, uint8_t ttl)
{
	static uint8_t buf[4096];
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
	memset(recirc_acts, 0, sizeof(recirc_acts));
	for (unsigned i = 0; i < n; i++)
		recirc_acts[i] = attrs_store_actions(&acts[i], &key);
	actions_execute(&env, &pkt, &key, recirc_acts[0]);
	for (unsigned i = 0; i < n; i++)
		free((void *)recirc_acts[i]);
}

/* acts, recirculating to recirc_id 0 loops back to it. */
static void
run(const struct attrs *acts, uint8_t ttl)
{
	run_chain(acts, 1, ttl);
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

/* A recirculation loop, as the kernel runs it: three recirculations at
 * once (levels 1 to 3), the fourth deferred; each deferred one, run when
 * the first execution ends, recirculates three times and defers one more,
 * until the ninth fills the queue: 3 + 9 * 3 passes, then
 * OVS_DROP_DEFERRED_LIMIT. */
static void
test_engine_recirc_loop(void **state)
{
	static struct attrs a;

	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 0);
	run(&a, 64);
	assert_int_equal(n_recircs, 30);
	assert_drops(1, TAPDP_DROP_OVS_DEFERRED_LIMIT);
}

/* A chain of recirculations longer than the levels (0 -> 1 -> ... -> 5,
 * then out) gets out: the ones past level 3 wait, then run. */
static void
test_engine_recirc_chain(void **state)
{
	static struct attrs a[6];

	for (unsigned i = 0; i < 6; i++) {
		attrs_init(&a[i]);
		if (i < 5)
			msgbuf_put_u32(&a[i].mb, OVS_ACTION_ATTR_RECIRC, i + 1);
		else
			msgbuf_put_u32(&a[i].mb, OVS_ACTION_ATTR_OUTPUT, 2);
	}
	run_chain(a, 6, 64);
	assert_int_equal(n_recircs, 5);
	assert_int_equal(n_outputs, 1);
	assert_drops(0, 0);
}

/* An execution nested 5 deep, through a port that loops back (output is
 * no clone: nothing defers it), drops at the sixth:
 * OVS_DROP_RECURSION_LIMIT. */
static void
test_engine_recursion_limit(void **state)
{
	static struct attrs a;

	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, LOOP_PORT);
	run(&a, 64);
	assert_int_equal(n_outputs, 5);
	assert_drops(1, TAPDP_DROP_OVS_RECURSION_LIMIT);
}

/* [ct_clear, clone(inner), output:port]: a clone that changes its key
 * and is not the last action, so it runs with a key of its own. */
static void
put_clone_level(struct attrs *a, const struct attrs *inner, uint32_t port)
{
	struct nlattr *clone;

	attrs_put(a, OVS_ACTION_ATTR_CT_CLEAR, NULL, 0);
	clone = msgbuf_nest_start(&a->mb, OVS_ACTION_ATTR_CLONE);
	msgbuf_put_raw(&a->mb, attrs_data(inner), attrs_len(inner));
	msgbuf_nest_end(&a->mb, clone);
	msgbuf_put_u32(&a->mb, OVS_ACTION_ATTR_OUTPUT, port);
}

/* Clones nested 4 deep: the kernel runs three levels at once and defers
 * the fourth to the end of the execution, so its output is the last. */
static void
test_engine_clone_depth(void **state)
{
	static const uint32_t order[5] = { 11, 12, 13, 14, 10 };
	static struct attrs a[5];

	/* (A clone whose list cannot change the key never waits.) */
	attrs_init(&a[0]);
	attrs_put(&a[0], OVS_ACTION_ATTR_CT_CLEAR, NULL, 0);
	msgbuf_put_u32(&a[0].mb, OVS_ACTION_ATTR_OUTPUT, 10);
	for (unsigned i = 1; i < 5; i++) {
		attrs_init(&a[i]);
		put_clone_level(&a[i], &a[i - 1], 10 + i);
	}
	run(&a[4], 64);
	assert_int_equal(n_outputs, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(outputs[i], order[i]);
	assert_drops(0, 0);
}

/* Ten clones at the fourth level: nine wait in the queue and leave, the
 * tenth finds it full: OVS_DROP_DEFERRED_LIMIT. */
static void
test_engine_deferred_limit(void **state)
{
	static struct attrs a[4];
	struct nlattr *clone;

	attrs_init(&a[0]);
	for (unsigned i = 0; i < 10; i++) {
		clone = msgbuf_nest_start(&a[0].mb, OVS_ACTION_ATTR_CLONE);
		attrs_put(&a[0], OVS_ACTION_ATTR_CT_CLEAR, NULL, 0);
		msgbuf_put_u32(&a[0].mb, OVS_ACTION_ATTR_OUTPUT, 5);
		msgbuf_nest_end(&a[0].mb, clone);
	}
	msgbuf_put_u32(&a[0].mb, OVS_ACTION_ATTR_OUTPUT, 4);
	for (unsigned i = 1; i < 4; i++) {
		attrs_init(&a[i]);
		put_clone_level(&a[i], &a[i - 1], 4 - i);
	}
	run(&a[3], 64);
	assert_int_equal(n_outputs, 4 + 9);
	assert_int_equal(outputs[0], 4);
	assert_int_equal(outputs[3], 1);
	for (unsigned i = 4; i < 13; i++)
		assert_int_equal(outputs[i], 5);
	assert_drops(1, TAPDP_DROP_OVS_DEFERRED_LIMIT);
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
		cmocka_unit_test(test_engine_recirc_loop),
		cmocka_unit_test(test_engine_recirc_chain),
		cmocka_unit_test(test_engine_recursion_limit),
		cmocka_unit_test(test_engine_clone_depth),
		cmocka_unit_test(test_engine_deferred_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
