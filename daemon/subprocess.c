/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/subprocess.h"

#include <fcntl.h>
#include <signal.h>
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
