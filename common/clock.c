/* SPDX-License-Identifier: Apache-2.0 */
#include "common/clock.h"

#include <time.h>

static uint64_t fake_ms;		/* atomic; 0: the system's clock */

uint64_t
clock_now_ms(void)
{
	uint64_t ms = __atomic_load_n(&fake_ms, __ATOMIC_RELAXED);
	struct timespec ts;

	if (__builtin_expect(ms != 0, 0))
		return ms;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
clock_fake_set(uint64_t ms)
{
	__atomic_store_n(&fake_ms, ms, __ATOMIC_RELAXED);
}
