/* SPDX-License-Identifier: Apache-2.0 */
/* Flow key/mask and action attributes, against the kernel's answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "actions/actions-netlink.h"
#include "flow/key-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "tests/unit/builders.h"

/* in_port(1),eth(),eth_type(0x0800),ipv4(src=10.0.0.1) as a key. */
static struct nlattr *
ipv4_key(struct attrs *b, bool with_ipv4)
{
	struct ovs_key_ipv4 ip = { .ipv4_src = htonl(0x0a000001) };
	struct ovs_key_ethernet eth;
	struct nlattr *key;

	memset(&eth, 0, sizeof(eth));
	key = msgbuf_nest_start(&b->mb, OVS_FLOW_ATTR_KEY);
	msgbuf_put_u32(&b->mb, OVS_KEY_ATTR_IN_PORT, 1);
	attrs_put(b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	msgbuf_put_u16(&b->mb, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_IP));
	if (with_ipv4)
		attrs_put(b, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
	msgbuf_nest_end(&b->mb, key);
	return key;
}

static void
test_key_roundtrip_and_exact_mask(void **state)
{
	struct flow_key key, mask, key2, mask2;
	static struct attrs b;
	char out[4096];
	struct msgbuf mb;
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
	msgbuf_init(&mb, out, sizeof(out));
	msgbuf_start(&mb, 1, 0, 0, 0, 0);
	flow_key_put(&mb, OVS_FLOW_ATTR_KEY, &key, &key, false);
	int mask_at = mb.cur->nlmsg_len;

	flow_key_put(&mb, OVS_FLOW_ATTR_MASK, &key, &mask, true);
	assert_int_equal(msgbuf_end(&mb), 0);
	assert_int_equal(flow_match_from_nlattrs(&key2, &mask2,
		(const void *)(out + NLMSG_HDRLEN),
		(const void *)(out + mask_at), true), 0);
	assert_memory_equal(&key, &key2, sizeof(key));
	assert_memory_equal(&mask, &mask2, sizeof(mask));
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_roundtrip_and_exact_mask),
		cmocka_unit_test(test_key_errors),
		cmocka_unit_test(test_mask_rules),
		cmocka_unit_test(test_vlan_key),
		cmocka_unit_test(test_actions),
	};

	return cmocka_run_group_tests_name("flow-netlink", tests, NULL, NULL);
}
