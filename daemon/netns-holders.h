/* SPDX-License-Identifier: Apache-2.0 */
/* Whether anything but the daemon still holds a network namespace.
 *
 * The kernel's tunnel and packet sockets do not hold their namespace; the
 * daemon's do, so a namespace in which it opened sockets for a port would
 * outlive `ip netns del` and its last process. Before such a namespace
 * can go as the kernel's would, the daemon asks here whether anyone else
 * holds it, as /proc shows: a process in it, a descriptor on it (an
 * nsfs file: `ip netns exec`, a pidfd's setns, a held /proc/PID/ns/net),
 * or a mount of it (`ip netns add`'s bind mount) in any mount namespace
 * a process has. What /proc does not show (a socket of the namespace
 * held by a process of another one) the caller knows from its own
 * clients, whose sockets are the ones that matter to it.
 *
 * Reads /proc only; any thread. */
#ifndef TAPDP_DAEMON_NETNS_HOLDERS_H
#define TAPDP_DAEMON_NETNS_HOLDERS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Whether a process other than the n in ours (the daemon, its keeper)
 * holds the namespace whose nsfs file stat()s as ns, or a mount namespace
 * any process has (ours too) mounts it: 1 held, 0 not, -1 when /proc
 * could not be read (the caller counts it as held). A process ptrace's
 * rules hide from the daemon counts as not holding it. proc is /proc's
 * path (tests give another). */
int netns_holders_find(const char *proc, const struct stat *ns,
		       const pid_t *ours, size_t n);

#endif
