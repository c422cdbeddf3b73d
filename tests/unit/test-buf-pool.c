/* SPDX-License-Identifier: Apache-2.0 */
/* common/buf-pool.c: a buffer given back is the next one taken; a pool
 * makes as many buffers as were in use at once, however many threads and
 * uses, or as many as were reserved when more; each is the pool's size,
 * written whole without overlap. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf-pool.h"

static void
test_reuses(void **state)
{
	struct buf_pool pool = BUF_POOL_INIT(4096);
	uint8_t *a, *b, *c;

	a = buf_pool_get(&pool);
	b = buf_pool_get(&pool);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	memset(a, 0xaa, 4096);
	memset(b, 0xbb, 4096);
	assert_int_equal(a[4095], 0xaa);
	assert_int_equal(pool.n_made, 2);
	assert_int_equal(pool.n_free, 0);
	buf_pool_put(&pool, a);
	buf_pool_put(&pool, NULL);
	assert_int_equal(pool.n_free, 1);
	c = buf_pool_get(&pool);
	assert_ptr_equal(c, a);
	buf_pool_put(&pool, b);
	buf_pool_put(&pool, c);
	/* Ten rounds of three at once: three made in all. */
	for (int i = 0; i < 10; i++) {
		void *x = buf_pool_get(&pool), *y = buf_pool_get(&pool),
		     *z = buf_pool_get(&pool);

		buf_pool_put(&pool, y);
		buf_pool_put(&pool, x);
		buf_pool_put(&pool, z);
	}
	assert_int_equal(pool.n_made, 3);
	assert_int_equal(pool.n_free, 3);
	for (unsigned i = 0; i < 3; i++)
		free(buf_pool_get(&pool));
	assert_int_equal(pool.n_free, 0);
}

/* A reserve is made at once and taken before any new buffer; a second
 * reserve counts what the pool made already, taken or free. */
static void
test_reserve(void **state)
{
	struct buf_pool pool = BUF_POOL_INIT(1024);
	void *b[4];

	buf_pool_reserve(&pool, 3);
	assert_int_equal(pool.n_made, 3);
	assert_int_equal(pool.n_free, 3);
	for (int i = 0; i < 3; i++) {
		b[i] = buf_pool_get(&pool);
		assert_non_null(b[i]);
		memset(b[i], i, 1024);
	}
	assert_int_equal(pool.n_made, 3);
	assert_int_equal(pool.n_free, 0);
	b[3] = buf_pool_get(&pool);
	assert_non_null(b[3]);
	assert_int_equal(pool.n_made, 4);
	buf_pool_reserve(&pool, 2);
	assert_int_equal(pool.n_made, 4);
	assert_int_equal(pool.n_free, 0);
	buf_pool_reserve(&pool, 6);
	assert_int_equal(pool.n_made, 6);
	assert_int_equal(pool.n_free, 2);
	for (int i = 0; i < 4; i++)
		buf_pool_put(&pool, b[i]);
	assert_int_equal(pool.n_free, 6);
	while (pool.n_free)
		free(buf_pool_get(&pool));
}

#define THREADS	4
#define ROUNDS	20000

static struct buf_pool shared = BUF_POOL_INIT(256);

/* Takes two buffers at a time, marks them as its own, and checks nobody
 * else wrote them before giving them back. */
static void *
churn(void *arg)
{
	uint8_t mark = (uint8_t)(uintptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		uint8_t *x = buf_pool_get(&shared), *y = buf_pool_get(&shared);

		if (!x || !y)
			return (void *)1;
		memset(x, mark, 256);
		memset(y, mark + 100, 256);
		if (x[0] != mark || x[255] != mark || y[17] != mark + 100)
			return (void *)1;
		buf_pool_put(&shared, y);
		buf_pool_put(&shared, x);
	}
	return NULL;
}

static void
test_threads_bound_it(void **state)
{
	pthread_t t[THREADS];
	void *ret;

	/* Reserved for all threads at once: none made beyond. */
	buf_pool_reserve(&shared, 2 * THREADS);
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn,
						(void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	/* At most two per thread at once, whatever the 160,000 uses. */
	assert_int_equal(shared.n_made, 2 * THREADS);
	assert_int_equal(shared.n_free, shared.n_made);
	while (shared.n_free)
		free(buf_pool_get(&shared));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuses),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_threads_bound_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
