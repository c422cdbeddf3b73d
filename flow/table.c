/* SPDX-License-Identifier: Apache-2.0 */
/* Inline rcu_dereference() and friends on the packet path; this does not
 * pull in the LGPL read-side code. */
#define URCU_INLINE_SMALL_FUNCTIONS

#include "flow/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "common/hash.h"
#include "common/lfht-fit.h"

#define FLOW_TABLE_BUCKETS	1024	/* hash buckets at first, and at least */
#define FLOW_TABLE_MASKS_MIN	16	/* mask slots at first, and at least */
#define FLOW_TABLE_STRIPES_MAX	64
#define FLOW_MASK_CACHE_SHIFT	8	/* hash bits consumed per segment */
#define CACHE_LINE		64

/* Keys are read and written a word at a time. */
typedef uint64_t __attribute__((may_alias)) flow_word;

/* A probe reads the header and the significant words, which come first
 * and share a line in the usual case. */
struct flow_mask {
	uint16_t start;			/* significant bytes: [start, end), */
	uint16_t end;			/* multiples of 8 */
	uint32_t basis;			/* hash basis: equal masked keys of two
					 * masks land in different chains */
	uint64_t words[sizeof(struct flow_key) / 8];	/* key from start */
	unsigned refcount;		/* flows using it; writer only */
	struct rcu_head rcu;
	struct flow_key key;
};

/* Probe order. Slots are filled and emptied in place, so a mask keeps its
 * slot (and cached slots stay right) until the array is replaced, which
 * only growing, shrinking and rebalancing do. Readers see a mask added or
 * removed or not, never another mask missing. */
struct flow_mask_array {
	struct rcu_head rcu;
	uint32_t max;			/* slots */
	uint32_t n_slots;		/* up to the last used slot; readers
					 * load it with acquire */
	uint32_t stride;		/* counters per stripe, whole lines */
	uint64_t *usage;		/* hits: [stripe * stride + slot] */
	uint64_t *base;			/* hits at the last reset, per slot;
					 * writer only */
	struct flow_mask *masks[];	/* NULL: free */
};

struct flow_mask_cache_entry {
	uint32_t hash;			/* packet hash; 0: free */
	uint32_t slot;
};

struct flow_mask_cache {
	uint32_t stripe;		/* this thread's usage counters */
	struct flow_mask_cache_entry entries[FLOW_MASK_CACHE_MAX];
};

/* What a probe looks for in the masked key table. */
struct flow_probe {
	const struct flow_mask *mask;
	const struct flow_key *key;	/* masked over the mask's range */
};

struct flow_ufid {
	const uint8_t *id;
	size_t len;
};

static uint32_t flow_mask_cache_ids;
static uint64_t flow_table_epochs;	/* the last epoch any table took */

/* A value no table has had: an epoch names one table's state. */
static void
epoch_next(struct flow_table *t)
{
	__atomic_store_n(&t->epoch, __atomic_add_fetch(&flow_table_epochs, 1,
	    __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

static uint32_t
bitrev32(uint32_t x)
{
	x = (x >> 1 & 0x55555555) | (x & 0x55555555) << 1;
	x = (x >> 2 & 0x33333333) | (x & 0x33333333) << 2;
	x = (x >> 4 & 0x0f0f0f0f) | (x & 0x0f0f0f0f) << 4;
	return __builtin_bswap32(x);
}

static const flow_word *
key_words(const struct flow_key *key, unsigned start)
{
	return (const flow_word *)((const char *)key + start);
}

/* Masks key into masked over the mask's range only: the rest is never read. */
static void
mask_range(struct flow_key *masked, const struct flow_key *key,
    const struct flow_mask *m)
{
	const flow_word *k = key_words(key, m->start);
	flow_word *d = (flow_word *)key_words(masked, m->start);
	unsigned i, n = (m->end - m->start) / 8;

	for (i = 0; i < n; i++)
		d[i] = k[i] & m->words[i];
}

static uint32_t
hash_masked(const struct flow_key *masked, const struct flow_mask *m)
{
	return hash_words(key_words(masked, m->start), (m->end - m->start) / 8,
	    m->basis);
}

static struct flow *
flow_of(struct cds_lfht_node *node)
{
	return node ? caa_container_of(node, struct flow, node) : NULL;
}

static int
match_masked(struct cds_lfht_node *node, const void *arg)
{
	const struct flow *f = flow_of(node);
	const struct flow_probe *p = arg;
	const struct flow_mask *m = p->mask;
	const flow_word *a = key_words(&f->key, m->start);
	const flow_word *b = key_words(p->key, m->start);
	unsigned i, n = (m->end - m->start) / 8;

	if (f->mask != m)
		return 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int
match_ufid(struct cds_lfht_node *node, const void *arg)
{
	const struct flow *f = caa_container_of(node, struct flow, ufid_node);
	const struct flow_ufid *u = arg;

	return f->ufid_len == u->len && !memcmp(f->ufid, u->id, u->len);
}

static int
match_any(struct cds_lfht_node *node, const void *arg)
{
	return 1;
}

/* One mask probed: the flow under m whose masked key is key's. */
static struct flow *
probe(struct flow_table *t, const struct flow_key *key,
    const struct flow_mask *m)
{
	struct flow_key masked;
	struct flow_probe p = { m, &masked };
	struct cds_lfht_iter it;

	mask_range(&masked, key, m);
	cds_lfht_lookup(t->flows, hash_masked(&masked, m), match_masked, &p,
	    &it);
	return flow_of(cds_lfht_iter_get_node(&it));
}

static uint32_t
hash_ufid(const struct flow_table *t, const uint8_t *ufid, size_t len)
{
	uint64_t w[FLOW_UFID_MAX / 8] = { 0 };

	memcpy(w, ufid, len);
	return hash_words(w, FLOW_UFID_MAX / 8, t->seed ^ (uint64_t)len << 32);
}

static struct flow *
find_ufid(struct flow_table *t, const uint8_t *id, size_t len)
{
	struct flow_ufid u = { id, len };
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;

	cds_lfht_lookup(t->ufids, hash_ufid(t, id, len), match_ufid, &u, &it);
	node = cds_lfht_iter_get_node(&it);
	return node ? caa_container_of(node, struct flow, ufid_node) : NULL;
}

/* Mask arrays. */

static struct flow_mask_array *
array_alloc(const struct flow_table *t, uint32_t max)
{
	struct flow_mask_array *ma;
	uint32_t stride = (max + 7) & ~7u;
	size_t head, size;

	head = sizeof(*ma) + max * sizeof(ma->masks[0]);
	head = (head + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	size = head + ((size_t)t->n_stripes * stride + max) * sizeof(uint64_t);
	if (posix_memalign((void **)&ma, CACHE_LINE, size))
		return NULL;
	memset(ma, 0, size);
	ma->max = max;
	ma->stride = stride;
	ma->usage = (uint64_t *)((char *)ma + head);
	ma->base = ma->usage + (size_t)t->n_stripes * stride;
	return ma;
}

static void
array_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct flow_mask_array, rcu));
}

static void
mask_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct flow_mask, rcu));
}

static void
array_publish(struct flow_table *t, struct flow_mask_array *ma)
{
	struct flow_mask_array *old = t->masks;

	rcu_assign_pointer(t->masks, ma);
	call_rcu(&old->rcu, array_free_rcu);
}

/* Replaces the array with one of max slots holding its masks, packed. */
static int
array_resize(struct flow_table *t, uint32_t max)
{
	struct flow_mask_array *old = t->masks, *ma;
	uint32_t i;

	if (!(ma = array_alloc(t, max)))
		return -ENOMEM;
	for (i = 0; i < old->n_slots; i++)
		if (old->masks[i])
			ma->masks[ma->n_slots++] = old->masks[i];
	array_publish(t, ma);
	return 0;
}

static uint64_t
slot_hits(const struct flow_table *t, const struct flow_mask_array *ma,
    uint32_t slot)
{
	uint64_t sum = 0;
	unsigned s;

	for (s = 0; s < t->n_stripes; s++)
		sum += __atomic_load_n(&ma->usage[s * ma->stride + slot],
		    __ATOMIC_RELAXED);
	return sum;
}

/* Usage restarts at every change of the masks, so that a new mask is not
 * ranked below old ones for lack of time. Readers keep counting: take a
 * base to subtract instead of zeroing. */
static void
usage_reset(const struct flow_table *t, struct flow_mask_array *ma)
{
	uint32_t i;

	for (i = 0; i < ma->n_slots; i++)
		ma->base[i] = slot_hits(t, ma, i);
}

static void
usage_count(const struct flow_table *t, struct flow_mask_array *ma,
    uint32_t stripe, uint32_t slot)
{
	uint64_t *c = &ma->usage[(stripe & (t->n_stripes - 1)) * ma->stride +
	    slot];

	/* Not atomic: threads sharing a stripe may lose a hit, which a
	 * ranking tolerates. */
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
	    __ATOMIC_RELAXED);
}

static void
mask_init(const struct flow_table *t, struct flow_mask *m,
    const struct flow_key *mask)
{
	const uint8_t *p = (const uint8_t *)mask;
	size_t i, lo = 0, hi = 0;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < sizeof(*mask); i++) {
		if (!p[i])
			continue;
		if (!hi)
			lo = i;
		hi = i + 1;
	}
	m->start = lo & ~(size_t)7;
	m->end = (hi + 7) & ~(size_t)7;
	m->key = *mask;
	memcpy(m->words, key_words(mask, m->start), m->end - m->start);
	m->basis = hash_words(m->words, (m->end - m->start) / 8, t->seed);
}

static struct flow_mask *
mask_find(const struct flow_table *t, const struct flow_mask *want)
{
	const struct flow_mask_array *ma = t->masks;
	struct flow_mask *m;
	uint32_t i;

	for (i = 0; i < ma->n_slots; i++) {
		m = ma->masks[i];
		if (m && m->start == want->start && m->end == want->end &&
		    !memcmp(m->words, want->words, m->end - m->start))
			return m;
	}
	return NULL;
}

/* Puts m in the first free slot, growing the array when there is none. */
static int
mask_add(struct flow_table *t, struct flow_mask *m)
{
	struct flow_mask_array *ma = t->masks;
	uint32_t i;

	for (i = 0; i < ma->n_slots && ma->masks[i]; i++)
		;
	if (i == ma->max) {
		if (array_resize(t, ma->max * 2))
			return -ENOMEM;
		ma = t->masks;
	}
	rcu_assign_pointer(ma->masks[i], m);
	if (i == ma->n_slots)
		__atomic_store_n(&ma->n_slots, i + 1, __ATOMIC_RELEASE);
	t->n_masks++;
	usage_reset(t, ma);
	return 0;
}

static void
mask_put(struct flow_table *t, struct flow_mask *m)
{
	struct flow_mask_array *ma = t->masks;
	uint32_t i, n;

	if (--m->refcount)
		return;
	for (i = 0; ma->masks[i] != m; i++)
		;
	rcu_assign_pointer(ma->masks[i], NULL);
	for (n = ma->n_slots; n && !ma->masks[n - 1]; n--)
		;
	__atomic_store_n(&ma->n_slots, n, __ATOMIC_RELEASE);
	t->n_masks--;
	call_rcu(&m->rcu, mask_free_rcu);

	/* Shrink a mostly empty array; if that fails, the big one serves. */
	if (ma->max >= 2 * FLOW_TABLE_MASKS_MIN && t->n_masks <= ma->max / 3 &&
	    !array_resize(t, ma->max / 2))
		return;
	usage_reset(t, ma);
}

/* The table. */

int
flow_table_init(struct flow_table *t)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int flags = CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING;

	memset(t, 0, sizeof(*t));
	for (t->n_stripes = 1; t->n_stripes < ncpu &&
	    t->n_stripes < FLOW_TABLE_STRIPES_MAX; t->n_stripes *= 2)
		;
	/* A seed per table, so that chains are not predictable. */
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) < 0)
		t->seed = (uint32_t)(uintptr_t)t;
	t->cache_size = FLOW_MASK_CACHE_DEFAULT;
	epoch_next(t);
	CDS_INIT_LIST_HEAD(&t->list);
	t->flows_asked = t->ufids_asked = FLOW_TABLE_BUCKETS;
	t->flows = cds_lfht_new(FLOW_TABLE_BUCKETS, FLOW_TABLE_BUCKETS, 0,
	    flags, NULL);
	t->ufids = cds_lfht_new(FLOW_TABLE_BUCKETS, FLOW_TABLE_BUCKETS, 0,
	    flags, NULL);
	t->masks = array_alloc(t, FLOW_TABLE_MASKS_MIN);
	if (!t->flows || !t->ufids || !t->masks) {
		if (t->flows)
			cds_lfht_destroy(t->flows, NULL);
		if (t->ufids)
			cds_lfht_destroy(t->ufids, NULL);
		free(t->masks);
		return -ENOMEM;
	}
	return 0;
}

void
flow_table_destroy(struct flow_table *t, void (*free_flow)(struct flow *))
{
	flow_table_flush(t, free_flow);
	cds_lfht_destroy(t->flows, NULL);
	cds_lfht_destroy(t->ufids, NULL);
	free(t->masks);
}

/* Probes the masks of ma, the one in *slot first, and on a match leaves
 * its slot in *slot: the caller sees whether its hint was right. */
static struct flow *
scan(struct flow_table *t, struct flow_mask_array *ma,
    const struct flow_key *key, uint32_t stripe, uint32_t *slot,
    uint32_t *n_mask_hit)
{
	uint32_t i, n = __atomic_load_n(&ma->n_slots, __ATOMIC_ACQUIRE);
	struct flow_mask *m;
	struct flow *f;

	if (*slot < n && (m = rcu_dereference(ma->masks[*slot]))) {
		(*n_mask_hit)++;
		if ((f = probe(t, key, m))) {
			usage_count(t, ma, stripe, *slot);
			return f;
		}
	}
	for (i = 0; i < n; i++) {
		if (i == *slot || !(m = rcu_dereference(ma->masks[i])))
			continue;
		(*n_mask_hit)++;
		if ((f = probe(t, key, m))) {
			usage_count(t, ma, stripe, i);
			*slot = i;
			return f;
		}
	}
	return NULL;
}

struct flow *
flow_table_lookup(struct flow_table *t, struct flow_mask_cache *cache,
    const struct flow_key *key, uint32_t hash, uint32_t *n_mask_hit,
    uint32_t *n_cache_hit)
{
	struct flow_mask_array *ma = rcu_dereference(t->masks);
	struct flow_mask_cache_entry *e, *victim = NULL;
	uint32_t size, h, hint, slot = 0;
	struct flow *f;
	int seg;

	*n_mask_hit = 0;
	*n_cache_hit = 0;
	size = cache ? __atomic_load_n(&t->cache_size, __ATOMIC_RELAXED) : 0;
	if (!hash || !size)
		return scan(t, ma, key, cache ? cache->stripe : 0, &slot,
		    n_mask_hit);

	/* A packet keeps its hash across recirculation, its key does not. */
	if (key->recirc_id)
		hash = hash_2x32(hash, key->recirc_id);

	for (h = hash, seg = 0; seg < FLOW_MASK_CACHE_SEGS; seg++) {
		e = &cache->entries[h & (size - 1)];
		if (e->hash == hash) {
			hint = e->slot;
			f = scan(t, ma, key, cache->stripe, &e->slot,
			    n_mask_hit);
			if (!f)
				e->hash = 0;
			else if (e->slot == hint)
				*n_cache_hit = 1;
			return f;
		}
		/* Evict the smallest hash: free entries (0) first. */
		if (!victim || e->hash < victim->hash)
			victim = e;
		h >>= FLOW_MASK_CACHE_SHIFT;
	}
	if ((f = scan(t, ma, key, cache->stripe, &victim->slot, n_mask_hit)))
		victim->hash = hash;
	return f;
}

struct flow_mask_cache *
flow_mask_cache_new(void)
{
	struct flow_mask_cache *cache = calloc(1, sizeof(*cache));

	if (cache)
		cache->stripe = __atomic_fetch_add(&flow_mask_cache_ids, 1,
		    __ATOMIC_RELAXED);
	return cache;
}

void
flow_mask_cache_free(struct flow_mask_cache *cache)
{
	free(cache);
}

int
flow_table_set_cache_size(struct flow_table *t, uint32_t size)
{
	if (size > FLOW_MASK_CACHE_MAX || (size & (size - 1)))
		return -EINVAL;
	__atomic_store_n(&t->cache_size, size, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
flow_table_cache_size(const struct flow_table *t)
{
	return __atomic_load_n(&t->cache_size, __ATOMIC_RELAXED);
}

uint64_t
flow_table_epoch(const struct flow_table *t)
{
	return __atomic_load_n(&t->epoch, __ATOMIC_ACQUIRE);
}

bool
flow_table_matches(const struct flow *f, const struct flow_mask *m,
    const struct flow_key *key)
{
	const flow_word *a = key_words(&f->key, m->start);
	const flow_word *k = key_words(key, m->start);
	unsigned i, n = (m->end - m->start) / 8;

	for (i = 0; i < n; i++)
		if ((k[i] & m->words[i]) != a[i])
			return false;
	return true;
}

struct flow *
flow_table_lookup_exact(struct flow_table *t, const struct flow_key *key)
{
	struct flow_mask_array *ma = t->masks;
	struct flow *f = NULL;
	uint32_t i;

	rcu_read_lock();
	for (i = 0; i < ma->n_slots; i++) {
		if (!ma->masks[i])
			continue;
		f = probe(t, key, ma->masks[i]);
		if (f && !f->ufid_len && f->unmasked_key &&
		    !memcmp(f->unmasked_key, key, sizeof(*key)))
			break;
		f = NULL;
	}
	rcu_read_unlock();
	return f;
}

struct flow *
flow_table_lookup_ufid(struct flow_table *t, const uint8_t *ufid, size_t len)
{
	struct flow *f;

	if (!len || len > FLOW_UFID_MAX)
		return NULL;
	rcu_read_lock();
	f = find_ufid(t, ufid, len);
	rcu_read_unlock();
	return f;
}

int
flow_table_insert(struct flow_table *t, struct flow *flow,
    const struct flow_key *key, const struct flow_key *mask)
{
	const flow_word *k = key_words(key, 0);
	const flow_word *mk = key_words(mask, 0);
	flow_word *d = (flow_word *)key_words(&flow->key, 0);
	struct flow_mask want, *m;
	size_t i;
	int err = 0;

	if (flow->ufid_len > FLOW_UFID_MAX)
		return -EINVAL;
	for (i = 0; i < sizeof(flow->key) / 8; i++)
		d[i] = k[i] & mk[i];
	mask_init(t, &want, mask);

	rcu_read_lock();
	if (flow->ufid_len && find_ufid(t, flow->ufid, flow->ufid_len)) {
		err = -EEXIST;
		goto out;
	}
	if ((m = mask_find(t, &want))) {
		if (probe(t, &flow->key, m)) {
			err = -EEXIST;
			goto out;
		}
	} else {
		if (posix_memalign((void **)&m, CACHE_LINE, sizeof(*m))) {
			err = -ENOMEM;
			goto out;
		}
		*m = want;
		if ((err = mask_add(t, m))) {
			free(m);
			goto out;
		}
	}
	m->refcount++;
	flow->mask = m;
	flow->hash = hash_masked(&flow->key, m);
	cds_lfht_node_init(&flow->node);
	cds_lfht_add(t->flows, flow->hash, &flow->node);
	if (flow->ufid_len) {
		cds_lfht_node_init(&flow->ufid_node);
		cds_lfht_add(t->ufids, hash_ufid(t, flow->ufid, flow->ufid_len),
		    &flow->ufid_node);
	}
	cds_list_add_tail(&flow->list, &t->list);
	t->count++;
out:
	rcu_read_unlock();
	if (!err) {
		lfht_fit(t->flows, t->count, &t->flows_asked,
			 FLOW_TABLE_BUCKETS);
		lfht_fit(t->ufids, t->count, &t->ufids_asked,
			 FLOW_TABLE_BUCKETS);
	}
	return err;
}

/* Unlinks a flow from the hash tables and drops its mask. */
static void
unhash(struct flow_table *t, struct flow *flow)
{
	cds_lfht_del(t->flows, &flow->node);
	if (flow->ufid_len)
		cds_lfht_del(t->ufids, &flow->ufid_node);
	epoch_next(t);
	mask_put(t, flow->mask);
	t->count--;
}

void
flow_table_remove(struct flow_table *t, struct flow *flow)
{
	rcu_read_lock();
	unhash(t, flow);
	rcu_read_unlock();
	cds_list_del(&flow->list);
}

const struct flow_key *
flow_table_mask_key(const struct flow *flow)
{
	return &flow->mask->key;
}

void
flow_table_flush(struct flow_table *t, void (*free_flow)(struct flow *))
{
	struct flow *f, *next;
	CDS_LIST_HEAD(dead);

	cds_list_splice(&t->list, &dead);
	CDS_INIT_LIST_HEAD(&t->list);
	rcu_read_lock();
	cds_list_for_each_entry(f, &dead, list)
		unhash(t, f);
	rcu_read_unlock();
	synchronize_rcu();
	cds_list_for_each_entry_safe(f, next, &dead, list)
		free_flow(f);
}

unsigned
flow_table_count(const struct flow_table *t)
{
	return t->count;
}

unsigned
flow_table_n_masks(const struct flow_table *t)
{
	return t->n_masks;
}

struct mask_rank {
	uint64_t hits;
	uint32_t slot;
};

static int
rank_cmp(const void *a, const void *b)
{
	const struct mask_rank *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

void
flow_table_rebalance(struct flow_table *t)
{
	struct flow_mask_array *ma = t->masks, *sorted;
	struct mask_rank *rank;
	uint32_t i, n = 0;
	uint64_t hits;

	if (!t->n_masks || !(rank = malloc(t->n_masks * sizeof(*rank))))
		return;
	for (i = 0; i < ma->n_slots; i++) {
		if (!ma->masks[i])
			continue;
		hits = slot_hits(t, ma, i);
		rank[n].hits = hits - ma->base[i];
		rank[n++].slot = i;
		ma->base[i] = hits;
	}
	qsort(rank, n, sizeof(*rank), rank_cmp);
	for (i = 0; i < n && rank[i].slot == i; i++)
		;
	/* Replace the array only if the order changes or slots are free. */
	if ((i < n || n < ma->n_slots) && (sorted = array_alloc(t, ma->max))) {
		for (i = 0; i < n; i++)
			sorted->masks[i] = ma->masks[rank[i].slot];
		sorted->n_slots = n;
		array_publish(t, sorted);
	}
	free(rank);
}

/* A dump resumes after the flow it returned last. The flows are ordered by
 * their bit-reversed hash (the split order of cds_lfht), so the cursor is
 * that flow's hash and how many flows of that hash were returned. */
struct flow *
flow_table_dump_next(struct flow_table *t, uint64_t *cursor)
{
	uint32_t hash = *cursor >> 32, seen = (uint32_t)*cursor, n = 0;
	struct cds_lfht_node *node;
	struct cds_lfht_iter it;
	struct flow *f = NULL;

	rcu_read_lock();
	if (!seen) {
		cds_lfht_first(t->flows, &it);
	} else {
		cds_lfht_lookup(t->flows, hash, match_any, NULL, &it);
		if (!cds_lfht_iter_get_node(&it)) {
			/* Gone: go on from the first flow after it. */
			for (cds_lfht_first(t->flows, &it);
			    (node = cds_lfht_iter_get_node(&it)) &&
			    bitrev32(flow_of(node)->hash) <= bitrev32(hash);
			    cds_lfht_next(t->flows, &it))
				;
		}
		for (; n < seen && (node = cds_lfht_iter_get_node(&it)) &&
		    flow_of(node)->hash == hash; n++)
			cds_lfht_next(t->flows, &it);
	}
	if ((node = cds_lfht_iter_get_node(&it))) {
		f = flow_of(node);
		if (seen && f->hash == hash)
			*cursor = (uint64_t)hash << 32 | (n + 1);
		else
			*cursor = (uint64_t)f->hash << 32 | 1;
	}
	rcu_read_unlock();
	return f;
}
