/* SPDX-License-Identifier: Apache-2.0 */
/* The namespace agent: a process forked before the daemon sandboxes
 * itself, which opens sockets in another network namespace (setns(), then
 * socket()) and tells whether anything but tapdp still holds one
 * (daemon/netns-holders.h), for the daemon (common/ns-socket.h) and
 * nothing else. It keeps only what that takes: CAP_SYS_ADMIN (setns),
 * CAP_NET_RAW (packet and raw sockets), CAP_SYS_PTRACE and
 * CAP_DAC_READ_SEARCH (other users' /proc/PID/fd and mountinfo), under
 * the daemon's seccomp filter (daemon/sandbox.h).
 *
 * It serves one socket, whose other end the daemon hands its keeper too
 * (KEEP_AGENT): a successor takes it back, which an upgrade's execve(),
 * with no CAP_SYS_ADMIN left, could not make again. It ends when no end
 * is left (the keeper quit, or no keeper). */
#ifndef TAPDP_DAEMON_NS_AGENT_H
#define TAPDP_DAEMON_NS_AGENT_H

#include <stdbool.h>

/* Starts an agent and returns the daemon's end of its socket, or -errno
 * (-EPERM: this process may not setns(), so no agent would). Must be
 * called before the daemon makes any thread. */
int ns_agent_spawn(bool sandboxed);

#endif
