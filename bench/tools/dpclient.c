/* SPDX-License-Identifier: Apache-2.0 */
/* dpclient: the OVS clients of the fault benchmarks: those
 * bench/client-kill.sh kills and what it checks the daemon with
 * afterwards, and bench/upcall-storm.sh's upcall handler. Run it under
 * tapdp-run, in the daemon's namespace.
 *
 *   dpclient setup DP N
 *	puts N flows (the base: eth src 02:00:00:xx:xx:xx) into DP, 100 per
 *	sendmsg, each acknowledged
 *   dpclient loop DP PORT N SEED PIDS
 *	N times: forks a client that starts, right away and over again, one
 *	of a long flow dump, a batch of 100 flow puts in one sendmsg, one
 *	flow put, an ovs_flow group join and listen, or a set of PORT's
 *	upcall pid to its own portid; kills it (SIGKILL) after a random 0 to
 *	20 ms; reaps it. The clients' pids (their portids) go to the file
 *	PIDS. Prints, for each kind of client, how many were killed before
 *	their socket was set up, how many while at work, and how many
 *	requests they had completed.
 *	The flows the put clients install come from a pool of POOL keys
 *	(eth src 0a:00:00:00:xx:xx): the state can grow by those alone.
 *   dpclient dump DP
 *	one line per flow of DP: its eth src
 *   dpclient del-pool DP
 *	deletes every pool flow there is; prints "deleted N"
 *   dpclient probe PIDS
 *	binds a new socket to each portid of the file PIDS; prints "probed
 *	N, still bound M": M portids a dead client's socket still holds
 *   dpclient port-pid DP PORT [PID]
 *	prints PORT's upcall pid, or sets it to PID
 *   dpclient upcall-listen DP RATE MARK-IP
 *	DP's upcall handler (DP dispatches per CPU, as ovs-dpctl makes it:
 *	every CPU's upcalls come to this socket), reading at most RATE
 *	upcalls a second: prints "ready" once it is, and on SIGUSR1
 *	"received N overruns M" (M: reads that found the socket overrun).
 *	The upcall of a frame from MARK-IP prints "mark T" (T: the
 *	realtime clock's seconds when it was read). SIGTERM ends it.
 *
 * Exit status: 0, or 1 when a request failed or a check found something
 * (the message says which), 2 when the tool itself failed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/openvswitch.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH		100
#define POOL		200
#define KILL_MAX_US	20000
#define BUF_SIZE	(64 << 10)

static void __attribute__((noreturn))
die(const char *what)
{
	fprintf(stderr, "dpclient: %s: %s\n", what, strerror(errno));
	exit(2);
}

struct ovs {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
	int dp_ifindex;
	uint32_t dp_features;
	uint16_t dp_family, flow_family, vport_family, packet_family;
	uint32_t flow_group;
};

static struct nlmsghdr *
genl_msg(char *buf, uint16_t family, uint8_t cmd, uint16_t flags,
	 uint32_t seq, int dp_ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	if (dp_ifindex >= 0) {
		struct ovs_header *oh = mnl_nlmsg_put_extra_header(nlh,
								   sizeof(*oh));

		oh->dp_ifindex = dp_ifindex;
	}
	return nlh;
}

/* Reads answers to seq until done; cb sees each message that is not an
 * error or the end. Returns 0, or the first error answered (negative). */
static int
receive(struct ovs *o, uint32_t seq, size_t read_len, mnl_cb_t cb, void *arg)
{
	static char buf[BUF_SIZE];
	int ret;

	do {
		ssize_t n = mnl_socket_recvfrom(o->nl, buf, read_len);

		if (n < 0)
			die("recv");
		ret = mnl_cb_run(buf, n, seq, o->portid, cb, arg);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static void
send_msg(struct ovs *o, const void *buf, size_t len)
{
	if (mnl_socket_sendto(o->nl, buf, len) < 0)
		die("send");
}

struct family_arg {
	uint16_t id;
	const char *group;
	uint32_t group_id;
};

static int
group_cb(const struct nlattr *grp, struct family_arg *fa)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = mnl_attr_get_u32(a);
	}
	if (name && fa->group && !strcmp(name, fa->group))
		fa->group_id = id;
	return MNL_CB_OK;
}

static int
family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct family_arg *fa = arg;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			fa->id = mnl_attr_get_u16(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_for_each_nested(g, a)
				group_cb(g, fa);
	}
	return MNL_CB_OK;
}

static uint16_t
resolve(struct ovs *o, const char *name, const char *group,
	uint32_t *group_id)
{
	char buf[256];
	struct nlmsghdr *nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
					NLM_F_ACK, ++o->seq, -1);
	struct family_arg fa = { .group = group };

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	send_msg(o, buf, nlh->nlmsg_len);
	if (receive(o, o->seq, BUF_SIZE, family_cb, &fa) || !fa.id) {
		fprintf(stderr, "dpclient: no family %s\n", name);
		exit(2);
	}
	if (group_id)
		*group_id = fa.group_id;
	return fa.id;
}

static int
dp_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ovs_header *oh = (const void *)((const char *)
		mnl_nlmsg_get_payload(nlh) + sizeof(struct genlmsghdr));
	struct ovs *o = arg;
	const struct nlattr *a;

	o->dp_ifindex = oh->dp_ifindex;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr) + sizeof(*oh))
		if (mnl_attr_get_type(a) == OVS_DP_ATTR_USER_FEATURES &&
		    mnl_attr_get_payload_len(a) >= 4)
			o->dp_features = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* A socket, the OVS families, and DP's ifindex (when dp). */
static void
ovs_open(struct ovs *o, const char *dp)
{
	char buf[256];
	struct nlmsghdr *nlh;

	memset(o, 0, sizeof(*o));
	o->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!o->nl || mnl_socket_bind(o->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("socket");
	o->portid = mnl_socket_get_portid(o->nl);
	o->seq = time(NULL);
	o->dp_family = resolve(o, OVS_DATAPATH_FAMILY, NULL, NULL);
	o->flow_family = resolve(o, OVS_FLOW_FAMILY, OVS_FLOW_MCGROUP,
				 &o->flow_group);
	o->vport_family = resolve(o, OVS_VPORT_FAMILY, NULL, NULL);
	o->packet_family = resolve(o, OVS_PACKET_FAMILY, NULL, NULL);
	if (!dp)
		return;
	nlh = genl_msg(buf, o->dp_family, OVS_DP_CMD_GET, NLM_F_ACK, ++o->seq,
		       0);
	mnl_attr_put_strz(nlh, OVS_DP_ATTR_NAME, dp);
	send_msg(o, buf, nlh->nlmsg_len);
	o->dp_ifindex = -1;
	if (receive(o, o->seq, BUF_SIZE, dp_cb, o) ||
	    o->dp_ifindex < 0) {
		fprintf(stderr, "dpclient: no datapath %s\n", dp);
		exit(2);
	}
}

/* The flow eth(src=mac,dst=02:ff:..),eth_type(0x88cc) -> drop. */
static void
put_key(struct nlmsghdr *nlh, const uint8_t mac[6])
{
	struct ovs_key_ethernet eth = {
		.eth_dst = { 0x02, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	struct nlattr *key = mnl_attr_nest_start(nlh, OVS_FLOW_ATTR_KEY);

	memcpy(eth.eth_src, mac, 6);
	mnl_attr_put_u32(nlh, OVS_KEY_ATTR_IN_PORT, 1);
	mnl_attr_put(nlh, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	mnl_attr_put_u16(nlh, OVS_KEY_ATTR_ETHERTYPE, htons(0x88cc));
	mnl_attr_nest_end(nlh, key);
}

static void
base_mac(unsigned i, uint8_t mac[6])
{
	uint8_t m[6] = { 0x02, 0, 0, i >> 16, i >> 8, i };

	memcpy(mac, m, 6);
}

/* i wraps: any index is a pool key. */
static void
pool_mac(unsigned i, uint8_t mac[6])
{
	uint8_t m[6] = { 0x0a, 0, 0, 0, (i % POOL) >> 8, i % POOL };

	memcpy(mac, m, 6);
}

/* count flows (macs of first, first + 1...) in one sendmsg; returns how
 * many were answered with an error. */
static unsigned
put_flows(struct ovs *o, void (*mac_of)(unsigned, uint8_t *), unsigned first,
	  unsigned count)
{
	static char buf[BATCH * 256];
	uint32_t seq0 = o->seq + 1;
	size_t len = 0;
	unsigned failed = 0;

	for (unsigned i = 0; i < count; i++) {
		struct nlmsghdr *nlh = genl_msg(buf + len, o->flow_family,
						OVS_FLOW_CMD_NEW,
						NLM_F_ACK | NLM_F_CREATE,
						++o->seq, o->dp_ifindex);
		uint8_t mac[6];

		mac_of(first + i, mac);
		put_key(nlh, mac);
		mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh,
						OVS_FLOW_ATTR_ACTIONS));
		len += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	send_msg(o, buf, len);
	for (unsigned i = 0; i < count; i++)
		if (receive(o, seq0 + i, BUF_SIZE, NULL, NULL))
			failed++;
	return failed;
}

static int
flow_mac_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a, *k;
	size_t off = sizeof(struct genlmsghdr) + sizeof(struct ovs_header);

	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) != OVS_FLOW_ATTR_KEY)
			continue;
		mnl_attr_for_each_nested(k, a) {
			const struct ovs_key_ethernet *e;

			if (mnl_attr_get_type(k) != OVS_KEY_ATTR_ETHERNET ||
			    mnl_attr_get_payload_len(k) < sizeof(*e))
				continue;
			e = mnl_attr_get_payload(k);
			if (arg)
				printf("%02x:%02x:%02x:%02x:%02x:%02x\n",
				       e->eth_src[0], e->eth_src[1],
				       e->eth_src[2], e->eth_src[3],
				       e->eth_src[4], e->eth_src[5]);
		}
	}
	return MNL_CB_OK;
}

static int
flow_dump(struct ovs *o, bool print)
{
	char buf[256];
	struct nlmsghdr *nlh = genl_msg(buf, o->flow_family, OVS_FLOW_CMD_GET,
					NLM_F_DUMP, ++o->seq, o->dp_ifindex);

	send_msg(o, buf, nlh->nlmsg_len);
	return receive(o, o->seq, BUF_SIZE, flow_mac_cb, print ? o : NULL);
}

/* PORT's upcall pid set to pid. */
static int
set_upcall_pid(struct ovs *o, const char *port, uint32_t pid)
{
	char buf[256];
	struct nlmsghdr *nlh = genl_msg(buf, o->vport_family,
					OVS_VPORT_CMD_SET, NLM_F_ACK, ++o->seq,
					o->dp_ifindex);

	mnl_attr_put_strz(nlh, OVS_VPORT_ATTR_NAME, port);
	mnl_attr_put_u32(nlh, OVS_VPORT_ATTR_UPCALL_PID, pid);
	send_msg(o, buf, nlh->nlmsg_len);
	return receive(o, o->seq, BUF_SIZE, NULL, NULL);
}

static int
upcall_pid_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a;
	size_t off = sizeof(struct genlmsghdr) + sizeof(struct ovs_header);

	mnl_attr_for_each(a, nlh, off)
		if (mnl_attr_get_type(a) == OVS_VPORT_ATTR_UPCALL_PID &&
		    mnl_attr_get_payload_len(a) >= 4)
			*(uint32_t *)arg = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

enum kind { K_DUMP, K_BATCH, K_PUT, K_LISTEN, K_UPCALL_PID, N_KINDS };

static const char *const kind_names[N_KINDS] = {
	"long flow dump", "batch of 100 puts", "single flow put",
	"group join + listen", "upcall pid set",
};

/* What a client has done, where its killer reads it. */
struct progress {
	volatile int ready;		/* socket open, families resolved */
	volatile unsigned started;	/* requests begun */
	volatile unsigned done;		/* requests completed */
};

static void __attribute__((noreturn))
client(enum kind kind, const char *dp, const char *port, unsigned iter,
       struct progress *p)
{
	struct ovs o;
	static char buf[BUF_SIZE];
	int one;

	ovs_open(&o, dp);
	p->ready = 1;
	switch (kind) {
	case K_LISTEN:
		one = o.flow_group;
		p->started++;
		if (mnl_socket_setsockopt(o.nl, NETLINK_ADD_MEMBERSHIP, &one,
					  sizeof(one)) < 0)
			die("join");
		p->done++;
		/* Listening is its request, never completed. */
		p->started++;
		for (;;)
			if (mnl_socket_recvfrom(o.nl, buf, sizeof(buf)) < 0)
				die("listen");
	default:
		break;
	}
	for (unsigned n = 0;; n++) {
		p->started++;
		switch (kind) {
		case K_DUMP:
			flow_dump(&o, false);
			break;
		case K_BATCH:
			put_flows(&o, pool_mac, (iter * 7 + n * BATCH) % POOL,
				  BATCH);
			break;
		case K_PUT:
			put_flows(&o, pool_mac, (iter + n) % POOL, 1);
			break;
		default:
			set_upcall_pid(&o, port, o.portid);
			break;
		}
		p->done++;
	}
}

static int
cmd_loop(const char *dp, const char *port, unsigned n, unsigned seed,
	 const char *pids_path)
{
	struct progress *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned runs[N_KINDS] = { 0 }, early[N_KINDS] = { 0 };
	unsigned working[N_KINDS] = { 0 }, done[N_KINDS] = { 0 };
	FILE *pids = fopen(pids_path, "we");

	if (p == MAP_FAILED || !pids)
		die("loop");
	srand(seed);
	for (unsigned i = 0; i < n; i++) {
		enum kind kind = rand() % N_KINDS;
		struct timespec ts;
		long us = rand() % (KILL_MAX_US + 1);
		pid_t pid;

		memset(p, 0, sizeof(*p));
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			client(kind, dp, port, i, p);
		ts = (struct timespec) { 0, us * 1000 };
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid");
		fprintf(pids, "%d\n", (int)pid);
		runs[kind]++;
		if (!p->ready)
			early[kind]++;
		else if (p->started > p->done)
			working[kind]++;
		done[kind] += p->done;
	}
	fclose(pids);
	printf("| client | killed | before its socket was set up | "
	       "in a request | requests completed |\n|---|---:|---:|---:|---:|\n");
	for (int k = 0; k < N_KINDS; k++)
		printf("| %s | %u | %u | %u | %u |\n", kind_names[k], runs[k],
		       early[k], working[k], done[k]);
	return 0;
}

static int
cmd_probe(const char *pids_path)
{
	FILE *f = fopen(pids_path, "re");
	unsigned probed = 0, bound = 0;
	int pid;

	if (!f)
		die(pids_path);
	while (fscanf(f, "%d", &pid) == 1) {
		struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);

		if (!nl)
			die("socket");
		probed++;
		if (mnl_socket_bind(nl, 0, pid) < 0) {
			if (errno != EADDRINUSE)
				die("bind");
			printf("portid %d still bound\n", pid);
			bound++;
		}
		mnl_socket_close(nl);
	}
	fclose(f);
	printf("probed %u, still bound %u\n", probed, bound);
	return bound ? 1 : 0;
}

static int
cmd_del_pool(struct ovs *o)
{
	char buf[256];
	unsigned deleted = 0;

	for (unsigned i = 0; i < POOL; i++) {
		struct nlmsghdr *nlh = genl_msg(buf, o->flow_family,
						OVS_FLOW_CMD_DEL, NLM_F_ACK,
						++o->seq, o->dp_ifindex);
		uint8_t mac[6];
		int err;

		pool_mac(i, mac);
		put_key(nlh, mac);
		send_msg(o, buf, nlh->nlmsg_len);
		err = receive(o, o->seq, BUF_SIZE, NULL, NULL);
		if (!err)
			deleted++;
		else if (err != -ENOENT)
			die("flow del");
	}
	printf("deleted %u\n", deleted);
	return 0;
}

static volatile sig_atomic_t listen_stop, listen_report;

static void
listen_signal(int sig)
{
	if (sig == SIGUSR1)
		listen_report = 1;
	else
		listen_stop = 1;
}

static double
now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether the upcall nlh carries an IPv4 frame from mark. */
static bool
upcall_marked(const struct nlmsghdr *nlh, in_addr_t mark)
{
	size_t off = sizeof(struct genlmsghdr) + sizeof(struct ovs_header);
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, off) {
		const uint8_t *f = mnl_attr_get_payload(a);

		if (mnl_attr_get_type(a) == OVS_PACKET_ATTR_PACKET &&
		    mnl_attr_get_payload_len(a) >= 30 &&
		    f[12] == 0x08 && f[13] == 0x00 && !memcmp(f + 26, &mark, 4))
			return true;
	}
	return false;
}

/* Every CPU's upcalls to this socket: the datapath's features as they
 * are, its per-CPU pids this socket's portid. */
static void
take_upcalls(struct ovs *o)
{
	char buf[256];
	struct nlmsghdr *nlh = genl_msg(buf, o->dp_family, OVS_DP_CMD_SET,
					NLM_F_ACK, ++o->seq, o->dp_ifindex);

	if (!(o->dp_features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)) {
		fprintf(stderr, "dpclient: the datapath does not dispatch "
			"per CPU\n");
		exit(2);
	}
	mnl_attr_put_u32(nlh, OVS_DP_ATTR_USER_FEATURES, o->dp_features);
	mnl_attr_put(nlh, OVS_DP_ATTR_PER_CPU_PIDS, sizeof(o->portid),
		     &o->portid);
	send_msg(o, buf, nlh->nlmsg_len);
	errno = 0;
	if (receive(o, o->seq, BUF_SIZE, NULL, NULL))
		die("setting the per-CPU pids");
}

static int
cmd_upcall_listen(struct ovs *o, double rate, in_addr_t mark)
{
	static char buf[BUF_SIZE];
	struct sigaction sa = { .sa_handler = listen_signal };
	unsigned long received = 0, overruns = 0;
	struct pollfd pfd = { .fd = mnl_socket_get_fd(o->nl),
			      .events = POLLIN };
	double next = 0;

	take_upcalls(o);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ready\n");
	while (!listen_stop) {
		double t = now_s(CLOCK_MONOTONIC);
		ssize_t n;
		int left;

		if (listen_report) {
			listen_report = 0;
			printf("received %lu overruns %lu\n", received,
			       overruns);
		}
		/* One read every 1/rate s; no credit saved while idle. */
		if (t < next) {
			usleep((next - t) * 1e6);
			continue;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(pfd.fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS)
				overruns++;
			else if (errno != EAGAIN && errno != EINTR)
				die("recv");
			continue;
		}
		next = (next < t - 0.01 ? t : next) + 1 / rate;
		left = n;
		for (struct nlmsghdr *nlh = (void *)buf;
		     mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_type != o->packet_family ||
			    g->cmd != OVS_PACKET_CMD_MISS)
				continue;
			received++;
			if (upcall_marked(nlh, mark))
				printf("mark %.6f\n", now_s(CLOCK_REALTIME));
		}
	}
	printf("received %lu overruns %lu\n", received, overruns);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ovs o;
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "setup") && argc == 4) {
		unsigned n = strtoul(argv[3], NULL, 0), failed = 0;

		ovs_open(&o, argv[2]);
		for (unsigned i = 0; i < n; i += BATCH)
			failed += put_flows(&o, base_mac, i,
					    n - i < BATCH ? n - i : BATCH);
		if (failed)
			fprintf(stderr, "dpclient: %u puts failed\n", failed);
		return failed ? 1 : 0;
	}
	if (!strcmp(cmd, "loop") && argc == 7)
		return cmd_loop(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				strtoul(argv[5], NULL, 0), argv[6]);
	if (!strcmp(cmd, "dump") && argc == 3) {
		ovs_open(&o, argv[2]);
		return flow_dump(&o, true) ? 1 : 0;
	}
	if (!strcmp(cmd, "del-pool") && argc == 3) {
		ovs_open(&o, argv[2]);
		return cmd_del_pool(&o);
	}
	if (!strcmp(cmd, "probe") && argc == 3)
		return cmd_probe(argv[2]);
	if (!strcmp(cmd, "port-pid") && (argc == 4 || argc == 5)) {
		char buf[256];
		struct nlmsghdr *nlh;
		uint32_t pid = 0;

		ovs_open(&o, argv[2]);
		if (argc == 5)
			return set_upcall_pid(&o, argv[3],
					      strtoul(argv[4], NULL, 0)) ? 1 : 0;
		nlh = genl_msg(buf, o.vport_family, OVS_VPORT_CMD_GET,
			       NLM_F_ACK, ++o.seq, o.dp_ifindex);
		mnl_attr_put_strz(nlh, OVS_VPORT_ATTR_NAME, argv[3]);
		send_msg(&o, buf, nlh->nlmsg_len);
		if (receive(&o, o.seq, BUF_SIZE, upcall_pid_cb, &pid))
			return 1;
		printf("%u\n", pid);
		return 0;
	}
	if (!strcmp(cmd, "upcall-listen") && argc == 5) {
		ovs_open(&o, argv[2]);
		return cmd_upcall_listen(&o, strtod(argv[3], NULL),
					 inet_addr(argv[4]));
	}
	fprintf(stderr, "usage: dpclient setup|loop|dump|del-pool|probe|"
		"port-pid|upcall-listen ... (see the source)\n");
	return 2;
}
