/* SPDX-License-Identifier: Apache-2.0 */
/* Inline rcu_dereference() and friends on the packet path. */
#define URCU_INLINE_SMALL_FUNCTIONS

#include "flow/emc.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

#define EMC_WAYS	2	/* entries tried per packet */
#define EMC_WAY_SHIFT	16	/* hash bits between them: FLOW_EMC_MAX's
				 * index fits in 16 */

struct emc_entry {
	uint32_t hash;			/* 0: free */
	uint64_t epoch;			/* the table's when it gave flow */
	struct flow *flow;
	const struct flow_mask *mask;	/* flow's, read with it */
};

struct flow_emc {
	uint32_t size;			/* entries in use, a power of 2 */
	uint32_t lookups;		/* that found a flow, this window */
	uint32_t missed;		/* of those, not here, no room */
	struct emc_entry entries[FLOW_EMC_MAX];
};

struct flow_emc *
flow_emc_new(void)
{
	/* Pages past size are never touched, so never resident. */
	struct flow_emc *emc = calloc(1, sizeof(*emc));

	if (emc)
		emc->size = FLOW_EMC_MIN;
	return emc;
}

void
flow_emc_free(struct flow_emc *emc)
{
	free(emc);
}

uint32_t
flow_emc_size(const struct flow_emc *emc)
{
	return emc->size;
}

/* Both directions of a connection share a packet hash; the input port
 * sets them apart, the recirculation id a packet's passes. */
static uint32_t
emc_hash(uint32_t hash, const struct flow_key *key)
{
	uint32_t h = hash_2x32(hash ^ key->in_port, key->recirc_id);

	return h ? h : 1;
}

/* Doubles the entries in use; each entry goes where a lookup will look
 * for it, so growing loses none. Entries past size were never used. */
static void
emc_double(struct flow_emc *emc)
{
	uint32_t old = emc->size, mask = 2 * old - 1, p, h;
	struct emc_entry *e;

	for (p = 0; p < old; p++) {
		e = &emc->entries[p];
		h = e->hash;
		if (!h || (h & mask) == p || (h >> EMC_WAY_SHIFT & mask) == p)
			continue;
		emc->entries[p + old] = *e;
		memset(e, 0, sizeof(*e));
	}
	emc->size = 2 * old;
}

static void
emc_grow(struct flow_emc *emc, int missed)
{
	emc->missed += missed;
	if (++emc->lookups < FLOW_EMC_WINDOW)
		return;
	if (emc->missed > FLOW_EMC_WINDOW / 64 && emc->size < FLOW_EMC_MAX)
		emc_double(emc);
	emc->lookups = emc->missed = 0;
}

struct flow *
flow_emc_lookup(struct flow_emc *emc, struct flow_table *t,
    struct flow_mask_cache *cache, const struct flow_key *key, uint32_t hash,
    uint32_t *n_mask_hit, uint32_t *n_cache_hit)
{
	struct emc_entry *e, *victim = NULL;
	uint64_t epoch;
	uint32_t h, pos;
	struct flow *f;
	int way, full;

	if (!emc || !hash || !flow_table_cache_size(t))
		return flow_table_lookup(t, cache, key, hash, n_mask_hit,
		    n_cache_hit);

	/* Before the lookup: a flow the table gives is then in it at
	 * that epoch or later. */
	epoch = flow_table_epoch(t);
	h = emc_hash(hash, key);
	for (pos = h, way = 0; way < EMC_WAYS; way++) {
		e = &emc->entries[pos & (emc->size - 1)];
		if (e->hash == h && e->epoch == epoch &&
		    flow_table_matches(e->flow, e->mask, key)) {
			*n_mask_hit = 1;
			*n_cache_hit = 1;
			f = e->flow;
			emc_grow(emc, 0);	/* may move e */
			return f;
		}
		/* Evict a stale entry first, then the smallest hash. */
		if (!victim || (victim->epoch == epoch &&
		    (e->epoch != epoch || e->hash < victim->hash)))
			victim = e;
		pos >>= EMC_WAY_SHIFT;
	}

	f = flow_table_lookup(t, cache, key, hash, n_mask_hit, n_cache_hit);
	if (f) {
		/* A first miss takes a free or stale entry. Else the larger
		 * hash keeps the place: which packets stay is then stable,
		 * and the mask cache behind serves the others, where always
		 * taking the place would have every packet of a round too
		 * many evict the next. Either way the stage is too small. */
		full = victim->hash && victim->epoch == epoch;
		if (!full || victim->hash < h) {
			victim->hash = h;
			victim->epoch = epoch;
			victim->flow = f;
			victim->mask = f->mask;
		}
		emc_grow(emc, full);
	}
	return f;
}
