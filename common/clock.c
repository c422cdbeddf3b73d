/* SPDX-License-Identifier: Apache-2.0 */
#include "common/clock.h"

uint64_t clock_fake_ms;
__thread uint64_t clock_burst_ms;

void
clock_fake_set(uint64_t ms)
{
	__atomic_store_n(&clock_fake_ms, ms, __ATOMIC_RELAXED);
}
