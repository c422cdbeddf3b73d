/* SPDX-License-Identifier: Apache-2.0 */
/* hostile-client: speaks the shim<->daemon protocol (include/tapdp/proto.h)
 * directly, without the shim, as any local user can, and tries what the
 * kernel would not allow an unprivileged netlink socket.
 *
 *   hostile-client SOCK rcvbuf
 *	claims a 1 GiB receive buffer, then runs dumps and never reads:
 *	exits 0 when what the daemon queued stayed within what SO_RCVBUF
 *	gives an unprivileged socket (twice net.core.rmem_max) and the
 *	overrun was flagged.
 *   hostile-client SOCK truncate
 *	truncates the shared page's file to nothing, then provokes an
 *	overrun (the daemon writes the page): both with a memfd of its own,
 *	as protocol version 1 took it, and with the daemon's. The caller
 *	checks that the daemon lives on.
 *   hostile-client SOCK setuid-race PROG [ARGS]
 *	connects, forks, and execs PROG (a setuid-root program that blocks)
 *	in the parent; the child, once the parent runs as root, says HELLO
 *	on the inherited connections and asks for a datapath. Its last line
 *	says "done, refused" or "done, privilege gained"; the exit status is
 *	the setuid program's.
 *   hostile-client SOCK flood N
 *	N requests, each answer waited for, the data socket never read:
 *	exits 0 when all were answered and the overrun was flagged.
 *   hostile-client SOCK pipeline N
 *	N requests sent without reading any answer: exits 0 when the daemon
 *	closed the connection rather than wait for the reader.
 *   hostile-client SOCK latency N
 *	opens a socket and makes N requests, each answer read: the longest
 *	wait, in milliseconds.
 *   hostile-client SOCK sockets MAX [bare]
 *	opens sockets (bare: connections that never say HELLO) until the
 *	daemon refuses one or MAX are open, says how many and why, then
 *	holds them until its standard input closes.
 *   hostile-client SOCK hold PORTID
 *	binds a socket to PORTID, says so, and when its standard input
 *	closes, how many datagrams it received.
 *   hostile-client SOCK intrude PORTID
 *	binds to PORTID, then sends to it: the errno of each.
 *   hostile-client SOCK join FAMILY GROUP
 *	joins FAMILY's multicast group GROUP: the errno.
 *   hostile-client SOCK dump-busy
 *	starts a dump, then another before reading it: the second's errno.
 *   hostile-client SOCK notify FAMILY GROUP
 *	two sockets, one in FAMILY's GROUP: says "ready", waits (20 s at
 *	most) for a notification on the member, then counts what each got;
 *	exits 0 when only the member got any.
 *   hostile-client SOCK handed UID
 *	as root: opens a NETLINK_ROUTE socket and a connection whose HELLO
 *	is granted CAP_NET_ADMIN, forks a child that becomes UID (no
 *	capabilities left) and hands it both over SCM_RIGHTS. The child
 *	says HELLO on a connection of its own with root's route socket and
 *	asks for a datapath, then asks for one on root's connection; root
 *	then asks on it again. One line each, with the errno.
 *   hostile-client SOCK handed-userns
 *	as the root of a user namespace of its own, over its network
 *	namespace (unshare -rn): a connection whose route socket it proved
 *	itself on (TAPDP_HELLO_PROVE) asks for a datapath; a child that went
 *	into a user namespace of its own (no CAP_NET_ADMIN over the network
 *	namespace) tries to prove itself on that route socket, asks on the
 *	connection, and says HELLO on one of its own with the route socket;
 *	then the parent asks again. One line each, with the errno.
 *   hostile-client SOCK kernel-wrap
 *	queues in a generic netlink socket of its own a message whose
 *	nlmsg_len is 0xffffffff (NLMSG_ALIGN wraps it to 0 in 32 bits),
 *	hands that socket over as its kernel socket (KERNEL) and asks for
 *	it to be drained (KERNEL_DRAIN): the errno of each. Queuing needs
 *	CAP_NET_ADMIN over the socket's namespace (root, or unshare -rn).
 *
 * Prints what happened on stdout. Test program: no shim, no libraries. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/openvswitch.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "include/tapdp/proto.h"

struct conn {
	int ctl;	/* SEQPACKET connection to the daemon */
	int data;	/* our end of the data socket */
	int peer;	/* the end we hand over */
	int memfd;	/* the shared page's file */
	int route;	/* a route socket HELLO passes, -1: one of ours */
};

static const char *sock_path;

static int
conn_connect(struct conn *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int sv[2];

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock_path);
	c->ctl = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (c->ctl < 0 ||
	    connect(c->ctl, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return -1;
	c->data = sv[0];
	c->peer = sv[1];
	c->memfd = -1;
	c->route = -1;
	return 0;
}

/* HELLO as protocol version 1 took it (our own memfd, which we keep) or
 * as version 2 does (a netlink socket of ours; the daemon's memfd back).
 * Returns the daemon's errno answer, or -EPIPE when it closed. */
static int
conn_hello(struct conn *c, int version)
{
	struct tapdp_req req = { .op = TAPDP_OP_HELLO,
				 .arg = { version, SOCK_RAW,
					  NETLINK_GENERIC } };
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { &req, sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct tapdp_rep rep;
	int fds[2] = { c->peer, -1 };
	ssize_t sent, got;

	if (version == 1) {
		c->memfd = memfd_create("hostile", 0);
		if (c->memfd < 0 || ftruncate(c->memfd, 4096) < 0)
			return -errno;
		fds[1] = c->memfd;
	} else {
		fds[1] = c->route >= 0 ? c->route
				       : socket(AF_NETLINK, SOCK_RAW,
						NETLINK_ROUTE);
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	sent = sendmsg(c->ctl, &mh, MSG_NOSIGNAL);
	if (version != 1)
		close(fds[1]);
	iov = (struct iovec) { &rep, sizeof(rep) };
	mh = (struct msghdr) { .msg_iov = &iov, .msg_iovlen = 1,
			       .msg_control = cbuf,
			       .msg_controllen = sizeof(cbuf) };
	/* A refusal is answered and closed at once (the send may fail, a
	 * reset come first): the answer is there. */
	got = recvmsg(c->ctl, &mh, sent == sizeof(req) ? 0 : MSG_DONTWAIT);
	if (got < 0 && errno == ECONNRESET)
		got = recvmsg(c->ctl, &mh, MSG_DONTWAIT);
	if (got != sizeof(rep))
		return -EPIPE;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS && c->memfd < 0)
		memcpy(&c->memfd, CMSG_DATA(cm), sizeof(int));
	return rep.err;
}

static int
conn_call(struct conn *c, int op, int a0, int a1, int a2, const void *payload,
	  size_t len)
{
	struct tapdp_req req = { .op = op, .arg = { a0, a1, a2 } };
	struct iovec iov[2] = { { &req, sizeof(req) },
				{ (void *)payload, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	struct tapdp_rep rep;

	if (sendmsg(c->ctl, &mh, MSG_NOSIGNAL) < 0 ||
	    recv(c->ctl, &rep, sizeof(rep), 0) != sizeof(rep))
		return -EPIPE;
	return rep.err;
}

/* A generic netlink request: header, family header, one string attribute
 * and, with u32_type, one u32 attribute. */
static size_t
genl_req(char *buf, uint16_t type, uint8_t cmd, uint8_t version,
	 size_t hdrsize, uint16_t str_type, const char *str,
	 uint16_t u32_type, uint32_t u32)
{
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	size_t len = NLMSG_LENGTH(GENL_HDRLEN + hdrsize);
	struct nlattr *a;

	memset(buf, 0, len);
	gh->cmd = cmd;
	gh->version = version;
	a = (void *)(buf + len);
	a->nla_type = str_type;
	a->nla_len = NLA_HDRLEN + strlen(str) + 1;
	memcpy((char *)a + NLA_HDRLEN, str, strlen(str) + 1);
	len += NLA_ALIGN(a->nla_len);
	if (u32_type) {
		a = (void *)(buf + len);
		a->nla_type = u32_type;
		a->nla_len = NLA_HDRLEN + 4;
		memcpy((char *)a + NLA_HDRLEN, &u32, 4);
		len += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	return len;
}

static int
send_getfamily(struct conn *c, const char *name)
{
	char buf[256];
	size_t len = genl_req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0,
			      CTRL_ATTR_FAMILY_NAME, name, 0, 0);

	((struct nlmsghdr *)buf)->nlmsg_flags = NLM_F_REQUEST;
	return conn_call(c, TAPDP_OP_SEND, 0, 65536, 0, buf, len);
}

/* A whole nlctrl dump (every family, the kernel's too), its parts queued
 * one after the other without being read. */
static int
dump_families(struct conn *c)
{
	struct tapdp_req req = { .op = TAPDP_OP_SEND, .arg = { 0, 65536 } };
	char buf[sizeof(req) + NLMSG_LENGTH(GENL_HDRLEN)] = { 0 };
	struct nlmsghdr *nlh = (void *)(buf + sizeof(req));
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	struct tapdp_rep rep;

	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	gh->cmd = CTRL_CMD_GETFAMILY;
	gh->version = 1;
	memcpy(buf, &req, sizeof(req));
	for (int parts = 0; parts < 64; parts++) {
		if (send(c->ctl, buf, parts ? sizeof(req) : sizeof(buf),
			 MSG_NOSIGNAL) < 0 ||
		    recv(c->ctl, &rep, sizeof(rep), 0) != sizeof(rep))
			return -EPIPE;
		if (rep.err || !rep.val[1])
			return rep.err;
		req.op = TAPDP_OP_DUMP_NEXT;
		req.arg[0] = 65536;
		memcpy(buf, &req, sizeof(req));
	}
	return 0;
}

/* The attribute of type in the len bytes at p, or NULL. */
static const struct nlattr *
attr_find(const void *p, size_t len, uint16_t type)
{
	const char *end = (const char *)p + len;

	for (const struct nlattr *a = p;
	     (const char *)a + NLA_HDRLEN <= end && a->nla_len >= NLA_HDRLEN &&
	     (const char *)a + a->nla_len <= end;
	     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

#define ATTR_DATA(a)	((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a)	((size_t)(a)->nla_len - NLA_HDRLEN)

/* The attribute of type in the GETFAMILY answer for name (in buf), or
 * NULL. */
static const struct nlattr *
getfamily(struct conn *c, const char *name, char *buf, size_t size,
	  uint16_t type)
{
	struct nlmsghdr *nlh = (void *)buf;
	ssize_t n;

	if (send_getfamily(c, name))
		return NULL;
	n = recv(c->data, buf, size, MSG_DONTWAIT);
	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) ||
	    nlh->nlmsg_type != GENL_ID_CTRL || nlh->nlmsg_len > (size_t)n)
		return NULL;
	return attr_find((char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), type);
}

/* The family id from a GETFAMILY answer, or 0. */
static uint16_t
family_id(struct conn *c, const char *name)
{
	char buf[8192];
	const struct nlattr *a = getfamily(c, name, buf, sizeof(buf),
					   CTRL_ATTR_FAMILY_ID);

	return a && ATTR_LEN(a) >= 2 ? *(const uint16_t *)ATTR_DATA(a) : 0;
}

/* The id of family's multicast group, or 0. */
static uint32_t
group_id(struct conn *c, const char *family, const char *group)
{
	char buf[8192];
	const struct nlattr *grps = getfamily(c, family, buf, sizeof(buf),
					      CTRL_ATTR_MCAST_GROUPS);
	const char *p, *end;

	if (!grps)
		return 0;
	p = ATTR_DATA(grps);
	end = p + ATTR_LEN(grps);
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *g = (const void *)p;
		const struct nlattr *nm, *id;

		if (g->nla_len < NLA_HDRLEN || p + g->nla_len > end)
			break;
		nm = attr_find(ATTR_DATA(g), ATTR_LEN(g),
			       CTRL_ATTR_MCAST_GRP_NAME);
		id = attr_find(ATTR_DATA(g), ATTR_LEN(g),
			       CTRL_ATTR_MCAST_GRP_ID);
		if (nm && id && ATTR_LEN(id) >= 4 &&
		    !strncmp(ATTR_DATA(nm), group, ATTR_LEN(nm)))
			return *(const uint32_t *)ATTR_DATA(id);
		p += NLA_ALIGN(g->nla_len);
	}
	return 0;
}

/* OVS_DP_CMD_NEW: the errno of the answer (0: created). */
static int
dp_new(struct conn *c, const char *name)
{
	uint16_t id = family_id(c, OVS_DATAPATH_FAMILY);
	char buf[256];
	struct nlmsghdr *ack = (void *)buf;
	size_t len;

	if (!id)
		return -ENOENT;
	len = genl_req(buf, id, OVS_DP_CMD_NEW, OVS_DATAPATH_VERSION,
		       sizeof(struct ovs_header), OVS_DP_ATTR_NAME, name,
		       OVS_DP_ATTR_UPCALL_PID, 0);
	if (conn_call(c, TAPDP_OP_SEND, 0, 65536, 0, buf, len))
		return -EPIPE;
	/* The reply (if any) comes before the ACK. */
	for (;;) {
		if (recv(c->data, buf, sizeof(buf), MSG_DONTWAIT) <
		    (ssize_t)NLMSG_HDRLEN)
			return -EPIPE;
		if (ack->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(ack))->error;
	}
}

static int
cmd_rcvbuf(void)
{
	const int dumps = 4000;
	long rmem_max = 212992, queued = 0, limit;
	struct tapdp_shared *shared;
	struct conn c;
	char buf[65536];
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
	ssize_t n;

	if (f) {
		if (fscanf(f, "%ld", &rmem_max) != 1)
			rmem_max = 212992;
		fclose(f);
	}
	/* A daemon that speaks only version 1 (an older one) is tried too. */
	if (conn_connect(&c) || (conn_hello(&c, TAPDP_PROTO_VERSION) &&
				 (conn_connect(&c) || conn_hello(&c, 1)))) {
		printf("rcvbuf: no connection\n");
		return 2;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ, MAP_SHARED, c.memfd, 0);
	if (shared == MAP_FAILED)
		return 2;
	conn_call(&c, TAPDP_OP_SETSOCKOPT, SOL_SOCKET, SO_RCVBUF, 1 << 30,
		  NULL, 0);
	for (int i = 0; i < dumps; i++)
		if (dump_families(&c))
			return 2;
	while ((n = recv(c.data, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
		queued += n;
	/* Past the limit the kernel still queues the message in hand. */
	limit = 2 * rmem_max + (64 << 10);
	printf("rcvbuf: %d dumps, %ld bytes queued, limit %ld, overrun %u\n",
	       dumps, queued, limit, shared->overrun);
	return queued <= limit && shared->overrun ? 0 : 1;
}

/* Shrinks the page's file and makes the daemon write the page. */
static void
truncate_attack(int version)
{
	struct conn c;
	int err;

	if (conn_connect(&c))
		return;
	err = conn_hello(&c, version);
	printf("truncate v%d: hello %s", version, strerror(-err));
	if (c.memfd >= 0)
		printf(", ftruncate %s",
		       ftruncate(c.memfd, 0) ? strerror(errno) : "done");
	printf("\n");
	if (err)
		return;
	conn_call(&c, TAPDP_OP_SETSOCKOPT, SOL_SOCKET, SO_RCVBUF, 1, NULL, 0);
	for (int i = 0; i < 3; i++)
		send_getfamily(&c, OVS_DATAPATH_FAMILY);
}

static int
cmd_truncate(void)
{
	truncate_attack(1);
	truncate_attack(TAPDP_PROTO_VERSION);
	return 0;
}

static int
euid_of(pid_t pid)
{
	char path[64], line[256];
	int ruid, euid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %d %d", &ruid, &euid) == 2)
			break;
	fclose(f);
	return euid;
}

static int
cmd_setuid_race(char **prog)
{
	struct conn c[2];
	pid_t parent = getpid(), child;

	for (int i = 0; i < 2; i++)
		if (conn_connect(&c[i]))
			return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child > 0) {
		execv(prog[0], prog);
		_exit(2);
	}
	/* Wait (5 s at most) until the parent runs the setuid program. */
	for (int i = 0; i < 500 && euid_of(parent) != 0; i++)
		usleep(10000);
	if (euid_of(parent) != 0) {
		printf("setuid-race: %s did not become root\n", prog[0]);
		return 2;
	}
	int escalated = 0;
	for (int i = 0; i < 2; i++) {
		int version = i ? 1 : TAPDP_PROTO_VERSION;
		int err = conn_hello(&c[i], version);
		char name[16];

		if (err) {
			printf("setuid-race v%d: hello refused (%s)\n", version,
			       strerror(-err));
			continue;
		}
		snprintf(name, sizeof(name), "hostile%d", i);
		err = dp_new(&c[i], name);
		printf("setuid-race v%d: OVS_DP_CMD_NEW %s: %s\n", version,
		       name, err ? strerror(-err) : "created");
		escalated |= !err;
	}
	/* The parent (the setuid program) is what the caller waits for. */
	printf("setuid-race: done, %s\n",
	       escalated ? "privilege gained" : "refused");
	return escalated;
}

/* Connects and says HELLO; 0 or the daemon's negative errno. */
static int
conn_open(struct conn *c)
{
	if (conn_connect(c))
		return -errno;
	return conn_hello(c, TAPDP_PROTO_VERSION);
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static int
cmd_flood(long n)
{
	struct tapdp_shared *shared;
	struct conn c;

	if (conn_open(&c))
		return 2;
	shared = mmap(NULL, sizeof(*shared), PROT_READ, MAP_SHARED, c.memfd, 0);
	if (shared == MAP_FAILED)
		return 2;
	for (long i = 0; i < n; i++) {
		if (send_getfamily(&c, OVS_DATAPATH_FAMILY)) {
			printf("flood: request %ld not answered\n", i);
			return 1;
		}
		if (i == 1000) {
			printf("flood: started\n");
			fflush(stdout);
		}
	}
	printf("flood: %ld requests answered, overrun %u\n", n,
	       shared->overrun);
	return shared->overrun ? 0 : 1;
}

static int
cmd_pipeline(long n)
{
	char buf[256];
	size_t len = genl_req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0,
			      CTRL_ATTR_FAMILY_NAME, OVS_DATAPATH_FAMILY, 0, 0);
	struct tapdp_req req = { .op = TAPDP_OP_SEND, .arg = { 0, 65536 } };
	struct iovec iov[2] = { { &req, sizeof(req) }, { buf, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct conn c;

	if (conn_open(&c))
		return 2;
	for (long i = 0; i < n; i++) {
		if (sendmsg(c.ctl, &mh, MSG_NOSIGNAL) < 0) {
			printf("pipeline: closed by the daemon after %ld "
			       "requests (%s)\n", i, strerror(errno));
			return 0;
		}
		/* Past what the daemon's answers and our requests could
		 * queue: a daemon waiting for us would have stopped us. */
		if (i == 2000) {
			printf("pipeline: started\n");
			fflush(stdout);
		}
	}
	printf("pipeline: %ld requests sent, still open\n", n);
	return 1;
}

static int
cmd_latency(long n)
{
	struct timeval tv = { .tv_sec = 5 };
	struct timespec t0;
	char buf[8192];
	struct conn c;
	long worst;
	int err;

	/* The socket's opening is a request too. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (conn_connect(&c))
		return 2;
	setsockopt(c.ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	err = conn_hello(&c, TAPDP_PROTO_VERSION);
	worst = ms_since(&t0);
	if (err) {
		printf("latency: HELLO %s after %ld ms\n", strerror(-err), worst);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		struct timespec t1;
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (send_getfamily(&c, OVS_DATAPATH_FAMILY)) {
			printf("latency: no answer within %ld ms\n",
			       ms_since(&t1));
			return 1;
		}
		ms = ms_since(&t1);
		if (ms > worst)
			worst = ms;
		while (recv(c.data, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	}
	printf("latency: %ld requests, the longest %ld ms\n", n, worst);
	return 0;
}

/* Waits until standard input closes. */
static void
hold_until_eof(void)
{
	char b;

	while (read(STDIN_FILENO, &b, 1) > 0)
		;
}

static int
cmd_sockets(long max, bool bare)
{
	struct conn *cs = calloc(max + 1, sizeof(*cs));
	struct rlimit rl;
	long i;
	int err = 0;

	if (!cs)
		return 2;
	/* Our own descriptors must not be what runs out. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i <= max; i++) {
		if (conn_connect(&cs[i])) {
			printf("sockets: connect: %s\n", strerror(errno));
			return 2;
		}
		if (!bare || i == max)
			err = conn_hello(&cs[i], TAPDP_PROTO_VERSION);
		close(cs[i].data);
		close(cs[i].peer);
		if (cs[i].memfd >= 0)
			close(cs[i].memfd);
		if (err)
			break;
	}
	printf("sockets: %ld %s, the next: %s\n", i, bare ? "bare" : "open",
	       i > max ? "not tried" : strerror(-err));
	fflush(stdout);
	hold_until_eof();
	return 0;
}

static int
cmd_hold(uint32_t portid)
{
	char buf[65536];
	struct conn c;
	int n = 0;

	if (conn_open(&c) ||
	    conn_call(&c, TAPDP_OP_BIND, portid, 0, 0, NULL, 0))
		return 2;
	printf("hold: bound %u\n", portid);
	fflush(stdout);
	hold_until_eof();
	while (recv(c.data, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	printf("hold: received %d\n", n);
	return 0;
}

static int
cmd_intrude(uint32_t portid)
{
	char buf[256];
	size_t len = genl_req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0,
			      CTRL_ATTR_FAMILY_NAME, OVS_DATAPATH_FAMILY, 0, 0);
	struct conn c;

	if (conn_open(&c))
		return 2;
	printf("intrude: bind %u: %s\n", portid,
	       strerror(-conn_call(&c, TAPDP_OP_BIND, portid, 0, 0, NULL, 0)));
	printf("intrude: unicast to %u: %s\n", portid,
	       strerror(-conn_call(&c, TAPDP_OP_SEND, portid, 65536, 0, buf,
				   len)));
	return 0;
}

static int
cmd_join(const char *family, const char *group)
{
	struct conn c;
	uint32_t id;

	if (conn_open(&c))
		return 2;
	id = group_id(&c, family, group);
	if (!id) {
		printf("join %s/%s: no such group\n", family, group);
		return 2;
	}
	printf("join %s/%s: %s\n", family, group,
	       strerror(-conn_call(&c, TAPDP_OP_SETSOCKOPT, SOL_NETLINK,
				   NETLINK_ADD_MEMBERSHIP, id, NULL, 0)));
	return 0;
}

/* The error the daemon answered request seq with (0: an ACK), or 1 when
 * none is queued. */
static int
answer_to(struct conn *c, uint32_t seq)
{
	char buf[65536];
	ssize_t n;

	while ((n = recv(c->data, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		size_t len = n;

		for (struct nlmsghdr *nlh = (void *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len))
			if (nlh->nlmsg_type == NLMSG_ERROR &&
			    nlh->nlmsg_seq == seq &&
			    nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
				return *(int *)NLMSG_DATA(nlh);
	}
	return 1;
}

static int
cmd_dump_busy(void)
{
	struct tapdp_req req = { .op = TAPDP_OP_SEND };
	char buf[NLMSG_LENGTH(GENL_HDRLEN)] = { 0 };
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	struct iovec iov[2] = { { &req, sizeof(req) }, { buf, sizeof(buf) } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct tapdp_rep rep[2];
	struct conn c;
	int err;

	if (conn_open(&c))
		return 2;
	/* The smallest parts (no receive buffer size given), so that the
	 * dump of every family still runs after its first. */
	nlh->nlmsg_len = sizeof(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	gh->cmd = CTRL_CMD_GETFAMILY;
	gh->version = 1;
	for (int i = 0; i < 2; i++) {
		nlh->nlmsg_seq = i + 1;
		if (sendmsg(c.ctl, &mh, MSG_NOSIGNAL) < 0 ||
		    recv(c.ctl, &rep[i], sizeof(rep[i]), 0) != sizeof(rep[i]))
			return 2;
	}
	err = answer_to(&c, 2);
	printf("dump-busy: first running %d, second: %s\n", rep[0].val[1],
	       err == 1 ? "no answer" : err ? strerror(-err) : "ACK");
	return 0;
}

/* Datagrams queued on c's data socket, read. */
static int
drain(struct conn *c)
{
	char buf[65536];
	int n = 0;

	while (recv(c->data, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

static int
send_fds(int sock, const int *fds, int n)
{
	char cbuf[TAPDP_FDS_SPACE(3)], byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	tapdp_pass_fds(&mh, cbuf, fds, n);
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

static int
recv_fds(int sock, int *fds, int n)
{
	char cbuf[TAPDP_FDS_SPACE(3)], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;

	if (recvmsg(sock, &mh, 0) != 1 || !(cm = CMSG_FIRSTHDR(&mh)) ||
	    cm->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
	return 0;
}

static const char *
verdict(int err)
{
	return err ? strerror(-err) : "created";
}

static int
cmd_handed(uid_t uid)
{
	struct conn root, mine;
	int sv[2], fds[3], status, err;
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || conn_open(&root))
		return 2;
	fds[0] = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	fds[1] = root.ctl;
	fds[2] = root.data;
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		struct conn theirs = { .memfd = -1, .route = -1 };

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid) ||
		    recv_fds(sv[1], fds, 3))
			_exit(2);
		if (conn_connect(&mine))
			_exit(2);
		mine.route = fds[0];
		err = conn_hello(&mine, TAPDP_PROTO_VERSION);
		if (!err)
			err = dp_new(&mine, "handed-route");
		printf("handed: root's route socket: %s\n", verdict(err));
		theirs.ctl = fds[1];
		theirs.data = fds[2];
		err = dp_new(&theirs, "handed-conn");
		printf("handed: root's connection: %s\n", verdict(err));
		fflush(stdout);
		_exit(0);
	}
	if (send_fds(sv[0], fds, 3) || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return 2;
	printf("handed: root's connection, root sending: %s\n",
	       verdict(dp_new(&root, "handed-root")));
	return 0;
}

/* A NETLINK_ROUTE socket on which this process sent itself a message,
 * as the shim proves CAP_NET_ADMIN (proto.h); *err the send's errno. */
static int
route_proved(int fd, int *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr nlh = { .nlmsg_len = sizeof(nlh),
				.nlmsg_type = NLMSG_NOOP };
	socklen_t len = sizeof(sa);

	if (fd < 0)
		fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (fd < 0 || (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
		       !sa.nl_pid &&
		       bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	*err = sendto(fd, &nlh, sizeof(nlh), MSG_DONTWAIT, (void *)&sa,
		      sizeof(sa)) < 0 ? -errno : 0;
	return fd;
}

static int
cmd_handed_userns(void)
{
	struct conn root, mine;
	int route, status, err;
	pid_t child;

	route = route_proved(-1, &err);
	if (route < 0 || err || conn_connect(&root))
		return 2;
	root.route = dup(route);
	err = conn_hello(&root, TAPDP_PROTO_VERSION);
	if (!err)
		err = dp_new(&root, "userns-root");
	printf("userns: root's own connection: %s\n", verdict(err));
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		if (unshare(CLONE_NEWUSER))
			_exit(2);
		route_proved(route, &err);
		printf("nested: its proof: %s\n", verdict(err));
		printf("nested: root's connection: %s\n",
		       verdict(dp_new(&root, "userns-conn")));
		if (conn_connect(&mine))
			_exit(2);
		mine.route = dup(route);
		err = conn_hello(&mine, TAPDP_PROTO_VERSION);
		if (!err)
			err = dp_new(&mine, "userns-route");
		printf("nested: root's route socket: %s\n", verdict(err));
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 2;
	printf("userns: root's connection, root sending again: %s\n",
	       verdict(dp_new(&root, "userns-again")));
	return 0;
}

/* Sends op with fd passed (SCM_RIGHTS): the daemon's errno answer. */
static int
conn_pass(struct conn *c, int op, int fd)
{
	struct tapdp_req req = { .op = op };
	char cbuf[TAPDP_FDS_SPACE(1)];
	struct iovec iov = { &req, sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct tapdp_rep rep;

	tapdp_pass_fds(&mh, cbuf, &fd, 1);
	if (sendmsg(c->ctl, &mh, MSG_NOSIGNAL) < 0 ||
	    recv(c->ctl, &rep, sizeof(rep), 0) != sizeof(rep))
		return -EPIPE;
	return rep.err;
}

static int
cmd_kernel_wrap(void)
{
	struct nlmsghdr bad = { .nlmsg_len = 0xffffffff,
				.nlmsg_type = NLMSG_NOOP };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int k = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	struct conn c;
	int err;

	if (k < 0 || s < 0 || bind(k, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(k, (struct sockaddr *)&sa, &len))
		return 2;
	if (sendto(s, &bad, sizeof(bad), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != sizeof(bad)) {
		printf("kernel-wrap: cannot queue: %s\n", strerror(errno));
		return 2;
	}
	if (conn_open(&c))
		return 2;
	err = conn_pass(&c, TAPDP_OP_KERNEL, k);
	printf("kernel-wrap: KERNEL %d", err);
	fflush(stdout);
	err = conn_call(&c, TAPDP_OP_KERNEL_DRAIN, 0, 0, 0, NULL, 0);
	printf(", KERNEL_DRAIN %d\n", err);
	return 0;
}

static int
cmd_notify(const char *family, const char *group)
{
	struct conn member, other;
	struct pollfd pfd;
	uint32_t id;
	int got, other_got;

	if (conn_open(&member) || conn_open(&other))
		return 2;
	id = group_id(&member, family, group);
	if (!id || conn_call(&member, TAPDP_OP_SETSOCKOPT, SOL_NETLINK,
			     NETLINK_ADD_MEMBERSHIP, id, NULL, 0))
		return 2;
	printf("notify: ready\n");
	fflush(stdout);
	pfd = (struct pollfd) { .fd = member.data, .events = POLLIN };
	poll(&pfd, 1, 20000);
	/* The daemon delivers a notification to every member before it
	 * serves another request: after this answer, anything for the
	 * other socket is queued. */
	conn_call(&other, TAPDP_OP_CONNECT, 0, 0, 0, NULL, 0);
	got = drain(&member);
	other_got = drain(&other);
	printf("notify: the member got %d, the other socket %d\n", got,
	       other_got);
	return got > 0 && !other_got ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hostile-client SOCK rcvbuf|truncate|"
				"setuid-race PROG [ARGS]|flood N|pipeline N|"
				"latency N|sockets MAX [bare]|hold PORTID|"
				"intrude PORTID|join FAMILY GROUP|dump-busy|"
				"notify FAMILY GROUP|kernel-wrap|handed UID|"
				"handed-userns\n");
		return 2;
	}
	sock_path = argv[1];
	if (!strcmp(argv[2], "rcvbuf"))
		return cmd_rcvbuf();
	if (!strcmp(argv[2], "truncate"))
		return cmd_truncate();
	if (!strcmp(argv[2], "setuid-race") && argc > 3)
		return cmd_setuid_race(argv + 3);
	if (!strcmp(argv[2], "flood") && argc > 3)
		return cmd_flood(atol(argv[3]));
	if (!strcmp(argv[2], "pipeline") && argc > 3)
		return cmd_pipeline(atol(argv[3]));
	if (!strcmp(argv[2], "latency") && argc > 3)
		return cmd_latency(atol(argv[3]));
	if (!strcmp(argv[2], "sockets") && argc > 3)
		return cmd_sockets(atol(argv[3]),
				   argc > 4 && !strcmp(argv[4], "bare"));
	if (!strcmp(argv[2], "hold") && argc > 3)
		return cmd_hold(strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[2], "intrude") && argc > 3)
		return cmd_intrude(strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[2], "join") && argc > 4)
		return cmd_join(argv[3], argv[4]);
	if (!strcmp(argv[2], "dump-busy"))
		return cmd_dump_busy();
	if (!strcmp(argv[2], "notify") && argc > 4)
		return cmd_notify(argv[3], argv[4]);
	if (!strcmp(argv[2], "kernel-wrap"))
		return cmd_kernel_wrap();
	if (!strcmp(argv[2], "handed") && argc > 3)
		return cmd_handed(strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[2], "handed-userns"))
		return cmd_handed_userns();
	return 2;
}
