/* SPDX-License-Identifier: Apache-2.0 */
/* libtapdp.so: LD_PRELOAD shim that hands NETLINK_GENERIC sockets (and the
 * conntrack part of NETLINK_NETFILTER ones) to tapdpd.
 *
 * socket(AF_NETLINK, *, NETLINK_GENERIC or NETLINK_NETFILTER) connects to
 * the daemon and returns
 * the application's end of a data socketpair (see proto.h). The calls that
 * differ between AF_UNIX and AF_NETLINK are wrapped for those fds only:
 * bind/connect/getsockname (portids), send* (requests, synchronous), recv*
 * (source address, ENOBUFS, dump continuation), {get,set}sockopt, close
 * and the dup family (a dup names the same socket; it lives until its last
 * fd is closed).
 * When no daemon listens, socket() is the real one and nothing else changes;
 * a daemon out of descriptors for the socket (or the user's share of them)
 * makes socket() fail as the kernel's does when the process is out of
 * them: EMFILE, ENFILE.
 * NETLINK_ROUTE sockets stay real; route.c offers their link requests to
 * the daemon, which serves its own tunnel devices.
 * Preloaded into tapdpd itself (or its keeper), the shim does nothing:
 * every call is the kernel's.
 *
 * Families the daemon does not serve stay the kernel's (for netfilter: every
 * subsystem but ctnetlink's connections): the daemon answers nlctrl for
 * generic families with the kernel's own answer, and the shim sends their
 * requests on a real kernel socket of its own, which it hands to the
 * daemon: the daemon copies what arrives there into the data socket (the
 * answers before send returns, the kernel's multicasts as they come, so
 * that they wake poll).
 *
 * Thread safety: the fd table holds atomic pointers; each emulated socket has
 * a mutex that serialises its control exchanges. Fork: the child inherits the
 * sockets and may go on using them; locks are reset in the child. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/genetlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "compat/autoload.h"
#include "compat/dgram.h"
#include "compat/real.h"
#include "compat/route.h"
#include "include/tapdp/proto.h"

#define EXPORT __attribute__((visibility("default")))

struct emu {
	int ctl;
	int inject;		/* our copy of the daemon's end */
	int kfd;		/* kernel socket, opened on first use */
	int route;		/* proofs go there (TAPDP_HELLO_PROVE), or -1 */
	uint32_t route_portid;
	int type;
	int protocol;		/* NETLINK_GENERIC or NETLINK_NETFILTER */
	struct tapdp_shared *shared;
	pthread_mutex_t lock;
	uint32_t portid;
	bool dump_running;
	_Atomic bool dead;	/* the daemon went away */
	uint32_t groups;	/* the daemon's groups 1-32 joined */
	int max_recv;		/* sizes dump parts, as the kernel's */
	_Atomic int refs;	/* fds naming the socket (dup) */
	/* NETLINK_PKTINFO and NETLINK_LISTEN_ALL_NSID as last set; framed
	 * once either was: datagrams may carry a tapdp_dgram_info. */
	_Atomic bool pktinfo, all_nsid, framed;
};

static _Atomic(struct emu *) emus[MAX_FDS];

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static int shim_emu_open(int type, int protocol);
static int shim_emu_offer(int fd, const void *msg, size_t len);
static int shim_emu_view(int fd, const void *dgram, size_t len);

/* Defined and exported by tapdpd alone (daemon/tapdpd.c): preloaded into
 * the daemon, or its keeper, a fork of it, the shim would hand the
 * daemon's own netlink sockets to it, to wait for itself. There socket()
 * is the kernel's, route.c is never asked to offer, and so no wrapper
 * sees a socket of ours. Undefined elsewhere: its address is NULL. */
extern const char tapdp_daemon_self __attribute__((weak));
static bool in_daemon;

static void
shim_atfork_child(void)
{
	for (int fd = 0; fd < MAX_FDS; fd++) {
		struct emu *e = atomic_load(&emus[fd]);

		if (e)
			pthread_mutex_init(&e->lock, NULL);
	}
}

static void
shim_init(void)
{
	real_resolve();
	route_set_daemon(shim_emu_open, shim_emu_offer, shim_emu_view);
	in_daemon = &tapdp_daemon_self != NULL;
	pthread_atfork(NULL, NULL, shim_atfork_child);
}

static inline void
shim_ready(void)
{
	pthread_once(&init_once, shim_init);
}

static struct emu *
emu_get(int fd)
{
	if (fd < 0 || fd >= MAX_FDS)
		return NULL;
	return atomic_load_explicit(&emus[fd], memory_order_acquire);
}

static const char *
daemon_path(void)
{
	const char *p = getenv(TAPDP_SOCKET_ENV);

	return p && *p ? p : TAPDP_DEFAULT_SOCKET;
}

/* What the user must know of, on standard error and in the system log:
 * once per process and kind. */
static void
shim_warn(_Atomic bool *said, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (atomic_exchange(said, true))
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	syslog(LOG_WARNING, "%s", line);
	line[n] = '\n';
	if (write(STDERR_FILENO, line, n + 1) < 0)
		return;
}

/* The answer to request seq; an answer to an earlier one is a duplicate
 * a daemon that took over from a dead one sent (proto.h). */
static ssize_t
recv_rep(int ctl, uint32_t seq, struct tapdp_rep *rep)
{
	ssize_t n;

	do
		n = recv(ctl, rep, sizeof(*rep), 0);
	while ((n < 0 && errno == EINTR) ||
	       (n == (ssize_t)sizeof(*rep) && rep->seq != seq));
	return n;
}

/* Tells the daemon, through the kernel, that this process has
 * CAP_NET_ADMIN over the socket's namespace (TAPDP_HELLO_PROVE); the
 * kernel refuses the send to a process without it. */
static void
route_prove(int route, uint32_t portid)
{
	struct nlmsghdr nlh = { .nlmsg_len = sizeof(nlh),
				.nlmsg_type = NLMSG_NOOP };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = portid };
	struct iovec iov = { &nlh, sizeof(nlh) };
	struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to),
			     .msg_iov = &iov, .msg_iovlen = 1 };

	while (real_sendmsg(route, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
	       errno == EINTR)
		;
}

/* Before a request of another process than the last that proved. */
static void
emu_prove(struct emu *e)
{
	uint32_t me;

	if (e->route < 0)
		return;
	me = (uint32_t)getpid();
	if (__atomic_exchange_n(&e->shared->proved, me, __ATOMIC_RELAXED) !=
	    me)
		route_prove(e->route, e->route_portid);
}

/* One control exchange, with e->lock held: request (+ payload, + fd when
 * it is >= 0) out, reply in. */
static int
emu_exchange(struct emu *e, const struct tapdp_req *req, const void *payload,
	     size_t len, int fd, struct tapdp_rep *rep)
{
	struct iovec iov[2] = {
		{ (void *)req, sizeof(*req) },
		{ (void *)payload, len },
	};
	char cbuf[TAPDP_FDS_SPACE(1)];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (fd >= 0)
		tapdp_pass_fds(&mh, cbuf, &fd, 1);
	emu_prove(e);
again:
	do
		n = real_sendmsg(e->ctl, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		n = recv_rep(e->ctl,
			     __atomic_add_fetch(&e->shared->sent, 1,
						__ATOMIC_RELAXED),
			     rep);
	if (n == (ssize_t)sizeof(*rep) && (rep->flags & TAPDP_REP_LOST)) {
		/* The daemon died with the request: a datagram is lost as
		 * the kernel loses one (the daemon flagged ENOBUFS); any
		 * other request is made again. */
		if (req->op != TAPDP_OP_SEND)
			goto again;
		memset(rep, 0, sizeof(*rep));
	}
	if (n == (ssize_t)sizeof(*rep) &&
	    (req->op == TAPDP_OP_SEND || req->op == TAPDP_OP_DUMP_NEXT))
		e->dump_running = rep->val[1];
	if (n != (ssize_t)sizeof(*rep)) {
		static _Atomic bool said;

		/* The daemon went away: the socket is dead, and its reads
		 * fail once what it had queued is read (a dump cut short must
		 * not look complete). */
		memset(rep, 0, sizeof(*rep));
		rep->err = -ECONNREFUSED;
		atomic_store(&e->dead, true);
		shim_warn(&said, "tapdp: the daemon at %s went away; its "
			  "netlink sockets fail from now on", daemon_path());
	}
	return rep->err;
}

static int
emu_call(struct emu *e, const struct tapdp_req *req, const void *payload,
	 size_t len, struct tapdp_rep *rep)
{
	int err;

	pthread_mutex_lock(&e->lock);
	err = emu_exchange(e, req, payload, len, -1, rep);
	pthread_mutex_unlock(&e->lock);
	return err;
}

static int
emu_simple(struct emu *e, enum tapdp_op op, int a0, int a1, int a2,
	   struct tapdp_rep *rep)
{
	struct tapdp_req req = { .op = op, .arg = { a0, a1, a2 } };

	return emu_call(e, &req, NULL, 0, rep);
}

static int
fail(int err)
{
	errno = err;
	return -1;
}


/* A NETLINK_ROUTE socket, bound (*portid), on which this process has
 * proved itself; -1 when none can be made. */
static int
route_open(uint32_t *portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int fd = real_socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			     NETLINK_ROUTE);

	if (fd < 0)
		return -1;
	if (real_bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    real_getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		real_close(fd);
		return -1;
	}
	*portid = sa.nl_pid;
	route_prove(fd, *portid);
	return fd;
}

/* HELLO: hands over the daemon's end of the data socket and a kernel
 * netlink socket opened now, by which the daemon learns from the kernel
 * whether this process may change things (proto.h); returns the shared
 * page's fd from the answer, or -1 with *refused the daemon's answer (0:
 * none came). *route: that socket, when the daemon asks for proofs on
 * it (TAPDP_HELLO_PROVE), or -1. */
static int
emu_hello(int ctl, int data_end, int type, int protocol, int *refused,
	  int *route, uint32_t *portid)
{
	struct tapdp_req req = { .op = TAPDP_OP_HELLO,
				 .arg = { TAPDP_PROTO_VERSION, type,
					  protocol } };
	char cbuf[TAPDP_FDS_SPACE(2)];
	struct iovec iov = { &req, sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	struct tapdp_rep rep;
	int fds[2] = { data_end, -1 }, n = 1, memfd = -1;
	ssize_t sent, got;

	*route = -1;
	fds[1] = route_open(portid);
	if (fds[1] >= 0)
		n = 2;
	tapdp_pass_fds(&mh, cbuf, fds, n);
	sent = real_sendmsg(ctl, &mh, MSG_NOSIGNAL);
	*refused = 0;
	iov = (struct iovec) { &rep, sizeof(rep) };
	mh = (struct msghdr) { .msg_iov = &iov, .msg_iovlen = 1,
			       .msg_control = cbuf,
			       .msg_controllen = sizeof(cbuf) };
	/* A daemon that refuses the socket answers and closes at once: the
	 * answer is there even when the send failed, or behind a reset. */
	got = real_recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC |
			   (sent == sizeof(req) ? 0 : MSG_DONTWAIT));
	if (got < 0 && errno == ECONNRESET)
		got = real_recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (got == sizeof(rep))
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len == CMSG_LEN(sizeof(int)) && memfd < 0)
				memcpy(&memfd, CMSG_DATA(c), sizeof(int));
	if (got != sizeof(rep) || rep.err || memfd < 0) {
		if (memfd >= 0)
			real_close(memfd);
		*refused = got == sizeof(rep) ? -rep.err : 0;
		memfd = -1;
	} else if (rep.val[0] & TAPDP_HELLO_PROVE) {
		*route = fds[1];
		fds[1] = -1;
	}
	if (fds[1] >= 0)
		real_close(fds[1]);
	return memfd;
}

/* Whether the daemon refused a socket for want of resources (its
 * descriptors, the user's share of them, memory), which socket() reports
 * as the kernel would. */
static bool
refused_for_resources(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM ||
	       err == ENOBUFS;
}

/* Connects an emulated socket; -1 when no daemon answers or the daemon
 * refuses, with *refused the errno socket() must fail with, or 0 when the
 * socket is the kernel's. */
static int
emu_open(int type, int protocol, int *refused)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int flags = type & (SOCK_CLOEXEC | SOCK_NONBLOCK);
	int ctl, memfd = -1, sv[2] = { -1, -1 }, saved = errno, route = -1;
	struct tapdp_shared *shared = MAP_FAILED;
	uint32_t route_portid = 0;
	struct emu *e;
	const char *path = daemon_path();

	*refused = 0;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	ctl = real_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ctl < 0)
		goto fail;
	if (real_connect(ctl, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		static _Atomic bool said;

		if (!autoload_module_mode())
			shim_warn(&said, "tapdp: no daemon answers at %s (%s): "
				  "netlink sockets go to the kernel", path,
				  strerror(errno));
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | flags, 0, sv) < 0)
		goto fail;
	if (sv[0] >= MAX_FDS)
		goto fail;
	memfd = emu_hello(ctl, sv[1], type, protocol, refused, &route,
			  &route_portid);
	if (memfd < 0) {
		static _Atomic bool said;

		if (refused_for_resources(*refused))
			goto fail;
		*refused = 0;
		shim_warn(&said, "tapdp: the daemon at %s refused a socket: it "
			  "goes to the kernel", path);
		goto fail;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED, memfd, 0);
	if (shared == MAP_FAILED)
		goto fail;
	real_close(memfd);
	memfd = -1;
	e = calloc(1, sizeof(*e));
	if (!e)
		goto fail;
	e->ctl = ctl;
	e->inject = sv[1];
	e->kfd = -1;
	e->route = route;
	e->route_portid = route_portid;
	shared->proved = (uint32_t)getpid();
	e->type = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	e->protocol = protocol;
	e->shared = shared;
	e->refs = 1;
	pthread_mutex_init(&e->lock, NULL);
	atomic_store_explicit(&emus[sv[0]], e, memory_order_release);
	errno = saved;
	return sv[0];
fail:
	if (shared != MAP_FAILED)
		munmap(shared, sizeof(*shared));
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			real_close(sv[i]);
	if (memfd >= 0)
		real_close(memfd);
	if (route >= 0)
		real_close(route);
	if (ctl >= 0)
		real_close(ctl);
	errno = saved;
	return -1;
}

static void
emu_forget(int fd)
{
	struct emu *e;

	if (fd < 0 || fd >= MAX_FDS)
		return;
	e = atomic_exchange(&emus[fd], NULL);
	if (!e || atomic_fetch_sub(&e->refs, 1) > 1)
		return;
	real_close(e->ctl);
	real_close(e->inject);
	if (e->kfd >= 0)
		real_close(e->kfd);
	if (e->route >= 0)
		real_close(e->route);
	munmap(e->shared, sizeof(*e->shared));
	pthread_mutex_destroy(&e->lock);
	free(e);
}

static int
shim_emu_open(int type, int protocol)
{
	int refused;

	shim_ready();
	return emu_open(type, protocol, &refused);
}

static int
shim_emu_offer(int fd, const void *msg, size_t len)
{
	struct tapdp_req req = { .op = TAPDP_OP_ROUTE };
	struct tapdp_rep rep;
	struct emu *e = emu_get(fd);

	if (!e || emu_call(e, &req, msg, len, &rep))
		return 0;
	return rep.val[0] == 1;
}

static int
shim_emu_view(int fd, const void *dgram, size_t len)
{
	struct tapdp_req req = { .op = TAPDP_OP_ROUTE_VIEW };
	struct tapdp_rep rep;
	struct emu *e = emu_get(fd);

	if (!e || emu_call(e, &req, dgram, len, &rep) || rep.err)
		return -1;
	return rep.val[0] == 1;
}

EXPORT int
socket(int domain, int type, int protocol)
{
	shim_ready();
	if (in_daemon)
		return real_socket(domain, type, protocol);
	if (domain == AF_NETLINK && protocol == NETLINK_ROUTE) {
		int fd = real_socket(domain, type, protocol);

		if (fd >= 0)
			route_track(fd);
		return fd;
	}
	if (domain == AF_NETLINK && (protocol == NETLINK_GENERIC ||
				     protocol == NETLINK_NETFILTER)) {
		int base = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (base == SOCK_RAW || base == SOCK_DGRAM) {
			int refused, fd = emu_open(type, protocol, &refused);

			if (fd >= 0)
				return fd;
			if (refused)
				return fail(refused);
		}
	}
	return real_socket(domain, type, protocol);
}

EXPORT int
close(int fd)
{
	shim_ready();
	emu_forget(fd);
	route_forget(fd);
	return real_close(fd);
}

/* newfd now names oldfd's file (dup and its kin succeeded): it is the
 * same socket, as in the kernel, and whatever newfd named before is
 * closed. */
static void
shim_dup_track(int oldfd, int newfd)
{
	struct emu *e = emu_get(oldfd);

	if (newfd < 0 || newfd >= MAX_FDS || newfd == oldfd)
		return;
	emu_forget(newfd);
	route_forget(newfd);
	if (e) {
		atomic_fetch_add(&e->refs, 1);
		atomic_store_explicit(&emus[newfd], e, memory_order_release);
	}
	route_share(oldfd, newfd);
}

EXPORT int
dup(int oldfd)
{
	int fd;

	shim_ready();
	fd = real_dup(oldfd);
	if (fd >= 0)
		shim_dup_track(oldfd, fd);
	return fd;
}

EXPORT int
dup2(int oldfd, int newfd)
{
	int fd;

	shim_ready();
	fd = real_dup2(oldfd, newfd);
	if (fd >= 0)
		shim_dup_track(oldfd, fd);
	return fd;
}

EXPORT int
dup3(int oldfd, int newfd, int flags)
{
	int fd;

	shim_ready();
	fd = real_dup3(oldfd, newfd, flags);
	if (fd >= 0)
		shim_dup_track(oldfd, fd);
	return fd;
}

/* fcntl's third argument is an int or a pointer by cmd; it is passed on as
 * glibc itself reads it. The asm names keep <fcntl.h>'s redirections (to
 * fcntl64 with _FILE_OFFSET_BITS=64) out of the way. */
static int
shim_fcntl_call(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	int ret = real(fd, cmd, arg);

	if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		shim_dup_track(fd, ret);
	return ret;
}

#define SHIM_FCNTL(name, symbol, real)					\
	EXPORT int name(int fd, int cmd, ...) __asm__(symbol);		\
	EXPORT int name(int fd, int cmd, ...)				\
	{								\
		va_list ap;						\
		void *arg;						\
									\
		va_start(ap, cmd);					\
		arg = va_arg(ap, void *);				\
		va_end(ap);						\
		shim_ready();						\
		return shim_fcntl_call(real, fd, cmd, arg);		\
	}

SHIM_FCNTL(shim_fcntl, "fcntl", real_fcntl)
SHIM_FCNTL(shim_fcntl64, "fcntl64", real_fcntl64)

static int
check_nl_addr(const struct sockaddr *addr, socklen_t len)
{
	if (!addr || len < sizeof(struct sockaddr_nl))
		return EINVAL;
	if (addr->sa_family != AF_NETLINK)
		return EINVAL;
	return 0;
}

static int bind_groups(struct emu *e, uint32_t groups);

EXPORT int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct emu *e;
	struct tapdp_rep rep;
	const struct sockaddr_nl *nl = (const void *)addr;
	int err;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_bind(fd, addr, len);
	err = check_nl_addr(addr, len);
	if (err)
		return fail(err);
	if (emu_simple(e, TAPDP_OP_BIND, (int32_t)nl->nl_pid, 0, 0, &rep))
		return fail(-rep.err);
	e->portid = rep.val[0];
	/* libnfnetlink subscribes to conntrack's events here. */
	if (e->protocol == NETLINK_NETFILTER) {
		err = bind_groups(e, nl->nl_groups);
		if (err)
			return fail(-err);
	}
	return 0;
}

EXPORT int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct emu *e;
	struct tapdp_rep rep;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_connect(fd, addr, len);
	if (len >= sizeof(sa_family_t) && addr && addr->sa_family == AF_UNSPEC)
		return 0;
	if (check_nl_addr(addr, len))
		return fail(EINVAL);
	if (emu_simple(e, TAPDP_OP_CONNECT, 0, 0, 0, &rep))
		return fail(-rep.err);
	e->portid = rep.val[0];
	return 0;
}

static void
fill_nl_addr(struct sockaddr *addr, socklen_t *len, uint32_t portid)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = portid };

	if (!addr || !len)
		return;
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
}

EXPORT int
getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct emu *e;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_getsockname(fd, addr, len);
	fill_nl_addr(addr, len, e->portid);
	return 0;
}

EXPORT int
getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct emu *e;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_getpeername(fd, addr, len);
	fill_nl_addr(addr, len, 0);
	return 0;
}

static bool
for_daemon(const struct emu *e, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
		return true;
	if (e->protocol == NETLINK_NETFILTER) {
		uint8_t subsys = NFNL_SUBSYS_ID(nlh->nlmsg_type);

		return subsys == NFNL_SUBSYS_CTNETLINK ||
		       subsys == NFNL_SUBSYS_CTNETLINK_EXP ||
		       subsys == NFNL_SUBSYS_CTNETLINK_TIMEOUT;
	}
	return nlh->nlmsg_type == GENL_ID_CTRL ||
	       (nlh->nlmsg_type >= TAPDP_FAMILY_ID_FIRST &&
		nlh->nlmsg_type <= TAPDP_FAMILY_ID_LAST);
}

/* The daemon's multicast groups: its families' on a generic netlink
 * socket, conntrack's and its expectations' events on a netfilter one. */
static bool
for_daemon_group(const struct emu *e, int group)
{
	if (e->protocol == NETLINK_NETFILTER)
		return group == NFNLGRP_CONNTRACK_NEW ||
		       group == NFNLGRP_CONNTRACK_UPDATE ||
		       group == NFNLGRP_CONNTRACK_DESTROY ||
		       group == NFNLGRP_CONNTRACK_EXP_NEW ||
		       group == NFNLGRP_CONNTRACK_EXP_UPDATE ||
		       group == NFNLGRP_CONNTRACK_EXP_DESTROY;
	return group >= TAPDP_GROUP_FIRST &&
	       group < TAPDP_GROUP_FIRST + TAPDP_GROUP_COUNT;
}

/* The kernel socket asked for what the application asked of its own, so
 * that relayed datagrams carry it. */
static void
kernel_opts(struct emu *e)
{
	int v;

	v = atomic_load(&e->pktinfo);
	real_setsockopt(e->kfd, SOL_NETLINK, NETLINK_PKTINFO, &v, sizeof(v));
	v = atomic_load(&e->all_nsid);
	real_setsockopt(e->kfd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &v,
			sizeof(v));
}

/* The kernel socket, opened on first use and handed to the daemon, which
 * reads it (proto.h). Called with e->lock held. */
static int
kernel_open(struct emu *e)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct tapdp_req req = { .op = TAPDP_OP_KERNEL };
	struct tapdp_rep rep;

	if (e->kfd >= 0)
		return 0;
	e->kfd = real_socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			     e->protocol);
	if (e->kfd < 0)
		return -errno;
	if (real_bind(e->kfd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		real_close(e->kfd);
		e->kfd = -1;
		return err;
	}
	kernel_opts(e);
	if (emu_exchange(e, &req, NULL, 0, e->kfd, &rep)) {
		real_close(e->kfd);
		e->kfd = -1;
		return rep.err;
	}
	return 0;
}

/* bind()'s nl_groups, which are the first 32 groups the socket is in
 * afterwards: the daemon's joined or left there, the others on the kernel
 * socket (opened only when it has some). */
static int
bind_groups(struct emu *e, uint32_t groups)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	struct tapdp_rep rep;
	uint32_t kgroups = 0;
	int err = 0;

	for (int g = 1; g <= 32; g++) {
		uint32_t bit = 1u << (g - 1);

		if (!for_daemon_group(e, g)) {
			kgroups |= groups & bit;
			continue;
		}
		if (!((groups ^ e->groups) & bit))
			continue;
		if (emu_simple(e, TAPDP_OP_SETSOCKOPT, SOL_NETLINK,
			       groups & bit ? NETLINK_ADD_MEMBERSHIP
					    : NETLINK_DROP_MEMBERSHIP,
			       g, &rep))
			return rep.err;
		e->groups ^= bit;
	}
	pthread_mutex_lock(&e->lock);
	if (kgroups || e->kfd >= 0)
		err = kernel_open(e);
	/* The kernel socket is bound already: binding again with its own
	 * portid sets its groups. */
	if (!err && e->kfd >= 0 &&
	    real_getsockname(e->kfd, (struct sockaddr *)&sa, &salen) < 0)
		err = -errno;
	sa.nl_groups = kgroups;
	if (!err && e->kfd >= 0 &&
	    real_bind(e->kfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err = -errno;
	pthread_mutex_unlock(&e->lock);
	return err;
}

static int
kernel_send(struct emu *e, const char *data, size_t len)
{
	struct tapdp_req drain = { .op = TAPDP_OP_KERNEL_DRAIN };
	struct tapdp_rep rep;
	int err = 0;

	/* The emulated socket needs its portid for the answers. */
	if (!e->portid && !emu_simple(e, TAPDP_OP_CONNECT, 0, 0, 0, &rep))
		e->portid = rep.val[0];
	pthread_mutex_lock(&e->lock);
	err = kernel_open(e);
	if (!err && send(e->kfd, data, len, MSG_NOSIGNAL) < 0)
		err = -errno;
	/* The answer readable when send returns, as the kernel's. */
	if (!err)
		emu_exchange(e, &drain, NULL, 0, -1, &rep);
	pthread_mutex_unlock(&e->lock);
	return err;
}

static int
daemon_send(struct emu *e, const struct msghdr *msg, const char *data,
	    size_t len)
{
	struct tapdp_req req = { .op = TAPDP_OP_SEND,
				 .arg = { 0, e->max_recv } };
	struct tapdp_rep rep;

	if (msg->msg_name && msg->msg_namelen)
		req.arg[0] = ((const struct sockaddr_nl *)msg->msg_name)->nl_pid;
	emu_call(e, &req, data, len, &rep);
	if (!rep.err)
		e->portid = rep.val[0];
	return rep.err;
}

static ssize_t
emu_send(struct emu *e, const struct msghdr *msg)
{
	size_t total = 0, off = 0;
	int err = 0;
	char *buf;

	if (msg->msg_name && msg->msg_namelen &&
	    check_nl_addr(msg->msg_name, msg->msg_namelen))
		return fail(EINVAL);
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		total += msg->msg_iov[i].iov_len;
	if (total > TAPDP_MAX_SEND)
		return fail(EMSGSIZE);
	buf = malloc(total ? total : 1);
	if (!buf)
		return fail(ENOBUFS);
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		memcpy(buf + off, msg->msg_iov[i].iov_base,
		       msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	/* Runs of messages go to whoever serves them, in order. */
	off = 0;
	do {
		bool daemon = total - off < NLMSG_HDRLEN ||
			      for_daemon(e, (const void *)(buf + off));
		size_t end = off;

		do
			end += msg_span(buf + end, total - end);
		while (end < total && total - end >= NLMSG_HDRLEN &&
		       for_daemon(e, (const void *)(buf + end)) == daemon);
		err = daemon ? daemon_send(e, msg, buf + off, end - off)
			     : kernel_send(e, buf + off, end - off);
		off = end;
	} while (!err && off < total);
	free(buf);
	if (err)
		return fail(-err);
	return total;
}

EXPORT ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct emu *e;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return route_tracked(fd) ? route_sendmsg(fd, msg, flags)
					 : real_sendmsg(fd, msg, flags);
	return emu_send(e, msg);
}

EXPORT ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
       const struct sockaddr *addr, socklen_t alen)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = (void *)addr, .msg_namelen = alen,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	shim_ready();
	if (!emu_get(fd))
		return route_tracked(fd) ? route_sendmsg(fd, &mh, flags)
					 : real_sendmsg(fd, &mh, flags);
	return emu_send(emu_get(fd), &mh);
}

EXPORT ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

/* Appends a control message to the *used bytes of msg's control buffer
 * of cap bytes, as the kernel's put_cmsg: MSG_CTRUNC when it does not
 * fit. */
static void
put_cmsg(struct msghdr *msg, size_t cap, size_t *used, int type,
	 const void *data, size_t len)
{
	struct cmsghdr c = { .cmsg_len = CMSG_LEN(len),
			     .cmsg_level = SOL_NETLINK, .cmsg_type = type };
	char *at;

	if (!msg->msg_control || cap - *used < CMSG_LEN(len)) {
		msg->msg_flags |= MSG_CTRUNC;
		return;
	}
	at = (char *)msg->msg_control + *used;
	memcpy(at, &c, sizeof(c));
	memcpy(at + CMSG_LEN(0), data, len);
	*used += cap - *used < CMSG_SPACE(len) ? cap - *used : CMSG_SPACE(len);
}

/* recvmsg on a data socket whose datagrams may carry a tapdp_dgram_info
 * (proto.h): the datagram as the application would read it from a kernel
 * socket, and the control messages it asked for. */
static ssize_t
recv_framed(int fd, struct emu *e, struct msghdr *msg, int flags)
{
	struct tapdp_dgram_info info;
	size_t space = 0, cap = msg->msg_controllen, payload, copied, used;
	struct msghdr mh = *msg;
	struct iovec *iov;
	ssize_t n;

	for (size_t i = 0; i < msg->msg_iovlen; i++)
		space += msg->msg_iov[i].iov_len;
	iov = malloc((msg->msg_iovlen + 1) * sizeof(*iov));
	if (!iov)
		return fail(ENOBUFS);
	iov[0] = (struct iovec) { &info, sizeof(info) };
	memcpy(iov + 1, msg->msg_iov, msg->msg_iovlen * sizeof(*iov));
	mh.msg_iov = iov;
	mh.msg_iovlen = msg->msg_iovlen + 1;
	n = real_recvmsg(fd, &mh, flags | MSG_TRUNC);
	free(iov);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(info) && !info.zero) {
		payload = n - sizeof(info);
	} else {
		/* Not framed: its head went into info; move it in front. */
		size_t len = n, head = len < sizeof(info) ? len : sizeof(info);
		size_t rest = len - head < space ? len - head : space;
		char *tmp = malloc(rest ? rest : 1);

		if (!tmp)
			return fail(ENOBUFS);
		iov_gather(msg->msg_iov, msg->msg_iovlen, tmp, rest);
		iov_scatter(msg->msg_iov, msg->msg_iovlen, 0, &info, head);
		iov_scatter(msg->msg_iov, msg->msg_iovlen, head, tmp, rest);
		free(tmp);
		payload = n;
		info = (struct tapdp_dgram_info) { 0 };
	}
	copied = payload < space ? payload : space;
	msg->msg_flags = mh.msg_flags & ~MSG_TRUNC;
	if (payload > space)
		msg->msg_flags |= MSG_TRUNC;
	used = mh.msg_controllen;
	if (atomic_load(&e->pktinfo)) {
		struct nl_pktinfo pi = { .group = info.group };

		put_cmsg(msg, cap, &used, NETLINK_PKTINFO, &pi, sizeof(pi));
	}
	if (atomic_load(&e->all_nsid) && (info.flags & TAPDP_DGRAM_NSID))
		put_cmsg(msg, cap, &used, NETLINK_LISTEN_ALL_NSID, &info.nsid,
			 sizeof(info.nsid));
	msg->msg_controllen = used;
	return flags & MSG_TRUNC ? (ssize_t)payload : (ssize_t)copied;
}

static ssize_t
emu_recv(int fd, struct emu *e, struct msghdr *msg, int flags)
{
	void *name = msg->msg_name;
	socklen_t namelen = msg->msg_namelen;
	struct tapdp_rep rep;
	size_t space = 0;
	bool dead;
	ssize_t n;

	for (size_t i = 0; i < msg->msg_iovlen; i++)
		space += msg->msg_iov[i].iov_len;
	if (space > (size_t)e->max_recv)
		e->max_recv = space > INT32_MAX ? INT32_MAX : space;
	if (!(flags & MSG_PEEK) &&
	    __atomic_exchange_n(&e->shared->overrun, 0, __ATOMIC_ACQ_REL))
		return fail(ENOBUFS);
	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	dead = atomic_load(&e->dead);
	if (atomic_load(&e->framed))
		n = recv_framed(fd, e, msg, flags | (dead ? MSG_DONTWAIT : 0));
	else
		n = real_recvmsg(fd, msg, flags | (dead ? MSG_DONTWAIT : 0));
	msg->msg_name = name;
	msg->msg_namelen = namelen;
	/* Nothing more will come: an error, never the EAGAIN that tells a
	 * client its dump is all read. */
	if (n < 0 && dead && errno == EAGAIN)
		return fail(ECONNRESET);
	if (n < 0)
		return n;
	if (name)
		fill_nl_addr(name, &msg->msg_namelen, 0);
	/* The kernel queues the next dump part as soon as one is read. */
	if (!(flags & MSG_PEEK) && e->dump_running) {
		int saved = errno;

		emu_simple(e, TAPDP_OP_DUMP_NEXT, e->max_recv, 0, 0, &rep);
		errno = saved;
	}
	return n;
}

EXPORT ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct emu *e;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return route_tracked(fd) ? route_recvmsg(fd, msg, flags)
					 : real_recvmsg(fd, msg, flags);
	return emu_recv(fd, e, msg, flags);
}

EXPORT ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
	 socklen_t *alen)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_name = addr, .msg_namelen = alen ? *alen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	shim_ready();
	if (!addr || !alen)
		mh.msg_namelen = 0;
	n = recvmsg(fd, &mh, flags);
	if (n >= 0 && addr && alen)
		*alen = mh.msg_namelen;
	return n;
}

EXPORT ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

static int
int_optval(const void *val, socklen_t len, int *out)
{
	if (!val || len < sizeof(int))
		return EINVAL;
	memcpy(out, val, sizeof(int));
	return 0;
}

EXPORT int
setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct emu *e;
	struct tapdp_rep rep;
	socklen_t sl = sizeof(int);
	int v, err;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_setsockopt(fd, level, name, val, len);
	if (level == SOL_SOCKET) {
		if (real_setsockopt(fd, level, name, val, len) < 0)
			return -1;
		/* The daemon enforces the receive buffer, as the kernel. */
		if ((name == SO_RCVBUF || name == SO_RCVBUFFORCE) &&
		    real_getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &sl) == 0)
			emu_simple(e, TAPDP_OP_SETSOCKOPT, SOL_SOCKET,
				   SO_RCVBUF, v, &rep);
		return 0;
	}
	if (level != SOL_NETLINK)
		return fail(ENOPROTOOPT);
	err = int_optval(val, len, &v);
	if (err)
		return fail(err);
	/* The kernel's own groups are joined on the kernel socket. */
	if ((name == NETLINK_ADD_MEMBERSHIP ||
	     name == NETLINK_DROP_MEMBERSHIP) && v && !for_daemon_group(e, v)) {
		pthread_mutex_lock(&e->lock);
		err = kernel_open(e);
		if (!err && real_setsockopt(e->kfd, level, name, val, len) < 0)
			err = -errno;
		pthread_mutex_unlock(&e->lock);
		return err ? fail(-err) : 0;
	}
	if (emu_simple(e, TAPDP_OP_SETSOCKOPT, level, name, v, &rep))
		return fail(-rep.err);
	if (name == NETLINK_PKTINFO || name == NETLINK_LISTEN_ALL_NSID) {
		atomic_store(name == NETLINK_PKTINFO ? &e->pktinfo
						     : &e->all_nsid, v != 0);
		if (v)
			atomic_store(&e->framed, true);
		pthread_mutex_lock(&e->lock);
		if (e->kfd >= 0)
			kernel_opts(e);
		pthread_mutex_unlock(&e->lock);
	}
	if (name == NETLINK_ADD_MEMBERSHIP && v >= 1 && v <= 32)
		e->groups |= 1u << (v - 1);
	else if (name == NETLINK_DROP_MEMBERSHIP && v >= 1 && v <= 32)
		e->groups &= ~(1u << (v - 1));
	return 0;
}

EXPORT int
getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct emu *e;
	struct tapdp_rep rep;
	int v;

	shim_ready();
	e = emu_get(fd);
	if (!e)
		return real_getsockopt(fd, level, name, val, len);
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_DOMAIN:
			v = AF_NETLINK;
			break;
		case SO_TYPE:
			v = e->type;
			break;
		case SO_PROTOCOL:
			v = e->protocol;
			break;
		default:
			return real_getsockopt(fd, level, name, val, len);
		}
	} else if (level == SOL_NETLINK) {
		if (emu_simple(e, TAPDP_OP_GETSOCKOPT, level, name, 0, &rep))
			return fail(-rep.err);
		v = rep.val[0];
	} else {
		return fail(EOPNOTSUPP);
	}
	if (!val || !len || *len < sizeof(int))
		return fail(EINVAL);
	memcpy(val, &v, sizeof(v));
	*len = sizeof(v);
	return 0;
}
