/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/genl-client.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Room for any message of an answer: tapdpd's dump parts and replies are
 * at most 64 KiB. */
#define GCLIENT_BUF	(64 << 10)

int
gclient_open(struct gclient *c)
{
	c->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!c->nl)
		return -errno;
	if (mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(c->nl);
		c->nl = NULL;
		return err;
	}
	c->portid = mnl_socket_get_portid(c->nl);
	c->seq = time(NULL);
	return 0;
}

void
gclient_close(struct gclient *c)
{
	if (c->nl)
		mnl_socket_close(c->nl);
	c->nl = NULL;
}

/* The error an ACK, an error or a DONE message carries (0: the answer
 * ended well). */
static int
final_error(const struct nlmsghdr *h)
{
	const int *e = mnl_nlmsg_get_payload(h);

	if (h->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return h->nlmsg_type == NLMSG_DONE ? 0 : -EBADMSG;
	return *e;
}

/* Reads the answer to seq, up to its ACK, error or DONE: 0, -errno, or
 * the first negative value cb returned. */
static int
run_answer(struct gclient *c, uint32_t seq, mnl_cb_t cb, void *data)
{
	char *buf = malloc(GCLIENT_BUF);
	bool done = false;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!done) {
		ssize_t got = mnl_socket_recvfrom(c->nl, buf, GCLIENT_BUF);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int n = got;

		if (got < 0) {
			err = -errno;
			break;
		}
		for (; !done && mnl_nlmsg_ok(h, n);
		     h = mnl_nlmsg_next(h, &n)) {
			int r;

			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE) {
				err = final_error(h);
				done = true;
			} else if (cb && (r = cb(h, data)) < 0) {
				err = r;
				done = true;
			}
		}
	}
	free(buf);
	return err;
}

/* A request's headers in buf: netlink (an ACK asked for unless it is a
 * dump, which ends with DONE) and genl. */
static struct nlmsghdr *
request_start(struct gclient *c, void *buf, uint16_t family, uint8_t cmd,
	      uint8_t version, uint16_t flags)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	h->nlmsg_type = family;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	if ((flags & NLM_F_DUMP) != NLM_F_DUMP)
		h->nlmsg_flags |= NLM_F_ACK;
	h->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(h, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return h;
}

static int
request_run(struct gclient *c, const struct nlmsghdr *h, mnl_cb_t cb,
	    void *data)
{
	if (mnl_socket_sendto(c->nl, h, h->nlmsg_len) < 0)
		return -errno;
	return run_answer(c, h->nlmsg_seq, cb, data);
}

int
gclient_request(struct gclient *c, uint16_t family, uint8_t cmd,
		uint8_t version, uint16_t flags, const void *hdr,
		size_t hdrlen, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *h = request_start(c, buf, family, cmd, version,
					   flags);

	if (hdrlen)
		memcpy(mnl_nlmsg_put_extra_header(h, hdrlen), hdr, hdrlen);
	return request_run(c, h, cb, data);
}

struct family_query {
	const char *group;
	uint16_t id;
	uint32_t group_id;
};

static int
family_group(const struct nlattr *groups, struct family_query *q)
{
	const struct nlattr *grp, *a;

	mnl_attr_for_each_nested(grp, groups) {
		const char *name = NULL;
		uint32_t id = 0;

		mnl_attr_for_each_nested(a, grp) {
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = mnl_attr_get_str(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
				 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				id = mnl_attr_get_u32(a);
		}
		if (name && id && !strcmp(name, q->group))
			q->group_id = id;
	}
	return MNL_CB_OK;
}

static int
family_cb(const struct nlmsghdr *h, void *data)
{
	struct family_query *q = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, h, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			q->id = mnl_attr_get_u16(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS &&
			 q->group)
			family_group(a, q);
	}
	return MNL_CB_OK;
}

int
gclient_family(struct gclient *c, const char *name, uint16_t *id,
	       const char *group, uint32_t *group_id)
{
	char buf[256];
	struct family_query q = { .group = group };
	struct nlmsghdr *h = request_start(c, buf, GENL_ID_CTRL,
					   CTRL_CMD_GETFAMILY, 1, 0);
	int err;

	mnl_attr_put_strz(h, CTRL_ATTR_FAMILY_NAME, name);
	err = request_run(c, h, family_cb, &q);
	if (err)
		return err;
	if (!q.id || (group && !q.group_id))
		return -ENOENT;
	*id = q.id;
	if (group)
		*group_id = q.group_id;
	return 0;
}

int
gclient_join(struct gclient *c, uint32_t group)
{
	int g = group;

	if (mnl_socket_setsockopt(c->nl, NETLINK_ADD_MEMBERSHIP, &g,
				  sizeof(g)) < 0)
		return -errno;
	return 0;
}

int
gclient_listen(struct gclient *c, int timeout_ms, mnl_cb_t cb, void *data)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(c->nl),
			      .events = POLLIN };
	char *buf;
	int n, r;

	r = poll(&pfd, 1, timeout_ms);
	if (r <= 0)
		return r < 0 ? -errno : 0;
	buf = malloc(GCLIENT_BUF);
	if (!buf)
		return -ENOMEM;
	n = mnl_socket_recvfrom(c->nl, buf, GCLIENT_BUF);
	r = n < 0 ? -errno : 1;
	for (const struct nlmsghdr *h = (const void *)buf;
	     r > 0 && mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
		int e = cb(h, data);

		if (e < 0)
			r = e;
	}
	free(buf);
	return r;
}

void
gclient_attrs(const void *first, size_t len, const struct nlattr **tb,
	      unsigned maxattr)
{
	const struct nlattr *a = first;
	int n = len;

	memset(tb, 0, sizeof(*tb) * (maxattr + 1));
	for (; mnl_attr_ok(a, n); a = mnl_attr_next(a)) {
		if (mnl_attr_get_type(a) <= maxattr)
			tb[mnl_attr_get_type(a)] = a;
		n -= MNL_ALIGN(a->nla_len);
	}
}

uint64_t
gclient_uint(const struct nlattr *a)
{
	if (!a)
		return 0;
	switch (mnl_attr_get_payload_len(a)) {
	case 8:
		return mnl_attr_get_u64(a);
	case 4:
		return mnl_attr_get_u32(a);
	default:
		return 0;
	}
}

const char *
gclient_str(const struct nlattr *a, const char *dflt)
{
	return a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0
		       ? mnl_attr_get_str(a) : dflt;
}
