/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's OVS_NLERR: the validation errors net/openvswitch logs, in its
 * words. tapdpd writes them to its own log, to the kernel log when it may
 * write /dev/kmsg (tools read them with dmesg, as the selftests do), and keeps
 * the last one of the calling thread for the extended ACK.
 *
 * Thread-safe. Rate-limited as net_ratelimit() (10 lines, then one per 5 s
 * window refill). */
#ifndef TAPDP_NLERR_H
#define TAPDP_NLERR_H

#include <stdbool.h>

/* Opens /dev/kmsg if it can be written; harmless if not. */
void nlerr_open_kmsg(void);
void nlerr_close_kmsg(void);

/* Logs "netlink: <msg>" when log is true; the message is kept either way. */
void ovs_nlerr(bool log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The calling thread's last message since nlerr_clear(), or NULL. */
const char *nlerr_last(void);
void nlerr_clear(void);

#endif
