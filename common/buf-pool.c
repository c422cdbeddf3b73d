/* SPDX-License-Identifier: Apache-2.0 */
#include "common/buf-pool.h"

#include <stdlib.h>

/* A new buffer, counted; NULL without memory. */
static void *
make(struct buf_pool *pool)
{
	void *buf = malloc(pool->size);

	if (buf)
		__atomic_fetch_add(&pool->n_made, 1, __ATOMIC_RELAXED);
	return buf;
}

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
	return buf ? buf : make(pool);
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
		void *buf = make(pool);

		if (!buf)
			break;
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
