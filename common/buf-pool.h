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
 * Thread-safety: get and put from any thread (a mutex, taken once per
 * use). A buffer taken is its taker's until put back, to the pool it came
 * from. A pool keeps its buffers until the process ends. */
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

#endif
