/* SPDX-License-Identifier: Apache-2.0 */
/* System call names by number, for the sandbox's log lines. The table is
 * generated at build time (scripts/gen-syscall-names.sh) from the C
 * library's <sys/syscall.h> for the architecture built for.
 *
 * Thread-safety: a constant table; any thread. */
#ifndef TAPDP_SYSCALL_NAMES_H
#define TAPDP_SYSCALL_NAMES_H

/* The name of system call nr, NULL if the C library knows none. */
const char *syscall_name(long nr);

#endif
