/* SPDX-License-Identifier: Apache-2.0 */
/* shim-check: the netlink socket semantics that real clients rely on,
 * checked through the shim (run it with tapdp-run and a daemon up).
 *
 *   shim-check            against tapdpd
 *   shim-check --kernel   no daemon: the shim must step aside, and the real
 *                         kernel answers (no ovs_datapath family here)
 *
 * Prints one line per check and "N passed, N failed". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/openvswitch.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			passed++;					\
			printf("ok - ");				\
		} else {						\
			failed++;					\
			printf("FAIL - ");				\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

static int
nl_open(void)
{
	return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
}

/* Builds CTRL_CMD_GETFAMILY for name (NULL: a dump). */
static size_t
getfamily(char *buf, const char *name, uint32_t seq, uint16_t flags)
{
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);

	memset(buf, 0, 64);
	gh->cmd = CTRL_CMD_GETFAMILY;
	gh->version = 1;
	if (name) {
		struct nlattr *a = (void *)(buf + len);

		a->nla_type = CTRL_ATTR_FAMILY_NAME;
		a->nla_len = NLA_HDRLEN + strlen(name) + 1;
		strcpy((char *)a + NLA_HDRLEN, name);
		len += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	return len;
}

/* The family id in a NEWFAMILY reply, 0 if none. */
static uint16_t
family_id(const char *buf, ssize_t n)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct nlattr *a;
	int rem;

	if (n < (ssize_t)NLMSG_HDRLEN || nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	a = (const void *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			return *(const uint16_t *)((const char *)a + NLA_HDRLEN);
		rem -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return 0;
}

static int
nl_error(const char *buf, ssize_t n)
{
	const struct nlmsghdr *nlh = (const void *)buf;

	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    nlh->nlmsg_type != NLMSG_ERROR)
		return 1;
	return ((const struct nlmsgerr *)NLMSG_DATA(nlh))->error;
}

/* The attribute of type in the attributes at p (rem bytes), or NULL. */
static const struct nlattr *
find_attr(const void *p, int rem, uint16_t type)
{
	const struct nlattr *a = p;

	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		rem -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

/* The first multicast group of a NEWFAMILY reply, 0 if none. */
static uint32_t
mcast_group(const char *buf, ssize_t n)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct nlattr *grps, *grp, *id;

	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN))
		return 0;
	grps = find_attr((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
			 CTRL_ATTR_MCAST_GROUPS);
	if (!grps)
		return 0;
	grp = (const void *)((const char *)grps + NLA_HDRLEN);
	id = find_attr((const char *)grp + NLA_HDRLEN, grp->nla_len - NLA_HDRLEN,
		       CTRL_ATTR_MCAST_GRP_ID);
	return id ? *(const uint32_t *)((const char *)id + NLA_HDRLEN) : 0;
}

static void
put_attr(char *buf, uint16_t type, const void *data, size_t len)
{
	struct nlmsghdr *nlh = (void *)buf;
	struct nlattr *a = (void *)(buf + NLMSG_ALIGN(nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* An ovs_datapath request for the datapath name, with an ACK; its error. */
static int
dp_request(int fd, uint16_t family, uint8_t cmd, const char *name)
{
	char buf[8192];
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	uint32_t pid = 0;

	memset(buf, 0, 256);
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + sizeof(struct ovs_header));
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 72;
	gh->cmd = cmd;
	gh->version = OVS_DATAPATH_VERSION;
	put_attr(buf, OVS_DP_ATTR_NAME, name, strlen(name) + 1);
	if (cmd == OVS_DP_CMD_NEW)
		put_attr(buf, OVS_DP_ATTR_UPCALL_PID, &pid, sizeof(pid));
	send(fd, buf, nlh->nlmsg_len, 0);
	for (int i = 0; i < 4; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			return -errno;
		if (nlh->nlmsg_type == NLMSG_ERROR)
			return nl_error(buf, n);
	}
	return -EPROTO;
}

/* The group of the NETLINK_PKTINFO control message of mh, -1 if none;
 * *nsid says whether a LISTEN_ALL_NSID one came too. */
static long
pktinfo_group(struct msghdr *mh, bool *nsid)
{
	long group = -1;

	*nsid = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_NETLINK)
			continue;
		if (c->cmsg_type == NETLINK_PKTINFO &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct nl_pktinfo)))
			group = ((struct nl_pktinfo *)CMSG_DATA(c))->group;
		if (c->cmsg_type == NETLINK_LISTEN_ALL_NSID)
			*nsid = true;
	}
	return group;
}

/* recvmsg into buf (len bytes) with a control buffer; the PKTINFO group or
 * -1, the length in *n. */
static long
recv_pktinfo(int fd, char *buf, size_t len, int flags, ssize_t *n,
	     int *msg_flags, bool *nsid)
{
	char cbuf[256];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };

	*n = recvmsg(fd, &mh, flags | MSG_DONTWAIT);
	*msg_flags = mh.msg_flags;
	return *n < 0 ? -2 : pktinfo_group(&mh, nsid);
}

/* NETLINK_PKTINFO on unicasts (group 0) and LISTEN_ALL_NSID (nothing for
 * the socket's own namespace), as the kernel's nlctrl answers give them;
 * run against the daemon and the kernel alike. */
static void
check_pktinfo_unicast(const char *who)
{
	char buf[8192], big[8192];
	int fd = nl_open(), one = 1, v = 0, fl;
	socklen_t vl = sizeof(v);
	bool nsid;
	ssize_t n, full;
	long g;

	/* A datagram queued before the option, and one after. */
	send(fd, buf, getfamily(buf, "nlctrl", 61, 0), 0);
	CHECK(setsockopt(fd, SOL_NETLINK, NETLINK_PKTINFO, &one,
			 sizeof(one)) == 0 &&
	      setsockopt(fd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one,
			 sizeof(one)) == 0 &&
	      getsockopt(fd, SOL_NETLINK, NETLINK_PKTINFO, &v, &vl) == 0 &&
	      v == 1, "%s: NETLINK_PKTINFO, LISTEN_ALL_NSID set", who);
	g = recv_pktinfo(fd, buf, sizeof(buf), 0, &n, &fl, &nsid);
	CHECK(g == 0 && !nsid && family_id(buf, n) == GENL_ID_CTRL &&
	      ((struct nlmsghdr *)buf)->nlmsg_seq == 61,
	      "%s: queued before: the reply whole, PKTINFO group 0 (%ld)",
	      who, g);
	send(fd, buf, getfamily(buf, "nlctrl", 62, 0), 0);
	full = recv(fd, big, sizeof(big), MSG_PEEK | MSG_DONTWAIT);
	g = recv_pktinfo(fd, buf, sizeof(buf), 0, &n, &fl, &nsid);
	CHECK(g == 0 && !nsid && n == full && !memcmp(buf, big, n) &&
	      ((struct nlmsghdr *)buf)->nlmsg_seq == 62,
	      "%s: queued after: the same bytes as a peek, group 0, no nsid",
	      who);
	send(fd, buf, getfamily(buf, "nlctrl", 63, 0), 0);
	g = recv_pktinfo(fd, buf, 20, MSG_TRUNC, &n, &fl, &nsid);
	CHECK(g == 0 && n == full && (fl & MSG_TRUNC) &&
	      ((struct nlmsghdr *)buf)->nlmsg_seq == 63,
	      "%s: short buffer: MSG_TRUNC, the full length", who);
	/* A kernel family's answer (relayed by the shim) the same. */
	send(fd, buf, getfamily(buf, "ethtool", 64, 0), 0);
	n = recv(fd, big, sizeof(big), MSG_DONTWAIT);
	((struct nlmsghdr *)buf)->nlmsg_type = family_id(big, n);
	((struct nlmsghdr *)buf)->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	((struct genlmsghdr *)NLMSG_DATA(buf))->cmd = 0;
	send(fd, buf, NLMSG_LENGTH(GENL_HDRLEN), 0);
	g = recv_pktinfo(fd, buf, sizeof(buf), 0, &n, &fl, &nsid);
	CHECK(g == 0 && nl_error(buf, n) == -EOPNOTSUPP,
	      "%s: a kernel family's error, PKTINFO group 0 (%ld)", who, g);
	close(fd);
}

/* ovs_datapath notifications carry their group. */
static void
check_pktinfo_multicast(void)
{
	char buf[8192];
	int a = nl_open(), b = nl_open(), one = 1, fl;
	uint32_t group;
	uint16_t id;
	bool nsid;
	ssize_t n;
	long g;

	send(a, buf, getfamily(buf, "ovs_datapath", 71, 0), 0);
	n = recv(a, buf, sizeof(buf), 0);
	id = family_id(buf, n);
	group = mcast_group(buf, n);
	setsockopt(b, SOL_NETLINK, NETLINK_PKTINFO, &one, sizeof(one));
	setsockopt(b, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		   sizeof(group));
	CHECK(dp_request(a, id, OVS_DP_CMD_NEW, "pktinfo0") == 0,
	      "multicast: a datapath made");
	g = recv_pktinfo(b, buf, sizeof(buf), 0, &n, &fl, &nsid);
	CHECK(g == (long)group && n > 0 &&
	      ((struct nlmsghdr *)buf)->nlmsg_type == id,
	      "multicast: the notification with PKTINFO group %u (%ld)",
	      group, g);
	dp_request(a, id, OVS_DP_CMD_DEL, "pktinfo0");
	close(a);
	close(b);
}

static void
check_kernel_fallback(void)
{
	char buf[8192];
	int fd = nl_open(), domain = 0;
	socklen_t len = sizeof(domain);
	struct sockaddr_nl sa;
	ssize_t n;

	CHECK(fd >= 0, "no daemon: socket() still works");
	len = sizeof(sa);
	CHECK(connect(fd, (struct sockaddr *)&(struct sockaddr_nl){
			.nl_family = AF_NETLINK }, sizeof(sa)) == 0 &&
	      getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
	      sa.nl_pid != 0, "no daemon: kernel autobinds");
	send(fd, buf, getfamily(buf, "ovs_datapath", 1, 0), 0);
	n = recv(fd, buf, sizeof(buf), 0);
	CHECK(nl_error(buf, n) == -ENOENT,
	      "no daemon: the kernel says ovs_datapath does not exist");
	send(fd, buf, getfamily(buf, "nlctrl", 2, 0), 0);
	n = recv(fd, buf, sizeof(buf), 0);
	CHECK(family_id(buf, n) == GENL_ID_CTRL,
	      "no daemon: the kernel answers nlctrl");
	len = sizeof(domain);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &domain, &len);
	CHECK(domain == NETLINK_GENERIC, "no daemon: a real netlink socket");
	close(fd);
}

static void
check_portids(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK }, got;
	socklen_t len = sizeof(got);
	int a = nl_open(), b = nl_open(), c = nl_open();
	uint32_t pid = 0x40000000u | (getpid() & 0xffff);

	CHECK(getsockname(a, (struct sockaddr *)&got, &len) == 0 &&
	      got.nl_family == AF_NETLINK && got.nl_pid == 0 &&
	      len == sizeof(got), "unbound socket: getsockname gives portid 0");
	sa.nl_pid = pid;
	CHECK(bind(a, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	      "explicit bind");
	errno = 0;
	CHECK(bind(b, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	      errno == EADDRINUSE, "bind to a taken portid: EADDRINUSE");
	len = sizeof(got);
	getsockname(a, (struct sockaddr *)&got, &len);
	CHECK(got.nl_pid == pid, "getsockname returns the bound portid");
	sa.nl_pid = 0;
	CHECK(connect(b, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	      connect(c, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	      "connect(0) autobinds");
	uint32_t pb, pc;

	len = sizeof(got);
	getsockname(b, (struct sockaddr *)&got, &len);
	pb = got.nl_pid;
	getsockname(c, (struct sockaddr *)&got, &len);
	pc = got.nl_pid;
	CHECK(pb && pc && pb != pc, "autobound portids are unique");
	close(a);
	b = nl_open();
	sa.nl_pid = pid;
	CHECK(bind(b, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	      "a closed socket frees its portid");
	close(b);
	close(c);
}

static void
check_request_reply(void)
{
	char buf[65536];
	int fd = nl_open(), v = 0;
	socklen_t vl = sizeof(v);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sockaddr_nl from;
	socklen_t fl = sizeof(from);
	ssize_t n, full;

	CHECK(poll(&pfd, 1, 0) == 0, "empty socket is not readable");
	send(fd, buf, getfamily(buf, "ovs_datapath", 7, 0), 0);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN),
	      "reply readable as soon as send returns");
	full = recv(fd, buf, 1, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	CHECK(full > 1, "MSG_PEEK|MSG_TRUNC gives the full length (%zd)",
	      full);
	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		     (struct sockaddr *)&from, &fl);
	CHECK(n == full && family_id(buf, n) >= 0x11,
	      "GETFAMILY ovs_datapath answered (id 0x%x)", family_id(buf, n));
	CHECK(fl == sizeof(from) && from.nl_family == AF_NETLINK &&
	      from.nl_pid == 0, "replies come from portid 0");
	CHECK(((struct nlmsghdr *)buf)->nlmsg_seq == 7,
	      "reply echoes the request's seq");
	CHECK(recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "no ACK without NLM_F_ACK");
	send(fd, buf, getfamily(buf, "no_such_family", 8, 0), 0);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	CHECK(nl_error(buf, n) == -ENOENT &&
	      n == (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) +
		   (ssize_t)getfamily(buf + 4096, "no_such_family", 8, 0) -
		   (ssize_t)NLMSG_HDRLEN,
	      "unknown family: ENOENT with the request echoed");
	send(fd, buf, getfamily(buf, "ovs_vport", 9, NLM_F_ACK), 0);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	CHECK(family_id(buf, n), "reply first");
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	CHECK(nl_error(buf, n) == 0 &&
	      (((struct nlmsghdr *)buf)->nlmsg_flags & NLM_F_CAPPED),
	      "then the ACK, capped");
	/* MSG_TRUNC in msg_flags when the buffer is short. */
	send(fd, buf, getfamily(buf, "ovs_flow", 10, 0), 0);
	struct iovec iov = { buf, 16 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	CHECK(n == 16 && (mh.msg_flags & MSG_TRUNC),
	      "short buffer: MSG_TRUNC set, rest discarded");
	CHECK(recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "truncated datagram is consumed");
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &vl);
	CHECK(v == AF_NETLINK, "SO_DOMAIN is AF_NETLINK");
	vl = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &vl);
	CHECK(v == NETLINK_GENERIC, "SO_PROTOCOL is NETLINK_GENERIC");
	close(fd);
}

static void
check_batch(void)
{
	char a[256], b[256], buf[65536];
	size_t la = getfamily(a, "ovs_datapath", 21, 0);
	size_t lb = getfamily(b, "ovs_vport", 22, 0);
	struct iovec iov[2] = { { a, la }, { b, lb } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int fd = nl_open();
	ssize_t n1, n2;
	uint32_t s1, s2;

	CHECK(sendmsg(fd, &mh, 0) == (ssize_t)(la + lb),
	      "two requests in one sendmsg");
	n1 = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	s1 = ((struct nlmsghdr *)buf)->nlmsg_seq;
	n2 = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	s2 = ((struct nlmsghdr *)buf)->nlmsg_seq;
	CHECK(n1 > 0 && n2 > 0 && s1 == 21 && s2 == 22,
	      "two replies, one datagram each, in request order");
	close(fd);
}

static void
check_dump(void)
{
	char buf[65536];
	int fd = nl_open(), families = 0, eagain = 0, done = 0;

	send(fd, buf, getfamily(buf, NULL, 31, NLM_F_DUMP), 0);
	for (int i = 0; i < 100 && !done; i++) {
		/* A small buffer, as a careful client might use. */
		ssize_t n = recv(fd, buf, 8192, MSG_DONTWAIT);
		struct nlmsghdr *nlh = (void *)buf;

		if (n < 0) {
			eagain++;
			break;
		}
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_DONE)
				done = 1;
			else if (nlh->nlmsg_flags & NLM_F_MULTI)
				families++;
		}
	}
	CHECK(done && !eagain && families >= 5,
	      "dump: %d families, never EAGAIN before NLMSG_DONE", families);
	CHECK(recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "dump: nothing after NLMSG_DONE");
	send(fd, buf, getfamily(buf, NULL, 32, NLM_F_DUMP), 0);
	send(fd, buf, getfamily(buf, NULL, 33, NLM_F_DUMP), 0);
	int busy = 0;

	for (int i = 0; i < 100; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			break;
		if (((struct nlmsghdr *)buf)->nlmsg_seq == 33 &&
		    nl_error(buf, n) == -EBUSY)
			busy = 1;
	}
	CHECK(busy, "second dump while one runs: EBUSY");
	close(fd);
}

static void
check_overrun(void)
{
	char buf[65536];
	int fd = nl_open(), small = 4096, enobufs = 0, after = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	for (int i = 0; i < 400; i++)
		send(fd, buf, getfamily(buf, "ovs_datapath", 100 + i, 0), 0);
	for (int i = 0; i < 1000; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS)
			enobufs++;
		else if (n < 0)
			break;
		else if (enobufs)
			after++;
	}
	CHECK(enobufs == 1, "overrun: ENOBUFS reported once (%d)", enobufs);
	CHECK(after > 0, "overrun: queued replies still readable after it");
	close(fd);
}

static void
check_fork(void)
{
	char buf[8192];
	int fd = nl_open(), status = 0;
	pid_t pid;

	send(fd, buf, getfamily(buf, "ovs_datapath", 41, 0), 0);
	recv(fd, buf, sizeof(buf), 0);
	pid = fork();
	if (pid == 0) {
		send(fd, buf, getfamily(buf, "ovs_vport", 42, 0), 0);
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		_exit(family_id(buf, n) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fork: the child uses the inherited socket");
	send(fd, buf, getfamily(buf, "ovs_flow", 43, 0), 0);
	CHECK(family_id(buf, recv(fd, buf, sizeof(buf), MSG_DONTWAIT)),
	      "fork: the parent goes on using it");
	close(fd);
}

static void *
thread_main(void *arg)
{
	char buf[8192];
	int fd = nl_open(), ok = 0;

	for (int i = 0; i < 200; i++) {
		send(fd, buf, getfamily(buf, "ovs_datapath", i, 0), 0);
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		ok += family_id(buf, n) != 0 &&
		      ((struct nlmsghdr *)buf)->nlmsg_seq == (uint32_t)i;
	}
	close(fd);
	*(int *)arg = ok;
	return NULL;
}

static void
check_threads(void)
{
	pthread_t t[4];
	int ok[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, &ok[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(ok[0] + ok[1] + ok[2] + ok[3] == 800,
	      "4 threads x 200 requests, every reply right");
}

static uint32_t
portid_of(int fd)
{
	struct sockaddr_nl sa = { 0 };
	socklen_t len = sizeof(sa);

	return getsockname(fd, (struct sockaddr *)&sa, &len) == 0 ? sa.nl_pid
								   : 0;
}

/* Binds fd to pid, which a socket just closed held: the daemon learns of a
 * close when the shim's control connection hangs up, a moment later. */
static bool
bind_soon(int fd, uint32_t pid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = pid };

	for (int i = 0; i < 200; i++) {
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return true;
		if (errno != EADDRINUSE)
			return false;
		poll(NULL, 0, 10);
	}
	return false;
}

/* A dup names the same socket: one portid, one queue, alive until its last
 * fd is closed. */
static void
check_dup(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[8192];
	int fd = nl_open(), d, d2, other, again;
	uint32_t pid;

	connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	pid = portid_of(fd);
	d = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	CHECK(d >= 0 && d2 >= 100 && portid_of(d) == pid &&
	      portid_of(d2) == pid, "dup, F_DUPFD_CLOEXEC: the same portid");
	send(fd, buf, getfamily(buf, "ovs_datapath", 51, 0), 0);
	CHECK(family_id(buf, recv(d, buf, sizeof(buf), MSG_DONTWAIT)) &&
	      recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0,
	      "dup: a reply to one fd read from the other, once");
	close(fd);
	close(d);
	send(d2, buf, getfamily(buf, "ovs_vport", 52, 0), 0);
	CHECK(family_id(buf, recv(d2, buf, sizeof(buf), MSG_DONTWAIT)) &&
	      portid_of(d2) == pid, "dup: the last fd keeps the socket");
	sa.nl_pid = pid;
	other = nl_open();
	errno = 0;
	CHECK(bind(other, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	      errno == EADDRINUSE, "dup: the portid still taken");
	close(d2);
	CHECK(bind_soon(other, pid), "dup: closing the last fd frees the portid");
	/* dup2 over an emulated fd closes that socket. */
	fd = nl_open();
	sa.nl_pid = 0;
	connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	pid = portid_of(other);
	CHECK(dup2(fd, other) == other && portid_of(other) == portid_of(fd),
	      "dup2: the target names the source's socket");
	again = nl_open();
	CHECK(bind_soon(again, pid), "dup2: the socket it replaced is closed");
	send(other, buf, getfamily(buf, "ovs_flow", 53, 0), 0);
	CHECK(family_id(buf, recv(fd, buf, sizeof(buf), MSG_DONTWAIT)),
	      "dup2: requests on the target answered on the source");
	close(again);
	close(other);
	close(fd);
}

static void
check_oversize(void)
{
	size_t big = 1 << 20;
	char *buf = calloc(1, big);
	int fd = nl_open();

	errno = 0;
	CHECK(send(fd, buf, big, 0) < 0 && errno == EMSGSIZE,
	      "oversize send: EMSGSIZE");
	free(buf);
	close(fd);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--kernel")) {
		check_kernel_fallback();
		check_pktinfo_unicast("no daemon");
	} else {
		check_portids();
		check_request_reply();
		check_batch();
		check_dump();
		check_overrun();
		check_fork();
		check_threads();
		check_dup();
		check_pktinfo_unicast("daemon");
		check_pktinfo_multicast();
		check_oversize();
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
