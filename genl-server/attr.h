/* SPDX-License-Identifier: Apache-2.0 */
/* Netlink attribute policies, validated the way the kernel's lib/nlattr.c
 * does in its liberal mode (the one every OVS family uses): unknown types are
 * skipped, the last duplicate wins, NLA_F_NESTED/NET_BYTEORDER bits are
 * ignored, fixed-size integers may be longer than their size, and each
 * violation returns the kernel's errno with its extended-ACK text.
 *
 * Pure functions over caller memory: thread-safe, no allocation. */
#ifndef TAPDP_NETLINK_ATTR_H
#define TAPDP_NETLINK_ATTR_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum attr_kind {
	ATTR_UNSPEC,		/* len: minimum length */
	ATTR_U8,
	ATTR_U16,
	ATTR_U32,
	ATTR_U64,
	ATTR_S32,
	ATTR_STRING,		/* len: maximum length, a trailing NUL aside */
	ATTR_NUL_STRING,	/* NUL-terminated; len: maximum length */
	ATTR_FLAG,
	ATTR_NESTED,
	ATTR_BINARY,		/* len: maximum length */
	ATTR_BE16,
	ATTR_BE32,
};

struct attr_policy {
	uint8_t kind;
	bool range;		/* check min <= value <= max */
	uint16_t len;
	int64_t min, max;
};

/* What the kernel reports in an extended ACK. */
struct extack {
	const char *msg;
	const struct nlattr *bad_attr;
};

static inline uint16_t attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline int attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

uint8_t attr_get_u8(const struct nlattr *a);
uint16_t attr_get_u16(const struct nlattr *a);
uint32_t attr_get_u32(const struct nlattr *a);
uint64_t attr_get_u64(const struct nlattr *a);

/* Iterates the well-formed attributes in [data, data+len). */
#define attr_for_each(a, data, len, rem)				\
	for ((a) = (const struct nlattr *)(data), (rem) = (int)(len);	\
	     (rem) >= (int)sizeof(struct nlattr) &&			\
	     (a)->nla_len >= sizeof(struct nlattr) &&			\
	     (a)->nla_len <= (rem);					\
	     (rem) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = (const struct nlattr *)((const char *)(a) +		\
					   NLA_ALIGN((a)->nla_len)))

/* Validates one attribute against policy[type]; 0 or a negative errno. */
int attr_validate(const struct nlattr *a, const struct attr_policy *policy,
		  int maxtype, struct extack *ack);

/* The kernel's strict parsing (NL_VALIDATE_MAXTYPE | NL_VALIDATE_TRAILING):
 * -EINVAL for an attribute of type 0 or past maxtype, or bytes after the
 * last attribute; else 0. */
int attr_check_known(const void *data, size_t len, int maxtype);

/* Parses attributes into tb[0..maxtype] (zeroed first); policy may be NULL.
 * Returns 0 or a negative errno. */
int attr_parse(const void *data, size_t len, const struct attr_policy *policy,
	       int maxtype, const struct nlattr **tb, struct extack *ack);

/* The attributes of message nlh after its family header of hdrlen bytes
 * (nfgenmsg, genlmsghdr...), padded as NLMSG_ALIGN; none when the message
 * ends before them (its length the caller checked). */
static inline int attr_parse_msg(const struct nlmsghdr *nlh, size_t hdrlen,
				 const struct attr_policy *policy,
				 int maxtype, const struct nlattr **tb,
				 struct extack *ack)
{
	size_t hdr = NLMSG_ALIGN(hdrlen);

	return attr_parse((const char *)NLMSG_DATA(nlh) + hdr,
			  nlh->nlmsg_len > NLMSG_LENGTH(hdr)
				  ? nlh->nlmsg_len - NLMSG_LENGTH(hdr)
				  : 0,
			  policy, maxtype, tb, ack);
}

static inline int attr_parse_nested(const struct nlattr *nest,
				    const struct attr_policy *policy,
				    int maxtype, const struct nlattr **tb,
				    struct extack *ack)
{
	return attr_parse(attr_data(nest), attr_len(nest), policy, maxtype,
			  tb, ack);
}

#endif
