/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tools/module.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "include/tapdp/proto.h"
#include "tools/shim-path.h"

#define ENV_DIR		"TAPDP_MODULE_DIR"
#define ENV_DAEMON	"TAPDP_MODULE_DAEMON"
#define ENV_PATH	"TAPDP_MODULE_PATH"	/* the PATH before ours */

static const char *const commands[] = { "modprobe", "rmmod", "lsmod" };

int
module_env_setup(char *dir, size_t len)
{
	char exe[PATH_MAX], link[PATH_MAX], daemon[PATH_MAX], *path;
	const char *tmp = getenv("TMPDIR"), *old = getenv("PATH");

	if (shim_path_self(exe, sizeof(exe)) != 0)
		return -1;
	snprintf(dir, len, "%s/tapdp-module.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(link, sizeof(link), "%s/%s", dir, commands[i]);
		if (symlink(exe, link) < 0)
			return -1;
	}
	/* tapdpd of this program's tree, else by PATH. */
	if (shim_path_beside("tapdpd", "sbin/tapdpd", X_OK, daemon,
			     sizeof(daemon)) != 0)
		snprintf(daemon, sizeof(daemon), "tapdpd");
	snprintf(link, sizeof(link), "%s/tapdpd.sock", dir);
	if (asprintf(&path, "%s:%s", dir, old ? old : "/usr/sbin:/usr/bin") < 0)
		return -1;
	if (setenv(ENV_PATH, old ? old : "", 1) || setenv("PATH", path, 1) ||
	    setenv(ENV_DIR, dir, 1) || setenv(ENV_DAEMON, daemon, 1) ||
	    setenv(TAPDP_SOCKET_ENV, link, 1)) {
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* A file of the directory. */
static void
state_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", getenv(ENV_DIR), name);
}

/* The running daemon's pid, 0 when none runs. */
static pid_t
daemon_pid(void)
{
	char path[PATH_MAX];
	long pid = 0;
	FILE *f;

	state_path(path, sizeof(path), "tapdpd.pid");
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0 ||
	    (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

/* Whether pid is gone (or only a zombie, whose parent reaps it later). */
static bool
gone(pid_t pid)
{
	char path[64], line[128];
	bool zombie = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6))
			zombie = strchr(line, 'Z') != NULL;
	fclose(f);
	return zombie;
}

/* Runs argv (a program by PATH) and waits: its exit status. */
static int
run(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: ", argv[0]);
		perror(NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Loads openvswitch: a fresh daemon, ready once --detach returns. */
static int
load(void)
{
	char sock[PATH_MAX], pidf[PATH_MAX], log[PATH_MAX];
	char *argv[] = { getenv(ENV_DAEMON), "--socket", sock, "--pidfile",
			 pidf, "--log-file", log, "--detach", NULL };

	if (daemon_pid())
		return 0;
	state_path(sock, sizeof(sock), "tapdpd.sock");
	state_path(pidf, sizeof(pidf), "tapdpd.pid");
	state_path(log, sizeof(log), "tapdpd.log");
	/* The daemon serves; it is no client of itself. */
	unsetenv("LD_PRELOAD");
	return run(argv) ? 1 : 0;
}

/* Unloads openvswitch: the daemon stops and its state goes with it (a
 * clean stop tells its keeper to let everything go). */
static int
unload(void)
{
	pid_t pid = daemon_pid();
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	char pidf[PATH_MAX];

	if (!pid)
		return 0;
	kill(pid, SIGTERM);
	for (int i = 0; i < 1000 && !gone(pid); i++)
		nanosleep(&tick, NULL);
	if (!gone(pid)) {
		kill(pid, SIGKILL);
		for (int i = 0; i < 500 && !gone(pid); i++)
			nanosleep(&tick, NULL);
	}
	state_path(pidf, sizeof(pidf), "tapdpd.pid");
	unlink(pidf);
	return gone(pid) ? 0 : 1;
}

void
module_env_cleanup(const char *dir)
{
	char path[PATH_MAX];
	static const char *const files[] = {
		"modprobe", "rmmod", "lsmod", "tapdpd.sock", "tapdpd.pid",
		"tapdpd.log",
	};

	unload();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

bool
module_command(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(base, commands[i]))
			return true;
	return false;
}

enum kind { OTHER, DATAPATH, VPORT, DEVICE, CONNTRACK };

/* What a module name stands for here; '-' and '_' are one, as to kmod. */
static enum kind
kind_of(const char *name)
{
	char m[64];
	size_t i;

	for (i = 0; i < sizeof(m) - 1 && name[i]; i++)
		m[i] = name[i] == '-' ? '_' : name[i];
	m[i] = '\0';
	if (!strcmp(m, "openvswitch"))
		return DATAPATH;
	if (!strncmp(m, "vport_", 6))
		return VPORT;
	/* What the kernel asks for a link kind it lacks (the shim asks the
	 * same for the kinds tapdpd serves: compat/autoload.h). */
	if (!strncmp(m, "rtnl_link_", 10))
		return DEVICE;
	if (!strncmp(m, "nf_conntrack", 12) || !strncmp(m, "nf_nat", 6) ||
	    !strncmp(m, "nf_defrag", 9) || !strncmp(m, "nfnetlink", 9))
		return CONNTRACK;
	return OTHER;
}

/* The system's command name, found on the PATH from before ours. */
static int
system_command(const char *name, char **argv)
{
	const char *path = getenv(ENV_PATH);
	char *copy = strdup(path && *path ? path : "/usr/sbin:/usr/bin:/sbin"),
	     *save = NULL, full[PATH_MAX];

	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(full, sizeof(full), "%s/%s", d, name);
		if (access(full, X_OK) == 0) {
			free(copy);
			execv(full, argv);
			break;
		}
	}
	free(copy);
	fprintf(stderr, "%s: not found\n", name);
	return 127;
}

/* One module in or out. */
static int
change(const char *cmd, const char *name, bool remove, bool quiet)
{
	switch (kind_of(name)) {
	case DATAPATH:
		if (remove && !daemon_pid() && !strcmp(cmd, "rmmod")) {
			if (!quiet)
				fprintf(stderr, "rmmod: ERROR: Module %s is "
					"not currently loaded\n", name);
			return 1;
		}
		return remove ? unload() : load();
	case VPORT:
	case DEVICE:
		/* A vport module needs openvswitch, and tapdpd is the
		 * device's driver; their removal leaves it. */
		return remove ? 0 : load();
	case CONNTRACK:
		return 0;
	default:
		return -1;
	}
}

static int
lsmod(void)
{
	char *real[] = { "lsmod", NULL };
	pid_t pid;
	int st;

	/* A kernel without modules has no list for kmod to read. */
	if (access("/proc/modules", R_OK) != 0) {
		printf("Module                  Size  Used by\n");
	} else {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(system_command("lsmod", real));
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 1;
	}
	if (daemon_pid())
		printf("openvswitch           196608  0\n");
	return 0;
}

int
module_main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	bool remove, quiet = false, all = false;
	int first = 0, err = 0;

	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "lsmod"))
		return lsmod();
	remove = !strcmp(base, "rmmod");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") || !strcmp(argv[i], "--remove"))
			remove = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = true;
		else if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "--all"))
			all = true;
		else if (argv[i][0] == '-')
			return system_command(base, argv);
		else if (!first)
			first = i;
	}
	if (!first)
		return system_command(base, argv);
	/* modprobe takes one module and its parameters unless -a or -r;
	 * rmmod takes modules. */
	for (int i = first; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (kind_of(argv[i]) == OTHER)
			return system_command(base, argv);
		if (!all && !remove)
			break;
	}
	for (int i = first; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (change(base, argv[i], remove, quiet))
			err = 1;
		if (!all && !remove)
			break;
	}
	return err;
}
