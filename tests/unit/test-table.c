/* SPDX-License-Identifier: Apache-2.0 */
/* The megaflow table: lookups, masks, UFIDs, dumps, the mask cache, the
 * exact-match stage in front of it (flow/emc.h) and a reader running beside
 * the writer. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flow/emc.h"
#include "flow/table.h"

static unsigned n_freed;

static void
free_flow(struct flow *f)
{
	n_freed++;
	free(f);
}

static void
free_flow_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct flow, rcu));
}

/* Key i matches the flow of mask i only: every mask keeps the first four
 * bytes of eth_dst, where keys differ. */
static struct flow_key
key_of(unsigned i)
{
	struct flow_key k;

	memset(&k, 0, sizeof(k));
	k.in_port = 1;
	k.mac_proto = FLOW_MAC_ETHERNET;
	k.eth_dst[0] = 0x02;
	k.eth_dst[2] = i >> 8;
	k.eth_dst[3] = i;
	k.eth_dst[4] = 0x5a;
	k.eth_dst[5] = 0xa5;
	k.eth_type = htons(0x0800);
	k.ipv4_src = htonl(0x0a000000 | i);
	return k;
}

static struct flow_key
mask_of(unsigned i)
{
	struct flow_key m;

	memset(&m, 0, sizeof(m));
	memset(m.eth_dst, 0xff, 4);
	m.eth_dst[4] = i >> 8;
	m.eth_dst[5] = i;
	return m;
}

static uint32_t
hash_of(unsigned i)
{
	uint32_t h = (i + 1) * 0x9e3779b1u;

	return h ^ h >> 15 ? h ^ h >> 15 : 1;
}

static struct flow *
add(struct flow_table *t, const struct flow_key *key,
    const struct flow_key *mask)
{
	struct flow *f = calloc(1, sizeof(*f) + sizeof(*key));

	assert_non_null(f);
	memcpy(f + 1, key, sizeof(*key));
	f->unmasked_key = (const struct flow_key *)(f + 1);
	assert_int_equal(flow_table_insert(t, f, key, mask), 0);
	return f;
}

static struct flow *
lookup(struct flow_table *t, struct flow_mask_cache *c, unsigned i,
    uint32_t *n_mask_hit, uint32_t *n_cache_hit)
{
	struct flow_key k = key_of(i);
	uint32_t m, h;
	struct flow *f;

	rcu_read_lock();
	f = flow_table_lookup(t, c, &k, c ? hash_of(i) : 0,
	    n_mask_hit ? n_mask_hit : &m, n_cache_hit ? n_cache_hit : &h);
	rcu_read_unlock();
	return f;
}

/* Through the exact-match stage: key k with hash_of(i). */
static struct flow *
emc_lookup(struct flow_emc *emc, struct flow_table *t,
    struct flow_mask_cache *c, const struct flow_key *k, unsigned i,
    uint32_t *n_mask_hit, uint32_t *n_cache_hit)
{
	uint32_t m, h;
	struct flow *f;

	rcu_read_lock();
	f = flow_emc_lookup(emc, t, c, k, hash_of(i),
	    n_mask_hit ? n_mask_hit : &m, n_cache_hit ? n_cache_hit : &h);
	rcu_read_unlock();
	return f;
}

/* A new table of n flows, flow i with key i under mask i % n_masks. */
static void
fill(struct flow_table *t, struct flow **flows, unsigned n, unsigned n_masks)
{
	struct flow_key k, m;
	unsigned i;

	assert_int_equal(flow_table_init(t), 0);
	for (i = 0; i < n; i++) {
		k = key_of(i);
		m = mask_of(i % n_masks);
		flows[i] = add(t, &k, &m);
	}
}

static void
drop(struct flow_table *t, struct flow *f)
{
	flow_table_remove(t, f);
	synchronize_rcu();
	free(f);
}

static void
test_insert_lookup_remove(void **state)
{
	struct flow_key k = key_of(7), m = mask_of(7);
	struct flow_table t;
	uint32_t n_mask_hit, n_cache_hit;
	struct flow *f;

	assert_int_equal(flow_table_init(&t), 0);
	assert_null(lookup(&t, NULL, 7, &n_mask_hit, NULL));
	assert_int_equal(n_mask_hit, 0);
	f = add(&t, &k, &m);
	assert_int_equal(flow_table_count(&t), 1);
	assert_int_equal(flow_table_n_masks(&t), 1);
	assert_non_null(f->mask);
	assert_int_equal(f->key.eth_dst[4], 0x5a & 0);
	assert_int_equal(f->key.eth_dst[5], 0xa5 & 7);
	assert_int_equal(f->key.ipv4_src, 0);
	assert_ptr_equal(lookup(&t, NULL, 7, &n_mask_hit, NULL), f);
	assert_int_equal(n_mask_hit, 1);
	assert_null(lookup(&t, NULL, 8, NULL, NULL));

	/* A packet differing outside the mask still matches. */
	k.ipv4_src = 1;
	k.eth_dst[4] = 0xff;
	rcu_read_lock();
	assert_ptr_equal(flow_table_lookup(&t, NULL, &k, 0, &n_mask_hit,
	    &n_cache_hit), f);
	rcu_read_unlock();

	drop(&t, f);
	assert_int_equal(flow_table_count(&t), 0);
	assert_int_equal(flow_table_n_masks(&t), 0);
	assert_null(lookup(&t, NULL, 7, NULL, NULL));
	flow_table_destroy(&t, free_flow);
}

static void
test_duplicate_is_eexist(void **state)
{
	struct flow_key k = key_of(1), m = mask_of(1);
	struct flow_table t;
	struct flow dup;

	assert_int_equal(flow_table_init(&t), 0);
	add(&t, &k, &m);
	memset(&dup, 0, sizeof(dup));
	k.ipv4_src = 99;	/* masked out: same masked key */
	dup.unmasked_key = &k;
	assert_int_equal(flow_table_insert(&t, &dup, &k, &m), -EEXIST);
	assert_int_equal(flow_table_count(&t), 1);
	assert_int_equal(flow_table_n_masks(&t), 1);
	dup.ufid_len = FLOW_UFID_MAX + 1;
	assert_int_equal(flow_table_insert(&t, &dup, &k, &m), -EINVAL);
	flow_table_destroy(&t, free_flow);
}

static void
test_flows_share_a_mask(void **state)
{
	struct flow_key m = mask_of(3), k1 = key_of(1), k2 = key_of(2);
	struct flow_table t;
	struct flow *f1, *f2;

	assert_int_equal(flow_table_init(&t), 0);
	f1 = add(&t, &k1, &m);
	f2 = add(&t, &k2, &m);
	assert_ptr_equal(f1->mask, f2->mask);
	assert_int_equal(flow_table_n_masks(&t), 1);
	assert_int_equal(flow_table_count(&t), 2);
	assert_ptr_equal(lookup(&t, NULL, 1, NULL, NULL), f1);
	assert_ptr_equal(lookup(&t, NULL, 2, NULL, NULL), f2);
	drop(&t, f1);
	assert_int_equal(flow_table_n_masks(&t), 1);
	assert_ptr_equal(lookup(&t, NULL, 2, NULL, NULL), f2);
	drop(&t, f2);
	assert_int_equal(flow_table_n_masks(&t), 0);
	flow_table_destroy(&t, free_flow);
}

static void
test_distinct_masks(void **state)
{
	struct flow_key k1 = key_of(1), k2 = key_of(2);
	struct flow_key m1 = mask_of(1), m2 = mask_of(2), wild;
	struct flow_table t;
	struct flow *f1, *f2, *fw;
	uint32_t n_mask_hit;

	assert_int_equal(flow_table_init(&t), 0);
	f1 = add(&t, &k1, &m1);
	f2 = add(&t, &k2, &m2);
	assert_ptr_not_equal(f1->mask, f2->mask);
	assert_int_equal(flow_table_n_masks(&t), 2);
	assert_ptr_equal(lookup(&t, NULL, 1, &n_mask_hit, NULL), f1);
	assert_int_equal(n_mask_hit, 1);
	assert_ptr_equal(lookup(&t, NULL, 2, &n_mask_hit, NULL), f2);
	assert_int_equal(n_mask_hit, 2);

	/* The all-wildcard mask matches everything else. */
	memset(&wild, 0, sizeof(wild));
	fw = add(&t, &k1, &wild);
	assert_int_equal(flow_table_n_masks(&t), 3);
	assert_ptr_equal(lookup(&t, NULL, 9, &n_mask_hit, NULL), fw);
	assert_int_equal(n_mask_hit, 3);
	flow_table_destroy(&t, free_flow);
}

static void
test_lookup_exact(void **state)
{
	struct flow_key k = key_of(5), m = mask_of(5), other;
	struct flow_table t;
	struct flow *f, *u;

	assert_int_equal(flow_table_init(&t), 0);
	f = add(&t, &k, &m);
	assert_ptr_equal(flow_table_lookup_exact(&t, &k), f);
	/* Same masked key, another unmasked one: not this flow. */
	other = k;
	other.ipv4_src ^= 1;
	assert_null(flow_table_lookup_exact(&t, &other));

	/* Flows with a UFID are found by it, not by key. */
	u = calloc(1, sizeof(*u));
	assert_non_null(u);
	other = key_of(6);
	u->ufid_len = 16;
	memset(u->ufid, 6, 16);
	assert_int_equal(flow_table_insert(&t, u, &other, &m), 0);
	assert_null(u->unmasked_key);
	assert_null(flow_table_lookup_exact(&t, &other));
	flow_table_destroy(&t, free_flow);
}

static void
test_lookup_ufid(void **state)
{
	static const uint8_t id[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct flow_key m = mask_of(1), k;
	struct flow_table t;
	struct flow *f, dup;

	assert_int_equal(flow_table_init(&t), 0);
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	k = key_of(1);
	memcpy(f->ufid, id, 16);
	f->ufid_len = 16;
	assert_int_equal(flow_table_insert(&t, f, &k, &m), 0);
	assert_ptr_equal(flow_table_lookup_ufid(&t, id, 16), f);
	assert_null(flow_table_lookup_ufid(&t, id, 8));
	assert_null(flow_table_lookup_ufid(&t, id, 0));
	assert_ptr_equal(lookup(&t, NULL, 1, NULL, NULL), f);

	/* The same UFID twice is refused, whatever the key. */
	memset(&dup, 0, sizeof(dup));
	k = key_of(2);
	memcpy(dup.ufid, id, 16);
	dup.ufid_len = 16;
	assert_int_equal(flow_table_insert(&t, &dup, &k, &m), -EEXIST);
	assert_int_equal(flow_table_count(&t), 1);

	drop(&t, f);
	assert_null(flow_table_lookup_ufid(&t, id, 16));
	flow_table_destroy(&t, free_flow);
}

static void
test_flush(void **state)
{
	struct flow_table t;
	struct flow_key k, m;
	unsigned i;

	assert_int_equal(flow_table_init(&t), 0);
	for (i = 0; i < 100; i++) {
		k = key_of(i);
		m = mask_of(i % 10);
		add(&t, &k, &m);
	}
	assert_int_equal(flow_table_count(&t), 100);
	assert_int_equal(flow_table_n_masks(&t), 10);
	n_freed = 0;
	flow_table_flush(&t, free_flow);
	assert_int_equal(n_freed, 100);
	assert_int_equal(flow_table_count(&t), 0);
	assert_int_equal(flow_table_n_masks(&t), 0);
	assert_null(lookup(&t, NULL, 3, NULL, NULL));

	/* The table is still usable. */
	k = key_of(3);
	m = mask_of(3);
	add(&t, &k, &m);
	assert_non_null(lookup(&t, NULL, 3, NULL, NULL));
	n_freed = 0;
	flow_table_destroy(&t, free_flow);
	assert_int_equal(n_freed, 1);
}

enum { N_DUMP = 2000 };

static void
test_dump_sees_every_flow_once(void **state)
{
	static struct flow *flows[N_DUMP];
	static unsigned seen[N_DUMP];
	struct flow_key k, m = mask_of(0);
	struct flow_table t;
	uint64_t cursor = 0;
	struct flow *f;
	unsigned i, n = 0;

	assert_int_equal(flow_table_init(&t), 0);
	for (i = 0; i < N_DUMP; i++) {
		k = key_of(i);
		flows[i] = add(&t, &k, &m);
		flows[i]->actions = &seen[i];
	}
	while ((f = flow_table_dump_next(&t, &cursor))) {
		(*(unsigned *)f->actions)++;
		n++;
	}
	assert_int_equal(n, N_DUMP);
	for (i = 0; i < N_DUMP; i++)
		assert_int_equal(seen[i], 1);
	assert_null(flow_table_dump_next(&t, &cursor));

	/* Removing the flow under the cursor neither restarts the dump nor
	 * skips one. */
	memset(seen, 0, sizeof(seen));
	cursor = 0;
	n = 0;
	while ((f = flow_table_dump_next(&t, &cursor))) {
		(*(unsigned *)f->actions)++;
		if (n++ % 3 == 0) {
			*(unsigned *)f->actions = 1000;
			drop(&t, f);
		}
	}
	assert_int_equal(n, N_DUMP);
	for (i = 0; i < N_DUMP; i++)
		assert_true(seen[i] == 1 || seen[i] == 1000);
	assert_int_equal(flow_table_count(&t), N_DUMP - (N_DUMP + 2) / 3);
	flow_table_destroy(&t, free_flow);
}

enum { N_CACHE = 300 };

static void
test_cache_gives_the_same_answers(void **state)
{
	struct flow_mask_cache *c = flow_mask_cache_new();
	struct flow *flows[N_CACHE], *f;
	uint32_t n_mask_hit, n_cache_hit, hits = 0;
	struct flow_table t;
	struct flow_key k, m;
	unsigned i, pass;

	assert_non_null(c);
	assert_int_equal(flow_table_init(&t), 0);
	assert_int_equal(flow_table_cache_size(&t), FLOW_MASK_CACHE_DEFAULT);
	for (i = 0; i < N_CACHE; i++) {
		k = key_of(i);
		m = mask_of(i);
		flows[i] = add(&t, &k, &m);
	}
	for (pass = 0; pass < 3; pass++) {
		/* Keys past N_CACHE miss, with and without the cache. */
		for (i = 0; i < N_CACHE + 20; i++) {
			f = lookup(&t, NULL, i, NULL, NULL);
			assert_ptr_equal(f, i < N_CACHE ? flows[i] : NULL);
			assert_ptr_equal(lookup(&t, c, i, &n_mask_hit,
			    &n_cache_hit), f);
			if (pass)
				hits += n_cache_hit;
			if (n_cache_hit)
				assert_int_equal(n_mask_hit, 1);
		}
	}
	/* 300 hashes in 256 entries: most, not all, stay cached. */
	assert_true(hits > N_CACHE && hits < 2 * N_CACHE);

	/* With room for all, every second lookup hits the cache. */
	assert_int_equal(flow_table_set_cache_size(&t, FLOW_MASK_CACHE_MAX), 0);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < N_CACHE; i++) {
			assert_ptr_equal(lookup(&t, c, i, &n_mask_hit,
			    &n_cache_hit), flows[i]);
			if (pass) {
				assert_int_equal(n_cache_hit, 1);
				assert_int_equal(n_mask_hit, 1);
			}
		}

	/* A recirculated packet keeps its hash, not its key: both keys
	 * keep their own cache entry. */
	k = key_of(N_CACHE + 20);
	k.recirc_id = 7;
	m = mask_of(N_CACHE + 20);
	m.recirc_id = 0xffffffff;
	f = add(&t, &k, &m);
	for (pass = 0; pass < 2; pass++) {
		rcu_read_lock();
		assert_ptr_equal(flow_table_lookup(&t, c, &k, hash_of(4),
		    &n_mask_hit, &n_cache_hit), f);
		rcu_read_unlock();
		assert_int_equal(n_cache_hit, pass);
		assert_ptr_equal(lookup(&t, c, 4, &n_mask_hit, &n_cache_hit),
		    flows[4]);
		assert_int_equal(n_cache_hit, 1);
	}

	/* Size 0 turns the cache off. */
	assert_int_equal(flow_table_set_cache_size(&t, 0), 0);
	assert_ptr_equal(lookup(&t, c, N_CACHE - 1, &n_mask_hit, &n_cache_hit),
	    flows[N_CACHE - 1]);
	assert_int_equal(n_cache_hit, 0);
	assert_int_equal(n_mask_hit, N_CACHE);
	assert_int_equal(flow_table_set_cache_size(&t, 3), -EINVAL);
	assert_int_equal(flow_table_set_cache_size(&t, 2 * FLOW_MASK_CACHE_MAX),
	    -EINVAL);
	assert_int_equal(flow_table_cache_size(&t), 0);
	flow_table_destroy(&t, free_flow);
	flow_mask_cache_free(c);
}

static void
test_rebalance_orders_by_use(void **state)
{
	struct flow *flows[32];
	struct flow_table t;
	struct flow_key k, m;
	uint32_t n_mask_hit;
	unsigned i, j;

	assert_int_equal(flow_table_init(&t), 0);
	for (i = 0; i < 32; i++) {
		k = key_of(i);
		m = mask_of(i);
		flows[i] = add(&t, &k, &m);
	}
	for (i = 0; i < 100; i++)
		assert_ptr_equal(lookup(&t, NULL, 31, NULL, NULL), flows[31]);
	for (i = 0; i < 50; i++)
		assert_ptr_equal(lookup(&t, NULL, 17, NULL, NULL), flows[17]);
	assert_ptr_equal(lookup(&t, NULL, 31, &n_mask_hit, NULL), flows[31]);
	assert_int_equal(n_mask_hit, 32);

	flow_table_rebalance(&t);
	assert_ptr_equal(lookup(&t, NULL, 31, &n_mask_hit, NULL), flows[31]);
	assert_int_equal(n_mask_hit, 1);
	assert_ptr_equal(lookup(&t, NULL, 17, &n_mask_hit, NULL), flows[17]);
	assert_int_equal(n_mask_hit, 2);
	for (i = 0; i < 32; i++)
		assert_ptr_equal(lookup(&t, NULL, i, NULL, NULL), flows[i]);

	/* The next round counts afresh: mask 0 now leads. */
	for (j = 0; j < 10; j++)
		lookup(&t, NULL, 0, NULL, NULL);
	flow_table_rebalance(&t);
	assert_ptr_equal(lookup(&t, NULL, 0, &n_mask_hit, NULL), flows[0]);
	assert_int_equal(n_mask_hit, 1);
	for (i = 0; i < 32; i++)
		assert_ptr_equal(lookup(&t, NULL, i, NULL, NULL), flows[i]);
	flow_table_destroy(&t, free_flow);
}

enum { N_EMC = 64 };

/* Every answer the table's; the second lookup of a packet one masked
 * compare, counted as a mask cache hit. */
static void
test_emc_gives_the_same_answers(void **state)
{
	struct flow_mask_cache *c = flow_mask_cache_new();
	struct flow_emc *emc = flow_emc_new();
	struct flow *flows[N_EMC], *apart[3];
	uint32_t n_mask_hit, n_cache_hit, hits;
	struct flow_table t;
	struct flow_key k, m;
	unsigned i, pass;

	assert_non_null(c);
	assert_non_null(emc);
	fill(&t, flows, N_EMC, N_EMC);
	/* Without a mask cache a table lookup scans: one mask probed and a
	 * cache hit can only be the stage's. 64 packets in 256 entries, two
	 * tried each: a few may evict each other. */
	for (pass = 0; pass < 3; pass++) {
		for (hits = 0, i = 0; i < N_EMC + 8; i++) {
			k = key_of(i);
			assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, i,
			    &n_mask_hit, &n_cache_hit),
			    i < N_EMC ? flows[i] : NULL);
			hits += n_cache_hit;
			if (i < N_EMC)
				assert_int_equal(n_mask_hit,
				    n_cache_hit ? 1 : i + 1);
		}
		if (pass)
			assert_true(hits >= N_EMC * 9 / 10);
		else
			assert_int_equal(hits, 0);
	}
	assert_int_equal(flow_emc_size(emc), FLOW_EMC_MIN);

	/* The same hash from another port, or recirculated, is another
	 * packet: each gets its own flow, every time. */
	m = mask_of(200);
	m.in_port = m.recirc_id = 0xffffffff;
	for (i = 0; i < 3; i++) {
		k = key_of(200);
		k.in_port = 1 + i % 2;
		k.recirc_id = i / 2 * 9;
		apart[i] = add(&t, &k, &m);
	}
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < 3; i++) {
			k = key_of(200);
			k.in_port = 1 + i % 2;
			k.recirc_id = i / 2 * 9;
			assert_ptr_equal(emc_lookup(emc, &t, c, &k, 3, NULL,
			    NULL), apart[i]);
			assert_ptr_equal(emc_lookup(emc, &t, c, &k, 3, NULL,
			    &n_cache_hit), apart[i]);
			assert_int_equal(n_cache_hit, 1);
		}

	/* A key that shares a packet hash with a cached one but matches
	 * no flow, or another flow, never gets the cached flow. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < N_EMC; i++) {
			k = key_of(i + 1000);
			assert_null(emc_lookup(emc, &t, c, &k, i, NULL, NULL));
			k = key_of((i + 1) % N_EMC);
			assert_ptr_equal(emc_lookup(emc, &t, c, &k, i, NULL,
			    NULL), flows[(i + 1) % N_EMC]);
		}

	/* No hash, or the mask cache turned off: no stage. */
	k = key_of(5);
	assert_ptr_equal(emc_lookup(emc, &t, c, &k, 5, NULL, NULL), flows[5]);
	rcu_read_lock();
	assert_ptr_equal(flow_emc_lookup(emc, &t, c, &k, 0, &n_mask_hit,
	    &n_cache_hit), flows[5]);
	rcu_read_unlock();
	assert_int_equal(n_cache_hit, 0);
	assert_int_equal(flow_table_set_cache_size(&t, 0), 0);
	k = key_of(N_EMC - 1);
	for (pass = 0; pass < 2; pass++) {
		assert_ptr_equal(emc_lookup(emc, &t, c, &k, N_EMC - 1,
		    &n_mask_hit, &n_cache_hit), flows[N_EMC - 1]);
		assert_int_equal(n_cache_hit, 0);
		assert_true(n_mask_hit > 1);
	}
	/* And a NULL stage is none. */
	assert_ptr_equal(emc_lookup(NULL, &t, c, &k, N_EMC - 1, NULL, NULL),
	    flows[N_EMC - 1]);
	flow_table_destroy(&t, free_flow);
	flow_mask_cache_free(c);
	flow_emc_free(emc);
}

/* A flow that left the table is never given again, even from a stage
 * filled before; a flow added beside a cached one changes nothing. Under
 * ASan, a freed flow read here would be reported. */
static void
test_emc_forgets_removed_flows(void **state)
{
	struct flow_emc *emc = flow_emc_new();
	struct flow *flows[N_EMC], *f;
	uint32_t n_cache_hit, hits;
	struct flow_table t, other;
	struct flow_key k, m;
	unsigned i, pass;

	assert_non_null(emc);
	fill(&t, flows, N_EMC, N_EMC);
	assert_int_equal(flow_table_init(&other), 0);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < N_EMC; i++) {
			k = key_of(i);
			assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, i, NULL,
			    NULL), flows[i]);
		}

	/* Removed and freed: a miss. Its neighbours are still found, from
	 * the table, then from the stage again. */
	drop(&t, flows[7]);
	k = key_of(7);
	assert_null(emc_lookup(emc, &t, NULL, &k, 7, NULL, NULL));
	for (pass = 0; pass < 2; pass++) {
		for (hits = 0, i = 0; i < N_EMC; i++) {
			k = key_of(i);
			assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, i, NULL,
			    &n_cache_hit), i == 7 ? NULL : flows[i]);
			hits += n_cache_hit;
		}
		assert_true(pass ? hits >= N_EMC * 9 / 10 : hits == 0);
	}

	/* Put back under a wider mask: the new flow. */
	k = key_of(7);
	m = mask_of(7);
	m.ipv4_src = 0xffffffff;
	flows[7] = add(&t, &k, &m);
	assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, 7, NULL, NULL),
	    flows[7]);

	/* Added beside: the cached flows stay cached. */
	k = key_of(8);
	assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, 8, NULL, NULL),
	    flows[8]);
	k = key_of(500);
	m = mask_of(500);
	add(&t, &k, &m);
	k = key_of(8);
	assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, 8, NULL, &n_cache_hit),
	    flows[8]);
	assert_int_equal(n_cache_hit, 1);

	/* Another table with the same keys: its own flows, both ways. */
	k = key_of(9);
	m = mask_of(9);
	f = add(&other, &k, &m);
	for (pass = 0; pass < 2; pass++) {
		assert_ptr_equal(emc_lookup(emc, &other, NULL, &k, 9, NULL,
		    NULL), f);
		assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, 9, NULL, NULL),
		    flows[9]);
	}
	flow_table_destroy(&other, free_flow);
	assert_ptr_equal(emc_lookup(emc, &t, NULL, &k, 9, NULL, NULL),
	    flows[9]);

	/* Flushed: nothing, and the flows are freed. */
	flow_table_flush(&t, free_flow);
	for (i = 0; i < N_EMC; i++) {
		k = key_of(i);
		assert_null(emc_lookup(emc, &t, NULL, &k, i, NULL, NULL));
	}
	flow_table_destroy(&t, free_flow);
	flow_emc_free(emc);
}

enum { N_EMC_WIDE = 2048 };

/* The stage grows while the traffic spreads over more packets than it
 * holds, up to its limit, and not while the traffic fits. */
static void
test_emc_grows_with_the_traffic(void **state)
{
	struct flow_mask_cache *c = flow_mask_cache_new();
	struct flow_emc *emc = flow_emc_new();
	uint32_t n_cache_hit, hits;
	struct flow *flows[N_EMC_WIDE];
	struct flow_table t;
	struct flow_key k;
	unsigned i, pass;

	assert_non_null(c);
	assert_non_null(emc);
	fill(&t, flows, N_EMC_WIDE, 16);
	/* 64 packets: it stays small. */
	for (pass = 0; pass < 200; pass++)
		for (i = 0; i < N_EMC; i++) {
			k = key_of(i);
			assert_ptr_equal(emc_lookup(emc, &t, c, &k, i, NULL,
			    NULL), flows[i]);
		}
	assert_int_equal(flow_emc_size(emc), FLOW_EMC_MIN);

	/* 2048: it grows until nearly all hit. */
	for (pass = 0; pass < 40; pass++)
		for (i = 0; i < N_EMC_WIDE; i++) {
			k = key_of(i);
			assert_ptr_equal(emc_lookup(emc, &t, c, &k, i, NULL,
			    NULL), flows[i]);
		}
	assert_true(flow_emc_size(emc) >= 2 * N_EMC_WIDE);
	assert_true(flow_emc_size(emc) <= FLOW_EMC_MAX);
	for (hits = 0, i = 0; i < N_EMC_WIDE; i++) {
		k = key_of(i);
		assert_ptr_equal(emc_lookup(emc, &t, c, &k, i, NULL,
		    &n_cache_hit), flows[i]);
		hits += n_cache_hit;
	}
	assert_true(hits >= N_EMC_WIDE * 7 / 8);

	/* Traffic never fitting: it stops at its limit. */
	for (pass = 0; pass < 20; pass++)
		for (i = 0; i < 4 * FLOW_EMC_MAX; i++) {
			k = key_of(i % N_EMC_WIDE);
			emc_lookup(emc, &t, c, &k, i, NULL, NULL);
		}
	assert_int_equal(flow_emc_size(emc), FLOW_EMC_MAX);
	flow_table_destroy(&t, free_flow);
	flow_mask_cache_free(c);
	flow_emc_free(emc);
}

enum { N_MASKS = 1024 };

static void
test_1024_masks(void **state)
{
	static struct flow *flows[N_MASKS];
	struct flow_mask_cache *c = flow_mask_cache_new();
	uint32_t n_mask_hit, n_cache_hit;
	struct flow_table t;
	struct flow_key k, m;
	unsigned i;

	assert_non_null(c);
	assert_int_equal(flow_table_init(&t), 0);
	assert_int_equal(flow_table_set_cache_size(&t, FLOW_MASK_CACHE_MAX), 0);
	for (i = 0; i < N_MASKS; i++) {
		k = key_of(i);
		m = mask_of(i);
		flows[i] = add(&t, &k, &m);
	}
	assert_int_equal(flow_table_n_masks(&t), N_MASKS);
	for (i = 0; i < N_MASKS; i++) {
		assert_ptr_equal(lookup(&t, NULL, i, &n_mask_hit, NULL),
		    flows[i]);
		assert_int_equal(n_mask_hit, i + 1);
		assert_ptr_equal(lookup(&t, c, i, NULL, NULL), flows[i]);
	}
	for (i = 0; i < N_MASKS; i++) {
		assert_ptr_equal(lookup(&t, c, i, &n_mask_hit, &n_cache_hit),
		    flows[i]);
		assert_int_equal(n_cache_hit, 1);
	}
	flow_table_rebalance(&t);

	/* Removing from the front leaves holes, then shrinks the array. */
	for (i = 0; i < N_MASKS - 10; i++) {
		flow_table_remove(&t, flows[i]);
		call_rcu(&flows[i]->rcu, free_flow_rcu);
		if (i % 100 == 0)
			assert_ptr_equal(lookup(&t, c, N_MASKS - 1, NULL, NULL),
			    flows[N_MASKS - 1]);
	}
	assert_int_equal(flow_table_n_masks(&t), 10);
	for (i = N_MASKS - 10; i < N_MASKS; i++) {
		assert_ptr_equal(lookup(&t, NULL, i, &n_mask_hit, NULL),
		    flows[i]);
		assert_true(n_mask_hit <= 10);
		assert_ptr_equal(lookup(&t, c, i, NULL, NULL), flows[i]);
	}
	assert_null(lookup(&t, c, 0, NULL, NULL));
	flow_table_destroy(&t, free_flow);
	flow_mask_cache_free(c);
	rcu_barrier();
}

/* A reader looks up stable flows, which it must always find, and flows the
 * writer keeps adding and removing, which it may or may not find. */
enum { N_STABLE = 8, N_CHURN = 64, ROUNDS = 500 };

struct race {
	struct flow_table t;
	struct flow *stable[N_STABLE];
	int stop;
	unsigned long lookups, missed, wrong;
};

static void *
reader(void *arg)
{
	struct race *r = arg;
	struct flow_mask_cache *c = flow_mask_cache_new();
	struct flow_emc *emc = flow_emc_new();
	struct flow_key k, seen;
	uint32_t n_mask_hit, n_cache_hit;
	struct flow *f;
	unsigned i, j;

	rcu_register_thread();
	for (j = 0; c && emc && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED);
	    j++) {
		i = j % (N_STABLE + N_CHURN);
		k = key_of(i);
		rcu_read_lock();
		/* Without a cache, with the mask cache, through the stage. */
		f = flow_emc_lookup(j % 3 == 2 ? emc : NULL, &r->t,
		    j % 3 ? c : NULL, &k, hash_of(i), &n_mask_hit,
		    &n_cache_hit);
		if (f) {
			/* Read the whole flow: it must not be freed yet. */
			seen = *f->unmasked_key;
			if (memcmp(&seen, &k, sizeof(k)) ||
			    f->mask == NULL || f->key.eth_dst[3] != (uint8_t)i)
				r->wrong++;
		} else if (i < N_STABLE) {
			r->missed++;
		}
		rcu_read_unlock();
		r->lookups++;
	}
	rcu_unregister_thread();
	flow_mask_cache_free(c);
	flow_emc_free(emc);
	return NULL;
}

static void
test_reader_beside_writer(void **state)
{
	static const uint32_t sizes[] = { 256, 0, 4096, 1, 16 };
	struct flow *churn[N_CHURN];
	struct race r = { .stop = 0 };
	struct flow_key k, m;
	pthread_t th;
	unsigned i, round;

	assert_int_equal(flow_table_init(&r.t), 0);
	for (i = 0; i < N_STABLE; i++) {
		k = key_of(i);
		m = mask_of(i);
		r.stable[i] = add(&r.t, &k, &m);
	}
	assert_int_equal(pthread_create(&th, NULL, reader, &r), 0);
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < N_CHURN; i++) {
			k = key_of(N_STABLE + i);
			m = mask_of(N_STABLE + (i + round) % N_CHURN);
			churn[i] = add(&r.t, &k, &m);
		}
		flow_table_rebalance(&r.t);
		assert_int_equal(flow_table_set_cache_size(&r.t,
		    sizes[round % 5]), 0);
		/* Odd ones first, then even ones: holes, then shrinking.
		 * Both ways of waiting for readers before freeing. */
		for (i = 1; i < N_CHURN; i += 2) {
			flow_table_remove(&r.t, churn[i]);
			call_rcu(&churn[i]->rcu, free_flow_rcu);
		}
		for (i = 0; i < N_CHURN; i += 2)
			flow_table_remove(&r.t, churn[i]);
		synchronize_rcu();
		for (i = 0; i < N_CHURN; i += 2)
			free(churn[i]);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	assert_true(r.lookups > 0);
	assert_int_equal(r.missed, 0);
	assert_int_equal(r.wrong, 0);
	assert_int_equal(flow_table_n_masks(&r.t), N_STABLE);
	flow_table_destroy(&r.t, free_flow);
	rcu_barrier();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_lookup_remove),
		cmocka_unit_test(test_duplicate_is_eexist),
		cmocka_unit_test(test_flows_share_a_mask),
		cmocka_unit_test(test_distinct_masks),
		cmocka_unit_test(test_lookup_exact),
		cmocka_unit_test(test_lookup_ufid),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_dump_sees_every_flow_once),
		cmocka_unit_test(test_cache_gives_the_same_answers),
		cmocka_unit_test(test_rebalance_orders_by_use),
		cmocka_unit_test(test_emc_gives_the_same_answers),
		cmocka_unit_test(test_emc_forgets_removed_flows),
		cmocka_unit_test(test_emc_grows_with_the_traffic),
		cmocka_unit_test(test_1024_masks),
		cmocka_unit_test(test_reader_beside_writer),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests_name("table", tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
