/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's clock: monotonic milliseconds for every timeout and every
 * time of last use (connections, fragments, expectations, flows, meters,
 * nlerr's rate limit). It reads CLOCK_MONOTONIC_COARSE: as fine as a
 * scheduler tick (1 to 4 ms, the kernel's jiffies), finer than any of
 * those needs, and read without touching a timer; clock_exact_ms() is
 * for what needs every millisecond (meters), clock_exact_us() for what
 * lasts less (the wait of a miss for its flow).
 *
 * Tests drive it: after clock_fake_set(ms) every reader sees ms, until the
 * next call; clock_fake_set(0) gives the system's clock back. What sleeps
 * (the sweeper's period, the server's timers) keeps the system's time.
 *
 * Thread-safety: clock_now_ms() from any thread; a time set on one thread
 * is seen by the others (relaxed: a test orders the rest itself). A
 * burst (clock_burst_start()) is its thread's alone. */
#ifndef TAPDP_COMMON_CLOCK_H
#define TAPDP_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Inline: conntrack reads it for every packet. */
extern uint64_t clock_fake_ms;		/* atomic; 0: the system's clock */
extern __thread uint64_t clock_burst_ms; /* 0: no burst on this thread */

/* The fake time, else the system's clock by id. */
static inline uint64_t
clock_read_ms(clockid_t id)
{
	uint64_t ms = __atomic_load_n(&clock_fake_ms, __ATOMIC_RELAXED);
	struct timespec ts;

	if (__builtin_expect(ms != 0, 0))
		return ms;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline uint64_t
clock_now_ms(void)
{
	if (clock_burst_ms)
		return clock_burst_ms;
	return clock_read_ms(CLOCK_MONOTONIC_COARSE);
}

/* A burst of packets on this thread reads the clock once: until
 * clock_burst_end(), clock_now_ms() here returns the time at
 * clock_burst_start(), as the kernel's jiffies stand still within a
 * softirq's run. A burst lasts microseconds, a tick milliseconds, so no
 * reader can tell; every packet of it and its connection would otherwise
 * read the clock again. */
static inline void
clock_burst_start(void)
{
	clock_burst_ms = clock_read_ms(CLOCK_MONOTONIC_COARSE);
}

static inline void
clock_burst_end(void)
{
	clock_burst_ms = 0;
}

/* The same clock to the millisecond rather than to the tick
 * (CLOCK_MONOTONIC, as the kernel's ktime_get_ns()): meters refill their
 * buckets every millisecond, as the kernel's do; a tick's worth at once
 * would overflow a small bucket and lose its tokens. The same fake time. */
static inline uint64_t
clock_exact_ms(void)
{
	return clock_read_ms(CLOCK_MONOTONIC);
}

/* The same clock in microseconds, for what lasts less than a millisecond
 * (a miss waiting for its flow); under a fake time, that time's. */
static inline uint64_t
clock_exact_us(void)
{
	uint64_t ms = __atomic_load_n(&clock_fake_ms, __ATOMIC_RELAXED);
	struct timespec ts;

	if (__builtin_expect(ms != 0, 0))
		return ms * 1000;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void clock_fake_set(uint64_t ms);

/* Wall-clock time in units of 100 microseconds, truncated to 32 bits:
 * the timestamp an ERSPAN v2 header carries (the kernel's
 * get_hwtstamp()). It and clock_real_ns() are the only times that are not
 * durations. */
static inline uint32_t
clock_real_100us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 10000 + ts.tv_nsec / 100000);
}

/* Wall-clock time in nanoseconds: a psample's timestamp (the kernel's
 * ktime_get_real()). */
static inline uint64_t
clock_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
