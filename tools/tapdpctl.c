/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl: what the running tapdpd does, from its own families and the
 * OVS ones, as people read it or (--json) as scripts do.
 *
 *   tapdpctl [--json] [--socket PATH] COMMAND [ARGS]
 *
 * It talks netlink through the shim like any client, and loads the shim
 * itself (running itself again with it preloaded) when it is not loaded. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/ctl-cmd.h"
#include "tools/shim-path.h"
#include "include/tapdp/proto.h"

static const struct ctl_cmd *const cmds[] = {
	&ctl_cmd_status,
	&ctl_cmd_drops,
	&ctl_cmd_upcalls,
	&ctl_cmd_flows,
	&ctl_cmd_trace,
	&ctl_cmd_capture,
	&ctl_cmd_nlmon,
};
#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

int
ctl_fail(const char *what, int err)
{
	fprintf(stderr, "tapdpctl: %s: %s\n", what, strerror(-err));
	return 1;
}

/* Runs this program again, by its own path (so that its command name
 * stays tapdpctl), with the shim preloaded; returns only on failure. */
static int
run_again(char **argv)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		perror("tapdpctl: /proc/self/exe");
		return 127;
	}
	exe[n] = '\0';
	execv(exe, argv);
	fprintf(stderr, "tapdpctl: %s: %s\n", exe, strerror(errno));
	return 127;
}

void *
ctl_grow(void *arr, unsigned *n, size_t size)
{
	void **p = arr;
	char *bigger = realloc(*p, (*n + 1) * size);

	if (!bigger)
		return NULL;
	*p = bigger;
	memset(bigger + *n * size, 0, size);
	return bigger + (*n)++ * size;
}

size_t
ctl_addf(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (n >= len)
		return n;
	va_start(ap, fmt);
	r = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return r < 0 ? n : n + r;
}

int
ctl_family(struct ctl_ctx *ctx, const char *family, uint16_t *id,
	   const char *group, uint32_t *group_id)
{
	const char *sock = getenv(TAPDP_SOCKET_ENV);
	int err = gclient_family(&ctx->nl, family, id, group, group_id);

	if (err == -ENOENT) {
		/* Without a daemon the shim leaves the socket to the
		 * kernel, which has none of tapdpd's families. */
		fprintf(stderr, "tapdpctl: no tapdpd serves %s (no family %s)\n",
			sock ? sock : TAPDP_DEFAULT_SOCKET, family);
		return 1;
	}
	return err ? ctl_fail(family, err) : 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: tapdpctl [--json] [--socket PATH] COMMAND [ARGS]\n"
		   "What the running tapdpd does. Commands:\n");
	for (unsigned i = 0; i < N_CMDS; i++)
		fprintf(f, "  %-28s %s\n", cmds[i]->usage, cmds[i]->help);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_ctx ctx = { .json = false };
	int c, err;

	/* Options stop at the command: its own follow it. */
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 's':
			setenv(TAPDP_SOCKET_ENV, optarg, 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (unsigned i = 0; i < N_CMDS; i++) {
		if (strcmp(argv[optind], cmds[i]->name))
			continue;
		if (!shim_path_loaded()) {
			/* Once: a shim that loads and is not seen must not
			 * make it run itself for ever. */
			if (getenv("TAPDPCTL_PRELOADED") ||
			    setenv("TAPDPCTL_PRELOADED", "1", 1) ||
			    shim_path_preload() != 0) {
				fprintf(stderr,
					"tapdpctl: libtapdp.so not found\n");
				return 127;
			}
			return run_again(argv);
		}
		err = gclient_open(&ctx.nl);
		if (err) {
			fprintf(stderr, "tapdpctl: netlink socket: %s\n",
				strerror(-err));
			return 1;
		}
		err = cmds[i]->run(&ctx, argc - optind, argv + optind);
		gclient_close(&ctx.nl);
		return err;
	}
	fprintf(stderr, "tapdpctl: unknown command %s\n", argv[optind]);
	usage(stderr);
	return 2;
}
