/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpd's least privilege, applied once setup is done: only the
 * capabilities it still uses, NO_NEW_PRIVS, and a seccomp filter that
 * allows the system calls it makes, nothing else
 * (docs/ARCHITECTURE.md, "The daemon"); and its keeper's.
 *
 * A call outside the list does not kill the daemon: the filter traps it,
 * a SIGSYS handler makes it fail with EPERM and records its number, and
 * sandbox_report() logs each call recorded since it last ran.
 *
 * Thread-safety: sandbox_apply() must run while the process has one
 * thread (capabilities belong to a thread; threads made later inherit
 * them and the filter). The handler takes no lock and sets only bits;
 * sandbox_report() and sandbox_check() run on one thread at a time. */
#ifndef TAPDP_SANDBOX_H
#define TAPDP_SANDBOX_H

#include <stdbool.h>

/* Drops the capabilities, sets NO_NEW_PRIVS and installs the handler and
 * the filter; with bpf, CAP_BPF stays (the fast path's). 0 or -errno (the
 * step that failed is logged). */
int sandbox_apply(bool bpf);
/* The same for the keeper (daemon/keeper.h), which holds descriptors and
 * needs no capability: it keeps none, and runs under the daemon's filter
 * (its calls are a few of the daemon's). */
int sandbox_apply_keeper(void);
/* The same for the namespace agent (daemon/ns-agent.h): the capabilities
 * it uses only, under the daemon's filter, as the keeper. */
int sandbox_apply_agent(void);

/* Logs "seccomp: refused system call NAME/NR" (an error) once for each
 * call refused since the last report; returns how many it logged. */
unsigned sandbox_report(void);

/* tapdpd --sandbox-check, once sandbox_apply() is done: a call the filter
 * refuses, made on this thread and on a new one, fails with EPERM both
 * times and is reported once. Says so on standard output; true if so. */
bool sandbox_check(void);

#endif
