/* SPDX-License-Identifier: Apache-2.0 */
/* NETLINK_ROUTE sockets: the kernel's, except for the daemon's tunnel
 * devices.
 *
 * The application keeps its real socket, so the kernel's answers,
 * notifications and poll wake-ups are untouched. Each link request
 * (RTM_NEWLINK, RTM_SETLINK, RTM_DELLINK, a non-dump RTM_GETLINK) is first
 * offered to the daemon through a private emulated NETLINK_ROUTE socket;
 * what the daemon declines goes to the kernel as sent. What it answers must reach
 * the application in order with the kernel's messages, and wake its poll:
 * for each datagram of the answer the shim sends the kernel, on the
 * application's socket, an NLMSG_NOOP asking for an ACK (a placeholder,
 * marked by its portid and a token as sequence number), and queues the
 * answer. The kernel queues the placeholder's ACK at once; when the
 * application reads it, it gets the answer instead.
 *
 * The kernel's link messages (dumps, answers, notifications) know the
 * daemon's devices as TAPs and nothing of its datapaths: each datagram
 * the application reads that holds one, of its own namespace (no
 * NETLINK_LISTEN_ALL_NSID id on it), is shown to the daemon, which gives
 * it back as openvswitch.ko would have it (a port's master, a tunnel
 * device's kind), or says it is unchanged. A peek and the read after it
 * ask once. The datagram may grow: an application whose buffer is then
 * too small gets MSG_TRUNC, as it would from the kernel. */
#define _GNU_SOURCE
#include "compat/route.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat/autoload.h"
#include "compat/dgram.h"
#include "compat/real.h"
#include "include/tapdp/proto.h"

/* The placeholder's nlmsg_pid: not a portid the kernel gives out (those
 * are the tgid or negative numbers), so no application request has it. */
#define PLACEHOLDER_PID	0x7a9d7a9dU

struct pending {
	struct pending *next;
	uint32_t token;
	size_t len;
	char data[];
};

struct route {
	pthread_mutex_t lock;
	int companion;			/* emulated socket, -1 until needed */
	int cap_ack, ext_ack;		/* as the companion was told */
	struct pending *head, **tail;
	/* The last datagram shown to the daemon, and what it gave back
	 * (view_len 0: unchanged), for the read after a peek. */
	char *seen, *view;
	size_t seen_len, view_len;
	_Atomic unsigned n_pending;	/* read without the lock */
	uint32_t next_token;
	_Atomic int refs;		/* fds naming the socket (dup) */
};

static _Atomic(struct route *) routes[MAX_FDS];

static int (*daemon_open)(int type, int protocol);
static int (*daemon_offer)(int fd, const void *msg, size_t len);
static int (*daemon_view)(int fd, const void *dgram, size_t len);

void
route_set_daemon(int (*open)(int type, int protocol),
		 int (*offer)(int fd, const void *msg, size_t len),
		 int (*view)(int fd, const void *dgram, size_t len))
{
	daemon_open = open;
	daemon_offer = offer;
	daemon_view = view;
}

static void route_free(struct route *r);

/* Drops one fd's hold on r (NULL: none). */
static void
route_put(struct route *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1)
		route_free(r);
}

static struct route *
route_get(int fd)
{
	if (fd < 0 || fd >= MAX_FDS)
		return NULL;
	return atomic_load_explicit(&routes[fd], memory_order_acquire);
}

bool
route_tracked(int fd)
{
	return route_get(fd) != NULL;
}

void
route_track(int fd)
{
	struct route *r;

	if (fd < 0 || fd >= MAX_FDS || !(r = calloc(1, sizeof(*r))))
		return;
	pthread_mutex_init(&r->lock, NULL);
	r->companion = -1;
	r->cap_ack = r->ext_ack = -1;
	r->tail = &r->head;
	r->refs = 1;
	route_put(atomic_exchange(&routes[fd], r));
}

static void
route_free(struct route *r)
{
	while (r->head) {
		struct pending *p = r->head;

		r->head = p->next;
		free(p);
	}
	if (r->companion >= 0)
		close(r->companion);
	free(r->seen);
	free(r->view);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void
route_forget(int fd)
{
	if (fd < 0 || fd >= MAX_FDS)
		return;
	route_put(atomic_exchange(&routes[fd], NULL));
}

void
route_share(int fd, int newfd)
{
	struct route *r = route_get(fd);

	if (!r || newfd < 0 || newfd >= MAX_FDS)
		return;
	atomic_fetch_add(&r->refs, 1);
	route_put(atomic_exchange(&routes[newfd], r));
}

/* The requests the daemon may answer: those naming one link, and link
 * dumps (filtered by a datapath as master). */
static bool
offerable(const struct nlmsghdr *nlh)
{
	if (!(nlh->nlmsg_flags & NLM_F_REQUEST))
		return false;
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_SETLINK:
	case RTM_DELLINK:
	case RTM_GETLINK:
		return true;
	default:
		return false;
	}
}

/* The companion, opened on first use and told the socket's ACK options
 * (its errors and ACKs are built as the socket asks). -1: no daemon. */
static int
companion(int fd, struct route *r)
{
	int v;
	socklen_t len = sizeof(v);

	if (r->companion < 0)
		r->companion = daemon_open(SOCK_RAW | SOCK_CLOEXEC,
					     NETLINK_ROUTE);
	if (r->companion < 0)
		return -1;
	if (real_getsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &v, &len) == 0 &&
	    v != r->cap_ack &&
	    setsockopt(r->companion, SOL_NETLINK, NETLINK_CAP_ACK, &v,
		       sizeof(v)) == 0)
		r->cap_ack = v;
	len = sizeof(v);
	if (real_getsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, &len) == 0 &&
	    v != r->ext_ack &&
	    setsockopt(r->companion, SOL_NETLINK, NETLINK_EXT_ACK, &v,
		       sizeof(v)) == 0)
		r->ext_ack = v;
	return r->companion;
}

static int
send_bytes(int fd, const struct msghdr *orig, const void *data, size_t len,
	   int flags)
{
	struct iovec iov = { (void *)data, len };
	struct msghdr mh = { .msg_name = orig->msg_name,
			     .msg_namelen = orig->msg_namelen,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	return real_sendmsg(fd, &mh, flags) < 0 ? -errno : 0;
}

/* Queues each datagram the daemon answered with, behind a placeholder. */
static int
take_answer(int fd, struct route *r, int flags)
{
	static __thread char buf[64 << 10];
	ssize_t n;

	while ((n = recv(r->companion, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct pending *p = malloc(sizeof(*p) + n);
		struct nlmsghdr noop = {
			.nlmsg_len = NLMSG_HDRLEN,
			.nlmsg_type = NLMSG_NOOP,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
			.nlmsg_pid = PLACEHOLDER_PID,
		};
		struct msghdr to_kernel = { 0 };
		int err;

		if (!p)
			return -ENOBUFS;
		p->next = NULL;
		p->token = noop.nlmsg_seq = r->next_token++;
		p->len = n;
		memcpy(p->data, buf, n);
		err = send_bytes(fd, &to_kernel, &noop, sizeof(noop), flags);
		if (err) {
			free(p);
			return err;
		}
		*r->tail = p;
		r->tail = &p->next;
		atomic_fetch_add(&r->n_pending, 1);
	}
	return 0;
}

ssize_t
route_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct route *r = route_get(fd);
	size_t total = 0, off = 0, run = 0;
	bool to_kernel = true;
	char *buf;
	int err = 0;

	if (msg->msg_name && msg->msg_namelen >= sizeof(struct sockaddr_nl))
		to_kernel = ((struct sockaddr_nl *)msg->msg_name)->nl_pid == 0;
	if (!r || !to_kernel || msg->msg_controllen)
		return real_sendmsg(fd, msg, flags);
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		total += msg->msg_iov[i].iov_len;
	buf = malloc(total ? total : 1);
	if (!buf)
		return real_sendmsg(fd, msg, flags);
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		memcpy(buf + off, msg->msg_iov[i].iov_base,
		       msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	/* Runs of messages the daemon declines go to the kernel together;
	 * each one it answers takes its place in the order. */
	pthread_mutex_lock(&r->lock);
	for (off = 0; !err && off < total;) {
		const struct nlmsghdr *nlh = (const void *)(buf + off);
		size_t span = msg_span(buf + off, total - off);
		int cfd = -1;

		if (total - off >= NLMSG_HDRLEN && span >= nlh->nlmsg_len &&
		    offerable(nlh)) {
			cfd = companion(fd, r);
			/* No daemon yet: a kind it serves may load it. */
			if (cfd < 0 && autoload_for(nlh))
				cfd = companion(fd, r);
		}
		if (cfd < 0 || daemon_offer(cfd, nlh, nlh->nlmsg_len) <= 0) {
			off += span;
			continue;
		}
		if (off > run)
			err = send_bytes(fd, msg, buf + run, off - run, flags);
		if (!err)
			err = take_answer(fd, r, flags);
		off += span;
		run = off;
	}
	if (!err && (run < total || !total))
		err = send_bytes(fd, msg, buf + run, total - run, flags);
	pthread_mutex_unlock(&r->lock);
	free(buf);
	if (err) {
		errno = -err;
		return -1;
	}
	return total;
}

/* Whether the datagram at the head of the socket (n bytes of it peeked)
 * is the placeholder for token. */
static bool
is_placeholder(const char *b, ssize_t n, uint32_t token)
{
	const struct nlmsghdr *nlh = (const void *)b;
	const struct nlmsgerr *e = NLMSG_DATA(nlh);

	return n >= (ssize_t)NLMSG_SPACE(sizeof(*e)) &&
	       nlh->nlmsg_type == NLMSG_ERROR && e->error == 0 &&
	       e->msg.nlmsg_type == NLMSG_NOOP &&
	       e->msg.nlmsg_pid == PLACEHOLDER_PID &&
	       e->msg.nlmsg_seq == token;
}

/* The answer p in place of its placeholder, as recvmsg would give a
 * datagram from the kernel. */
static ssize_t
deliver(int fd, struct pending *p, struct msghdr *msg, int flags)
{
	struct sockaddr_nl self = { .nl_family = AF_NETLINK };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(self);
	size_t off;

	/* Addressed to the socket, as the kernel's answers are. */
	if (real_getsockname(fd, (struct sockaddr *)&self, &alen) == 0)
		for (size_t m = 0; m + NLMSG_HDRLEN <= p->len;) {
			struct nlmsghdr *nlh = (void *)(p->data + m);

			nlh->nlmsg_pid = self.nl_pid;
			m += msg_span(p->data + m, p->len - m);
		}
	off = iov_scatter(msg->msg_iov, msg->msg_iovlen, 0, p->data, p->len);
	msg->msg_flags = off < p->len ? MSG_TRUNC : 0;
	msg->msg_controllen = 0;
	if (msg->msg_name) {
		alen = msg->msg_namelen < sizeof(kernel) ? msg->msg_namelen
							 : sizeof(kernel);
		memcpy(msg->msg_name, &kernel, alen);
		msg->msg_namelen = sizeof(kernel);
	}
	return flags & MSG_TRUNC ? (ssize_t)p->len : (ssize_t)off;
}

/* Whether the datagram holds a link message of the socket's own
 * namespace: none of another has its id attached (msg's control). */
static bool
holds_link(const char *b, size_t n, const struct msghdr *msg)
{
	const struct cmsghdr *c;

	if (msg->msg_control && !(msg->msg_flags & MSG_CTRUNC))
		for (c = CMSG_FIRSTHDR(msg); c;
		     c = CMSG_NXTHDR((struct msghdr *)msg, (struct cmsghdr *)c))
			if (c->cmsg_level == SOL_NETLINK &&
			    c->cmsg_type == NETLINK_LISTEN_ALL_NSID)
				return false;
	for (size_t off = 0; off + NLMSG_HDRLEN <= n;
	     off += msg_span(b + off, n - off)) {
		const struct nlmsghdr *nlh = (const void *)(b + off);

		if (nlh->nlmsg_type == RTM_NEWLINK ||
		    nlh->nlmsg_type == RTM_DELLINK)
			return true;
	}
	return false;
}

static void
view_forget(struct route *r)
{
	free(r->seen);
	free(r->view);
	r->seen = r->view = NULL;
	r->seen_len = r->view_len = 0;
}

/* The daemon's view of the datagram b, n bytes, into r->view: 0, with
 * view_len 0 when it is unchanged; -1 when the daemon gives none. */
static int
view_ask(int fd, struct route *r, const char *b, size_t n)
{
	/* On the heap: a preloaded library's thread-locals are in every
	 * thread of every process under the shim. */
	static __thread char *got;
	int cfd, changed;
	ssize_t len;

	if (r->seen && r->seen_len == n && !memcmp(r->seen, b, n))
		return 0;
	view_forget(r);
	cfd = companion(fd, r);
	if (cfd < 0 || (!got && !(got = malloc(TAPDP_VIEW_MAX))) ||
	    (changed = daemon_view(cfd, b, n)) < 0)
		return -1;
	if (changed) {
		len = recv(cfd, got, TAPDP_VIEW_MAX, MSG_DONTWAIT);
		if (len <= 0 || !(r->view = malloc(len)))
			return -1;
		memcpy(r->view, got, len);
		r->view_len = len;
	}
	if (!(r->seen = malloc(n))) {
		view_forget(r);
		return -1;
	}
	memcpy(r->seen, b, n);
	r->seen_len = n;
	return 0;
}

/* A read from the kernel, its datagram's link messages as the daemon
 * shows them. */
static ssize_t
view_recvmsg(int fd, struct route *r, struct msghdr *msg, int flags)
{
	static __thread char *buf;
	static __thread size_t cap;
	struct iovec iov;
	struct msghdr m = *msg;
	size_t want = 64 << 10, out;
	ssize_t n;

	for (size_t i = 0; i < msg->msg_iovlen; i++)
		want += msg->msg_iov[i].iov_len;
	if (want > cap) {
		char *b = realloc(buf, want);

		if (!b)
			return real_recvmsg(fd, msg, flags);
		buf = b;
		cap = want;
	}
	iov = (struct iovec){ buf, cap };
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	/* Its whole length, even past cap (then too long to view). */
	n = real_recvmsg(fd, &m, flags | MSG_TRUNC);
	if (n < 0)
		return n;
	msg->msg_namelen = m.msg_namelen;
	msg->msg_controllen = m.msg_controllen;
	msg->msg_flags = m.msg_flags;
	pthread_mutex_lock(&r->lock);
	if ((size_t)n <= cap && holds_link(buf, n, &m) &&
	    view_ask(fd, r, buf, n) == 0 && r->view_len) {
		out = iov_scatter(msg->msg_iov, msg->msg_iovlen, 0, r->view,
				  r->view_len);
		n = r->view_len;
	} else {
		out = iov_scatter(msg->msg_iov, msg->msg_iovlen, 0, buf,
				  (size_t)n < cap ? (size_t)n : cap);
	}
	if (!(flags & MSG_PEEK))
		view_forget(r);
	pthread_mutex_unlock(&r->lock);
	if (out < (size_t)n)
		msg->msg_flags |= MSG_TRUNC;
	else
		msg->msg_flags &= ~MSG_TRUNC;
	return flags & MSG_TRUNC ? n : (ssize_t)out;
}

ssize_t
route_recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct route *r = route_get(fd);
	char head[NLMSG_SPACE(sizeof(struct nlmsgerr))];
	struct iovec iov = { head, sizeof(head) };
	struct msghdr peek = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pending *p;
	ssize_t n;

	if (!r)
		return real_recvmsg(fd, msg, flags);
	if (!atomic_load(&r->n_pending))
		return view_recvmsg(fd, r, msg, flags);
	pthread_mutex_lock(&r->lock);
	p = r->head;
	if (!p) {
		pthread_mutex_unlock(&r->lock);
		return view_recvmsg(fd, r, msg, flags);
	}
	n = real_recvmsg(fd, &peek, MSG_PEEK | (flags & MSG_DONTWAIT));
	if (n < 0 || !is_placeholder(head, n, p->token)) {
		pthread_mutex_unlock(&r->lock);
		return n < 0 ? n : view_recvmsg(fd, r, msg, flags);
	}
	n = deliver(fd, p, msg, flags);
	if (!(flags & MSG_PEEK)) {
		real_recvmsg(fd, &peek, MSG_DONTWAIT);
		r->head = p->next;
		if (!r->head)
			r->tail = &r->head;
		atomic_fetch_sub(&r->n_pending, 1);
		free(p);
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}
