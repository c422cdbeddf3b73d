/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/policy-dump.h"

#include <errno.h>
#include <linux/netlink.h>

int
policy_set_add(struct policy_set *set, const struct attr_policy *policy,
	       unsigned maxtype)
{
	if (!policy || !maxtype || policy_set_index(set, policy, maxtype) >= 0)
		return 0;
	if (set->n == POLICY_SET_MAX)
		return -ENOMEM;
	set->p[set->n].policy = policy;
	set->p[set->n].maxtype = maxtype;
	set->n++;
	return 0;
}

int
policy_set_index(const struct policy_set *set,
		 const struct attr_policy *policy, unsigned maxtype)
{
	for (unsigned i = 0; i < set->n; i++)
		if (set->p[i].policy == policy && set->p[i].maxtype == maxtype)
			return i;
	return -1;
}

/* The bounds an unsigned kind takes without a range of its own. */
static uint64_t
unsigned_max(uint8_t kind)
{
	switch (kind) {
	case ATTR_U8:
		return UINT8_MAX;
	case ATTR_U16:
		return UINT16_MAX;
	case ATTR_U32:
		return UINT32_MAX;
	default:
		return UINT64_MAX;
	}
}

static uint32_t
nl_type_of(uint8_t kind)
{
	switch (kind) {
	case ATTR_U8:
		return NL_ATTR_TYPE_U8;
	case ATTR_U16:
		return NL_ATTR_TYPE_U16;
	case ATTR_U32:
		return NL_ATTR_TYPE_U32;
	case ATTR_U64:
		return NL_ATTR_TYPE_U64;
	case ATTR_S32:
		return NL_ATTR_TYPE_S32;
	case ATTR_STRING:
		return NL_ATTR_TYPE_STRING;
	case ATTR_NUL_STRING:
		return NL_ATTR_TYPE_NUL_STRING;
	case ATTR_BINARY:
		return NL_ATTR_TYPE_BINARY;
	case ATTR_FLAG:
		return NL_ATTR_TYPE_FLAG;
	case ATTR_NESTED:
		return NL_ATTR_TYPE_NESTED;
	default:
		return NL_ATTR_TYPE_INVALID;
	}
}

bool
policy_attr_put(struct msgbuf *mb, const struct attr_policy *pt,
		uint16_t nesttype)
{
	uint32_t type = nl_type_of(pt->kind);
	struct nlattr *nest;

	if (type == NL_ATTR_TYPE_INVALID)
		return false;
	nest = msgbuf_nest_start(mb, nesttype);
	switch (pt->kind) {
	case ATTR_U8:
	case ATTR_U16:
	case ATTR_U32:
	case ATTR_U64:
		msgbuf_put_u64(mb, NL_POLICY_TYPE_ATTR_MIN_VALUE_U,
			       pt->range ? (uint64_t)pt->min : 0);
		msgbuf_put_u64(mb, NL_POLICY_TYPE_ATTR_MAX_VALUE_U,
			       pt->range ? (uint64_t)pt->max
					 : unsigned_max(pt->kind));
		break;
	case ATTR_S32:
		msgbuf_put_u64(mb, NL_POLICY_TYPE_ATTR_MIN_VALUE_S,
			       (uint64_t)(pt->range ? pt->min : INT32_MIN));
		msgbuf_put_u64(mb, NL_POLICY_TYPE_ATTR_MAX_VALUE_S,
			       (uint64_t)(pt->range ? pt->max : INT32_MAX));
		break;
	case ATTR_STRING:
	case ATTR_NUL_STRING:
	case ATTR_BINARY:
		if (pt->len)
			msgbuf_put_u32(mb, NL_POLICY_TYPE_ATTR_MAX_LENGTH,
				       pt->len);
		break;
	default:
		break;
	}
	msgbuf_put_u32(mb, NL_POLICY_TYPE_ATTR_TYPE, type);
	msgbuf_nest_end(mb, nest);
	return true;
}
