/* SPDX-License-Identifier: Apache-2.0 */
/* Building netlink messages into a bounded buffer that may hold several
 * messages (one datagram), over libmnl.
 *
 * A message is opened with msgbuf_start(), filled with msgbuf_put*() and
 * closed with msgbuf_end(). A put that does not fit marks the message as
 * overflowed; msgbuf_end() then removes the whole message and returns
 * -EMSGSIZE, which is how a dump knows its part is full.
 *
 * Not thread-safe: one msgbuf per thread. */
#ifndef TAPDP_NETLINK_MSG_H
#define TAPDP_NETLINK_MSG_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct msgbuf {
	char *buf;
	size_t len;		/* bytes of complete messages */
	size_t cap;
	struct nlmsghdr *cur;	/* message being built, or NULL */
	bool overflow;
};

void msgbuf_init(struct msgbuf *mb, void *mem, size_t cap);

/* Opens a message with 'hdrlen' zeroed bytes of family header after the
 * netlink header; returns a pointer to them (or the nlmsghdr's end when
 * hdrlen is 0), NULL if even that does not fit. */
void *msgbuf_start(struct msgbuf *mb, uint16_t type, uint16_t flags,
		   uint32_t seq, uint32_t portid, size_t hdrlen);
int msgbuf_end(struct msgbuf *mb);
void msgbuf_cancel(struct msgbuf *mb);
/* The open message's length, to rewind() to: what was put after the mark
 * goes, and an overflow with it (the nests opened since must not be
 * ended). */
size_t msgbuf_mark(const struct msgbuf *mb);
void msgbuf_rewind(struct msgbuf *mb, size_t mark);

/* The walk over the messages of a datagram someone else filled: the bytes
 * from off to the next message (the one at off aligned, at most what is
 * left), or 0 when no whole message starts at off. Its length is checked
 * against what is left before it is aligned, so that none wraps
 * (NLMSG_ALIGN(0xffffffff) is 0 in 32 bits). */
static inline size_t
nlmsg_span(const void *buf, size_t len, size_t off)
{
	const struct nlmsghdr *nlh = (const void *)((const char *)buf + off);
	size_t step;

	if (off > len || len - off < NLMSG_HDRLEN ||
	    nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len - off)
		return 0;
	step = NLMSG_ALIGN((size_t)nlh->nlmsg_len);
	return step < len - off ? step : len - off;
}

void msgbuf_put(struct msgbuf *mb, uint16_t type, size_t len,
		const void *data);
/* Appends bytes that already are attributes (a nest's contents). */
void msgbuf_put_raw(struct msgbuf *mb, const void *data, size_t len);
void msgbuf_put_u8(struct msgbuf *mb, uint16_t type, uint8_t v);
void msgbuf_put_u16(struct msgbuf *mb, uint16_t type, uint16_t v);
void msgbuf_put_u32(struct msgbuf *mb, uint16_t type, uint32_t v);
void msgbuf_put_u64(struct msgbuf *mb, uint16_t type, uint64_t v);
void msgbuf_put_string(struct msgbuf *mb, uint16_t type, const char *s);
struct nlattr *msgbuf_nest_start(struct msgbuf *mb, uint16_t type);
void msgbuf_nest_end(struct msgbuf *mb, struct nlattr *nest);

#endif
