/* SPDX-License-Identifier: Apache-2.0 */
/* The keeper: the process that holds what must outlive tapdpd
 * (common/keep.h says what, and why).
 *
 * It only holds: it reads no packet and serves no client, so there is
 * next to nothing in it to crash. While a daemon is attached it takes the
 * daemon's entries; when the daemon dies (or execs its successor) it waits
 * for the next one, which attaches to the keeper's socket and takes them
 * back; one daemon at a time. A clean stop (KEEP_OP_QUIT) ends it; so does
 * waiting in vain for wait_s seconds, which closes everything as a daemon
 * gone for good would have: devices vanish and clients' sockets fail. */
#ifndef TAPDP_DAEMON_KEEPER_H
#define TAPDP_DAEMON_KEEPER_H

#include <stdbool.h>

/* Starts a keeper listening at path and attaches the daemon to it
 * (keep_attach_fd); sandboxed, the keeper drops every capability and runs
 * under the daemon's seccomp filter (sandbox_apply_keeper), reporting the
 * calls it refused as it wakes. Must be called before the daemon makes
 * any thread. 0 or -errno. */
int keeper_spawn(const char *path, unsigned wait_s, bool sandboxed);

#endif
