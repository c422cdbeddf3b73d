/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/drop.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	uint32_t reason;
	const char *name;
} reasons[DROP_REASONS] = {
	{ TAPDP_DROP_NOT_SPECIFIED, "NOT_SPECIFIED" },
	{ TAPDP_DROP_DEV_READY, "DEV_READY" },
	{ TAPDP_DROP_NOMEM, "NOMEM" },
	{ TAPDP_DROP_PKT_TOO_BIG, "PKT_TOO_BIG" },
	{ TAPDP_DROP_OVS_LAST_ACTION, "OVS_DROP_LAST_ACTION" },
	{ TAPDP_DROP_OVS_ACTION_ERROR, "OVS_DROP_ACTION_ERROR" },
	{ TAPDP_DROP_OVS_EXPLICIT, "OVS_DROP_EXPLICIT" },
	{ TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR, "OVS_DROP_EXPLICIT_WITH_ERROR" },
	{ TAPDP_DROP_OVS_METER, "OVS_DROP_METER" },
	{ TAPDP_DROP_OVS_RECURSION_LIMIT, "OVS_DROP_RECURSION_LIMIT" },
	{ TAPDP_DROP_OVS_DEFERRED_LIMIT, "OVS_DROP_DEFERRED_LIMIT" },
	{ TAPDP_DROP_OVS_FRAG_L2_TOO_LONG, "OVS_DROP_FRAG_L2_TOO_LONG" },
	{ TAPDP_DROP_OVS_FRAG_INVALID_PROTO, "OVS_DROP_FRAG_INVALID_PROTO" },
	{ TAPDP_DROP_OVS_CONNTRACK, "OVS_DROP_CONNTRACK" },
	{ TAPDP_DROP_OVS_IP_TTL, "OVS_DROP_IP_TTL" },
};

int
drop_reason_index(uint32_t reason)
{
	for (int i = 0; i < DROP_REASONS; i++)
		if (reasons[i].reason == reason)
			return i;
	return -1;
}

uint32_t
drop_reason_at(unsigned i)
{
	return reasons[i].reason;
}

const char *
drop_reason_name(uint32_t reason)
{
	int i = drop_reason_index(reason);

	return i < 0 ? NULL : reasons[i].name;
}

struct drop_counters *
drop_counters_new(void)
{
	struct drop_counters *c = aligned_alloc(_Alignof(struct drop_counters),
						sizeof(*c));

	if (c)
		memset(c, 0, sizeof(*c));
	return c;
}

void
drop_count(struct drop_counters *c, unsigned slot, uint32_t reason)
{
	int i = drop_reason_index(reason);

	if (i >= 0)
		__atomic_fetch_add(&c->slot[slot % DROP_SLOTS].n[i], 1,
				   __ATOMIC_RELAXED);
}

void
drop_sum(const struct drop_counters *c, uint64_t n[DROP_REASONS])
{
	memset(n, 0, DROP_REASONS * sizeof(n[0]));
	for (unsigned s = 0; s < DROP_SLOTS; s++)
		for (unsigned i = 0; i < DROP_REASONS; i++)
			n[i] += __atomic_load_n(&c->slot[s].n[i],
						__ATOMIC_RELAXED);
}
