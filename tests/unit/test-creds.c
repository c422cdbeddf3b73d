/* SPDX-License-Identifier: Apache-2.0 */
/* Who may change things (netlink/creds.c): the sender's verdict, read
 * from /proc, for a process with CAP_NET_ADMIN, one that dropped it, one
 * whose uid the kernel gave otherwise, one of another user namespace,
 * and one that is gone. Run as root, as make check is. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "netlink/creds.h"

/* A child that does what prepare says, tells the parent through a pipe,
 * and waits to be killed. */
static pid_t
child(void (*prepare)(void), int *ready)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
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

	assert_true(creds_sender_net_admin(pid, 0));
	/* Not the uid the kernel said the sender was. */
	assert_false(creds_sender_net_admin(pid, 65534));
	reap(pid, fd);
	/* Gone: nothing to read. */
	assert_false(creds_sender_net_admin(pid, 0));
	assert_false(creds_sender_net_admin(0, 0));
}

static void
test_dropped(void **state)
{
	int fd;
	pid_t pid = child(drop_net_admin, &fd);

	assert_false(creds_sender_net_admin(pid, 0));
	reap(pid, fd);
}

/* Root of a user namespace of its own holds every capability there, and
 * none in ours. */
static void
test_other_user_ns(void **state)
{
	int fd;
	pid_t pid = child(own_user_ns, &fd);

	assert_false(creds_sender_net_admin(pid, 0));
	reap(pid, fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_has_it),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_other_user_ns),
	};

	return cmocka_run_group_tests_name("creds", tests, NULL, NULL);
}
