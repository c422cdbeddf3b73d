/* SPDX-License-Identifier: Apache-2.0 */
/* The namespace agent (daemon/ns-agent.c) through its client
 * (common/ns-socket.c): a socket made in another namespace is that
 * namespace's; what the agent must refuse it refuses (a domain the
 * daemon has no use for, a descriptor that is no network namespace);
 * whether a namespace is held; and with no agent, or one gone, the
 * answer is EAFNOSUPPORT, as a port type the kernel lacks.
 *
 * And how it tells who holds a namespace (daemon/netns-holders.c),
 * against the real /proc: a namespace a child made is held while the
 * child is in it, by a descriptor another process keeps on it, and by a
 * bind mount of it; when none of them is left, or each is ours, it is
 * not. Needs root (setns, unshare, mount); skipped without. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/ns-socket.h"
#include "daemon/netns-holders.h"
#include "daemon/ns-agent.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static uint64_t
cookie_of(int fd)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len),
			 0);
	return c;
}

/* A child in a network namespace of its own, waiting to be killed; *nsfd
 * a descriptor of that namespace. */
static pid_t
child_in_new_netns(int *nsfd)
{
	char path[64], c;
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	*nsfd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(*nsfd >= 0);
	return pid;
}

static void
reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void
test_holders(void **state)
{
	char path[64], dir[] = "/tmp/tapdp-holders.XXXXXX", target[96];
	pid_t self = getpid(), child, ours[2];
	struct stat ns;
	int fd, nsfd;

	if (geteuid() != 0) {
		skip();
		return;
	}
	/* Mounts made here stay in a mount namespace of this test's. */
	assert_int_equal(unshare(CLONE_NEWNS), 0);
	assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
			 0);
	child = child_in_new_netns(&nsfd);
	assert_int_equal(fstat(nsfd, &ns), 0);
	close(nsfd);
	ours[0] = self;
	ours[1] = child;

	/* The child is in it. */
	assert_int_equal(netns_holders_find("/proc", &ns, &self, 1), 1);
	/* The child is ours: nothing else holds it. */
	assert_int_equal(netns_holders_find("/proc", &ns, ours, 2), 0);

	/* A descriptor on it, of a process not ours. */
	snprintf(path, sizeof(path), "/proc/%d/ns/net", child);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(netns_holders_find("/proc", &ns, &child, 1), 1);
	/* ...and ours: not counted. */
	assert_int_equal(netns_holders_find("/proc", &ns, ours, 2), 0);

	/* A bind mount of it counts, in our own mount namespace too. */
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/ns", dir);
	close(open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	assert_int_equal(mount(path, target, NULL, MS_BIND, NULL), 0);
	assert_int_equal(netns_holders_find("/proc", &ns, ours, 2), 1);
	assert_int_equal(umount(target), 0);
	assert_int_equal(netns_holders_find("/proc", &ns, ours, 2), 0);
	unlink(target);
	rmdir(dir);

	/* The child gone, our descriptor is all that is left of it. */
	reap(child);
	assert_int_equal(netns_holders_find("/proc", &ns, &self, 1), 0);
	close(fd);

	/* No /proc to read: it cannot say. */
	assert_int_equal(netns_holders_find("/nonexistent", &ns, &self, 1),
			 -1);
}

static void
test_agent(void **state)
{
	int nsfd, fd, here, agent;
	pid_t child, self = getpid();

	if (geteuid() != 0) {
		skip();
		return;
	}
	/* No agent: another namespace is out of reach, ours is not. */
	ns_socket_attach(-1);
	assert_false(ns_socket_available());
	child = child_in_new_netns(&nsfd);
	assert_int_equal(ns_socket(nsfd, AF_INET, SOCK_DGRAM, 0),
			 -EAFNOSUPPORT);
	here = ns_socket(-1, AF_INET, SOCK_DGRAM, 0);
	assert_true(here >= 0);

	agent = ns_agent_spawn(false);
	assert_true(agent >= 0);
	ns_socket_attach(agent);
	assert_true(ns_socket_available());
	/* A packet socket, a UDP one and rtnetlink: the namespace's. */
	fd = ns_socket(nsfd, AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	assert_true(cookie_of(fd) != cookie_of(here));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	fd = ns_socket(nsfd, AF_INET6, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = ns_socket(nsfd, AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE */);
	assert_true(fd >= 0);
	close(fd);
	/* ... and the agent came back: the next one made in ours is ours. */
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	{
		int s = ns_socket(fd, AF_INET, SOCK_DGRAM, 0);

		assert_true(s >= 0);
		assert_true(cookie_of(s) == cookie_of(here));
		close(s);
	}
	close(fd);
	/* What the daemon never asks for. */
	assert_int_equal(ns_socket(nsfd, AF_UNIX, SOCK_STREAM, 0),
			 -EAFNOSUPPORT);
	assert_int_equal(ns_socket(nsfd, AF_NETLINK, SOCK_RAW, 16),
			 -EAFNOSUPPORT);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(ns_socket(fd, AF_INET, SOCK_DGRAM, 0), -EBADF);
	assert_int_equal(ns_held(fd, &self, 1), -EBADF);
	close(fd);

	/* Held by the child in it; ours (our descriptor on it) does not
	 * count; the child gone, nothing holds it. */
	assert_int_equal(ns_held(nsfd, &self, 1), 1);
	reap(child);
	assert_int_equal(ns_held(nsfd, &self, 1), 0);
	/* Held by us, when we are not told ours. */
	assert_int_equal(ns_held(nsfd, NULL, 0), 1);

	/* The agent gone: the answer is the one of no agent, from then on. */
	ns_socket_attach(-1);
	assert_int_equal(ns_socket(nsfd, AF_INET, SOCK_DGRAM, 0),
			 -EAFNOSUPPORT);
	close(nsfd);
	close(here);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holders),
		cmocka_unit_test(test_agent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
