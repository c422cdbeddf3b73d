/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/fastpath-actions.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stddef.h>
#include <string.h>

#include "genl-server/attr.h"
#include "include/tapdp/ovs-uapi.h"

/* The frame as the ops find it, known from the megaflow's match: whether
 * it has a tag (in its skb) and how many pushed onto it lie in its
 * bytes. */
struct shape {
	bool tagged;
	unsigned in_bytes;
	uint16_t eth_type;		/* of the L3 header (be) */
	uint8_t sets;			/* the kinds given, by 1 << kind */
};

static struct fp_op *
op_add(struct fp_actions *out, uint8_t kind)
{
	struct fp_op *op;

	if (out->n_ops == FP_OPS_MAX)
		return NULL;
	op = &out->op[out->n_ops++];
	op->kind = kind;
	return op;
}

/* A set's value and mask (val[n], then the mask when masked). */
static void
val_mask(const uint8_t *val, bool masked, size_t n, uint8_t *v, uint8_t *m)
{
	memcpy(v, val, n);
	if (masked)
		memcpy(m, val + n, n);
	else
		memset(m, 0xff, n);
}

static void
set_eth(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ethernet v, m;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	memcpy(out->set_eth.val, v.eth_dst, 6);
	memcpy(out->set_eth.val + 6, v.eth_src, 6);
	memcpy(out->set_eth.mask, m.eth_dst, 6);
	memcpy(out->set_eth.mask + 6, m.eth_src, 6);
}

/* (A plain set's protocol and fragment fields are the packet's, which
 * the kernel does not write; a masked one's masks of them are 0.) */
static void
set_ipv4(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ipv4 v, m;
	struct fp_set_l3 *s = &out->set_l3;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	memcpy(s->val, &v.ipv4_src, 4);
	memcpy(s->val + 4, &v.ipv4_dst, 4);
	s->val[8] = v.ipv4_tos;
	s->val[9] = v.ipv4_ttl;
	memcpy(s->mask, &m.ipv4_src, 4);
	memcpy(s->mask + 4, &m.ipv4_dst, 4);
	s->mask[8] = m.ipv4_tos;
	s->mask[9] = m.ipv4_ttl;
}

static void
set_ipv6(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ipv6 v, m;
	struct fp_set_l3 *s = &out->set_l3;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	memcpy(s->val, v.ipv6_src, 16);
	memcpy(s->val + 16, v.ipv6_dst, 16);
	s->val[32] = v.ipv6_tclass;
	s->val[33] = v.ipv6_hlimit;
	memcpy(s->val + 34, &v.ipv6_label, 4);
	memcpy(s->mask, m.ipv6_src, 16);
	memcpy(s->mask + 16, m.ipv6_dst, 16);
	s->mask[32] = m.ipv6_tclass;
	s->mask[33] = m.ipv6_hlimit;
	memcpy(s->mask + 34, &m.ipv6_label, 4);
}

/* A set or set_masked action (nested key attribute k). Validation
 * (actions/actions-netlink.h) gave it a value and mask of the key's
 * length, a key of the megaflow's L3 type and protocol, and no mask of
 * the protocol or fragment fields. */
static bool
add_set(const struct nlattr *k, bool masked, struct shape *sh,
	struct fp_actions *out)
{
	const void *val = attr_data(k);
	uint8_t kind, place;
	struct fp_op *op;

	switch (attr_type(k)) {
	case OVS_KEY_ATTR_ETHERNET:
		kind = FP_OP_SET_ETH;
		break;
	case OVS_KEY_ATTR_IPV4:
		kind = FP_OP_SET_IPV4;
		break;
	case OVS_KEY_ATTR_IPV6:
		kind = FP_OP_SET_IPV6;
		break;
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
		kind = FP_OP_SET_PORTS;
		break;
	default:
		return false;
	}
	/* One of each kind: IPv4 and IPv6 share their values' place. */
	place = kind == FP_OP_SET_IPV6 ? FP_OP_SET_IPV4 : kind;
	if ((sh->sets & 1u << place) || !(op = op_add(out, kind)))
		return false;
	sh->sets |= 1u << place;
	op->l3 = 14 + 4 * sh->in_bytes;
	switch (kind) {
	case FP_OP_SET_ETH:
		set_eth(val, masked, out);
		return true;
	case FP_OP_SET_IPV4:
		set_ipv4(val, masked, out);
		break;
	case FP_OP_SET_IPV6:
		set_ipv6(val, masked, out);
		break;
	default:
		op->flags = sh->eth_type == htons(ETH_P_IPV6);
		val_mask(val, masked, 4, out->set_l4.val, out->set_l4.mask);
	}
	out->flags |= FP_ACT_TAG_IN_SKB;
	return true;
}

bool
fastpath_actions_make(const struct flow_key *key, const struct flow_key *mask,
		      const void *acts, uint32_t len, fastpath_port_fn *port,
		      void *ctx, struct fp_actions *out)
{
	bool tag_known = mask->vlan.tci & htons(FLOW_VLAN_PRESENT);
	struct shape sh = {
		.tagged = key->vlan.tci & mask->vlan.tci &
			  htons(FLOW_VLAN_PRESENT),
		.eth_type = key->eth_type & mask->eth_type,
	};
	bool last_output = false;
	const struct nlattr *a;
	struct fp_op *op;
	int rem;

	/* All but the slot and the datapath: no ops, no sets, no drop. */
	memset(&out->n_ops, 0,
	       sizeof(*out) - offsetof(struct fp_actions, n_ops));
	attr_for_each(a, acts, len, rem) {
		struct ovs_action_push_vlan pv;

		last_output = false;
		switch (attr_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
			if (!(op = op_add(out, FP_OP_OUTPUT)) ||
			    !port(ctx, attr_get_u32(a), op))
				return false;
			/* What pushed tags add to the length it has. */
			if (op->mtu < 4 * sh.in_bytes)
				return false;
			op->mtu -= 4 * sh.in_bytes;
			last_output = true;
			break;
		case OVS_ACTION_ATTR_PUSH_VLAN:
			if (!tag_known || sh.in_bytes ||
			    !(op = op_add(out, FP_OP_PUSH_VLAN)))
				return false;
			memcpy(&pv, attr_data(a), sizeof(pv));
			op->tpid = ntohs(pv.vlan_tpid);
			op->tci = ntohs(pv.vlan_tci) & ~FLOW_VLAN_PRESENT;
			sh.in_bytes += sh.tagged;
			sh.tagged = true;
			out->flags |= FP_ACT_TAG_IN_SKB;
			break;
		case OVS_ACTION_ATTR_POP_VLAN:
			if (!tag_known)
				return false;
			/* Nothing to pop: nothing done. */
			if (!sh.tagged)
				break;
			if (!op_add(out, FP_OP_POP_VLAN))
				return false;
			if (sh.in_bytes)
				sh.in_bytes--;
			else
				sh.tagged = false;
			out->flags |= FP_ACT_TAG_IN_SKB;
			break;
		case OVS_ACTION_ATTR_SET:
		case OVS_ACTION_ATTR_SET_MASKED:
			if (!add_set(attr_data(a),
				     attr_type(a) == OVS_ACTION_ATTR_SET_MASKED,
				     &sh, out))
				return false;
			break;
		case TAPDP_ACTION_ATTR_DROP:
			out->drop = attr_get_u32(a)
					    ? FP_DROP_EXPLICIT_WITH_ERROR
					    : FP_DROP_EXPLICIT;
			return true;
		default:
			return false;
		}
	}
	if (!last_output)
		out->drop = FP_DROP_LAST_ACTION;
	return true;
}
