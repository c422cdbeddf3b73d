/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tools/shim-path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TAPDP_LIBDIR
#define TAPDP_LIBDIR "/usr/local/lib/tapdp"
#endif

int
shim_path_self(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);

	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

int
shim_path_beside(const char *file, const char *installed, int mode,
		 char *out, size_t len)
{
	char exe[PATH_MAX];
	const char *dir;

	if (shim_path_self(exe, sizeof(exe)) != 0)
		return -1;
	dir = dirname(exe);
	snprintf(out, len, "%s/%s", dir, file);
	if (access(out, mode) == 0)
		return 0;
	snprintf(out, len, "%s/../%s", dir, installed);
	return access(out, mode) == 0 ? 0 : -1;
}

int
shim_path_find(char *out, size_t len)
{
	if (shim_path_beside("libtapdp.so", "lib/tapdp/libtapdp.so", R_OK,
			     out, len) == 0)
		return 0;
	snprintf(out, len, "%s/libtapdp.so", TAPDP_LIBDIR);
	return access(out, R_OK) == 0 ? 0 : -1;
}

int
shim_path_preload(void)
{
	char shim[PATH_MAX], *preload;
	const char *old = getenv("LD_PRELOAD");
	int err;

	if (shim_path_find(shim, sizeof(shim)) != 0)
		return -1;
	if (asprintf(&preload, "%s%s%s", shim, old && *old ? ":" : "",
		     old ? old : "") < 0)
		return -1;
	err = setenv("LD_PRELOAD", preload, 1);
	free(preload);
	return err;
}

bool
shim_path_loaded(void)
{
	char line[PATH_MAX + 128];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libtapdp.so") != NULL;
	fclose(f);
	return found;
}
