/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
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

void
log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "ERR", "WARN", "INFO", "DBG" };
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if ((int)level > log_verbosity)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ|%s|",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, names[level]);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(log_fd, line, n);
}
