/* SPDX-License-Identifier: Apache-2.0 */
/* A datapath's upcall figures: counted by command and, when lost, by
 * reason; by handler in the order of their first upcall, and past the
 * table's room in the totals only; a miss's wait timed once, by the flow
 * whose key is its packet's, and not when another miss took its slot;
 * the wait buckets' edges. The time is the fake clock's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "datapath/upcall-stats.h"
#include "include/tapdp/ovs-uapi.h"

static struct upcall_figures f;

static void
key_of(struct flow_key *k, uint32_t in_port, uint16_t sport)
{
	memset(k, 0, sizeof(*k));
	k->in_port = in_port;
	k->tp_src = sport;
}

static void
test_counts(void **state)
{
	struct upcall_stats *s = upcall_stats_new();

	assert_non_null(s);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, 0, NULL);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 9, 0, NULL);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, -ENOBUFS, NULL);
	upcall_stats_count(s, OVS_PACKET_CMD_ACTION, 9, -ECONNREFUSED, NULL);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 0, -ENOTCONN, NULL);
	upcall_stats_count(s, OVS_PACKET_CMD_ACTION, 7, -EMSGSIZE, NULL);
	upcall_stats_read(s, &f);
	assert_int_equal(f.miss, 4);
	assert_int_equal(f.action, 2);
	assert_int_equal(f.lost[UPCALL_LOST_FULL], 1);
	assert_int_equal(f.lost[UPCALL_LOST_NO_SOCKET], 2);
	assert_int_equal(f.lost[UPCALL_LOST_OTHER], 1);
	/* Portid 0 is nobody: no handler. */
	assert_int_equal(f.n_handlers, 2);
	assert_int_equal(f.handler[0].portid, 7);
	assert_int_equal(f.handler[0].sent, 1);
	assert_int_equal(f.handler[0].lost, 2);
	assert_int_equal(f.handler[1].portid, 9);
	assert_int_equal(f.handler[1].sent, 1);
	assert_int_equal(f.handler[1].lost, 1);
	upcall_stats_free(s);
}

/* More handlers than there is room for: the first UPCALL_HANDLERS each
 * have their row, in order; the rest count in the totals. */
static void
test_handlers_full(void **state)
{
	struct upcall_stats *s = upcall_stats_new();
	uint64_t sent = 0;

	for (uint32_t p = 1; p <= UPCALL_HANDLERS + 10; p++)
		upcall_stats_count(s, OVS_PACKET_CMD_MISS, p * 1000, 0, NULL);
	upcall_stats_read(s, &f);
	assert_int_equal(f.miss, UPCALL_HANDLERS + 10);
	assert_int_equal(f.n_handlers, UPCALL_HANDLERS);
	for (unsigned i = 0; i < f.n_handlers; i++) {
		assert_int_equal(f.handler[i].portid, (i + 1) * 1000);
		sent += f.handler[i].sent;
	}
	assert_int_equal(sent, UPCALL_HANDLERS);
	upcall_stats_free(s);
}

static void
test_wait(void **state)
{
	struct upcall_stats *s = upcall_stats_new();
	struct flow_key a, b, c;

	key_of(&a, 1, 100);
	key_of(&b, 1, 200);
	key_of(&c, 2, 100);
	clock_fake_set(1000);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, 0, &a);
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, 0, &b);
	/* A lost miss waits for nothing. */
	upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, -ENOBUFS, &c);
	clock_fake_set(1003);
	upcall_stats_installed(s, &a);
	/* Once: the same flow again, or one for a key that missed nothing. */
	upcall_stats_installed(s, &a);
	upcall_stats_installed(s, &c);
	clock_fake_set(1250);
	upcall_stats_installed(s, &b);
	upcall_stats_read(s, &f);
	assert_int_equal(f.wait_n, 2);
	assert_int_equal(f.wait_sum_us, 3000 + 250000);
	assert_int_equal(f.wait_max_us, 250000);
	assert_int_equal(f.wait[upcall_wait_bucket(3000)], 1);
	assert_int_equal(f.wait[upcall_wait_bucket(250000)], 1);
	clock_fake_set(0);
	upcall_stats_free(s);
}

/* A miss whose slot a later miss took is not timed; the later one is. */
static void
test_wait_slot_taken(void **state)
{
	struct upcall_stats *s = upcall_stats_new();
	struct flow_key keys[5000];
	unsigned timed = 0;

	clock_fake_set(5000);
	for (unsigned i = 0; i < 5000; i++) {
		key_of(&keys[i], 3, i);
		upcall_stats_count(s, OVS_PACKET_CMD_MISS, 7, 0, &keys[i]);
	}
	for (unsigned i = 0; i < 5000; i++)
		upcall_stats_installed(s, &keys[i]);
	upcall_stats_read(s, &f);
	timed = f.wait_n;
	/* 5000 keys in 4096 slots: some shared a slot, and the last of each
	 * slot counts. */
	assert_true(timed < 5000 && timed > 2000);
	assert_int_equal(f.wait[0], timed);
	clock_fake_set(0);
	upcall_stats_free(s);
}

static void
test_buckets(void **state)
{
	assert_int_equal(upcall_wait_bucket(0), 0);
	assert_int_equal(upcall_wait_bucket(9), 0);
	assert_int_equal(upcall_wait_bucket(10), 1);
	assert_int_equal(upcall_wait_bucket(99), 1);
	assert_int_equal(upcall_wait_bucket(100), 2);
	assert_int_equal(upcall_wait_bucket(999999), 5);
	assert_int_equal(upcall_wait_bucket(1000000), 6);
	assert_int_equal(upcall_wait_bucket(9999999), 6);
	assert_int_equal(upcall_wait_bucket(10000000), 7);
	assert_int_equal(upcall_wait_bucket(UINT64_MAX), 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_handlers_full),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_wait_slot_taken),
		cmocka_unit_test(test_buckets),
	};

	return cmocka_run_group_tests_name("upcall-stats", tests, NULL, NULL);
}
