/* SPDX-License-Identifier: Apache-2.0 */
/* The meter table's slot rules, which clients can observe. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "datapath/meter.h"

static struct meter *
meter_new(uint32_t id)
{
	struct meter *m = calloc(1, sizeof(*m));

	m->id = id;
	return m;
}

static void
test_attach_lookup_detach(void **state)
{
	struct meter_table t;
	struct meter *m = meter_new(54545401);

	assert_int_equal(meter_table_init(&t), 0);
	assert_int_equal(meter_attach(&t, m), 0);
	assert_ptr_equal(meter_lookup(&t, 54545401), m);
	assert_null(meter_lookup(&t, 54545402));
	assert_int_equal(meter_detach(&t, m), 0);
	assert_null(meter_lookup(&t, 54545401));
	free(m);
	meter_table_destroy(&t);
}

static void
test_same_slot_is_ebusy(void **state)
{
	struct meter_table t;
	struct meter *a = meter_new(1), *b = meter_new(1 + METER_SLOTS_MIN);

	meter_table_init(&t);
	assert_int_equal(meter_attach(&t, a), 0);
	assert_int_equal(meter_attach(&t, b), -EBUSY);
	assert_int_equal(t.count, 1);
	free(b);
	meter_table_destroy(&t);
}

static void
test_grows_and_caps(void **state)
{
	struct meter_table t;
	uint32_t i;

	meter_table_init(&t);
	t.max_meters = 1500;
	for (i = 0; i < 1499; i++)
		assert_int_equal(meter_attach(&t, meter_new(i)), 0);
	assert_int_equal(t.n_slots, 2 * METER_SLOTS_MIN);
	struct meter *extra = meter_new(5000);

	/* The count reaching the cap fails, as the kernel's does. */
	assert_int_equal(meter_attach(&t, extra), -EFBIG);
	free(extra);
	meter_table_destroy(&t);
}

static void
test_zero_rate_band(void **state)
{
	struct meter m = { 0 };

	assert_int_equal(meter_band_init(&m, 0, OVS_METER_BAND_TYPE_DROP, 0,
					 10), -EINVAL);
	assert_int_equal(meter_band_init(&m, 0, OVS_METER_BAND_TYPE_DROP, 100,
					 10), 0);
	assert_int_equal(m.bands[0].bucket, 10000);
	assert_int_equal(m.max_delta_t, 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_lookup_detach),
		cmocka_unit_test(test_same_slot_is_ebusy),
		cmocka_unit_test(test_grows_and_caps),
		cmocka_unit_test(test_zero_rate_band),
	};

	return cmocka_run_group_tests_name("meter", tests, NULL, NULL);
}
