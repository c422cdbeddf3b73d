/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp-run: runs a command with the tapdp shim preloaded.
 *
 *   tapdp-run [--socket PATH] -- CMD ARGS...
 *
 * The shim is looked up beside this executable (the build tree), then in
 * ../lib/tapdp beside it (an installed tree, wherever it was moved), then in
 * the library directory chosen at build time. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/tapdp/proto.h"

#ifndef TAPDP_LIBDIR
#define TAPDP_LIBDIR "/usr/local/lib/tapdp"
#endif

static void
usage(FILE *f)
{
	fprintf(f, "usage: tapdp-run [--socket PATH] -- CMD [ARGS...]\n"
		   "Runs CMD with its generic netlink sockets served by "
		   "tapdpd.\n");
}

static int
find_shim(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		const char *dir;

		exe[n] = '\0';
		dir = dirname(exe);
		snprintf(out, len, "%s/libtapdp.so", dir);
		if (access(out, R_OK) == 0)
			return 0;
		snprintf(out, len, "%s/../lib/tapdp/libtapdp.so", dir);
		if (access(out, R_OK) == 0)
			return 0;
	}
	snprintf(out, len, "%s/libtapdp.so", TAPDP_LIBDIR);
	return access(out, R_OK);
}

int
main(int argc, char **argv)
{
	char shim[PATH_MAX], *preload;
	const char *old;
	int i = 1;

	while (i < argc && strcmp(argv[i], "--") != 0) {
		if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			setenv(TAPDP_SOCKET_ENV, argv[i + 1], 1);
			i += 2;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			break;
		}
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (find_shim(shim, sizeof(shim)) != 0) {
		fprintf(stderr, "tapdp-run: libtapdp.so not found\n");
		return 127;
	}
	old = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", shim, old && *old ? ":" : "",
		     old ? old : "") < 0)
		return 127;
	setenv("LD_PRELOAD", preload, 1);
	execvp(argv[i], argv + i);
	fprintf(stderr, "tapdp-run: %s: ", argv[i]);
	perror(NULL);
	return 127;
}
