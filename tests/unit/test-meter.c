/* SPDX-License-Identifier: Apache-2.0 */
/* The meter table's slot rules, which clients can observe, and the
 * policing: bucket refill, burst, kbps against pktps, the band with the
 * highest exceeded rate, stats and used time, on the fake clock. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/clock.h"
#include "datapath/meter.h"

#define T0	1000000		/* fake ms; 0 would mean the system's clock */

static int
setup(void **state)
{
	rcu_register_thread();
	return 0;
}

/* Each test starts at T0. */
static int
at_t0(void **state)
{
	clock_fake_set(T0);
	return 0;
}

static int
teardown(void **state)
{
	clock_fake_set(0);
	rcu_barrier();
	rcu_unregister_thread();
	return 0;
}

/* A table holding meter 1 with one drop band; returns the meter. */
static struct meter *
one_band(struct meter_table *t, bool kbps, uint32_t rate, uint32_t burst)
{
	struct meter *m = meter_new(1, kbps, 1);

	assert_non_null(m);
	assert_int_equal(meter_table_init(t), 0);
	assert_int_equal(meter_band_init(m, 0, OVS_METER_BAND_TYPE_DROP, rate,
					 burst), 0);
	assert_int_equal(meter_attach(t, m), 0);
	return m;
}

/* How many of n packets of len bytes, all at the current time, pass. */
static unsigned
passed(struct meter_table *t, unsigned n, uint32_t len)
{
	unsigned ok = 0;

	while (n--)
		ok += !meter_execute(t, 1, len);
	return ok;
}

static void
test_attach_lookup_detach(void **state)
{
	struct meter_table t;
	struct meter *m = meter_new(54545401, false, 0);

	assert_int_equal(meter_table_init(&t), 0);
	assert_int_equal(meter_attach(&t, m), 0);
	assert_ptr_equal(meter_lookup(&t, 54545401), m);
	assert_null(meter_lookup(&t, 54545402));
	assert_int_equal(meter_detach(&t, m), 0);
	assert_null(meter_lookup(&t, 54545401));
	meter_free(m);
	meter_table_destroy(&t);
}

static void
test_same_slot_is_ebusy(void **state)
{
	struct meter_table t;
	struct meter *a = meter_new(1, false, 0);
	struct meter *b = meter_new(1 + METER_SLOTS_MIN, false, 0);

	meter_table_init(&t);
	assert_int_equal(meter_attach(&t, a), 0);
	assert_int_equal(meter_attach(&t, b), -EBUSY);
	assert_int_equal(t.count, 1);
	meter_destroy(b);
	meter_table_destroy(&t);
}

static void
test_grows_and_caps(void **state)
{
	struct meter_table t;
	struct meter *extra;
	uint32_t i;

	meter_table_init(&t);
	t.max_meters = 1500;
	for (i = 0; i < 1499; i++)
		assert_int_equal(meter_attach(&t, meter_new(i, false, 0)), 0);
	assert_int_equal(t.slots->n, 2 * METER_SLOTS_MIN);
	assert_non_null(meter_lookup(&t, 1498));
	extra = meter_new(5000, false, 0);
	/* The count reaching the cap fails, as the kernel's does. */
	assert_int_equal(meter_attach(&t, extra), -EFBIG);
	meter_destroy(extra);
	meter_table_destroy(&t);
}

static void
test_zero_rate_band(void **state)
{
	struct meter *m = meter_new(1, false, 1);

	assert_int_equal(meter_band_init(m, 0, OVS_METER_BAND_TYPE_DROP, 0,
					 10), -EINVAL);
	assert_int_equal(meter_band_init(m, 0, OVS_METER_BAND_TYPE_DROP, 100,
					 10), 0);
	assert_int_equal(m->bands[0].bucket, 10000);
	assert_int_equal(m->max_delta_t, 100);
	meter_destroy(m);
}

static void
test_no_meter_passes(void **state)
{
	struct meter_table t;

	meter_table_init(&t);
	assert_false(meter_execute(&t, 7, 100));
	meter_table_destroy(&t);
}

/* pktps: the bucket starts full with burst packets, and refills rate
 * packets a second, a thousandth of it each ms. */
static void
test_pktps_burst_and_refill(void **state)
{
	struct meter_table t;

	one_band(&t, false, 1000, 10);
	assert_int_equal(passed(&t, 15, 1500), 10);
	clock_fake_set(T0 + 1);
	assert_int_equal(passed(&t, 5, 1500), 1);
	clock_fake_set(T0 + 4);
	assert_int_equal(passed(&t, 5, 1500), 3);
	/* Never more than burst, however long the pause. */
	clock_fake_set(T0 + 60000);
	assert_int_equal(passed(&t, 20, 1500), 10);
	meter_table_destroy(&t);
}

/* A steady flow at twice the rate: half passes. */
static void
test_pktps_steady_rate(void **state)
{
	struct meter_table t;
	unsigned ok = 0;

	one_band(&t, false, 2000, 2000);
	assert_int_equal(passed(&t, 2000, 60), 2000);
	for (unsigned ms = 1; ms <= 1000; ms++) {
		clock_fake_set(T0 + ms);
		ok += passed(&t, 4, 60);
	}
	assert_int_equal(ok, 2000);
	meter_table_destroy(&t);
}

/* kbps: the bucket is in bits, a packet costs its length * 8, so the
 * size of the packets counts and their number does not. */
static void
test_kbps_counts_bits(void **state)
{
	struct meter_table t;

	one_band(&t, true, 1000, 120);	/* 120 kbit: ten 1500-byte frames */
	assert_int_equal(passed(&t, 15, 1500), 10);
	assert_int_equal(passed(&t, 1, 1), 0);
	/* 12 ms at 1000 kbit/s: 12000 bits, one 1500-byte frame or 100
	 * 15-byte ones. */
	clock_fake_set(T0 + 12);
	assert_int_equal(passed(&t, 3, 1500), 1);
	clock_fake_set(T0 + 24);
	assert_int_equal(passed(&t, 150, 15), 100);
	meter_table_destroy(&t);
}

static void
test_stats_and_used(void **state)
{
	struct ovs_flow_stats stats, band;
	struct meter_table t;
	struct meter *m;
	uint64_t used;

	m = one_band(&t, false, 1000, 2);
	meter_read(m, &stats, &band, &used);
	assert_int_equal(used, T0);
	assert_int_equal(stats.n_packets, 0);
	clock_fake_set(T0 + 5000);
	assert_int_equal(passed(&t, 5, 100), 2);
	meter_read(m, &stats, &band, &used);
	assert_int_equal(used, T0 + 5000);
	assert_int_equal(stats.n_packets, 5);
	assert_int_equal(stats.n_bytes, 500);
	assert_int_equal(band.n_packets, 3);
	assert_int_equal(band.n_bytes, 300);
	/* A clock that went back (another thread's reading) refills
	 * nothing, and is the meter's last use. */
	clock_fake_set(T0 + 4000);
	assert_int_equal(passed(&t, 1, 100), 0);
	meter_read(m, &stats, &band, &used);
	assert_int_equal(used, T0 + 4000);
	meter_table_destroy(&t);
}

/* Of the bands a packet exceeds, the one with the highest rate counts it
 * and decides; a band that is not a drop band lets it pass. */
static void
test_highest_exceeded_rate(void **state)
{
	struct ovs_flow_stats stats, band[3];
	struct meter_table t;
	struct meter *m = meter_new(1, false, 3);
	uint64_t used;

	meter_table_init(&t);
	assert_int_equal(meter_band_init(m, 0, OVS_METER_BAND_TYPE_DROP,
					 100, 1), 0);
	assert_int_equal(meter_band_init(m, 1, OVS_METER_BAND_TYPE_UNSPEC,
					 200, 2), 0);
	assert_int_equal(meter_band_init(m, 2, OVS_METER_BAND_TYPE_DROP,
					 300, 3), 0);
	assert_int_equal(m->max_delta_t, 10);
	assert_int_equal(meter_attach(&t, m), 0);
	/* 1st: every band has it. 2nd: band 0 is over. 3rd: 0 and 1 are
	 * over, 1 is the higher and does not drop. 4th: all over, 2 drops. */
	assert_false(meter_execute(&t, 1, 10));
	assert_true(meter_execute(&t, 1, 10));
	assert_false(meter_execute(&t, 1, 10));
	assert_true(meter_execute(&t, 1, 10));
	meter_read(m, &stats, band, &used);
	assert_int_equal(stats.n_packets, 4);
	assert_int_equal(band[0].n_packets, 1);
	assert_int_equal(band[1].n_packets, 1);
	assert_int_equal(band[2].n_packets, 1);
	assert_int_equal(band[2].n_bytes, 10);
	meter_table_destroy(&t);
}

/* A meter replaced while a reader may hold it is freed after a grace
 * period; the table's slot array too when it shrinks. */
static void
test_replace_frees_later(void **state)
{
	struct meter_table t;
	struct meter *old = one_band(&t, false, 10, 10), *m;

	rcu_read_lock();
	assert_ptr_equal(meter_lookup(&t, 1), old);
	m = meter_new(1, false, 1);
	meter_band_init(m, 0, OVS_METER_BAND_TYPE_DROP, 10, 10);
	assert_int_equal(meter_detach(&t, old), 0);
	assert_int_equal(meter_attach(&t, m), 0);
	meter_free(old);
	assert_false(meter_execute(&t, 1, 10));
	rcu_read_unlock();
	meter_table_destroy(&t);
}

#define RACE_PACKETS	100000

static unsigned racing;		/* receive threads still running */

/* A receive thread: meters 1 and 2 by turns, each packet in its own
 * read-side section. */
static void *
race_rx(void *arg)
{
	struct meter_table *t = arg;

	rcu_register_thread();
	for (unsigned i = 0; i < RACE_PACKETS; i++) {
		rcu_read_lock();
		meter_execute(t, 1, 100);
		meter_execute(t, 2, 100);
		rcu_read_unlock();
	}
	__atomic_fetch_sub(&racing, 1, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

/* Two receive threads on one meter count every packet once; a meter the
 * control thread keeps replacing under them (and the slot array, grown
 * and shrunk) is never used after it is freed (ASan). */
static void
test_threads(void **state)
{
	struct ovs_flow_stats stats, band;
	struct meter_table t;
	struct meter *m = one_band(&t, false, 1000, 1000), *old;
	pthread_t rx[2];
	uint64_t used;
	uint32_t id;

	clock_fake_set(0);
	racing = 2;
	for (int i = 0; i < 2; i++)
		pthread_create(&rx[i], NULL, race_rx, &t);
	for (unsigned n = 0;
	     n < 2000 || __atomic_load_n(&racing, __ATOMIC_RELAXED); n++) {
		old = meter_lookup(&t, 2);
		assert_int_equal(meter_detach(&t, old), 0);
		meter_free(old);
		assert_int_equal(meter_attach(&t, meter_new(2, true, 0)), 0);
		/* Past the slots' count and back: resized both ways. */
		if (n % 200 == 0) {
			for (id = 3; id < METER_SLOTS_MIN + 3; id++)
				assert_int_equal(meter_attach(&t,
					meter_new(id, false, 0)), 0);
			for (id = 3; id < METER_SLOTS_MIN + 3; id++) {
				old = meter_lookup(&t, id);
				assert_int_equal(meter_detach(&t, old), 0);
				meter_free(old);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(rx[i], NULL);
	meter_read(m, &stats, &band, &used);
	assert_int_equal(stats.n_packets, 2 * RACE_PACKETS);
	/* At least the full bucket passed. */
	assert_true(band.n_packets <= stats.n_packets - 1000);
	rcu_barrier();
	meter_table_destroy(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_attach_lookup_detach, at_t0),
		cmocka_unit_test_setup(test_same_slot_is_ebusy, at_t0),
		cmocka_unit_test_setup(test_grows_and_caps, at_t0),
		cmocka_unit_test_setup(test_zero_rate_band, at_t0),
		cmocka_unit_test_setup(test_no_meter_passes, at_t0),
		cmocka_unit_test_setup(test_pktps_burst_and_refill, at_t0),
		cmocka_unit_test_setup(test_pktps_steady_rate, at_t0),
		cmocka_unit_test_setup(test_kbps_counts_bits, at_t0),
		cmocka_unit_test_setup(test_stats_and_used, at_t0),
		cmocka_unit_test_setup(test_highest_exceeded_rate, at_t0),
		cmocka_unit_test_setup(test_replace_frees_later, at_t0),
		cmocka_unit_test_setup(test_threads, at_t0),
	};

	return cmocka_run_group_tests_name("meter", tests, setup, teardown);
}
