/* SPDX-License-Identifier: Apache-2.0 */
/* The connection tracker on crafted frames: the ct action's parsing and
 * errno, TCP states and windows, UDP, ICMP and the errors about a
 * connection, zones, mark and labels, NAT (ports, checksums, quoted
 * packets), zone limits, checksum validation and hostile packets; expiry
 * of connections, fragments and expectations on a clock the test drives. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/unaligned.h"
#include "ct/action-netlink.h"
#include "ct/conntrack.h"
#include "ct/frag.h"
#include "ct/seqadj.h"
#include "ct/tcp.h"
#include "ct/timeout.h"
#include "actions/actions.h"
#include "flow/extract.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/msg.h"
#include "packet/frame.h"
#include "tests/unit/builders.h"

#define A	0x0a000001	/* 10.0.0.1 */
#define B	0x0a000002	/* 10.0.0.2 */
#define NATIP	0xc0a80001	/* 192.168.0.1 */

struct frame {
	uint8_t buf[FRAME_HEADROOM + FRAME_MAX];
	struct packet pkt;
	struct flow_key key;
};

static struct conntrack *ct;

/* The frame of len bytes at buf's headroom as received: a packet in f,
 * with its key. */
static void
take(struct frame *f, uint8_t *buf, size_t cap, uint32_t len)
{
	packet_init(&f->pkt, buf, cap, len);
	memset(&f->key, 0, sizeof(f->key));
	assert_int_equal(flow_extract(f->pkt.data, f->pkt.len, &f->key,
				      &f->pkt.layers), 0);
	f->pkt.key_valid = true;
}

/* Begins a frame in f, Ethernet in front. */
static struct fb
eth_begin(struct frame *f, uint16_t type)
{
	struct fb b;

	memset(f->buf, 0, sizeof(f->buf));
	fb_init(&b, f->buf + FRAME_HEADROOM,
		sizeof(f->buf) - FRAME_HEADROOM);
	fb_eth(&b, type);
	return b;
}

static struct fb
ipv4_begin(struct frame *f, uint32_t src, uint32_t dst, uint8_t proto)
{
	struct fb b = eth_begin(f, ETH_P_IP);

	fb_ipv4(&b, src, dst, proto);
	return b;
}

/* Ends the frame begun in f: lengths, checksums, its key. */
static void
end(struct frame *f, struct fb *b)
{
	take(f, f->buf, sizeof(f->buf), fb_end(b));
}

/* A TCP segment with flags and a text payload (may be ""). */
static void
tcp_seg(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
	uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
	const char *text)
{
	struct fb b = ipv4_begin(f, src, dst, IPPROTO_TCP);

	fb_tcp(&b, sport, dport, seq, ack, flags);
	fb_put(&b, text, strlen(text));
	end(f, &b);
}

static void
tcp(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
    uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags)
{
	tcp_seg(f, src, dst, sport, dport, seq, ack, flags, "");
}

/* A TCP segment with a text payload (ACK|PSH). */
static void
tcp_text(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
	 uint16_t dport, uint32_t seq, uint32_t ack, const char *text)
{
	tcp_seg(f, src, dst, sport, dport, seq, ack, FB_ACK | FB_PSH, text);
}

/* A UDP datagram of 'len' bytes of payload. */
static void
udp_data(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
	 uint16_t dport, const void *data, size_t len)
{
	struct fb b = ipv4_begin(f, src, dst, IPPROTO_UDP);

	fb_udp(&b, sport, dport);
	fb_put(&b, data, len);
	end(f, &b);
}

static void
udp(struct frame *f, uint32_t src, uint32_t dst, uint16_t sport,
    uint16_t dport)
{
	udp_data(f, src, dst, sport, dport, "data", 4);
}

static void
echo(struct frame *f, uint32_t src, uint32_t dst, uint8_t type, uint16_t id)
{
	struct fb b = ipv4_begin(f, src, dst, IPPROTO_ICMP);
	struct icmphdr *ih = fb_icmp(&b, type, 0);

	ih->un.echo.id = htons(id);
	ih->un.echo.sequence = htons(1);
	end(f, &b);
}

/* An ICMP "port unreachable" quoting len bytes. */
static void
port_unreachable(struct frame *f, uint32_t src, uint32_t dst,
		 const void *quote, size_t len)
{
	struct fb b = ipv4_begin(f, src, dst, IPPROTO_ICMP);

	fb_icmp(&b, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH);
	fb_put(&b, quote, len);
	end(f, &b);
}

static struct ct_action
act(bool commit, uint16_t zone)
{
	struct ct_action a = { .family = AF_INET, .commit = commit,
			       .zone = zone };

	return a;
}

static int
run(struct frame *f, const struct ct_action *a)
{
	int err;

	rcu_read_lock();
	err = conntrack_execute(ct, &f->pkt, &f->key, a);
	rcu_read_unlock();
	return err;
}

/* Runs a fresh (untracked) frame through a and returns its ct_state. */
static uint8_t
state(struct frame *f, const struct ct_action *a)
{
	assert_int_equal(run(f, a), 0);
	return f->key.ct_state;
}

#define TRK	OVS_CS_F_TRACKED
#define NEW	OVS_CS_F_NEW
#define EST	OVS_CS_F_ESTABLISHED
#define REL	OVS_CS_F_RELATED
#define RPL	OVS_CS_F_REPLY_DIR
#define INV	OVS_CS_F_INVALID
#define SNAT	OVS_CS_F_SRC_NAT
#define DNAT	OVS_CS_F_DST_NAT

static int
setup(void **s)
{
	ct = conntrack_create(1000);
	return ct ? 0 : -1;
}

static int
teardown(void **s)
{
	conntrack_destroy(ct);
	return 0;
}

/* Parsing: the kernel's checks and errno. */

/* The ct action parse() reads, begun by ct_begin(). */
static struct attrs ct_attrs;
static struct nlattr *ct_nest;

static struct msgbuf *
ct_begin(void)
{
	attrs_init(&ct_attrs);
	ct_nest = msgbuf_nest_start(&ct_attrs.mb, OVS_ACTION_ATTR_CT);
	return &ct_attrs.mb;
}

/* Parses the action for a key of this EtherType and IP protocol. */
static int
parse(uint16_t eth_type, uint8_t proto, struct ct_action *out)
{
	struct flow_key key = { .eth_type = htons(eth_type),
				.ip_proto = proto };

	msgbuf_nest_end(&ct_attrs.mb, ct_nest);
	assert_false(ct_attrs.mb.overflow);
	return ct_action_parse(ct_nest, &key, out, false);
}

/* A NAT nest: its type attributes, then an address and a port. */
static void
put_nat(struct msgbuf *mb, uint16_t type, uint16_t type2)
{
	struct nlattr *nat = msgbuf_nest_start(mb, OVS_CT_ATTR_NAT);

	msgbuf_put(mb, type, 0, NULL);
	msgbuf_put_u32(mb, OVS_NAT_ATTR_IP_MIN, htonl(NATIP));
	msgbuf_put_u16(mb, OVS_NAT_ATTR_PROTO_MIN, 1000);
	if (type2)
		msgbuf_put(mb, type2, 0, NULL);
	msgbuf_nest_end(mb, nat);
}

static void
test_parse(void **s)
{
	uint32_t mark[2] = { 5, 0 };
	uint8_t labels[32] = { 0 };
	struct ct_action a;
	struct msgbuf *mb;

	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	assert_int_equal(parse(ETH_P_ARP, 0, &a), -EINVAL);
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	assert_true(a.commit && a.family == AF_INET);
	msgbuf_put_u16(mb, OVS_CT_ATTR_ZONE, 9);
	assert_int_equal(parse(ETH_P_IPV6, 0, &a), 0);
	assert_int_equal(a.zone, 9);
	assert_int_equal(a.family, AF_INET6);

	/* A mark or labels need a mask, and commit. */
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put(mb, OVS_CT_ATTR_MARK, sizeof(mark), mark);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	mark[1] = 0xff;
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put(mb, OVS_CT_ATTR_MARK, sizeof(mark), mark);
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	assert_int_equal(a.mark_mask, 0xff);
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_MARK, sizeof(mark), mark);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put(mb, OVS_CT_ATTR_LABELS, sizeof(labels), labels);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	labels[31] = 1;
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put(mb, OVS_CT_ATTR_LABELS, sizeof(labels), labels);
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	/* Wrong lengths, unknown attributes, unterminated names. */
	msgbuf_put_u32(ct_begin(), OVS_CT_ATTR_ZONE, 9);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put(ct_begin(), OVS_CT_ATTR_MAX + 1, 0, NULL);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put(ct_begin(), OVS_CT_ATTR_TIMEOUT, 3, "abc");
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put_string(ct_begin(), OVS_CT_ATTR_TIMEOUT, "tp");
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	assert_string_equal(a.timeout, "tp");
	/* Helpers exist for their protocol only. */
	msgbuf_put_string(ct_begin(), OVS_CT_ATTR_HELPER, "ftp");
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put_string(ct_begin(), OVS_CT_ATTR_HELPER, "sip");
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put_string(ct_begin(), OVS_CT_ATTR_HELPER, "ftp");
	assert_int_equal(parse(ETH_P_IP, IPPROTO_TCP, &a), 0);
	assert_int_equal(a.helper, CT_HELPER_FTP);
	assert_int_equal(parse(ETH_P_IP, IPPROTO_UDP, &a), -EINVAL);

	/* NAT: one type, ranges only with commit, lengths by family. */
	put_nat(ct_begin(), OVS_NAT_ATTR_SRC, 0);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	put_nat(mb, OVS_NAT_ATTR_SRC, 0);
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	assert_int_equal(a.nat, CT_ACTION_NAT | CT_ACTION_SNAT);
	assert_int_equal(a.range.max_addr.ip, htonl(NATIP)); /* max defaults */
	assert_int_equal(a.range.max_port, 1000);
	assert_int_equal(parse(ETH_P_IPV6, 0, &a), -EINVAL);
	mb = ct_begin();
	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	put_nat(mb, OVS_NAT_ATTR_SRC, OVS_NAT_ATTR_DST);
	assert_int_equal(parse(ETH_P_IP, 0, &a), -ERANGE);
	mb = ct_begin();
	{
		struct nlattr *nat = msgbuf_nest_start(mb, OVS_CT_ATTR_NAT);

		msgbuf_put(mb, OVS_NAT_ATTR_PERSISTENT, 0, NULL);
		msgbuf_nest_end(mb, nat);
	}
	assert_int_equal(parse(ETH_P_IP, 0, &a), -EINVAL);
	msgbuf_put(ct_begin(), OVS_CT_ATTR_NAT, 0, NULL);
	assert_int_equal(parse(ETH_P_IP, 0, &a), 0);
	assert_int_equal(a.nat, CT_ACTION_NAT);
}

/* A ct action of commit, the zone if 'zone' is not NULL, and a NAT to
 * NATIP and port 100 (the address given as the maximum too if 'ip_max'),
 * then an output. */
static void
put_ct_nat(struct msgbuf *mb, const uint16_t *zone, bool ip_max)
{
	struct nlattr *act = msgbuf_nest_start(mb, OVS_ACTION_ATTR_CT), *nat;

	msgbuf_put(mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	if (zone)
		msgbuf_put_u16(mb, OVS_CT_ATTR_ZONE, *zone);
	nat = msgbuf_nest_start(mb, OVS_CT_ATTR_NAT);
	msgbuf_put(mb, OVS_NAT_ATTR_DST, 0, NULL);
	msgbuf_put_u32(mb, OVS_NAT_ATTR_IP_MIN, htonl(NATIP));
	if (ip_max)
		msgbuf_put_u32(mb, OVS_NAT_ATTR_IP_MAX, htonl(NATIP));
	msgbuf_put_u16(mb, OVS_NAT_ATTR_PROTO_MIN, 100);
	msgbuf_nest_end(mb, nat);
	msgbuf_nest_end(mb, act);
	msgbuf_put_u32(mb, OVS_ACTION_ATTR_OUTPUT, 2);
}

/* Flow dumps give ct actions back as the kernel re-encodes them: commit,
 * the zone always, NAT maxima only when they differ. */
static void
test_stored_form(void **s)
{
	struct flow_key k = { .eth_type = htons(ETH_P_IP) };
	static struct attrs in, want;
	const uint16_t zone = 0;
	struct actions_stored *st;

	attrs_init(&in);
	put_ct_nat(&in.mb, NULL, true);
	st = attrs_store_actions(&in, &k);
	/* Expected: ct(commit, zone=0, nat(dst, ip_min, proto_min)), out. */
	attrs_init(&want);
	put_ct_nat(&want.mb, &zone, false);
	assert_int_equal(st->len, attrs_len(&want));
	assert_memory_equal(st->data, attrs_data(&want), attrs_len(&want));
	/* Beside it, the action parsed. */
	assert_int_equal(st->n_ct, 1);
	assert_int_equal(st->ct[0].offset, 0);
	assert_true(st->ct[0].ct.commit);
	assert_int_equal(st->ct[0].ct.nat, CT_ACTION_NAT | CT_ACTION_DNAT);
	assert_int_equal(st->ct[0].ct.range.max_addr.ip, htonl(NATIP));
	assert_int_equal(st->ct[0].ct.range.min_port, 100);
	free(st);
}

/* The action engine's callbacks: what the ct callback was given, and the
 * source address of what left. */
static const struct ct_action *ct_given[4];
static int n_ct_given;
static uint32_t out_src[4];
static int n_out;

static int
env_ct(void *ctx, struct packet *pkt, struct flow_key *key,
       const struct ct_action *a)
{
	ct_given[n_ct_given++] = a;
	return conntrack_execute(ct, pkt, key, a);
}

static void
env_output(void *ctx, const struct packet *pkt, const struct flow_key *key,
	   uint32_t port)
{
	memcpy(&out_src[n_out++], pkt->data + 14 + 12, 4);
}

static const struct actions_env env = {
	.output = env_output,
	.ct = env_ct,
};

static void
execute(struct frame *f, const struct actions_stored *st)
{
	/* No pointer into an earlier list stays here: LeakSanitizer sees
	 * one left unfreed. */
	memset(ct_given, 0, sizeof(ct_given));
	n_ct_given = n_out = 0;
	rcu_read_lock();
	actions_execute(&env, &f->pkt, &f->key, st);
	rcu_read_unlock();
}

/* A flow's ct actions are parsed once, when it is stored: packets run
 * the parsed form, nested lists included, and a dump gives back the
 * attributes as they came. */
static void
test_parse_once(void **s)
{
	struct ovs_action_push_mpls mpls = {
		.mpls_lse = htonl(0x100),
		.mpls_ethertype = htons(ETH_P_MPLS_UC),
	};
	struct nlattr *ct1, *clone, *ct2, *nat;
	static struct attrs a;
	struct actions_stored *st;
	struct frame f;

	/* ct(commit, zone=20, nat(src=NATIP)),
	 * clone(ct(zone=20), output:2), output:3 */
	attrs_init(&a);
	ct1 = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CT);
	msgbuf_put(&a.mb, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put_u16(&a.mb, OVS_CT_ATTR_ZONE, 20);
	nat = msgbuf_nest_start(&a.mb, OVS_CT_ATTR_NAT);
	msgbuf_put(&a.mb, OVS_NAT_ATTR_SRC, 0, NULL);
	msgbuf_put_u32(&a.mb, OVS_NAT_ATTR_IP_MIN, htonl(NATIP));
	msgbuf_nest_end(&a.mb, nat);
	msgbuf_nest_end(&a.mb, ct1);
	clone = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CLONE);
	ct2 = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CT);
	msgbuf_put_u16(&a.mb, OVS_CT_ATTR_ZONE, 20);
	msgbuf_nest_end(&a.mb, ct2);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_nest_end(&a.mb, clone);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 3);

	udp(&f, A, B, 5000, 53);
	st = attrs_store_actions(&a, &f.key);
	assert_int_equal(st->len, attrs_len(&a));
	assert_memory_equal(st->data, attrs_data(&a), attrs_len(&a));
	assert_int_equal(st->n_ct, 2);
	assert_int_equal(st->ct[0].offset, 0);
	assert_int_equal(st->ct[1].offset, NLA_ALIGN(ct1->nla_len) +
					   NLA_HDRLEN);
	assert_true(st->ct[0].ct.commit);
	assert_int_equal(st->ct[0].ct.zone, 20);
	assert_int_equal(st->ct[0].ct.nat, CT_ACTION_NAT | CT_ACTION_SNAT);
	assert_int_equal(st->ct[0].ct.range.min_addr.ip, htonl(NATIP));
	assert_false(st->ct[1].ct.commit);
	assert_int_equal(st->ct[1].ct.zone, 20);

	execute(&f, st);
	assert_int_equal(n_ct_given, 2);
	assert_ptr_equal(ct_given[0], &st->ct[0].ct);
	assert_ptr_equal(ct_given[1], &st->ct[1].ct);
	assert_int_equal(n_out, 2);
	assert_int_equal(out_src[0], htonl(NATIP));
	assert_int_equal(out_src[1], htonl(NATIP));
	assert_int_equal(f.key.ct_state, TRK | NEW | SNAT);
	free(st);

	/* A packet an earlier action took out of IP is dropped at ct. */
	attrs_init(&a);
	attrs_put(&a, OVS_ACTION_ATTR_PUSH_MPLS, &mpls, sizeof(mpls));
	ct2 = msgbuf_nest_start(&a.mb, OVS_ACTION_ATTR_CT);
	msgbuf_put_u16(&a.mb, OVS_CT_ATTR_ZONE, 20);
	msgbuf_nest_end(&a.mb, ct2);
	msgbuf_put_u32(&a.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	udp(&f, A, B, 5001, 53);
	st = attrs_store_actions(&a, &f.key);
	execute(&f, st);
	assert_int_equal(n_ct_given, 0);
	assert_int_equal(n_out, 0);
	free(st);
}

/* TCP: the handshake, data, the close, and what does not fit. */
/* A FIN each way and the last ACK on the established connection from
 * A:sport to B:80 in zone (A's next sequence number 101, B's 5001). */
static void
tcp_close(uint16_t sport, uint16_t zone)
{
	struct ct_action l = act(false, zone);
	struct frame f;

	tcp(&f, A, B, sport, 80, 101, 5001, FB_FIN | FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST);
	tcp(&f, B, A, 80, sport, 5001, 102, FB_FIN | FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	tcp(&f, A, B, sport, 80, 102, 5002, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST);
}

static void
test_tcp(void **s)
{
	struct ct_action c = act(true, 0), l = act(false, 0);
	struct frame f;

	tcp(&f, A, B, 1000, 80, 100, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW);
	assert_int_equal(f.key.ct_orig_proto, IPPROTO_TCP);
	assert_int_equal(f.key.ct_orig_tp_dst, htons(80));
	tcp(&f, A, B, 1000, 80, 100, 0, FB_SYN);
	assert_int_equal(state(&f, &c), TRK | NEW);
	/* A retransmitted SYN: still new (no reply yet). */
	tcp(&f, A, B, 1000, 80, 100, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW);
	tcp(&f, B, A, 80, 1000, 5000, 101, FB_SYN | FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	assert_int_equal(f.key.ct_orig_ipv4_src, htonl(A));
	/* Out of the window before the connection is established. */
	tcp(&f, A, B, 1000, 80, 100 + 3000000, 5001, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | INV);
	tcp(&f, A, B, 1000, 80, 101, 5001, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST);
	/* Bogus flags are invalid whatever the connection. */
	tcp(&f, A, B, 1000, 80, 101, 5001, FB_SYN | FB_FIN);
	assert_int_equal(state(&f, &l), TRK | INV);
	tcp_close(1000, 0);
	/* A new SYN on the closed connection starts a new one. */
	tcp(&f, A, B, 1000, 80, 9000, 0, FB_SYN);
	assert_int_equal(state(&f, &c), TRK | NEW);
	tcp(&f, B, A, 80, 1000, 7000, 9001, FB_RST | FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	/* A lone ACK picks a connection up (nf_conntrack_tcp_loose). */
	tcp(&f, A, B, 2000, 80, 1, 1, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | NEW);
	/* A lone RST opens nothing. */
	tcp(&f, A, B, 2001, 80, 1, 1, FB_RST);
	assert_int_equal(state(&f, &l), TRK | INV);
}

/* UDP and ICMP: new until committed and answered; errors are related. */
static void
test_udp_icmp(void **s)
{
	struct ct_action c = act(true, 0), l = act(false, 0);
	struct frame f;
	uint8_t quote[28];

	udp(&f, A, B, 5000, 53);
	assert_int_equal(state(&f, &l), TRK | NEW);
	udp(&f, B, A, 53, 5000);
	assert_int_equal(state(&f, &l), TRK | NEW);	/* not committed */
	udp(&f, A, B, 5000, 53);
	assert_int_equal(state(&f, &c), TRK | NEW);
	udp(&f, B, A, 53, 5000);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	udp(&f, A, B, 5000, 53);
	assert_int_equal(state(&f, &l), TRK | EST);

	/* An ICMP error from B quoting A's datagram: related, reply. */
	udp(&f, A, B, 5000, 53);
	memcpy(quote, f.pkt.data + 14, sizeof(quote));
	port_unreachable(&f, B, A, quote, sizeof(quote));
	assert_int_equal(state(&f, &l), TRK | REL | RPL);
	/* One quoting nothing we know, or nothing at all: invalid. */
	quote[20 + 1] ^= 1;
	port_unreachable(&f, B, A, quote, sizeof(quote));
	assert_int_equal(state(&f, &l), TRK | INV);
	port_unreachable(&f, B, A, quote, 0);
	assert_int_equal(state(&f, &l), TRK | INV);

	echo(&f, A, B, 8, 77);
	assert_int_equal(state(&f, &c), TRK | NEW);
	assert_int_equal(f.key.ct_orig_tp_src, htons(8));
	echo(&f, B, A, 0, 77);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	/* A reply nobody asked for is not a connection. */
	echo(&f, B, A, 0, 78);
	assert_int_equal(state(&f, &c), TRK | INV);
}

/* Zones keep connections apart; a recirculated packet is not tracked
 * twice in its zone. */
static void
test_zones(void **s)
{
	struct ct_action c1 = act(true, 1), l1 = act(false, 1);
	struct ct_action l2 = act(false, 2);
	struct frame f;

	conntrack_limit_set(ct, 1, 10);		/* zones count */
	conntrack_limit_set(ct, 2, 10);
	udp(&f, A, B, 6000, 53);
	assert_int_equal(state(&f, &c1), TRK | NEW);
	udp(&f, B, A, 53, 6000);
	assert_int_equal(state(&f, &l1), TRK | EST | RPL);
	assert_int_equal(f.key.ct_zone, 1);
	udp(&f, B, A, 53, 6000);
	assert_int_equal(state(&f, &l2), TRK | NEW);
	assert_int_equal(f.key.ct_zone, 2);
	/* Same zone again: the key is kept as it was. */
	assert_int_equal(state(&f, &l2), TRK | NEW);
	assert_int_equal(conntrack_zone_count(ct, 1), 1);
	assert_int_equal(conntrack_zone_count(ct, 2), 0);
}

static void
test_mark_labels(void **s)
{
	struct ct_action c = act(true, 3), l = act(false, 3);
	struct frame f;

	c.mark = 0x12;
	c.mark_mask = 0xff;
	c.labels[0] = 0xab;
	c.labels_mask[0] = 0xff;
	c.set_labels = true;
	udp(&f, A, B, 7000, 53);
	assert_int_equal(state(&f, &c), TRK | NEW);
	assert_int_equal(f.key.ct_mark, 0x12);
	assert_int_equal(f.key.ct_labels[0], 0xab);
	udp(&f, B, A, 53, 7000);
	state(&f, &l);
	assert_int_equal(f.key.ct_mark, 0x12);
	assert_int_equal(f.key.ct_labels[0], 0xab);
	/* A later commit changes only the masked bits. */
	c.mark = 0x300;
	c.mark_mask = 0xf00;
	c.labels_mask[0] = 0;
	c.labels[1] = 1;
	c.labels_mask[1] = 1;
	udp(&f, A, B, 7000, 53);
	state(&f, &c);
	assert_int_equal(f.key.ct_mark, 0x312);
	assert_int_equal(f.key.ct_labels[0], 0xab);
	assert_int_equal(f.key.ct_labels[1], 1);
}

/* The frame's IP and L4 checksums verify. */
static void
assert_sums(const struct frame *f)
{
	assert_true(fb_csums_ok(f->pkt.data + ETH_HLEN,
				f->pkt.len - ETH_HLEN));
}

static void
test_snat(void **s)
{
	struct ct_action c = act(true, 4), n = act(false, 4);
	uint16_t p1, p2;
	struct frame f;

	c.nat = CT_ACTION_NAT | CT_ACTION_SNAT;
	c.range.flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO;
	c.range.min_addr.ip = c.range.max_addr.ip = htonl(NATIP);
	c.range.min_port = 1000;
	c.range.max_port = 1001;
	n.nat = CT_ACTION_NAT;

	/* Two clients with the same source port get both ports of the
	 * range; a third finds it exhausted and is dropped. */
	tcp(&f, A, B, 4000, 80, 1, 0, FB_SYN);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	assert_sums(&f);
	p1 = ntohs(f.key.tp_src);
	tcp(&f, A + 5, B, 4000, 80, 1, 0, FB_SYN);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT);
	p2 = ntohs(f.key.tp_src);
	assert_true(p1 >= 1000 && p1 <= 1001 && p2 >= 1000 && p2 <= 1001);
	assert_int_not_equal(p1, p2);
	tcp(&f, A + 6, B, 4000, 80, 1, 0, FB_SYN);
	assert_int_equal(run(&f, &c), -EINVAL);

	/* The reply comes back to the first client. */
	tcp(&f, B, NATIP, 80, p1, 500, 2, FB_SYN | FB_ACK);
	assert_int_equal(state(&f, &n), TRK | EST | RPL | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(A));
	assert_int_equal(ntohs(f.key.tp_dst), 4000);
	assert_sums(&f);
	/* The client's next segment is mapped as the first was. */
	tcp(&f, A, B, 4000, 80, 2, 501, FB_ACK);
	assert_int_equal(state(&f, &n), TRK | EST | SNAT);
	assert_int_equal(ntohs(f.key.tp_src), p1);
	assert_sums(&f);
}

/* A trace's peek: the states execute would give, the tracker unchanged. */
static uint8_t
peek_state(struct frame *f, const struct ct_action *a)
{
	int err;

	rcu_read_lock();
	err = conntrack_peek(ct, &f->pkt, &f->key, a);
	rcu_read_unlock();
	assert_int_equal(err, 0);
	return f->key.ct_state;
}

static uint64_t
n_conns(void)
{
	struct conntrack_stats st;

	conntrack_get_stats(ct, &st);
	return st.n_conns;
}

static void
test_peek(void **s)
{
	struct ct_action c = act(true, 19), l = act(false, 19);
	struct ct_action n = act(false, 20), sn = act(true, 20);
	uint64_t before = n_conns();
	struct frame f;
	uint16_t p1;

	/* Nothing held: new for what may start one, invalid otherwise;
	 * a commit peeked commits nothing. */
	udp(&f, A, B, 6000, 53);
	assert_int_equal(peek_state(&f, &c), TRK | NEW);
	c.mark = 0x42;
	c.mark_mask = 0xff;
	udp(&f, A, B, 6000, 53);
	assert_int_equal(peek_state(&f, &c), TRK | NEW);
	assert_int_equal(f.key.ct_mark, 0x42);
	c.mark_mask = 0;
	tcp(&f, A, B, 6001, 80, 1, 1, FB_RST);
	assert_int_equal(peek_state(&f, &l), TRK | INV);
	echo(&f, B, A, 0, 91);
	assert_int_equal(peek_state(&f, &l), TRK | INV);
	assert_int_equal(n_conns(), before);

	/* Committed: both directions found; a peeked reply is no reply
	 * seen, so the original direction stays new until a real one. */
	udp(&f, A, B, 6000, 53);
	assert_int_equal(state(&f, &c), TRK | NEW);
	assert_int_equal(n_conns(), before + 1);
	udp(&f, B, A, 53, 6000);
	assert_int_equal(peek_state(&f, &l), TRK | EST | RPL);
	udp(&f, A, B, 6000, 53);
	assert_int_equal(peek_state(&f, &l), TRK | NEW);
	udp(&f, B, A, 53, 6000);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	udp(&f, A, B, 6000, 53);
	assert_int_equal(peek_state(&f, &l), TRK | EST);
	assert_int_equal(f.key.ct_orig_tp_dst, htons(53));
	/* Recirculated after a real pass in the zone: the key stands. */
	assert_int_equal(peek_state(&f, &l), TRK | EST);
	/* Another zone holds none of it. */
	udp(&f, A, B, 6000, 53);
	assert_int_equal(peek_state(&f, &n), TRK | NEW);
	assert_int_equal(n_conns(), before + 1);

	/* A committed connection's NAT is applied to the peeked packet. */
	sn.nat = CT_ACTION_NAT | CT_ACTION_SNAT;
	sn.range.flags = CT_RANGE_MAP_IPS;
	sn.range.min_addr.ip = sn.range.max_addr.ip = htonl(NATIP);
	n.nat = CT_ACTION_NAT;
	tcp(&f, A, B, 6002, 80, 1, 0, FB_SYN);
	assert_int_equal(state(&f, &sn), TRK | NEW | SNAT);
	p1 = ntohs(f.key.tp_src);
	tcp(&f, B, NATIP, 80, p1, 500, 2, FB_SYN | FB_ACK);
	assert_int_equal(peek_state(&f, &n), TRK | EST | RPL | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(A));
	assert_int_equal(ntohs(f.key.tp_dst), 6002);
	assert_sums(&f);
	tcp(&f, B, NATIP, 80, p1, 500, 2, FB_SYN | FB_ACK);
	assert_int_equal(state(&f, &n), TRK | EST | RPL | DNAT);
	tcp(&f, A, B, 6002, 80, 2, 501, FB_ACK);
	assert_int_equal(peek_state(&f, &n), TRK | EST | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	/* ... but a new connection is not given a mapping. */
	tcp(&f, A, B, 6003, 80, 1, 0, FB_SYN);
	assert_int_equal(peek_state(&f, &sn), TRK | NEW);
	assert_int_equal(f.key.ipv4_src, htonl(A));
	assert_int_equal(n_conns(), before + 2);
}

static void
test_dnat_icmp_error(void **s)
{
	struct ct_action c = act(true, 5), n = act(true, 5);
	uint8_t quote[28];
	struct frame f;

	c.nat = CT_ACTION_NAT | CT_ACTION_DNAT;
	c.range.flags = CT_RANGE_MAP_IPS;
	c.range.min_addr.ip = c.range.max_addr.ip = htonl(B);
	n.nat = CT_ACTION_NAT;

	/* A -> NATIP:53 goes to B:53. The kernel marks the original
	 * direction of a DNAT'd connection +snat too (its identity source
	 * mapping runs). */
	udp(&f, A, NATIP, 8000, 53);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(B));
	assert_sums(&f);
	/* B's port is closed: its ICMP error quotes A -> B:53. Mapped back,
	 * A sees an error from NATIP about A -> NATIP:53. */
	memcpy(quote, f.pkt.data + 14, sizeof(quote));
	port_unreachable(&f, B, A, quote, sizeof(quote));
	assert_int_equal(state(&f, &n), TRK | REL | RPL | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	assert_sums(&f);
	assert_int_equal(memcmp(f.pkt.data + 14 + 28 + 16,
				&(uint32_t){ htonl(NATIP) }, 4), 0);
	assert_int_equal(fb_sum(f.pkt.data + 14 + 28, 20), 0xffff);
}

static void
test_limits(void **s)
{
	struct ct_action c = act(true, 6);
	struct conntrack_stats st0, st1;
	struct frame f;

	conntrack_limit_set(ct, 6, 2);
	udp(&f, A, B, 1, 53);
	assert_int_equal(run(&f, &c), 0);
	udp(&f, A, B, 2, 53);
	assert_int_equal(run(&f, &c), 0);
	conntrack_get_stats(ct, &st0);
	udp(&f, A, B, 3, 53);
	assert_int_equal(run(&f, &c), -ENOMEM);
	conntrack_get_stats(ct, &st1);
	assert_int_equal(st1.n_refused - st0.n_refused, 1);	/* counted */
	/* Existing connections still commit; lookups are not limited. */
	udp(&f, A, B, 1, 53);
	assert_int_equal(run(&f, &c), 0);
	assert_int_equal(conntrack_zone_count(ct, 6), 2);
	assert_int_equal(conntrack_flush(ct, 6, 0, 0), 2);
	udp(&f, A, B, 3, 53);
	assert_int_equal(run(&f, &c), 0);
	conntrack_limit_del(ct, 6);
	assert_int_equal(conntrack_limit_get(ct, 6), 0);
}

/* A full table refuses new connections, counts them, and still tracks
 * the ones it has. */
static void
test_table_full(void **s)
{
	struct conntrack *saved = ct, *small = conntrack_create(2);
	struct ct_action c = act(true, 0);
	struct conntrack_stats st;
	struct frame f;

	ct = small;
	udp(&f, A, B, 1, 53);
	assert_int_equal(run(&f, &c), 0);
	udp(&f, A, B, 2, 53);
	assert_int_equal(run(&f, &c), 0);
	udp(&f, A, B, 3, 53);
	assert_int_equal(run(&f, &c), -ENOMEM);
	udp(&f, B, A, 53, 1);
	assert_int_equal(state(&f, &c), TRK | EST | RPL);
	conntrack_get_stats(ct, &st);
	assert_int_equal(st.n_conns, 2);
	assert_int_equal(st.n_refused, 1);
	ct = saved;
	conntrack_destroy(small);
}

/* Checksums: validated unless the frame came marked validated. */
static void
test_checksums(void **s)
{
	struct ct_action l = act(false, 8);
	struct frame f;

	udp(&f, A, B, 9000, 53);
	f.pkt.data[14 + 20 + 9] ^= 0x40;	/* payload byte */
	assert_int_equal(state(&f, &l), TRK | INV);
	udp(&f, A, B, 9000, 53);
	f.pkt.data[14 + 20 + 9] ^= 0x40;
	f.pkt.vnet.flags = VIRTIO_NET_HDR_F_DATA_VALID;
	assert_int_equal(state(&f, &l), TRK | NEW);
}

/* Truncated and malformed headers are invalid, never a crash. */
static void
test_hostile(void **s)
{
	struct ct_action c = act(true, 9);
	struct frame f;

	for (int cut = 0; cut < 20 + 20; cut++) {
		tcp(&f, A, B, 1, 2, 3, 0, FB_SYN);
		f.pkt.len = 14 + cut;
		assert_int_equal(state(&f, &c), TRK | INV);
	}
	/* An IP total length past the frame, a header length too short. */
	tcp(&f, A, B, 1, 2, 3, 0, FB_SYN);
	f.pkt.data[14 + 2] = 0x7f;
	assert_int_equal(state(&f, &c), TRK | INV);
	tcp(&f, A, B, 1, 2, 3, 0, FB_SYN);
	f.pkt.data[14] = 0x44;
	assert_int_equal(state(&f, &c), TRK | INV);
	/* A TCP data offset past the segment. */
	tcp(&f, A, B, 1, 2, 3, 0, FB_SYN);
	f.pkt.data[14 + 20 + 12] = 0xf0;
	assert_int_equal(state(&f, &c), TRK | INV);
	assert_int_equal(conntrack_zone_count(ct, 9), 0);
}

static const char ftp_pasv[] =
	"227 Entering Passive Mode (10,0,0,2,200,10)\r\n";
/* The first line each way, which the helper never reads. */
static const char ftp_hello[] = "220 ready\r\n", ftp_user[] = "USER a\r\n";
#define HELLO_LEN	(sizeof(ftp_hello) - 1)
#define USER_LEN	(sizeof(ftp_user) - 1)

/* An FTP control connection from A:40000 to B:21, committed by ftp (its
 * helper FTP) and established, its first lines exchanged: the client's
 * next byte is 101, the server's 901. */
static void
ftp_session(const struct ct_action *ftp)
{
	struct ct_action l = act(false, ftp->zone);
	struct frame f;

	tcp(&f, A, B, 40000, 21, 100 - USER_LEN, 0, FB_SYN);
	assert_int_equal(state(&f, ftp), TRK | NEW);
	tcp(&f, B, A, 21, 40000, 900 - HELLO_LEN, 101 - USER_LEN,
	    FB_SYN | FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	tcp(&f, A, B, 40000, 21, 101 - USER_LEN, 901 - HELLO_LEN, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST);
	tcp_text(&f, B, A, 21, 40000, 901 - HELLO_LEN, 101 - USER_LEN,
		 ftp_hello);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
	tcp_text(&f, A, B, 40000, 21, 101 - USER_LEN, 901, ftp_user);
	assert_int_equal(state(&f, &l), TRK | EST);
}

/* ftp_session() and the server's answer to PASV: the client may connect
 * to B:51210. */
static void
ftp_passive(const struct ct_action *ftp)
{
	struct ct_action l = act(false, ftp->zone);
	struct frame f;

	ftp_session(ftp);
	tcp_text(&f, B, A, 21, 40000, 901, 101, ftp_pasv);
	assert_int_equal(state(&f, &l), TRK | EST | RPL);
}

/* FTP and TFTP helpers: announced connections come in related, with the
 * master's original tuple and mark. */
static void
test_helpers(void **s)
{
	struct ct_action ftp = act(true, 13), l = act(false, 13);
	struct ct_action tftp = act(true, 13);
	static const char port_other[] = "PORT 10,0,0,9,4,1\r\n";
	static const char eprt[] = "EPRT |1|10.0.0.1|6000|\r\n";
	struct frame f;

	ftp.helper = CT_HELPER_FTP;
	ftp.mark = 7;
	ftp.mark_mask = 0xff;
	tftp.helper = CT_HELPER_TFTP;

	/* Passive: the server names its port; the client connects. */
	ftp_passive(&ftp);
	tcp(&f, A, B, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW | REL);
	assert_int_equal(f.key.ct_orig_tp_dst, htons(21));	/* master's */
	assert_int_equal(f.key.ct_mark, 7);
	tcp(&f, A, B, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &ftp), TRK | NEW | REL);
	/* Met: the same port again is not expected any more. */
	tcp(&f, A, B, 40002, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW);

	/* Active, naming another host: nothing is expected. */
	tcp_text(&f, A, B, 40000, 21, 101, 901 + sizeof(ftp_pasv) - 1,
		 port_other);
	assert_int_equal(state(&f, &l), TRK | EST);
	tcp(&f, B, 0x0a000009, 20, 1025, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW);
	/* EPRT with the client's own address: the server may connect. */
	tcp_text(&f, A, B, 40000, 21, 101 + sizeof(port_other) - 1,
		 901 + sizeof(ftp_pasv) - 1, eprt);
	assert_int_equal(state(&f, &l), TRK | EST);
	tcp(&f, B, A, 20, 6000, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW | REL);

	/* TFTP: a read request; the server answers from another port. */
	udp_data(&f, A, B, 5000, 69, "\0\1f", 4);
	assert_int_equal(state(&f, &tftp), TRK | NEW);
	udp(&f, B, A, 7777, 5000);
	assert_int_equal(state(&f, &l), TRK | NEW | REL);
	assert_int_equal(f.key.ct_orig_tp_dst, htons(69));
}

/* NAT of FTP and TFTP (nf_nat_ftp, nf_nat_tftp, seqadj). */

#define NATIP6_LAST	0x99

/* The TCP segment's payload in f, and its sequence numbers. */
static const char *
seg_text(const struct frame *f, uint32_t *len)
{
	const uint8_t *l3 = f->pkt.data + ETH_HLEN, *l4;
	bool v6 = (l3[0] >> 4) == 6;
	uint32_t ip_len = v6 ? 40 + get_be16(l3 + 4) : get_be16(l3 + 2);
	uint32_t hl = v6 ? 40 : (l3[0] & 0xf) * 4;

	/* The frame ends with its datagram. */
	assert_int_equal(f->pkt.len, ETH_HLEN + ip_len);
	l4 = l3 + hl;
	*len = ip_len - hl - (l4[12] >> 4) * 4;
	return (const char *)l4 + (l4[12] >> 4) * 4;
}

static void
assert_text(const struct frame *f, const char *want)
{
	uint32_t len;
	const char *t = seg_text(f, &len);

	assert_int_equal(len, strlen(want));
	assert_memory_equal(t, want, len);
	assert_sums(f);
}

static uint32_t
seg_seq(const struct frame *f, int ack)
{
	const uint8_t *l3 = f->pkt.data + ETH_HLEN;
	uint32_t hl = (l3[0] >> 4) == 6 ? 40 : (l3[0] & 0xf) * 4;

	return get_be32(l3 + hl + (ack ? 8 : 4));
}

/* A commit with helper and NAT of type (CT_ACTION_SNAT or _DNAT) to
 * address to. */
static struct ct_action
helper_nat(uint16_t zone, uint8_t helper, uint8_t type, uint32_t to)
{
	struct ct_action a = act(true, zone);

	a.helper = helper;
	a.nat = CT_ACTION_NAT | type;
	a.range.flags = CT_RANGE_MAP_IPS;
	a.range.min_addr.ip = a.range.max_addr.ip = htonl(to);
	return a;
}

/* ct(nat), with commit or not: NAT as the connection was mapped. */
static struct ct_action
nat_as_mapped(uint16_t zone, bool commit)
{
	struct ct_action a = act(commit, zone);

	a.nat = CT_ACTION_NAT;
	return a;
}

/* An FTP control connection from A:40000 under ftp (committing it with
 * the helper and NAT), later packets through nat (ct(nat)); the server
 * B:21 is reached at srv and answers to peer. After it, as in
 * ftp_session(), the client's next byte is 101, the server's 901. */
static void
ftp_nat_session(const struct ct_action *ftp, const struct ct_action *nat,
		uint32_t srv, uint32_t peer, uint8_t fwd, uint8_t back)
{
	struct frame f;

	tcp(&f, A, srv, 40000, 21, 100 - USER_LEN, 0, FB_SYN);
	assert_int_equal(state(&f, ftp), TRK | NEW | fwd);
	assert_int_equal(f.key.tp_src, htons(40000));
	tcp(&f, B, peer, 21, 40000, 900 - HELLO_LEN, 101 - USER_LEN,
	    FB_SYN | FB_ACK);
	assert_int_equal(state(&f, nat), TRK | EST | RPL | back);
	tcp(&f, A, srv, 40000, 21, 101 - USER_LEN, 901 - HELLO_LEN, FB_ACK);
	assert_int_equal(state(&f, nat), TRK | EST | fwd);
	tcp_text(&f, B, peer, 21, 40000, 901 - HELLO_LEN, 101 - USER_LEN,
		 ftp_hello);
	assert_int_equal(state(&f, nat), TRK | EST | RPL | back);
	tcp_text(&f, A, srv, 40000, 21, 101 - USER_LEN, 901, ftp_user);
	assert_int_equal(state(&f, nat), TRK | EST | fwd);
}

/* Active FTP under SNAT: PORT names the client; the server is told the
 * NAT address (3 bytes longer), the sequence numbers of the rest of the
 * connection shift both ways, a retransmission is rewritten again without
 * shifting twice, and the server's data connection reaches the client. */
static void
test_ftp_snat_active(void **s)
{
	struct ct_action ftp = helper_nat(20, CT_HELPER_FTP, CT_ACTION_SNAT,
					  NATIP);
	struct ct_action nat = nat_as_mapped(20, false);
	struct ct_action rel = nat_as_mapped(20, true);
	static const char port[] = "PORT 10,0,0,1,4,1\r\n";
	static const char seen[] = "PORT 192,168,0,1,4,1\r\n";
	const uint32_t grow = sizeof(seen) - sizeof(port);
	struct frame f;

	ftp_nat_session(&ftp, &nat, B, NATIP, SNAT, DNAT);

	tcp_text(&f, A, B, 40000, 21, 101, 901, port);
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
	assert_text(&f, seen);
	assert_int_equal(seg_seq(&f, 0), 101);
	/* The server acknowledges what it got; the client hears of what it
	 * sent. */
	tcp_text(&f, B, NATIP, 21, 40000, 901, 101 + sizeof(seen) - 1,
		 "200 ok\r\n");
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | DNAT);
	assert_int_equal(seg_seq(&f, 1), 101 + sizeof(port) - 1);
	assert_text(&f, "200 ok\r\n");
	/* The PORT segment again: rewritten again, shifted no further. */
	tcp_text(&f, A, B, 40000, 21, 101, 901, port);
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
	assert_text(&f, seen);
	assert_int_equal(seg_seq(&f, 0), 101);
	/* The client's next line comes after the longer one. */
	tcp_text(&f, A, B, 40000, 21, 101 + sizeof(port) - 1, 909,
		 "LIST\r\n");
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
	assert_int_equal(seg_seq(&f, 0), 101 + sizeof(port) - 1 + grow);
	assert_int_equal(seg_seq(&f, 1), 909);
	/* Two lines later the helper no longer knows 101 for a line start
	 * (it keeps two): the PORT segment passes as it is. */
	tcp_text(&f, A, B, 40000, 21, 101, 901, port);
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
	assert_text(&f, port);
	assert_int_equal(seg_seq(&f, 0), 101);
	tcp(&f, A, B, 40000, 21, 101 + sizeof(port) - 1 + 6, 909, FB_ACK);
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
	assert_int_equal(seg_seq(&f, 0), 101 + sizeof(port) - 1 + 6 + grow);
	/* An acknowledgement of part of the rewritten segment: past its
	 * start, it takes the whole offset (as nf_ct_seq_adjust). */
	tcp(&f, B, NATIP, 21, 40000, 909, 101 + sizeof(seen) - 1 - 5,
	    FB_ACK);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | DNAT);
	assert_int_equal(seg_seq(&f, 1), 101 + sizeof(seen) - 1 - 5 - grow);
	tcp(&f, B, NATIP, 21, 40000, 909, 101, FB_ACK);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | DNAT);
	assert_int_equal(seg_seq(&f, 1), 101);

	/* The data connection, to the NAT address and the port announced,
	 * goes to the client. */
	tcp(&f, B, NATIP, 20, 1025, 5000, 0, FB_SYN);
	assert_int_equal(state(&f, &rel), TRK | NEW | REL | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(A));
	assert_int_equal(f.key.tp_dst, htons(1025));
	assert_int_equal(f.key.ipv4_src, htonl(B));
	assert_sums(&f);
	tcp(&f, A, B, 1025, 20, 7000, 5001, FB_SYN | FB_ACK);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | REL | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	assert_int_equal(f.key.tp_src, htons(1025));
	assert_sums(&f);
}

/* Passive FTP under DNAT: the server's 227 names itself; the client is
 * told the public address (longer), and its data connection to it reaches
 * the server. EPSV names a port only: nothing grows. */
static void
test_ftp_dnat_passive(void **s)
{
	struct ct_action ftp = helper_nat(21, CT_HELPER_FTP, CT_ACTION_DNAT, B);
	struct ct_action nat = nat_as_mapped(21, false);
	struct ct_action rel = nat_as_mapped(21, true);
	static const char seen[] =
		"227 Entering Passive Mode (192,168,0,1,200,10)\r\n";
	static const char epsv[] =
		"229 Entering Extended Passive Mode (|||6001|)\r\n";
	const uint32_t grow = sizeof(seen) - sizeof(ftp_pasv);
	uint32_t next;
	struct frame f;

	ftp_nat_session(&ftp, &nat, NATIP, A, SNAT | DNAT, SNAT);

	tcp_text(&f, B, A, 21, 40000, 901, 101, ftp_pasv);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | SNAT);
	assert_text(&f, seen);
	/* The client acknowledges the longer reply. */
	tcp(&f, A, NATIP, 40000, 21, 101, 901 + sizeof(seen) - 1, FB_ACK);
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT | DNAT);
	assert_int_equal(seg_seq(&f, 1), 901 + sizeof(ftp_pasv) - 1);
	tcp(&f, A, NATIP, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &rel), TRK | NEW | REL | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(B));
	assert_int_equal(f.key.tp_dst, htons(51210));
	assert_sums(&f);

	/* 229: the same text; the offsets of the 227 stay. */
	next = 901 + sizeof(ftp_pasv) - 1;
	tcp_text(&f, B, A, 21, 40000, next, 101, epsv);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | SNAT);
	assert_text(&f, epsv);
	assert_int_equal(seg_seq(&f, 0), next + grow);
	tcp(&f, A, NATIP, 40002, 6001, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &rel), TRK | NEW | REL | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(B));
}

/* Passive FTP under SNAT: the 227 names the server as it is (same
 * length); the client's data connection is mapped to the NAT address. A
 * message cut short at a line start is dropped, one in the middle of a
 * line is not read. */
static void
test_ftp_snat_passive(void **s)
{
	struct ct_action ftp = helper_nat(22, CT_HELPER_FTP, CT_ACTION_SNAT,
					  NATIP);
	struct ct_action nat = nat_as_mapped(22, false);
	struct ct_action rel = nat_as_mapped(22, true);
	struct frame f;

	ftp_nat_session(&ftp, &nat, B, NATIP, SNAT, DNAT);

	tcp_text(&f, B, NATIP, 21, 40000, 901, 101, ftp_pasv);
	assert_int_equal(state(&f, &nat), TRK | EST | RPL | DNAT);
	assert_text(&f, ftp_pasv);
	tcp(&f, A, B, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &rel), TRK | NEW | REL | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	assert_sums(&f);

	/* "PORT" with no numbers: nf_conntrack_ftp drops it. */
	tcp_text(&f, A, B, 40000, 21, 101, 901 + sizeof(ftp_pasv) - 1,
		 "PORT x\r\n");
	assert_int_equal(run(&f, &nat), -EINVAL);
	/* Not at a line start: passes unread. */
	tcp_text(&f, A, B, 40000, 21, 102, 901 + sizeof(ftp_pasv) - 1,
		 "PORT x\r\n");
	assert_int_equal(state(&f, &nat), TRK | EST | SNAT);
}

/* IPv6: EPRT names the client; under SNAT the server is told the NAT
 * address, written out in full as the kernel does. */
static void
test_ftp_snat_eprt6(void **s)
{
	static const uint8_t a6[16] = { 0xfd, [15] = 1 };
	static const uint8_t b6[16] = { 0xfd, [15] = 2 };
	static const uint8_t n6[16] = { 0xfd, 0x01, [15] = NATIP6_LAST };
	static const char *lines[] = { "220 ready\r\n", "USER a\r\n" };
	static const char eprt[] = "EPRT |2|fd00::1|6000|\r\n";
	static const char seen[] =
		"EPRT |2|fd01:0000:0000:0000:0000:0000:0000:0099|6000|\r\n";
	struct ct_action ftp = { .family = AF_INET6, .commit = true,
				 .zone = 23, .helper = CT_HELPER_FTP,
				 .nat = CT_ACTION_NAT | CT_ACTION_SNAT };
	struct ct_action nat = { .family = AF_INET6, .zone = 23,
				 .nat = CT_ACTION_NAT };
	struct ct_action rel = nat;
	struct {
		const uint8_t *src, *dst;
		uint16_t sport, dport;
		uint32_t seq, ack;
		uint8_t flags;
		const char *text;
		const struct ct_action *a;
	} segs[] = {
		{ a6, b6, 40000, 21, 100, 0, FB_SYN, "", &ftp },
		{ b6, n6, 21, 40000, 900, 101, FB_SYN | FB_ACK, "", &nat },
		{ a6, b6, 40000, 21, 101, 901, FB_ACK, "", &nat },
		{ b6, n6, 21, 40000, 901, 101, FB_ACK, lines[0], &nat },
		{ a6, b6, 40000, 21, 101, 912, FB_ACK, lines[1], &nat },
		{ a6, b6, 40000, 21, 109, 912, FB_ACK, eprt, &nat },
		{ b6, n6, 21, 40000, 912, 109 + sizeof(seen) - 1, FB_ACK, "",
		  &nat },
		{ b6, n6, 20, 6000, 1, 0, FB_SYN, "", &rel },
	};
	struct frame f;

	rel.commit = true;
	ftp.range.flags = CT_RANGE_MAP_IPS;
	memcpy(&ftp.range.min_addr.ip6, n6, 16);
	memcpy(&ftp.range.max_addr.ip6, n6, 16);
	for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
		struct fb b = eth_begin(&f, ETH_P_IPV6);

		fb_ipv6(&b, segs[i].src, segs[i].dst, IPPROTO_TCP);
		fb_tcp(&b, segs[i].sport, segs[i].dport, segs[i].seq,
		       segs[i].ack, segs[i].flags);
		fb_put(&b, segs[i].text, strlen(segs[i].text));
		end(&f, &b);
		assert_int_equal(run(&f, segs[i].a), 0);
		assert_true(f.key.ct_state & TRK);
		assert_false(f.key.ct_state & INV);
		assert_sums(&f);
		if (segs[i].text == eprt)
			assert_text(&f, seen);
	}
	/* The client heard its own numbering acknowledged; the data
	 * connection reaches it. */
	assert_memory_equal(&f.key.ipv6_dst, a6, 16);
	assert_int_equal(f.key.tp_dst, htons(6000));
	assert_true(f.key.ct_state & REL);
}

/* TFTP under SNAT and under DNAT: the server's answer from a new port
 * gets the request's mapping. */
static void
test_tftp_nat(void **s)
{
	struct ct_action snat = helper_nat(24, CT_HELPER_TFTP, CT_ACTION_SNAT,
					   NATIP);
	struct ct_action dnat = helper_nat(25, CT_HELPER_TFTP, CT_ACTION_DNAT,
					   B);
	struct ct_action n24 = nat_as_mapped(24, false);
	struct ct_action c24 = nat_as_mapped(24, true);
	struct ct_action c25 = nat_as_mapped(25, true);
	struct frame f;

	udp_data(&f, A, B, 5000, 69, "\0\1f", 4);
	assert_int_equal(state(&f, &snat), TRK | NEW | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	/* Looked up without commit: related, not translated yet. */
	udp(&f, B, NATIP, 7777, 5000);
	assert_int_equal(state(&f, &n24), TRK | NEW | REL);
	udp(&f, B, NATIP, 7777, 5000);
	assert_int_equal(state(&f, &c24), TRK | NEW | REL | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(A));
	assert_int_equal(f.key.tp_dst, htons(5000));
	assert_sums(&f);

	udp_data(&f, A, NATIP, 5001, 69, "\0\2f", 4);
	assert_int_equal(state(&f, &dnat), TRK | NEW | SNAT | DNAT);
	assert_int_equal(f.key.ipv4_dst, htonl(B));
	udp(&f, B, A, 7778, 5001);
	assert_int_equal(state(&f, &c25), TRK | NEW | REL | SNAT);
	assert_int_equal(f.key.ipv4_src, htonl(NATIP));
	assert_int_equal(f.key.tp_src, htons(7778));
	assert_sums(&f);
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

/* Sequence adjustment alone: two rewrites in one direction, the
 * acknowledgements and SACK blocks of the other taken back, and a
 * retransmission of the first rewritten segment. */
static void
test_seqadj(void **s)
{
	struct ct_seqadj sa = { 0 };
	uint8_t seg[32] = { 0 };
	uint32_t sum0;

	ct_seqadj_set(&sa, 0, 1000, 3);
	ct_seqadj_set(&sa, 0, 1000, 3);		/* again: counted once */
	assert_int_equal(sa.dir[0].after, 3);
	ct_seqadj_set(&sa, 0, 1100, -2);
	assert_int_equal(sa.dir[0].before, 3);
	assert_int_equal(sa.dir[0].after, 1);
	ct_seqadj_set(&sa, 0, 1000, 5);		/* older: ignored */
	assert_int_equal(sa.dir[0].pos, 1100);

	/* Direction 0 at 1050 (between the rewrites): +3. */
	put32(seg + 4, 1050);
	seg[12] = 5 << 4;
	assert_true(ct_seqadj_packet(&sa, 0, seg, 20, false));
	assert_int_equal(get_be32(seg + 4), 1053);
	/* At the second rewrite itself: still +3; past it +1. */
	put32(seg + 4, 1100);
	assert_true(ct_seqadj_packet(&sa, 0, seg, 20, false));
	assert_int_equal(get_be32(seg + 4), 1103);
	put32(seg + 4, 1200);
	assert_true(ct_seqadj_packet(&sa, 0, seg, 20, false));
	assert_int_equal(get_be32(seg + 4), 1201);

	/* Direction 1 acknowledges 1201 and SACKs [1053, 1103): taken back
	 * to 1200, [1050, 1100); the checksum follows. */
	memset(seg, 0, sizeof(seg));
	put32(seg + 8, 1201);
	seg[12] = 8 << 4;
	seg[13] = FB_ACK;
	seg[20] = 1;
	seg[21] = 1;
	seg[22] = 5;
	seg[23] = 10;
	put32(seg + 24, 1053);
	put32(seg + 28, 1103);
	sum0 = fb_sum(seg, 32);
	assert_true(ct_seqadj_packet(&sa, 1, seg, 32, false));
	assert_int_equal(get_be32(seg + 8), 1200);
	assert_int_equal(get_be32(seg + 24), 1050);
	assert_int_equal(get_be32(seg + 28), 1100);
	assert_int_equal(fb_sum(seg, 32), sum0);
	/* An option running past the header: dropped. */
	seg[22] = 5;
	seg[23] = 12;
	assert_false(ct_seqadj_packet(&sa, 1, seg, 32, false));
}

/* Fragments: frames collected from frag_split(). */
struct frames {
	uint8_t f[64][1600];
	uint32_t len[64];
	int n;
};

static void
collect(void *arg, const uint8_t *frame, uint32_t len)
{
	struct frames *fs = arg;

	assert_true(fs->n < 64 && len <= 1600);
	memcpy(fs->f[fs->n], frame, len);
	fs->len[fs->n++] = len;
}

/* A UDP datagram of n payload bytes, IPv4 (A to B) or IPv6 (::1 to ::2),
 * in f (no checksum for IPv4: UDP's zero; IPv6: computed). */
static void
big_udp(struct frame *f, bool v6, uint32_t n)
{
	static const uint8_t one[16] = { [15] = 1 }, two[16] = { [15] = 2 };
	struct fb b = eth_begin(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	uint8_t *p;

	if (v6)
		fb_ipv6(&b, one, two, IPPROTO_UDP);
	else
		fb_ipv4(&b, A, B, IPPROTO_UDP);
	fb_udp(&b, 1234, 4321);
	p = fb_put(&b, NULL, n);
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7);
	fb_end(&b);
	if (!v6)
		put_be16(b.buf + b.l4 + offsetof(struct udphdr, check), 0);
	take(f, f->buf, sizeof(f->buf), b.len);
}

/* Loads frame i of fs into f, as received. */
static void
load(struct frame *f, const struct frames *fs, int i)
{
	memset(f->buf, 0, sizeof(f->buf));
	memcpy(f->buf + FRAME_HEADROOM, fs->f[i], fs->len[i]);
	take(f, f->buf, sizeof(f->buf), fs->len[i]);
}

static void
fragments(bool v6)
{
	struct ct_action c = { .family = v6 ? AF_INET6 : AF_INET,
			       .commit = true, .zone = 11 };
	static struct frames fs, again;
	static struct frame f, whole;
	uint32_t hl = v6 ? 40 : 20, n = 3000;

	big_udp(&whole, v6, n);
	fs.n = 0;
	assert_int_equal(frag_split(whole.pkt.data, whole.pkt.len, 14,
				    c.family, 1500, collect, &fs), 3);
	for (int i = 0; i < fs.n; i++)
		assert_true(fs.len[i] - 14 <= 1500);
	/* Out of order: the last first; the datagram completes on the
	 * fragment that fills the hole. */
	load(&f, &fs, 2);
	assert_int_not_equal(f.key.ip_frag, OVS_FRAG_TYPE_NONE);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	/* An exact duplicate is dropped alone. */
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINVAL);
	load(&f, &fs, 1);
	assert_int_equal(run(&f, &c), 0);
	assert_int_equal(f.key.ct_state, TRK | NEW);
	assert_int_equal(f.key.ip_frag, OVS_FRAG_TYPE_NONE);
	assert_int_equal(f.key.tp_dst, htons(4321));
	assert_int_equal(f.pkt.len, 14 + hl + 8 + n);
	assert_int_equal(f.pkt.mru, v6 ? 1496 : 1500);	/* largest fragment */
	assert_memory_equal(f.pkt.data + 14 + hl, whole.pkt.data + 14 + hl,
			    8 + n);
	/* Cut again, the same fragments come out. */
	again.n = 0;
	assert_int_equal(frag_split(f.pkt.data, f.pkt.len, 14, c.family,
				    f.pkt.mru, collect, &again), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(again.len[i], fs.len[i]);
		/* IPv6 picks a new fragment id. */
		if (!v6)
			assert_memory_equal(again.f[i], fs.f[i], fs.len[i]);
	}

	/* An overlap discards the queue: the rest never completes. */
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 1);
	if (v6)
		f.pkt.data[14 + 40 + 3] -= 8;	/* offset 8 bytes back */
	else
		f.pkt.data[14 + 7] -= 1;
	if (!v6)
		fb_ipv4_csum(f.pkt.data + 14);
	assert_int_equal(run(&f, &c), -EINVAL);
	load(&f, &fs, 2);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 1);
	assert_int_equal(run(&f, &c), -EINPROGRESS);	/* no first part */
}

/* Sets or clears IPv4 "more fragments" in frame f, checksum fixed. */
static void
set_mf(struct frame *f, bool more)
{
	uint8_t *ip = f->pkt.data + 14;

	ip[6] = more ? ip[6] | 0x20 : ip[6] & ~0x20;
	fb_ipv4_csum(ip);
}

/* A last fragment that ends before a fragment already queued reaches
 * (found by fuzz-conntrack): the queue goes, even when the bytes held
 * add up to the length the last one claims. */
static void
test_fragment_past_last(void **s)
{
	struct ct_action c = { .family = AF_INET, .commit = true, .zone = 12 };
	static struct frames fs;
	static struct frame f, whole;

	/* Four fragments of 976 bytes. */
	big_udp(&whole, false, 4 * 976 - 8);
	fs.n = 0;
	assert_int_equal(frag_split(whole.pkt.data, whole.pkt.len, 14,
				    AF_INET, 996, collect, &fs), 4);
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 3);		/* bytes 2928-3904, said not last */
	set_mf(&f, true);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 2);		/* bytes 1952-2928, said last */
	set_mf(&f, false);
	assert_int_equal(run(&f, &c), -EINVAL);
	/* The queue is gone: the true rest never completes it. */
	load(&f, &fs, 1);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
}

/* A receive ring's slot: 2 KiB, a fragment in it with little room after. */
static uint8_t slot[2048];

/* Loads frame i of fs into the slot, as the ring hands it over. */
static void
load_slot(struct frame *f, const struct frames *fs, int i)
{
	memcpy(slot + FRAME_HEADROOM, fs->f[i], fs->len[i]);
	take(f, slot, sizeof(slot), fs->len[i]);
}

/* Datagrams of 2, 3 and 6 fragments, each fragment in a ring slot too
 * small for the datagram (ovs-vswitchd's installed flows, not its
 * execute): whichever completes it, the datagram is whole, and cut again
 * into the same fragments. */
static void
fragments_in_slots(bool v6)
{
	struct ct_action c = { .family = v6 ? AF_INET6 : AF_INET,
			       .commit = true, .zone = 15 };
	static struct frames fs, again;
	static struct frame f, whole;
	uint32_t hl = v6 ? 40 : 20;
	const struct { uint32_t n; int frags, last; } cases[] = {
		{ 2800, 2, 1 }, { 3000, 3, 2 }, { 3000, 3, 0 },
		{ 8000, 6, 5 }, { 8000, 6, 3 },
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		big_udp(&whole, v6, cases[k].n);
		/* A new datagram each time (IPv6 picks its ids). */
		whole.pkt.data[14 + (v6 ? 23 : 4)] = k;
		fs.n = 0;
		assert_int_equal(frag_split(whole.pkt.data, whole.pkt.len, 14,
					    c.family, 1500, collect, &fs),
				 cases[k].frags);
		for (int i = 0; i < fs.n; i++) {
			if (i == cases[k].last)
				continue;
			load_slot(&f, &fs, i);
			assert_int_equal(run(&f, &c), -EINPROGRESS);
		}
		load_slot(&f, &fs, cases[k].last);
		assert_int_equal(run(&f, &c), 0);
		assert_int_equal(f.key.ip_frag, OVS_FRAG_TYPE_NONE);
		assert_int_equal(f.key.tp_dst, htons(4321));
		assert_int_equal(f.pkt.len, 14 + hl + 8 + cases[k].n);
		assert_int_equal(f.pkt.mru, v6 ? 1496 : 1500);
		assert_memory_equal(f.pkt.data, whole.pkt.data, 14);
		assert_memory_equal(f.pkt.data + 14 + hl,
				    whole.pkt.data + 14 + hl, 8 + cases[k].n);
		again.n = 0;
		assert_int_equal(frag_split(f.pkt.data, f.pkt.len, 14,
					    c.family, f.pkt.mru, collect,
					    &again), cases[k].frags);
		for (int i = 0; i < fs.n; i++)
			assert_int_equal(again.len[i], fs.len[i]);
	}
}

static void
test_fragments_in_slots_v4(void **s)
{
	fragments_in_slots(false);
}

static void
test_fragments_in_slots_v6(void **s)
{
	fragments_in_slots(true);
}

/* Lengthens the IP header of fragment f (loaded): IPv4 by 40 bytes of
 * no-op options, IPv6 by an 8-byte hop-by-hop header of padding in front
 * of the fragment header. */
static void
longer_header(struct frame *f, bool v6)
{
	static const uint8_t hbh[8] = { IPPROTO_FRAGMENT, 0, 1, 4 };
	uint8_t *ip = f->pkt.data + 14;
	uint32_t hl = v6 ? 40 : 20, grow = v6 ? 8 : 40;

	memmove(ip + hl + grow, ip + hl, f->pkt.len - 14 - hl);
	if (v6) {
		memcpy(ip + hl, hbh, sizeof(hbh));
		ip[6] = IPPROTO_HOPOPTS;
		put_be16(ip + 4, get_be16(ip + 4) + grow);
	} else {
		memset(ip + hl, 1, grow);
		ip[0] = 0x4f;
		put_be16(ip + 2, get_be16(ip + 2) + grow);
		fb_ipv4_csum(ip);
	}
	f->pkt.len += grow;
	memset(&f->key, 0, sizeof(f->key));
	assert_int_equal(flow_extract(f->pkt.data, f->pkt.len, &f->key,
				      &f->pkt.layers), 0);
}

/* The longest datagram IP allows is gathered; one whose first fragment
 * has a longer header than the rest, which would pass 65535 bytes whole,
 * is dropped (the kernel's oversize check), not given a wrapped length. */
static void
fragments_oversize(bool v6)
{
	struct ct_action c = { .family = v6 ? AF_INET6 : AF_INET,
			       .commit = true, .zone = 16 };
	static struct frames fs;
	static struct frame f, whole;

	for (int longer = 0; longer < 2; longer++) {
		big_udp(&whole, v6, 65535 - (v6 ? 0 : 20) - 8);
		whole.pkt.data[14 + (v6 ? 23 : 4)] = longer;
		fs.n = 0;
		assert_true(frag_split(whole.pkt.data, whole.pkt.len, 14,
				       c.family, 1500, collect, &fs) > 40);
		for (int i = 0; i < fs.n - 1; i++) {
			load(&f, &fs, i);
			if (!i && longer)
				longer_header(&f, v6);
			assert_int_equal(run(&f, &c), -EINPROGRESS);
		}
		load(&f, &fs, fs.n - 1);
		if (longer) {
			assert_int_equal(run(&f, &c), -EINVAL);
		} else {
			assert_int_equal(run(&f, &c), 0);
			assert_int_equal(f.pkt.len, 14 + (v6 ? 40 : 0) + 65535);
		}
	}
}

static void
test_fragments_oversize_v4(void **s)
{
	fragments_oversize(false);
}

static void
test_fragments_oversize_v6(void **s)
{
	fragments_oversize(true);
}

/* IPv6: a source mapping, and the ICMPv6 error about the mapped datagram
 * (UDP with len bytes of payload, of which the error quotes the first qlen
 * bytes) mapped back: quote and outer header, checksum over the
 * pseudo-header. */
static void
nat_icmpv6_error(uint32_t len, uint32_t qlen)
{
	struct ct_action c = { .family = AF_INET6, .commit = true,
			       .zone = 14,
			       .nat = CT_ACTION_NAT | CT_ACTION_SNAT };
	struct ct_action n = { .family = AF_INET6, .zone = 14,
			       .nat = CT_ACTION_NAT };
	static struct frame f, e;
	uint8_t nat[16] = { 0xfd, [15] = 0x64 }, one[16] = { [15] = 1 };
	static uint8_t quote[1232];
	uint8_t *ip;
	struct fb b;

	c.range.flags = CT_RANGE_MAP_IPS;
	memcpy(&c.range.min_addr.ip6, nat, 16);
	memcpy(&c.range.max_addr.ip6, nat, 16);
	assert_true(qlen <= sizeof(quote) && qlen <= 40 + 8 + len);
	big_udp(&f, true, len);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT);
	ip = f.pkt.data + 14;
	assert_memory_equal(ip + 8, nat, 16);
	assert_sums(&f);
	memcpy(quote, ip, qlen);

	/* ::2 answers fd00::64 with "port unreachable", quoting it. */
	b = eth_begin(&e, ETH_P_IPV6);
	fb_ipv6(&b, quote + 24, nat, IPPROTO_ICMPV6);
	fb_icmp(&b, ICMPV6_DEST_UNREACH, ICMPV6_PORT_UNREACH);
	fb_put(&b, quote, qlen);
	end(&e, &b);
	assert_int_equal(run(&e, &n), 0);
	assert_int_equal(e.key.ct_state, TRK | REL | RPL | DNAT);
	ip = e.pkt.data + 14;
	assert_memory_equal(ip + 24, one, 16);		/* outer: to ::1 */
	assert_memory_equal(ip + 40 + 8 + 8, one, 16);	/* quote: from ::1 */
	assert_sums(&e);
}

/* The addresses of nat_sums(): A/::1 to B/::2, and B's reply to the
 * mapped source 192.168.0.1/fd00::64. */
static const uint8_t sum_one[16] = { [15] = 1 }, sum_two[16] = { [15] = 2 };
static const uint8_t sum_nat6[16] = { 0xfd, [15] = 0x64 };

/* A segment of transport proto with 16 bytes of payload: from A (or, for
 * a reply, from B to the mapped address) with those ports. */
static void
ports_frame(struct frame *f, bool v6, uint8_t proto, bool reply,
	    uint16_t sport, uint16_t dport)
{
	struct fb b = eth_begin(f, v6 ? ETH_P_IPV6 : ETH_P_IP);

	if (v6)
		fb_ipv6(&b, reply ? sum_two : sum_one,
			reply ? sum_nat6 : sum_two, proto);
	else
		fb_ipv4(&b, reply ? B : A, reply ? NATIP : B, proto);
	if (proto == IPPROTO_TCP)
		fb_tcp(&b, sport, dport, reply ? 500 : 1, reply ? 2 : 0,
		       reply ? FB_SYN | FB_ACK : FB_SYN);
	else if (proto == IPPROTO_UDP)
		fb_udp(&b, sport, dport);
	else
		fb_ports(&b, proto, sport, dport);
	fb_put(&b, "0123456789abcdef", 16);
	end(f, &b);
}

/* NAT to a port range keeps every transport's checksum right, as
 * nf_nat_proto does: TCP, UDP, UDP-Lite and DCCP through the
 * pseudo-header and the ports, SCTP's CRC32c computed again. */
static void
nat_sums(bool v6, uint8_t proto, uint16_t zone)
{
	struct ct_action c = act(true, zone), n = act(false, zone);
	uint32_t l4 = ETH_HLEN + (v6 ? 40 : 20);
	struct frame f;
	uint16_t port;

	c.family = n.family = v6 ? AF_INET6 : AF_INET;
	c.nat = CT_ACTION_NAT | CT_ACTION_SNAT;
	c.range.flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO;
	if (v6) {
		memcpy(&c.range.min_addr.ip6, sum_nat6, 16);
		memcpy(&c.range.max_addr.ip6, sum_nat6, 16);
	} else {
		c.range.min_addr.ip = c.range.max_addr.ip = htonl(NATIP);
	}
	c.range.min_port = 2000;
	c.range.max_port = 2001;
	n.nat = CT_ACTION_NAT;

	ports_frame(&f, v6, proto, false, 5000, 80);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT);
	port = get_be16(f.pkt.data + l4);
	assert_true(port == 2000 || port == 2001);
	assert_sums(&f);
	ports_frame(&f, v6, proto, true, 80, port);
	assert_int_equal(state(&f, &n), TRK | EST | RPL | DNAT);
	assert_int_equal(get_be16(f.pkt.data + l4 + 2), 5000);
	assert_sums(&f);
}

static void
test_nat_sums(void **s)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP,
					  IPPROTO_UDPLITE, IPPROTO_DCCP,
					  IPPROTO_SCTP };

	for (size_t i = 0; i < sizeof(protos); i++) {
		nat_sums(false, protos[i], 20 + i);
		nat_sums(true, protos[i], 30 + i);
	}
}

/* An ICMP error quoting a mapped SCTP packet whole: the quote is mapped
 * back with its CRC computed again (over the quote, as the kernel
 * does), and the outer checksum follows. */
static void
test_nat_sctp_quote(void **s)
{
	struct ct_action c = act(true, 40), n = act(false, 40);
	static struct frame f, e;
	uint8_t quote[20 + 12 + 16];

	c.nat = CT_ACTION_NAT | CT_ACTION_SNAT;
	c.range.flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO;
	c.range.min_addr.ip = c.range.max_addr.ip = htonl(NATIP);
	c.range.min_port = c.range.max_port = 2100;
	n.nat = CT_ACTION_NAT;
	ports_frame(&f, false, IPPROTO_SCTP, false, 5000, 80);
	assert_int_equal(state(&f, &c), TRK | NEW | SNAT);
	assert_int_equal(f.pkt.len, ETH_HLEN + sizeof(quote));
	memcpy(quote, f.pkt.data + ETH_HLEN, sizeof(quote));
	port_unreachable(&e, B, NATIP, quote, sizeof(quote));
	assert_int_equal(run(&e, &n), 0);
	assert_int_equal(e.key.ct_state, TRK | REL | RPL | DNAT);
	assert_int_equal(get_be16(e.pkt.data + ETH_HLEN + 28 + 20), 5000);
	assert_sums(&e);
	assert_true(fb_csums_ok(e.pkt.data + ETH_HLEN + 28, sizeof(quote)));
}

static void
test_nat_icmpv6_error(void **s)
{
	nat_icmpv6_error(16, 48);
}

/* A quote as long as an ICMPv6 error may carry (1280 bytes in all), of a
 * packet longer still. */
static void
test_nat_icmpv6_error_long_quote(void **s)
{
	nat_icmpv6_error(1400, 1232);
}

static void
test_fragments_v4(void **s)
{
	fragments(false);
}

static void
test_fragments_v6(void **s)
{
	fragments(true);
}

/* Endless fragments: never a complete datagram, memory stays bounded and
 * the refusals are counted. */
static void
test_fragment_flood(void **s)
{
	struct ct_action c = act(true, 12);
	static struct frames fs;
	static struct frame f, whole;
	struct conntrack_stats st0, st1;

	big_udp(&whole, false, 3000);
	fs.n = 0;
	frag_split(whole.pkt.data, whole.pkt.len, 14, AF_INET, 1500, collect,
		   &fs);
	conntrack_get_stats(ct, &st0);
	for (int i = 0; i < 5000; i++) {
		load(&f, &fs, 0);
		/* A new IP id each time: a new queue each time. */
		f.pkt.data[14 + 4] = i >> 8;
		f.pkt.data[14 + 5] = i;
		assert_true(run(&f, &c) < 0);
	}
	conntrack_get_stats(ct, &st1);
	assert_true(st1.frags.dropped - st0.frags.dropped > 1000);
	/* A truncated fragment (MF, not a multiple of 8) is dropped too. */
	load(&f, &fs, 0);
	f.pkt.data[14 + 3] -= 3;
	f.pkt.len -= 3;
	assert_int_equal(run(&f, &c), -EINVAL);
}

/* Expiry, with the clock driven by the test: each test has a tracker of
 * its own and starts at the time it was set up (t0). */
static struct conntrack *group_ct;
static uint64_t t0;

static int
expiry_setup(void **s)
{
	group_ct = ct;
	ct = conntrack_create(1000);
	t0 = clock_now_ms();
	clock_fake_set(t0);
	return ct ? 0 : -1;
}

static int
expiry_teardown(void **s)
{
	conntrack_destroy(ct);
	ct = group_ct;
	clock_fake_set(0);
	return 0;
}

/* Sets the clock to ms after t0. */
static void
at(uint64_t ms)
{
	clock_fake_set(t0 + ms);
}

static struct conntrack_stats
stats(void)
{
	struct conntrack_stats st;

	conntrack_get_stats(ct, &st);
	return st;
}

static int
grab(const struct conntrack_entry *e, void *arg)
{
	*(struct conntrack_entry *)arg = *e;
	return 1;
}

/* The connection of zone, the only one there. */
static struct conntrack_entry
conn_in(uint16_t zone)
{
	struct conntrack_entry e;

	assert_int_equal(conntrack_dump(ct, zone, grab, &e), 1);
	return e;
}

/* Whether a lookup finds e's connection (as ctnetlink's GET: no packet,
 * so the timeout stays). */
static bool
found(const struct conntrack_entry *e)
{
	struct conntrack_entry now;

	return conntrack_get(ct, &e->orig, &now) == 0;
}

/* e's connection is found until due (ms after t0), at due too, and is gone
 * a millisecond later. */
static void
lives_until(const struct conntrack_entry *e, uint64_t due)
{
	at(due - 1);
	assert_true(found(e));
	at(due);
	assert_true(found(e));
	at(due + 1);
	assert_false(found(e));
}

/* Commits first at ms (a connection of to_first s), runs next 10 s later
 * (a packet of that connection, found in state next_state) and checks
 * that next restarted the connection's timeout, to_next s from then. */
static void
restarts(struct frame *first, struct frame *next, uint8_t next_state,
	 uint32_t to_first, uint32_t to_next, uint64_t ms)
{
	struct ct_action c = act(true, 0), l = act(false, 0);
	struct conntrack_entry e;

	at(ms);
	assert_int_equal(state(first, &c), TRK | NEW);
	e = conn_in(0);
	assert_int_equal(e.timeout, to_first);
	at(ms + 10000);
	assert_int_equal(state(next, &l), next_state);
	assert_int_equal(conn_in(0).timeout, to_next);
	lives_until(&e, ms + 10000 + to_next * 1000);
}

/* UDP: 30 s unanswered, 120 s once answered; ICMP echo: 30 s. Every
 * packet restarts the timeout; a lookup past due deletes the
 * connection. */
static void
test_expiry_udp_icmp(void **s)
{
	struct ct_action l = act(false, 0);
	static struct frame a, b;

	conntrack_limit_set_default(ct, 100);	/* zone 0 counts */
	udp(&a, A, B, 5000, 53);
	udp(&b, A, B, 5000, 53);
	restarts(&a, &b, TRK | NEW, 30, 30, 0);
	assert_int_equal(stats().n_conns, 0);
	assert_int_equal(stats().n_expired, 1);
	assert_int_equal(conntrack_zone_count(ct, 0), 0);
	/* Gone: the same datagram starts a new one, a stream once
	 * answered. */
	udp(&a, A, B, 5000, 53);
	udp(&b, B, A, 53, 5000);
	restarts(&a, &b, TRK | EST | RPL, 30, 120, 100000);

	echo(&a, A, B, 8, 77);
	echo(&b, B, A, 0, 77);
	restarts(&a, &b, TRK | EST | RPL, 30, 30, 300000);
	/* Past due, the reply belongs to nothing. */
	echo(&b, B, A, 0, 77);
	assert_int_equal(state(&b, &l), TRK | INV);
	assert_int_equal(stats().n_expired, 3);
	conntrack_limit_set_default(ct, 0);
}

/* A receive burst reads the clock once: its packets see the time it
 * started, however late in it they come; the next burst sees the time
 * again. */
static void
test_expiry_burst(void **s)
{
	struct ct_action c = act(true, 0), l = act(false, 0);
	static struct frame a, b;
	struct conntrack_entry e;

	udp(&a, A, B, 6000, 53);
	udp(&b, A, B, 6000, 53);
	at(0);
	assert_int_equal(state(&a, &c), TRK | NEW);
	e = conn_in(0);
	/* Due at 30 s: a burst started before then finds it at any time. */
	at(30000);
	clock_burst_start();
	at(90000);
	assert_int_equal(clock_now_ms(), t0 + 30000);
	assert_int_equal(state(&b, &l), TRK | NEW);
	clock_burst_end();
	/* It restarted the timeout at the burst's time, not the clock's. */
	assert_int_equal(clock_now_ms(), t0 + 90000);
	lives_until(&e, 60000);
	assert_int_equal(stats().n_expired, 1);
}

/* Opens a TCP connection from port sport in zone at time ms; 'established'
 * completes the handshake. */
static struct conntrack_entry
tcp_open(uint16_t zone, uint16_t sport, uint64_t ms, bool established)
{
	struct ct_action c = act(true, zone), l = act(false, zone);
	struct frame f;

	at(ms);
	tcp(&f, A, B, sport, 80, 100, 0, FB_SYN);
	assert_int_equal(state(&f, &c), TRK | NEW);
	if (established) {
		tcp(&f, B, A, 80, sport, 5000, 101, FB_SYN | FB_ACK);
		assert_int_equal(state(&f, &l), TRK | EST | RPL);
		tcp(&f, A, B, sport, 80, 101, 5001, FB_ACK);
		assert_int_equal(state(&f, &l), TRK | EST);
	}
	return conn_in(zone);
}

/* What a zone's limit counts, as nf_conncount: the ct action's commits
 * while the zone had a limit (its own or the default), not a TCP
 * connection once closing. */
static void
test_limit_counts(void **s)
{
	struct ct_action c7 = act(true, 7), c8 = act(true, 8);
	struct frame f;

	/* Unlimited: counts nothing, refuses nothing. */
	for (uint16_t p = 1; p <= 3; p++) {
		udp(&f, A, B, p, 53);
		assert_int_equal(run(&f, &c7), 0);
	}
	assert_int_equal(conntrack_zone_count(ct, 7), 0);
	/* A limit set later counts what commits after it, not before. */
	conntrack_limit_set(ct, 7, 2);
	udp(&f, A, B, 1, 53);
	assert_int_equal(run(&f, &c7), 0);
	assert_int_equal(conntrack_zone_count(ct, 7), 0);
	for (uint16_t p = 4; p <= 5; p++) {
		udp(&f, A, B, p, 53);
		assert_int_equal(run(&f, &c7), 0);
	}
	assert_int_equal(conntrack_zone_count(ct, 7), 2);
	udp(&f, A, B, 6, 53);
	assert_int_equal(run(&f, &c7), -ENOMEM);
	/* Back to unlimited: the counted stay counted, new ones do not. */
	conntrack_limit_del(ct, 7);
	udp(&f, A, B, 6, 53);
	assert_int_equal(run(&f, &c7), 0);
	assert_int_equal(conntrack_zone_count(ct, 7), 2);
	assert_int_equal(conntrack_flush(ct, 7, 0, 0), 6);
	assert_int_equal(conntrack_zone_count(ct, 7), 0);

	/* The default limit counts in a zone without its own. */
	conntrack_limit_set_default(ct, 1);
	tcp_open(8, 1000, 0, true);
	assert_int_equal(conntrack_zone_count(ct, 8), 1);
	tcp(&f, A, B, 1001, 80, 100, 0, FB_SYN);
	assert_int_equal(run(&f, &c8), -ENOMEM);
	/* TIME_WAIT leaves the count, and makes room. */
	tcp_close(1000, 8);
	assert_int_equal(conntrack_zone_count(ct, 8), 0);
	tcp_open(8, 1001, 0, true);
	assert_int_equal(conntrack_zone_count(ct, 8), 1);
	assert_int_equal(conntrack_flush(ct, 8, 0, 0), 2);
	assert_int_equal(conntrack_zone_count(ct, 8), 0);
	conntrack_limit_set_default(ct, 0);
}

/* TCP: each state its timeout (ct/tcp.c), data unacknowledged at most
 * 300 s. Each case opens its connection when the one before is gone. */
static void
test_expiry_tcp(void **s)
{
	struct ct_action l4 = act(false, 4), l5 = act(false, 5);
	struct conntrack_entry e;
	struct frame f;
	uint64_t t = 0;

	e = tcp_open(1, 1000, t, false);
	assert_int_equal(e.tcp_state, CT_TCP_SYN_SENT);
	assert_int_equal(e.timeout, 120);
	lives_until(&e, t + 120000);

	t += 120000 + 1;
	e = tcp_open(2, 1001, t, true);
	assert_int_equal(e.tcp_state, CT_TCP_ESTABLISHED);
	assert_int_equal(e.timeout, 5 * 24 * 3600);
	lives_until(&e, t + 5 * 24 * 3600 * 1000ull);

	/* A FIN each way and the last ACK: TIME_WAIT, 120 s. */
	t += 5 * 24 * 3600 * 1000ull + 1;
	tcp_open(3, 1002, t, true);
	tcp_close(1002, 3);
	e = conn_in(3);
	assert_int_equal(e.tcp_state, CT_TCP_TIME_WAIT);
	assert_int_equal(e.timeout, 120);
	lives_until(&e, t + 120000);

	/* A reset: CLOSE, 10 s. */
	t += 120000 + 1;
	tcp_open(4, 1003, t, true);
	tcp(&f, B, A, 80, 1003, 5001, 101, FB_RST | FB_ACK);
	assert_int_equal(state(&f, &l4), TRK | EST | RPL);
	e = conn_in(4);
	assert_int_equal(e.tcp_state, CT_TCP_CLOSE);
	assert_int_equal(e.timeout, 10);
	lives_until(&e, t + 10000);
	assert_int_equal(stats().n_expired, 4);

	/* Data nobody acknowledges: 300 s; acknowledged, the state's. */
	t += 10000 + 1;
	tcp_open(5, 1004, t, true);
	tcp_text(&f, A, B, 1004, 80, 101, 5001, "hello");
	assert_int_equal(state(&f, &l5), TRK | EST);
	assert_int_equal(conn_in(5).timeout, 300);
	tcp(&f, B, A, 80, 1004, 5001, 106, FB_ACK);
	assert_int_equal(state(&f, &l5), TRK | EST | RPL);
	assert_int_equal(conn_in(5).timeout, 5 * 24 * 3600);
}

/* The sweeper deletes what is past due, nothing else, without a packet
 * or a lookup. */
static void
test_expiry_sweep(void **s)
{
	struct ct_action udp1 = act(true, 1), icmp2 = act(true, 2);
	struct frame f;

	conntrack_limit_set_default(ct, 100);	/* zones count */
	udp(&f, A, B, 5000, 53);
	assert_int_equal(state(&f, &udp1), TRK | NEW);
	echo(&f, A, B, 8, 77);
	assert_int_equal(state(&f, &icmp2), TRK | NEW);
	tcp_open(3, 1000, 0, false);
	tcp_open(4, 1001, 0, true);
	assert_int_equal(stats().n_conns, 4);

	at(30000);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_conns, 4);
	at(30001);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_conns, 2);
	assert_int_equal(stats().n_expired, 2);
	assert_int_equal(conntrack_zone_count(ct, 1), 0);
	assert_int_equal(conntrack_zone_count(ct, 2), 0);
	assert_int_equal(conntrack_zone_count(ct, 3), 1);
	at(120001);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_conns, 1);
	assert_int_equal(conntrack_zone_count(ct, 3), 0);
	conn_in(4);
	at(5 * 24 * 3600 * 1000ull + 1);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_conns, 0);
	assert_int_equal(stats().n_expired, 4);
	conntrack_limit_set_default(ct, 0);
}

/* A fragment queue lives 30 s: the sweeper drops it after, and the rest
 * of its datagram never completes. */
static void
test_expiry_fragments(void **s)
{
	struct ct_action c = act(true, 11);
	static struct frames fs;
	static struct frame f, whole;

	big_udp(&whole, false, 3000);
	fs.n = 0;
	assert_int_equal(frag_split(whole.pkt.data, whole.pkt.len, 14,
				    AF_INET, 1500, collect, &fs), 3);
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	at(30000);
	conntrack_sweep(ct);
	assert_int_equal(stats().frags.expired, 0);
	load(&f, &fs, 1);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 2);
	assert_int_equal(run(&f, &c), 0);
	assert_int_equal(f.key.ct_state, TRK | NEW);

	at(40000);
	load(&f, &fs, 0);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	at(40000 + 30001);
	conntrack_sweep(ct);
	assert_int_equal(stats().frags.expired, 1);
	load(&f, &fs, 1);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	load(&f, &fs, 2);
	assert_int_equal(run(&f, &c), -EINPROGRESS);
	assert_int_equal(stats().frags.reassembled, 1);
}

/* An expectation lives 5 minutes, or as long as its master if that is
 * shorter; past due it relates nothing, and the sweeper drops it. */
static void
test_expiry_expectations(void **s)
{
	struct ct_action ftp = act(true, 13), l = act(false, 13);
	struct ct_action tftp = act(true, 14), l14 = act(false, 14);
	struct frame f;

	ftp.helper = CT_HELPER_FTP;
	tftp.helper = CT_HELPER_TFTP;
	ftp_passive(&ftp);
	/* Acknowledged: the control connection outlives the expectation. */
	tcp(&f, A, B, 40000, 21, 101, 901 + sizeof(ftp_pasv) - 1, FB_ACK);
	assert_int_equal(state(&f, &l), TRK | EST);
	assert_int_equal(stats().n_expects, 1);

	at(300000);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_expects, 1);
	tcp(&f, A, B, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW | REL);
	at(300001);
	tcp(&f, A, B, 40001, 51210, 5, 0, FB_SYN);
	assert_int_equal(state(&f, &l), TRK | NEW);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_expects, 0);
	conn_in(13);

	/* TFTP's master, unanswered, lives 30 s: its expectation goes with
	 * it. */
	udp_data(&f, A, B, 5000, 69, "\0\1f", 4);
	assert_int_equal(state(&f, &tftp), TRK | NEW);
	assert_int_equal(stats().n_expects, 1);
	udp(&f, B, A, 7777, 5000);
	assert_int_equal(state(&f, &l14), TRK | NEW | REL);
	at(300001 + 30001);
	conntrack_sweep(ct);
	assert_int_equal(stats().n_expects, 0);
	udp(&f, B, A, 7777, 5000);
	assert_int_equal(state(&f, &l14), TRK | NEW);
}

/* A policy of l4num with one value given (attr: 0 none). */
static int
policy(const char *name, uint8_t l4num, int attr, uint32_t v, bool replace)
{
	uint32_t values[CT_TIMEOUT_N] = { 0 };

	values[attr] = v;
	return ct_timeout_set(conntrack_timeouts(ct), name, AF_INET, l4num,
			      values, attr ? 1u << attr : 0, false, replace);
}

static uint32_t
policy_use(const char *name)
{
	struct ct_timeout_info info;

	assert_int_equal(ct_timeout_get(conntrack_timeouts(ct), name, &info),
			 0);
	return info.use;
}

/* Timeout policies: the table's rules (nfnetlink_cttimeout's errnos), and
 * connections created by an action naming one live by it, per state,
 * until it is replaced or deleted. */
static void
test_expiry_policy(void **s)
{
	struct ct_timeout_table *t = conntrack_timeouts(ct);
	struct ct_action c = act(true, 0), l = act(false, 0);
	uint32_t values[CT_TIMEOUT_N] = { 0 };
	struct ct_timeout_info info;
	struct conntrack_entry e;
	static struct frame a, b;

	assert_int_equal(policy("udp", IPPROTO_UDP, CTA_TIMEOUT_UDP_UNREPLIED,
				3, false), 0);
	assert_int_equal(ct_timeout_get(t, "udp", &info), 0);
	assert_int_equal(info.l3num, AF_INET);
	assert_int_equal(info.l4num, IPPROTO_UDP);
	assert_int_equal(info.use, 1);
	assert_int_equal(info.values[CTA_TIMEOUT_UDP_UNREPLIED], 3);
	assert_int_equal(info.values[CTA_TIMEOUT_UDP_REPLIED], 120);
	assert_int_equal(policy("udp", IPPROTO_UDP, 0, 0, false), -EBUSY);
	assert_int_equal(ct_timeout_set(t, "udp", AF_INET, IPPROTO_UDP, NULL,
					0, true, true), -EEXIST);
	assert_int_equal(policy("udp", IPPROTO_TCP, 0, 0, true), -EINVAL);
	assert_int_equal(policy("sctp", IPPROTO_SCTP, 0, 0, false),
			 -EOPNOTSUPP);
	assert_int_equal(ct_timeout_get(t, "sctp", &info), -ENOENT);
	assert_int_equal(ct_timeout_del(t, "sctp"), -ENOENT);
	assert_int_equal(policy("tcp", IPPROTO_TCP,
				CTA_TIMEOUT_TCP_ESTABLISHED, 50, false), 0);
	assert_int_equal(policy("icmp", IPPROTO_ICMP, CTA_TIMEOUT_ICMP_TIMEOUT,
				2, false), 0);

	/* UDP: unreplied 3 s, then the replaced policy's values from the
	 * next packet on. */
	strcpy(c.timeout, "udp");
	udp(&a, A, B, 5000, 53);
	assert_int_equal(state(&a, &c), TRK | NEW);
	e = conn_in(0);
	assert_int_equal(e.timeout, 3);
	assert_int_equal(policy_use("udp"), 2);
	assert_int_equal(policy("udp", IPPROTO_UDP, CTA_TIMEOUT_UDP_REPLIED, 7,
				true), 0);
	udp(&b, B, A, 53, 5000);
	assert_int_equal(state(&b, &l), TRK | EST | RPL);
	assert_int_equal(conn_in(0).timeout, 7);
	lives_until(&e, 7000);
	rcu_barrier();
	assert_int_equal(policy_use("udp"), 1);

	/* A policy for another protocol than the connection's is none. */
	at(10000);
	strcpy(c.timeout, "tcp");
	udp(&a, A, B, 5001, 53);
	assert_int_equal(state(&a, &c), TRK | NEW);
	assert_int_equal(conn_in(0).timeout, 30);
	assert_int_equal(policy_use("tcp"), 1);
	conntrack_flush(ct, -1, 0, 0);

	/* TCP: the states the policy gives, the defaults for the others
	 * (a replacement resets what it does not give); UNACK bounds
	 * unacknowledged data. */
	assert_int_equal(policy("tcp", IPPROTO_TCP, CTA_TIMEOUT_TCP_UNACK, 20,
				true), 0);
	assert_int_equal(ct_timeout_get(t, "tcp", &info), 0);
	assert_int_equal(info.values[CTA_TIMEOUT_TCP_ESTABLISHED],
			 5 * 24 * 3600);
	values[CTA_TIMEOUT_TCP_ESTABLISHED] = 50;
	values[CTA_TIMEOUT_TCP_UNACK] = 20;
	assert_int_equal(ct_timeout_set(t, "tcp", AF_INET, IPPROTO_TCP, values,
					1u << CTA_TIMEOUT_TCP_ESTABLISHED |
						1u << CTA_TIMEOUT_TCP_UNACK,
					false, true), 0);
	at(20000);
	tcp(&a, A, B, 1000, 80, 100, 0, FB_SYN);
	assert_int_equal(state(&a, &c), TRK | NEW);
	assert_int_equal(conn_in(0).timeout, 120);
	tcp(&a, B, A, 80, 1000, 5000, 101, FB_SYN | FB_ACK);
	assert_int_equal(state(&a, &l), TRK | EST | RPL);
	tcp(&a, A, B, 1000, 80, 101, 5001, FB_ACK);
	assert_int_equal(state(&a, &l), TRK | EST);
	assert_int_equal(conn_in(0).timeout, 50);
	tcp_text(&a, A, B, 1000, 80, 101, 5001, "hello");
	assert_int_equal(state(&a, &l), TRK | EST);
	assert_int_equal(conn_in(0).timeout, 20);
	/* Deleted: the connection has the defaults from its next packet. */
	assert_int_equal(ct_timeout_del(t, "tcp"), 0);
	assert_int_equal(ct_timeout_get(t, "tcp", &info), -ENOENT);
	tcp(&a, B, A, 80, 1000, 5001, 106, FB_ACK);
	assert_int_equal(state(&a, &l), TRK | EST | RPL);
	assert_int_equal(conn_in(0).timeout, 5 * 24 * 3600);
	conntrack_flush(ct, -1, 0, 0);

	/* ICMP; a name nobody has: the defaults. */
	strcpy(c.timeout, "icmp");
	echo(&a, A, B, 8, 77);
	assert_int_equal(state(&a, &c), TRK | NEW);
	assert_int_equal(conn_in(0).timeout, 2);
	strcpy(c.timeout, "none");
	echo(&a, A, B, 8, 78);
	assert_int_equal(state(&a, &c), TRK | NEW);
	conntrack_flush(ct, -1, 0, 0);
	echo(&a, A, B, 8, 78);
	assert_int_equal(state(&a, &c), TRK | NEW);
	assert_int_equal(conn_in(0).timeout, 30);
	/* All deleted at once. */
	assert_int_equal(ct_timeout_del(t, NULL), 0);
	assert_int_equal(ct_timeout_get(t, "udp", &info), -ENOENT);
	assert_int_equal(ct_timeout_get(t, "icmp", &info), -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_stored_form),
		cmocka_unit_test(test_parse_once),
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_udp_icmp),
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_zones),
		cmocka_unit_test(test_mark_labels),
		cmocka_unit_test(test_snat),
		cmocka_unit_test(test_dnat_icmp_error),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_limit_counts),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_ftp_snat_active),
		cmocka_unit_test(test_ftp_dnat_passive),
		cmocka_unit_test(test_ftp_snat_passive),
		cmocka_unit_test(test_ftp_snat_eprt6),
		cmocka_unit_test(test_tftp_nat),
		cmocka_unit_test(test_seqadj),
		cmocka_unit_test(test_nat_icmpv6_error),
		cmocka_unit_test(test_nat_icmpv6_error_long_quote),
		cmocka_unit_test(test_nat_sums),
		cmocka_unit_test(test_nat_sctp_quote),
		cmocka_unit_test(test_fragments_v4),
		cmocka_unit_test(test_fragments_v6),
		cmocka_unit_test(test_fragment_past_last),
		cmocka_unit_test(test_fragments_in_slots_v4),
		cmocka_unit_test(test_fragments_in_slots_v6),
		cmocka_unit_test(test_fragments_oversize_v4),
		cmocka_unit_test(test_fragments_oversize_v6),
		/* Last: it leaves the fragment table at its cap. */
		cmocka_unit_test(test_fragment_flood),
		/* Trackers of their own; after the others, which share one,
		 * as they move the clock days on. */
		cmocka_unit_test_setup_teardown(test_expiry_burst,
						expiry_setup, expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_udp_icmp,
						expiry_setup, expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_tcp, expiry_setup,
						expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_policy,
						expiry_setup, expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_sweep,
						expiry_setup, expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_fragments,
						expiry_setup, expiry_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_expectations,
						expiry_setup, expiry_teardown),
	};

	rcu_register_thread();
	return cmocka_run_group_tests(tests, setup, teardown);
}
