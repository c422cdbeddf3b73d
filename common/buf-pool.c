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

void
buf_pool_put(struct buf_pool *pool, void *buf)
{
	if (!buf)
		return;
	pthread_mutex_lock(&pool->lock);
	*(void **)buf = pool->free;
	pool->free = buf;
	pool->n_free++;
	pthread_mutex_unlock(&pool->lock);
}
