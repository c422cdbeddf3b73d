/* SPDX-License-Identifier: Apache-2.0 */
/* Action execution on real frames: header rewrites with correct checksums,
 * tags pushed and popped, truncation, nesting, TTL expiry, the hash; the
 * stored form of set(tunnel) and the tunnel a packet leaves by; psample's
 * data, cookie and rate; the errors a failed action returns to whoever
 * executed the list, and the lists they end. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "actions/actions.h"
#include "include/tapdp/drop-uapi.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "tests/unit/builders.h"

struct out {
	uint8_t frame[2048];
	uint32_t len;
	uint32_t port;
	int n;
	int upcalls;
	struct tun_key tun;		/* the tunnel to leave by; 0s: none */
};

static struct out outs[8];
static int n_outs;

static void
output(void *ctx, const struct packet *pkt, const struct flow_key *key,
       uint32_t port)
{
	struct out *o = &outs[n_outs++];

	o->len = packet_out_len(pkt);
	o->port = port;
	memcpy(o->frame, pkt->data, o->len);
	if (pkt->egress_tun)
		o->tun = *pkt->egress_tun;
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
static struct tun_key recirc_tun;

static void
recirc(void *ctx, struct packet *pkt, struct flow_key *key)
{
	recirc_key = *key;
	recirc_l3 = pkt->l3;
	if (pkt->egress_tun)
		recirc_tun = *pkt->egress_tun;
}

static bool
meter(void *ctx, const struct packet *pkt, uint32_t id)
{
	return false;
}

/* The psample actions' samples, in order. */
struct sampled {
	uint32_t group, rate, len;
	uint8_t cookie[16];
	uint32_t cookie_len;
};

static struct sampled samples[8];
static int n_samples;

static void
psample(void *ctx, const struct packet *pkt, const struct flow_key *key,
	uint32_t group, const struct nlattr *cookie, uint32_t rate)
{
	struct sampled *s = &samples[n_samples++ % 8];

	s->group = group;
	s->rate = rate;
	s->len = packet_out_len(pkt);
	s->cookie_len = cookie ? attr_len(cookie) : 0;
	if (cookie)
		memcpy(s->cookie, attr_data(cookie), s->cookie_len);
}

/* What the tracker answers the ct action. */
static int ct_err;

static int
ct(void *ctx, struct packet *pkt, struct flow_key *key,
   const struct ct_action *a)
{
	return ct_err;
}

/* The drops the engine reported since run(), and the last one's reason. */
static int n_drops;
static uint32_t drop_reason;

static void
drop(void *ctx, const struct packet *pkt, uint32_t reason)
{
	n_drops++;
	drop_reason = reason;
}

static const struct actions_env env = {
	.output = output, .userspace = userspace, .recirc = recirc,
	.meter = meter, .psample = psample, .ct = ct, .drop = drop,
};

#define TCP_FRAME_MAX	128

/* Ethernet, then 'labels' MPLS labels (the last bottom of stack) if not 0,
 * then IPv4 with TTL 'ttl' and a TCP SYN with an MSS option, checksums
 * right. */
static uint32_t
tcp_frame(uint8_t *f, int labels, uint8_t ttl)
{
	static const uint8_t mss[] = { 2, 4, 5, 0xb4 };
	struct tcphdr *th;
	struct iphdr *ip;
	struct fb b;

	fb_init(&b, f, TCP_FRAME_MAX);
	fb_eth(&b, labels ? ETH_P_MPLS_UC : ETH_P_IP);
	for (int i = 0; i < labels; i++) {
		uint32_t lse = htonl((uint32_t)(2 + i) << 12 |
				     (i == labels - 1 ? 0x100 : 0) | 64);

		fb_put(&b, &lse, 4);
	}
	ip = fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_TCP);
	ip->id = htons(1);
	ip->frag_off = htons(0x4000);	/* DF */
	ip->ttl = ttl;
	th = fb_tcp(&b, 12345, 80, 1, 0, FB_SYN);
	th->doff = 6;
	th->window = htons(0x1000);
	fb_put(&b, mss, sizeof(mss));
	return fb_end(&b);
}

/* Whether the IPv4 and TCP checksums of an Ethernet frame verify. */
static bool
sums_ok(const uint8_t *f, uint32_t len)
{
	return fb_csums_ok(f + ETH_HLEN, len - ETH_HLEN);
}

/* What the last run()'s actions_execute() returned. */
static int run_err;

static void
run(uint8_t *frame, uint32_t len, const struct attrs *acts,
    struct packet *pkt, struct flow_key *key, uint8_t *buf)
{
	struct actions_stored *stored;

	n_outs = 0;
	n_drops = 0;
	memset(outs, 0, sizeof(outs));
	packet_init(pkt, buf, 4096, len);
	memcpy(pkt->data, frame, len);
	memset(key, 0, sizeof(*key));
	assert_int_equal(flow_extract(pkt->data, pkt->len, key, &pkt->layers),
			 0);
	pkt->key_valid = true;
	stored = attrs_store_actions(acts, key);
	run_err = actions_execute(&env, pkt, key, stored);
	free(stored);
}

/* A set or set_masked action of one key attribute. */
static void
put_set(struct attrs *a, uint16_t action, uint16_t type, const void *data,
	size_t len)
{
	struct nlattr *set = msgbuf_nest_start(&a->mb, action);

	attrs_put(a, type, data, len);
	msgbuf_nest_end(&a->mb, set);
}

static void
put_flag_attr(struct attrs *a, uint16_t type)
{
	attrs_put(a, type, NULL, 0);
}

/* set(tunnel(...)) of the tunnel attributes t, into a. */
static void
put_set_tunnel(struct attrs *a, const struct attrs *t)
{
	put_set(a, OVS_ACTION_ATTR_SET, OVS_KEY_ATTR_TUNNEL, attrs_data(t),
		attrs_len(t));
}

/* The stored form of the list a on a TCP flow. */
static struct actions_stored *
store_tcp(const struct attrs *a)
{
	uint8_t f[TCP_FRAME_MAX];
	struct flow_key key;

	memset(&key, 0, sizeof(key));
	assert_int_equal(flow_extract(f, tcp_frame(f, 0, 64), &key,
				      &(struct flow_layers){ 0 }), 0);
	return attrs_store_actions(a, &key);
}

/* The set(tunnel) at the start of a stored list holds exactly want's
 * attributes. */
static void
assert_stored_tunnel(const struct actions_stored *st, const struct attrs *want)
{
	const struct nlattr *set = (const void *)st->data, *tun;

	assert_int_equal(attr_type(set), OVS_ACTION_ATTR_SET);
	tun = attr_data(set);
	assert_int_equal(attr_len(set), NLA_ALIGN(tun->nla_len));
	assert_int_equal(attr_type(tun), OVS_KEY_ATTR_TUNNEL);
	assert_int_equal(attr_len(tun), attrs_len(want));
	assert_memory_equal(attr_data(tun), attrs_data(want), attrs_len(want));
}

/* set(tunnel) is parsed once, at install, and dumped back as the kernel
 * does from its parsed form: its attributes in the kernel's order, zeros
 * left out, a critical geneve option found, ERSPAN options cut to the
 * kernel's struct, the bridge mode bare. */
static void
test_set_tunnel_stored(void **state)
{
	static const uint8_t geneve[8] = { 0x01, 0x02, 0x80, 0x01,
					   0xde, 0xad, 0xbe, 0xef };
	static const uint8_t dst6[16] = { 0xfd, [15] = 2 };
	static struct attrs a, t, want;
	struct actions_stored *st;
	const struct tun_key *tun;
	uint8_t erspan[20] = { 0 };

	attrs_init(&t);
	msgbuf_put_u8(&t.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	msgbuf_put_u32(&t.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(0x0a000002));
	msgbuf_put_u8(&t.mb, OVS_TUNNEL_KEY_ATTR_TOS, 0);
	msgbuf_put_u64(&t.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(42));
	msgbuf_put_u16(&t.mb, OVS_TUNNEL_KEY_ATTR_TP_SRC, 0);
	attrs_put(&t, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve, 8);
	msgbuf_put_u32(&t.mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC, htonl(0x0a000001));
	attrs_init(&a);
	put_set_tunnel(&a, &t);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	st = store_tcp(&a);
	assert_int_equal(st->n_tun, 1);
	assert_int_equal(st->tun[0].offset, 0);
	tun = &st->tun[0].tun;
	assert_int_equal(tun->family, AF_INET);
	assert_int_equal(tun->flags,
			 TUN_F_KEY | TUN_F_GENEVE_OPT | TUN_F_CRIT_OPT);
	assert_true(tun->id == htobe64(42));
	assert_int_equal(tun->ipv4_src, htonl(0x0a000001));
	assert_int_equal(tun->ttl, 64);
	assert_int_equal(tun->opts_len, 8);
	assert_memory_equal(tun_key_opts_const(tun), geneve, 8);
	attrs_init(&want);
	msgbuf_put_u64(&want.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(42));
	msgbuf_put_u32(&want.mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC,
		       htonl(0x0a000001));
	msgbuf_put_u32(&want.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
		       htonl(0x0a000002));
	msgbuf_put_u8(&want.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	attrs_put(&want, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve, 8);
	assert_stored_tunnel(st, &want);
	/* The output after it, as it came. */
	assert_int_equal(attr_type((const void *)(st->data + 4 + 4 +
						  attrs_len(&want))),
			 OVS_ACTION_ATTR_OUTPUT);
	free(st);

	/* The bridge mode: a key id and the flag, nothing else. */
	attrs_init(&t);
	put_flag_attr(&t, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	msgbuf_put_u8(&t.mb, OVS_TUNNEL_KEY_ATTR_TTL, 0);
	msgbuf_put_u64(&t.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(5));
	attrs_init(&a);
	put_set_tunnel(&a, &t);
	st = store_tcp(&a);
	assert_true(tun_key_bridge(&st->tun[0].tun));
	attrs_init(&want);
	msgbuf_put_u64(&want.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(5));
	put_flag_attr(&want, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	assert_stored_tunnel(st, &want);
	free(st);

	/* IPv6 with 20 bytes of ERSPAN options: 12 kept, the rest gone. */
	for (int i = 0; i < (int)sizeof(erspan); i++)
		erspan[i] = (uint8_t)(i + 1);
	attrs_init(&t);
	attrs_put(&t, OVS_TUNNEL_KEY_ATTR_IPV6_DST, dst6, 16);
	msgbuf_put_u8(&t.mb, OVS_TUNNEL_KEY_ATTR_TTL, 9);
	attrs_put(&t, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, erspan, sizeof(erspan));
	attrs_init(&a);
	put_set_tunnel(&a, &t);
	st = store_tcp(&a);
	tun = &st->tun[0].tun;
	assert_int_equal(tun->family, AF_INET6);
	assert_int_equal(tun->opts_len, 12);
	assert_memory_equal(tun_key_opts_const(tun), erspan + 8, 12);
	for (int i = 0; i < TUN_OPTS_MAX - 12; i++)
		assert_int_equal(tun->opts[i], 0);
	attrs_init(&want);
	attrs_put(&want, OVS_TUNNEL_KEY_ATTR_IPV6_DST, dst6, 16);
	msgbuf_put_u8(&want.mb, OVS_TUNNEL_KEY_ATTR_TTL, 9);
	attrs_put(&want, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, erspan + 8, 12);
	assert_stored_tunnel(st, &want);
	free(st);
}

/* The tunnel a packet leaves by: each output sees the last set(tunnel)
 * on its copy, a clone's stays in the clone, recirculation keeps it. */
static void
test_set_tunnel_egress(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	static struct attrs a, t1, t2;
	struct flow_key key;
	struct nlattr *clone;
	struct packet pkt;

	attrs_init(&t1);
	msgbuf_put_u32(&t1.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u8(&t1.mb, OVS_TUNNEL_KEY_ATTR_TTL, 1);
	attrs_init(&t2);
	msgbuf_put_u32(&t2.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(2));
	msgbuf_put_u8(&t2.mb, OVS_TUNNEL_KEY_ATTR_TTL, 2);
	attrs_init(&a);
	clone = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CLONE);
	put_set_tunnel(&a, &t1);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, clone);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	put_set_tunnel(&a, &t2);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 3);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 4);
	memset(&recirc_tun, 0, sizeof(recirc_tun));
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 3);
	assert_int_equal(outs[0].port, 2);
	assert_int_equal(outs[0].tun.ipv4_dst, htonl(1));
	assert_int_equal(outs[0].tun.ttl, 1);
	assert_int_equal(outs[1].port, 1);
	assert_int_equal(outs[1].tun.family, 0);
	assert_int_equal(outs[2].port, 3);
	assert_int_equal(outs[2].tun.ipv4_dst, htonl(2));
	assert_int_equal(recirc_tun.ipv4_dst, htonl(2));
	/* The way out is not the way in: the key has no tunnel. */
	assert_int_equal(recirc_key.tun.family, 0);
	assert_int_equal(recirc_key.recirc_id, 4);
}

static void
test_set_ipv4_and_ports_keep_checksums(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	struct ovs_key_ipv4 ip[2];
	struct ovs_key_tcp tcp[2];
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;
	uint32_t len = tcp_frame(f, 0, 64);

	assert_true(sums_ok(f, len));
	memset(ip, 0, sizeof(ip));
	ip[0].ipv4_src = htonl(0xc0a80001);
	ip[0].ipv4_ttl = 7;
	ip[1].ipv4_src = 0xffffffff;
	ip[1].ipv4_ttl = 0xff;
	attrs_init(&a);
	put_set(&a, OVS_ACTION_ATTR_SET_MASKED, OVS_KEY_ATTR_IPV4, ip,
		sizeof(ip));
	tcp[0].tcp_src = 0;
	tcp[0].tcp_dst = htons(8080);
	tcp[1].tcp_src = 0;
	tcp[1].tcp_dst = 0xffff;
	put_set(&a, OVS_ACTION_ATTR_SET_MASKED, OVS_KEY_ATTR_TCP, tcp,
		sizeof(tcp));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 3);
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

/* set(sctp) and set_masked(sctp) keep SCTP's CRC32c right, and carry an
 * error it had (set_sctp), over IPv4 and IPv6. */
static void
set_sctp(bool v6, bool masked, bool bad)
{
	static const uint8_t one[16] = { [15] = 1 }, two[16] = { [15] = 2 };
	uint8_t f[TCP_FRAME_MAX], buf[4096], want[4], got[4];
	uint32_t l4 = ETH_HLEN + (v6 ? 40 : 20), len;
	struct ovs_key_sctp sc[2];
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;
	struct fb b;

	fb_init(&b, f, sizeof(f));
	fb_eth(&b, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6)
		fb_ipv6(&b, one, two, IPPROTO_SCTP);
	else
		fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_SCTP);
	fb_ports(&b, IPPROTO_SCTP, 5000, 80);
	fb_put(&b, "chunk of sixteen", 16);
	len = fb_end(&b);
	assert_true(sums_ok(f, len));
	if (bad)
		f[l4 + 9] ^= 0x21;
	sc[0].sctp_src = htons(6000);
	sc[0].sctp_dst = masked ? 0 : htons(80);
	sc[1].sctp_src = 0xffff;
	sc[1].sctp_dst = 0;
	attrs_init(&a);
	put_set(&a, masked ? OVS_ACTION_ATTR_SET_MASKED : OVS_ACTION_ATTR_SET,
		OVS_KEY_ATTR_SCTP, sc, masked ? sizeof(sc) : sizeof(sc[0]));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(outs[0].frame[l4] << 8 | outs[0].frame[l4 + 1], 6000);
	assert_int_equal(key.tp_src, htons(6000));
	if (!bad) {
		assert_true(sums_ok(outs[0].frame, len));
		return;
	}
	/* The error is the same bits off the right CRC as before. */
	assert_false(sums_ok(outs[0].frame, len));
	memcpy(got, outs[0].frame + l4 + 8, 4);
	outs[0].frame[l4 + 9] ^= 0x21;
	assert_true(sums_ok(outs[0].frame, len));
	memcpy(want, outs[0].frame + l4 + 8, 4);
	assert_int_equal(got[1] ^ want[1], 0x21);
}

static void
test_set_sctp_keeps_crc(void **state)
{
	for (int i = 0; i < 8; i++)
		set_sctp(i & 1, i & 2, i & 4);
}

static void
test_vlan_push_pop_and_trunc(void **state)
{
	struct ovs_action_push_vlan pv = { htons(ETH_P_8021Q),
					   htons(0x1000 | 100) };
	struct ovs_action_trunc tr = { 20 }, tr14 = { 14 };
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	static struct attrs a;
	uint32_t len = tcp_frame(f, 0, 64);
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof(pv));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	attrs_put(&a, OVS_ACTION_ATTR_TRUNC, &tr, sizeof(tr));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	attrs_put(&a, OVS_ACTION_ATTR_POP_VLAN, NULL, 0);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	/* trunc() keeps a length, as the kernel's: an action after it that
	 * shrinks the packet does not make the output shorter (when it took
	 * more than trunc() kept, as pop_nsh may, the bytes to cut were once
	 * more than the packet's: fuzz-actions' crash-*). */
	attrs_put(&a, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof(pv));
	attrs_put(&a, OVS_ACTION_ATTR_TRUNC, &tr, sizeof(tr));
	attrs_put(&a, OVS_ACTION_ATTR_POP_VLAN, NULL, 0);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	attrs_put(&a, OVS_ACTION_ATTR_TRUNC, &tr14, sizeof(tr14));
	attrs_put(&a, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 5);
	/* Tagged: 802.1Q, VID 100, the CFI bit not on the wire. */
	assert_int_equal(outs[0].len, len + 4);
	assert_memory_equal(outs[0].frame + 12, "\x81\x00\x00\x64\x08\x00", 6);
	/* Truncated to 20 bytes for one output only. */
	assert_int_equal(outs[1].len, 20);
	assert_int_equal(outs[2].len, len);
	assert_memory_equal(outs[2].frame, f, len);
	assert_int_equal(outs[3].len, 20);
	assert_memory_equal(outs[3].frame, f, 20);
	/* The IPv4 packet's first 14 bytes. */
	assert_int_equal(outs[4].len, 14);
	assert_memory_equal(outs[4].frame, f + 14, 14);
}

/* psample(group, cookie) nested in a. */
static void
put_psample(struct attrs *a, uint32_t group, const char *cookie)
{
	struct nlattr *ps = msgbuf_nest_start(&a->mb,
					      TAPDP_ACTION_ATTR_PSAMPLE);

	msgbuf_put_u32(&a->mb, TAPDP_PSAMPLE_ATTR_GROUP, group);
	if (cookie)
		attrs_put(a, TAPDP_PSAMPLE_ATTR_COOKIE, cookie, strlen(cookie));
	msgbuf_nest_end(&a->mb, ps);
}

/* sample(probability, actions) whose actions are psample(group). */
static void
put_sample_psample(struct attrs *a, uint32_t prob, uint32_t group)
{
	struct nlattr *smp = msgbuf_nest_start(&a->mb, OVS_ACTION_ATTR_SAMPLE);
	struct nlattr *acts;

	msgbuf_put_u32(&a->mb, OVS_SAMPLE_ATTR_PROBABILITY, prob);
	acts = msgbuf_nest_start(&a->mb, OVS_SAMPLE_ATTR_ACTIONS);
	put_psample(a, group, NULL);
	msgbuf_nest_end(&a->mb, acts);
	msgbuf_nest_end(&a->mb, smp);
}

/* psample as the kernel's execute_psample: the data a trunc() before it
 * left (and then the whole packet again), the cookie, and the rate: the
 * probability of the sample() around it, UINT32_MAX outside one and
 * again after it. */
static void
test_psample(void **state)
{
	struct ovs_action_trunc tr = { 14 };
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	static struct attrs a;
	uint32_t len = tcp_frame(f, 0, 64);
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_TRUNC, &tr, sizeof(tr));
	put_psample(&a, 1, "\xc0\xff\xee");
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	put_sample_psample(&a, UINT32_MAX, 2);
	/* Passes but once in 2^32. */
	put_sample_psample(&a, UINT32_MAX - 1, 3);
	put_psample(&a, 4, NULL);
	n_samples = 0;
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(outs[0].len, len);
	assert_int_equal(samples[0].group, 1);
	assert_int_equal(samples[0].len, 14);
	assert_int_equal(samples[0].rate, UINT32_MAX);
	assert_int_equal(samples[0].cookie_len, 3);
	assert_memory_equal(samples[0].cookie, "\xc0\xff\xee", 3);
	assert_int_equal(samples[1].group, 2);
	assert_int_equal(samples[1].len, len);
	assert_int_equal(samples[1].rate, UINT32_MAX);
	assert_int_equal(samples[1].cookie_len, 0);
	assert_int_equal(n_samples, 4);
	assert_int_equal(samples[2].group, 3);
	assert_int_equal(samples[2].rate, UINT32_MAX - 1);
	assert_int_equal(samples[3].group, 4);
	assert_int_equal(samples[3].rate, UINT32_MAX);
}

/* sample() at 25% lets about a quarter of the packets through to its
 * psample. */
static void
test_psample_sampled_share(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	static struct attrs a;
	uint32_t len = tcp_frame(f, 0, 64);
	struct flow_key key;
	struct packet pkt;
	int hits = 0;

	attrs_init(&a);
	put_sample_psample(&a, 0x40000000, 3);
	for (int i = 0; i < 4000; i++) {
		n_samples = 0;
		run(f, len, &a, &pkt, &key, buf);
		hits += n_samples;
	}
	assert_in_range(hits, 800, 1200);
}

static void
test_clone_isolates_and_drop_stops(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	struct ovs_key_ethernet eth[2];
	static struct attrs a;
	struct flow_key key;
	struct nlattr *clone;
	struct packet pkt;

	memset(eth, 0, sizeof(eth));
	memset(eth[0].eth_dst, 0xaa, 6);
	memset(eth[1].eth_dst, 0xff, 6);
	attrs_init(&a);
	clone = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CLONE);
	put_set(&a, OVS_ACTION_ATTR_SET_MASKED, OVS_KEY_ATTR_ETHERNET, eth,
		sizeof(eth));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, clone);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	msgbuf_put_u32(&a.mb, TAPDP_ACTION_ATTR_DROP, 0);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 2);
	assert_int_equal(outs[0].port, 2);
	assert_int_equal(outs[0].frame[0], 0xaa);
	/* The clone's rewrite did not reach the original. */
	assert_int_equal(outs[1].port, 1);
	assert_int_equal(outs[1].frame[0], 2);
}

/* The kernel validates a set of ct_mark but fails it when it runs: the
 * packet goes no further, and the execution returns -EINVAL. */
static void
test_set_ct_mark_drops(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64), mark = 5;
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	put_set(&a, OVS_ACTION_ATTR_SET, OVS_KEY_ATTR_CT_MARK, &mark, 4);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(run_err, -EINVAL);
	assert_int_equal(n_drops, 1);
	assert_int_equal(drop_reason, TAPDP_DROP_OVS_ACTION_ERROR);
}

/* clone(set(ct_mark), output:2) then output:1, or the same in a sample
 * of probability 1: the branch's error ends the list around it too (the
 * kernel frees the original as an action error), first packet out or
 * not; as the last action, the branch ends it by itself. */
static void
test_branch_error_ends_list(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64), mark = 5;
	static struct attrs a;
	struct nlattr *br, *acts;
	struct flow_key key;
	struct packet pkt;

	for (int sample = 0; sample < 2; sample++) {
		for (int last = 0; last < 2; last++) {
			attrs_init(&a);
			if (sample) {
				br = msgbuf_nest_start(&a.mb,
						       OVS_ACTION_ATTR_SAMPLE);
				msgbuf_put_u32(&a.mb,
					       OVS_SAMPLE_ATTR_PROBABILITY,
					       UINT32_MAX);
				acts = msgbuf_nest_start(
					&a.mb, OVS_SAMPLE_ATTR_ACTIONS);
			} else {
				br = msgbuf_nest_start(&a.mb,
						       OVS_ACTION_ATTR_CLONE);
				acts = NULL;
			}
			put_set(&a, OVS_ACTION_ATTR_SET, OVS_KEY_ATTR_CT_MARK,
				&mark, 4);
			msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
			if (acts)
				msgbuf_nest_end(&a.mb, acts);
			msgbuf_nest_end(&a.mb, br);
			if (!last)
				msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT,
					       1);
			run(f, len, &a, &pkt, &key, buf);
			assert_int_equal(run_err, -EINVAL);
			assert_int_equal(n_outs, 0);
			assert_int_equal(n_drops, last ? 1 : 2);
			assert_int_equal(drop_reason,
					 TAPDP_DROP_OVS_ACTION_ERROR);
		}
	}
}

/* The tracker's error (a zone at its limit: -ENOMEM) ends the list and is
 * returned; a fragment it holds (-EINPROGRESS) ends it without one. */
static void
test_ct_error_returned(void **state)
{
	static const int errs[] = { 0, -ENOMEM, -EINPROGRESS };
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;
	struct nlattr *c;

	attrs_init(&a);
	c = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CT);
	msgbuf_put(&a.mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_nest_end(&a.mb, c);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		ct_err = errs[i];
		run(f, len, &a, &pkt, &key, buf);
		assert_int_equal(run_err, errs[i] == -ENOMEM ? -ENOMEM : 0);
		assert_int_equal(n_outs, errs[i] ? 0 : 1);
		/* The tracker's callback reports its own drops. */
		assert_int_equal(n_drops, 0);
	}
	ct_err = 0;
}

/* pop_nsh fails as nsh_pop(): a length under the base header's -EINVAL,
 * a next protocol it cannot name -EAFNOSUPPORT, a header longer than the
 * packet -ENOMEM. */
static void
test_pop_nsh_errors(void **state)
{
	static const struct {
		uint8_t len_words, np;
		int err;
	} cases[] = {
		{ 1, 1, -EINVAL }, { 2, 0x7f, -EAFNOSUPPORT },
		{ 63, 1, -ENOMEM },
	};
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	msgbuf_put(&a.mb, OVS_ACTION_ATTR_POP_NSH, 0, NULL);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	/* An Ethernet frame of an NSH packet (MD type 1, 6 words, over
	 * IPv4), which validation lets pop_nsh run on. */
	f[12] = ETH_P_NSH >> 8;
	f[13] = ETH_P_NSH & 0xff;
	memset(f + 14, 0, 24);
	f[15] = 6;
	f[16] = 1;
	f[17] = 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* The header is read at the packet's start, as nsh_pop()
		 * reads it: here in the Ethernet addresses. */
		f[0] = 0;
		f[1] = cases[i].len_words;
		f[3] = cases[i].np;
		run(f, len, &a, &pkt, &key, buf);
		assert_int_equal(run_err, cases[i].err);
		assert_int_equal(n_outs, 0);
		assert_int_equal(drop_reason, TAPDP_DROP_OVS_ACTION_ERROR);
	}
}

static void
test_dec_ttl_expiry(void **state)
{
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 1);	/* TTL 1: expires */
	struct nlattr *dec, *act, *user;
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	/* On expiry, the nested list: a userspace action. */
	attrs_init(&a);
	dec = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_DEC_TTL);
	act = msgbuf_nest_start(&a.mb, OVS_DEC_TTL_ATTR_ACTION);
	user = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&a.mb, OVS_USERSPACE_ATTR_PID, 7);
	msgbuf_nest_end(&a.mb, user);
	msgbuf_nest_end(&a.mb, act);
	msgbuf_nest_end(&a.mb, dec);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].upcalls, 1);
	assert_int_equal(n_outs, 0);	/* the list ended with the expiry */
	/* TTL 64: decremented, checksum still right, forwarded. */
	len = tcp_frame(f, 0, 64);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 1);
	assert_int_equal(outs[0].frame[22], 63);
	assert_true(sums_ok(outs[0].frame, len));

	/* An attribute of a later kernel in front of the list is skipped,
	 * kept nowhere: the list is what runs on expiry. (It was kept,
	 * first in the nest, and run in the list's place.) */
	attrs_init(&a);
	dec = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_DEC_TTL);
	act = msgbuf_nest_start(&a.mb, OVS_DEC_TTL_ATTR_MAX + 1);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, act);
	act = msgbuf_nest_start(&a.mb, OVS_DEC_TTL_ATTR_ACTION);
	user = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&a.mb, OVS_USERSPACE_ATTR_PID, 7);
	msgbuf_nest_end(&a.mb, user);
	msgbuf_nest_end(&a.mb, act);
	msgbuf_nest_end(&a.mb, dec);
	len = tcp_frame(f, 0, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].upcalls, 1);
	assert_int_equal(n_outs, 0);
}

static void
test_mpls_push_pop_roundtrip(void **state)
{
	struct ovs_action_push_mpls pm = { htonl(0x12345140),
					   htons(ETH_P_MPLS_UC) };
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_PUSH_MPLS, &pm, sizeof(pm));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	msgbuf_put_u16(&a.mb, OVS_ACTION_ATTR_POP_MPLS, htons(ETH_P_IP));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(n_outs, 2);
	assert_int_equal(outs[0].len, len + 4);
	assert_memory_equal(outs[0].frame + 12, "\x88\x47\x12\x34\x51\x40", 6);
	assert_int_equal(outs[1].len, len);
	assert_memory_equal(outs[1].frame, f, len);
}

/* pop_eth and pop_mpls leave an L3 packet: recirculated, its key is the
 * IPv4 packet's (a megaflow may match its protocol and ports); push_eth
 * gives it back an Ethernet header for the output. One and two labels,
 * the TCP frame under them as the MPLS decap flows take it apart. */
static void
test_mpls_to_l3_and_back(void **state)
{
	struct ovs_action_push_eth pe = {
		.addresses = { .eth_src = { 2, 0, 0, 0, 0, 0xa },
			       .eth_dst = { 2, 0, 0, 0, 0, 0xb } },
	};
	uint16_t ip = htons(ETH_P_IP);
	uint8_t f[TCP_FRAME_MAX], want[TCP_FRAME_MAX], buf[4096];
	uint32_t len, wlen = tcp_frame(want, 0, 64);
	static struct attrs a, b;
	struct flow_key key;
	struct packet pkt;

	memcpy(want, pe.addresses.eth_dst, 6);
	memcpy(want + 6, pe.addresses.eth_src, 6);
	for (int n = 1; n <= 2; n++) {
		len = tcp_frame(f, n, 64);
		attrs_init(&a);
		attrs_init(&b);
		attrs_put(&a, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
		attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
		for (int i = 1; i < n; i++) {
			msgbuf_put_u16(&a.mb, OVS_ACTION_ATTR_POP_MPLS,
				       htons(ETH_P_MPLS_UC));
			msgbuf_put_u16(&b.mb, OVS_ACTION_ATTR_POP_MPLS,
				       htons(ETH_P_MPLS_UC));
		}
		msgbuf_put_u16(&a.mb, OVS_ACTION_ATTR_POP_MPLS, ip);
		msgbuf_put_u16(&b.mb, OVS_ACTION_ATTR_POP_MPLS, ip);
		msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 9);
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

		attrs_put(&b, OVS_ACTION_ATTR_PUSH_ETH, &pe, sizeof(pe));
		msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 5);
		run(f, len, &b, &pkt, &key, buf);
		assert_int_equal(n_outs, 1);
		assert_int_equal(outs[0].len, wlen);
		assert_memory_equal(outs[0].frame, want, wlen);
		assert_int_equal(key.mac_proto, FLOW_MAC_ETHERNET);
	}
}

/* push_nsh(base, context attribute md_type of md_len bytes). */
static void
put_push_nsh(struct attrs *a, uint8_t mdtype, uint16_t md_type,
	     const void *md, size_t md_len)
{
	struct ovs_nsh_key_base base = {
		.flags = 2, .ttl = 63, .mdtype = mdtype, .np = 0x55,
		.path_hdr = htonl(0x00006407),
	};
	struct nlattr *p = msgbuf_nest_start(&a->mb, OVS_ACTION_ATTR_PUSH_NSH);
	struct nlattr *n = msgbuf_nest_start(&a->mb, OVS_KEY_ATTR_NSH);

	attrs_put(a, OVS_NSH_KEY_ATTR_BASE, &base, sizeof(base));
	attrs_put(a, md_type, md, md_len);
	msgbuf_nest_end(&a->mb, n);
	msgbuf_nest_end(&a->mb, p);
}

/* push_nsh in front of an Ethernet frame (next protocol Ethernet, the
 * key's np ignored), then an Ethernet header; the other side pops both
 * and has the frame back. MD type 1 and 2. */
static void
test_nsh_push_pop(void **state)
{
	static const uint8_t md1[16] = { 1, 2, 3, 4, [15] = 0x10 };
	static const uint8_t md2[8] = { 0, 1, 1, 4, 0xa, 0xb, 0xc, 0xd };
	static const uint8_t hdr1[8] = { 0x2f, 0xc6, 1, 3, 0, 0, 0x64, 7 };
	static const uint8_t hdr2[8] = { 0x2f, 0xc4, 2, 3, 0, 0, 0x64, 7 };
	struct ovs_action_push_eth pe = {
		.addresses = { .eth_src = { 2, 0, 0, 0, 0, 0xa },
			       .eth_dst = { 2, 0, 0, 0, 0, 0xb } },
	};
	uint8_t f[TCP_FRAME_MAX], buf[4096], wire[2048];
	uint32_t len = tcp_frame(f, 0, 64), wlen;
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	for (int md = 1; md <= 2; md++) {
		uint32_t hlen = md == 1 ? 24 : 16;

		/* a: push, then recirculate: an L3 NSH packet. */
		attrs_init(&a);
		put_push_nsh(&a, md, md == 1 ? OVS_NSH_KEY_ATTR_MD1
					     : OVS_NSH_KEY_ATTR_MD2,
			     md == 1 ? (const void *)md1 : md2,
			     md == 1 ? sizeof(md1) : sizeof(md2));
		msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 3);
		run(f, len, &a, &pkt, &key, buf);
		assert_true(recirc_l3);
		assert_int_equal(recirc_key.mac_proto, FLOW_MAC_NONE);
		assert_int_equal(recirc_key.eth_type, htons(ETH_P_NSH));
		assert_int_equal(recirc_key.nsh.base.flags, 2);
		assert_int_equal(recirc_key.nsh.base.ttl, 63);
		assert_int_equal(recirc_key.nsh.base.mdtype, md);
		assert_int_equal(recirc_key.nsh.base.np, 3);
		assert_int_equal(recirc_key.nsh.base.path_hdr,
				 htonl(0x00006407));
		if (md == 1)
			assert_memory_equal(recirc_key.nsh.context, md1, 16);

		/* The same with an Ethernet header, out of port 5. */
		attrs_init(&a);
		put_push_nsh(&a, md, md == 1 ? OVS_NSH_KEY_ATTR_MD1
					     : OVS_NSH_KEY_ATTR_MD2,
			     md == 1 ? (const void *)md1 : md2,
			     md == 1 ? sizeof(md1) : sizeof(md2));
		attrs_put(&a, OVS_ACTION_ATTR_PUSH_ETH, &pe, sizeof(pe));
		msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 5);
		run(f, len, &a, &pkt, &key, buf);
		assert_int_equal(n_outs, 1);
		wlen = outs[0].len;
		assert_int_equal(wlen, ETH_HLEN + hlen + len);
		memcpy(wire, outs[0].frame, wlen);
		assert_memory_equal(wire, pe.addresses.eth_dst, 6);
		assert_int_equal(wire[12] << 8 | wire[13], ETH_P_NSH);
		assert_memory_equal(wire + ETH_HLEN, md == 1 ? hdr1 : hdr2, 8);
		assert_memory_equal(wire + ETH_HLEN + 8,
				    md == 1 ? (const void *)md1 : md2,
				    hlen - 8);
		assert_memory_equal(wire + ETH_HLEN + hlen, f, len);

		/* b: pop_eth, pop_nsh: the frame as it was. */
		attrs_init(&a);
		attrs_put(&a, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
		attrs_put(&a, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
		msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 1);
		run(wire, wlen, &a, &pkt, &key, buf);
		assert_int_equal(n_outs, 1);
		assert_int_equal(outs[0].len, len);
		assert_memory_equal(outs[0].frame, f, len);
		assert_false(pkt.l3);
		/* The key is parsed again when an action needs it; until
		 * then its type is the protocol NSH named. */
		assert_int_equal(key.mac_proto, FLOW_MAC_ETHERNET);
		assert_int_equal(key.eth_type, htons(ETH_P_TEB));
		assert_false(pkt.key_valid);
	}
}

/* An L3 packet's next protocol comes from its type; the headroom a long
 * MD type 2 header needs comes from the tailroom; a 248-byte context
 * wraps the length to 0 and the next protocol lands in the packet, as in
 * the kernel. */
static void
test_nsh_push_l3_and_lengths(void **state)
{
	static uint8_t md2[248];
	uint8_t f[TCP_FRAME_MAX], buf[4096];
	uint32_t len = tcp_frame(f, 0, 64);
	static struct attrs a;
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	put_push_nsh(&a, 2, OVS_NSH_KEY_ATTR_MD2, md2, 4);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 3);
	run(f, len, &a, &pkt, &key, buf);
	assert_true(recirc_l3);
	assert_int_equal(recirc_key.nsh.base.np, 1);	/* IPv4 */
	assert_int_equal(pkt.len, len - ETH_HLEN + 12);
	assert_int_equal(pkt.data[1] & 0x3f, 3);
	assert_memory_equal(pkt.data + 12, f + ETH_HLEN, len - ETH_HLEN);

	/* 5 bytes of context: cut to 4. */
	attrs_init(&a);
	put_push_nsh(&a, 2, OVS_NSH_KEY_ATTR_MD2, md2, 5);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 5);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].len, len + 12);
	assert_memory_equal(outs[0].frame + 12, f, len);

	/* 240 bytes: 248 of header, more than the headroom. */
	memset(md2, 0x5a, sizeof(md2));
	attrs_init(&a);
	put_push_nsh(&a, 2, OVS_NSH_KEY_ATTR_MD2, md2, 240);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 5);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].len, len + 248);
	assert_int_equal(outs[0].frame[1] & 0x3f, 62);
	assert_int_equal(outs[0].frame[8], 0x5a);
	assert_memory_equal(outs[0].frame + 248, f, len);

	/* 248: nothing pushed, byte 3 of the frame is the protocol. */
	attrs_init(&a);
	put_push_nsh(&a, 2, OVS_NSH_KEY_ATTR_MD2, md2, 248);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 5);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_equal(outs[0].len, len);
	assert_int_equal(outs[0].frame[3], 3);
	assert_memory_equal(outs[0].frame + 4, f + 4, len - 4);
}

/* The hash action: the packet's hash with the action's basis folded in,
 * never 0; the same both ways of a connection, another for another port
 * or another basis. */
static uint32_t
dp_hash_of(uint8_t *f, uint32_t len, uint32_t basis)
{
	struct ovs_action_hash h = { .hash_alg = OVS_HASH_ALG_L4,
				     .hash_basis = basis };
	static struct attrs a;
	uint8_t buf[4096];
	struct flow_key key;
	struct packet pkt;

	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_HASH, &h, sizeof(h));
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_RECIRC, 1);
	run(f, len, &a, &pkt, &key, buf);
	assert_int_not_equal(pkt.hash, 0);
	assert_int_not_equal(recirc_key.dp_hash, 0);
	return recirc_key.dp_hash;
}

static void
test_hash_action(void **state)
{
	uint8_t f[TCP_FRAME_MAX], r[TCP_FRAME_MAX];
	uint32_t len = tcp_frame(f, 0, 64), h;

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
		cmocka_unit_test(test_set_sctp_keeps_crc),
		cmocka_unit_test(test_vlan_push_pop_and_trunc),
		cmocka_unit_test(test_psample),
		cmocka_unit_test(test_psample_sampled_share),
		cmocka_unit_test(test_clone_isolates_and_drop_stops),
		cmocka_unit_test(test_dec_ttl_expiry),
		cmocka_unit_test(test_set_ct_mark_drops),
		cmocka_unit_test(test_branch_error_ends_list),
		cmocka_unit_test(test_ct_error_returned),
		cmocka_unit_test(test_pop_nsh_errors),
		cmocka_unit_test(test_mpls_push_pop_roundtrip),
		cmocka_unit_test(test_mpls_to_l3_and_back),
		cmocka_unit_test(test_hash_action),
		cmocka_unit_test(test_nsh_push_pop),
		cmocka_unit_test(test_nsh_push_l3_and_lengths),
		cmocka_unit_test(test_set_tunnel_stored),
		cmocka_unit_test(test_set_tunnel_egress),
	};

	return cmocka_run_group_tests_name("actions", tests, NULL, NULL);
}
