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
#include "tests/unit/nl-test.h"

/* in_port(1),eth(),eth_type(0x0800),ipv4(src=10.0.0.1) as a key. */
static int
ipv4_key(struct nb *b, bool with_ipv4)
{
	struct ovs_key_ethernet eth;

	memset(&eth, 0, sizeof(eth));
	struct ovs_key_ipv4 ip = { .ipv4_src = htonl(0x0a000001) };
	int at = b->len;

	nb_nest_start(b, OVS_FLOW_ATTR_KEY);
	nb_put_u32(b, OVS_KEY_ATTR_IN_PORT, 1);
	nb_put(b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	nb_put_be16(b, OVS_KEY_ATTR_ETHERTYPE, ETH_P_IP);
	if (with_ipv4)
		nb_put(b, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
	nb_nest_end(b);
	return at;
}

static void
test_key_roundtrip_and_exact_mask(void **state)
{
	struct flow_key key, mask, key2, mask2;
	struct nb b = { .len = 0 };
	char out[4096];
	struct msgbuf mb;
	int at = ipv4_key(&b, true);

	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, at),
						 NULL, true), 0);
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

static void
test_key_errors(void **state)
{
	struct flow_key key, mask;
	struct nb b = { .len = 0 };
	int at;

	/* eth_type IPv4 without the IPv4 attribute: "Missing key". */
	at = ipv4_key(&b, false);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, at),
						 NULL, false), -EINVAL);
	/* Duplicate attribute. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put_u32(&b, OVS_KEY_ATTR_IN_PORT, 1);
	nb_put_u32(&b, OVS_KEY_ATTR_IN_PORT, 2);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
	/* Wrong length. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put_be16(&b, OVS_KEY_ATTR_IN_PORT, 1);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
	/* No Ethernet header and no EtherType. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put_u32(&b, OVS_KEY_ATTR_IN_PORT, 1);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
	/* in_port past the port range. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put_u32(&b, OVS_KEY_ATTR_IN_PORT, 65535);
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, ETH_P_ARP);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
	/* An EtherType below 0x600. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, 0x0100);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
}

static void
test_mask_rules(void **state)
{
	struct ovs_key_ipv4 ipm = { .ipv4_src = 0xffffffff };
	struct ovs_key_ethernet ethm;
	struct flow_key key, mask;
	struct nb b = { .len = 0 };
	int at = ipv4_key(&b, true), mat;

	/* An IPv4 mask needs an exact EtherType match: an absent (all
	 * zero) EtherType mask refuses it. */
	memset(&ethm, 0, sizeof(ethm));
	mat = b.len;
	nb_nest_start(&b, OVS_FLOW_ATTR_MASK);
	nb_put(&b, OVS_KEY_ATTR_IPV4, &ipm, sizeof(ipm));
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, at),
						 nb_at(&b, mat), false),
			 -EINVAL);
	/* With it, fine, and in_port and EtherType become exact. */
	mat = b.len;
	nb_nest_start(&b, OVS_FLOW_ATTR_MASK);
	nb_put_u32(&b, OVS_KEY_ATTR_IN_PORT, 0);
	nb_put(&b, OVS_KEY_ATTR_ETHERNET, &ethm, sizeof(ethm));
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
	nb_put(&b, OVS_KEY_ATTR_IPV4, &ipm, sizeof(ipm));
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, at),
						 nb_at(&b, mat), true), 0);
	assert_int_equal(mask.ipv4_src, 0xffffffff);
	assert_int_equal(mask.ipv4_dst, 0);
	assert_int_equal(mask.eth_type, 0xffff);
	assert_int_equal(mask.vlan.tci, 0xffff);
}

static void
test_vlan_key(void **state)
{
	struct ovs_key_ethernet eth;

	memset(&eth, 0, sizeof(eth));
	struct flow_key key, mask;
	struct nb b = { .len = 0 };

	/* A VLAN EtherType without its encap: invalid. */
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, ETH_P_8021Q);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, false), -EINVAL);
	/* With TCI (CFI set) and an encapsulated ARP. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_KEY);
	nb_put(&b, OVS_KEY_ATTR_ETHERNET, &eth, sizeof(eth));
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, ETH_P_8021Q);
	nb_put_be16(&b, OVS_KEY_ATTR_VLAN, 0x1000 | 42);
	nb_nest_start(&b, OVS_KEY_ATTR_ENCAP);
	nb_put_be16(&b, OVS_KEY_ATTR_ETHERTYPE, ETH_P_ARP);
	struct ovs_key_arp arp = { .arp_op = htons(1) };

	nb_put(&b, OVS_KEY_ATTR_ARP, &arp, sizeof(arp));
	nb_nest_end(&b);
	nb_nest_end(&b);
	assert_int_equal(flow_match_from_nlattrs(&key, &mask, nb_at(&b, 0),
						 NULL, true), 0);
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

static int
validate(struct nb *b)
{
	return actions_validate(nb_at(b, 0), arp_key(), false);
}

static void
nested_clones(struct nb *b, int n)
{
	b->len = 0;
	nb_nest_start(b, OVS_FLOW_ATTR_ACTIONS);
	for (int i = 0; i < n; i++)
		nb_nest_start(b, OVS_ACTION_ATTR_CLONE);
	nb_put_u32(b, TAPDP_ACTION_ATTR_DROP, 0);
	for (int i = 0; i < n; i++)
		nb_nest_end(b);
	nb_nest_end(b);
}

static void
test_actions(void **state)
{
	struct nb b = { .len = 0 };

	/* The selftest's 17 nested clones: too deep. 16 are fine. */
	nested_clones(&b, 17);
	assert_int_equal(validate(&b), -EOVERFLOW);
	nested_clones(&b, 16);
	assert_int_equal(validate(&b), 0);
	/* drop(0),2: drop must be last. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_put_u32(&b, TAPDP_ACTION_ATTR_DROP, 0);
	nb_put_u32(&b, OVS_ACTION_ATTR_OUTPUT, 2);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	/* 2,drop(0) is fine; output to a port past the range is not. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_put_u32(&b, OVS_ACTION_ATTR_OUTPUT, 2);
	nb_put_u32(&b, TAPDP_ACTION_ATTR_DROP, 0);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), 0);
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_put_u32(&b, OVS_ACTION_ATTR_OUTPUT, 65535);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	/* Userspace needs a nonzero pid. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_nest_start(&b, OVS_ACTION_ATTR_USERSPACE);
	nb_put_u32(&b, OVS_USERSPACE_ATTR_PID, 0);
	nb_nest_end(&b);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	/* psample: a group is required; cookies are at most 16 bytes. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_nest_start(&b, TAPDP_ACTION_ATTR_PSAMPLE);
	nb_put(&b, TAPDP_PSAMPLE_ATTR_COOKIE, "abc", 3);
	nb_nest_end(&b);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_nest_start(&b, TAPDP_ACTION_ATTR_PSAMPLE);
	nb_put_u32(&b, TAPDP_PSAMPLE_ATTR_GROUP, 1);
	nb_put(&b, TAPDP_PSAMPLE_ATTR_COOKIE, "0123456789abcdefX", 17);
	nb_nest_end(&b);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -ERANGE);
	/* Setting IPv4 fields of an ARP flow. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	nb_nest_start(&b, OVS_ACTION_ATTR_SET);
	struct ovs_key_ipv4 ip = { 0 };

	nb_put(&b, OVS_KEY_ATTR_IPV4, &ip, sizeof(ip));
	nb_nest_end(&b);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	/* push_vlan without the CFI bit. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	struct ovs_action_push_vlan pv = { htons(ETH_P_8021Q), htons(5) };

	nb_put(&b, OVS_ACTION_ATTR_PUSH_VLAN, &pv, sizeof(pv));
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EINVAL);
	/* More than the kernel stores: EMSGSIZE. */
	b.len = 0;
	nb_nest_start(&b, OVS_FLOW_ATTR_ACTIONS);
	for (int i = 0; i < 5000; i++)
		nb_put_u32(&b, OVS_ACTION_ATTR_OUTPUT, 1);
	nb_nest_end(&b);
	assert_int_equal(validate(&b), -EMSGSIZE);
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
