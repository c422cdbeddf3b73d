/* SPDX-License-Identifier: Apache-2.0 */
/* hostile-client: speaks the shim<->daemon protocol (compat/proto.h)
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
 *
 * Prints what happened on stdout. Test program: no shim, no libraries. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/openvswitch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

	if (version == 1) {
		c->memfd = memfd_create("hostile", 0);
		if (c->memfd < 0 || ftruncate(c->memfd, 4096) < 0)
			return -errno;
		fds[1] = c->memfd;
	} else {
		fds[1] = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	if (sendmsg(c->ctl, &mh, MSG_NOSIGNAL) != sizeof(req))
		return -EPIPE;
	if (version != 1)
		close(fds[1]);
	iov = (struct iovec) { &rep, sizeof(rep) };
	mh = (struct msghdr) { .msg_iov = &iov, .msg_iovlen = 1,
			       .msg_control = cbuf,
			       .msg_controllen = sizeof(cbuf) };
	if (recvmsg(c->ctl, &mh, 0) != sizeof(rep))
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

/* The family id from a GETFAMILY answer, or 0. */
static uint16_t
family_id(struct conn *c, const char *name)
{
	char buf[8192];
	struct nlmsghdr *nlh = (void *)buf;
	ssize_t n;

	if (send_getfamily(c, name))
		return 0;
	n = recv(c->data, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < (ssize_t)NLMSG_HDRLEN || nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	for (struct nlattr *a = (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	     (char *)a + NLA_HDRLEN <= buf + n && a->nla_len >= NLA_HDRLEN;
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
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

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hostile-client SOCK rcvbuf|truncate|"
				"setuid-race PROG [ARGS]\n");
		return 2;
	}
	sock_path = argv[1];
	if (!strcmp(argv[2], "rcvbuf"))
		return cmd_rcvbuf();
	if (!strcmp(argv[2], "truncate"))
		return cmd_truncate();
	if (!strcmp(argv[2], "setuid-race") && argc > 3)
		return cmd_setuid_race(argv + 3);
	return 2;
}
