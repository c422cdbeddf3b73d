/* SPDX-License-Identifier: Apache-2.0 */
/* Where the shim (libtapdp.so) is, for the programs that preload it
 * (tapdp-run, tapdpctl): beside the running executable (the build tree),
 * then in ../lib/tapdp beside it (an installed tree, wherever it was
 * moved), then in the library directory chosen at build time
 * (TAPDP_LIBDIR). And the preloading itself, and the same search for the
 * tree's other files (tapdp-run --module's tapdpd). */
#ifndef TAPDP_SHIM_PATH_H
#define TAPDP_SHIM_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The running program's path into out: 0, or -1. */
int shim_path_self(char *out, size_t len);
/* file beside the running program, else installed (a path relative to
 * its directory's parent, "sbin/tapdpd") in the tree it was installed
 * in: the first that access(mode) allows into out, 0; or -1. */
int shim_path_beside(const char *file, const char *installed, int mode,
		     char *out, size_t len);
/* The shim's path into out; 0, or -1 when none is readable. */
int shim_path_find(char *out, size_t len);
/* Puts the shim first in LD_PRELOAD (what was there stays after it);
 * 0, -1 when it is not found or memory runs out. */
int shim_path_preload(void);
/* Whether this process runs with the shim loaded. */
bool shim_path_loaded(void);

#endif
