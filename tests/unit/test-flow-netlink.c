/* SPDX-License-Identifier: Apache-2.0 */
/* Flow key/mask and action attributes, against the kernel's answers. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "actions/actions-netlink.h"
#include "common/kernel-profile.h"
#include "flow/key-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "tests/unit/builders.h"
#include "tests/unit/nl-test.h"

/* Starts a key in_port(1),eth(),eth_type(type). */
static struct nlattr *
eth_key_start(struct attrs *b, uint16_t type)
{
	struct nlattr *key = msgbuf_nest_start(&b->mb, OVS_FLOW_ATTR_KEY);
	struct ovs_key_ethernet eth;

	memset(&eth, 0, sizeof(eth));
	msgbuf_put_u32(&b->mb, OVS_KEY_ATTR_IN_PORT, 1);
	attrs_put(b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b->mb, OVS_KEY_ATTR_ETHERTYPE, htons(type));
	return key;
}

/* in_port(1),eth(),eth_type(0x0800),ipv4(src=10.0.0.1) as a key. */
static struct nlattr *
ipv4_key(struct attrs *b, bool with_ipv4)
{
	struct ovs_key_ipv4 ip = { .ipv4_src = htonl(0x0a000001) };
	struct nlattr *key = eth_key_start(b, ETH_P_IP);

	if (with_ipv4)
		attrs_put(b, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
	msgbuf_nest_end(&b->mb, key);
	return key;
}

/* Dumps key and mask into out (a message) as a flow dump does; returns
 * where the mask starts. */
static int
put_key_and_mask(char *out, size_t size, const struct flow_key *key,
		 const struct flow_key *mask)
{
	struct msgbuf mb;
	int mask_at;

	msgbuf_init(&mb, out, size);
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_FLOW_ATTR_KEY, key, key, false);
	mask_at = mb.cur->nlmsg_len;
	flow_key_put(&mb, OVS_FLOW_ATTR_MASK, key, mask, true);
	assert_int_equal(msgbuf_end(&mb), 0);
	return mask_at;
}

/* Parses back what put_key_and_mask() wrote: the same key, and the mask
 * with "no tunnel" matched exactly (a dumped mask carries the tunnel, as
 * the kernel's, which the key alone did not ask). */
static void
assert_roundtrip(const char *out, int mask_at, const struct flow_key *key,
		 struct flow_key *mask)
{
	struct flow_key key2, mask2;

	assert_int_equal(flow_match_from_nlattrs(&key2, &mask2,
		(const void *)(out + NLMSG_HDRLEN),
		(const void *)(out + mask_at), true), 0);
	assert_memory_equal(key, &key2, sizeof(key2));
	mask->tun.family = 0xff;
	assert_memory_equal(mask, &mask2, sizeof(mask2));
}

static void
test_key_roundtrip_and_exact_mask(void **state)
{
	struct flow_key key, mask;
	static struct attrs b;
	char out[4096];
	const struct nlattr *k;

	attrs_init(&b);
	k = ipv4_key(&b, true);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, NULL, true),
			 0);
	assert_int_equal(key.in_port, 1);
	assert_int_equal(key.eth_type, htons(ETH_P_IP));
	assert_int_equal(key.ipv4_src, htonl(0x0a000001));
	assert_int_equal(mask.in_port, 0xffff);
	assert_int_equal(mask.ipv4_src, 0xffffffff);
	assert_int_equal(mask.eth_type, 0xffff);
	/* Out and in again: the same key and mask. */
	assert_roundtrip(out, put_key_and_mask(out, sizeof(out), &key, &mask),
			 &key, &mask);
}

/* Ends the key nest k and parses it (no mask). */
static int
parse_key(struct attrs *b, struct nlattr *k)
{
	struct flow_key key, mask;

	msgbuf_nest_end(&b->mb, k);
	assert_false(b->mb.overflow);
	return flow_match_from_nlattrs(&key, &mask, k, NULL, false);
}

/* Starts a key nest in a fresh list. */
static struct nlattr *
key_start(struct attrs *b)
{
	attrs_init(b);
	return msgbuf_nest_start(&b->mb, OVS_FLOW_ATTR_KEY);
}

static void
test_key_errors(void **state)
{
	static struct attrs b;
	struct nlattr *k;

	/* eth_type IPv4 without the IPv4 attribute: "Missing key". */
	attrs_init(&b);
	assert_int_equal(parse_key(&b, ipv4_key(&b, false)), -EINVAL);
	/* Duplicate attribute. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 1);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 2);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* Wrong length. */
	k = key_start(&b);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_IN_PORT, htons(1));
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* No Ethernet header and no EtherType. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 1);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* in_port past the port range. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 65535);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_ARP));
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* An EtherType below 0x600. */
	k = key_start(&b);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(0x0100));
	assert_int_equal(parse_key(&b, k), -EINVAL);
}

static void
test_mask_rules(void **state)
{
	struct ovs_key_ipv4 ipm = { .ipv4_src = 0xffffffff };
	struct ovs_key_ethernet ethm;
	struct flow_key key, mask;
	static struct attrs b;
	const struct nlattr *k;
	struct nlattr *m;

	attrs_init(&b);
	k = ipv4_key(&b, true);
	/* An IPv4 mask needs an exact EtherType match: an absent (all
	 * zero) EtherType mask refuses it. */
	memset(&ethm, 0, sizeof(ethm));
	m = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_MASK);
	attrs_put(&b, OVS_KEY_ATTR_IPV4, &ipm, sizeof(ipm));
	msgbuf_nest_end(&b.mb, m);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, m, false),
			 -EINVAL);
	/* With it, fine, and in_port and EtherType become exact. */
	m = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_MASK);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 0);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &ethm, sizeof(ethm));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	attrs_put(&b, OVS_KEY_ATTR_IPV4, &ipm, sizeof(ipm));
	msgbuf_nest_end(&b.mb, m);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, m, true), 0);
	assert_int_equal(mask.ipv4_src, 0xffffffff);
	assert_int_equal(mask.ipv4_dst, 0);
	assert_int_equal(mask.eth_type, 0xffff);
	assert_int_equal(mask.vlan.tci, 0xffff);
}

static void
test_vlan_key(void **state)
{
	struct ovs_key_arp arp = { .arp_op = htons(1) };
	struct ovs_key_ethernet eth;
	struct flow_key key, mask;
	static struct attrs b;
	struct nlattr *k, *encap;

	memset(&eth, 0, sizeof(eth));
	/* A VLAN EtherType without its encap: invalid. */
	k = key_start(&b);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_8021Q));
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* With TCI (CFI set) and an encapsulated ARP. */
	k = key_start(&b);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_8021Q));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_VLAN, htons(0x1000 | 42));
	encap = msgbuf_nest_start(&b.mb, OVS_KEY_ATTR_ENCAP);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_ARP));
	attrs_put(&b, OVS_KEY_ATTR_ARP, &arp, sizeof(arp));
	msgbuf_nest_end(&b.mb, encap);
	msgbuf_nest_end(&b.mb, k);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, NULL, true),
			 0);
	assert_int_equal(ntohs(key.vlan.tci), 0x1000 | 42);
	assert_int_equal(key.vlan.tpid, htons(ETH_P_8021Q));
	assert_int_equal(key.eth_type, htons(ETH_P_ARP));
	assert_int_equal(key.ip_proto, 1);
}

/* Tunnels. A list of tunnel attributes is built on its own (t), then
 * wrapped in a key with an Ethernet header (b). */

static struct attrs tb, kb, mb_;

static void
put_flag(struct attrs *a, uint16_t type)
{
	attrs_put(a, type, NULL, 0);
}

/* OVS_KEY_ATTR_TUNNEL of t's attributes, into a. */
static void
put_tun(struct attrs *a, const struct attrs *t)
{
	attrs_put(a, OVS_KEY_ATTR_TUNNEL, attrs_data(t), attrs_len(t));
}

/* A key of the tunnel t, in_port 1 and an Ethernet header of a local
 * EtherType, as a nest of type. */
static const struct nlattr *
tun_key(struct attrs *a, uint16_t type, const struct attrs *t)
{
	struct ovs_key_ethernet eth;
	struct nlattr *k;

	memset(&eth, 0, sizeof(eth));
	attrs_init(a);
	k = msgbuf_nest_start(&a->mb, type);
	if (t)
		put_tun(a, t);
	msgbuf_put_u32(&a->mb, OVS_KEY_ATTR_IN_PORT, 1);
	attrs_put(a, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&a->mb, OVS_KEY_ATTR_ETHERTYPE, htons(0x88b5));
	msgbuf_nest_end(&a->mb, k);
	return k;
}

/* Parses a key of the tunnel t, and of the mask tunnel m (NULL: none
 * given). */
static int
tun_parse(const struct attrs *t, const struct attrs *m,
	  struct flow_key *key, struct flow_key *mask)
{
	return flow_match_from_nlattrs(key, mask,
				       tun_key(&kb, OVS_FLOW_ATTR_KEY, t),
				       m ? tun_key(&mb_, OVS_FLOW_ATTR_MASK, m)
					 : NULL,
				       false);
}

static int
tun_err(const struct attrs *t)
{
	struct flow_key key, mask;

	return tun_parse(t, NULL, &key, &mask);
}

static const struct nlattr *
find(const struct nlattr *nest, uint16_t type)
{
	return attrs_find(attr_data(nest), attr_len(nest), type);
}

/* The flow of key and mask as dumps put it (the masked key, the mask),
 * parsed again: the same key and mask. The dumped tunnels are returned in
 * *kt and *mt (NULL: none), which point into out. */
static void
dump_and_parse(const struct flow_key *key, const struct flow_key *mask,
	       char *out, size_t size, const struct nlattr **kt,
	       const struct nlattr **mt)
{
	struct flow_key masked, key2, mask2;
	const struct nlattr *k, *m;
	struct msgbuf mb;
	int mask_at;

	for (size_t i = 0; i < sizeof(masked); i++)
		((uint8_t *)&masked)[i] = ((const uint8_t *)key)[i] &
					  ((const uint8_t *)mask)[i];
	msgbuf_init(&mb, out, size);
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_FLOW_ATTR_KEY, &masked, &masked, false);
	mask_at = mb.cur->nlmsg_len;
	flow_key_put(&mb, OVS_FLOW_ATTR_MASK, &masked, mask, true);
	assert_int_equal(msgbuf_end(&mb), 0);
	k = (const void *)(out + NLMSG_HDRLEN);
	m = (const void *)(out + mask_at);
	assert_int_equal(flow_match_from_nlattrs(&key2, &mask2, k, m, true),
			 0);
	assert_memory_equal(&masked, &key2, sizeof(key2));
	assert_memory_equal(mask, &mask2, sizeof(mask2));
	*kt = find(k, OVS_KEY_ATTR_TUNNEL);
	*mt = find(m, OVS_KEY_ATTR_TUNNEL);
}

/* Whether the tunnel attribute a holds exactly t's attributes. */
static bool
same_tun(const struct nlattr *a, const struct attrs *t)
{
	return a && (size_t)attr_len(a) == attrs_len(t) &&
	       !memcmp(attr_data(a), attrs_data(t), attrs_len(t));
}

static bool
all_bytes(const void *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (((const uint8_t *)p)[i] != v)
			return false;
	return true;
}

static const uint8_t geneve8[8] = {
	0x01, 0x02, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef,	/* critical, 1 word */
};

/* Every IPv4 attribute, in the order the kernel writes them, given
 * without a mask: the key, the exact mask the kernel derives (outer
 * headers exact even where the key has no attribute, flags as given), and
 * both out and in again. */
static void
test_tunnel_ipv4_key(void **state)
{
	struct flow_key key, mask, want;
	const struct nlattr *kt, *mt;
	static char out[4096];

	attrs_init(&tb);
	msgbuf_put_u64(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(42));
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC, htonl(0x0a000001));
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(0x0a000002));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TOS, 0x10);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_CSUM);
	msgbuf_put_u16(&tb.mb, OVS_TUNNEL_KEY_ATTR_TP_SRC, htons(1234));
	msgbuf_put_u16(&tb.mb, OVS_TUNNEL_KEY_ATTR_TP_DST, htons(6081));
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_OAM);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8,
		  sizeof(geneve8));
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.family, AF_INET);
	assert_true(key.tun.id == htobe64(42));
	assert_int_equal(key.tun.ipv4_src, htonl(0x0a000001));
	assert_int_equal(key.tun.ipv4_dst, htonl(0x0a000002));
	assert_int_equal(key.tun.tos, 0x10);
	assert_int_equal(key.tun.ttl, 64);
	assert_int_equal(key.tun.tp_src, htons(1234));
	assert_int_equal(key.tun.tp_dst, htons(6081));
	assert_int_equal(key.tun.flags, TUN_F_KEY | TUN_F_DF | TUN_F_CSUM |
			 TUN_F_OAM | TUN_F_GENEVE_OPT);
	assert_int_equal(key.tun.opts_len, 8);
	assert_memory_equal(tun_key_opts(&key.tun), geneve8, 8);
	assert_true(all_bytes(key.tun.opts, TUN_OPTS_MAX - 8, 0));
	/* The mask. */
	memset(&want.tun, 0, sizeof(want.tun));
	want.tun.id = ~0ULL;
	want.tun.ipv4_src = want.tun.ipv4_dst = ~0u;
	memset(&want.tun.ipv6_src, 0xff, 16);
	memset(&want.tun.ipv6_dst, 0xff, 16);
	want.tun.tp_src = want.tun.tp_dst = 0xffff;
	want.tun.tos = want.tun.ttl = 0xff;
	want.tun.flags = key.tun.flags;
	want.tun.family = 0xff;
	want.tun.opts_len = 0xff;
	memset(want.tun.opts + TUN_OPTS_MAX - 8, 0xff, 8);
	assert_memory_equal(&mask.tun, &want.tun, sizeof(want.tun));
	/* The key's tunnel is dumped as it came; the IPv6 half of the mask
	 * is not (the key is IPv4), so it comes back zero. */
	memset(&mask.tun.ipv6_src, 0, 16);
	memset(&mask.tun.ipv6_dst, 0, 16);
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	assert_true(same_tun(kt, &tb));
	assert_non_null(mt);
}

/* IPv6 with a VXLAN group policy, and a mask as ovs-vswitchd gives one:
 * out and in again, the same. */
static void
test_tunnel_ipv6_vxlan(void **state)
{
	static const uint8_t src[16] = { 0xfd, 0, [15] = 1 };
	static const uint8_t dst[16] = { 0xfd, 0, [15] = 2 };
	static const uint8_t ones[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static struct attrs mt_;
	struct flow_key key, mask;
	const struct nlattr *kt, *mt;
	struct tun_vxlan_opts v;
	static char out[4096];
	struct nlattr *x;

	attrs_init(&tb);
	msgbuf_put_u64(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(7));
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_SRC, src, 16);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, dst, 16);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 10);
	msgbuf_put_u16(&tb.mb, OVS_TUNNEL_KEY_ATTR_TP_DST, htons(4789));
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u32(&tb.mb, OVS_VXLAN_EXT_GBP, 0x00810005);
	msgbuf_nest_end(&tb.mb, x);
	attrs_init(&mt_);
	msgbuf_put_u64(&mt_.mb, OVS_TUNNEL_KEY_ATTR_ID, ~0ULL);
	attrs_put(&mt_, OVS_TUNNEL_KEY_ATTR_IPV6_SRC, ones, 16);
	attrs_put(&mt_, OVS_TUNNEL_KEY_ATTR_IPV6_DST, ones, 16);
	msgbuf_put_u8(&mt_.mb, OVS_TUNNEL_KEY_ATTR_TTL, 0);
	x = msgbuf_nest_start(&mt_.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u32(&mt_.mb, OVS_VXLAN_EXT_GBP, 0xffff);
	msgbuf_nest_end(&mt_.mb, x);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), 0);
	assert_int_equal(key.tun.family, AF_INET6);
	assert_memory_equal(&key.tun.ipv6_dst, dst, 16);
	assert_int_equal(key.tun.flags, TUN_F_KEY | TUN_F_VXLAN_OPT);
	assert_int_equal(key.tun.opts_len, sizeof(v));
	memcpy(&v, tun_key_opts(&key.tun), sizeof(v));
	assert_int_equal(v.gbp, 0x00810005);
	assert_int_equal(mask.tun.family, 0xff);
	assert_int_equal(mask.tun.opts_len, 0xff);
	assert_int_equal(mask.tun.ttl, 0);
	assert_int_equal(mask.tun.ipv4_dst, 0);
	assert_int_equal(mask.tun.flags, TUN_F_KEY | TUN_F_VXLAN_OPT);
	memcpy(&v, mask.tun.opts + TUN_OPTS_MAX - sizeof(v), sizeof(v));
	assert_int_equal(v.gbp, 0xffff);
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	assert_true(same_tun(mt, &mt_));
	/* Without a mask, the key's attributes come back; so does the mask
	 * but for its IPv4 half (the key is IPv6). */
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	mask.tun.ipv4_src = mask.tun.ipv4_dst = 0;
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	assert_true(same_tun(kt, &tb));
}

/* ERSPAN: the options are one struct erspan_metadata whatever came (a
 * shorter one zero-filled in front, a longer one cut to its last bytes). */
static void
test_tunnel_erspan(void **state)
{
	struct tun_erspan_opts v1 = { .version = 1, .u.index = htonl(3) };
	struct tun_erspan_opts v2 = { .version = 2 };
	struct tun_erspan_opts got;
	const struct nlattr *kt, *mt, *e;
	struct flow_key key, mask;
	static char out[4096];
	uint8_t big[20] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	static const uint8_t too_long[256];
	uint8_t want[12] = { 0 };

	v2.u.md2.sgt = htons(77);
	v2.u.md2.flags = htons(0x03f8);		/* hwid 0x3f, dir */
	for (int v = 1; v <= 2; v++) {
		attrs_init(&tb);
		msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
			       htonl(0x0a000002));
		msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
		attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS,
			  v == 1 ? &v1 : &v2, sizeof(v1));
		assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
		assert_int_equal(key.tun.flags, TUN_F_ERSPAN_OPT);
		assert_int_equal(key.tun.opts_len, 12);
		memcpy(&got, tun_key_opts(&key.tun), sizeof(got));
		assert_memory_equal(&got, v == 1 ? &v1 : &v2, sizeof(got));
		assert_int_equal(mask.tun.opts_len, 0xff);
		memset(&mask.tun.ipv6_src, 0, 16);
		memset(&mask.tun.ipv6_dst, 0, 16);
		mask.tun.id = 0;	/* no key id: not dumped */
		dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
		assert_true(same_tun(kt, &tb));
	}
	/* 8 bytes: 12 kept, 4 zeros in front. */
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, big, 8);
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.opts_len, 12);
	memcpy(want + 4, big, 8);
	assert_memory_equal(tun_key_opts(&key.tun), want, 12);
	mask.tun.id = 0;
	memset(&mask.tun.ipv6_src, 0, 32);
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	e = find(kt, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS);
	assert_int_equal(attr_len(e), 12);
	assert_memory_equal(attr_data(e), want, 12);
	/* 20 bytes: the last 12 dumped. */
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, big, sizeof(big));
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.opts_len, 12);
	assert_memory_equal(tun_key_opts(&key.tun), big + 8, 12);
	/* More than 255 bytes: EINVAL. */
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, too_long,
		  sizeof(too_long));
	assert_int_equal(tun_err(&tb), -EINVAL);
}

/* A key of IPv4 destination 10.0.0.2, TTL 64 and geneve options of len
 * bytes (o: their bytes; a critical type). */
static int
geneve_key(int len, struct flow_key *key, struct flow_key *mask)
{
	static uint8_t o[300];

	for (int i = 0; i < (int)sizeof(o); i++)
		o[i] = (uint8_t)(i + 1);
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(0x0a000002));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, o, len);
	return tun_parse(&tb, NULL, key, mask);
}

static void
test_tunnel_geneve_lengths(void **state)
{
	static const int ok[] = { 0, 4, 64, 252 };
	const struct nlattr *kt, *mt, *g;
	struct flow_key key, mask;
	static char out[4096];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int len = ok[i];

		assert_int_equal(geneve_key(len, &key, &mask), 0);
		assert_int_equal(key.tun.opts_len, len);
		assert_int_equal(key.tun.flags, TUN_F_GENEVE_OPT);
		assert_true(all_bytes(mask.tun.opts + TUN_OPTS_MAX - len, len,
				      0xff));
		assert_true(all_bytes(mask.tun.opts, TUN_OPTS_MAX - len, 0));
		assert_int_equal(mask.tun.opts_len, 0xff);
		mask.tun.id = 0;
		memset(&mask.tun.ipv6_src, 0, 32);
		if (!len) {
			/* No options: none dumped, so the flag does not
			 * come back, as with the kernel. */
			mask.tun.flags = key.tun.flags = 0;
			mask.tun.opts_len = 0;
		}
		dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
		g = find(kt, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS);
		if (!len) {
			assert_null(g);
			continue;
		}
		assert_true(same_tun(kt, &tb));
		g = find(mt, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS);
		assert_int_equal(attr_len(g), len);
		assert_true(all_bytes(attr_data(g), len, 0xff));
	}
	/* Past 255 bytes, or not whole words: EINVAL. */
	assert_int_equal(geneve_key(256, &key, &mask), -EINVAL);
	assert_int_equal(geneve_key(6, &key, &mask), -EINVAL);
	assert_int_equal(geneve_key(254, &key, &mask), -EINVAL);
}

/* IPv4 destination and TTL, as most tests' keys begin. */
static void
tun_start(struct attrs *t)
{
	attrs_init(t);
	msgbuf_put_u32(&t->mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u8(&t->mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
}

/* One attribute of type and TTL 64. */
static void
tun_with_ttl(struct attrs *t, uint16_t type, const void *data, size_t len)
{
	attrs_init(t);
	attrs_put(t, type, data, len);
	msgbuf_put_u8(&t->mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
}

static void
test_tunnel_key_errors(void **state)
{
	static const uint8_t v6[16] = { 0xfd, [15] = 1 }, zero6[16];
	uint64_t one64 = htobe64(1);
	uint32_t one32 = htonl(1);
	struct flow_key key, mask;
	struct nlattr *x;

	/* The smallest key: fine. */
	tun_start(&tb);
	assert_int_equal(tun_err(&tb), 0);
	/* An empty tunnel, or one without a destination. */
	attrs_init(&tb);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_ID, &one64, 8);
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* A source only; a zero destination (v4, v6). */
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC, &one32, 4);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, zero6, 4);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_SRC, v6, 16);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, zero6, 16);
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* IPv6 destination alone: fine. */
	tun_with_ttl(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, v6, 16);
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.family, AF_INET6);
	/* IPv4 and IPv6 mixed. */
	tun_start(&tb);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, v6, 16);
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* No TTL. */
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* An attribute past the last; lengths not the kernel's (PAD's is
	 * 0; a flag's 0). */
	tun_start(&tb);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_MAX + 1, 0);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, 1);
	assert_int_equal(tun_err(&tb), -EINVAL);
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	msgbuf_put_u16(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT, 1);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_PAD, 0);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_PAD);
	assert_int_equal(tun_err(&tb), 0);
	/* Bytes left over after the attributes. */
	tun_start(&tb);
	msgbuf_put_raw(&tb.mb, "\x02\x00\x00\x00", 4);
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* Two option blocks. */
	tun_start(&tb);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8, 8);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_err(&tb), -EINVAL);
	/* VXLAN options: empty is a zero policy; an extension past the
	 * last, of the wrong length, unknown (0), or bytes left over. */
	tun_start(&tb);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.opts_len, 4);
	assert_true(all_bytes(tun_key_opts(&key.tun), 4, 0));
	tun_start(&tb);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u32(&tb.mb, OVS_VXLAN_EXT_MAX + 1, 1);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u16(&tb.mb, OVS_VXLAN_EXT_GBP, 1);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	put_flag(&tb, OVS_VXLAN_EXT_UNSPEC);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_err(&tb), -EINVAL);
	tun_start(&tb);
	x = msgbuf_nest_start(&tb.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u32(&tb.mb, OVS_VXLAN_EXT_GBP, 1);
	msgbuf_put_raw(&tb.mb, "\x02\x00\x00\x00", 4);
	msgbuf_nest_end(&tb.mb, x);
	assert_int_equal(tun_err(&tb), -EINVAL);
}

/* IPV4_INFO_BRIDGE: an IPv4 tunnel of a key id at most. */
static void
test_tunnel_bridge(void **state)
{
	static const uint8_t v6[16] = { 0xfd, [15] = 1 };
	struct flow_key key, mask;

	attrs_init(&tb);
	msgbuf_put_u64(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(5));
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	assert_int_equal(tun_parse(&tb, NULL, &key, &mask), 0);
	assert_int_equal(key.tun.family, AF_INET);
	assert_int_equal(key.tun.flags, TUN_F_KEY);
	assert_true(key.tun.id == htobe64(5));
	/* A zero TTL is no TTL. */
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 0);
	assert_int_equal(tun_err(&tb), 0);
	/* Anything else: EINVAL. */
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 1);
	assert_int_equal(tun_err(&tb), -EINVAL);
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT);
	assert_int_equal(tun_err(&tb), -EINVAL);
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	assert_int_equal(tun_err(&tb), -EINVAL);
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8, 8);
	assert_int_equal(tun_err(&tb), -EINVAL);
	attrs_init(&tb);
	put_flag(&tb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, v6, 16);
	assert_int_equal(tun_err(&tb), -EINVAL);
}

/* Masks: the key rules are not theirs, the option and family ones are. */
static void
test_tunnel_masks(void **state)
{
	static const uint8_t v6[16] = { 0xfd, [15] = 1 };
	static struct attrs mt_;
	const struct nlattr *kt, *mt;
	struct flow_key key, mask, none;
	static char out[4096];
	struct nlattr *x;

	memset(&none, 0, sizeof(none));
	/* What ovs-vswitchd sends with every flow: a tunnel mask of a zero
	 * TTL, on a key without tunnel. Such a flow matches packets that
	 * came by no tunnel; its dumped mask says so, its key has none. */
	attrs_init(&mt_);
	msgbuf_put_u8(&mt_.mb, OVS_TUNNEL_KEY_ATTR_TTL, 0);
	assert_int_equal(tun_parse(NULL, &mt_, &key, &mask), 0);
	assert_memory_equal(&key.tun, &none.tun, sizeof(none.tun));
	none.tun.family = 0xff;
	assert_memory_equal(&mask.tun, &none.tun, sizeof(none.tun));
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	assert_null(kt);
	assert_true(same_tun(mt, &mt_));
	/* A key's tunnel with no tunnel in the mask: wildcarded, gone from
	 * the masked key. */
	tun_start(&tb);
	attrs_init(&mt_);
	msgbuf_put_u32(&mt_.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, 0);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask,
		tun_key(&kb, OVS_FLOW_ATTR_KEY, &tb),
		tun_key(&mb_, OVS_FLOW_ATTR_MASK, NULL), false), 0);
	assert_int_equal(key.tun.family, AF_INET);
	assert_true(all_bytes(&mask.tun, sizeof(mask.tun), 0));
	/* A mask needs no destination nor TTL: a source alone is fine. */
	attrs_init(&mt_);
	msgbuf_put_u32(&mt_.mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC, ~0u);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), 0);
	assert_int_equal(mask.tun.ipv4_src, ~0u);
	assert_int_equal(mask.tun.ttl, 0);
	/* Mixed families are refused in a mask too. */
	msgbuf_put(&mt_.mb, OVS_TUNNEL_KEY_ATTR_IPV6_DST, 16, v6);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), -EINVAL);
	/* Geneve options of a mask are as long as the key's. */
	assert_int_equal(geneve_key(8, &key, &mask), 0);
	attrs_init(&mt_);
	attrs_put(&mt_, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8, 4);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), -EINVAL);
	attrs_init(&mt_);
	msgbuf_put_u32(&mt_.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, ~0u);
	msgbuf_put_u8(&mt_.mb, OVS_TUNNEL_KEY_ATTR_TTL, 0xff);
	attrs_put(&mt_, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8, 8);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), 0);
	assert_int_equal(mask.tun.opts_len, 0xff);
	assert_memory_equal(mask.tun.opts + TUN_OPTS_MAX - 8, geneve8, 8);
	dump_and_parse(&key, &mask, out, sizeof(out), &kt, &mt);
	assert_true(same_tun(mt, &mt_));
	/* ... and a key without options takes no geneve mask, but VXLAN
	 * and ERSPAN masks are not checked against the key. */
	tun_start(&tb);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), -EINVAL);
	attrs_init(&mt_);
	x = msgbuf_nest_start(&mt_.mb, OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
	msgbuf_put_u32(&mt_.mb, OVS_VXLAN_EXT_GBP, ~0u);
	msgbuf_nest_end(&mt_.mb, x);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), 0);
	assert_int_equal(mask.tun.opts_len, 0xff);
	assert_int_equal(key.tun.opts_len, 0);
	attrs_init(&mt_);
	attrs_put(&mt_, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, geneve8, 8);
	assert_int_equal(tun_parse(&tb, &mt_, &key, &mask), 0);
}

/* OVS_PACKET_CMD_EXECUTE's key: the tunnel is metadata, and checked. */
static void
test_tunnel_metadata(void **state)
{
	struct flow_key key;

	tun_start(&tb);
	msgbuf_put_u64(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(9));
	assert_int_equal(flow_metadata_from_nlattrs(&key,
		tun_key(&kb, OVS_PACKET_ATTR_KEY, &tb), false), 0);
	assert_int_equal(key.tun.family, AF_INET);
	assert_int_equal(key.tun.ttl, 64);
	assert_true(key.tun.id == htobe64(9));
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	assert_int_equal(flow_metadata_from_nlattrs(&key,
		tun_key(&kb, OVS_PACKET_ATTR_KEY, &tb), false), -EINVAL);
}

/* A packet's key, as a tunnel port would fill it, in an upcall: the
 * tunnel as the kernel writes it (what no attribute says, as the GRE
 * sequence flag, is not written); none for a packet without. */
static void
test_tunnel_upcall_key(void **state)
{
	struct flow_key key;
	const struct nlattr *k;
	static char out[4096];
	struct msgbuf mb;

	memset(&key, 0, sizeof(key));
	key.mac_proto = FLOW_MAC_ETHERNET;
	key.eth_type = htons(ETH_P_802_2);
	key.in_port = 1;
	msgbuf_init(&mb, out, sizeof(out));
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_PACKET_ATTR_KEY, &key, &key, false);
	assert_int_equal(msgbuf_end(&mb), 0);
	k = (const void *)(out + NLMSG_HDRLEN);
	assert_null(find(k, OVS_KEY_ATTR_TUNNEL));
	key.tun.family = AF_INET;
	key.tun.ipv4_src = htonl(0x0a000001);
	key.tun.ipv4_dst = htonl(0x0a000002);
	key.tun.ttl = 63;
	key.tun.tp_dst = htons(4789);
	key.tun.id = htobe64(100);
	key.tun.flags = TUN_F_KEY | TUN_F_SEQ;
	attrs_init(&tb);
	msgbuf_put_u64(&tb.mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(100));
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC, htonl(0x0a000001));
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(0x0a000002));
	msgbuf_put_u8(&tb.mb, OVS_TUNNEL_KEY_ATTR_TTL, 63);
	msgbuf_put_u16(&tb.mb, OVS_TUNNEL_KEY_ATTR_TP_DST, htons(4789));
	msgbuf_init(&mb, out, sizeof(out));
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_PACKET_ATTR_KEY, &key, &key, false);
	assert_int_equal(msgbuf_end(&mb), 0);
	k = (const void *)(out + NLMSG_HDRLEN);
	assert_true(same_tun(find(k, OVS_KEY_ATTR_TUNNEL), &tb));
	/* The tunnel comes before in_port, as in the kernel's keys. */
	assert_true((const char *)find(k, OVS_KEY_ATTR_TUNNEL) <
		    (const char *)find(k, OVS_KEY_ATTR_IN_PORT));
}

static const struct flow_key *
arp_key(void)
{
	static struct flow_key k;

	memset(&k, 0, sizeof(k));
	k.mac_proto = FLOW_MAC_ETHERNET;
	k.eth_type = htons(ETH_P_ARP);
	return &k;
}

/* Starts an action list in a fresh b. */
static struct nlattr *
actions_start(struct attrs *b)
{
	attrs_init(b);
	return msgbuf_nest_start(&b->mb, OVS_FLOW_ATTR_ACTIONS);
}

/* Ends the action list 'acts' and validates it for an ARP flow. */
static int
validate(struct attrs *b, struct nlattr *acts)
{
	msgbuf_nest_end(&b->mb, acts);
	return actions_validate(attrs_data(b), arp_key(), false);
}

static int
nested_clones(struct attrs *b, int n)
{
	struct nlattr *acts = actions_start(b), *clone[17];

	assert_true(n <= 17);
	for (int i = 0; i < n; i++)
		clone[i] = msgbuf_nest_start(&b->mb, OVS_ACTION_ATTR_CLONE);
	msgbuf_put_u32(&b->mb, TAPDP_ACTION_ATTR_DROP, 0);
	for (int i = n; i-- > 0;)
		msgbuf_nest_end(&b->mb, clone[i]);
	return validate(b, acts);
}

static void
test_actions(void **state)
{
	struct ovs_action_push_vlan pv = { htons(ETH_P_8021Q), htons(5) };
	struct ovs_key_ipv4 ip = { 0 };
	static struct attrs b;
	struct nlattr *acts, *a;

	/* The selftest's 17 nested clones: too deep. 16 are fine. */
	assert_int_equal(nested_clones(&b, 17), -EOVERFLOW);
	assert_int_equal(nested_clones(&b, 16), 0);
	/* drop(0),2: drop must be last. */
	acts = actions_start(&b);
	msgbuf_put_u32(&b.mb, TAPDP_ACTION_ATTR_DROP, 0);
	msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* 2,drop(0) is fine; output to a port past the range is not. */
	acts = actions_start(&b);
	msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	msgbuf_put_u32(&b.mb, TAPDP_ACTION_ATTR_DROP, 0);
	assert_int_equal(validate(&b, acts), 0);
	acts = actions_start(&b);
	msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 65535);
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* Userspace needs a nonzero pid. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&b.mb, OVS_USERSPACE_ATTR_PID, 0);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* psample: a group is required; cookies are at most 16 bytes. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, TAPDP_ACTION_ATTR_PSAMPLE);
	attrs_put(&b, TAPDP_PSAMPLE_ATTR_COOKIE, "abc", 3);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate(&b, acts), -EINVAL);
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, TAPDP_ACTION_ATTR_PSAMPLE);
	msgbuf_put_u32(&b.mb, TAPDP_PSAMPLE_ATTR_GROUP, 1);
	attrs_put(&b, TAPDP_PSAMPLE_ATTR_COOKIE, "0123456789abcdefX", 17);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate(&b, acts), -ERANGE);
	/* Setting IPv4 fields of an ARP flow. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_SET);
	attrs_put(&b, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* push_vlan without the CFI bit. */
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof(pv));
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* More than the kernel stores: EMSGSIZE. */
	acts = actions_start(&b);
	for (int i = 0; i < 5000; i++)
		msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 1);
	assert_int_equal(validate(&b, acts), -EMSGSIZE);
}

static struct ovs_nsh_key_base nsh_b;
static struct ovs_nsh_key_md1 nsh_md1;

/* NSH: MD type 1, flags 1, TTL 63, next protocol Ethernet, path 0x64,
 * index 255, a context. */
static void
nsh_setup(void)
{
	nsh_b = (struct ovs_nsh_key_base){
		.flags = 1, .ttl = 63, .mdtype = 1, .np = 3,
		.path_hdr = htonl(0x000064ff),
	};
	for (int i = 0; i < 4; i++)
		nsh_md1.context[i] = htonl(0x11111111u * (i + 1));
}

/* An OVS_KEY_ATTR_NSH of the given attributes (len < 0: left out). */
static void
put_nsh(struct attrs *b, uint16_t type, const void *base, int base_len,
	uint16_t md_type, const void *md, int md_len)
{
	struct nlattr *n = msgbuf_nest_start(&b->mb, type);

	if (base_len >= 0)
		attrs_put(b, OVS_NSH_KEY_ATTR_BASE, base, base_len);
	if (md_len >= 0)
		attrs_put(b, md_type, md, md_len);
	msgbuf_nest_end(&b->mb, n);
}

/* in_port(1),eth(),eth_type(0x894f) and an NSH key, in a fresh b. */
static struct nlattr *
nsh_key(struct attrs *b, const void *base, int base_len, uint16_t md_type,
	const void *md, int md_len)
{
	struct nlattr *k;

	attrs_init(b);
	k = eth_key_start(b, ETH_P_NSH);
	put_nsh(b, OVS_KEY_ATTR_NSH, base, base_len, md_type, md, md_len);
	return k;
}

/* The NSH key of an MD type 1 packet out and in again with its exact
 * mask; an MD type 2 key dumps its base alone, a mask always has MD1. */
static void
test_nsh_key_roundtrip(void **state)
{
	struct flow_key key, mask, key2;
	static struct attrs b;
	char out[4096];
	struct msgbuf mb;
	struct nlattr *k;
	const struct nlattr *nsh, *base, *md1;
	int mask_at;

	nsh_setup();
	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), OVS_NSH_KEY_ATTR_MD1, &nsh_md1,
		    sizeof(nsh_md1));
	msgbuf_nest_end(&b.mb, k);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, NULL, true),
			 0);
	assert_int_equal(key.eth_type, htons(ETH_P_NSH));
	assert_memory_equal(&key.nsh.base, &nsh_b, sizeof(nsh_b));
	assert_memory_equal(key.nsh.context, &nsh_md1, sizeof(nsh_md1));
	/* No mask: every NSH byte exact. */
	assert_int_equal(mask.nsh.base.flags, 0xff);
	assert_int_equal(mask.nsh.base.np, 0xff);
	assert_int_equal(mask.nsh.base.path_hdr, 0xffffffff);
	assert_int_equal(mask.nsh.context[3], 0xffffffff);

	/* A mask of the base alone still dumps an (all-zero) MD1. */
	memset(mask.nsh.context, 0, sizeof(mask.nsh.context));
	mask_at = put_key_and_mask(out, sizeof(out), &key, &mask);
	nsh = attrs_find(out + mask_at + NLA_HDRLEN,
			 attr_len((const void *)(out + mask_at)),
			 OVS_KEY_ATTR_NSH);
	assert_non_null(nsh);
	md1 = attrs_find(attr_data(nsh), attr_len(nsh), OVS_NSH_KEY_ATTR_MD1);
	assert_non_null(md1);
	assert_int_equal(attr_len(md1), 16);
	assert_roundtrip(out, mask_at, &key, &mask);

	/* MD type 2: the key gives its base header back, no context. */
	key.nsh.base.mdtype = 2;
	memset(key.nsh.context, 0, sizeof(key.nsh.context));
	msgbuf_init(&mb, out, sizeof(out));
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_FLOW_ATTR_KEY, &key, &key, false);
	assert_int_equal(msgbuf_end(&mb), 0);
	nsh = attrs_find(out + NLMSG_HDRLEN + NLA_HDRLEN,
			 attr_len((const void *)(out + NLMSG_HDRLEN)),
			 OVS_KEY_ATTR_NSH);
	assert_non_null(nsh);
	base = attrs_find(attr_data(nsh), attr_len(nsh),
			  OVS_NSH_KEY_ATTR_BASE);
	assert_non_null(base);
	assert_int_equal(attr_len(nsh), NLA_HDRLEN + 8);
	assert_int_equal(flow_match_from_nlattrs(&key2, NULL,
		(const void *)(out + NLMSG_HDRLEN), NULL, true), 0);
	assert_memory_equal(&key, &key2, sizeof(key));
}

/* What the kernel's nsh_key_put_from_nlattr() refuses in a key, and the
 * NSH rules of match validation. */
static void
test_nsh_key_errors(void **state)
{
	struct ovs_nsh_key_base b2 = nsh_b;
	uint8_t md2[8] = { 0, 1, 1, 4, 1, 2, 3, 4 };
	struct flow_key key, mask;
	static struct attrs b;
	struct nlattr *k;
	uint8_t big[20];

	nsh_setup();
	b2 = nsh_b;
	memset(big, 0, sizeof(big));
	/* The base alone, or nothing at all, is a key. */
	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), 0, NULL, -1);
	assert_int_equal(parse_key(&b, k), 0);
	k = nsh_key(&b, NULL, -1, 0, NULL, -1);
	assert_int_equal(parse_key(&b, k), 0);
	/* Lengths: the base 8 bytes, MD1 16. */
	k = nsh_key(&b, big, 7, 0, NULL, -1);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	k = nsh_key(&b, big, 12, 0, NULL, -1);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), OVS_NSH_KEY_ATTR_MD1, big, 20);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* MD1 under an MD type 2 base, MD1 without a base. */
	b2.mdtype = 2;
	k = nsh_key(&b, &b2, sizeof(b2), OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	k = nsh_key(&b, NULL, -1, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* MD2 is not matched. */
	k = nsh_key(&b, &b2, sizeof(b2), OVS_NSH_KEY_ATTR_MD2, md2, 8);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* Types 0 and past MD2. */
	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), 0, NULL, 0);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), 4, NULL, 0);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* Bytes that are no attribute at the nest's end. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 1);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_NSH));
	attrs_put(&b, OVS_KEY_ATTR_NSH, md2, 4);
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* eth_type NSH needs the NSH key. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 1);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_NSH));
	assert_int_equal(parse_key(&b, k), -EINVAL);
	/* An NSH key for another EtherType: unknown attribute left. */
	k = key_start(&b);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_IN_PORT, 1);
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_ARP));
	put_nsh(&b, OVS_KEY_ATTR_NSH, &nsh_b, 8, 0, NULL, -1);
	assert_int_equal(parse_key(&b, k), -EINVAL);

	/* A mask: MD1 needs no base; an NSH mask needs an exact
	 * EtherType. */
	static struct attrs m;
	struct nlattr *mk;

	k = nsh_key(&b, &nsh_b, sizeof(nsh_b), OVS_NSH_KEY_ATTR_MD1, &nsh_md1,
		    16);
	msgbuf_nest_end(&b.mb, k);
	attrs_init(&m);
	mk = msgbuf_nest_start(&m.mb, OVS_FLOW_ATTR_MASK);
	msgbuf_put_u16(&m.mb, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put_nsh(&m, OVS_KEY_ATTR_NSH, NULL, -1, OVS_NSH_KEY_ATTR_MD1,
		&nsh_md1, 16);
	msgbuf_nest_end(&m.mb, mk);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, mk, false),
			 0);
	assert_int_equal(mask.nsh.base.path_hdr, 0);
	assert_memory_equal(mask.nsh.context, &nsh_md1, 16);
	attrs_init(&m);
	mk = msgbuf_nest_start(&m.mb, OVS_FLOW_ATTR_MASK);
	put_nsh(&m, OVS_KEY_ATTR_NSH, &nsh_b, 8, 0, NULL, -1);
	msgbuf_nest_end(&m.mb, mk);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, k, mk, false),
			 -EINVAL);
}

/* An NSH flow's key (MD type 1, np given) for action validation. */
static struct flow_key *
nsh_flow_key(uint8_t np, uint8_t mac_proto)
{
	static struct flow_key k;

	memset(&k, 0, sizeof(k));
	k.mac_proto = mac_proto;
	k.eth_type = htons(ETH_P_NSH);
	k.nsh.base.mdtype = 1;
	k.nsh.base.np = np;
	return &k;
}

/* push_nsh(base, context of md_type/md_len) in the list being built. */
static void
put_push_nsh(struct attrs *b, const void *base, int base_len,
	     uint16_t md_type, const void *md, int md_len)
{
	struct nlattr *p = msgbuf_nest_start(&b->mb, OVS_ACTION_ATTR_PUSH_NSH);

	put_nsh(b, OVS_KEY_ATTR_NSH, base, base_len, md_type, md, md_len);
	msgbuf_nest_end(&b->mb, p);
}

static int
validate_for(struct attrs *b, struct nlattr *acts, const struct flow_key *k)
{
	msgbuf_nest_end(&b->mb, acts);
	return actions_validate(attrs_data(b), k, false);
}

/* push_nsh and pop_nsh as __ovs_nla_copy_actions() takes them, and
 * set(nsh), which Linux 6.12 has not. */
static void
test_nsh_actions(void **state)
{
	struct ovs_action_push_eth pe = { 0 };
	struct ovs_nsh_key_base b2;
	static uint8_t md2[256];
	static struct attrs b;
	struct flow_key ip4;
	struct nlattr *acts, *a, *n;

	nsh_setup();
	memset(&ip4, 0, sizeof(ip4));
	ip4.mac_proto = FLOW_MAC_ETHERNET;
	ip4.eth_type = htons(ETH_P_IP);
	/* MD type 1 on an Ethernet frame, then an Ethernet header. */
	acts = actions_start(&b);
	put_push_nsh(&b, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	attrs_put(&b, OVS_ACTION_ATTR_PUSH_ETH, &pe, sizeof(pe));
	msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	assert_int_equal(validate_for(&b, acts, &ip4), 0);
	/* The packet has no Ethernet header after the push. */
	acts = actions_start(&b);
	put_push_nsh(&b, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* MD type 2, 1 to 248 bytes. */
	b2 = nsh_b;
	b2.mdtype = 2;
	acts = actions_start(&b);
	put_push_nsh(&b, &b2, 8, OVS_NSH_KEY_ATTR_MD2, md2, 248);
	assert_int_equal(validate_for(&b, acts, &ip4), 0);
	acts = actions_start(&b);
	put_push_nsh(&b, &b2, 8, OVS_NSH_KEY_ATTR_MD2, md2, 249);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	acts = actions_start(&b);
	put_push_nsh(&b, &b2, 8, OVS_NSH_KEY_ATTR_MD2, md2, 0);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* The context must be of the base's type, and be there. */
	acts = actions_start(&b);
	put_push_nsh(&b, &b2, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	acts = actions_start(&b);
	put_push_nsh(&b, &nsh_b, 8, 0, NULL, -1);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	acts = actions_start(&b);
	put_push_nsh(&b, NULL, -1, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* MD1 and MD2 together. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_PUSH_NSH);
	n = msgbuf_nest_start(&b.mb, OVS_KEY_ATTR_NSH);
	attrs_put(&b, OVS_NSH_KEY_ATTR_BASE, &nsh_b, 8);
	attrs_put(&b, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	attrs_put(&b, OVS_NSH_KEY_ATTR_MD2, md2, 8);
	msgbuf_nest_end(&b.mb, n);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* Exactly one attribute, OVS_KEY_ATTR_NSH, in the push. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_PUSH_NSH);
	put_nsh(&b, OVS_KEY_ATTR_NSH, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1,
		&nsh_md1, 16);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_PRIORITY, 1);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_PUSH_NSH);
	put_nsh(&b, OVS_KEY_ATTR_ENCAP, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1,
		&nsh_md1, 16);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* An L3 packet: IPv4 has a next protocol value, ARP none. */
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	put_push_nsh(&b, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(validate_for(&b, acts, &ip4), 0);
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	put_push_nsh(&b, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	assert_int_equal(validate(&b, acts), -EINVAL);

	/* pop_nsh: an NSH flow whose next protocol is known; Ethernet
	 * gives an Ethernet frame, the others an L3 packet. */
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(3, FLOW_MAC_ETHERNET)), 0);
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	attrs_put(&b, OVS_ACTION_ATTR_PUSH_ETH, &pe, sizeof(pe));
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(1, FLOW_MAC_NONE)), 0);
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	attrs_put(&b, OVS_ACTION_ATTR_POP_ETH, NULL, 0);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(1, FLOW_MAC_NONE)), -EINVAL);
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(6, FLOW_MAC_NONE)), -EINVAL);
	acts = actions_start(&b);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* As the kernel: a push leaves the known type as it was, so a pop
	 * after it is refused. */
	acts = actions_start(&b);
	put_push_nsh(&b, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1, &nsh_md1, 16);
	attrs_put(&b, OVS_ACTION_ATTR_POP_NSH, NULL, 0);
	assert_int_equal(validate_for(&b, acts, &ip4), -EINVAL);
	/* pop_nsh takes an argument of none. */
	acts = actions_start(&b);
	msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_POP_NSH, 0);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(1, FLOW_MAC_NONE)), -EINVAL);

	/* set(nsh) and set_masked(nsh): Linux 6.12 refuses both. */
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_SET);
	put_nsh(&b, OVS_KEY_ATTR_NSH, &nsh_b, 8, OVS_NSH_KEY_ATTR_MD1,
		&nsh_md1, 16);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(3, FLOW_MAC_NONE)), -EINVAL);
	acts = actions_start(&b);
	a = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_SET_MASKED);
	n = msgbuf_nest_start(&b.mb, OVS_KEY_ATTR_NSH);
	attrs_put(&b, OVS_NSH_KEY_ATTR_BASE, &nsh_b, 8);
	attrs_put(&b, OVS_NSH_KEY_ATTR_BASE, &nsh_b, 8);
	msgbuf_nest_end(&b.mb, n);
	msgbuf_nest_end(&b.mb, a);
	assert_int_equal(validate_for(&b, acts,
		nsh_flow_key(3, FLOW_MAC_NONE)), -EINVAL);
}

/* set(tunnel(...)) of the tunnel attributes t, as a set or set_masked. */
static struct nlattr *
set_tunnel_list(struct attrs *b, uint16_t action, const struct attrs *t)
{
	struct nlattr *acts = actions_start(b), *set;

	set = msgbuf_nest_start(&b->mb, action);
	put_tun(b, t);
	msgbuf_nest_end(&b->mb, set);
	return acts;
}

static void
test_set_tunnel_validation(void **state)
{
	static const uint8_t bad_chain[8] = { 0, 1, 2, 2, 0, 0, 0, 0 };
	static struct attrs b;
	struct nlattr *acts, *set;
	int n;

	/* A tunnel key fits any flow, ARP too. */
	tun_start(&tb);
	assert_int_equal(validate(&b, set_tunnel_list(&b, OVS_ACTION_ATTR_SET,
						      &tb)), 0);
	/* Masked: never. */
	assert_int_equal(validate(&b, set_tunnel_list(&b,
		OVS_ACTION_ATTR_SET_MASKED, &tb)), -EINVAL);
	/* What a tunnel key may not be (no TTL, here) it may not be here. */
	attrs_init(&tb);
	msgbuf_put_u32(&tb.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(1));
	assert_int_equal(validate(&b, set_tunnel_list(&b, OVS_ACTION_ATTR_SET,
						      &tb)), -EINVAL);
	/* Geneve options must be whole options: one saying 8 bytes of data
	 * where 4 follow is not. */
	tun_start(&tb);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, bad_chain, 8);
	assert_int_equal(validate(&b, set_tunnel_list(&b, OVS_ACTION_ATTR_SET,
						      &tb)), -EINVAL);
	tun_start(&tb);
	attrs_put(&tb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, geneve8, 8);
	assert_int_equal(validate(&b, set_tunnel_list(&b, OVS_ACTION_ATTR_SET,
						      &tb)), 0);
	/* Two key attributes in the set. */
	tun_start(&tb);
	acts = actions_start(&b);
	set = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_SET);
	put_tun(&b, &tb);
	msgbuf_put_u32(&b.mb, OVS_KEY_ATTR_PRIORITY, 1);
	msgbuf_nest_end(&b.mb, set);
	assert_int_equal(validate(&b, acts), -EINVAL);
	/* The kernel stores each in 16 bytes: 2046 fit its 32 KiB, 2047 do
	 * not. */
	for (n = 2046; n <= 2047; n++) {
		acts = actions_start(&b);
		for (int i = 0; i < n; i++) {
			set = msgbuf_nest_start(&b.mb, OVS_ACTION_ATTR_SET);
			put_tun(&b, &tb);
			msgbuf_nest_end(&b.mb, set);
		}
		assert_int_equal(validate(&b, acts),
				 n == 2046 ? 0 : -EMSGSIZE);
	}
}

/* One action of 'type', for an ARP flow. */
static int
validate_profiled(int type)
{
	struct ovs_action_hash h = { .hash_alg = TAPDP_HASH_ALG_SYM_L4 };
	struct nlattr *acts, *nest, *inner;
	struct attrs b;

	acts = actions_start(&b);
	switch (type) {
	case OVS_ACTION_ATTR_HASH:
		attrs_put(&b, type, &h, sizeof(h));
		break;
	case OVS_ACTION_ATTR_DEC_TTL:
		nest = msgbuf_nest_start(&b.mb, type);
		inner = msgbuf_nest_start(&b.mb, OVS_DEC_TTL_ATTR_ACTION);
		msgbuf_put_u32(&b.mb, OVS_ACTION_ATTR_OUTPUT, 1);
		msgbuf_nest_end(&b.mb, inner);
		msgbuf_nest_end(&b.mb, nest);
		break;
	case TAPDP_ACTION_ATTR_DROP:
		msgbuf_put_u32(&b.mb, type, 0);
		break;
	case TAPDP_ACTION_ATTR_PSAMPLE:
		nest = msgbuf_nest_start(&b.mb, type);
		msgbuf_put_u32(&b.mb, TAPDP_PSAMPLE_ATTR_GROUP, 7);
		msgbuf_nest_end(&b.mb, nest);
		break;
	default:
		fail();
	}
	return validate(&b, acts);
}

/* eth(),eth_type(type), then one attribute of 'attr'. */
static int
profiled_key(uint16_t type, uint16_t attr, const void *data, size_t len)
{
	struct ovs_key_ethernet eth;
	struct flow_key key, mask;
	struct nlattr *k;
	struct attrs b;

	memset(&eth, 0, sizeof(eth));
	attrs_init(&b);
	k = msgbuf_nest_start(&b.mb, OVS_FLOW_ATTR_KEY);
	attrs_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b.mb, OVS_KEY_ATTR_ETHERTYPE, htons(type));
	if (type == ETH_P_IPV6) {
		struct ovs_key_ipv6 ip = { .ipv6_proto = 59,
					   .ipv6_hlimit = 64 };

		attrs_put(&b, OVS_KEY_ATTR_IPV6, &ip, sizeof(ip));
	}
	attrs_put(&b, attr, data, len);
	msgbuf_nest_end(&b.mb, k);
	return flow_match_from_nlattrs(&key, &mask, k, NULL, false);
}

/* Actions and key attributes under each kernel profile, as each release
 * answered (docs/COMPATIBILITY.md, "Kernel profiles"). Per profile, oldest
 * first (5.4 5.10 5.15 6.1 6.6 6.12 6.18 7.2): 1 where that release took
 * it. */
static void
test_kernel_profiles(void **state)
{
	static const struct {
		int type;
		const char *ok;
	} actions[] = {
		{ OVS_ACTION_ATTR_DEC_TTL, "01111111" },		/* 5.7 */
		{ OVS_ACTION_ATTR_HASH, "00001111" },		/* sym_l4: 6.5 */
		{ TAPDP_ACTION_ATTR_DROP, "00001111" },		/* 6.6 */
		{ TAPDP_ACTION_ATTR_PSAMPLE, "00000111" },	/* 6.11 */
	};
	static const char mpls3[] = "01111111";		/* 5.5 */
	static const char exthdrs[] = "00011111";		/* after 5.15 */
	const uint32_t lse[3] = { htonl(0x1000), htonl(0x2000),
				  htonl(0x3100) };
	const struct ovs_key_ipv6_exthdrs x = { 0 };
	const struct kernel_profile *p;

	for (unsigned i = 0; (p = kernel_profile_at(i)); i++) {
		assert_true(i < sizeof(mpls3) - 1);
		kernel_profile_use(p);
		for (unsigned j = 0; j < sizeof(actions) / sizeof(actions[0]);
		     j++)
			assert_int_equal(validate_profiled(actions[j].type),
					 actions[j].ok[i] == '1' ? 0
								 : -EINVAL);
		assert_int_equal(profiled_key(ETH_P_MPLS_UC, OVS_KEY_ATTR_MPLS,
					      &lse[2], 4), 0);
		assert_int_equal(profiled_key(ETH_P_MPLS_UC, OVS_KEY_ATTR_MPLS,
					      lse, sizeof(lse)),
				 mpls3[i] == '1' ? 0 : -EINVAL);
		assert_int_equal(profiled_key(ETH_P_IPV6,
					      OVS_KEY_ATTR_IPV6_EXTHDRS, &x,
					      sizeof(x)),
				 exthdrs[i] == '1' ? 0 : -EINVAL);
	}
	kernel_profile_use(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_roundtrip_and_exact_mask),
		cmocka_unit_test(test_key_errors),
		cmocka_unit_test(test_mask_rules),
		cmocka_unit_test(test_vlan_key),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_tunnel_ipv4_key),
		cmocka_unit_test(test_tunnel_ipv6_vxlan),
		cmocka_unit_test(test_tunnel_erspan),
		cmocka_unit_test(test_tunnel_geneve_lengths),
		cmocka_unit_test(test_tunnel_key_errors),
		cmocka_unit_test(test_tunnel_bridge),
		cmocka_unit_test(test_tunnel_masks),
		cmocka_unit_test(test_tunnel_metadata),
		cmocka_unit_test(test_tunnel_upcall_key),
		cmocka_unit_test(test_set_tunnel_validation),
		cmocka_unit_test(test_nsh_key_roundtrip),
		cmocka_unit_test(test_nsh_key_errors),
		cmocka_unit_test(test_nsh_actions),
		cmocka_unit_test(test_kernel_profiles),
	};

	return cmocka_run_group_tests_name("flow-netlink", tests, NULL, NULL);
}
