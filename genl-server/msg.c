/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/msg.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <string.h>

void
msgbuf_init(struct msgbuf *mb, void *mem, size_t cap)
{
	mb->buf = mem;
	mb->len = 0;
	mb->cap = cap;
	mb->cur = NULL;
	mb->overflow = false;
}

static size_t
room(const struct msgbuf *mb)
{
	return mb->cap - mb->len;
}

void *
msgbuf_start(struct msgbuf *mb, uint16_t type, uint16_t flags, uint32_t seq,
	     uint32_t portid, size_t hdrlen)
{
	struct nlmsghdr *nlh;
	void *extra;

	if (room(mb) < MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen))
		return NULL;
	nlh = mnl_nlmsg_put_header(mb->buf + mb->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = portid;
	extra = hdrlen ? mnl_nlmsg_put_extra_header(nlh, hdrlen)
		       : (char *)nlh + MNL_NLMSG_HDRLEN;
	mb->cur = nlh;
	mb->overflow = false;
	return extra;
}

int
msgbuf_end(struct msgbuf *mb)
{
	if (!mb->cur)
		return -EMSGSIZE;
	if (mb->overflow) {
		msgbuf_cancel(mb);
		return -EMSGSIZE;
	}
	mb->len += mb->cur->nlmsg_len;
	mb->cur = NULL;
	return 0;
}

void
msgbuf_cancel(struct msgbuf *mb)
{
	mb->cur = NULL;
	mb->overflow = false;
}

size_t
msgbuf_mark(const struct msgbuf *mb)
{
	return mb->cur ? mb->cur->nlmsg_len : 0;
}

void
msgbuf_rewind(struct msgbuf *mb, size_t mark)
{
	if (!mb->cur || mark > mb->cur->nlmsg_len)
		return;
	mb->cur->nlmsg_len = mark;
	mb->overflow = false;
}

void
msgbuf_put(struct msgbuf *mb, uint16_t type, size_t len, const void *data)
{
	char *tail;

	if (mb->overflow || !mb->cur)
		return;
	tail = mnl_nlmsg_get_payload_tail(mb->cur);
	if (!mnl_attr_put_check(mb->cur, room(mb), type, len, data)) {
		mb->overflow = true;
		return;
	}
	/* libmnl 1.0.4 leaves the padding as the buffer had it: no byte of
	 * the daemon's memory goes out. */
	memset(tail + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
}

void
msgbuf_put_raw(struct msgbuf *mb, const void *data, size_t len)
{
	size_t used;

	if (mb->overflow || !mb->cur)
		return;
	used = (char *)mb->cur - mb->buf + mb->cur->nlmsg_len;
	if (used + MNL_ALIGN(len) > mb->cap) {
		mb->overflow = true;
		return;
	}
	memcpy(mb->buf + used, data, len);
	memset(mb->buf + used + len, 0, MNL_ALIGN(len) - len);
	mb->cur->nlmsg_len += MNL_ALIGN(len);
}

void
msgbuf_put_u8(struct msgbuf *mb, uint16_t type, uint8_t v)
{
	msgbuf_put(mb, type, sizeof(v), &v);
}

void
msgbuf_put_u16(struct msgbuf *mb, uint16_t type, uint16_t v)
{
	msgbuf_put(mb, type, sizeof(v), &v);
}

void
msgbuf_put_u32(struct msgbuf *mb, uint16_t type, uint32_t v)
{
	msgbuf_put(mb, type, sizeof(v), &v);
}

void
msgbuf_put_u64(struct msgbuf *mb, uint16_t type, uint64_t v)
{
	msgbuf_put(mb, type, sizeof(v), &v);
}

void
msgbuf_put_string(struct msgbuf *mb, uint16_t type, const char *s)
{
	msgbuf_put(mb, type, strlen(s) + 1, s);
}

/* Nests carry no NLA_F_NESTED bit, as the OVS families' own replies. */
struct nlattr *
msgbuf_nest_start(struct msgbuf *mb, uint16_t type)
{
	static const char none;
	struct nlattr *nest;

	if (mb->overflow || !mb->cur)
		return NULL;
	nest = mnl_nlmsg_get_payload_tail(mb->cur);
	msgbuf_put(mb, type, 0, &none);
	return mb->overflow ? NULL : nest;
}

void
msgbuf_nest_end(struct msgbuf *mb, struct nlattr *nest)
{
	if (nest && !mb->overflow)
		nest->nla_len = (char *)mnl_nlmsg_get_payload_tail(mb->cur) -
				(char *)nest;
}
