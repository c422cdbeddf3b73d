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
 * A fifth row shows what happens past the cache: 256 masks, the traffic
 * cycling over all FLOWS flows, more packet hashes than cache entries; a
 * sixth, the same traffic over 1 mask, what those flows cost with no mask
 * to tell apart (their entries and keys no longer fit the L1 cache). The
 * last case is what the datapath runs: the exact-match stage (flow/emc.c)
 * in front of the table with the default cache, which the kernel has not.
 *
 * A packet's key is written into one buffer before its lookup, as
 * extraction writes it, from a few bytes per packet: the datapath looks
 * up keys it has just written, never a thousand cold ones.
 *
 * Each figure is the best of REPEAT short runs, and the runs of all cases
 * take turns, so that other load on the machine weighs on every case alike
 * rather than on the ones that happened to run during it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/clock.h"
#include "flow/emc.h"
#include "flow/table.h"

#define RUN_NS		20000000ULL	/* per run */
#define REPEAT		7		/* runs per case */
#define BATCH		1024		/* lookups between clock reads */

#define FLOWS		1024		/* in every case */
#define ACTIVE		64		/* flows the traffic hits */

enum { N_SIZES = 6, N_CASES = 4 };
enum { C_EMC = 3 };				/* the case with the stage */
enum { S_1 = 0, S_256 = 2, THRASH = 4, THRASH_1 = 5 };	/* rows */

static const unsigned n_masks[N_SIZES] = { 1, 16, 256, 1024, 256, 1 };
static const char *const case_name[N_CASES] = {
	"linear scan", "table, cache 256", "table, cache 4096",
	"exact-match stage, cache 256",
};
static const uint32_t case_cache[N_CASES] = {
	0, FLOW_MASK_CACHE_DEFAULT, FLOW_MASK_CACHE_MAX,
	FLOW_MASK_CACHE_DEFAULT,
};

/* What sets a packet's key apart from the others'. */
struct bench_pkt {
	uint32_t hash;
	uint32_t in_port;
	uint32_t ipv4_src, ipv4_dst;
	uint16_t tp_src;
	uint8_t eth_src5;
	uint8_t eth_dst[4];		/* from byte 2 */
};

struct bench {
	struct flow_table t;
	struct flow_mask_cache *cache;
	struct flow_emc *emc;
	unsigned n;			/* keys the traffic cycles over */
	unsigned next;			/* key to look up next */
	struct flow_key key;		/* the packet's, written per lookup */
	struct bench_pkt *pkts;
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

/* Packet i's key, in b->key. */
static const struct flow_key *
key_of(struct bench *b, unsigned i)
{
	const struct bench_pkt *p = &b->pkts[i];
	struct flow_key *k = &b->key;

	k->in_port = p->in_port;
	k->eth_src[5] = p->eth_src5;
	memcpy(&k->eth_dst[2], p->eth_dst, 4);
	k->ipv4_src = p->ipv4_src;
	k->ipv4_dst = p->ipv4_dst;
	k->tp_src = p->tp_src;
	return k;
}

/* Flow i is matched by key i only: every mask keeps the bytes of eth_dst
 * where the keys differ, plus bits of its own (mask i % masks) in the last
 * two. The traffic's keys are spread over the flows and their masks. */
static void
bench_init(struct bench *b, unsigned masks, unsigned n)
{
	struct flow_key mask, *k = &b->key;
	struct bench_pkt *p;
	unsigned i, m;

	b->n = n;
	b->next = 0;
	b->pkts = xcalloc(FLOWS, sizeof(*b->pkts));
	b->flows = xcalloc(FLOWS, sizeof(*b->flows));
	if (flow_table_init(&b->t) || !(b->cache = flow_mask_cache_new()) ||
	    !(b->emc = flow_emc_new())) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(k, 0, sizeof(*k));
	k->mac_proto = FLOW_MAC_ETHERNET;
	k->eth_src[0] = 0x02;
	k->eth_dst[0] = 0x02;
	k->eth_type = htons(0x0800);
	k->ip_proto = 6;
	k->ip_ttl = 64;
	k->tp_dst = htons(80);
	for (i = 0; i < FLOWS; i++) {
		p = &b->pkts[i];
		p->in_port = 1 + i % 4;
		p->eth_src5 = rnd();
		p->eth_dst[0] = i >> 8;
		p->eth_dst[1] = i;
		p->eth_dst[2] = rnd();
		p->eth_dst[3] = rnd();
		p->ipv4_src = rnd();
		p->ipv4_dst = rnd();
		p->tp_src = rnd();
		while (!(p->hash = rnd()))
			;

		m = i % masks;
		memset(&mask, 0, sizeof(mask));
		memset(mask.eth_dst, 0xff, 4);
		mask.eth_dst[4] = m >> 8;
		mask.eth_dst[5] = m;
		b->flows[i] = xcalloc(1, sizeof(*b->flows[i]));
		if (flow_table_insert(&b->t, b->flows[i], key_of(b, i),
		    &mask)) {
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
	flow_emc_free(b->emc);
	free(b->pkts);
	free(b->flows);
}

/* count lookups of the keys in turn; each must hit its own flow. One
 * read-side section per call, whatever the number of keys. */
static void
run(struct bench *b, struct flow_emc *emc, struct flow_mask_cache *c,
    uint64_t count, uint64_t *probes, uint64_t *cached)
{
	uint32_t n_mask_hit, n_cache_hit;
	uint64_t done;
	unsigned i;

	rcu_read_lock();
	for (done = 0; done < count; done++) {
		/* Every stride-th flow, shifted so the masks vary too. */
		i = b->next * (FLOWS / b->n) + b->next % (FLOWS / b->n);
		b->next = b->next + 1 == b->n ? 0 : b->next + 1;
		if (flow_emc_lookup(emc, &b->t, c, key_of(b, i),
		    c ? b->pkts[i].hash : 0, &n_mask_hit, &n_cache_hit) !=
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
	struct flow_emc *emc = cs == C_EMC ? b->emc : NULL;

	if (c) {
		flow_table_set_cache_size(&b->t, case_cache[cs]);
		run(b, emc, c, 2 * b->n, &probes, &cached);	/* refill */
		probes = cached = 0;
	}
	start = now_ns();
	do {
		run(b, emc, c, BATCH, &probes, &cached);
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
		bench_init(&b[s], n_masks[s],
		    s >= THRASH ? FLOWS : ACTIVE);
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
	printf("\n|---:|---:|---:|---:|---:|\n");
	for (s = 0; s < N_SIZES; s++) {
		if (s >= THRASH)
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
	printf("\nrate(traffic over all %u, 256 masks)/rate(1 mask), "
	    "target >= 0.8:", FLOWS);
	for (cs = 1; cs < N_CASES; cs++)
		printf(" %s %.2f;", case_name[cs],
		    r[S_1][cs].ns / r[THRASH][cs].ns);
	printf(" %s against %s at 1 mask %.2f;", case_name[C_EMC],
	    case_name[1], r[S_1][1].ns / r[THRASH][C_EMC].ns);
	printf("\nrate(traffic over all %u, 256 masks)/rate(traffic over all "
	    "%u, 1 mask):", FLOWS, FLOWS);
	for (cs = 1; cs < N_CASES; cs++)
		printf(" %s %.2f;", case_name[cs],
		    r[THRASH_1][cs].ns / r[THRASH][cs].ns);
	printf("\n");
	rcu_unregister_thread();
	return 0;
}
