/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp-run: runs a command with the tapdp shim preloaded.
 *
 *   tapdp-run [--socket PATH] -- CMD ARGS...
 *
 * The shim is looked up as tools/shim-path.h says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/shim-path.h"
#include "include/tapdp/proto.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: tapdp-run [--socket PATH] -- CMD [ARGS...]\n"
		   "Runs CMD with its generic netlink sockets served by "
		   "tapdpd.\n");
}

int
main(int argc, char **argv)
{
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
	if (shim_path_preload() != 0) {
		fprintf(stderr, "tapdp-run: libtapdp.so not found\n");
		return 127;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "tapdp-run: %s: ", argv[i]);
	perror(NULL);
	return 127;
}
