/* SPDX-License-Identifier: Apache-2.0 */
/* The fast path's match against the daemon's, as properties.
 *
 * For random megaflows (a frame's flow key under a random mask) that
 * fastpath_match() takes, and random frames, an eligible frame's fp_key
 * (bpf/fastpath-key.h, the programs' own code) matches the megaflow's
 * fp_key value under its mask exactly when the frame's flow key
 * (flow_extract) matches the megaflow.
 *
 * And the programs themselves, loaded into the kernel, against the
 * megaflow table: random megaflows go into a flow table and, through
 * fastpath_flow_install(), into the programs' maps; random frames run
 * through the internal port's program (BPF_PROG_TEST_RUN) and the
 * table. The program takes a frame exactly when a megaflow it holds
 * matches it, counts it once, with its length and TCP flags, to one such
 * megaflow, and leaves every other frame to the daemon. Needs the bpf()
 * system call with CAP_BPF: skipped without.
 *
 * Frames are made of a few values per field, so that matches are
 * common, and some have random bytes changed, so that the parsers meet
 * what no template makes. Seeded: the same cases every run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <urcu.h>

#include "bpf/fastpath-key.h"
#include "datapath/fastpath.h"
#include "flow/extract.h"
#include "flow/table.h"

#define CASES		3000
#define FRAMES		200
#define IFINDEX_BASE	100

static unsigned seed = 1;

static unsigned
rnd(unsigned n)
{
	return (unsigned)rand_r(&seed) % n;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* A frame of a few values per field: its length, its in_port in *port. */
static size_t
make_frame(uint8_t *f, uint32_t *port)
{
	static const uint8_t protos[] = { 6, 17, 1, 58, 47 };
	size_t l = 12, nh, th;
	int l3 = rnd(3);	/* IPv4, IPv6, ARP */
	uint8_t proto;

	memset(f, 0, 128);
	*port = 1 + rnd(3);
	for (int i = 0; i < 12; i++)
		f[i] = i % 6 == 5 ? 1 + rnd(3) : (i % 6 == 0 ? 2 : 0);
	if (rnd(4) == 0) {
		put16(f + l, 0x8100);
		put16(f + l + 2, (uint16_t)(rnd(3) << 13 | rnd(2) << 12 |
					    (1 + rnd(3))));
		l += 4;
	}
	put16(f + l, l3 == 0 ? 0x0800 : l3 == 1 ? 0x86dd : 0x0806);
	nh = l + 2;
	if (l3 == 2) {
		put16(f + nh, 1);
		put16(f + nh + 2, 0x0800);
		f[nh + 4] = 6;
		f[nh + 5] = 4;
		put16(f + nh + 6, rnd(8) ? 1 + rnd(2) : 0x101);
		f[nh + 13] = 1 + rnd(2);		/* sha */
		f[nh + 14] = 10;
		f[nh + 17] = 1 + rnd(3);		/* spa */
		f[nh + 23] = rnd(2);			/* tha */
		f[nh + 24] = 10;
		f[nh + 27] = 1 + rnd(3);		/* tpa */
		return nh + 28 + rnd(20);
	}
	proto = protos[rnd(sizeof(protos))];
	if (l3 == 0) {
		if (proto == 58)
			proto = 1;
		f[nh] = 0x45;
		f[nh + 1] = rnd(2) * 4;
		f[nh + 8] = 63 + rnd(2);
		f[nh + 9] = proto;
		f[nh + 12] = 10;
		f[nh + 15] = 1 + rnd(3);
		f[nh + 16] = 10;
		f[nh + 19] = 1 + rnd(3);
		if (rnd(10) == 0)
			put16(f + nh + 6, rnd(2) ? 0x2000 : 0x0010);
		th = nh + 20;
	} else {
		if (proto == 1)
			proto = 58;
		f[nh] = 0x60 | rnd(2);
		f[nh + 2] = rnd(2);
		f[nh + 6] = rnd(12) ? proto : 44;	/* a fragment header */
		f[nh + 7] = 63 + rnd(2);
		f[nh + 8] = 0xfd;
		f[nh + 23] = 1 + rnd(3);
		f[nh + 24] = 0xfd;
		f[nh + 39] = 1 + rnd(3);
		th = nh + 40;
	}
	if (proto == 1 || proto == 58) {
		f[th] = proto == 58 && rnd(4) == 0 ? 135 : (rnd(2) ? 8 : 0) +
			(proto == 58 ? 120 : 0);
		f[th + 1] = rnd(2);
		return th + 8 + rnd(8);
	}
	put16(f + th, 1000 + rnd(3));
	put16(f + th + 2, 80 + rnd(2));
	if (proto == 6) {
		f[th + 12] = (uint8_t)((5 + rnd(2)) << 4);
		f[th + 13] = (uint8_t)(1 << rnd(6));
		return th + 24 + rnd(8);
	}
	return th + 8 + rnd(8);
}

/* Now and then, a byte or two anywhere changed. */
static void
mutate(uint8_t *f, size_t len)
{
	if (rnd(8))
		return;
	for (unsigned n = 1 + rnd(2); n--;)
		f[rnd(len)] ^= (uint8_t)(1 + rnd(255));
}

static bool
frame_keys(const uint8_t *f, size_t len, uint32_t port, struct flow_key *fk,
	   struct fp_key *k)
{
	struct flow_layers layers;
	uint32_t hlen = len < FP_HDR_MAX ? len : FP_HDR_MAX;

	memset(fk, 0, sizeof(*fk));
	fk->in_port = port;
	if (flow_extract(f, len, fk, &layers) < 0)
		return false;
	memset(k, 0, sizeof(*k));
	k->ifindex = IFINDEX_BASE + port;
	if (!fp_key_parse(f, hlen, len, 0, 0, k))
		return false;
	if (k->vlan) {
		/* The tag a device took off, given apart: the same key. */
		struct fp_key hw = { .ifindex = k->ifindex };
		uint8_t g[128];

		memcpy(g, f, 12);
		memcpy(g + 12, f + 16, len - 16);
		hlen = len - 4 < FP_HDR_MAX ? len - 4 : FP_HDR_MAX;
		assert_true(fp_key_parse(g, hlen, len - 4, 1,
					 (uint16_t)(f[14] << 8 | f[15]), &hw));
		assert_memory_equal(&hw, k, sizeof(hw));
	}
	return true;
}

/* A random mask over the key's fields, each whole, part or none. */
static void
random_mask(struct flow_key *m)
{
	uint8_t *b = (uint8_t *)m;
	static const struct { size_t off, len; } fields[] = {
#define F(x) { offsetof(struct flow_key, x), sizeof(((struct flow_key *)0)->x) }
		F(in_port), F(eth_src), F(eth_dst), F(vlan.tci), F(vlan.tpid),
		F(eth_type), F(ip_proto), F(ip_tos), F(ip_ttl), F(ip_frag),
		F(ipv4_src), F(ipv4_dst), F(ipv6_src), F(ipv6_dst),
		F(ipv6_label), F(ipv6_exthdrs), F(tp_src), F(tp_dst),
		F(tcp_flags), F(arp_sha), F(arp_tha), F(nd_target),
		F(recirc_id), F(skb_mark), F(ct_state), F(mac_proto),
		F(cvlan.tci), F(mpls_lse),
#undef F
	};

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (rnd(3))
			continue;
		for (size_t j = 0; j < fields[i].len; j++)
			b[fields[i].off + j] = rnd(4) ? 0xff : (uint8_t)rnd(256);
	}
	/* Most flows match on their type and port, as OVS's do. */
	if (rnd(4))
		m->eth_type = 0xffff;
	if (rnd(4))
		m->in_port = 0xffff;
}

static bool
flow_matches(const struct flow_key *fk, const struct flow_key *key,
	     const struct flow_key *mask)
{
	const uint8_t *a = (const void *)fk, *k = (const void *)key;
	const uint8_t *m = (const void *)mask;

	for (size_t i = 0; i < sizeof(*fk); i++)
		if ((a[i] & m[i]) != k[i])
			return false;
	return true;
}

static bool
fp_matches(const struct fp_key *k, const struct fp_key *v,
	   const struct fp_key *m)
{
	const uint8_t *a = (const void *)k, *vb = (const void *)v;
	const uint8_t *mb = (const void *)m;

	for (size_t i = 0; i < sizeof(*k); i++)
		if ((a[i] & mb[i]) != vb[i])
			return false;
	return true;
}

static void
test_match_property(void **state)
{
	unsigned taken = 0, hits = 0, misses = 0, eligible = 0;

	(void)state;
	for (int c = 0; c < CASES; c++) {
		struct flow_key fk, key, mask;
		struct fp_key k, v, m;
		uint8_t f[128];
		uint32_t port;
		size_t len = make_frame(f, &port);
		const uint8_t *kb, *mb;

		frame_keys(f, len, port, &fk, &k);
		random_mask(&mask);
		kb = (const void *)&fk;
		mb = (const void *)&mask;
		for (size_t i = 0; i < sizeof(key); i++)
			((uint8_t *)&key)[i] = kb[i] & mb[i];
		if (!fastpath_match(&key, &mask, IFINDEX_BASE + key.in_port,
				    &v, &m))
			continue;
		assert_int_equal(v.mask_id, 0);
		assert_int_equal(m.mask_id, 0);
		taken++;
		for (int i = 0; i < FRAMES; i++) {
			uint8_t g[128];
			size_t glen = make_frame(g, &port);
			bool want, got;

			mutate(g, glen);
			if (!frame_keys(g, glen, port, &fk, &k))
				continue;
			eligible++;
			want = flow_matches(&fk, &key, &mask);
			got = fp_matches(&k, &v, &m);
			if (want != got)
				fail_msg("case %d frame %d: flow %d, fast path %d",
					 c, i, want, got);
			want ? hits++ : misses++;
		}
	}
	print_message("%u megaflows taken of %u, %u eligible frames: %u "
		      "matched, %u did not\n", taken, CASES, eligible, hits,
		      misses);
	/* The property was put to the test both ways. */
	assert_true(taken > CASES / 10);
	assert_true(hits > 1000 && misses > 1000);
}

/* Megaflows in a table and in the programs' maps. */
#define PROG_FLOWS	40
#define PROG_FRAMES	3000

struct prog_flow {
	struct flow *flow;
	struct flow_stats stats;
	bool installed;
};

static void
free_flow(struct flow *f)
{
	free(f);
}

static uint64_t
folded_packets(struct prog_flow *pf)
{
	fastpath_flow_fold(pf->flow);
	return pf->stats.packets;
}

static void
test_programs_against_table(void **state)
{
	struct prog_flow pfs[PROG_FLOWS];
	unsigned n = 0, installed = 0, taken = 0, left = 0, eligible = 0;
	struct flow_table t;
	uint64_t before[PROG_FLOWS];

	(void)state;
	fastpath_want_probe();
	if (fastpath_start()) {
		print_message("no fast path here (%s): skipped\n",
			      fastpath_state());
		skip();
	}
	rcu_register_thread();
	assert_int_equal(flow_table_init(&t), 0);
	seed = 7;
	for (int c = 0; n < PROG_FLOWS && c < 20 * PROG_FLOWS; c++) {
		struct fp_actions a = { .n_ops = 1 + rnd(4) };
		struct flow_key fk, key, mask;
		struct fp_key k, v, m;
		struct prog_flow *pf = &pfs[n];
		uint8_t f[128];
		uint32_t port;
		size_t len = make_frame(f, &port);

		frame_keys(f, len, 1, &fk, &k);
		random_mask(&mask);
		mask.in_port = 0xffff;
		for (size_t i = 0; i < sizeof(key); i++)
			((uint8_t *)&key)[i] = ((uint8_t *)&fk)[i] &
					       ((uint8_t *)&mask)[i];
		pf->flow = calloc(1, sizeof(*pf->flow));
		assert_non_null(pf->flow);
		memset(&pf->stats, 0, sizeof(pf->stats));
		pf->flow->stats = &pf->stats;
		if (flow_table_insert(&t, pf->flow, &key, &mask)) {
			free(pf->flow);
			continue;
		}
		/* Outputs to no device: recorded, not sent, in a test
		 * run. */
		for (unsigned i = 0; i < a.n_ops; i++)
			a.op[i] = (struct fp_op){ .kind = FP_OP_OUTPUT,
						  .ifindex = 1000000 + i,
						  .mtu = 65535 };
		fastpath_flow_install(pf->flow, &mask, 1, &a);
		pf->installed = fastpath_match(&key, &mask, 1, &v, &m) &&
				fastpath_entries() > installed;
		installed += pf->installed;
		n++;
	}
	assert_int_equal(fastpath_entries(), installed);
	for (int i = 0; i < PROG_FRAMES; i++) {
		struct flow_key fk;
		struct fp_key k;
		uint8_t g[128];
		uint32_t port;
		size_t glen = make_frame(g, &port);
		struct fastpath_probe pr;
		bool ok, took, matched = false;
		unsigned counted = 0, at = n;

		mutate(g, glen);
		ok = frame_keys(g, glen, 1, &fk, &k);
		for (unsigned j = 0; j < n; j++)
			before[j] = folded_packets(&pfs[j]);
		assert_int_equal(fastpath_probe(g, glen, &pr), 0);
		took = pr.taken;
		rcu_read_lock();
		for (unsigned j = 0; j < n; j++)
			if (pfs[j].installed &&
			    flow_table_matches(pfs[j].flow, pfs[j].flow->mask,
					       &fk))
				matched = true;
		rcu_read_unlock();
		for (unsigned j = 0; j < n; j++)
			if (folded_packets(&pfs[j]) != before[j]) {
				counted += folded_packets(&pfs[j]) - before[j];
				at = j;
			}
		if (!ok) {
			/* Not eligible: the daemon's. */
			assert_false(took);
			assert_int_equal(counted, 0);
			continue;
		}
		eligible++;
		if (took != matched)
			fail_msg("frame %d: taken %d, a megaflow matches %d", i,
				 took, matched);
		if (!took) {
			assert_int_equal(counted, 0);
			left++;
			continue;
		}
		taken++;
		assert_int_equal(counted, 1);
		rcu_read_lock();
		assert_true(flow_table_matches(pfs[at].flow,
					       pfs[at].flow->mask, &fk));
		rcu_read_unlock();
		if (fk.ip_proto == IPPROTO_TCP && fk.eth_type == htons(0x0800))
			assert_true((pfs[at].stats.tcp_flags & fk.tcp_flags) ==
				    fk.tcp_flags);
	}
	print_message("%u megaflows, %u in the programs; %u eligible frames: "
		      "%u taken, %u left to the daemon\n", n, installed,
		      eligible, taken, left);
	assert_true(taken > 100 && left > 100);
	for (unsigned j = 0; j < n; j++)
		fastpath_flow_forget(pfs[j].flow, true);
	assert_int_equal(fastpath_entries(), 0);
	flow_table_destroy(&t, free_flow);
	fastpath_stop();
	rcu_unregister_thread();
}

/* What no eligible frame's key holds: refused. */
static void
test_match_refuses(void **state)
{
	struct flow_key key = { .mac_proto = FLOW_MAC_ETHERNET };
	struct flow_key mask = { 0 };
	struct fp_key v, m;

	(void)state;
	/* Everything wildcarded: every frame. */
	assert_true(fastpath_match(&key, &mask, 0, &v, &m));
	/* A tunnel, a recirculation, a connection's state, MPLS. */
	key.recirc_id = 1;
	mask.recirc_id = UINT32_MAX;
	assert_false(fastpath_match(&key, &mask, 0, &v, &m));
	key.recirc_id = 0;
	assert_true(fastpath_match(&key, &mask, 0, &v, &m));
	key.ct_state = OVS_CS_F_TRACKED;
	mask.ct_state = 0xff;
	assert_false(fastpath_match(&key, &mask, 0, &v, &m));
	key.ct_state = 0;
	/* An L3 type the programs do not parse. */
	key.eth_type = htons(0x8847);
	mask.eth_type = 0xffff;
	assert_false(fastpath_match(&key, &mask, 0, &v, &m));
	/* L3 fields with any type. */
	key.eth_type = mask.eth_type = 0;
	key.ipv4_src = htonl(0x0a000001);
	mask.ipv4_src = UINT32_MAX;
	assert_false(fastpath_match(&key, &mask, 0, &v, &m));
	/* A part of the input port. */
	memset(&key, 0, sizeof(key));
	memset(&mask, 0, sizeof(mask));
	key.mac_proto = FLOW_MAC_ETHERNET;
	key.in_port = 1;
	mask.in_port = 0xff;
	assert_false(fastpath_match(&key, &mask, 5, &v, &m));
	mask.in_port = 0xffff;
	assert_true(fastpath_match(&key, &mask, 5, &v, &m));
	assert_int_equal(v.ifindex, 5);
	assert_int_equal(m.ifindex, UINT32_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_property),
		cmocka_unit_test(test_match_refuses),
		cmocka_unit_test(test_programs_against_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
