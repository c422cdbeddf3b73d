/* SPDX-License-Identifier: Apache-2.0 */
/* Logging for tapdpd: to stderr or a log file, with a verbosity threshold.
 * Thread-safe (one write(2) per line). A line that cannot be written (the
 * disk full) is dropped whole; the next one written follows a note of how
 * many were lost. */
#ifndef TAPDP_LOG_H
#define TAPDP_LOG_H

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DBG };

/* path NULL: stderr. Returns 0 or -errno. */
int log_open(const char *path, int verbosity);
/* The descriptor lines go to (the keeper keeps writing there). */
int log_fileno(void);
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_dbg(...)	log_msg(LOG_LVL_DBG, __VA_ARGS__)

#endif
