/* SPDX-License-Identifier: Apache-2.0 */
/* common/lfht-fit.c: the size asked for is the power of two at or above
 * the nodes, never below the minimum, and follows the count down. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/lfht-fit.h"

static void
test_grows_and_follows_down(void **state)
{
	struct cds_lfht *ht;
	unsigned long asked = 1024;

	rcu_register_thread();
	ht = cds_lfht_new(1024, 1024, 0, CDS_LFHT_AUTO_RESIZE |
			  CDS_LFHT_ACCOUNTING, NULL);
	assert_non_null(ht);
	lfht_fit(ht, 1000, &asked, 1024);
	assert_int_equal(asked, 1024);
	lfht_fit(ht, 1025, &asked, 1024);
	assert_int_equal(asked, 2048);
	lfht_fit(ht, 300000, &asked, 1024);
	assert_int_equal(asked, 524288);
	/* Above a quarter of it: kept. */
	lfht_fit(ht, 140000, &asked, 1024);
	assert_int_equal(asked, 524288);
	lfht_fit(ht, 5000, &asked, 1024);
	assert_int_equal(asked, 16384);
	lfht_fit(ht, 0, &asked, 1024);
	assert_int_equal(asked, 1024);
	assert_int_equal(cds_lfht_destroy(ht, NULL), 0);
	rcu_unregister_thread();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_and_follows_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
