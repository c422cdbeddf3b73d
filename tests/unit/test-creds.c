/* SPDX-License-Identifier: Apache-2.0 */
/* Who may change things (genl-server/creds.c): the sender's verdict, read
 * from /proc, for a process with CAP_NET_ADMIN, one that dropped it, one
 * whose uid the kernel gave otherwise, one of another user namespace,
 * and one that is gone; the proofs a route socket holds, from senders
 * with and without CAP_NET_ADMIN, among the kernel's answers, the newest
 * kept; a pid as its own pid namespace numbers it. Run as root, as make
 * check is. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "genl-server/creds.h"

/* A child, in the namespaces clone flags ns make for it, that does what
 * prepare says, tells the parent through a pipe, and waits to be
 * killed. */
static pid_t
child_in(int ns, void (*prepare)(void), int *ready)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = syscall(SYS_clone, ns | SIGCHLD, NULL, NULL, NULL, NULL);
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		/* Gone with the test, should an assertion skip reap(). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (prepare)
			prepare();
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	*ready = p[0];
	return pid;
}

static pid_t
child(void (*prepare)(void), int *ready)
{
	return child_in(0, prepare, ready);
}

static void
reap(pid_t pid, int fd)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
}

static void
drop_net_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		_exit(1);
	d[0].effective &= ~(1u << CAP_NET_ADMIN);
	if (syscall(SYS_capset, &h, d))
		_exit(1);
}

static void
own_user_ns(void)
{
	if (unshare(CLONE_NEWUSER))
		_exit(1);
}

static void
test_root_has_it(void **state)
{
	int fd;
	pid_t pid = child(NULL, &fd);

	assert_true(creds_sender_net_admin(pid, 0, -ENOENT));
	/* Not the uid the kernel said the sender was. */
	assert_false(creds_sender_net_admin(pid, 65534, -ENOENT));
	reap(pid, fd);
	/* Gone: nothing to read. */
	assert_false(creds_sender_net_admin(pid, 0, -ENOENT));
	assert_false(creds_sender_net_admin(0, 0, -ENOENT));
}

static void
test_dropped(void **state)
{
	int fd;
	pid_t pid = child(drop_net_admin, &fd);

	assert_false(creds_sender_net_admin(pid, 0, -ENOENT));
	reap(pid, fd);
}

/* The sender's pidfd, where the kernel gives one (SCM_PIDFD): /proc of
 * its pid is believed only while the pidfd names that pid, so that one
 * gone and another that took its pid are never confused. */
static void
test_pidfd(void **state)
{
	int fa, fb, pa, pb;
	pid_t a = child(NULL, &fa), b = child(NULL, &fb);

	pa = syscall(SYS_pidfd_open, a, 0);
	pb = syscall(SYS_pidfd_open, b, 0);
	if (pa < 0 || pb < 0) {
		reap(a, fa);
		reap(b, fb);
		skip();
	}
	assert_true(creds_sender_net_admin(a, 0, pa));
	/* a's /proc, another process's pidfd: a's pid taken by another. */
	assert_false(creds_sender_net_admin(a, 0, pb));
	/* The kernel could make none: the sender is gone. */
	assert_false(creds_sender_net_admin(a, 0, -ESRCH));
	reap(a, fa);
	assert_false(creds_sender_net_admin(a, 0, pa));
	reap(b, fb);
	close(pa);
	close(pb);
}

/* Root of a user namespace of its own holds every capability there, and
 * none in ours. */
static void
test_other_user_ns(void **state)
{
	int fd;
	pid_t pid = child(own_user_ns, &fd);

	assert_false(creds_sender_net_admin(pid, 0, -ENOENT));
	reap(pid, fd);
}

/* A NETLINK_ROUTE socket, bound: its portid in *portid. */
static int
route_socket(uint32_t *portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*portid = sa.nl_pid;
	return fd;
}

/* What the shim sends to prove itself (proto.h): the send's errno. */
static int
prove(int fd, uint32_t portid)
{
	struct nlmsghdr nlh = { .nlmsg_len = sizeof(nlh),
				.nlmsg_type = NLMSG_NOOP };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = portid };

	return sendto(fd, &nlh, sizeof(nlh), 0, (struct sockaddr *)&to,
		      sizeof(to)) < 0 ? errno : 0;
}

/* A child that runs prepare, proves itself on fd, and exits with the
 * send's errno: its pid. */
static pid_t
prover(int fd, uint32_t portid, void (*prepare)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		if (prepare)
			prepare();
		_exit(prove(fd, portid));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status) ? -WEXITSTATUS(status) : pid;
}

static void
test_proofs(void **state)
{
	struct creds_proof ring[2] = { { 0 } };
	struct nlmsghdr getlink = { .nlmsg_len = NLMSG_LENGTH(
					    sizeof(struct ifinfomsg)),
				    .nlmsg_type = RTM_GETLINK,
				    .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK };
	char req[NLMSG_LENGTH(sizeof(struct ifinfomsg))] = { 0 };
	unsigned next = 0;
	uint32_t portid, other_portid;
	int fd = route_socket(&portid), other = route_socket(&other_portid);
	pid_t a, b, c;

	/* Nothing there: nothing read. */
	creds_proofs_read(other, ring, 2, &next);
	assert_int_equal(next, 0);
	close(other);
	/* Without CAP_NET_ADMIN over the socket's namespace the kernel
	 * refuses the send: in a user namespace of its own, or dropped. */
	assert_int_equal(prover(fd, portid, own_user_ns), -EPERM);
	assert_int_equal(prover(fd, portid, drop_net_admin), -EPERM);
	/* The kernel's answer to a request is no proof. */
	memcpy(req, &getlink, sizeof(getlink));
	((struct ifinfomsg *)NLMSG_DATA(req))->ifi_index = 1;
	assert_int_equal(send(fd, req, sizeof(req), 0), (ssize_t)sizeof(req));
	a = prover(fd, portid, NULL);
	b = prover(fd, portid, NULL);
	c = prover(fd, portid, NULL);
	assert_true(a > 0 && b > 0 && c > 0);
	/* Read for the first time: the credentials of what was queued
	 * before come too. */
	creds_proofs_read(fd, ring, 2, &next);
	/* Three proofs, the newest two kept, with the sender's uid. */
	assert_int_equal(next, 3);
	assert_int_equal(ring[0].pid, c);
	assert_int_equal(ring[1].pid, b);
	assert_int_equal(ring[0].uid, 0);
	/* All read. */
	creds_proofs_read(fd, ring, 2, &next);
	assert_int_equal(next, 3);
	close(fd);
}

/* Netlink numbers a sender in its own pid namespace. */
static void
test_own_pid(void **state)
{
	int fd;
	pid_t pid;

	assert_int_equal(creds_own_pid(getpid()), getpid());
	pid = child_in(CLONE_NEWPID, NULL, &fd);
	assert_int_equal(creds_own_pid(pid), 1);
	reap(pid, fd);
	/* Gone: /proc does not say. */
	assert_int_equal(creds_own_pid(pid), 0);
	assert_int_equal(creds_own_pid(0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_has_it),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_pidfd),
		cmocka_unit_test(test_other_user_ns),
		cmocka_unit_test(test_proofs),
		cmocka_unit_test(test_own_pid),
	};

	return cmocka_run_group_tests_name("creds", tests, NULL, NULL);
}
