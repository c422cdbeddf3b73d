/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl's flow-key writer on keys built here: exact keys, partial
 * masks, wildcarded fields left out, the kernel's eth() kept, an
 * encapsulated key, flags exact and masked, attributes it does not know
 * or of a wrong size, and a mask's fields. (test-tapdpctl.sh compares it
 * with ovs-dpctl dump-flows on flows of every kind.) */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/odp-key.h"
#include "include/tapdp/ovs-uapi.h"

/* Attributes built in a buffer: a key or a mask. */
struct attrs {
	char buf[1024];
	struct nlmsghdr *h;
};

static void
attrs_init(struct attrs *a)
{
	a->h = mnl_nlmsg_put_header(a->buf);
}

static const void *
attrs_data(const struct attrs *a)
{
	return mnl_nlmsg_get_payload(a->h);
}

static size_t
attrs_len(const struct attrs *a)
{
	return mnl_nlmsg_get_payload_len(a->h);
}

/* The key (and mask, when not NULL) as written. */
static char *
fmt(const struct attrs *k, const struct attrs *m)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	odp_key_format(f, attrs_data(k), attrs_len(k), m ? attrs_data(m) : NULL,
		       m ? attrs_len(m) : 0);
	fclose(f);
	return s;
}

static char *
fields(const struct attrs *m)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	odp_mask_fields(f, attrs_data(m), attrs_len(m));
	fclose(f);
	return s;
}

#define assert_fmt(k, m, want) do {				\
	char *got_ = fmt(k, m);					\
	assert_string_equal(got_, want);			\
	free(got_);						\
} while (0)

static void
put_ipv4(struct attrs *a, const char *src, const char *dst, uint8_t proto,
	 uint8_t tos, uint8_t ttl, uint8_t frag)
{
	struct ovs_key_ipv4 k = {
		.ipv4_proto = proto, .ipv4_tos = tos, .ipv4_ttl = ttl,
		.ipv4_frag = frag,
	};

	inet_pton(AF_INET, src, &k.ipv4_src);
	inet_pton(AF_INET, dst, &k.ipv4_dst);
	mnl_attr_put(a->h, OVS_KEY_ATTR_IPV4, sizeof(k), &k);
}

static void
put_eth(struct attrs *a, uint8_t src0, uint8_t dst0)
{
	struct ovs_key_ethernet e = { .eth_src = { src0 }, .eth_dst = { dst0 } };

	mnl_attr_put(a->h, OVS_KEY_ATTR_ETHERNET, sizeof(e), &e);
}

static void
put_ports(struct attrs *a, uint16_t type, uint16_t src, uint16_t dst)
{
	struct ovs_key_tcp t = { htons(src), htons(dst) };

	mnl_attr_put(a->h, type, sizeof(t), &t);
}

/* An exact key: every field, in the kernel's order. */
static void
test_exact(void **state)
{
	struct attrs k;

	attrs_init(&k);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_RECIRC_ID, 0);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_IN_PORT, 3);
	put_eth(&k, 2, 0xff);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_ETHERTYPE, htons(0x0800));
	put_ipv4(&k, "10.0.0.1", "10.0.0.2", 6, 0x10, 64, OVS_FRAG_TYPE_NONE);
	put_ports(&k, OVS_KEY_ATTR_TCP, 1000, 80);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_TCP_FLAGS, htons(0x012));
	assert_fmt(&k, NULL,
		   "recirc_id(0),in_port(3),eth(src=02:00:00:00:00:00,"
		   "dst=ff:00:00:00:00:00),eth_type(0x0800),"
		   "ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,tos=0x10,ttl=64,"
		   "frag=no),tcp(src=1000,dst=80),tcp_flags(syn|ack)");

	/* The tracker's fields, zero or not, as a packet's key has them. */
	attrs_init(&k);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_CT_STATE, 0);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_CT_ZONE, 0);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_CT_MARK, 0);
	mnl_attr_put(k.h, OVS_KEY_ATTR_CT_LABELS, 16, (uint8_t[16]){ 0 });
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_CT_STATE, 0x22);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_CT_ZONE, 5);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_CT_MARK, 0x42);
	assert_fmt(&k, NULL,
		   "ct_state(0),ct_zone(0),ct_mark(0),ct_label(0),"
		   "ct_state(est|trk),ct_zone(0x5),ct_mark(0x42)");
}

/* A UFID as OVS writes it, a short one padded with zeros. */
static void
test_ufid(void **state)
{
	uint32_t w[4] = { 0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10 };
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	odp_ufid_format(f, w, sizeof(w));
	fputc(' ', f);
	odp_ufid_format(f, w, 4);
	fclose(f);
	assert_string_equal(s, "ufid:01020304-0506-0708-090a-0b0c0d0e0f10 "
			       "ufid:01020304-0000-0000-0000-000000000000");
	free(s);
}

/* Masks: wildcarded fields and attributes left out (but eth()), partial
 * ones as value/mask, flags masked as +set-clear. */
static void
test_masked(void **state)
{
	struct attrs k, m;

	attrs_init(&k);
	attrs_init(&m);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_SKB_MARK, 1);
	mnl_attr_put_u32(m.h, OVS_KEY_ATTR_SKB_MARK, 3);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_IN_PORT, 1);
	mnl_attr_put_u32(m.h, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_CT_STATE, 0x22);
	mnl_attr_put_u32(m.h, OVS_KEY_ATTR_CT_STATE, 0x23);
	put_eth(&k, 2, 0xff);
	put_eth(&m, 0, 0);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_ETHERTYPE, htons(0x0800));
	mnl_attr_put_u16(m.h, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put_ipv4(&k, "10.1.2.3", "10.0.0.2", 6, 0x20, 64, 0);
	put_ipv4(&m, "255.0.0.0", "0.0.0.0", 0xff, 0xfc, 0, 0xff);
	put_ports(&k, OVS_KEY_ATTR_TCP, 1000, 80);
	put_ports(&m, OVS_KEY_ATTR_TCP, 0, 0xfff0);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_TCP_FLAGS, htons(0x002));
	mnl_attr_put_u16(m.h, OVS_KEY_ATTR_TCP_FLAGS, htons(0x012));
	assert_fmt(&k, &m,
		   "skb_mark(0x1/0x3),in_port(1),ct_state(-new+est+trk),"
		   "eth(),eth_type(0x0800),"
		   "ipv4(src=10.1.2.3/255.0.0.0,proto=6,tos=0x20/0xfc,"
		   "frag=no),tcp(dst=80/0xfff0),tcp_flags(+syn-ack)");
	{
		char *got = fields(&m);

		assert_string_equal(got, "skb_mark,in_port,ct_state,eth_type,"
					 "ipv4(src,proto,tos,frag),tcp(dst),"
					 "tcp_flags");
		free(got);
	}
}

/* A VLAN frame's key: the TCI, then the inner key in encap(). */
static void
test_encap(void **state)
{
	struct attrs k, m, ik, im;

	attrs_init(&k);
	attrs_init(&m);
	attrs_init(&ik);
	attrs_init(&im);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_IN_PORT, 1);
	mnl_attr_put_u32(m.h, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
	put_eth(&k, 0, 0);
	put_eth(&m, 0, 0);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_ETHERTYPE, htons(0x8100));
	mnl_attr_put_u16(m.h, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	mnl_attr_put_u16(k.h, OVS_KEY_ATTR_VLAN, htons(0x7000 | 10));
	mnl_attr_put_u16(m.h, OVS_KEY_ATTR_VLAN, 0xffff);
	mnl_attr_put_u16(ik.h, OVS_KEY_ATTR_ETHERTYPE, htons(0x0800));
	mnl_attr_put_u16(im.h, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	put_ipv4(&ik, "1.2.3.4", "0.0.0.0", 0, 0, 0, 0);
	put_ipv4(&im, "255.255.255.255", "0.0.0.0", 0, 0, 0, 0xff);
	mnl_attr_put(k.h, OVS_KEY_ATTR_ENCAP, attrs_len(&ik), attrs_data(&ik));
	mnl_attr_put(m.h, OVS_KEY_ATTR_ENCAP, attrs_len(&im), attrs_data(&im));
	assert_fmt(&k, &m,
		   "in_port(1),eth(),eth_type(0x8100),vlan(vid=10,pcp=3),"
		   "encap(eth_type(0x0800),ipv4(src=1.2.3.4,frag=no))");
}

/* What it cannot read: an unknown attribute's bytes (and its mask's), a
 * known one of the wrong size as bytes; a mask's Ethertype without the
 * key's; an empty key. */
static void
test_odd(void **state)
{
	static const uint8_t two[2] = { 0xab, 0xcd };
	struct attrs k, m, empty;

	attrs_init(&k);
	attrs_init(&m);
	attrs_init(&empty);
	mnl_attr_put_u32(k.h, OVS_KEY_ATTR_IN_PORT, 1);
	mnl_attr_put(k.h, 40, 2, two);
	mnl_attr_put(m.h, 40, 2, two);
	mnl_attr_put(k.h, OVS_KEY_ATTR_IPV4, 2, two);
	mnl_attr_put_u16(m.h, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	assert_fmt(&k, &m, "key40(ab cd/ab cd),ipv4(ab cd),eth_type(0/0xffff)");
	assert_fmt(&empty, NULL, "<empty>");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_masked),
		cmocka_unit_test(test_encap),
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_ufid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
