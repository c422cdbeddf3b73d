/* SPDX-License-Identifier: Apache-2.0 */
#include "common/buf-pool.h"

#include <stdlib.h>

void *
buf_pool_get(struct buf_pool *pool)
{
	void *buf;

	pthread_mutex_lock(&pool->lock);
	buf = pool->free;
	if (buf) {
		pool->free = *(void **)buf;
		pool->n_free--;
	}
	pthread_mutex_unlock(&pool->lock);
	if (buf)
		return buf;
	buf = malloc(pool->size);
	if (buf)
		__atomic_fetch_add(&pool->n_made, 1, __ATOMIC_RELAXED);
	return buf;
}

/* Called with the lock held. */
static void
push(struct buf_pool *pool, void *buf)
{
	*(void **)buf = pool->free;
	pool->free = buf;
	pool->n_free++;
}

void
buf_pool_put(struct buf_pool *pool, void *buf)
{
	if (!buf)
		return;
	pthread_mutex_lock(&pool->lock);
	push(pool, buf);
	pthread_mutex_unlock(&pool->lock);
}

void
buf_pool_reserve(struct buf_pool *pool, unsigned n)
{
	pthread_mutex_lock(&pool->lock);
	while (__atomic_load_n(&pool->n_made, __ATOMIC_RELAXED) < n) {
		void *buf = malloc(pool->size);

		if (!buf)
			break;
		__atomic_fetch_add(&pool->n_made, 1, __ATOMIC_RELAXED);
		push(pool, buf);
	}
	pthread_mutex_unlock(&pool->lock);
}

void
buf_pool_stats(struct buf_pool *pool, unsigned *made, unsigned *free)
{
	pthread_mutex_lock(&pool->lock);
	*made = __atomic_load_n(&pool->n_made, __ATOMIC_RELAXED);
	*free = pool->n_free;
	pthread_mutex_unlock(&pool->lock);
}
