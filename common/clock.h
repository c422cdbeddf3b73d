/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's clock: monotonic milliseconds for every timeout and every
 * time of last use (connections, fragments, expectations, flows, meters,
 * nlerr's rate limit). It reads CLOCK_MONOTONIC_COARSE: as fine as a
 * scheduler tick (1 to 4 ms, the kernel's jiffies), finer than any of
 * those needs, and read without touching a timer.
 *
 * Tests drive it: after clock_fake_set(ms) every reader sees ms, until the
 * next call; clock_fake_set(0) gives the system's clock back. What sleeps
 * (the sweeper's period, the server's timers) keeps the system's time.
 *
 * Thread-safety: clock_now_ms() from any thread; a time set on one thread
 * is seen by the others (relaxed: a test orders the rest itself). */
#ifndef TAPDP_COMMON_CLOCK_H
#define TAPDP_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Inline: conntrack reads it for every packet. */
extern uint64_t clock_fake_ms;		/* atomic; 0: the system's clock */

static inline uint64_t
clock_now_ms(void)
{
	uint64_t ms = __atomic_load_n(&clock_fake_ms, __ATOMIC_RELAXED);
	struct timespec ts;

	if (__builtin_expect(ms != 0, 0))
		return ms;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void clock_fake_set(uint64_t ms);

/* Wall-clock time in units of 100 microseconds, truncated to 32 bits:
 * the timestamp an ERSPAN v2 header carries (the kernel's
 * get_hwtstamp()), the one thing that is not a duration. */
static inline uint32_t
clock_real_100us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 10000 + ts.tv_nsec / 100000);
}

#endif
