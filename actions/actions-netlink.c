/* SPDX-License-Identifier: Apache-2.0 */
#include "actions/actions-netlink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "common/kernel-profile.h"
#include "common/nlerr.h"
#include "ct/action-netlink.h"
#include "flow/key-netlink.h"
#include "flow/tun-netlink.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/attr.h"
#include "genl-server/msg.h"
#include "packet/headers.h"

#define VARIABLE	-1
/* The kernel stores actions after a 28-byte header in a 32 KiB buffer. */
#define STORE_HEADER	28
#define STORE_LIMIT	(ACTIONS_MAX_SIZE - STORE_HEADER)

/* What validation knows of the packet at this point of the list. */
struct vstate {
	const struct flow_key *key;
	uint16_t eth_type;		/* be */
	uint16_t vlan_tci;		/* be */
	uint32_t mpls_labels;
	bool log;
	size_t *stored;			/* size of the kernel's stored form */
};

static const int action_lens[TAPDP_ACTION_ATTR_MAX + 1] = {
	[OVS_ACTION_ATTR_OUTPUT] = 4,
	[OVS_ACTION_ATTR_RECIRC] = 4,
	[OVS_ACTION_ATTR_USERSPACE] = VARIABLE,
	[OVS_ACTION_ATTR_PUSH_MPLS] = sizeof(struct ovs_action_push_mpls),
	[OVS_ACTION_ATTR_POP_MPLS] = 2,
	[OVS_ACTION_ATTR_PUSH_VLAN] = sizeof(struct ovs_action_push_vlan),
	[OVS_ACTION_ATTR_POP_VLAN] = 0,
	[OVS_ACTION_ATTR_SET] = VARIABLE,
	[OVS_ACTION_ATTR_SET_MASKED] = VARIABLE,
	[OVS_ACTION_ATTR_SAMPLE] = VARIABLE,
	[OVS_ACTION_ATTR_HASH] = sizeof(struct ovs_action_hash),
	[OVS_ACTION_ATTR_CT] = VARIABLE,
	[OVS_ACTION_ATTR_CT_CLEAR] = 0,
	[OVS_ACTION_ATTR_TRUNC] = sizeof(struct ovs_action_trunc),
	[OVS_ACTION_ATTR_PUSH_ETH] = sizeof(struct ovs_action_push_eth),
	[OVS_ACTION_ATTR_POP_ETH] = 0,
	[OVS_ACTION_ATTR_PUSH_NSH] = VARIABLE,
	[OVS_ACTION_ATTR_POP_NSH] = 0,
	[OVS_ACTION_ATTR_METER] = 4,
	[OVS_ACTION_ATTR_CLONE] = VARIABLE,
	[OVS_ACTION_ATTR_CHECK_PKT_LEN] = VARIABLE,
	[OVS_ACTION_ATTR_ADD_MPLS] = sizeof(struct ovs_action_add_mpls),
	[OVS_ACTION_ATTR_DEC_TTL] = VARIABLE,
	[TAPDP_ACTION_ATTR_DROP] = 4,
	[TAPDP_ACTION_ATTR_PSAMPLE] = VARIABLE,
};

/* Fixed payload lengths of the key attributes a set action may carry. */
static const int set_key_lens[OVS_KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_PRIORITY] = 4,
	[OVS_KEY_ATTR_SKB_MARK] = 4,
	[OVS_KEY_ATTR_CT_MARK] = 4,
	[OVS_KEY_ATTR_CT_LABELS] = sizeof(struct ovs_key_ct_labels),
	[OVS_KEY_ATTR_ETHERNET] = sizeof(struct ovs_key_ethernet),
	[OVS_KEY_ATTR_IPV4] = sizeof(struct ovs_key_ipv4),
	[OVS_KEY_ATTR_IPV6] = sizeof(struct ovs_key_ipv6),
	[OVS_KEY_ATTR_TCP] = sizeof(struct ovs_key_tcp),
	[OVS_KEY_ATTR_UDP] = sizeof(struct ovs_key_udp),
	[OVS_KEY_ATTR_SCTP] = sizeof(struct ovs_key_sctp),
	[OVS_KEY_ATTR_MPLS] = VARIABLE,
};

static int validate_list(const void *data, int len, struct vstate st,
			 unsigned depth);

static bool
is_vlan_type(uint16_t be)
{
	return be == htons(ETH_P_8021Q) || be == htons(ETH_P_8021AD);
}

static bool
is_mpls_type(uint16_t be)
{
	return be == htons(ETH_P_MPLS_UC) || be == htons(ETH_P_MPLS_MC);
}

static bool
is_ip_type(uint16_t be)
{
	return be == htons(ETH_P_IP) || be == htons(ETH_P_IPV6);
}

/* Room in the stored form, as the kernel's reserve_sfa_size(). */
static int
store(struct vstate *st, size_t bytes)
{
	if (*st->stored + bytes > STORE_LIMIT) {
		ovs_nlerr(st->log, "Flow action size exceeds max %u",
			  ACTIONS_MAX_SIZE);
		return -EMSGSIZE;
	}
	*st->stored += bytes;
	return 0;
}

static bool
is_last(const struct nlattr *a, int rem)
{
	return a->nla_len == rem;
}

static int
validate_userspace(const struct nlattr *attr)
{
	static const struct attr_policy policy[OVS_USERSPACE_ATTR_MAX + 1] = {
		[OVS_USERSPACE_ATTR_PID] = { .kind = ATTR_U32 },
		[OVS_USERSPACE_ATTR_USERDATA] = { .kind = ATTR_UNSPEC },
		[OVS_USERSPACE_ATTR_EGRESS_TUN_PORT] = { .kind = ATTR_U32 },
	};
	const struct nlattr *a[OVS_USERSPACE_ATTR_MAX + 1];
	int err = 0;

	/* Liberal until 6.18 refused what it does not know. */
	if (kernel_profile()->userspace_strict)
		err = attr_check_known(attr_data(attr), attr_len(attr),
				       OVS_USERSPACE_ATTR_MAX);
	if (!err)
		err = attr_parse_nested(attr, policy, OVS_USERSPACE_ATTR_MAX,
					a, NULL);
	if (err)
		return err;
	if (!a[OVS_USERSPACE_ATTR_PID] ||
	    !attr_get_u32(a[OVS_USERSPACE_ATTR_PID]))
		return -EINVAL;
	return 0;
}

static int
validate_psample(const struct nlattr *attr)
{
	static const struct attr_policy policy[TAPDP_PSAMPLE_ATTR_COOKIE + 1] = {
		[TAPDP_PSAMPLE_ATTR_GROUP] = { .kind = ATTR_U32 },
		[TAPDP_PSAMPLE_ATTR_COOKIE] = {
			.kind = ATTR_BINARY,
			.len = TAPDP_PSAMPLE_COOKIE_MAX_SIZE },
	};
	const struct nlattr *a[TAPDP_PSAMPLE_ATTR_COOKIE + 1];
	int err;

	err = attr_check_known(attr_data(attr), attr_len(attr),
			       TAPDP_PSAMPLE_ATTR_COOKIE);
	if (!err)
		err = attr_parse_nested(attr, policy, TAPDP_PSAMPLE_ATTR_COOKIE,
					a, NULL);
	if (err)
		return err;
	return a[TAPDP_PSAMPLE_ATTR_GROUP] ? 0 : -EINVAL;
}

static bool
masked_bits_ok(const uint8_t *data, int len)
{
	const uint8_t *mask = data + len;

	for (int i = 0; i < len; i++)
		if (data[i] & ~mask[i])
			return false;
	return true;
}

/* The kernel stores set(tunnel) as its parsed form, a pointer to a
 * metadata_dst in an OVS_KEY_ATTR_TUNNEL_INFO, inside the set. */
#define SET_TUNNEL_STORED_SIZE	(NLA_HDRLEN + NLA_HDRLEN + 8)

static int
validate_set_tunnel(const struct nlattr *k, struct vstate *st)
{
	struct tun_key t;
	int err = tun_key_from_set(&t, k, st->log);

	return err ? err : store(st, SET_TUNNEL_STORED_SIZE);
}

static int
validate_set(const struct nlattr *a, struct vstate *st, bool masked)
{
	const struct nlattr *k = attr_data(a);
	const struct flow_key *key = st->key;
	int type, len;

	/* Exactly one key attribute. */
	if (attr_len(a) < NLA_HDRLEN || k->nla_len < NLA_HDRLEN ||
	    k->nla_len > attr_len(a) || NLA_ALIGN(k->nla_len) != attr_len(a))
		return -EINVAL;
	type = attr_type(k);
	len = attr_len(k);
	if (masked)
		len /= 2;
	if (type > OVS_KEY_ATTR_MAX)
		return -EINVAL;
	if (set_key_lens[type] != VARIABLE && set_key_lens[type] != len &&
	    set_key_lens[type] != 0)
		return -EINVAL;
	if (masked && !masked_bits_ok(attr_data(k), len))
		return -EINVAL;

	switch (type) {
	case OVS_KEY_ATTR_PRIORITY:
	case OVS_KEY_ATTR_SKB_MARK:
	case OVS_KEY_ATTR_CT_MARK:
	case OVS_KEY_ATTR_CT_LABELS:
		break;
	case OVS_KEY_ATTR_ETHERNET:
		if (key->mac_proto != FLOW_MAC_ETHERNET)
			return -EINVAL;
		break;
	case OVS_KEY_ATTR_TUNNEL:
		return masked ? -EINVAL : validate_set_tunnel(k, st);
	case OVS_KEY_ATTR_IPV4: {
		struct ovs_key_ipv4 v[2];

		if (st->eth_type != htons(ETH_P_IP))
			return -EINVAL;
		memcpy(v, attr_data(k), (masked ? 2 : 1) * sizeof(v[0]));
		if (masked ? (v[1].ipv4_proto || v[1].ipv4_frag)
			   : (v[0].ipv4_proto != key->ip_proto ||
			      v[0].ipv4_frag != key->ip_frag))
			return -EINVAL;
		break;
	}
	case OVS_KEY_ATTR_IPV6: {
		struct ovs_key_ipv6 v[2];

		if (st->eth_type != htons(ETH_P_IPV6))
			return -EINVAL;
		memcpy(v, attr_data(k), (masked ? 2 : 1) * sizeof(v[0]));
		if (masked) {
			if (v[1].ipv6_proto || v[1].ipv6_frag ||
			    (ntohl(v[1].ipv6_label) & 0xfff00000))
				return -EINVAL;
		} else if (v[0].ipv6_proto != key->ip_proto ||
			   v[0].ipv6_frag != key->ip_frag) {
			return -EINVAL;
		}
		if (ntohl(v[0].ipv6_label) & 0xfff00000)
			return -EINVAL;
		break;
	}
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
	case OVS_KEY_ATTR_SCTP: {
		int proto = type == OVS_KEY_ATTR_TCP ? IPPROTO_TCP
			    : type == OVS_KEY_ATTR_UDP ? IPPROTO_UDP
						       : IPPROTO_SCTP;

		if (!is_ip_type(st->eth_type) || key->ip_proto != proto)
			return -EINVAL;
		break;
	}
	case OVS_KEY_ATTR_MPLS:
		if (!is_mpls_type(st->eth_type) ||
		    len != sizeof(struct ovs_key_mpls))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* The kernel stores a plain set as a masked one: twice the key. */
	if (!masked)
		return store(st, NLA_HDRLEN + NLA_HDRLEN + NLA_ALIGN(2 * len));
	return store(st, NLA_ALIGN(a->nla_len));
}

static int
validate_sample(const struct nlattr *attr, struct vstate *st, unsigned depth)
{
	const struct nlattr *a, *tb[OVS_SAMPLE_ATTR_MAX + 1] = { 0 };
	int rem, err;

	attr_for_each(a, attr_data(attr), attr_len(attr), rem) {
		int type = attr_type(a);

		if (!type || type > OVS_SAMPLE_ATTR_MAX || tb[type])
			return -EINVAL;
		tb[type] = a;
	}
	if (rem)
		return -EINVAL;
	a = tb[OVS_SAMPLE_ATTR_PROBABILITY];
	if (!a || attr_len(a) != 4)
		return -EINVAL;
	a = tb[OVS_SAMPLE_ATTR_ACTIONS];
	if (!a || (attr_len(a) && attr_len(a) < NLA_HDRLEN))
		return -EINVAL;
	/* Stored with an 8-byte argument in front of the actions. */
	err = store(st, NLA_HDRLEN + NLA_HDRLEN + 8);
	return err ? err : validate_list(attr_data(a), attr_len(a), *st,
					 depth + 1);
}

static int
validate_clone(const struct nlattr *attr, struct vstate *st, unsigned depth)
{
	int err;

	if (attr_len(attr) && attr_len(attr) < NLA_HDRLEN)
		return -EINVAL;
	err = store(st, NLA_HDRLEN + NLA_HDRLEN + 4);
	return err ? err : validate_list(attr_data(attr), attr_len(attr), *st,
					 depth + 1);
}

static int
validate_check_pkt_len(const struct nlattr *attr, struct vstate *st,
		       unsigned depth)
{
	static const struct attr_policy policy[OVS_CHECK_PKT_LEN_ATTR_MAX + 1] = {
		[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN] = { .kind = ATTR_U16 },
		[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER] = {
			.kind = ATTR_NESTED },
		[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL] = {
			.kind = ATTR_NESTED },
	};
	const struct nlattr *tb[OVS_CHECK_PKT_LEN_ATTR_MAX + 1], *le, *gt;
	int err;

	err = attr_check_known(attr_data(attr), attr_len(attr),
			       OVS_CHECK_PKT_LEN_ATTR_MAX);
	if (!err)
		err = attr_parse_nested(attr, policy,
					OVS_CHECK_PKT_LEN_ATTR_MAX, tb, NULL);
	if (err)
		return err;
	if (!tb[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN] ||
	    !attr_get_u16(tb[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN]))
		return -EINVAL;
	le = tb[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL];
	gt = tb[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER];
	if (!le || !gt)
		return -EINVAL;
	err = store(st, NLA_HDRLEN + NLA_HDRLEN + 4 + NLA_HDRLEN);
	if (!err)
		err = validate_list(attr_data(le), attr_len(le), *st,
				    depth + 1);
	if (!err)
		err = store(st, NLA_HDRLEN);
	if (!err)
		err = validate_list(attr_data(gt), attr_len(gt), *st,
				    depth + 1);
	return err;
}

static int
validate_dec_ttl(const struct nlattr *attr, struct vstate *st, unsigned depth)
{
	const struct nlattr *a, *tb[OVS_DEC_TTL_ATTR_MAX + 1] = { 0 };
	int rem, err;

	attr_for_each(a, attr_data(attr), attr_len(attr), rem) {
		int type = attr_type(a);

		if (type > OVS_DEC_TTL_ATTR_MAX)
			continue;	/* future attributes are ignored */
		if (!type || tb[type]) {
			ovs_nlerr(st->log, "Duplicate or invalid key (type "
				  "%d).", type);
			return -EINVAL;
		}
		tb[type] = a;
	}
	if (rem) {
		ovs_nlerr(st->log, "Message has %d unknown bytes.", rem);
		return -EINVAL;
	}
	a = tb[OVS_DEC_TTL_ATTR_ACTION];
	if (!a || (attr_len(a) && attr_len(a) < NLA_HDRLEN)) {
		ovs_nlerr(st->log, "Missing valid actions attribute.");
		return -EINVAL;
	}
	err = store(st, NLA_HDRLEN + NLA_HDRLEN);
	return err ? err : validate_list(attr_data(a), attr_len(a), *st,
					 depth + 1);
}

static bool
mpls_push_allowed(const struct vstate *st)
{
	uint16_t t = st->eth_type;

	return !(st->vlan_tci & htons(FLOW_VLAN_PRESENT)) &&
	       (t == htons(ETH_P_IP) || t == htons(ETH_P_IPV6) ||
		t == htons(ETH_P_ARP) || t == htons(ETH_P_RARP) ||
		is_mpls_type(t));
}

/* The kernel stores a ct action as its parsed struct ovs_conntrack_info
 * (160 bytes on 64-bit machines) behind an attribute header. */
#define CT_STORED_SIZE	NLA_ALIGN(NLA_HDRLEN + 160)

static int
validate_ct(const struct nlattr *a, struct vstate *st)
{
	struct ct_action ct;
	int err = ct_action_parse(a, st->key, &ct, st->log);

	return err ? err : store(st, CT_STORED_SIZE);
}

static int
validate_one(const struct nlattr *a, int rem, struct vstate *st,
	     uint8_t *mac_proto, unsigned depth)
{
	int type = attr_type(a);

	switch (type) {
	case OVS_ACTION_ATTR_USERSPACE:
		return validate_userspace(a);
	case OVS_ACTION_ATTR_OUTPUT:
		return attr_get_u32(a) >= FLOW_IN_PORT_NONE ? -EINVAL : 0;
	case OVS_ACTION_ATTR_TRUNC: {
		struct ovs_action_trunc t;

		memcpy(&t, attr_data(a), sizeof(t));
		return t.max_len < ETH_HLEN ? -EINVAL : 0;
	}
	case OVS_ACTION_ATTR_HASH: {
		struct ovs_action_hash h;

		memcpy(&h, attr_data(a), sizeof(h));
		return h.hash_alg <= kernel_profile()->hash_alg_max ? 0
								   : -EINVAL;
	}
	case OVS_ACTION_ATTR_POP_VLAN:
		if (*mac_proto != FLOW_MAC_ETHERNET)
			return -EINVAL;
		st->vlan_tci = 0;
		return 0;
	case OVS_ACTION_ATTR_PUSH_VLAN: {
		struct ovs_action_push_vlan v;

		memcpy(&v, attr_data(a), sizeof(v));
		if (*mac_proto != FLOW_MAC_ETHERNET ||
		    !is_vlan_type(v.vlan_tpid) ||
		    !(v.vlan_tci & htons(FLOW_VLAN_PRESENT)))
			return -EINVAL;
		st->vlan_tci = v.vlan_tci;
		return 0;
	}
	case OVS_ACTION_ATTR_RECIRC:
	case OVS_ACTION_ATTR_METER:	/* a missing meter is ignored */
	case OVS_ACTION_ATTR_CT_CLEAR:
		return 0;
	case OVS_ACTION_ATTR_ADD_MPLS: {
		struct ovs_action_add_mpls m;

		memcpy(&m, attr_data(a), sizeof(m));
		if (!is_mpls_type(m.mpls_ethertype))
			return -EINVAL;
		if (m.tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK) {
			if (!mpls_push_allowed(st))
				return -EINVAL;
			st->mpls_labels++;
		} else if (*mac_proto == FLOW_MAC_ETHERNET) {
			st->mpls_labels = 1;
			*mac_proto = FLOW_MAC_NONE;
		} else {
			st->mpls_labels++;
		}
		st->eth_type = m.mpls_ethertype;
		return 0;
	}
	case OVS_ACTION_ATTR_PUSH_MPLS: {
		struct ovs_action_push_mpls m;

		memcpy(&m, attr_data(a), sizeof(m));
		if (!is_mpls_type(m.mpls_ethertype) || !mpls_push_allowed(st))
			return -EINVAL;
		st->eth_type = m.mpls_ethertype;
		st->mpls_labels++;
		return 0;
	}
	case OVS_ACTION_ATTR_POP_MPLS: {
		uint16_t proto = attr_get_u16(a);

		if ((st->vlan_tci & htons(FLOW_VLAN_PRESENT)) ||
		    !is_mpls_type(st->eth_type))
			return -EINVAL;
		if (proto == htons(ETH_P_TEB) && *mac_proto != FLOW_MAC_NONE)
			return -EINVAL;
		st->mpls_labels--;
		/* After the last label nothing is known of what follows. */
		st->eth_type = is_mpls_type(proto) && st->mpls_labels
				       ? proto : 0;
		return 0;
	}
	case OVS_ACTION_ATTR_SET:
		return validate_set(a, st, false);
	case OVS_ACTION_ATTR_SET_MASKED:
		return validate_set(a, st, true);
	case OVS_ACTION_ATTR_SAMPLE:
		return validate_sample(a, st, depth);
	case OVS_ACTION_ATTR_CLONE:
		return validate_clone(a, st, depth);
	case OVS_ACTION_ATTR_CHECK_PKT_LEN:
		return validate_check_pkt_len(a, st, depth);
	case OVS_ACTION_ATTR_DEC_TTL:
		return validate_dec_ttl(a, st, depth);
	case OVS_ACTION_ATTR_PUSH_ETH:
		if (*mac_proto != FLOW_MAC_NONE)
			return -EINVAL;
		*mac_proto = FLOW_MAC_ETHERNET;
		return 0;
	case OVS_ACTION_ATTR_POP_ETH:
		if (*mac_proto != FLOW_MAC_ETHERNET ||
		    (st->vlan_tci & htons(FLOW_VLAN_PRESENT)))
			return -EINVAL;
		*mac_proto = FLOW_MAC_NONE;
		return 0;
	case TAPDP_ACTION_ATTR_DROP:
		/* Only as the very last action. */
		return is_last(a, rem) ? 0 : -EINVAL;
	case TAPDP_ACTION_ATTR_PSAMPLE:
		return validate_psample(a);
	case OVS_ACTION_ATTR_CT:
		return validate_ct(a, st);
	case OVS_ACTION_ATTR_PUSH_NSH:
		/* An L3 packet needs a next protocol value for its type. As
		 * the kernel, the type is not NSH for what follows. */
		if (*mac_proto != FLOW_MAC_ETHERNET &&
		    !nsh_np_from_eth_type(st->eth_type))
			return -EINVAL;
		*mac_proto = FLOW_MAC_NONE;
		return flow_nsh_push_valid(a, st->log) ? 0 : -EINVAL;
	case OVS_ACTION_ATTR_POP_NSH:
		/* What follows is known from the flow's key only. */
		if (st->eth_type != htons(ETH_P_NSH) ||
		    !nsh_np_to_eth_type(st->key->nsh.base.np))
			return -EINVAL;
		*mac_proto = st->key->nsh.base.np == NSH_NP_ETHERNET
				     ? FLOW_MAC_ETHERNET : FLOW_MAC_NONE;
		return 0;
	default:
		ovs_nlerr(st->log, "Unknown Action type %d", type);
		return -EINVAL;
	}
}

/* The copy cost of an action the kernel stores as it came. */
static bool
stored_as_is(int type)
{
	return type != OVS_ACTION_ATTR_SET && type != OVS_ACTION_ATTR_CT &&
	       type != OVS_ACTION_ATTR_SET_MASKED &&
	       type != OVS_ACTION_ATTR_SAMPLE &&
	       type != OVS_ACTION_ATTR_CLONE &&
	       type != OVS_ACTION_ATTR_CHECK_PKT_LEN &&
	       type != OVS_ACTION_ATTR_DEC_TTL;
}

static int
validate_list(const void *data, int len, struct vstate st, unsigned depth)
{
	uint8_t mac_proto = st.key->mac_proto;
	const struct nlattr *a;
	int rem, err;

	if (depth > ACTIONS_MAX_DEPTH)
		return -EOVERFLOW;
	attr_for_each(a, data, len, rem) {
		int type = attr_type(a);

		/* An action newer than the profile is unknown to it. */
		if (type > kernel_profile()->action_max ||
		    (action_lens[type] != VARIABLE &&
		     action_lens[type] != attr_len(a)))
			return -EINVAL;
		if (type == OVS_ACTION_ATTR_UNSPEC)
			return -EINVAL;
		err = validate_one(a, rem, &st, &mac_proto, depth);
		if (!err && stored_as_is(type))
			err = store(&st, NLA_ALIGN(a->nla_len));
		if (err)
			return err;
	}
	return rem > 0 ? -EINVAL : 0;
}

int
actions_validate(const struct nlattr *actions, const struct flow_key *key,
		 bool log)
{
	size_t stored = 0;
	struct vstate st = {
		.key = key,
		.eth_type = key->eth_type,
		.vlan_tci = key->vlan.tci,
		.mpls_labels = is_mpls_type(key->eth_type)
				       ? __builtin_popcount(key->mpls_labels_mask)
				       : 0,
		.log = log,
		.stored = &stored,
	};

	return validate_list(attr_data(actions), attr_len(actions), st, 0);
}

/* What actions_store() builds: the attributes in mb (one message, the
 * list its payload) and the ct actions and set(tunnel)s parsed, in the
 * order they go. */
struct store {
	struct msgbuf mb;
	const struct flow_key *key;
	struct actions_ct *ct;
	uint32_t n_ct;
	struct actions_tun *tun;
	uint32_t n_tun;
	bool nomem;
};

/* arr (n entries of size bytes) grown by one; NULL when there is no
 * memory, which the store remembers. */
static void *
store_grow(struct store *s, void *arr, uint32_t n, size_t size)
{
	void *grown = realloc(arr, (n + 1) * size);

	if (!grown)
		s->nomem = true;
	return grown;
}

/* Where the next attribute of the list goes. */
static uint32_t
store_offset(const struct store *s)
{
	return s->mb.cur->nlmsg_len - NLMSG_HDRLEN;
}

static void store_list(struct store *s, const void *data, int len);

/* A ct action, parsed once for good and put back as the kernel dumps
 * it. */
static void
store_ct(struct store *s, const struct nlattr *a)
{
	struct actions_ct *grown;
	struct ct_action ct;

	/* Validated already: it parses. */
	if (s->mb.overflow || ct_action_parse(a, s->key, &ct, false))
		return;
	grown = store_grow(s, s->ct, s->n_ct, sizeof(*s->ct));
	if (!grown)
		return;
	s->ct = grown;
	s->ct[s->n_ct].offset = store_offset(s);
	s->ct[s->n_ct++].ct = ct;
	ct_action_put(&s->mb, &ct);
}

/* A set(tunnel), parsed once for good and put back as the kernel dumps
 * it (from its parsed form, ovs_nla_put_tunnel_info). */
static void
store_set_tunnel(struct store *s, const struct nlattr *a)
{
	struct actions_tun *grown, *t;
	struct nlattr *set;

	if (s->mb.overflow)
		return;
	grown = store_grow(s, s->tun, s->n_tun, sizeof(*s->tun));
	if (!grown)
		return;
	s->tun = grown;
	t = &s->tun[s->n_tun];
	/* Validated already: it parses. */
	if (tun_key_from_set(&t->tun, attr_data(a), false))
		return;
	t->offset = store_offset(s);
	s->n_tun++;
	set = msgbuf_nest_start(&s->mb, OVS_ACTION_ATTR_SET);
	tun_key_put(&s->mb, OVS_KEY_ATTR_TUNNEL, &t->tun, &t->tun,
		    tun_key_bridge(&t->tun));
	msgbuf_nest_end(&s->mb, set);
}

static bool
is_set_tunnel(const struct nlattr *a)
{
	return attr_type(a) == OVS_ACTION_ATTR_SET &&
	       attr_type(attr_data(a)) == OVS_KEY_ATTR_TUNNEL;
}

/* A nest whose attribute holding an action list (list_type) is stored as
 * a list, the others copied, or left out when list_only. */
static void
store_nest(struct store *s, const struct nlattr *nest, int list_type,
	   bool list_only)
{
	struct msgbuf *mb = &s->mb;
	struct nlattr *out = msgbuf_nest_start(mb, attr_type(nest));
	const struct nlattr *a;
	int rem;

	attr_for_each(a, attr_data(nest), attr_len(nest), rem) {
		if (attr_type(a) == list_type) {
			struct nlattr *l = msgbuf_nest_start(mb, list_type);

			store_list(s, attr_data(a), attr_len(a));
			msgbuf_nest_end(mb, l);
		} else if (!list_only) {
			msgbuf_put(mb, a->nla_type, attr_len(a), attr_data(a));
		}
	}
	msgbuf_nest_end(mb, out);
}

static void
store_list(struct store *s, const void *data, int len)
{
	struct msgbuf *mb = &s->mb;
	const struct nlattr *a;
	int rem;

	attr_for_each(a, data, len, rem) {
		if (is_set_tunnel(a)) {
			store_set_tunnel(s, a);
			continue;
		}
		switch (attr_type(a)) {
		case OVS_ACTION_ATTR_CT:
			store_ct(s, a);
			break;
		case OVS_ACTION_ATTR_CLONE: {
			struct nlattr *n = msgbuf_nest_start(mb, attr_type(a));

			store_list(s, attr_data(a), attr_len(a));
			msgbuf_nest_end(mb, n);
			break;
		}
		case OVS_ACTION_ATTR_SAMPLE:
			store_nest(s, a, OVS_SAMPLE_ATTR_ACTIONS, false);
			break;
		case OVS_ACTION_ATTR_DEC_TTL:
			/* Its list alone, as the kernel copies it: execution
			 * takes the nest's first attribute for the list, and
			 * an attribute validation skipped (a later kernel's)
			 * must not be that. */
			store_nest(s, a, OVS_DEC_TTL_ATTR_ACTION, true);
			break;
		case OVS_ACTION_ATTR_CHECK_PKT_LEN: {
			struct nlattr *n = msgbuf_nest_start(mb, attr_type(a));
			const struct nlattr *b;
			int r2;

			attr_for_each(b, attr_data(a), attr_len(a), r2) {
				int t = attr_type(b);

				if (t == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER ||
				    t == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL) {
					struct nlattr *l =
						msgbuf_nest_start(mb, t);

					store_list(s, attr_data(b),
						   attr_len(b));
					msgbuf_nest_end(mb, l);
				} else {
					msgbuf_put(mb, b->nla_type,
						   attr_len(b), attr_data(b));
				}
			}
			msgbuf_nest_end(mb, n);
			break;
		}
		default:
			msgbuf_put(mb, a->nla_type, attr_len(a), attr_data(a));
			break;
		}
	}
}

/* Rounds n up to a multiple of align, a power of 2. */
static size_t
align_up(size_t n, size_t align)
{
	return (n + align - 1) & ~(align - 1);
}

static struct actions_stored *
stored_new(const void *data, uint32_t len, const struct store *s)
{
	size_t ct_at = align_up(sizeof(struct actions_stored) + len,
				_Alignof(struct actions_ct));
	size_t tun_at = align_up(ct_at + s->n_ct * sizeof(*s->ct),
				 _Alignof(struct actions_tun));
	struct actions_stored *acts;

	acts = malloc(tun_at + s->n_tun * sizeof(*s->tun));
	if (!acts)
		return NULL;
	acts->len = len;
	acts->n_ct = s->n_ct;
	acts->n_tun = s->n_tun;
	memcpy(acts->data, data, len);
	acts->ct = (const struct actions_ct *)((char *)acts + ct_at);
	acts->tun = (const struct actions_tun *)((char *)acts + tun_at);
	if (s->n_ct)
		memcpy((char *)acts + ct_at, s->ct, s->n_ct * sizeof(*s->ct));
	if (s->n_tun)
		memcpy((char *)acts + tun_at, s->tun,
		       s->n_tun * sizeof(*s->tun));
	return acts;
}

struct actions_stored *
actions_store(const struct nlattr *actions, const struct flow_key *key)
{
	/* A ct action grows by its zone at most, a set(tunnel) by a VXLAN
	 * or ERSPAN option it did not spell out: 3x is room enough. */
	size_t cap = NLMSG_HDRLEN + 3 * attr_len(actions) + 1024;
	struct store s = { .key = key };
	struct actions_stored *acts = NULL;
	char *mem = malloc(cap);

	if (!mem)
		return NULL;
	msgbuf_init(&s.mb, mem, cap);
	if (msgbuf_start(&s.mb, 0, 0, 0, 0, 0)) {
		store_list(&s, attr_data(actions), attr_len(actions));
		if (!s.mb.overflow && !s.nomem)
			acts = stored_new(mem + NLMSG_HDRLEN,
					  s.mb.cur->nlmsg_len - NLMSG_HDRLEN,
					  &s);
	}
	free(s.ct);
	free(s.tun);
	free(mem);
	return acts;
}
