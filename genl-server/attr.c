/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/attr.h"

#include <errno.h>
#include <string.h>

/* Sizes the kernel checks exactly in strict mode and as a minimum here. */
static const uint8_t fixed_len[] = {
	[ATTR_U8] = 1, [ATTR_U16] = 2, [ATTR_U32] = 4, [ATTR_U64] = 8,
	[ATTR_S32] = 4, [ATTR_BE16] = 2, [ATTR_BE32] = 4,
};

uint8_t
attr_get_u8(const struct nlattr *a)
{
	return *(const uint8_t *)attr_data(a);
}

uint16_t
attr_get_u16(const struct nlattr *a)
{
	uint16_t v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

uint32_t
attr_get_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

uint64_t
attr_get_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

static int64_t
attr_int_value(const struct nlattr *a, uint8_t kind)
{
	switch (kind) {
	case ATTR_U8:
		return attr_get_u8(a);
	case ATTR_U16:
		return attr_get_u16(a);
	case ATTR_U32:
		return attr_get_u32(a);
	case ATTR_S32:
		return (int32_t)attr_get_u32(a);
	default:
		return (int64_t)attr_get_u64(a);
	}
}

static int
policy_error(struct extack *ack, const struct nlattr *a, const char *msg,
	     int err)
{
	if (ack) {
		ack->msg = msg;
		ack->bad_attr = a;
	}
	return err;
}

int
attr_validate(const struct nlattr *a, const struct attr_policy *policy,
	      int maxtype, struct extack *ack)
{
	const char *fail = "Attribute failed policy validation";
	int type = attr_type(a), len = attr_len(a), minlen;
	const struct attr_policy *pt;
	const char *s;

	if (type <= 0 || type > maxtype)
		return 0;
	pt = &policy[type];
	switch (pt->kind) {
	case ATTR_FLAG:
		if (len > 0)
			return policy_error(ack, a, fail, -ERANGE);
		break;
	case ATTR_NUL_STRING:
		minlen = pt->len ? (len < pt->len + 1 ? len : pt->len + 1)
				 : len;
		if (!minlen || !memchr(attr_data(a), '\0', minlen))
			return policy_error(ack, a, fail, -EINVAL);
		/* fall through */
	case ATTR_STRING:
		if (len < 1)
			return policy_error(ack, a, fail, -ERANGE);
		s = attr_data(a);
		if (pt->len) {
			int l = s[len - 1] == '\0' ? len - 1 : len;

			if (l > pt->len)
				return policy_error(ack, a, fail, -ERANGE);
		}
		break;
	case ATTR_BINARY:
		if (pt->len && len > pt->len)
			return policy_error(ack, a, fail, -ERANGE);
		break;
	case ATTR_NESTED:
		if (len != 0 && len < NLA_HDRLEN)
			return policy_error(ack, a, fail, -ERANGE);
		break;
	case ATTR_UNSPEC:
		if (len < pt->len)
			return policy_error(ack, a, fail, -ERANGE);
		break;
	default:
		minlen = pt->len ? pt->len : fixed_len[pt->kind];
		if (len < minlen)
			return policy_error(ack, a, fail, -ERANGE);
	}
	if (pt->range && pt->kind < sizeof(fixed_len) && fixed_len[pt->kind]) {
		int64_t v = attr_int_value(a, pt->kind);

		if (v < pt->min || v > pt->max)
			return policy_error(ack, a, "integer out of range",
					    -ERANGE);
	}
	return 0;
}

int
attr_check_known(const void *data, size_t len, int maxtype)
{
	const struct nlattr *a;
	int rem;

	attr_for_each(a, data, len, rem)
		if (attr_type(a) == 0 || attr_type(a) > maxtype)
			return -EINVAL;
	return rem ? -EINVAL : 0;
}

int
attr_parse(const void *data, size_t len, const struct attr_policy *policy,
	   int maxtype, const struct nlattr **tb, struct extack *ack)
{
	const struct nlattr *a;
	int rem;

	memset(tb, 0, sizeof(*tb) * (maxtype + 1));
	attr_for_each(a, data, len, rem) {
		int type = attr_type(a);

		if (type == 0 || type > maxtype)
			continue;
		if (policy) {
			int err = attr_validate(a, policy, maxtype, ack);

			if (err)
				return err;
		}
		tb[type] = a;
	}
	/* Trailing bytes are only warned about by the kernel in this mode. */
	return 0;
}
