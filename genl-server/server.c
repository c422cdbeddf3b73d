#define _GNU_SOURCE
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>
#include <urcu.h>

#include "common/log.h"
#include "common/nlerr.h"
#include "compat/proto.h"
#include "creds.h"
#include "ctnetlink.h"
#include "datapath/datapath.h"
#include "families.h"
#include "genl.h"
#include "kernel-relay.h"
#include "nlsock.h"
#include "tap/netdev.h"

struct conn {
	int fd;
	struct nlsock *sk;	/* NULL until HELLO */
};

/* epoll tags for the fixed sources; connections carry their pointer. */
static char tag_listen, tag_rtnl, tag_timer, tag_lost;

/* The kernel rebalances its mask arrays every 4 s. */
#define PERIODIC_MS 4000

static int listen_fd = -1, epoll_fd = -1, timer_fd = -1;
static struct mnl_socket *rtnl;
static char *sock_path;
static volatile sig_atomic_t stop_requested;
static struct conn **conns;
static size_t n_conns;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int
daemon_answers(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int ok;

	if (fd < 0)
		return 0;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	ok = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	close(fd);
	return ok;
}

static void
mkdir_parent(const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;

	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	free(dir);
}

static int
epoll_watch(int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int
rtnl_open(void)
{
	int err;

	rtnl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!rtnl)
		return -errno;
	if (mnl_socket_setsockopt(rtnl, NETLINK_LISTEN_ALL_NSID, &(int){ 1 },
				  sizeof(int)) < 0 ||
	    mnl_socket_bind(rtnl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	err = epoll_watch(mnl_socket_get_fd(rtnl), &tag_rtnl);
	if (!err)
		err = vport_error_fd();
	return err < 0 ? err : epoll_watch(err, &tag_lost);
}

static int
timer_open(void)
{
	struct itimerspec its = {
		.it_interval = { PERIODIC_MS / 1000, 0 },
		.it_value = { PERIODIC_MS / 1000, 0 },
	};

	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer_fd < 0 || timerfd_settime(timer_fd, 0, &its, NULL) < 0)
		return -errno;
	return epoll_watch(timer_fd, &tag_timer);
}

int
server_open(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int err;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	if (daemon_answers(path))
		return -EADDRINUSE;
	mkdir_parent(path);
	unlink(path);
	strcpy(sun.sun_path, path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
			   SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	if (bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(listen_fd, 128) < 0)
		return -errno;
	sock_path = strdup(path);
	/* Anyone may read; changes are checked against CAP_NET_ADMIN. */
	chmod(path, 0666);
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0)
		return -errno;
	err = epoll_watch(listen_fd, &tag_listen);
	if (!err)
		err = rtnl_open();
	if (!err)
		err = timer_open();
	if (err)
		return err;
	nlerr_open_kmsg();
	nlsock_registry_init();
	families_register();
	return 0;
}

static void
conn_close(struct conn *c)
{
	for (size_t i = 0; i < n_conns; i++) {
		if (conns[i] == c) {
			conns[i] = conns[--n_conns];
			break;
		}
	}
	epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	nlsock_free(c->sk);
	free(c);
}

static void
accept_conns(void)
{
	int fd;

	while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		struct conn *c = calloc(1, sizeof(*c));
		struct conn **grown = realloc(conns, (n_conns + 1) *
					      sizeof(*conns));

		if (!c || !grown) {
			free(c);
			close(fd);
			continue;
		}
		conns = grown;
		c->fd = fd;
		conns[n_conns++] = c;
		if (epoll_watch(fd, c))
			conn_close(c);
	}
}

/* Takes the fds a message passed; returns how many (at most max kept). */
static int
take_fds(struct msghdr *mh, int *fds, int max)
{
	int n = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		int count;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (int i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (n < max)
				fds[n] = fd;
			else
				close(fd);
			n++;
		}
	}
	return n;
}

/* The page shared with the shim: made, sized and sealed here, so that the
 * client cannot shrink the file under the daemon's mapping (a write past a
 * file's end is SIGBUS). Returns its fd, or -errno. */
static int
shared_new(struct tapdp_shared **out)
{
	int fd = memfd_create("tapdp-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, sizeof(**out)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_SEAL) < 0)
		goto fail;
	*out = mmap(NULL, sizeof(**out), PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (*out == MAP_FAILED)
		goto fail;
	return fd;
fail:
	close(fd);
	return -errno;
}

static bool
is_unix_dgram(int fd)
{
	int domain = 0, type = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return false;
	len = sizeof(int);
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	       domain == AF_UNIX && type == SOCK_DGRAM;
}

/* HELLO passes the data socket's end and, optionally, a netlink socket
 * the client opened (creds.h); the answer passes the shared page's fd
 * (*memfd). */
static int
conn_hello(struct conn *c, const struct tapdp_req *req, struct msghdr *mh,
	   int *memfd)
{
	struct tapdp_shared *shared;
	struct nlsock_creds creds;
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int fds[2] = { -1, -1 }, n = take_fds(mh, fds, 2), protocol;
	int err = -EPROTO;

	protocol = req->arg[2];
	if (n < 1 || n > 2 || !is_unix_dgram(fds[0]) || c->sk ||
	    req->arg[0] != TAPDP_PROTO_VERSION ||
	    (protocol != NETLINK_GENERIC && protocol != NETLINK_NETFILTER) ||
	    getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		goto out;
	creds = (struct nlsock_creds) {
		.pid = uc.pid,
		.uid = uc.uid,
		.net_admin = fds[1] >= 0 && creds_opener_net_admin(fds[1]),
	};
	*memfd = shared_new(&shared);
	if (*memfd < 0)
		goto out;
	c->sk = nlsock_new(fds[0], shared, &creds, protocol);
	if (!c->sk) {
		munmap(shared, sizeof(*shared));
		close(*memfd);
		*memfd = -1;
		goto out;
	}
	fds[0] = -1;
	err = 0;
out:
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

static int
conn_send(struct conn *c, const struct tapdp_req *req, const void *payload,
	  size_t len, struct tapdp_rep *rep)
{
	uint32_t dst = req->arg[0];

	if (dst) {
		/* Unicast to another socket: genetlink grants it to
		 * CAP_NET_ADMIN only. */
		if (!nlsock_creds(c->sk)->net_admin)
			return -EPERM;
		nlsock_autobind(c->sk);
		return nlsock_unicast_portid(nlsock_protocol(c->sk), dst,
					     payload, len) == -ECONNREFUSED
			       ? -ECONNREFUSED : 0;
	}
	nlsock_autobind(c->sk);
	nlsock_note_recv(c->sk, req->arg[1] > 0 ? req->arg[1] : 0);
	if (nlsock_protocol(c->sk) == NETLINK_NETFILTER)
		ctnetlink_rcv(c->sk, payload, len);
	else
		genl_rcv(c->sk, payload, len);
	rep->val[1] = genl_dump_running(c->sk);
	return 0;
}

static int
conn_dispatch(struct conn *c, const struct tapdp_req *req, const void *payload,
	      size_t len, struct tapdp_rep *rep)
{
	int v = 0, err;

	switch (req->op) {
	case TAPDP_OP_BIND:
		err = nlsock_bind(c->sk, (uint32_t)req->arg[0]);
		break;
	case TAPDP_OP_CONNECT:
		err = nlsock_autobind(c->sk);
		break;
	case TAPDP_OP_SEND:
		err = conn_send(c, req, payload, len, rep);
		break;
	case TAPDP_OP_SETSOCKOPT:
		return nlsock_setsockopt(c->sk, req->arg[0], req->arg[1],
					 req->arg[2]);
	case TAPDP_OP_GETSOCKOPT:
		err = nlsock_getsockopt(c->sk, req->arg[0], req->arg[1], &v);
		rep->val[0] = v;
		return err;
	case TAPDP_OP_DUMP_NEXT:
		nlsock_note_recv(c->sk, req->arg[0] > 0 ? req->arg[0] : 0);
		rep->val[1] = genl_dump_next(c->sk);
		return 0;
	default:
		return -EINVAL;
	}
	rep->val[0] = nlsock_portid(c->sk);
	return err;
}

/* Sends the answer, with fd (if >= 0) passed along. */
static bool
conn_reply(struct conn *c, const struct tapdp_rep *rep, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)rep, sizeof(*rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(c->fd, &mh, MSG_NOSIGNAL) == sizeof(*rep);
}

/* One request from a shim; false when the connection must close. */
static bool
conn_serve(struct conn *c, char *buf, size_t cap)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { buf, cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct tapdp_rep rep = { 0 };
	struct tapdp_req req;
	int memfd = -1;
	bool sent;
	ssize_t n;

	n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n < (ssize_t)sizeof(req) || (mh.msg_flags & (MSG_TRUNC |
							   MSG_CTRUNC))) {
		take_fds(&mh, NULL, 0);
		return false;
	}
	memcpy(&req, buf, sizeof(req));
	if (req.op == TAPDP_OP_HELLO)
		rep.err = conn_hello(c, &req, &mh, &memfd);
	else if (take_fds(&mh, NULL, 0) || !c->sk)
		return false;
	else
		rep.err = conn_dispatch(c, &req, buf + sizeof(req),
					n - sizeof(req), &rep);
	sent = conn_reply(c, &rep, memfd);
	if (memfd >= 0)
		close(memfd);
	return sent && rep.err != -EPROTO;
}

/* RTM_DELLINK: a port's device was deleted, or moved to another namespace.
 * The kernel detaches a netdev port either way; an internal port's device
 * may move and stays attached (only the local port's may not: the kernel
 * refuses to move it). */
static void
port_gone(int netnsid, int ifindex)
{
	struct dp_port *port = dp_port_by_ifindex(netnsid, ifindex);
	struct datapath *dp;
	int err;

	if (!port)
		return;
	dp = port->dp;
	if (port->port_no == OVSP_LOCAL) {
		log_warn("%s: local port device deleted or moved away, "
			 "deleting the datapath", dp_name(dp));
		dp_family_notify_gone(dp);
		dp_destroy(dp);
		return;
	}
	if (port->type == OVS_VPORT_TYPE_INTERNAL) {
		err = vport_locate(port->vport);
		if (!err) {
			log_info("%s: port %u %s: device moved (netns id %d, "
				 "index %d), still attached", dp_name(dp),
				 port->port_no, dp_port_name(port),
				 port->vport->netnsid, port->vport->ifindex);
			return;
		}
		if (err != -ENODEV) {
			log_warn("%s: port %u %s: device moved, cannot tell "
				 "where: %s", dp_name(dp), port->port_no,
				 dp_port_name(port), strerror(-err));
			return;
		}
	}
	log_info("%s: port %u %s: device deleted or moved away, detaching",
		 dp_name(dp), port->port_no, dp_port_name(port));
	vport_family_notify_gone(port);
	dp_port_del(port);
}

/* Internal ports' devices destroyed where the daemon sees no link event:
 * with the namespace they had been moved to. The kernel detaches those
 * ports as the namespace exits, with no notification. */
static void
ports_lost(void)
{
	uint64_t n;

	if (read(vport_error_fd(), &n, sizeof(n)) < 0)
		return;
	for (unsigned i = 0; dp_at(i); i++) {
		struct datapath *dp = dp_at(i);

		for (uint32_t p = OVSP_LOCAL + 1; p < dp->ports->n; p++) {
			struct dp_port *port = dp->ports->port[p];

			if (!port || !vport_take_error(port->vport) ||
			    vport_locate(port->vport) != -ENODEV)
				continue;
			log_info("%s: port %u %s: device destroyed with its "
				 "namespace, detaching", dp_name(dp),
				 port->port_no, dp_port_name(port));
			dp_port_del(port);
		}
	}
}

/* A port's device changed its MTU: its sends follow. */
static void
port_mtu(const struct nlmsghdr *nlh, int netnsid, int ifindex)
{
	struct dp_port *port = dp_port_by_ifindex(netnsid, ifindex);
	uint32_t mtu;

	if (!port)
		return;
	mtu = netdev_link_mtu(nlh);
	if (mtu)
		vport_set_mtu(port->vport, mtu);
}

/* data: the id of the namespace the event comes from. */
static int
link_event(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int netnsid = *(int *)data;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELLINK)
		port_gone(netnsid, ifi->ifi_index);
	else if (nlh->nlmsg_type == RTM_NEWLINK)
		port_mtu(nlh, netnsid, ifi->ifi_index);
	return MNL_CB_OK;
}

/* Link events of our namespace and (NETLINK_LISTEN_ALL_NSID) of those our
 * namespace has an id for, where moved internal ports may be: each
 * datagram says which. */
static void
rtnl_read(void)
{
	char buf[16384], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		int netnsid = NETNSA_NSID_NOT_ASSIGNED;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(mnl_socket_get_fd(rtnl), &mh, 0);
		if (n <= 0) {
			/* Events lost to a full queue: those that follow
			 * still count. */
			if (n < 0 && errno == ENOBUFS)
				continue;
			break;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
		     cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_NETLINK &&
			    cm->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&netnsid, CMSG_DATA(cm), sizeof(int));
		mnl_cb_run(buf, n, 0, 0, link_event, &netnsid);
	}
}

static void
periodic(void)
{
	uint64_t expirations;

	if (read(timer_fd, &expirations, sizeof(expirations)) > 0)
		dp_run_periodic();
}

int
server_run(void)
{
	size_t cap = sizeof(struct tapdp_req) + TAPDP_MAX_SEND;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, during;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGTERM);
	sigdelset(&during, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	while (!stop_requested) {
		struct epoll_event evs[32];
		int n = epoll_pwait(epoll_fd, evs, 32, -1, &during);

		if (n < 0 && errno != EINTR) {
			free(buf);
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;

			if (tag == &tag_listen)
				accept_conns();
			else if (tag == &tag_rtnl)
				rtnl_read();
			else if (tag == &tag_timer)
				periodic();
			else if (tag == &tag_lost)
				ports_lost();
			else if (!conn_serve(tag, buf, cap))
				conn_close(tag);
		}
	}
	free(buf);
	log_info("shutting down");
	return 0;
}

void
server_close(void)
{
	while (n_conns)
		conn_close(conns[0]);
	free(conns);
	conns = NULL;
	nlsock_registry_destroy();
	dp_destroy_all();
	dp_conntrack_destroy();
	/* Flows and actions freed after a grace period go now. */
	rcu_barrier();
	genl_unregister_all();
	kernel_relay_close();
	if (rtnl)
		mnl_socket_close(rtnl);
	nlerr_close_kmsg();
	if (timer_fd >= 0)
		close(timer_fd);
	if (epoll_fd >= 0)
		close(epoll_fd);
	if (listen_fd >= 0)
		close(listen_fd);
	if (sock_path) {
		unlink(sock_path);
		free(sock_path);
	}
	rtnl = NULL;
	epoll_fd = listen_fd = timer_fd = -1;
	sock_path = NULL;
}
