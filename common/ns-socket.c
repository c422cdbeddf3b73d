/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "common/ns-socket.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/keep.h"
#include "common/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int agent_fd = -1;

void
ns_socket_attach(int fd)
{
	/* An agent stuck in a /proc read answers late, not never. */
	struct timeval tv = { .tv_sec = 10 };

	struct keep_msg m;
	int fds[KEEP_MAX_FDS];
	unsigned n;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* An answer a predecessor that died asking never read would be
	 * taken for ours. */
	if (fd >= 0 && fcntl(fd, F_SETFL, O_NONBLOCK) == 0) {
		while (keep_recv(fd, &m, fds, &n) > 0)
			for (unsigned i = 0; i < n; i++)
				close(fds[i]);
		fcntl(fd, F_SETFL, 0);
	}
	pthread_mutex_lock(&lock);
	if (agent_fd >= 0)
		close(agent_fd);
	agent_fd = fd;
	pthread_mutex_unlock(&lock);
}

bool
ns_socket_available(void)
{
	return __atomic_load_n(&agent_fd, __ATOMIC_RELAXED) >= 0;
}

/* One request and its answer: the result, with *fd the socket it gave
 * (or -1). An agent gone (or out of step) is given up. */
static int
ask(uint32_t op, int nsfd, const void *req, size_t len, int *fd)
{
	struct keep_msg m = { .op = op, .meta_len = len };
	int fds[KEEP_MAX_FDS], err;
	unsigned n = 0;
	ssize_t r;

	*fd = -1;
	memcpy(m.meta, req, len);
	pthread_mutex_lock(&lock);
	if (agent_fd < 0) {
		pthread_mutex_unlock(&lock);
		return -EAFNOSUPPORT;
	}
	r = keep_send(agent_fd, &m, &nsfd, 1) ? -errno
					      : keep_recv(agent_fd, &m, fds, &n);
	if (r <= 0 || m.op != op || n > 1) {
		close(agent_fd);
		agent_fd = -1;
		err = r < 0 ? (int)r : -EPIPE;
		log_warn("namespace agent: %s: given up until a restart (no "
			 "port of another namespace is made, none of them "
			 "reaped)", r < 0 ? strerror(-err) : "no answer");
	} else {
		err = (int)(int64_t)m.id;
		if (n)
			*fd = fds[0];
		n = 0;
	}
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	return err;
}

int
ns_socket(int nsfd, int domain, int type, int protocol)
{
	struct ns_socket_req req = { domain, type, protocol };
	int fd, err;

	if (nsfd < 0) {
		fd = socket(domain, type, protocol);
		return fd < 0 ? -errno : fd;
	}
	err = ask(NS_OP_SOCKET, nsfd, &req, sizeof(req), &fd);
	if (!err && fd < 0)
		err = -EPROTO;
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

int
ns_held(int nsfd, const pid_t *ours, unsigned n)
{
	struct ns_held_req req = { .n = n < NS_HELD_PIDS ? n : NS_HELD_PIDS };
	int fd, r;

	for (unsigned i = 0; i < req.n; i++)
		req.pids[i] = ours[i];
	r = ask(NS_OP_HELD, nsfd, &req, sizeof(req), &fd);
	if (fd >= 0)
		close(fd);
	return r;
}
