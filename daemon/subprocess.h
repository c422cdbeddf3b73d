/* SPDX-License-Identifier: Apache-2.0 */
/* What a process the daemon forks to outlive it or to hold more privilege
 * than it (the keeper, the namespace agent) does first: it holds nothing
 * of the daemon's but the descriptors it serves and the log, nothing of
 * whoever started the daemon (a pipe there would not see its end while
 * the process lives), leads a session of its own and ignores the
 * terminal's signals. Called in the child, which has one thread. */
#ifndef TAPDP_DAEMON_SUBPROCESS_H
#define TAPDP_DAEMON_SUBPROCESS_H

/* Keeps keep[0..n) and the log; standard input and output (and error,
 * unless it is the log) become /dev/null; everything else is closed. */
void subprocess_detach(const int *keep, unsigned n);
/* Forks such a process, joined to the daemon by a new SOCK_SEQPACKET
 * pair: detached, it keeps its end of the pair and fd (which the caller
 * still holds, and closes), and runs child(its end, fd, arg), then exits.
 * The daemon's end, or -errno. */
int subprocess_spawn(int fd, void (*child)(int sock, int fd, void *arg),
		     void *arg);

#endif
