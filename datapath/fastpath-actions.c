/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/fastpath-actions.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
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
	uint8_t ip_proto;
	uint8_t sets;			/* the kinds given, by 1 << kind */
};

static struct fp_op *
op_add(struct fp_actions *out, uint8_t kind)
{
	struct fp_op *op;

	if (out->n_ops == FP_OPS_MAX)
		return NULL;
	op = &out->op[out->n_ops++];
	memset(op, 0, sizeof(*op));
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

static bool
set_eth(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ethernet v, m;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	memcpy(out->set_eth.val, v.eth_dst, 6);
	memcpy(out->set_eth.val + 6, v.eth_src, 6);
	memcpy(out->set_eth.mask, m.eth_dst, 6);
	memcpy(out->set_eth.mask + 6, m.eth_src, 6);
	return true;
}

static bool
set_ipv4(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ipv4 v, m;
	struct fp_set_l3 *s = &out->set_l3;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	/* A set (not masked) gives these as the packet's. */
	if (masked && (m.ipv4_proto || m.ipv4_frag))
		return false;
	memcpy(s->val, &v.ipv4_src, 4);
	memcpy(s->val + 4, &v.ipv4_dst, 4);
	s->val[8] = v.ipv4_tos;
	s->val[9] = v.ipv4_ttl;
	memcpy(s->mask, &m.ipv4_src, 4);
	memcpy(s->mask + 4, &m.ipv4_dst, 4);
	s->mask[8] = m.ipv4_tos;
	s->mask[9] = m.ipv4_ttl;
	return true;
}

static bool
set_ipv6(const void *val, bool masked, struct fp_actions *out)
{
	struct ovs_key_ipv6 v, m;
	struct fp_set_l3 *s = &out->set_l3;

	val_mask(val, masked, sizeof(v), (uint8_t *)&v, (uint8_t *)&m);
	if (masked && (m.ipv6_proto || m.ipv6_frag))
		return false;
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
	return true;
}

static bool
set_ports(const void *val, bool masked, struct fp_actions *out)
{
	val_mask(val, masked, 4, out->set_l4.val, out->set_l4.mask);
	return true;
}

/* A set or set_masked action (nested key attribute k). */
static bool
add_set(const struct nlattr *k, bool masked, struct shape *sh,
	struct fp_actions *out)
{
	unsigned type = attr_type(k);
	uint32_t len = attr_len(k);
	const void *val = attr_data(k);
	struct fp_op op = { .l3 = 14 + 4 * sh->in_bytes };
	bool ipv6 = sh->eth_type == htons(ETH_P_IPV6), ok;
	unsigned place;

	/* Validation gave a value (and a mask) of the key's length. */
	switch (type) {
	case OVS_KEY_ATTR_ETHERNET:
		op.kind = FP_OP_SET_ETH;
		ok = len == (masked ? 2 : 1) * sizeof(struct ovs_key_ethernet) &&
		     set_eth(val, masked, out);
		break;
	case OVS_KEY_ATTR_IPV4:
		op.kind = FP_OP_SET_IPV4;
		ok = sh->eth_type == htons(ETH_P_IP) &&
		     len == (masked ? 2 : 1) * sizeof(struct ovs_key_ipv4) &&
		     set_ipv4(val, masked, out);
		break;
	case OVS_KEY_ATTR_IPV6:
		op.kind = FP_OP_SET_IPV6;
		ok = ipv6 &&
		     len == (masked ? 2 : 1) * sizeof(struct ovs_key_ipv6) &&
		     set_ipv6(val, masked, out);
		break;
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
		op.kind = FP_OP_SET_PORTS;
		op.flags = ipv6;
		ok = (ipv6 || sh->eth_type == htons(ETH_P_IP)) &&
		     sh->ip_proto == (type == OVS_KEY_ATTR_TCP ? IPPROTO_TCP
							       : IPPROTO_UDP) &&
		     len == (masked ? 2 : 1) * 4 && set_ports(val, masked, out);
		break;
	default:
		return false;
	}
	/* One of each kind: IPv4 and IPv6 share their values' place. */
	place = op.kind == FP_OP_SET_IPV6 ? FP_OP_SET_IPV4 : op.kind;

	if (!ok || (sh->sets & 1u << place))
		return false;
	sh->sets |= 1u << place;
	if (op.kind != FP_OP_SET_ETH)
		out->flags |= FP_ACT_TAG_IN_SKB;
	if (out->n_ops == FP_OPS_MAX)
		return false;
	out->op[out->n_ops++] = op;
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
		.ip_proto = key->ip_proto & mask->ip_proto,
	};
	bool last_output = false;
	const struct nlattr *a;
	struct fp_op *op;
	int rem;

	out->n_ops = 0;
	out->drop = FP_DROP_NONE;
	out->flags = 0;
	memset(out->op, 0, sizeof(out->op));
	memset(&out->set_eth, 0, sizeof(out->set_eth));
	memset(&out->set_l3, 0, sizeof(out->set_l3));
	memset(&out->set_l4, 0, sizeof(out->set_l4));
	attr_for_each(a, acts, len, rem) {
		struct ovs_action_push_vlan pv;

		last_output = false;
		switch (attr_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
			if (attr_len(a) != sizeof(uint32_t) ||
			    !(op = op_add(out, FP_OP_OUTPUT)) ||
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
			    attr_len(a) != sizeof(pv) ||
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
			if (attr_len(a) < (int)sizeof(struct nlattr) ||
			    !add_set(attr_data(a),
				     attr_type(a) == OVS_ACTION_ATTR_SET_MASKED,
				     &sh, out))
				return false;
			break;
		case TAPDP_ACTION_ATTR_DROP:
			out->drop = attr_len(a) >= (int)sizeof(uint32_t) &&
						    attr_get_u32(a)
					    ? FP_DROP_EXPLICIT_WITH_ERROR
					    : FP_DROP_EXPLICIT;
			return true;
		default:
			return false;
		}
	}
	if (rem)
		return false;
	if (!last_output)
		out->drop = FP_DROP_LAST_ACTION;
	return true;
}
