/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl's action writer on lists built here, each as ovs-dpctl
 * dump-flows writes it: outputs, none ("drop"), recirc, ct with its
 * arguments in ovs-dpctl's order whatever theirs, set and set_masked
 * through the key writer, VLAN and MPLS, nested lists (clone, sample,
 * check_pkt_len, dec_ttl), the userspace action, and what it does not
 * know as hex. (test-trace.sh compares it with ovs-dpctl dump-flows.) */
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

#include "tools/odp-actions.h"
#include "include/tapdp/ovs-uapi.h"

struct list {
	char buf[2048];
	struct nlmsghdr *h;
};

static void
list_init(struct list *l)
{
	l->h = mnl_nlmsg_put_header(l->buf);
}

static void
assert_acts(const struct list *l, const char *want)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	odp_actions_format(f, mnl_nlmsg_get_payload(l->h),
			   mnl_nlmsg_get_payload_len(l->h));
	fclose(f);
	assert_string_equal(s, want);
	free(s);
}

static void
test_simple(void **state)
{
	struct ovs_action_trunc t = { 100 };
	struct ovs_action_hash h = { OVS_HASH_ALG_L4, 5 };
	struct list l;

	list_init(&l);
	assert_acts(&l, "drop");
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_OUTPUT, 2);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_OUTPUT, 3);
	assert_acts(&l, "2,3");
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_RECIRC, 0x1f);
	mnl_attr_put(l.h, OVS_ACTION_ATTR_TRUNC, sizeof(t), &t);
	mnl_attr_put(l.h, OVS_ACTION_ATTR_HASH, sizeof(h), &h);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_METER, 7);
	mnl_attr_put(l.h, OVS_ACTION_ATTR_CT_CLEAR, 0, NULL);
	mnl_attr_put(l.h, OVS_ACTION_ATTR_POP_VLAN, 0, NULL);
	mnl_attr_put_u32(l.h, TAPDP_ACTION_ATTR_DROP, 0);
	assert_acts(&l, "2,3,recirc(0x1f),trunc(100),hash(l4(5)),meter(7),"
			"ct_clear,pop_vlan,drop");
}

/* ct's arguments in ovs-dpctl's order; zone 0 is no argument. */
static void
test_ct(void **state)
{
	uint32_t mark[2] = { 1, 0xff };
	uint32_t lo = htonl(0x0a000001), hi = htonl(0x0a000009);
	struct nlattr *ct, *nat;
	struct list l;

	list_init(&l);
	ct = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_CT);
	mnl_attr_put_u16(l.h, OVS_CT_ATTR_ZONE, 0);
	mnl_attr_nest_end(l.h, ct);
	ct = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_CT);
	nat = mnl_attr_nest_start(l.h, OVS_CT_ATTR_NAT);
	mnl_attr_put(l.h, OVS_NAT_ATTR_SRC, 0, NULL);
	mnl_attr_put(l.h, OVS_NAT_ATTR_IP_MIN, 4, &lo);
	mnl_attr_put(l.h, OVS_NAT_ATTR_IP_MAX, 4, &hi);
	mnl_attr_put_u16(l.h, OVS_NAT_ATTR_PROTO_MIN, 1000);
	mnl_attr_put_u16(l.h, OVS_NAT_ATTR_PROTO_MAX, 2000);
	mnl_attr_put(l.h, OVS_NAT_ATTR_PERSISTENT, 0, NULL);
	mnl_attr_nest_end(l.h, nat);
	mnl_attr_put(l.h, OVS_CT_ATTR_MARK, sizeof(mark), mark);
	mnl_attr_put_strz(l.h, OVS_CT_ATTR_HELPER, "ftp");
	mnl_attr_put_u16(l.h, OVS_CT_ATTR_ZONE, 5);
	mnl_attr_put(l.h, OVS_CT_ATTR_COMMIT, 0, NULL);
	mnl_attr_nest_end(l.h, ct);
	ct = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_CT);
	nat = mnl_attr_nest_start(l.h, OVS_CT_ATTR_NAT);
	mnl_attr_nest_end(l.h, nat);
	mnl_attr_nest_end(l.h, ct);
	assert_acts(&l, "ct,ct(commit,zone=5,mark=0x1/0xff,helper=ftp,"
			"nat(src=10.0.0.1-10.0.0.9:1000-2000,persistent)),"
			"ct(nat)");
}

/* set() of a whole key attribute, set_masked() with its mask. */
static void
test_set(void **state)
{
	struct ovs_key_ipv4 v = { .ipv4_ttl = 9 }, m = { .ipv4_ttl = 0xff };
	struct {
		struct ovs_key_ipv4 v, m;
	} vm;
	struct ovs_action_push_vlan pv = { htons(0x8100),
					   htons(0x1000 | 3 << 13 | 10) };
	struct nlattr *set;
	struct list l;

	inet_pton(AF_INET, "10.1.0.0", &v.ipv4_src);
	inet_pton(AF_INET, "255.255.0.0", &m.ipv4_src);
	vm.v = v;
	vm.m = m;
	list_init(&l);
	set = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_SET);
	mnl_attr_put_u32(l.h, OVS_KEY_ATTR_SKB_MARK, 3);
	mnl_attr_nest_end(l.h, set);
	set = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_SET_MASKED);
	mnl_attr_put(l.h, OVS_KEY_ATTR_IPV4, sizeof(vm), &vm);
	mnl_attr_nest_end(l.h, set);
	mnl_attr_put(l.h, OVS_ACTION_ATTR_PUSH_VLAN, sizeof(pv), &pv);
	assert_acts(&l, "set(skb_mark(0x3)),"
			"set(ipv4(src=10.1.0.0/255.255.0.0,ttl=9)),"
			"push_vlan(vid=10,pcp=3)");
}

/* Nested lists, the userspace action, and one it does not know. */
static void
test_nested(void **state)
{
	static const uint8_t cookie[3] = { 1, 2, 0xab };
	struct nlattr *a, *b;
	struct list l;

	list_init(&l);
	a = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_CLONE);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_OUTPUT, 1);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_RECIRC, 2);
	mnl_attr_nest_end(l.h, a);
	a = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_SAMPLE);
	mnl_attr_put_u32(l.h, OVS_SAMPLE_ATTR_PROBABILITY, UINT32_MAX / 2);
	b = mnl_attr_nest_start(l.h, OVS_SAMPLE_ATTR_ACTIONS);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_OUTPUT, 4);
	mnl_attr_nest_end(l.h, b);
	mnl_attr_nest_end(l.h, a);
	a = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_CHECK_PKT_LEN);
	mnl_attr_put_u16(l.h, OVS_CHECK_PKT_LEN_ATTR_PKT_LEN, 200);
	b = mnl_attr_nest_start(l.h,
				OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER);
	mnl_attr_nest_end(l.h, b);
	b = mnl_attr_nest_start(l.h,
				OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL);
	mnl_attr_put_u32(l.h, OVS_ACTION_ATTR_OUTPUT, 2);
	mnl_attr_nest_end(l.h, b);
	mnl_attr_nest_end(l.h, a);
	a = mnl_attr_nest_start(l.h, OVS_ACTION_ATTR_USERSPACE);
	mnl_attr_put_u32(l.h, OVS_USERSPACE_ATTR_PID, 4000);
	mnl_attr_put(l.h, OVS_USERSPACE_ATTR_USERDATA, sizeof(cookie),
		     cookie);
	mnl_attr_nest_end(l.h, a);
	mnl_attr_put(l.h, 99, sizeof(cookie), cookie);
	assert_acts(&l, "clone(1,recirc(0x2)),"
			"sample(sample=50.0%,actions(4)),"
			"check_pkt_len(size=200,gt(drop),le(2)),"
			"userspace(pid=4000,userdata(0102ab)),action99(0102ab)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_ct),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_nested),
	};

	return cmocka_run_group_tests_name("odp-actions", tests, NULL, NULL);
}
