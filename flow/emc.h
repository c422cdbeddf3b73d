/* SPDX-License-Identifier: Apache-2.0 */
/* The exact-match stage: a packet thread's cache in front of the megaflow
 * table, from a packet (its hash, input port and recirculation id) to the
 * flow its last packet matched. A hit costs one masked compare of the key,
 * no hashing of a masked key and no probe of the table: it keeps lookups
 * as fast when the traffic spreads over more packet hashes than the mask
 * cache holds (the kernel's cliff, bench/flow-lookup) as when it does not.
 * The kernel has no such stage; OVS's userspace datapath has one (its EMC).
 *
 * An entry is checked, never trusted: it names a flow and the table's
 * epoch when the table gave it, and serves only while the epoch is the
 * same (no flow has left the table since, so the flow is still there and
 * not freed) and the packet's key, masked by the flow's mask, is the
 * flow's key. Statistics read as the kernel's on a mask cache hit: one
 * mask probed, one cache hit. Hits here do not rank the masks
 * (flow_table_rebalance): the ranking orders the scans, which serve what
 * this stage and the mask cache miss.
 *
 * It grows with the traffic: FLOW_EMC_MIN entries at first, doubled up to
 * FLOW_EMC_MAX whenever, over FLOW_EMC_WINDOW lookups that found a flow,
 * more than 1 in 64 missed here with no free entry for it (a miss costs a
 * mask cache probe, or a scan of the masks, a hit a compare); entries move
 * to their new places, none is lost. A quiet port's thread keeps a few
 * pages. The stage is off while the table's mask cache is
 * (OVS_DP_ATTR_MASKS_CACHE_SIZE 0), and for packets without a hash.
 *
 * Threads: each packet thread makes its own and never shares it; lookups
 * inside rcu_read_lock(), as flow_table_lookup(). It may serve several
 * tables. */
#ifndef TAPDP_FLOW_EMC_H
#define TAPDP_FLOW_EMC_H

#include <stdint.h>

#include "flow/key.h"
#include "flow/table.h"

#define FLOW_EMC_MIN		256	/* entries */
#define FLOW_EMC_MAX		8192	/* 256 KiB */
#define FLOW_EMC_WINDOW		256	/* lookups between size decisions */

struct flow_emc;

/* NULL: no memory; a NULL stage is no stage. */
struct flow_emc *flow_emc_new(void);
void flow_emc_free(struct flow_emc *emc);

/* flow_table_lookup() behind the stage, same arguments and answers. */
struct flow *flow_emc_lookup(struct flow_emc *emc, struct flow_table *t,
    struct flow_mask_cache *cache, const struct flow_key *key, uint32_t hash,
    uint32_t *n_mask_hit, uint32_t *n_cache_hit);

/* Entries in use, FLOW_EMC_MIN to FLOW_EMC_MAX. */
uint32_t flow_emc_size(const struct flow_emc *emc);

#endif
