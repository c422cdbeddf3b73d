/* SPDX-License-Identifier: Apache-2.0 */
/* Megaflow lookups per second on hits, with 1 to 1024 masks. Every case
 * holds the same FLOWS flows, spread over its masks (each mask a distinct
 * Ethernet destination mask), so that only the number of masks changes;
 * the traffic cycles over ACTIVE of the flows (the connections in flight,
 * fewer than the mask cache holds), each with its own nonzero packet hash,
 * spread over all the masks.
 *
 * The baseline is the same table probed as before the kernel's 2019 series:
 * no mask cache and masks in insertion order (no rebalance is ever run), so
 * that a lookup masks, hashes and looks up mask after mask until one hits.
 * The table is measured with the kernel's default cache (256 entries) and
 * with the largest (4096): a cache smaller than the set of packet hashes in
 * flight misses, and a miss costs a scan.
 *
 * A last row shows what happens past the cache: 256 masks, the traffic
 * cycling over all FLOWS flows, more packet hashes than cache entries.
 *
 * Each figure is the best of REPEAT short runs, and the runs of all cases
 * take turns, so that other load on the machine weighs on every case alike
 * rather than on the ones that happened to run during it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/clock.h"
#include "flow/table.h"

#define RUN_NS		20000000ULL	/* per run */
#define REPEAT		7		/* runs per case */
#define BATCH		1024		/* lookups between clock reads */

#define FLOWS		1024		/* in every case */
#define ACTIVE		64		/* flows the traffic hits */

enum { N_SIZES = 5, N_CASES = 3 };
enum { S_1 = 0, S_256 = 2, THRASH = 4 };	/* rows */

static const unsigned n_masks[N_SIZES] = { 1, 16, 256, 1024, 256 };
static const char *const case_name[N_CASES] = {
	"linear scan", "table, cache 256", "table, cache 4096",
};
static const uint32_t case_cache[N_CASES] = {
	0, FLOW_MASK_CACHE_DEFAULT, FLOW_MASK_CACHE_MAX,
};

struct bench {
	struct flow_table t;
	struct flow_mask_cache *cache;
	unsigned n;			/* keys the traffic cycles over */
	unsigned next;			/* key to look up next */
	struct flow_key *keys;
	uint32_t *hashes;
	struct flow **flows;
};

struct result {
	double ns;			/* per lookup */
	double probes;			/* masks probed per lookup */
	double cached;			/* share of cache hits */
};

static uint32_t
rnd(void)
{
	static uint64_t s = 0x853c49e6748fea9bULL;

	s = s * 6364136223846793005ULL + 1442695040888963407ULL;
	return s >> 32;
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

/* Flow i is matched by key i only: every mask keeps the bytes of eth_dst
 * where the keys differ, plus bits of its own (mask i % masks) in the last
 * two. The traffic's keys are spread over the flows and their masks. */
static void
bench_init(struct bench *b, unsigned masks, unsigned n)
{
	struct flow_key mask, *k;
	unsigned i, m;

	b->n = n;
	b->next = 0;
	b->keys = xcalloc(FLOWS, sizeof(*b->keys));
	b->hashes = xcalloc(FLOWS, sizeof(*b->hashes));
	b->flows = xcalloc(FLOWS, sizeof(*b->flows));
	if (flow_table_init(&b->t) || !(b->cache = flow_mask_cache_new())) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (i = 0; i < FLOWS; i++) {
		k = &b->keys[i];
		k->in_port = 1 + i % 4;
		k->mac_proto = FLOW_MAC_ETHERNET;
		k->eth_src[0] = 0x02;
		k->eth_src[5] = rnd();
		k->eth_dst[0] = 0x02;
		k->eth_dst[2] = i >> 8;
		k->eth_dst[3] = i;
		k->eth_dst[4] = rnd();
		k->eth_dst[5] = rnd();
		k->eth_type = htons(0x0800);
		k->ip_proto = 6;
		k->ip_ttl = 64;
		k->ipv4_src = rnd();
		k->ipv4_dst = rnd();
		k->tp_src = rnd();
		k->tp_dst = htons(80);
		while (!(b->hashes[i] = rnd()))
			;

		m = i % masks;
		memset(&mask, 0, sizeof(mask));
		memset(mask.eth_dst, 0xff, 4);
		mask.eth_dst[4] = m >> 8;
		mask.eth_dst[5] = m;
		b->flows[i] = xcalloc(1, sizeof(*b->flows[i]));
		if (flow_table_insert(&b->t, b->flows[i], k, &mask)) {
			fprintf(stderr, "insert %u failed\n", i);
			exit(1);
		}
	}
}

static void
free_flow(struct flow *f)
{
	free(f);
}

static void
bench_destroy(struct bench *b)
{
	flow_table_destroy(&b->t, free_flow);
	flow_mask_cache_free(b->cache);
	free(b->keys);
	free(b->hashes);
	free(b->flows);
}

/* count lookups of the keys in turn; each must hit its own flow. One
 * read-side section per call, whatever the number of keys. */
static void
run(struct bench *b, struct flow_mask_cache *c, uint64_t count,
    uint64_t *probes, uint64_t *cached)
{
	uint32_t n_mask_hit, n_cache_hit;
	uint64_t done;
	unsigned i;

	rcu_read_lock();
	for (done = 0; done < count; done++) {
		/* Every stride-th flow, shifted so the masks vary too. */
		i = b->next * (FLOWS / b->n) + b->next % (FLOWS / b->n);
		b->next = b->next + 1 == b->n ? 0 : b->next + 1;
		if (flow_table_lookup(&b->t, c, &b->keys[i],
		    c ? b->hashes[i] : 0, &n_mask_hit, &n_cache_hit) !=
		    b->flows[i]) {
			fprintf(stderr, "key %u: wrong flow\n", i);
			exit(1);
		}
		*probes += n_mask_hit;
		*cached += n_cache_hit;
	}
	rcu_read_unlock();
}

/* One run of a case; r keeps the best. */
static void
measure(struct bench *b, unsigned cs, struct result *r)
{
	uint64_t start, ns, lookups = 0, probes = 0, cached = 0;
	struct flow_mask_cache *c = case_cache[cs] ? b->cache : NULL;

	if (c) {
		flow_table_set_cache_size(&b->t, case_cache[cs]);
		run(b, c, 2 * b->n, &probes, &cached);	/* refill it */
		probes = cached = 0;
	}
	start = now_ns();
	do {
		run(b, c, BATCH, &probes, &cached);
		lookups += BATCH;
		ns = now_ns() - start;
	} while (ns < RUN_NS);
	if (!r->ns || (double)ns / lookups < r->ns) {
		r->ns = (double)ns / lookups;
		r->probes = (double)probes / lookups;
		r->cached = (double)cached / lookups;
	}
}

int
main(void)
{
	static struct bench b[N_SIZES];
	struct result r[N_SIZES][N_CASES] = { { { 0 } } };
	unsigned s, cs, rep;

	rcu_register_thread();
	for (s = 0; s < N_SIZES; s++)
		bench_init(&b[s], n_masks[s], s == THRASH ? FLOWS : ACTIVE);
	for (rep = 0; rep < REPEAT; rep++)
		for (s = 0; s < N_SIZES; s++)
			for (cs = 0; cs < N_CASES; cs++)
				measure(&b[s], cs, &r[s][cs]);
	for (s = 0; s < N_SIZES; s++)
		bench_destroy(&b[s]);

	printf("flow-lookup: hits; %u flows over the masks, traffic over %u "
	    "of them;\nMlookups/s (masks probed per lookup, share of cache "
	    "hits)\n\n| masks |", FLOWS, ACTIVE);
	for (cs = 0; cs < N_CASES; cs++)
		printf(" %s |", case_name[cs]);
	printf("\n|---:|---:|---:|---:|\n");
	for (s = 0; s < N_SIZES; s++) {
		if (s == THRASH)
			printf("| %u, traffic over all %u |", n_masks[s], FLOWS);
		else
			printf("| %u |", n_masks[s]);
		for (cs = 0; cs < N_CASES; cs++) {
			printf(" %.2f (%.1f", 1e3 / r[s][cs].ns,
			    r[s][cs].probes);
			if (case_cache[cs])
				printf(", %.0f%%", 100 * r[s][cs].cached);
			printf(") |");
		}
		printf("\n");
	}
	printf("\ncost(256 masks)/cost(1 mask), target <= 1.3:");
	for (cs = 1; cs < N_CASES; cs++)
		printf(" %s %.2f;", case_name[cs],
		    r[S_256][cs].ns / r[S_1][cs].ns);
	printf("\nspeedup over linear at 256 masks, target >= 20:");
	for (cs = 1; cs < N_CASES; cs++)
		printf(" %s %.1f;", case_name[cs],
		    r[S_256][0].ns / r[S_256][cs].ns);
	printf("\n");
	rcu_unregister_thread();
	return 0;
}
