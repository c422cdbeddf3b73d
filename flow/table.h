/* SPDX-License-Identifier: Apache-2.0 */
/* The megaflow table: the flows of a datapath, found by packet keys with the
 * kernel's lookup design (the 2019 "optimize openvswitch flow looking up"
 * series, as in Linux 6.12):
 *
 *  - a flow is a masked key; flows with equal masks share one mask, and a
 *    lookup probes mask after mask: mask the packet key, hash it over the
 *    mask's significant byte range only, look it up;
 *  - masks sit in an array ordered by use: flow_table_rebalance(), called
 *    periodically by the datapath, sorts them by the hits counted since the
 *    previous call, so the busy masks are probed first;
 *  - a per-thread mask cache maps the packet hash to the slot of the mask
 *    that last matched, so most lookups probe a single mask. A hash tries
 *    FLOW_MASK_CACHE_SEGS entries, one per byte of the hash. The cache has
 *    FLOW_MASK_CACHE_DEFAULT entries unless flow_table_set_cache_size()
 *    says otherwise (OVS_DP_ATTR_MASKS_CACHE_SIZE); 0 turns it off.
 *
 * Flows with a UFID are also indexed by it; flows without one are found by
 * their unmasked key (flow_table_lookup_exact), as flow commands do.
 *
 * Ownership: the caller allocates, fills and frees flows; the table links
 * them and owns the masks. A flow removed (or flushed) may still be read by
 * packet threads: flow_table_remove()'s caller frees it after an RCU grace
 * period (call_rcu(&flow->rcu, ...) or synchronize_rcu()); flush and
 * destroy wait for one themselves before calling free_flow.
 *
 * Threads: one writer, the control thread, makes the calls that change or
 * walk the table. Packet threads call flow_table_lookup() (so may the
 * writer), inside rcu_read_lock(), each with a mask cache of its own, made
 * and freed by any thread; they never block, and the writer waits for them
 * only in flush and destroy. Every thread that uses a table, the writer
 * included, is a registered RCU thread (rcu_register_thread()). A flow
 * returned to the writer stays valid until the writer removes it. */
#ifndef TAPDP_FLOW_TABLE_H
#define TAPDP_FLOW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <urcu.h>
#include <urcu/list.h>
#include <urcu/rculfhash.h>

#include "flow/key.h"

#define FLOW_UFID_MAX		16	/* the kernel's MAX_UFID_LENGTH */
#define FLOW_MASK_CACHE_DEFAULT	256	/* entries, the kernel's default */
#define FLOW_MASK_CACHE_MAX	4096	/* what fits in 32 KiB, as the kernel's */
#define FLOW_MASK_CACHE_SEGS	4	/* entries tried per packet hash */

struct flow_mask;			/* a shared mask; private */
struct flow_mask_array;			/* masks in probe order; private */
struct flow_mask_cache;			/* one packet thread's cache */

/* A flow's counters, in memory its owner gives it (datapath/flow-stats.h:
 * a file that outlives the daemon). Packet threads update them with
 * atomics. */
struct flow_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t used_ms;
	uint16_t tcp_flags;
	uint16_t pad[3];
};

struct flow_stats_file;
struct fp_flow;

struct flow {
	/* Private to the table; first, so that a probe reads few lines. */
	struct cds_lfht_node node;	/* by masked key */
	uint32_t hash;			/* of key over the mask's range */

	struct flow_mask *mask;		/* set by insert */
	struct flow_key key;		/* the key & mask, set by insert */
	/* Flows without a UFID: the key as userspace gave it (the owner's
	 * memory); NULL with a UFID, as the kernel keeps it only then. */
	const struct flow_key *unmasked_key;
	uint8_t ufid[FLOW_UFID_MAX];
	uint8_t ufid_len;		/* 0: no UFID */
	void *actions;			/* opaque to the table */

	struct flow_stats *stats;	/* in the owner's file: */
	struct flow_stats_file *stats_file;
	struct fp_flow *fast;		/* the owner's fast path's */

	struct rcu_head rcu;		/* for the owner's call_rcu() */

	/* Private to the table. */
	struct cds_lfht_node ufid_node;
	struct cds_list_head list;	/* every flow, for flush */
};

/* Embedded by its owner; every field is private. */
struct flow_table {
	struct cds_lfht *flows;
	struct cds_lfht *ufids;
	struct flow_mask_array *masks;	/* RCU */
	struct cds_list_head list;
	unsigned count;
	unsigned long flows_asked, ufids_asked;	/* lfht_fit's */
	unsigned n_masks;
	unsigned n_stripes;		/* usage counter copies, a power of 2 */
	uint32_t cache_size;		/* entries of the mask caches in use */
	uint32_t seed;
	uint64_t epoch;			/* see flow_table_epoch() */
};

int flow_table_init(struct flow_table *t);
void flow_table_destroy(struct flow_table *t, void (*free_flow)(struct flow *));

/* Packet path, inside rcu_read_lock(); allocates nothing. 'cache' is the
 * calling thread's (NULL: none, for the writer); 'hash' the packet's hash
 * (0: do not use the cache). Sets *n_mask_hit to the masks probed and
 * *n_cache_hit to 1 when the cached mask matched. The flow is valid until
 * rcu_read_unlock(). */
struct flow *flow_table_lookup(struct flow_table *t,
    struct flow_mask_cache *cache, const struct flow_key *key, uint32_t hash,
    uint32_t *n_mask_hit, uint32_t *n_cache_hit);

/* A packet thread's mask cache, created by the thread (or for it) before
 * its first lookup and freed after its last. It always has room for
 * FLOW_MASK_CACHE_MAX entries and uses as many as the table's current size,
 * so a size change needs nothing from its owner. It may serve several
 * tables, at the cost of misses; it is never shared by two threads. */
struct flow_mask_cache *flow_mask_cache_new(void);
void flow_mask_cache_free(struct flow_mask_cache *cache);

/* For caches of flows (flow/emc.h), inside rcu_read_lock(). The epoch
 * changes whenever a flow leaves the table, to a value no table has had:
 * a flow the table gave after the epoch was read is not freed, nor its
 * mask, while the epoch reads the same. flow_table_matches() tells
 * whether key, masked by m, is f's key; m is f->mask, which a cache keeps
 * beside f so that the two are read at once. */
uint64_t flow_table_epoch(const struct flow_table *t);
bool flow_table_matches(const struct flow *f, const struct flow_mask *m,
    const struct flow_key *key);

/* 0 or a power of 2 up to FLOW_MASK_CACHE_MAX, else -EINVAL. */
int flow_table_set_cache_size(struct flow_table *t, uint32_t size);
uint32_t flow_table_cache_size(const struct flow_table *t);

/* Flow commands. lookup_exact finds the flow without UFID whose unmasked
 * key is 'key', under whichever mask, as the kernel's
 * ovs_flow_tbl_lookup_exact does. */
struct flow *flow_table_lookup_exact(struct flow_table *t,
    const struct flow_key *key);
struct flow *flow_table_lookup_ufid(struct flow_table *t, const uint8_t *ufid,
    size_t len);

/* Sets flow->key and flow->mask, sharing an equal mask or adding one.
 * key is the flow's key as given (the flow keeps key & mask); ufid and
 * ufid_len come from the flow. -EEXIST when the UFID or the masked key
 * under that mask is in the table already, -EINVAL for a UFID longer than
 * FLOW_UFID_MAX, -ENOMEM. The writer's, outside rcu_read_lock(): it
 * may resize the tables (common/lfht-fit.h). */
int flow_table_insert(struct flow_table *t, struct flow *flow,
    const struct flow_key *key, const struct flow_key *mask);
void flow_table_remove(struct flow_table *t, struct flow *flow);
/* The mask of an inserted flow, as given to insert. */
const struct flow_key *flow_table_mask_key(const struct flow *flow);
/* Removes every flow, waits for a grace period, then calls free_flow on
 * each. Not inside rcu_read_lock(). */
void flow_table_flush(struct flow_table *t, void (*free_flow)(struct flow *));

unsigned flow_table_count(const struct flow_table *t);
unsigned flow_table_n_masks(const struct flow_table *t);

/* Orders the masks by their hits since the previous call. */
void flow_table_rebalance(struct flow_table *t);

/* Returns the flow after *cursor (0: the first one) and moves *cursor on;
 * NULL at the end. While the table does not change, successive calls see
 * every flow once; after changes it goes on from where it was (flows
 * added or removed meanwhile may be seen or not), never from the start. */
struct flow *flow_table_dump_next(struct flow_table *t, uint64_t *cursor);

#endif
