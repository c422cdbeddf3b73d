/* SPDX-License-Identifier: Apache-2.0 */
/* The connection tracker's throughput, with the semantics of Open
 * vSwitch's `ovstest test-conntrack benchmark` so the two can be compared
 * side by side (bench/conntrack.sh runs both):
 *
 *   bench-conntrack THREADS PACKETS BATCH [1]
 *
 * Each thread builds BATCH UDP/IPv4 frames (10.1.1.1 -> 10.1.1.2, source
 * port 1 + thread number, destination port 2, or 2 + i for the i-th frame
 * of the batch when the last argument is 1) and runs PACKETS packets, a
 * batch at a time, through the ct action with commit in zone 0, the
 * packet's conntrack state cleared between runs so that every packet is
 * looked up. Prints the wall time between the start and end barriers,
 * "conntrack: N ms", as OVS does.
 *
 *   bench-conntrack --million [N] [nat]
 *
 * N (default 1,000,000) live connections: the time to set them up, the
 * memory they take (RSS growth per connection), then lookups of random
 * established connections per second, one thread. With "nat", each is
 * committed with source NAT to a pool of 254 addresses and their ports
 * (as OVN's SNAT for a subnet), and the replies go to the mapped address,
 * undone by ct(nat).
 *
 *   bench-conntrack --separate THREADS PACKETS BATCH [1]
 *
 * The same with a tracker per thread: nothing shared, so the difference
 * from the shared run is what sharing the table costs, and the rest of
 * what two threads lose is the machine's.
 *
 * Without arguments: 1 thread, 1,000,000 packets, batches of 32. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/openvswitch.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu.h>

#include "common/clock.h"
#include "common/unaligned.h"
#include "ct/conntrack.h"
#include "flow/extract.h"
#include "packet/frame.h"
#include "bench/clock.h"
#include "bench/rss.h"
#include "tests/unit/builders.h"

struct frame {
	uint8_t buf[FRAME_HEADROOM + 128];
	struct packet pkt;
	struct flow_key key;
};

static struct conntrack *ct;
static struct conntrack *own[64];	/* --separate: one per thread */
static unsigned long n_pkts, batch;
static bool change, separate;
static pthread_barrier_t barrier;

/* The frame builders' mistakes (tests/unit/builders.h) end the run. */
void
builders_fail(const char *what)
{
	fprintf(stderr, "bench-conntrack: %s\n", what);
	exit(1);
}

/* An Ethernet/IPv4/UDP frame from src:sport to dst:dport with 6 bytes of
 * payload, UDP checksum absent (as OVS's benchmark packet). */
static void
frame_build(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
	    uint16_t dport)
{
	struct fb b;

	memset(f->buf, 0, sizeof(f->buf));
	fb_init(&b, f->buf + FRAME_HEADROOM, sizeof(f->buf) - FRAME_HEADROOM);
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, src, dst, IPPROTO_UDP);
	fb_udp(&b, sport, dport);
	fb_put(&b, NULL, 6);
	fb_end(&b);
	put_be16(b.buf + b.l4 + offsetof(struct udphdr, check), 0);
	packet_init(&f->pkt, f->buf, sizeof(f->buf), b.len);
	memset(&f->key, 0, sizeof(f->key));
	flow_extract(f->pkt.data, f->pkt.len, &f->key, &f->pkt.layers);
	f->pkt.key_valid = true;
}

static void *
thread_main(void *arg)
{
	const struct ct_action a = { .family = AF_INET, .commit = true };
	unsigned tid = (unsigned)(uintptr_t)arg;
	struct frame *fs = calloc(batch, sizeof(*fs));
	struct conntrack *t = separate ? own[tid] : ct;

	rcu_register_thread();
	for (unsigned long i = 0; i < batch; i++)
		frame_build(&fs[i], 0x0a010101, 0x0a010102, 1 + tid,
			    2 + (change ? i : 0));
	pthread_barrier_wait(&barrier);
	for (unsigned long n = 0; n < n_pkts; n += batch) {
		/* A batch is a receive burst: one clock read, as OVS's
		 * takes one time per batch. */
		rcu_read_lock();
		clock_burst_start();
		for (unsigned long i = 0; i < batch; i++) {
			flow_key_clear_ct(&fs[i].key);
			conntrack_execute(t, &fs[i].pkt, &fs[i].key, &a);
		}
		clock_burst_end();
		rcu_read_unlock();
	}
	pthread_barrier_wait(&barrier);
	rcu_unregister_thread();
	free(fs);
	return NULL;
}

static int
benchmark(unsigned n_threads)
{
	pthread_t *th = calloc(n_threads, sizeof(*th));
	uint64_t start;

	ct = conntrack_create(1 << 20);
	for (unsigned i = 0; separate && i < n_threads; i++)
		own[i] = conntrack_create(1 << 20);
	pthread_barrier_init(&barrier, NULL, n_threads + 1);
	for (unsigned i = 0; i < n_threads; i++)
		pthread_create(&th[i], NULL, thread_main,
			       (void *)(uintptr_t)i);
	pthread_barrier_wait(&barrier);
	start = now_ns();
	pthread_barrier_wait(&barrier);
	printf("conntrack: %5llu ms\n",
	       (unsigned long long)((now_ns() - start) / 1000000));
	for (unsigned i = 0; i < n_threads; i++)
		pthread_join(th[i], NULL);
	rcu_register_thread();
	conntrack_destroy(ct);
	for (unsigned i = 0; separate && i < n_threads; i++)
		conntrack_destroy(own[i]);
	rcu_unregister_thread();
	pthread_barrier_destroy(&barrier);
	free(th);
	return 0;
}

/* Where replies of connection i go: its source, or what NAT mapped it
 * to (host order). NULL without NAT. */
static struct mapped {
	uint32_t addr;
	uint16_t port;
} *mapped;

/* Connection i: a distinct source address and port. */
static void
conn_frame(struct frame *f, uint32_t i, bool reply)
{
	uint32_t a = 0x0b000000 + (i >> 4), b = 0x0c000001;
	uint16_t sp = 1024 + (i & 15), dp = 80;

	if (reply && mapped)
		frame_build(f, b, mapped[i].addr, dp, mapped[i].port);
	else if (reply)
		frame_build(f, b, a, dp, sp);
	else
		frame_build(f, a, b, sp, dp);
}

/* The source the tracker gave connection i's first frame, read back from
 * the rewritten headers. 0 when it was not rewritten. */
static int
record_mapping(const struct frame *f, uint32_t i)
{
	const uint8_t *l3 = f->pkt.data + f->pkt.layers.l3;
	const uint8_t *l4 = f->pkt.data + f->pkt.layers.l4;

	mapped[i].addr = get_be32(l3 + offsetof(struct iphdr, saddr));
	mapped[i].port = get_be16(l4 + offsetof(struct udphdr, source));
	return mapped[i].addr >= 0x0ac80001 && mapped[i].addr <= 0x0ac800fe;
}

/* Whether the tracker holds fewer than the n connections set up; says
 * where the others went. */
static bool
table_short(uint32_t n)
{
	struct conntrack_stats st;

	conntrack_get_stats(ct, &st);
	if (st.n_conns == n)
		return false;
	fprintf(stderr, "%llu connections of %u in the table: %llu refused, "
		"%llu expired\n", (unsigned long long)st.n_conns, n,
		(unsigned long long)st.n_refused,
		(unsigned long long)st.n_expired);
	return true;
}

static int
million(uint32_t n, bool nat)
{
	/* SNAT to 10.200.0.1-254, ports 1024-65535: 16 M mappings. */
	const struct ct_action commit = {
		.family = AF_INET, .commit = true,
		.nat = nat ? CT_ACTION_NAT | CT_ACTION_SNAT : 0,
		.range = { .flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO,
			   .min_addr.ip = htonl(0x0ac80001),
			   .max_addr.ip = htonl(0x0ac800fe),
			   .min_port = 1024, .max_port = 65535 },
	};
	const struct ct_action lookup = {
		.family = AF_INET, .nat = nat ? CT_ACTION_NAT : 0
	};
	const uint32_t lookups = 2000000;
	struct frame f;
	uint64_t t0, t1;
	long rss0, rss1;
	uint32_t x = 1;

	rcu_register_thread();
	/* The table of mappings is the benchmark's, not the tracker's:
	 * touched before the first measure. */
	if (nat && !(mapped = calloc(n, sizeof(*mapped)))) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	ct = conntrack_create(n);
	rss0 = rss_kib();
	t0 = now_ns();
	for (uint32_t i = 0; i < n; i++) {
		conn_frame(&f, i, false);
		rcu_read_lock();
		conntrack_execute(ct, &f.pkt, &f.key, &commit);
		rcu_read_unlock();
		if (nat && !record_mapping(&f, i)) {
			fprintf(stderr, "connection %u not mapped\n", i);
			return 1;
		}
		conn_frame(&f, i, true);
		rcu_read_lock();
		conntrack_execute(ct, &f.pkt, &f.key, &lookup);
		rcu_read_unlock();
	}
	t1 = now_ns();
	rss1 = rss_kib();
	printf("setup: %u connections%s in %llu ms (%.0f per second)\n", n,
	       nat ? " with source NAT" : "",
	       (unsigned long long)((t1 - t0) / 1000000),
	       n / ((t1 - t0) / 1e9));
	printf("memory: %.0f bytes per connection (RSS %ld -> %ld KiB)\n",
	       (rss1 - rss0) * 1024.0 / n, rss0, rss1);
	if (table_short(n))
		return 1;
	t0 = now_ns();
	for (uint32_t k = 0; k < lookups; k++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		conn_frame(&f, x % n, k & 1);
		rcu_read_lock();
		conntrack_execute(ct, &f.pkt, &f.key, &lookup);
		rcu_read_unlock();
		if (!(f.key.ct_state & OVS_CS_F_ESTABLISHED)) {
			fprintf(stderr, "connection %u lost\n", x % n);
			table_short(n);
			return 1;
		}
	}
	t1 = now_ns();
	printf("lookups: %.2f M/s of random established connections "
	       "(%u live, frame built per lookup)\n",
	       lookups / ((t1 - t0) / 1e3), n);
	conntrack_destroy(ct);
	rcu_unregister_thread();
	free(mapped);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--million"))
		return million(argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000,
			       argc > 3 && !strcmp(argv[3], "nat"));
	if (argc >= 2 && !strcmp(argv[1], "--separate")) {
		separate = true;
		argc--;
		argv++;
	}
	if (argc != 1 && argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bench-conntrack [--separate] THREADS PACKETS BATCH [1]\n"
				"       bench-conntrack --million [N] [nat]\n");
		return 2;
	}
	n_pkts = argc > 1 ? strtoul(argv[2], NULL, 0) : 1000000;
	batch = argc > 1 ? strtoul(argv[3], NULL, 0) : 32;
	change = argc > 4 && strtoul(argv[4], NULL, 0);
	if (!batch || batch > 32 || (argc > 1 && (!strtoul(argv[1], NULL, 0) ||
						  strtoul(argv[1], NULL, 0) > 64))) {
		fprintf(stderr, "THREADS must be 1 to 64, BATCH 1 to 32\n");
		return 2;
	}
	return benchmark(argc > 1 ? strtoul(argv[1], NULL, 0) : 1);
}
