/* SPDX-License-Identifier: Apache-2.0 */
/* Drop reasons: the kernel's numbers for them (include/tapdp/drop-uapi.h),
 * their names as the skb:kfree_skb tracepoint prints them, and counters of
 * packets dropped by reason, kept in per-thread slots so that packet
 * threads never share a cache line, summed when read.
 *
 * Threads: drop_count() from any thread (each adds atomically to the slot
 * it is given: threads past DROP_SLOTS share slots); drop_sum() from any. */
#ifndef TAPDP_DROP_H
#define TAPDP_DROP_H

#include <stdint.h>

#include "include/tapdp/drop-uapi.h"

/* The reasons tapdp gives, densely numbered by drop_reason_index(). */
#define DROP_REASONS	15
#define DROP_SLOTS	16

struct drop_counters {
	struct {
		uint64_t n[DROP_REASONS];
	} __attribute__((aligned(64))) slot[DROP_SLOTS];
};

/* The dense index of a reason, -1 for a number tapdp never gives. */
int drop_reason_index(uint32_t reason);
/* The reason at dense index i (< DROP_REASONS). */
uint32_t drop_reason_at(unsigned i);
/* "OVS_DROP_LAST_ACTION", "NOT_SPECIFIED"...; NULL for an unknown one. */
const char *drop_reason_name(uint32_t reason);

/* NULL without memory; zeroed. Freed with free(). */
struct drop_counters *drop_counters_new(void);
void drop_count(struct drop_counters *c, unsigned slot, uint32_t reason);
/* n[i]: the packets dropped for drop_reason_at(i). */
void drop_sum(const struct drop_counters *c, uint64_t n[DROP_REASONS]);

#endif
