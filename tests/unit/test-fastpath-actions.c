/* SPDX-License-Identifier: Apache-2.0 */
/* The fast path's actions against the daemon's action engine, as a
 * property.
 *
 * Random frames (IPv4 and IPv6, TCP, UDP with and without a checksum,
 * ICMP, tagged or not, some with wrong checksums) hit a megaflow of
 * random action lists (outputs, push_vlan, pop_vlan, set and set_masked
 * of Ethernet, IPv4, IPv6, TCP and UDP fields, explicit drops): the
 * entry fastpath_actions_make() makes of the list runs in the loaded
 * programs (BPF_PROG_TEST_RUN, outputs recorded), the list itself in
 * actions_execute(). Each list the fast path takes must give the same
 * outputs, to the same ports, as the same frames to the bit (checksums
 * too), and end the frame the same way (taken by its last output, or
 * dropped for the same reason). Lists it refuses are counted, and those
 * of kinds it must take are checked to be taken. Needs the bpf() system
 * call with CAP_BPF: skipped without. Seeded: the same cases every run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include <urcu.h>

#include "actions/actions-netlink.h"
#include "actions/actions.h"
#include "datapath/fastpath-actions.h"
#include "datapath/fastpath.h"
#include "flow/extract.h"
#include "genl-server/attr.h"
#include "include/tapdp/drop-uapi.h"
#include "include/tapdp/ovs-uapi.h"
#include "tests/unit/builders.h"

#define CASES		6000
#define IFINDEX_BASE	1000
#define IN_IFINDEX	1	/* the probe's frames come in by it */

static unsigned seed = 11;

static unsigned
rnd(unsigned n)
{
	return (unsigned)rand_r(&seed) % n;
}

static void
rnd_bytes(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)p)[i] = (uint8_t)rnd(256);
}

/* Each byte of a mask: all, none or a random part. */
static void
rnd_mask(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)p)[i] = rnd(3) == 0 ? 0 : rnd(2) ? 0xff
							     : (uint8_t)rnd(256);
}

/* A frame with its checksums right, now and then one wrong. */
static size_t
make_frame(uint8_t *f)
{
	static const uint8_t six[16] = { 0xfd, [15] = 1 };
	static const uint8_t dix[16] = { 0xfd, [15] = 2 };
	bool v6 = rnd(2), tagged = rnd(3) == 0;
	uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP,
			     v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP };
	uint8_t proto = protos[rnd(3)];
	uint16_t type = v6 ? ETH_P_IPV6 : ETH_P_IP;
	struct udphdr *uh = NULL;
	size_t len, l4;
	struct fb b;

	fb_init(&b, f, 150);
	fb_eth(&b, tagged ? ETH_P_8021Q : type);
	if (tagged)
		fb_vlan(&b, (uint16_t)(rnd(8) << 13 | (1 + rnd(100))), type);
	if (v6) {
		struct ipv6hdr *ip6 = fb_ipv6(&b, six, dix, proto);

		ip6->priority = rnd(16);
		ip6->flow_lbl[2] = rnd(256);
	} else {
		struct iphdr *ip = fb_ipv4(&b, 0x0a000001 + rnd(4),
					   0x0a000101 + rnd(4), proto);

		ip->tos = rnd(256);
		ip->ttl = 1 + rnd(255);
	}
	if (proto == IPPROTO_TCP)
		fb_tcp(&b, 1000 + rnd(3), 80, rnd(1000), 0, FB_SYN);
	else if (proto == IPPROTO_UDP)
		uh = fb_udp(&b, 1000 + rnd(3), 53);
	else
		fb_icmp(&b, v6 ? 128 : 8, 0);
	fb_put(&b, NULL, rnd(40));
	l4 = b.l4;
	len = fb_end(&b);
	/* No UDP checksum (IPv4 only), or a wrong one of any kind. */
	if (uh && !v6 && rnd(4) == 0)
		memset(f + l4 + 6, 0, 2);
	if (rnd(6) == 0) {
		size_t at = proto == IPPROTO_TCP ? l4 + 16
			    : proto == IPPROTO_UDP ? l4 + 6 : l4 + 2;

		rnd_bytes(f + at, 2);
	}
	if (!v6 && rnd(6) == 0)
		rnd_bytes(f + (tagged ? 18 : 14) + 10, 2);
	return len;
}

static void
put_set(struct attrs *a, bool masked, uint16_t type, const void *v,
	const void *m, size_t n)
{
	struct nlattr *set = msgbuf_nest_start(
		&a->mb, masked ? OVS_ACTION_ATTR_SET_MASKED
			       : OVS_ACTION_ATTR_SET);
	uint8_t both[2 * sizeof(struct ovs_key_ipv6)];

	memcpy(both, v, n);
	if (masked)
		memcpy(both + n, m, n);
	attrs_put(a, type, both, masked ? 2 * n : n);
	msgbuf_nest_end(&a->mb, set);
}

/* A random set of the kind given (0: Ethernet, 1: IP, 2: transport) for
 * a frame of key k, if it has such a header; values masked, as clients
 * send them. Returns whether it put one. */
static bool
put_rnd_set(struct attrs *a, const struct flow_key *k, unsigned kind)
{
	bool masked = rnd(4) != 0;
	uint8_t v[sizeof(struct ovs_key_ipv6)], m[sizeof(v)];

	if (kind == 0) {
		rnd_bytes(v, sizeof(struct ovs_key_ethernet));
		rnd_mask(m, sizeof(struct ovs_key_ethernet));
		for (size_t i = 0; i < sizeof(struct ovs_key_ethernet); i++)
			v[i] &= m[i];
		put_set(a, masked, OVS_KEY_ATTR_ETHERNET, v, m,
			sizeof(struct ovs_key_ethernet));
		return true;
	} else if (kind == 1 && k->eth_type == htons(ETH_P_IP)) {
		struct ovs_key_ipv4 iv, im;

		rnd_bytes(&iv, sizeof(iv));
		rnd_mask(&im, sizeof(im));
		for (size_t i = 0; i < sizeof(iv); i++)
			((uint8_t *)&iv)[i] &= ((uint8_t *)&im)[i];
		im.ipv4_proto = im.ipv4_frag = 0;
		iv.ipv4_proto = masked ? 0 : k->ip_proto;
		iv.ipv4_frag = masked ? 0 : k->ip_frag;
		put_set(a, masked, OVS_KEY_ATTR_IPV4, &iv, &im, sizeof(iv));
		return true;
	} else if (kind == 1) {
		struct ovs_key_ipv6 iv, im;

		rnd_bytes(&iv, sizeof(iv));
		rnd_mask(&im, sizeof(im));
		for (size_t i = 0; i < sizeof(iv); i++)
			((uint8_t *)&iv)[i] &= ((uint8_t *)&im)[i];
		iv.ipv6_label &= htonl(0xfffff);
		im.ipv6_label &= htonl(0xfffff);
		im.ipv6_proto = im.ipv6_frag = 0;
		iv.ipv6_proto = masked ? 0 : k->ip_proto;
		iv.ipv6_frag = masked ? 0 : k->ip_frag;
		put_set(a, masked, OVS_KEY_ATTR_IPV6, &iv, &im, sizeof(iv));
		return true;
	} else if (k->ip_proto == IPPROTO_TCP || k->ip_proto == IPPROTO_UDP) {
		uint16_t pv[2], pm[2];

		rnd_bytes(pv, 4);
		rnd_mask(pm, 4);
		pv[0] &= pm[0];
		pv[1] &= pm[1];
		put_set(a, masked, k->ip_proto == IPPROTO_TCP
					   ? OVS_KEY_ATTR_TCP
					   : OVS_KEY_ATTR_UDP, pv, pm, 4);
		return true;
	}
	return false;
}

/* A random list: what the fast path runs, mostly. Returns whether the
 * fast path must take it: no set of a kind twice (they share a place),
 * at most one push_vlan (a third tag is not the programs'). */
static bool
make_actions(struct attrs *a, const struct flow_key *k)
{
	unsigned n = rnd(7), pushes = 0, sets[3] = { 0 };

	attrs_init(a);
	for (unsigned i = 0; i < n; i++) {
		unsigned what = rnd(10);

		if (what < 4) {
			uint32_t port = 1 + rnd(4);

			attrs_put(a, OVS_ACTION_ATTR_OUTPUT, &port,
				  sizeof(port));
		} else if (what == 4) {
			struct ovs_action_push_vlan pv = {
				.vlan_tpid = htons(rnd(4) ? 0x8100 : 0x88a8),
				.vlan_tci = htons((uint16_t)(rnd(8) << 13 |
							     0x1000 |
							     rnd(4096))),
			};

			attrs_put(a, OVS_ACTION_ATTR_PUSH_VLAN, &pv,
				  sizeof(pv));
			pushes++;
		} else if (what == 5) {
			attrs_put(a, OVS_ACTION_ATTR_POP_VLAN, NULL, 0);
		} else {
			sets[what % 3] += put_rnd_set(a, k, what % 3);
		}
	}
	if (rnd(10) == 0) {
		uint32_t err = rnd(2);

		attrs_put(a, TAPDP_ACTION_ATTR_DROP, &err, sizeof(err));
	}
	return pushes <= 1 && sets[0] <= 1 && sets[1] <= 1 && sets[2] <= 1;
}

/* What the engine did with the frame. */
static struct {
	unsigned n_out;
	struct {
		uint32_t port;
		uint32_t len;
		uint8_t frame[256];
	} out[FP_OPS_MAX];
	uint32_t drop;		/* its reason, 0 for none */
} eng;

static void
eng_output(void *ctx, const struct packet *pkt, const struct flow_key *key,
	   uint32_t port)
{
	(void)ctx;
	(void)key;
	if (eng.n_out == FP_OPS_MAX)
		fail_msg("more outputs than the list has");
	eng.out[eng.n_out].port = port;
	eng.out[eng.n_out].len = packet_out_len(pkt);
	memcpy(eng.out[eng.n_out].frame, pkt->data, packet_out_len(pkt));
	eng.n_out++;
}

static void
eng_drop(void *ctx, const struct packet *pkt, uint32_t reason)
{
	(void)ctx;
	(void)pkt;
	eng.drop = reason;
}

static const struct actions_env env = {
	.output = eng_output,
	.drop = eng_drop,
};

static bool
port_of(void *ctx, uint32_t port_no, struct fp_op *op)
{
	(void)ctx;
	op->ifindex = IFINDEX_BASE + port_no;
	op->mtu = 65535;
	/* Port 4: an internal port's, into the host. */
	op->flags = port_no == 4 ? FP_OUT_INGRESS : 0;
	return true;
}

static const uint32_t reasons[FP_DROPS] = {
	[FP_DROP_LAST_ACTION] = TAPDP_DROP_OVS_LAST_ACTION,
	[FP_DROP_EXPLICIT] = TAPDP_DROP_OVS_EXPLICIT,
	[FP_DROP_EXPLICIT_WITH_ERROR] = TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR,
};

/* The recorded output as on the wire: its tag in its bytes. */
static uint32_t
wire(const struct fp_trace_out *o, uint8_t *f)
{
	uint32_t n = o->len < FP_TRACE_BYTES ? o->len : FP_TRACE_BYTES;

	if (!o->vlan) {
		memcpy(f, o->frame, n);
		return o->len;
	}
	memcpy(f, o->frame, 12);
	f[12] = o->vlan_proto >> 8;
	f[13] = o->vlan_proto & 0xff;
	f[14] = o->vlan_tci >> 8;
	f[15] = o->vlan_tci & 0xff;
	memcpy(f + 16, o->frame + 12, n - 12);
	return o->len + 4;
}

static void
dump(const char *what, const uint8_t *f, uint32_t len)
{
	print_message("%s (%u):", what, len);
	for (uint32_t i = 0; i < len; i++)
		print_message("%s%02x", i % 16 ? " " : "\n  ", f[i]);
	print_message("\n");
}

static void
test_actions_against_engine(void **state)
{
	unsigned taken = 0, refused = 0, outputs = 0, drops = 0, rewrites = 0;
	(void)state;
	fastpath_want_probe();
	if (fastpath_start()) {
		print_message("no fast path here (%s): skipped\n",
			      fastpath_state());
		skip();
	}
	rcu_register_thread();
	for (int c = 0; c < CASES; c++) {
		struct flow_key fk, key, mask;
		struct fp_actions fa = { 0 };
		struct fastpath_probe pr;
		struct actions_stored *st;
		static struct attrs acts, nest;
		const struct nlattr *list;
		struct flow_stats stats = { 0 };
		struct flow *flow;
		uint8_t f[160], buf[512], w[256];
		size_t len = make_frame(f);
		struct packet pkt;
		bool must;

		memset(&fk, 0, sizeof(fk));
		fk.in_port = 1;
		assert_int_equal(flow_extract(f, len, &fk,
					      &(struct flow_layers){ 0 }), 0);
		/* A megaflow of the frame's own fields, the tag's whole TCI
		 * as the kernel always has it. */
		memset(&mask, 0, sizeof(mask));
		mask.in_port = 0xffff;
		mask.vlan.tci = 0xffff;
		mask.vlan.tpid = 0xffff;
		mask.eth_type = 0xffff;
		mask.ip_proto = 0xff;
		if (rnd(2))
			memset(mask.eth_dst, 0xff, 6);
		for (size_t i = 0; i < sizeof(key); i++)
			((uint8_t *)&key)[i] = ((uint8_t *)&fk)[i] &
					       ((uint8_t *)&mask)[i];
		/* (Not a field a mask covers.) */
		key.mac_proto = fk.mac_proto;
		must = make_actions(&acts, &key);
		attrs_init(&nest);
		list = attrs_put(&nest, OVS_FLOW_ATTR_ACTIONS,
				 attrs_data(&acts), attrs_len(&acts));
		if (actions_validate(list, &key, false))
			continue;
		st = actions_store(list, &key);
		assert_non_null(st);
		if (!fastpath_actions_make(&key, &mask, st->data, st->len,
					   port_of, NULL, &fa)) {
			if (must)
				fail_msg("case %d: a list the fast path runs "
					 "refused", c);
			refused++;
			free(st);
			continue;
		}
		flow = calloc(1, sizeof(*flow));
		assert_non_null(flow);
		flow->stats = &stats;
		flow->key = key;
		fastpath_flow_install(flow, &mask, IN_IFINDEX, &fa);
		assert_int_equal(fastpath_entries(), 1);

		assert_int_equal(fastpath_probe(f, len, &pr), 0);
		memset(&eng, 0, sizeof(eng));
		packet_init(&pkt, buf, sizeof(buf), len);
		memcpy(pkt.data, f, len);
		fk.in_port = 1;
		assert_int_equal(flow_extract(pkt.data, pkt.len, &fk,
					      &pkt.layers), 0);
		pkt.key_valid = true;
		actions_execute(&env, &pkt, &fk, st);

		if (!pr.taken) {
			dump("in", f, len);
			fail_msg("case %d: a frame its entry matches not "
				 "taken (%u ops, flags %u, drop %u)", c,
				 fa.n_ops, fa.flags, fa.drop);
		}
		taken++;
		if (pr.n_out != eng.n_out)
			fail_msg("case %d: %u outputs, the engine's %u", c,
				 pr.n_out, eng.n_out);
		for (unsigned i = 0; i < pr.n_out; i++) {
			uint32_t wl = wire(&pr.out[i], w);

			assert_int_equal(pr.out[i].ifindex,
					 IFINDEX_BASE + eng.out[i].port);
			assert_int_equal(pr.out[i].flags & FP_OUT_INGRESS,
					 eng.out[i].port == 4);
			if (wl != eng.out[i].len ||
			    memcmp(w, eng.out[i].frame,
				   wl < FP_TRACE_BYTES ? wl
						       : FP_TRACE_BYTES)) {
				dump("in", f, len);
				dump("fast path", w, wl);
				dump("engine", eng.out[i].frame,
				     eng.out[i].len);
				fail_msg("case %d: output %u differs", c, i);
			}
			outputs++;
		}
		assert_int_equal(pr.drop ? reasons[pr.drop] : 0, eng.drop);
		drops += pr.drop != 0;
		rewrites += fa.flags & FP_ACT_TAG_IN_SKB ? 1 : 0;
		/* Counted once, as the flow's own. */
		fastpath_flow_fold(flow);
		assert_int_equal(stats.packets, 1);
		fastpath_flow_forget(flow, true);
		free(flow);
		free(st);
	}
	print_message("%u lists run by both: %u outputs compared, %u drops, "
		      "%u with VLAN or L3/L4 ops; %u refused\n", taken,
		      outputs, drops, rewrites, refused);
	assert_true(taken > CASES / 2 && outputs > CASES / 2 && drops > 100 &&
		    rewrites > CASES / 4);
	fastpath_stop();
	rcu_unregister_thread();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions_against_engine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
