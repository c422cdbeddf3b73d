/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_fd = STDERR_FILENO;
static int log_verbosity = LOG_LVL_INFO;

int
log_open(const char *path, int verbosity)
{
	log_verbosity = LOG_LVL_INFO + verbosity;
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	log_fd = fd;
	return 0;
}

int
log_fileno(void)
{
	return log_fd;
}

/* Lines a failed write kept out of the log (its disk full): the next
 * line that gets in follows a note of how many, and why. */
static unsigned long lost;
static int lost_errno;

/* The whole line or nothing: a line the disk filled under is cut off
 * again, so that the next one does not start in the middle of it. */
static bool
put_line(const char *line, int n)
{
	ssize_t w = write(log_fd, line, n);
	off_t end;

	if (w == n)
		return true;
	/* A short write to a file: no room for the rest. */
	__atomic_store_n(&lost_errno, w < 0 ? errno : ENOSPC,
			 __ATOMIC_RELAXED);
	if (w > 0 && (end = lseek(log_fd, 0, SEEK_END)) >= w)
		(void)!ftruncate(log_fd, end - w);
	return false;
}

static int
put_prefix(char *line, size_t size, enum log_level level)
{
	static const char *const names[] = { "ERR", "WARN", "INFO", "DBG" };
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	return snprintf(line, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ|%s|",
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			tm.tm_hour, tm.tm_min, tm.tm_sec,
			ts.tv_nsec / 1000000, names[level]);
}

/* Tells of the lines lost since the last one written, if any. */
static void
tell_lost(void)
{
	unsigned long n = __atomic_exchange_n(&lost, 0, __ATOMIC_RELAXED);
	char note[160];
	int len;

	if (!n)
		return;
	len = put_prefix(note, sizeof(note), LOG_LVL_WARN);
	len += snprintf(note + len, sizeof(note) - len,
			"log: %lu line%s lost: %s\n", n, n == 1 ? "" : "s",
			strerrordesc_np(__atomic_load_n(&lost_errno,
							__ATOMIC_RELAXED)));
	if (!put_line(note, len))
		__atomic_fetch_add(&lost, n, __ATOMIC_RELAXED);
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if ((int)level > log_verbosity)
		return;
	n = put_prefix(line, sizeof(line), level);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	tell_lost();
	if (!put_line(line, n))
		__atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
}
