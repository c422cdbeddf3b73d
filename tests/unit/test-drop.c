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
#include "netlink/attr.h"
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
