/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "common/nlerr.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

#define BURST 10
#define WINDOW_MS 5000

static int kmsg_fd = -1;
static __thread char last[256];
static __thread bool have_last;

static pthread_mutex_t rl_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rl_start;		/* ms */
static int rl_count;

void
nlerr_open_kmsg(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

void
nlerr_close_kmsg(void)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
}

static bool
ratelimit_ok(void)
{
	uint64_t now = clock_now_ms();
	bool ok;

	pthread_mutex_lock(&rl_lock);
	if (now - rl_start >= WINDOW_MS) {
		rl_start = now;
		rl_count = 0;
	}
	ok = rl_count++ < BURST;
	pthread_mutex_unlock(&rl_lock);
	return ok;
}

void
ovs_nlerr(bool log, const char *fmt, ...)
{
	char line[320];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(last, sizeof(last), fmt, ap);
	va_end(ap);
	have_last = true;
	if (!log || !ratelimit_ok())
		return;
	log_info("netlink: %s", last);
	if (kmsg_fd >= 0) {
		/* <6> is KERN_INFO, as pr_info; the prefix is the module's. */
		n = snprintf(line, sizeof(line), "<6>openvswitch: netlink: %s\n",
			     last);
		(void)!write(kmsg_fd, line, n < (int)sizeof(line) ? n
						: (int)sizeof(line) - 1);
	}
}

const char *
nlerr_last(void)
{
	return have_last ? last : NULL;
}

void
nlerr_clear(void)
{
	have_last = false;
}
