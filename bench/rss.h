/* SPDX-License-Identifier: Apache-2.0 */
/* The process's resident memory, for benchmarks that measure memory. */
#ifndef TAPDP_BENCH_RSS_H
#define TAPDP_BENCH_RSS_H

#include <stdio.h>

/* VmRSS in KiB, or -1. */
static inline long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

#endif
