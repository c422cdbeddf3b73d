/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/ns-agent.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/keep.h"
#include "common/log.h"
#include "common/ns-socket.h"
#include "daemon/netns-holders.h"
#include "daemon/sandbox.h"
#include "daemon/subprocess.h"

/* The sockets the daemon's ports use there: packet, IP and UDP, and
 * rtnetlink to ask about the namespace's devices. */
static bool
socket_allowed(const struct ns_socket_req *r)
{
	switch (r->domain) {
	case AF_PACKET:
	case AF_INET:
	case AF_INET6:
		return true;
	case AF_NETLINK:
		return r->protocol == NETLINK_ROUTE;
	default:
		return false;
	}
}

static bool
is_netns(int nsfd)
{
	return ioctl(nsfd, NS_GET_NSTYPE) == CLONE_NEWNET;
}

/* The answer to one request; *fd the socket made, if any. A namespace
 * the agent cannot come back from ends it (exit): it would open the
 * next one's sockets in the wrong place. */
static int64_t
serve(int own, const struct keep_msg *m, int nsfd, int *fd)
{
	*fd = -1;
	if (!is_netns(nsfd))
		return -EBADF;
	if (m->op == NS_OP_SOCKET) {
		struct ns_socket_req r;
		int err = 0;

		if (m->meta_len != sizeof(r))
			return -EINVAL;
		memcpy(&r, m->meta, sizeof(r));
		if (!socket_allowed(&r))
			return -EAFNOSUPPORT;
		if (setns(nsfd, CLONE_NEWNET) < 0)
			return -errno;
		*fd = socket(r.domain, r.type | SOCK_CLOEXEC, r.protocol);
		if (*fd < 0)
			err = -errno;
		if (setns(own, CLONE_NEWNET) < 0) {
			log_err("ns-agent: cannot come back to its namespace: "
				"%s", strerror(errno));
			_exit(1);
		}
		return err;
	}
	if (m->op == NS_OP_HELD) {
		struct ns_held_req r;
		pid_t ours[NS_HELD_PIDS + 1];
		struct stat st;
		int held;

		if (m->meta_len != sizeof(r))
			return -EINVAL;
		memcpy(&r, m->meta, sizeof(r));
		if (r.n > NS_HELD_PIDS || fstat(nsfd, &st) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < r.n; i++)
			ours[i] = r.pids[i];
		ours[r.n] = getpid();
		held = netns_holders_find("/proc", &st, ours, r.n + 1);
		return held < 0 ? -EIO : held;
	}
	return -EOPNOTSUPP;
}

static void
agent_main(int fd, int own)
{
	for (;;) {
		struct keep_msg m;
		int fds[KEEP_MAX_FDS], sock;
		unsigned n;
		ssize_t r = keep_recv(fd, &m, fds, &n);
		int64_t res;

		if (r == -EAGAIN || r == -EMFILE || r == -EPROTO)
			continue;
		if (r <= 0)
			return;
		res = n == 1 ? serve(own, &m, fds[0], &sock) : -EBADF;
		for (unsigned i = 0; i < n; i++)
			close(fds[i]);
		if (n != 1)
			sock = -1;
		m = (struct keep_msg) { .op = m.op, .id = (uint64_t)res };
		keep_send(fd, &m, &sock, sock >= 0);
		if (sock >= 0)
			close(sock);
		sandbox_report();
	}
}

/* Whether this process may setns(): CAP_SYS_ADMIN effective. */
static bool
may_setns(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	return syscall(SYS_capget, &h, d) == 0 &&
	       (d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
		CAP_TO_MASK(CAP_SYS_ADMIN));
}

/* The agent, in its process. */
static void
agent_child(int sock, int own, void *arg)
{
	const bool *sandboxed = arg;

	/* Told from the daemon and its keeper by name (ps, pgrep). */
	prctl(PR_SET_NAME, "tapdpd-nsagent");
	/* Unsandboxed if that fails, as the keeper: the log says why. */
	if (*sandboxed)
		sandbox_apply_agent();
	agent_main(sock, own);
}

int
ns_agent_spawn(bool sandboxed)
{
	int own, fd;

	if (!may_setns())
		return -EPERM;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return -errno;
	fd = subprocess_spawn(own, agent_child, &sandboxed);
	close(own);
	return fd;
}
