/* Action execution on real frames: header rewrites with correct checksums,
 * tags pushed and popped, truncation, nesting, TTL expiry, the hash. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "actions/actions-netlink.h"
#include "actions/actions.h"
#include "include/tapdp/ovs-uapi.h"
#include "tests/unit/nl-test.h"

struct out {
	uint8_t frame[2048];
	uint32_t len;
	uint32_t port;
	int n;
	int upcalls;
};

static struct out outs[8];
static int n_outs;

static void
output(void *ctx, const struct packet *pkt, uint32_t port)
{
	struct out *o = &outs[n_outs++];

	o->len = pkt->len - pkt->cutlen;
	o->port = port;
	memcpy(o->frame, pkt->data, o->len);
}

static void
userspace(void *ctx, const struct packet *pkt, const struct flow_key *key,
	  const struct nlattr *ua, const void *acts, int len)
{
	outs[0].upcalls++;
}

/* What the last recirculation saw. */
static struct flow_key recirc_key;
static bool recirc_l3;

static void
recirc(void *ctx, struct packet *pkt, struct flow_key *key)
{
	recirc_key = *key;
	recirc_l3 = pkt->l3;
}

static bool
meter(void *ctx, const struct packet *pkt, uint32_t id)
{
	return false;
}

static const struct actions_env env = {
	.output = output, .userspace = userspace, .recirc = recirc,
	.meter = meter,
};

/* Ethernet + IPv4 + TCP, correct checksums. */
static uint32_t
tcp_frame(uint8_t *f)
{
	static const uint8_t hdr[] = {
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, 44, 0, 1, 0x40, 0, 64, 6, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x30, 0x39, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0x02,
		0x10, 0, 0, 0, 0, 0, 2, 4, 5, 0xb4,
	};

	memcpy(f, hdr, sizeof(hdr));
	return sizeof(hdr);
}

static uint16_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (p[i] << 8) | p[i + 1];
	if (n & 1)
		s += p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static void
fix_sums(uint8_t *f, uint32_t len)
{
	uint32_t ps;
	uint16_t s;

	f[24] = f[25] = 0;
	s = ~sum16(f + 14, 20, 0);
	f[24] = s >> 8;
	f[25] = s;
	f[50] = f[51] = 0;
	ps = sum16(f + 26, 8, 0) + 6 + (len - 34);
	s = ~sum16(f + 34, len - 34, ps);
	f[50] = s >> 8;
	f[51] = s;
}

static bool
sums_ok(const uint8_t *f, uint32_t len)
{
	uint32_t ps = sum16(f + 26, 8, 0) + 6 + (len - 34);

	return sum16(f + 14, 20, 0) == 0xffff &&
	       sum16(f + 34, len - 34, ps) == 0xffff;
}

/* The list in b, stored as a flow's actions are. */
static struct actions_stored *
store(const struct nb *b, const struct flow_key *key)
{
	static uint8_t nest[NLA_HDRLEN + sizeof(b->buf)]
		__attribute__((aligned(4)));
	struct nlattr *n = (struct nlattr *)nest;
	struct actions_stored *stored;

	n->nla_type = OVS_FLOW_ATTR_ACTIONS;
	n->nla_len = NLA_HDRLEN + b->len;
	memcpy(nest + NLA_HDRLEN, b->buf, b->len);
	stored = actions_store(n, key);
	assert_non_null(stored);
	return stored;
}

static void
run(uint8_t *frame, uint32_t len, struct nb *acts, struct packet *pkt,
    struct flow_key *key, uint8_t *buf)
{
	struct actions_stored *stored;

	n_outs = 0;
	memset(outs, 0, sizeof(outs));
	packet_init(pkt, buf, 4096, len);
	memcpy(pkt->data, frame, len);
	memset(key, 0, sizeof(*key));
	assert_int_equal(flow_extract(pkt->data, pkt->len, key, &pkt->layers),
			 0);
	pkt->key_valid = true;
	stored = store(acts, key);
	actions_execute(&env, pkt, key, stored);
	free(stored);
}

static void
test_set_ipv4_and_ports_keep_checksums(void **state)
{
	uint8_t f[128], buf[4096];
	struct ovs_key_ipv4 ip[2];
	struct ovs_key_tcp tcp[2];
	struct nb a = { .len = 0 }, inner = { .len = 0 };
	struct flow_key key;
	struct packet pkt;
	uint32_t len = tcp_frame(f);
	uint32_t port = 3;

	fix_sums(f, len);
	assert_true(sums_ok(f, len));
	memset(ip, 0, sizeof(ip));
	ip[0].ipv4_src = htonl(0xc0a80001);
	ip[0].ipv4_ttl = 7;
	ip[1].ipv4_src = 0xffffffff;
	ip[1].ipv4_ttl = 0xff;
	nb_put(&inner, OVS_KEY_ATTR_IPV4, ip, sizeof(ip));
	nb_put(&a, OVS_ACTION_ATTR_SET_MASKED, inner.buf, inner.len);
	inner.len = 0;
	tcp[0].tcp_src = 0;
	tcp[0].tcp_dst = htons(8080);
	tcp[1].tcp_src = 0;
	tcp[1].tcp_dst = 0xffff;
	nb_put(&inner, OVS_KEY_ATTR_TCP, tcp, sizeof(tcp));
	nb_put(&a, OVS_ACTION_ATTR_SET_MASKED, inner.buf, inner.len);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &port, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(outs[0].port, 3);
	assert_memory_equal(outs[0].frame + 26, "\xc0\xa8\x00\x01", 4);
	assert_int_equal(outs[0].frame[22], 7);
	assert_int_equal(outs[0].frame[36] << 8 | outs[0].frame[37], 8080);
	assert_true(sums_ok(outs[0].frame, len));
	assert_int_equal(key.ipv4_src, htonl(0xc0a80001));
	assert_int_equal(key.tp_dst, htons(8080));
}

static void
test_vlan_push_pop_and_trunc(void **state)
{
	struct ovs_action_push_vlan pv = { htons(ETH_P_8021Q),
					   htons(0x1000 | 100) };
	struct ovs_action_trunc tr = { 20 };
	uint8_t f[128], buf[4096];
	struct nb a = { .len = 0 };
	uint32_t len = tcp_frame(f), p1 = 1, p2 = 2;
	struct flow_key key;
	struct packet pkt;

	nb_put(&a, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof(pv));
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	nb_put(&a, OVS_ACTION_ATTR_TRUNC, &tr, sizeof(tr));
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p2, 4);
	nb_put(&a, OVS_ACTION_ATTR_POP_VLAN, NULL, 0);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 3);
	/* Tagged: 802.1Q, VID 100, the CFI bit not on the wire. */
	assert_int_equal(outs[0].len, len + 4);
	assert_memory_equal(outs[0].frame + 12, "\x81\x00\x00\x64\x08\x00", 6);
	/* Truncated to 20 bytes for one output only. */
	assert_int_equal(outs[1].len, 20);
	assert_int_equal(outs[2].len, len);
	assert_memory_equal(outs[2].frame, f, len);
}

static void
test_clone_isolates_and_drop_stops(void **state)
{
	uint8_t f[128], buf[4096];
	struct nb a = { .len = 0 }, c = { .len = 0 }, inner = { .len = 0 };
	uint32_t len = tcp_frame(f), p1 = 1, p2 = 2, zero = 0;
	struct ovs_key_ethernet eth[2];
	struct flow_key key;
	struct packet pkt;

	memset(eth, 0, sizeof(eth));
	memset(eth[0].eth_dst, 0xaa, 6);
	memset(eth[1].eth_dst, 0xff, 6);
	nb_put(&inner, OVS_KEY_ATTR_ETHERNET, eth, sizeof(eth));
	nb_put(&c, OVS_ACTION_ATTR_SET_MASKED, inner.buf, inner.len);
	nb_put(&c, OVS_ACTION_ATTR_OUTPUT, &p2, 4);
	nb_put(&a, OVS_ACTION_ATTR_CLONE, c.buf, c.len);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	nb_put(&a, TAPDP_ACTION_ATTR_DROP, &zero, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 2);
	assert_int_equal(outs[0].port, 2);
	assert_int_equal(outs[0].frame[0], 0xaa);
	/* The clone's rewrite did not reach the original. */
	assert_int_equal(outs[1].port, 1);
	assert_int_equal(outs[1].frame[0], 2);
}

/* The kernel validates a set of ct_mark but fails it when it runs: the
 * packet goes no further. */
static void
test_set_ct_mark_drops(void **state)
{
	uint8_t f[128], buf[4096];
	struct nb a = { .len = 0 }, k = { .len = 0 };
	uint32_t len = tcp_frame(f), p1 = 1, mark = 5;
	struct flow_key key;
	struct packet pkt;

	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	nb_put(&k, OVS_KEY_ATTR_CT_MARK, &mark, 4);
	nb_put(&a, OVS_ACTION_ATTR_SET, k.buf, k.len);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
}

static void
test_dec_ttl_expiry(void **state)
{
	uint8_t f[128], buf[4096];
	struct nb a = { .len = 0 }, d = { .len = 0 }, u = { .len = 0 };
	uint32_t len = tcp_frame(f), p1 = 1, pid = 7;

	f[22] = 1;	/* TTL 1: expires */
	fix_sums(f, len);
	nb_put(&u, OVS_USERSPACE_ATTR_PID, &pid, 4);
	nb_put(&d, OVS_DEC_TTL_ATTR_ACTION, NULL, 0);
	/* The nested list: a userspace action. */
	struct nb nested = { .len = 0 };

	nb_put(&nested, OVS_ACTION_ATTR_USERSPACE, u.buf, u.len);
	d.len = 0;
	nb_put(&d, OVS_DEC_TTL_ATTR_ACTION, nested.buf, nested.len);
	nb_put(&a, OVS_ACTION_ATTR_DEC_TTL, d.buf, d.len);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	struct flow_key key;
	struct packet pkt;

	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].upcalls, 1);
	assert_int_equal(n_outs, 0);	/* the list ended with the expiry */
	/* TTL 64: decremented, checksum still right, forwarded. */
	len = tcp_frame(f);
	fix_sums(f, len);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(outs[0].frame[22], 63);
	assert_true(sums_ok(outs[0].frame, len));
}

static void
test_mpls_push_pop_roundtrip(void **state)
{
	struct ovs_action_push_mpls pm = { htonl(0x12345140),
					   htons(ETH_P_MPLS_UC) };
	uint16_t ip = htons(ETH_P_IP);
	uint8_t f[128], buf[4096];
	struct nb a = { .len = 0 };
	uint32_t len = tcp_frame(f), p1 = 1;
	struct flow_key key;
	struct packet pkt;

	nb_put(&a, OVS_ACTION_ATTR_PUSH_MPLS, &pm, sizeof(pm));
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	nb_put(&a, OVS_ACTION_ATTR_POP_MPLS, &ip, 2);
	nb_put(&a, OVS_ACTION_ATTR_OUTPUT, &p1, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 2);
	assert_int_equal(outs[0].len, len + 4);
	assert_memory_equal(outs[0].frame + 12, "\x88\x47\x12\x34\x51\x40", 6);
	assert_int_equal(outs[1].len, len);
	assert_memory_equal(outs[1].frame, f, len);
}

/* The TCP frame under n labels (the last bottom of stack), Ethernet
 * in front: what the MPLS decap flows take apart. */
static uint32_t
mpls_frame(uint8_t *f, int n)
{
	uint32_t len = tcp_frame(f + 4 * n);

	memmove(f, f + 4 * n, 12);
	f[12] = 0x88;
	f[13] = 0x47;
	for (int i = 0; i < n; i++) {
		uint32_t lse = htonl((uint32_t)(2 + i) << 12 |
				     (i == n - 1 ? 0x100 : 0) | 64);

		memcpy(f + 14 + 4 * i, &lse, 4);
	}
	return len + 4 * n;
}

/* pop_eth and pop_mpls leave an L3 packet: recirculated, its key is the
 * IPv4 packet's (a megaflow may match its protocol and ports); push_eth
 * gives it back an Ethernet header for the output. One and two labels. */
static void
test_mpls_to_l3_and_back(void **state)
{
	struct ovs_action_push_eth pe = {
		.addresses = { .eth_src = { 2, 0, 0, 0, 0, 0xa },
			       .eth_dst = { 2, 0, 0, 0, 0, 0xb } },
	};
	uint16_t mpls = htons(ETH_P_MPLS_UC), ip = htons(ETH_P_IP);
	uint8_t f[128], want[128], buf[4096];
	uint32_t len, wlen = tcp_frame(want), port = 5, id = 9;
	struct flow_key key;
	struct packet pkt;

	fix_sums(want, wlen);
	memcpy(want, pe.addresses.eth_dst, 6);
	memcpy(want + 6, pe.addresses.eth_src, 6);
	for (int n = 1; n <= 2; n++) {
		struct nb a = { .len = 0 }, b = { .len = 0 };

		len = mpls_frame(f, n);
		fix_sums(f + 4 * n, wlen);
		nb_put(&a, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
		nb_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
		for (int i = 1; i < n; i++) {
			nb_put(&a, OVS_ACTION_ATTR_POP_MPLS, &mpls, 2);
			nb_put(&b, OVS_ACTION_ATTR_POP_MPLS, &mpls, 2);
		}
		nb_put(&a, OVS_ACTION_ATTR_POP_MPLS, &ip, 2);
		nb_put(&b, OVS_ACTION_ATTR_POP_MPLS, &ip, 2);
		nb_put(&a, OVS_ACTION_ATTR_RECIRC, &id, 4);
		memset(&recirc_key, 0, sizeof(recirc_key));
		run(f, len, &a, &pkt, &key, buf);
		assert_true(recirc_l3);
		assert_int_equal(recirc_key.recirc_id, 9);
		assert_int_equal(recirc_key.mac_proto, FLOW_MAC_NONE);
		assert_int_equal(recirc_key.eth_type, ip);
		assert_int_equal(recirc_key.mpls_labels_mask, 0);
		assert_int_equal(recirc_key.ip_proto, IPPROTO_TCP);
		assert_int_equal(recirc_key.ipv4_dst, htonl(0x0a000002));
		assert_int_equal(recirc_key.tp_dst, htons(80));

		nb_put(&b, OVS_ACTION_ATTR_PUSH_ETH, &pe, sizeof(pe));
		nb_put(&b, OVS_ACTION_ATTR_OUTPUT, &port, 4);
		run(f, len, &b, &pkt, &key, buf);
		assert_int_equal(n_outs, 1);
		assert_int_equal(outs[0].len, wlen);
		assert_memory_equal(outs[0].frame, want, wlen);
		assert_int_equal(key.mac_proto, FLOW_MAC_ETHERNET);
	}
}

/* The hash action: the packet's hash with the action's basis folded in,
 * never 0; the same both ways of a connection, another for another port
 * or another basis. */
static uint32_t
dp_hash_of(uint8_t *f, uint32_t len, uint32_t basis)
{
	struct ovs_action_hash h = { .hash_alg = OVS_HASH_ALG_L4,
				     .hash_basis = basis };
	struct nb a = { .len = 0 };
	uint32_t id = 1;
	uint8_t buf[4096];
	struct flow_key key;
	struct packet pkt;

	nb_put(&a, OVS_ACTION_ATTR_HASH, &h, sizeof(h));
	nb_put(&a, OVS_ACTION_ATTR_RECIRC, &id, 4);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_not_equal(pkt.hash, 0);
	assert_int_not_equal(recirc_key.dp_hash, 0);
	return recirc_key.dp_hash;
}

static void
test_hash_action(void **state)
{
	uint8_t f[128], r[128];
	uint32_t len = tcp_frame(f), h;

	h = dp_hash_of(f, len, 1);
	/* The reply: addresses and ports swapped. */
	memcpy(r, f, len);
	memcpy(r + 26, f + 30, 4);
	memcpy(r + 30, f + 26, 4);
	memcpy(r + 34, f + 36, 2);
	memcpy(r + 36, f + 34, 2);
	assert_int_equal(dp_hash_of(r, len, 1), h);
	assert_int_not_equal(dp_hash_of(f, len, 2), h);
	f[35]++;
	assert_int_not_equal(dp_hash_of(f, len, 1), h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ipv4_and_ports_keep_checksums),
		cmocka_unit_test(test_vlan_push_pop_and_trunc),
		cmocka_unit_test(test_clone_isolates_and_drop_stops),
		cmocka_unit_test(test_dec_ttl_expiry),
		cmocka_unit_test(test_set_ct_mark_drops),
		cmocka_unit_test(test_mpls_push_pop_roundtrip),
		cmocka_unit_test(test_mpls_to_l3_and_back),
		cmocka_unit_test(test_hash_action),
	};

	return cmocka_run_group_tests_name("actions", tests, NULL, NULL);
}
