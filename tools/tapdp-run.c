/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp-run: runs a command with the tapdp shim preloaded.
 *
 *   tapdp-run [--socket PATH] [--module] -- CMD ARGS...
 *
 * The shim is looked up as tools/shim-path.h says. With --module the
 * command also sees tapdpd as a loadable openvswitch module
 * (tools/module.h); this program is then its modprobe, rmmod and lsmod
 * too, and stays to clean up after the command. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "include/tapdp/proto.h"
#include "tools/module.h"
#include "tools/shim-path.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: tapdp-run [--socket PATH] [--module] -- CMD "
		   "[ARGS...]\n"
		   "Runs CMD with its generic netlink sockets served by "
		   "tapdpd.\n"
		   "  --module  modprobe openvswitch starts a private tapdpd, "
		   "unloading stops it\n");
}

static int
exec_preloaded(char **argv)
{
	if (shim_path_preload() != 0) {
		fprintf(stderr, "tapdp-run: libtapdp.so not found\n");
		return 127;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "tapdp-run: %s: ", argv[0]);
	perror(NULL);
	return 127;
}

/* The command, with the module's directory around it. */
static int
run_with_module(char **argv)
{
	char dir[4096];
	int st = 0;
	pid_t pid;

	if (module_env_setup(dir, sizeof(dir)) != 0) {
		perror("tapdp-run: --module");
		return 127;
	}
	pid = fork();
	if (pid == 0)
		_exit(exec_preloaded(argv));
	/* As system(): the terminal's signals are the command's. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	st = pid < 0 || waitpid(pid, &st, 0) < 0 ? 127 << 8 : st;
	module_env_cleanup(dir);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int
main(int argc, char **argv)
{
	bool module = false;
	int i = 1;

	if (module_command(argv[0]))
		return module_main(argc, argv);
	while (i < argc && strcmp(argv[i], "--") != 0) {
		if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			setenv(TAPDP_SOCKET_ENV, argv[i + 1], 1);
			i += 2;
		} else if (!strcmp(argv[i], "--module")) {
			module = true;
			i++;
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
	return module ? run_with_module(argv + i) : exec_preloaded(argv + i);
}
