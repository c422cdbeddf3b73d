/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpd: the Open vSwitch kernel datapath, served from userspace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <urcu.h>

#include "common/keep.h"
#include "common/kernel-profile.h"
#include "common/log.h"
#include "common/ns-socket.h"
#include "daemon/keeper.h"
#include "daemon/metrics-server.h"
#include "daemon/netns.h"
#include "daemon/ns-agent.h"
#include "daemon/sandbox.h"
#include "datapath/datapath.h"
#include "datapath/fastpath.h"
#include "families/dp-notify.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/server.h"
#include "tap/tnl-dev.h"
#include "tap/vport.h"

#ifndef TAPDP_VERSION
#define TAPDP_VERSION "0.1"
#endif

/* The shim may be preloaded here too (a harness's LD_PRELOAD, the
 * container's /etc/ld.so.preload): it would hand our own netlink sockets
 * to us, and a serving thread would wait for an answer only it could give
 * (issue 36). Finding this symbol in the program (exported by the
 * Makefile's link rule) it leaves every call to the kernel; the keeper, a
 * fork, has it too. What the program is decides, not an environment a
 * client could inherit. */
const char tapdp_daemon_self = 1;

/* Seconds the keeper waits for a successor (common/keep.h). */
#define RESTART_WAIT_DEFAULT	60

/* The profiles' names, "5.4, ..., 6.12 (the default)". */
static const char *
profile_names(void)
{
	static char names[128];
	const struct kernel_profile *p;
	size_t n = 0;

	for (unsigned i = 0; (p = kernel_profile_at(i)); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
			      i ? ", " : "", p->name);
	return names;
}

/* --fast-path's default, for every tapdpd a test or script starts. */
#define FAST_PATH_ENV	"TAPDP_FAST_PATH"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tapdpd [OPTIONS]\n"
		"Serves the Open vSwitch kernel datapath's generic netlink API\n"
		"to processes run with the tapdp shim (see tapdp-run).\n\n"
		"  --socket PATH     listen on PATH (default $%s or %s)\n"
		"  --detach          run in the background once ready\n"
		"  --pidfile PATH    write the daemon's pid to PATH\n"
		"  --log-file PATH   log to PATH instead of stderr\n"
		"  --ct-max N        track at most N connections (default %u)\n"
		"  --rx-queues N     receive queues and threads per port, 1 to %d\n"
		"                    (default: one per usable CPU)\n"
		"  --ctl-threads N   threads serving clients' requests beside the\n"
		"                    loop, 0 to %d (default: one per CPU)\n"
		"  --metrics ADDR    serve counters for Prometheus at\n"
		"                    http://ADDR/metrics (PORT, HOST:PORT)\n"
		"  --restart-wait S  after a crash, keep the datapath's devices,\n"
		"                    clients and state S seconds for a new\n"
		"                    tapdpd to take over (default %u)\n"
		"  --max-sockets-per-uid N\n"
		"                    netlink sockets a user without CAP_NET_ADMIN\n"
		"                    may hold (default %u; root: no limit)\n"
		"  --kernel VERSION  answer as that Linux release's openvswitch\n"
		"                    module: %s (default: the running kernel's,\n"
		"                    else the newest older one)\n"
		"  --fast-path MODE  bpf: forward the frames of megaflows that\n"
		"                    only output in the kernel, by BPF programs\n"
		"                    on the ports' devices; none: all frames\n"
		"                    through the daemon (default: $%s, else\n"
		"                    bpf where the daemon may load programs)\n"
		"  --no-sandbox      keep every capability and allow every system\n"
		"                    call (by default, once set up, only those it\n"
		"                    uses)\n"
		"  --sandbox-check   sandbox this process as the daemon would, make\n"
		"                    a system call the sandbox refuses, say whether\n"
		"                    it failed with EPERM and was logged, and exit\n"
		"  -v, --verbose     log more (repeat for debug)\n"
		"  -h, --help        show this help\n"
		"  -V, --version     show the version\n",
		TAPDP_SOCKET_ENV, TAPDP_DEFAULT_SOCKET,
		(unsigned)DP_CONNTRACK_MAX_DEFAULT, VPORT_RXQ_MAX,
		SERVER_THREADS_MAX, (unsigned)RESTART_WAIT_DEFAULT,
		(unsigned)SERVER_MAX_PER_UID_DEFAULT,
		profile_names(), FAST_PATH_ENV);
}

/* A count option's value, 1 to max; complains and returns false if not. */
static bool
parse_count(const char *option, const char *arg, unsigned long max,
	    unsigned long *out)
{
	char *end;

	*out = strtoul(arg, &end, 10);
	if (*end || !*arg || !*out || *out > max) {
		fprintf(stderr, "tapdpd: %s: %s\n", option, arg);
		return false;
	}
	return true;
}

static int
write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f) ? -errno : 0;
}

/* Forks; the parent waits for the child to say it is serving, so that a
 * client started right after `tapdpd --detach` finds the daemon. */
static int
detach(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 && c == 0 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static void
detach_done(int ready_fd, char status)
{
	int null;

	if (ready_fd < 0)
		return;
	(void)!write(ready_fd, &status, 1);
	close(ready_fd);
	/* Like any daemon: nothing left tied to the starting terminal or
	 * pipe (without --log-file, logs are then discarded). */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

static void
block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Execs the binary at path with our arguments (but --detach: we are
 * detached already, and keep our pid); the keeper holds everything for
 * it. Returns only if the exec failed, to stop as usual. */
static void
upgrade(const char *path, char **argv)
{
	char **args = argv;
	int n = 0;

	for (int i = 0; argv[i]; i++)
		if (strcmp(argv[i], "--detach"))
			args[n++] = argv[i];
	args[n] = NULL;
	execv(path, args);
	log_err("cannot exec %s for the upgrade: %s; stopping", path,
		strerror(errno));
}

/* The netlink server with the datapath's families and device events,
 * serving net in our namespace and contexts like it in others. */
static int
serve_open(const char *sock, struct dp_net *net,
	   const struct dp_net_config *cfg)
{
	int err = server_open(sock, net, netns_hooks(cfg));

	if (err)
		return err;
	families_register();
	return dp_notify_open(net, netns_gone);
}

static bool
is_own_journal(const struct keep_entry *e, void *arg)
{
	return !e->meta_len;
}

/* The journal of our namespace's datapaths (datapath/journal.h): the one
 * a dead predecessor left with the keeper, replayed into net, or a new
 * one, handed to the keeper. 0 or -errno. */
static int
journal_take_over(struct dp_net *net)
{
	struct keep_entry *e = keep_claim(KEEP_JOURNAL, is_own_journal, NULL);
	int err = -EINVAL, failed, fds[2];
	bool renewed;
	unsigned n;

	if (e && (e->n_fds == 1 || e->n_fds == 2)) {
		err = journal_open_kept(net, e->fds, e->n_fds, &renewed);
		/* The counters' file is taken or closed either way. */
		e->n_fds = 1;
	}
	if (e && !err) {
		if (renewed) {
			n = journal_keep_fds(net, fds);
			keep_update(e->id, fds, n, NULL, 0);
		}
		failed = journal_replay(net);
		if (failed < 0)
			return failed;
		log_info("the journal replayed: %u records, %d failed",
			 journal_records(net), failed);
		return 0;
	}
	if (e) {
		for (unsigned i = 0; i < e->n_fds; i++)
			close(e->fds[i]);
		keep_drop(e->id);
		log_err("the journal the keeper held is not one: starting "
			"with no datapath");
	}
	err = journal_open(net, -1);
	if (err)
		return err;
	if (keep_attached()) {
		n = journal_keep_fds(net, fds);
		keep_put(KEEP_JOURNAL, fds, n, NULL, 0);
	}
	return 0;
}

/* What the sandbox refused since the last tick, logged on the loop (the
 * SIGSYS handler only records it). */
static void
report_refusals(void *arg)
{
	(void)arg;
	sandbox_report();
}

/* Once a minute, the free memory the allocator holds goes back to the
 * system: what flows, connections and clients leave when they go would
 * otherwise stay resident, scattered through the arenas of the threads
 * that freed it (an hour's soak of the normal build saw resident memory
 * climb 4.7%, where the sanitizer build's count of the heap in use grew
 * 0.5%). */
#define TRIM_MS	60000

/* How soon a namespace that only the ports' sockets hold goes after its
 * last holder (daemon/netns.h). */
#define REAP_MS	1000

static void
reap_namespaces(void *arg)
{
	(void)arg;
	netns_reap();
}

static void
trim_memory(void *arg)
{
	(void)arg;
	malloc_trim(0);
}

/* The allocator's limits, set before the first thread. glibc gives each
 * thread that allocates an arena of its own, up to 8 per CPU, and keeps
 * the free memory at the top of an arena (malloc_trim() trims the main
 * arena's only); freeing a block mapped on its own raises the thresholds
 * to its size, after which tops that large stay. Ports' receive threads
 * come and go, so the arenas multiplied for minutes, each keeping a few
 * hundred KiB: in the soak, resident memory 46% above the heap in use
 * after 25 minutes, 7% with these (docs/RELIABILITY.md). Two arenas per
 * CPU: two threads of a CPU rarely allocate at once. */
#define ARENAS_PER_CPU	2
#define MMAP_MIN	(128 << 10)	/* glibc's first threshold */
#define TRIM_TOP	(128 << 10)

static void
tune_allocator(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	mallopt(M_ARENA_MAX, ARENAS_PER_CPU * (cpus > 0 ? cpus : 1));
	mallopt(M_MMAP_THRESHOLD, MMAP_MIN);
	mallopt(M_TRIM_THRESHOLD, TRIM_TOP);
}

/* Clients first, then the datapaths and their tracker (their threads may
 * still deliver upcalls to sockets until then), then what they freed after
 * a grace period, then the server. */
static void
serve_close(struct dp_net *net)
{
	server_close_clients();
	dp_notify_close();
	dp_net_destroy(net);
	netns_destroy_all();
	fastpath_stop();
	/* The tunnel devices made over rtnetlink, once no port serves
	 * them. */
	tnl_dev_destroy_all();
	rcu_barrier();
	server_close();
}

/* What the command line asks. */
struct options {
	const char *sock, *pidfile, *logfile, *metrics;
	struct dp_net_config cfg;
	unsigned restart_wait;
	int verbose;
	bool bg, sandboxed, check;
	enum { FAST_PATH_AUTO, FAST_PATH_BPF, FAST_PATH_NONE } fast_path;
};

static bool
fast_path_mode(const char *mode, struct options *o)
{
	if (strcmp(mode, "bpf") && strcmp(mode, "none")) {
		fprintf(stderr, "tapdpd: fast path %s: bpf or none\n", mode);
		return false;
	}
	o->fast_path = !strcmp(mode, "bpf") ? FAST_PATH_BPF : FAST_PATH_NONE;
	return true;
}

/* Reads argv into o: true to go on, else false with *status the exit
 * status (0 after --help or --version). */
static bool
options_parse(int argc, char **argv, struct options *o, int *status)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "detach", no_argument, NULL, 'd' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log-file", required_argument, NULL, 'l' },
		{ "ct-max", required_argument, NULL, 'c' },
		{ "rx-queues", required_argument, NULL, 'q' },
		{ "ctl-threads", required_argument, NULL, 't' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "restart-wait", required_argument, NULL, 'w' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "max-sockets-per-uid", required_argument, NULL, 'u' },
		{ "fast-path", required_argument, NULL, 'f' },
		{ "no-sandbox", no_argument, NULL, 'n' },
		{ "sandbox-check", no_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct kernel_profile *p;
	struct utsname uts;
	unsigned long n;
	int c;

	*o = (struct options) {
		.sock = getenv(TAPDP_SOCKET_ENV),
		.cfg = { .upcall = packet_family_upcalls,
			 .psample = psample_family_sample,
			 .packets = families_packet_sink },
		.restart_wait = RESTART_WAIT_DEFAULT,
		.sandboxed = true,
	};
	*status = 2;
	if (getenv(FAST_PATH_ENV) &&
	    !fast_path_mode(getenv(FAST_PATH_ENV), o))
		return false;
	if (uname(&uts) == 0)
		kernel_profile_use(kernel_profile_for_release(uts.release));
	while ((c = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->sock = optarg;
			break;
		case 'd':
			o->bg = true;
			break;
		case 'p':
			o->pidfile = optarg;
			break;
		case 'l':
			o->logfile = optarg;
			break;
		case 'c':
			if (!parse_count("--ct-max", optarg, UINT32_MAX, &n))
				return false;
			o->cfg.conntrack_max = n;
			break;
		case 'q':
			if (!parse_count("--rx-queues", optarg, VPORT_RXQ_MAX,
					 &n))
				return false;
			vport_set_rx_queues(n);
			break;
		case 't':
			/* 0: the loop alone serves, as before the threads. */
			if (!strcmp(optarg, "0"))
				n = 0;
			else if (!parse_count("--ctl-threads", optarg,
					      SERVER_THREADS_MAX, &n))
				return false;
			server_set_threads(n);
			break;
		case 'u':
			if (!parse_count("--max-sockets-per-uid", optarg,
					 UINT32_MAX, &n))
				return false;
			server_set_max_per_uid(n);
			break;
		case 'k':
			p = kernel_profile_find(optarg);
			if (!p) {
				fprintf(stderr, "tapdpd: --kernel %s: unknown "
					"version; the profiles are %s\n",
					optarg, profile_names());
				return false;
			}
			kernel_profile_use(p);
			break;
		case 'w':
			if (!parse_count("--restart-wait", optarg, 86400, &n))
				return false;
			o->restart_wait = n;
			break;
		case 'm':
			o->metrics = optarg;
			break;
		case 'f':
			if (!fast_path_mode(optarg, o))
				return false;
			break;
		case 'n':
			o->sandboxed = false;
			break;
		case 'C':
			o->check = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			*status = 0;
			return false;
		case 'V':
			printf("tapdpd %s\n", TAPDP_VERSION);
			*status = 0;
			return false;
		default:
			usage(stderr);
			return false;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return false;
	}
	if (!o->sock || !*o->sock)
		o->sock = TAPDP_DEFAULT_SOCKET;
	return true;
}

/* A daemon starting, serving, stopping: how far start() got says what
 * stop() undoes. */
struct daemon {
	const struct options *o;
	enum {
		UP_NONE,
		UP_KEEPER,	/* attached to a keeper */
		UP_NET,		/* our namespace's context */
		UP_SERVER,	/* the socket, families and link events */
		UP_PIDFILE,
		UP_METRICS,
	} up;
	int ready_fd;		/* --detach's: the parent waits on it */
	int kept;		/* keep_attach's: 1 when a keeper held state */
	char self[4096];	/* what an upgrade execs */
	struct dp_net *net;
};

/* A keeper that outlived our predecessor hands its state over; else we
 * start one (before any thread). */
static int
start_keeper(struct daemon *d)
{
	char keeper[108];

	keep_path(d->o->sock, keeper, sizeof(keeper));
	d->kept = keep_attach(keeper);
	if (d->kept == 1)
		d->kept = keep_take() ? -EPROTO : 1;
	else if (d->kept == 0)
		d->kept = keeper_spawn(keeper, d->o->restart_wait,
				       d->o->sandboxed);
	if (d->kept == -EADDRINUSE) {
		log_err("another tapdpd is already serving %s", d->o->sock);
		fprintf(stderr, "tapdpd: another tapdpd is already serving %s\n",
			d->o->sock);
		return d->kept;
	}
	if (d->kept < 0) {
		log_err("%s: %s", keeper, strerror(-d->kept));
		return d->kept;
	}
	d->up = UP_KEEPER;
	return 0;
}

/* The namespace agent our predecessor left with the keeper, else a new
 * one, while we may still setns() and have one thread. Without one, the
 * datapaths of other namespaces have internal ports only. */
static void
start_agent(const struct daemon *d)
{
	struct keep_entry *e = keep_claim(KEEP_AGENT, NULL, NULL);
	int fd;

	if (e && e->n_fds == 1) {
		ns_socket_attach(e->fds[0]);
		return;
	}
	fd = ns_agent_spawn(d->o->sandboxed);
	if (fd < 0) {
		log_info("no namespace agent (%s): other namespaces' "
			 "datapaths get internal ports only", strerror(-fd));
		return;
	}
	keep_put(KEEP_AGENT, &fd, 1, NULL, 0);
	ns_socket_attach(fd);
}

/* Everything up to serving; on failure, logged, d->up says what to undo
 * (stop()). 0 or -errno. */
static int
start(struct daemon *d)
{
	const struct options *o = d->o;
	ssize_t len;
	int err;

	if (o->bg && (err = detach(&d->ready_fd))) {
		fprintf(stderr, "tapdpd: cannot detach: %s\n", strerror(-err));
		return err;
	}
	/* Who to exec for an upgrade: the binary now at our path.
	 * readlink() does not terminate the path: whatever the stack held
	 * after it became part of the name (an upgrade under ASan failed
	 * with ENOENT on "tapdpd\020"). */
	len = readlink("/proc/self/exe", d->self, sizeof(d->self) - 1);
	d->self[len < 0 ? 0 : len] = '\0';
	err = start_keeper(d);
	if (err)
		return err;
	start_agent(d);
	/* A stop or an upgrade asked for before the loop runs waits for it
	 * (server_run takes them), rather than killing us half set up; the
	 * threads made from here on leave them to this one. */
	block_signals();
	/* Before any port, and before the sandbox (loading takes CAP_BPF).
	 * Not asked for, a fast path that cannot be is no warning. */
	if (o->fast_path != FAST_PATH_NONE && (err = fastpath_start()))
		log_msg(o->fast_path == FAST_PATH_BPF ? LOG_LVL_WARN
						       : LOG_LVL_INFO,
			"fast path off: %s", fastpath_state());
	d->net = dp_net_new(&o->cfg);
	if (!d->net) {
		log_err("cannot serve %s: %s", o->sock, strerror(ENOMEM));
		return -ENOMEM;
	}
	d->up = UP_NET;
	/* The control thread writes what packet threads read under RCU. */
	rcu_register_thread();
	err = serve_open(o->sock, d->net, &o->cfg);
	if (err == -EADDRINUSE) {
		/* Not ours to close: the socket is the other daemon's. */
		log_err("another tapdpd is already serving %s", o->sock);
		fprintf(stderr, "tapdpd: another tapdpd is already serving %s\n",
			o->sock);
		return err;
	}
	d->up = UP_SERVER;
	if (err) {
		log_err("cannot serve %s: %s", o->sock, strerror(-err));
		return err;
	}
	if (o->pidfile && (err = write_pidfile(o->pidfile))) {
		log_err("%s: %s", o->pidfile, strerror(-err));
		return err;
	}
	d->up = UP_PIDFILE;
	if (o->metrics && (err = metrics_server_open(o->metrics, d->net))) {
		log_err("--metrics %s: %s", o->metrics, strerror(-err));
		fprintf(stderr, "tapdpd: --metrics %s: %s\n", o->metrics,
			strerror(-err));
		return err;
	}
	d->up = UP_METRICS;
	/* Everything that needs more than the sandbox allows is open: the
	 * socket, the link events, /dev/kmsg, the log, the pidfile and the
	 * metrics' socket. */
	if ((err = server_every(TRIM_MS, trim_memory, NULL)) ||
	    (err = server_every(REAP_MS, reap_namespaces, NULL)) ||
	    (o->sandboxed &&
	     ((err = server_every(1000, report_refusals, NULL)) ||
	      (err = sandbox_apply(fastpath_on()))))) {
		log_err("cannot set the daemon's timers or sandbox: %s",
			strerror(-err));
		return err;
	}
	/* The datapaths before the clients, who must not hear of the
	 * replay's changes; after the sandbox, which wants one thread, and
	 * the ports' replay makes theirs. */
	err = journal_take_over(d->net);
	if (err) {
		log_err("the journal: %s", strerror(-err));
		return err;
	}
	if (d->kept == 1)
		log_info("made again %u other namespaces' datapaths",
			 netns_take_over());
	if ((err = metrics_server_start())) {
		log_err("the metrics' thread: %s", strerror(-err));
		return err;
	}
	if (d->kept == 1)
		log_info("took over %u client sockets from the daemon before",
			 server_restore_clients());
	keep_release_unclaimed();
	return 0;
}

/* Undoes what start() did, the keeper told to quit first (a clean stop
 * takes the devices and sockets along). */
static void
stop(struct daemon *d)
{
	if (d->up >= UP_KEEPER)
		keep_quit();
	if (d->up >= UP_METRICS)
		metrics_server_close();
	if (d->up >= UP_SERVER)
		serve_close(d->net);
	else if (d->up >= UP_NET)
		dp_net_destroy(d->net);
	if (d->up >= UP_NET)
		rcu_unregister_thread();
	if (d->up >= UP_PIDFILE && d->o->pidfile)
		unlink(d->o->pidfile);
}

int
main(int argc, char **argv)
{
	struct options o;
	struct daemon d = { .o = &o, .ready_fd = -1 };
	int status, err;

	tune_allocator();
	if (!options_parse(argc, argv, &o, &status))
		return status;
	err = log_open(o.logfile, o.verbose);
	if (err) {
		fprintf(stderr, "tapdpd: %s: %s\n", o.logfile, strerror(-err));
		return 1;
	}
	if (o.check)
		return (!o.sandboxed || !sandbox_apply(false)) &&
			       sandbox_check() ? 0
									 : 1;
	if (start(&d)) {
		stop(&d);
		detach_done(d.ready_fd, 1);
		return 1;
	}
	log_info("tapdpd %s serving %s as Linux %s's openvswitch%s",
		 TAPDP_VERSION, o.sock, kernel_profile()->name,
		 o.sandboxed ? "" : ", not sandboxed");
	detach_done(d.ready_fd, 0);
	err = server_run();
	if (!err && server_upgrade_requested() && d.self[0])
		upgrade(d.self, argv);
	stop(&d);
	/* Shutdown's refusals too. */
	sandbox_report();
	return err ? 1 : 0;
}
