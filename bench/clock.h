/* SPDX-License-Identifier: Apache-2.0 */
/* Seconds on the monotonic clock, for programs that time themselves. */
#ifndef TAPDP_BENCH_CLOCK_H
#define TAPDP_BENCH_CLOCK_H

#include <time.h>

static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
