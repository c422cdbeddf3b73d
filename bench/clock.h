/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic clock, for programs that time themselves: nanoseconds,
 * and seconds. */
#ifndef TAPDP_BENCH_CLOCK_H
#define TAPDP_BENCH_CLOCK_H

#include <time.h>

#include <stdint.h>

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline double
now_s(void)
{
	return now_ns() / 1e9;
}

#endif
