/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "common/keep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"

static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;
static int keeper_fd = -1;
static uint64_t next_id = 1;
static struct keep_entry *taken;
static size_t n_taken;

void
keep_path(const char *sock_path, char *out, size_t size)
{
	snprintf(out, size, "%s.keep", sock_path);
}

int
keep_send(int fd, const struct keep_msg *m, const int *fds, unsigned n)
{
	char cbuf[CMSG_SPACE(KEEP_MAX_FDS * sizeof(int))];
	struct iovec iov = { (void *)m, offsetof(struct keep_msg, meta) +
					    m->meta_len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (n) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	do
		r = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)iov.iov_len ? 0 : -1;
}

/* One message to the keeper; false when it is gone. */
static bool
send_msg(const struct keep_msg *m, const int *fds, unsigned n)
{
	return !keep_send(keeper_fd, m, fds, n);
}

/* The keeper gone, nothing more is kept (and the daemon says so once). */
static void
keeper_lost(void)
{
	log_err("the keeper went away: a restart would now lose the "
		"datapath's state");
	close(keeper_fd);
	keeper_fd = -1;
}

static void
send_locked(const struct keep_msg *m, const int *fds, unsigned n)
{
	if (keeper_fd >= 0 && !send_msg(m, fds, n))
		keeper_lost();
}

ssize_t
keep_recv(int fd, struct keep_msg *m, int *fds, unsigned *n)
{
	char cbuf[CMSG_SPACE(KEEP_MAX_FDS * sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t r;

	*n = 0;
	do
		r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		unsigned count;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (unsigned i = 0; i < count; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(f));
			if (*n < KEEP_MAX_FDS)
				fds[(*n)++] = f;
			else
				close(f);
		}
	}
	if (r > 0 && ((size_t)r < offsetof(struct keep_msg, meta) ||
		      m->meta_len > KEEP_META_MAX ||
		      (size_t)r != offsetof(struct keep_msg, meta) +
					   m->meta_len ||
		      (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))) {
		bool lost_fds = (mh.msg_flags & MSG_CTRUNC) &&
				!(mh.msg_flags & MSG_TRUNC);

		for (unsigned i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		return lost_fds ? -EMFILE : -EPROTO;
	}
	return r;
}

/* A keeper that does not answer within 2 s is taken for gone rather than
 * waited for. */
static void
set_timeout(int fd)
{
	struct timeval tv = { .tv_sec = 2 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

void
keep_attach_fd(int fd)
{
	set_timeout(fd);
	keeper_fd = fd;
}

bool
keep_attached(void)
{
	return keeper_fd >= 0;
}

/* One attempt of keep_attach. */
static int
attach_once(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct keep_msg m;
	int fd, fds[KEEP_MAX_FDS];
	unsigned n;
	ssize_t r;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return 0;
	}
	r = keep_recv(fd, &m, fds, &n);
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	if (r <= 0 || m.op != KEEP_OP_HELLO) {
		close(fd);
		return r < 0 ? (int)r : -ECONNRESET;
	}
	if (!m.id) {
		close(fd);
		return -EADDRINUSE;
	}
	set_timeout(fd);
	keeper_fd = fd;
	return 1;
}

int
keep_attach(const char *path)
{
	/* A daemon killed a moment ago is still attached until its last
	 * thread has exited: give it a few seconds to finish dying. */
	for (int tries = 30;; tries--) {
		int r = attach_once(path);

		if (r != -EADDRINUSE || !tries)
			return r;
		usleep(100 * 1000);
	}
}

uint64_t
keep_put(enum keep_kind kind, const int *fds, unsigned n, const void *meta,
	 size_t len)
{
	struct keep_msg m = { .op = KEEP_OP_PUT, .kind = kind, .n_fds = n,
			      .meta_len = len };
	uint64_t id = 0;

	if (n > KEEP_MAX_FDS || len > KEEP_META_MAX)
		return 0;
	if (len)
		memcpy(m.meta, meta, len);
	pthread_mutex_lock(&keep_lock);
	if (keeper_fd >= 0) {
		m.id = id = next_id++;
		send_locked(&m, fds, n);
		if (keeper_fd < 0)
			id = 0;
	}
	pthread_mutex_unlock(&keep_lock);
	return id;
}

void
keep_update(uint64_t id, const int *fds, unsigned n, const void *meta,
	    size_t len)
{
	struct keep_msg m = { .op = KEEP_OP_UPDATE, .id = id, .n_fds = n,
			      .meta_len = len };

	if (!id || n > KEEP_MAX_FDS || len > KEEP_META_MAX)
		return;
	if (len)
		memcpy(m.meta, meta, len);
	pthread_mutex_lock(&keep_lock);
	send_locked(&m, fds, n);
	pthread_mutex_unlock(&keep_lock);
}

void
keep_meta(uint64_t id, const void *meta, size_t len)
{
	struct keep_msg m = { .op = KEEP_OP_META, .id = id, .meta_len = len };

	if (!id || len > KEEP_META_MAX)
		return;
	if (len)
		memcpy(m.meta, meta, len);
	pthread_mutex_lock(&keep_lock);
	send_locked(&m, NULL, 0);
	pthread_mutex_unlock(&keep_lock);
}

void
keep_drop(uint64_t id)
{
	struct keep_msg m = { .op = KEEP_OP_DROP, .id = id };
	int fds[KEEP_MAX_FDS];
	unsigned n;

	if (!id)
		return;
	pthread_mutex_lock(&keep_lock);
	send_locked(&m, NULL, 0);
	if (keeper_fd >= 0 && (keep_recv(keeper_fd, &m, fds, &n) <= 0 ||
			       m.op != KEEP_OP_DROPPED))
		keeper_lost();
	pthread_mutex_unlock(&keep_lock);
}

int
keep_take(void)
{
	struct keep_msg m = { .op = KEEP_OP_TAKE };

	if (keeper_fd < 0)
		return -ENOTCONN;
	if (!send_msg(&m, NULL, 0))
		return -errno;
	for (;;) {
		struct keep_entry *e, *grown;
		unsigned n;
		int fds[KEEP_MAX_FDS];
		ssize_t r = keep_recv(keeper_fd, &m, fds, &n);

		if (r <= 0)
			return r ? (int)r : -ECONNRESET;
		if (m.op == KEEP_OP_END)
			return 0;
		grown = realloc(taken, (n_taken + 1) * sizeof(*taken));
		if (m.op != KEEP_OP_PUT || !grown) {
			for (unsigned i = 0; i < n; i++)
				close(fds[i]);
			if (!grown)
				return -ENOMEM;
			taken = grown;
			continue;
		}
		taken = grown;
		e = &taken[n_taken++];
		*e = (struct keep_entry) { .id = m.id, .kind = m.kind,
					   .n_fds = n,
					   .meta_len = m.meta_len };
		memcpy(e->fds, fds, n * sizeof(int));
		memcpy(e->meta, m.meta, m.meta_len);
		if (m.id >= next_id)
			next_id = m.id + 1;
	}
}

struct keep_entry *
keep_find(enum keep_kind kind,
	  bool (*match)(const struct keep_entry *, void *), void *arg)
{
	for (size_t i = 0; i < n_taken; i++) {
		struct keep_entry *e = &taken[i];

		if (!e->claimed && e->kind == kind && (!match || match(e, arg)))
			return e;
	}
	return NULL;
}

struct keep_entry *
keep_claim(enum keep_kind kind,
	   bool (*match)(const struct keep_entry *, void *), void *arg)
{
	struct keep_entry *e = keep_find(kind, match, arg);

	if (e)
		e->claimed = true;
	return e;
}

void
keep_release_unclaimed(void)
{
	for (size_t i = 0; i < n_taken; i++) {
		struct keep_entry *e = &taken[i];

		if (e->claimed)
			continue;
		for (unsigned j = 0; j < e->n_fds; j++)
			close(e->fds[j]);
		keep_drop(e->id);
	}
	free(taken);
	taken = NULL;
	n_taken = 0;
}

void
keep_quit(void)
{
	struct keep_msg m = { .op = KEEP_OP_QUIT };

	pthread_mutex_lock(&keep_lock);
	if (keeper_fd >= 0) {
		char c;

		/* It closes its end last: the end of the stream says it has
		 * let everything go. */
		if (send_msg(&m, NULL, 0))
			while (recv(keeper_fd, &c, 1, 0) > 0)
				;
		close(keeper_fd);
		keeper_fd = -1;
	}
	pthread_mutex_unlock(&keep_lock);
}
