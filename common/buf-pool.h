/* SPDX-License-Identifier: Apache-2.0 */
/* Pools of large buffers, one size per pool, shared by the threads that
 * handle packets. A thread takes a buffer for the span of one use (a
 * receive burst, an upcall, a GSO frame's segments, a packet's copies)
 * and puts it back, so a pool holds as many buffers as were ever in use
 * at once, about as many as CPUs run packet threads, rather than a set
 * per thread: with a thread per port queue, per-thread buffers grew with
 * the ports, sleeping threads held them, and they appeared whenever a
 * thread first met a kind of packet.
 *
 * A pool grows by one buffer whenever more are in use at once than ever
 * before; buf_pool_reserve() makes the usual number up front (as many as
 * CPUs can use at once), so the footprint is set when the first port
 * starts, not reached by steps over hours as uses happen to coincide.
 *
 * Thread-safety: get, put and reserve from any thread (a mutex, taken once
 * per use). A buffer taken is its taker's until put back, to the pool it
 * came from. A pool keeps its buffers until the process ends. */
#ifndef TAPDP_COMMON_BUF_POOL_H
#define TAPDP_COMMON_BUF_POOL_H

#include <pthread.h>
#include <stddef.h>

struct buf_pool {
	size_t size;			/* of each buffer, >= sizeof(void *) */
	pthread_mutex_t lock;
	void *free;			/* linked through each one's first word */
	unsigned n_made;		/* buffers allocated, taken or free */
	unsigned n_free;
};

#define BUF_POOL_INIT(SIZE) \
	{ .size = (SIZE), .lock = PTHREAD_MUTEX_INITIALIZER }

/* A buffer of pool->size bytes, its contents undefined; NULL without
 * memory. */
void *buf_pool_get(struct buf_pool *pool);
/* Gives buf back; NULL is nothing. */
void buf_pool_put(struct buf_pool *pool, void *buf);
/* Makes buffers, free until taken, until the pool has made n or memory
 * runs out: short of n, the pool grows on use as without a reserve. */
void buf_pool_reserve(struct buf_pool *pool, unsigned n);
/* How many buffers it has made, and how many of them are free: all of
 * them whenever no packet is being handled (tapdpctl status). */
void buf_pool_stats(struct buf_pool *pool, unsigned *made, unsigned *free);

#endif
