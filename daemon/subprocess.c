/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

/* Everything above standard error but keep[0..n). */
static void
close_others(const int *keep, unsigned n)
{
	unsigned lo = 3;

	for (;;) {
		unsigned next = ~0U;

		for (unsigned i = 0; i < n; i++)
			if ((unsigned)keep[i] >= lo && (unsigned)keep[i] < next)
				next = keep[i];
		if (next > lo)
			close_range(lo, next == ~0U ? ~0U : next - 1, 0);
		if (next == ~0U)
			return;
		lo = next + 1;
	}
}

void
subprocess_detach(const int *keep, unsigned n)
{
	int fds[8], null = open("/dev/null", O_RDWR | O_CLOEXEC);
	unsigned k = 0;

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (log_fileno() != STDERR_FILENO)
			dup2(null, STDERR_FILENO);
		close(null);
	}
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	for (; k < n && k < sizeof(fds) / sizeof(fds[0]) - 1; k++)
		fds[k] = keep[k];
	fds[k++] = log_fileno();
	close_others(fds, k);
}

int
subprocess_spawn(int fd, void (*child)(int sock, int fd, void *arg),
		 void *arg)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		int keep[] = { sv[1], fd };

		subprocess_detach(keep, 2);
		child(sv[1], fd, arg);
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}
