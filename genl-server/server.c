/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "genl-server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>
#include <urcu.h>

#include "common/keep.h"
#include "common/log.h"
#include "common/nlerr.h"
#include "include/tapdp/proto.h"
#include "genl-server/creds.h"
#include "genl-server/ctl-lock.h"
#include "genl-server/genl.h"
#include "genl-server/kernel-relay.h"
#include "genl-server/nlsock.h"

/* Processes sharing a socket whose proofs are kept at once. */
#define CONN_PROOFS	8

struct conn {
	int fd;
	struct nlsock *sk;	/* NULL until HELLO */
	uid_t uid;		/* the peer's, at connect time */
	bool counted;		/* in per_uid: see conn_privileged() */
	/* The last request's sender (the kernel's SCM_CREDENTIALS, and its
	 * pidfd's inode where the kernel gives one: a process's own from
	 * Linux 6.9) and whether it has CAP_NET_ADMIN: judged again when
	 * another sends. */
	pid_t sender;
	ino_t sender_ino;
	bool sender_admin;
	/* A client in another user namespace proves CAP_NET_ADMIN on its
	 * route socket, kept here (-1: judged by /proc), each sender in
	 * turn; the newest proofs (creds.h). */
	int route_fd;
	struct creds_proof proved[CONN_PROOFS];
	unsigned n_proved;
	/* Since HELLO: */
	uint64_t netns;		/* the socket's namespace: its cookie */
	int data_fd;		/* the nlsock's */
	int memfd;		/* the shared page's */
	struct tapdp_shared *shared;
	uint64_t keep_id;	/* its entry with the keeper */
	uint64_t proofs_keep_id; /* route_fd's */
	struct nlsock_state kept; /* the socket as the keeper knows it */
};

/* What a connection's KEEP_PROOFS entry keeps beside its route socket:
 * whose it is, and the proofs read from it so far, which are no longer in
 * the socket: a successor judges by them a request sent while no daemon
 * ran, before the shim could prove itself again. */
struct keep_proofs {
	uint64_t conn_keep_id;
	uint32_t n_proved;
	struct creds_proof proved[CONN_PROOFS];
};

/* Another source the loop serves (server_watch, server_every). */
struct watch {
	int fd;
	bool timer;		/* fd is a timerfd server_every made */
	void (*fn)(void *);
	void *arg;
};

/* epoll tag of the listening socket; connections carry their pointer,
 * other sources their struct watch. */
static char tag_listen;

static int listen_fd = -1, epoll_fd = -1;
/* The connections' requests, one thread at a time per connection
 * (EPOLLONESHOT), waited on by the serving threads and, through epoll_fd,
 * by the loop; wake_fd tells the serving threads to stop. */
static int conn_epoll_fd = -1, wake_fd = -1;
static char tag_conns, tag_wake;
static pthread_t serving[SERVER_THREADS_MAX];
static unsigned n_serving;
static int serving_want = -1;	/* -1: one per CPU */
static struct watch **watches;
static size_t n_watches;
static char *sock_path;
static void *served_net;
static const struct server_netns *netns_ops;
static void (*protocol_rcv[MAX_LINKS])(struct nlsock *,
						   const void *, size_t);
static bool (*route_offer)(struct nlsock *, const void *, size_t);
static bool (*route_view)(struct nlsock *, const void *, size_t);
static volatile sig_atomic_t stop_requested, upgrade_requested;
static struct conn **conns;
static size_t n_conns;

/* Every emulated socket costs the daemon descriptors (the connection, the
 * data socket, perhaps a kernel socket), which all clients share; the
 * kernel would charge a netlink socket to its owner's RLIMIT_NOFILE
 * instead. So an unprivileged uid may hold max_per_uid connections
 * (EMFILE past it), and no unprivileged connection takes one of the last
 * eighth of the daemon's descriptors (ENFILE), kept for root and
 * CAP_NET_ADMIN. */
static unsigned max_per_uid = SERVER_MAX_PER_UID_DEFAULT;
static GHashTable *per_uid;	/* uid -> connections counted */
static rlim_t nofile;		/* RLIMIT_NOFILE, raised to its hard limit */
/* A duplicate of listen_fd, closed to make room for answering a client
 * when the daemon is out of descriptors (then reopened). */
static int spare_fd = -1;
/* Out of descriptors and without the spare: the listening socket is not
 * watched (it would stay readable) until a connection closes, or for
 * ACCEPT_RETRY_MS. */
static bool accept_paused;
#define ACCEPT_RETRY_MS 1000

static void
on_signal(int sig)
{
	if (sig == SIGUSR2)
		upgrade_requested = 1;
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

/* Arms c's requests for one serving thread (op: EPOLL_CTL_ADD, or
 * EPOLL_CTL_MOD once served). */
static int
conn_watch(struct conn *c, int op)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT,
				  .data.ptr = c };

	return epoll_ctl(conn_epoll_fd, op, c->fd, &ev) < 0 ? -errno : 0;
}

static bool
is_watch(const void *tag)
{
	for (size_t i = 0; i < n_watches; i++)
		if (watches[i] == tag)
			return true;
	return false;
}

int
server_watch(int fd, void (*fn)(void *), void *arg)
{
	struct watch *w = calloc(1, sizeof(*w));
	struct watch **grown = realloc(watches, (n_watches + 1) *
				       sizeof(*watches));
	int err;

	if (grown)
		watches = grown;
	if (!w || !grown) {
		free(w);
		return -ENOMEM;
	}
	*w = (struct watch) { .fd = fd, .fn = fn, .arg = arg };
	err = epoll_watch(fd, w);
	if (err) {
		free(w);
		return err;
	}
	watches[n_watches++] = w;
	return 0;
}

static void
timer_fire(struct watch *w)
{
	uint64_t expirations;

	if (read(w->fd, &expirations, sizeof(expirations)) > 0)
		w->fn(w->arg);
}

int
server_every(unsigned ms, void (*fn)(void *), void *arg)
{
	struct itimerspec its = {
		.it_interval = { ms / 1000, (ms % 1000) * 1000000L },
		.it_value = { ms / 1000, (ms % 1000) * 1000000L },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int err;

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = server_watch(fd, fn, arg);
	if (err) {
		close(fd);
		return err;
	}
	watches[n_watches - 1]->timer = true;
	return 0;
}

void
server_set_protocol(int protocol,
		    void (*rcv)(struct nlsock *, const void *, size_t))
{
	if (protocol >= 0 && protocol < MAX_LINKS)
		protocol_rcv[protocol] = rcv;
}

void
server_set_route(bool (*offer)(struct nlsock *, const void *, size_t),
		 bool (*view)(struct nlsock *, const void *, size_t))
{
	route_offer = offer;
	route_view = view;
}

void
server_set_max_per_uid(unsigned n)
{
	max_per_uid = n;
}

/* As many descriptors as the administrator lets the daemon have. */
static void
nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	nofile = rl.rlim_cur;
}

/* Whether fd, just made, is in the reserve. Descriptors are handed out
 * lowest first, so every one below fd is in use. */
static bool
in_reserve(int fd)
{
	return (rlim_t)fd >= nofile - nofile / 8;
}

/* Root, or a socket whose opener had CAP_NET_ADMIN over the daemon's
 * namespace (not a namespace of its own, creds NULL before HELLO):
 * neither counted against its uid nor kept out of the reserve. */
static bool
privileged(uid_t uid, const struct nlsock_creds *creds)
{
	return uid == 0 || (creds && creds->net_admin && !creds->other_netns);
}

/* The uid is known from the connection, the capability from HELLO on. */
static bool
conn_privileged(const struct conn *c)
{
	return privileged(c->uid, c->sk ? nlsock_creds(c->sk) : NULL);
}

/* Gives the keeper c's route socket, once, and the proofs read from it,
 * each time more were read. */
static void
proofs_keep(struct conn *c)
{
	struct keep_proofs kp = { .conn_keep_id = c->keep_id,
				  .n_proved = c->n_proved };

	if (!c->keep_id)
		return;
	memcpy(kp.proved, c->proved, sizeof(kp.proved));
	if (c->proofs_keep_id)
		keep_meta(c->proofs_keep_id, &kp, sizeof(kp));
	else
		c->proofs_keep_id = keep_put(KEEP_PROOFS, &c->route_fd, 1,
					     &kp, sizeof(kp));
}

/* Each request comes with its sender's credentials (SCM_CREDENTIALS): the
 * kernel's, which a process cannot forge. A request without them is
 * judged unprivileged.
 *
 * Whether uc proved CAP_NET_ADMIN on c's route socket (creds.h). A pid
 * is told from a reused one by its uid only, as /proc's verdict is. */
static bool
sender_proved(struct conn *c, const struct ucred *uc)
{
	unsigned kept, before = c->n_proved;
	pid_t own;

	if (c->route_fd < 0)
		return false;
	creds_proofs_read(c->route_fd, c->proved, CONN_PROOFS, &c->n_proved);
	if (c->n_proved != before)
		proofs_keep(c);
	own = creds_own_pid(uc->pid);
	kept = c->n_proved < CONN_PROOFS ? c->n_proved : CONN_PROOFS;
	for (unsigned i = 0; i < kept; i++)
		if (own && c->proved[i].pid == own &&
		    c->proved[i].uid == uc->uid)
			return true;
	return false;
}

/* Whether the sender uc, with pidfd (creds_pidfd_of), has CAP_NET_ADMIN
 * (creds.h): judged only when another process than the last one sends,
 * told apart by pid and, where the kernel gives one, by pidfd, which a
 * process that took the pid of one gone does not share. */
static bool
sender_admin(struct conn *c, const struct ucred *uc, int pidfd)
{
	struct stat st = { 0 };

	if (!uc->pid || pidfd == -ESRCH || (pidfd >= 0 && fstat(pidfd, &st)))
		return false;
	if (uc->pid != c->sender || st.st_ino != c->sender_ino) {
		c->sender = uc->pid;
		c->sender_ino = st.st_ino;
		c->sender_admin =
			creds_sender_net_admin(uc->pid, uc->uid, pidfd) ||
			sender_proved(c, uc);
	}
	return c->sender_admin;
}

static unsigned
uid_count(uid_t uid)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(per_uid,
						    GUINT_TO_POINTER(uid)));
}

static void
uid_add(uid_t uid, int delta)
{
	unsigned n = uid_count(uid) + delta;

	if (n)
		g_hash_table_insert(per_uid, GUINT_TO_POINTER(uid),
				    GUINT_TO_POINTER(n));
	else
		g_hash_table_remove(per_uid, GUINT_TO_POINTER(uid));
}

/* Counts c against its uid while it is unprivileged. */
static void
conn_count(struct conn *c)
{
	bool count = !conn_privileged(c);

	if (count != c->counted)
		uid_add(c->uid, count ? 1 : -1);
	c->counted = count;
}

int
server_open(const char *path, void *net, const struct server_netns *ns)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int err;

	struct keep_entry *kept = keep_claim(KEEP_LISTEN, NULL, NULL);

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	nofile_raise();
	if (kept && kept->n_fds == 1) {
		/* The one a dead daemon served: clients that connected
		 * meanwhile wait in its backlog. */
		listen_fd = kept->fds[0];
	} else {
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
		keep_put(KEEP_LISTEN, &listen_fd, 1, NULL, 0);
	}
	/* On the listener, so that a connection has it from connect() on
	 * (the kernel copies it then, or at accept): set on the accepted
	 * socket, a HELLO sent in between would come without a sender. */
	creds_pass(listen_fd);
	sock_path = strdup(path);
	served_net = net;
	netns_ops = ns;
	/* Anyone may read; changes are checked against CAP_NET_ADMIN. */
	chmod(path, 0666);
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0)
		return -errno;
	err = epoll_watch(listen_fd, &tag_listen);
	if (err)
		return err;
	conn_epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (conn_epoll_fd < 0)
		return -errno;
	err = epoll_watch(conn_epoll_fd, &tag_conns);
	if (err)
		return err;
	spare_fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);
	per_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
	nlerr_open_kmsg();
	nlsock_registry_init();
	nlctrl_register();
	server_set_protocol(NETLINK_GENERIC, genl_rcv);
	return 0;
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

static void
accept_pause(void)
{
	epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, NULL);
	accept_paused = true;
}

/* Descriptors may have been freed: listen again, spare first. */
static void
accept_resume(void)
{
	if (spare_fd < 0)
		spare_fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);
	if (accept_paused && !epoll_watch(listen_fd, &tag_listen))
		accept_paused = false;
}

/* The namespace a socket was opened in (the kernel's cookie), 0 when it
 * does not say. */
static uint64_t
netns_cookie(int fd)
{
	uint64_t cookie;
	socklen_t len = sizeof(cookie);

	return getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) == 0
		       ? cookie : 0;
}

/* Whether a socket of namespace cookie is not in the daemon's
 * (listen_fd's). */
static bool
other_netns(uint64_t cookie)
{
	return !cookie || cookie != netns_cookie(listen_fd);
}

/* What a socket of namespace cookie acts on, the kernel's sock_net(): fd
 * is one of that namespace. NULL, with *err, when its context cannot be
 * made. */
static void *
net_attach(int fd, uint64_t cookie, bool admin, int *err)
{
	*err = 0;
	if (!other_netns(cookie))
		return served_net;
	if (!netns_ops) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	return netns_ops->attach(fd, cookie, admin, err);
}

static void
net_detach(void *net)
{
	if (net != served_net && netns_ops)
		netns_ops->detach(net);
}

static void
conn_close(struct conn *c)
{
	void *net;

	for (size_t i = 0; i < n_conns; i++) {
		if (conns[i] == c) {
			conns[i] = conns[--n_conns];
			break;
		}
	}
	epoll_ctl(conn_epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	if (c->sk && nlsock_kernel_fd(c->sk) >= 0)
		epoll_ctl(epoll_fd, EPOLL_CTL_DEL, nlsock_kernel_fd(c->sk),
			  NULL);
	if (c->counted)
		uid_add(c->uid, -1);
	keep_drop(c->keep_id);
	keep_drop(c->proofs_keep_id);
	if (c->route_fd >= 0)
		close(c->route_fd);
	net = c->sk ? nlsock_net(c->sk) : NULL;
	nlsock_free(c->sk);
	if (c->sk) {
		close(c->memfd);
		net_detach(net);
	}
	free(c);
	accept_resume();
}

/* Answers a connection's first request with err (what its socket() fails
 * with) and closes it. The answer goes first: the client reads it even
 * when its HELLO comes after the close (its send fails). What it sent is
 * read first, or its reads would begin with a reset. */
static void
refuse(int fd, int err)
{
	struct tapdp_rep rep = { .err = err };
	char buf[sizeof(struct tapdp_req)], cbuf[CMSG_SPACE(2 * sizeof(int))];

	send(fd, &rep, sizeof(rep), MSG_DONTWAIT | MSG_NOSIGNAL);
	for (;;) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };

		if (recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
			break;
		take_fds(&mh, NULL, 0);
	}
	close(fd);
}

/* The daemon is out of descriptors: the spare makes room to tell the next
 * client so (ENFILE, as socket() when the system's table is full) rather
 * than leave it waiting. Without the spare, listening stops for a while
 * (the socket would stay readable). */
static void
accept_exhausted(void)
{
	int fd;

	if (spare_fd < 0) {
		accept_pause();
		return;
	}
	close(spare_fd);
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		refuse(fd, -ENFILE);
	else if (errno != EAGAIN)
		accept_pause();
	spare_fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);
}

/* 0 when a connection of uid may take fd, else the errno its socket()
 * fails with. */
static int
admit(uid_t uid, int fd)
{
	if (privileged(uid, NULL))
		return 0;
	if (in_reserve(fd))
		return -ENFILE;
	return uid_count(uid) >= max_per_uid ? -EMFILE : 0;
}

static void
accept_conns(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC), err;
		struct ucred uc;
		socklen_t len = sizeof(uc);
		struct conn *c, **grown;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE)
				accept_exhausted();
			else if (errno != EAGAIN)
				accept_pause();
			return;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
			close(fd);
			continue;
		}
		err = admit(uc.uid, fd);
		if (err) {
			refuse(fd, err);
			continue;
		}
		c = calloc(1, sizeof(*c));
		grown = realloc(conns, (n_conns + 1) * sizeof(*conns));
		if (grown)
			conns = grown;
		if (!c || !grown) {
			free(c);
			refuse(fd, -ENOMEM);
			continue;
		}
		c->fd = fd;
		c->uid = uc.uid;
		c->route_fd = -1;
		conn_count(c);
		conns[n_conns++] = c;
		if (conn_watch(c, EPOLL_CTL_ADD))
			conn_close(c);
	}
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

/* The kernel judges a request by CAP_NET_ADMIN over the namespace it acts
 * on (GENL_UNS_ADMIN_PERM, netlink_net_capable), held by the opener of the
 * socket it comes on. The probe asks the kernel about the route socket's
 * opener in the route socket's namespace: it speaks for the data socket
 * only when both were opened in the same one. */
static bool
opener_net_admin(uint64_t netns, int route_fd)
{
	return route_fd >= 0 && netns && netns_cookie(route_fd) == netns &&
	       creds_opener_net_admin(route_fd);
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
 * (*memfd). The socket may change things when the route socket's opener
 * and HELLO's sender both may. */
static int
conn_hello(struct conn *c, const struct tapdp_req *req, struct msghdr *mh,
	   int pidfd, int *memfd)
{
	struct ucred sender = creds_of(mh);
	struct tapdp_shared *shared;
	struct nlsock_creds creds;
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int fds[2] = { -1, -1 }, n = take_fds(mh, fds, 2), protocol;
	int err = -EPROTO;
	void *net = NULL;

	protocol = req->arg[2];
	if (n < 1 || n > 2 || !is_unix_dgram(fds[0]) || c->sk ||
	    req->arg[0] != TAPDP_PROTO_VERSION ||
	    protocol < 0 || protocol >= MAX_LINKS ||
	    !(protocol == NETLINK_ROUTE ? route_offer != NULL
					: protocol_rcv[protocol] != NULL) ||
	    getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		goto out;
	c->netns = netns_cookie(fds[0]);
	/* A sender /proc cannot judge proved itself on the route socket
	 * before HELLO: judged before the opener's probe, which drops what
	 * is not its answer. */
	c->route_fd = fds[1];
	creds = (struct nlsock_creds) {
		.pid = uc.pid,
		.uid = uc.uid,
		.net_admin = sender_admin(c, &sender, pidfd) &&
			     opener_net_admin(c->netns, fds[1]),
		.other_netns = other_netns(c->netns),
	};
	/* Kept only where a proof judged the sender (proofs are read only
	 * when /proc cannot say), to judge later senders alike. */
	if (creds.net_admin && c->n_proved)
		fds[1] = -1;
	else
		c->route_fd = -1;
	if (!privileged(c->uid, &creds) &&
	    in_reserve(fds[0])) {
		err = -ENFILE;
		goto out;
	}
	net = net_attach(fds[0], c->netns, creds.net_admin, &err);
	if (!net)
		goto out;
	*memfd = shared_new(&shared);
	if (*memfd < 0) {
		err = *memfd == -EMFILE ? -ENFILE : *memfd;
		goto out;
	}
	c->sk = nlsock_new(fds[0], shared, &creds, protocol, net);
	if (!c->sk) {
		munmap(shared, sizeof(*shared));
		close(*memfd);
		*memfd = -1;
		err = -ENOMEM;
		goto out;
	}
	c->data_fd = fds[0];
	c->memfd = *memfd;
	c->shared = shared;
	/* HELLO was the connection's first request. */
	shared->req_read = shared->req_done = shared->sent = 1;
	fds[0] = -1;
	conn_count(c);
	err = 0;
out:
	if (err && net)
		net_detach(net);
	if (err && c->route_fd >= 0) {
		close(c->route_fd);
		c->route_fd = -1;
	}
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
		if (!nlsock_net_admin(c->sk))
			return -EPERM;
		nlsock_autobind(c->sk);
		return nlsock_unicast_portid(nlsock_protocol(c->sk),
					     nlsock_net(c->sk), dst, payload,
					     len) == -ECONNREFUSED
			       ? -ECONNREFUSED : 0;
	}
	nlsock_autobind(c->sk);
	nlsock_note_recv(c->sk, req->arg[1] > 0 ? req->arg[1] : 0);
	if (nlsock_protocol(c->sk) == NETLINK_ROUTE)
		return -EOPNOTSUPP;
	nlsock_tap_sent(c->sk, payload, len);
	/* Generic netlink takes the lock per request, as its ops want it;
	 * the other protocols' requests are served under it. */
	if (nlsock_protocol(c->sk) == NETLINK_GENERIC) {
		protocol_rcv[NETLINK_GENERIC](c->sk, payload, len);
	} else {
		ctl_lock();
		protocol_rcv[nlsock_protocol(c->sk)](c->sk, payload, len);
		ctl_unlock();
	}
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
		if (req->arg[0] == SOL_NETLINK &&
		    req->arg[1] == NETLINK_ADD_MEMBERSHIP &&
		    nlsock_protocol(c->sk) == NETLINK_GENERIC) {
			err = genl_join_check(c->sk, req->arg[2]);
			if (err)
				return err;
		}
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
	case TAPDP_OP_KERNEL_DRAIN:
		if (nlsock_kernel_fd(c->sk) < 0)
			return -EINVAL;
		nlsock_kernel_drain(c->sk);
		return 0;
	case TAPDP_OP_ROUTE_VIEW:
		if (nlsock_protocol(c->sk) != NETLINK_ROUTE)
			return -EINVAL;
		nlsock_autobind(c->sk);
		rep->val[0] = route_view && route_view(c->sk, payload, len);
		return 0;
	case TAPDP_OP_ROUTE:
		if (nlsock_protocol(c->sk) != NETLINK_ROUTE)
			return -EINVAL;
		nlsock_autobind(c->sk);
		/* Told whether the daemon answers it or the kernel does. */
		nlsock_tap_sent(c->sk, payload, len);
		rep->val[0] = route_offer(c->sk, payload, len);
		return 0;
	default:
		return -EINVAL;
	}
	rep->val[0] = nlsock_portid(c->sk);
	return err;
}

/* The epoll tag of a connection's kernel socket: the connection's pointer
 * with its low bit set. */
static void *
kernel_tag(struct conn *c)
{
	return (void *)((uintptr_t)c | 1);
}

static struct conn *
kernel_tag_conn(void *tag)
{
	struct conn *c = (void *)((uintptr_t)tag & ~(uintptr_t)1);

	/* An earlier event of the same batch may have closed it. */
	for (size_t i = 0; i < n_conns; i++)
		if (conns[i] == c)
			return c;
	return NULL;
}

/* KERNEL: the shim's kernel socket, read here from now on. */
static int
conn_kernel(struct conn *c, struct msghdr *mh)
{
	int fd = -1, err;

	if (take_fds(mh, &fd, 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	if (!conn_privileged(c) && in_reserve(fd)) {
		close(fd);
		return -ENFILE;
	}
	/* The client's requests to the kernel's families act where its
	 * socket was opened, as they would on the kernel: not elsewhere. */
	if (netns_cookie(fd) != c->netns) {
		close(fd);
		return -EINVAL;
	}
	err = nlsock_set_kernel(c->sk, fd);
	if (err) {
		close(fd);
		return err;
	}
	err = epoll_watch(fd, kernel_tag(c));
	/* What came before it was handed over. */
	nlsock_kernel_drain(c->sk);
	return err;
}

/* Sends the answer, with fd (if >= 0) passed along. */
static bool
conn_reply(struct conn *c, const struct tapdp_rep *rep, int fd)
{
	char cbuf[TAPDP_FDS_SPACE(1)];
	struct iovec iov = { (void *)rep, sizeof(*rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0)
		tapdp_pass_fds(&mh, cbuf, &fd, 1);
	/* The shim reads each answer before it sends again: answers piling
	 * up unread are no shim's, and waiting for their reader would stall
	 * every client. */
	return sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof(*rep);
}

/* Hands the connection's descriptors and its socket's state to the keeper
 * (common/keep.h): a new entry, or the same one with the kernel socket. */
static void
conn_keep(struct conn *c)
{
	int fds[4] = { c->fd, c->data_fd, c->memfd,
		       nlsock_kernel_fd(c->sk) };
	unsigned n = fds[3] >= 0 ? 4 : 3;

	nlsock_save(c->sk, &c->kept);
	if (c->keep_id)
		keep_update(c->keep_id, fds, n, &c->kept, sizeof(c->kept));
	else
		c->keep_id = keep_put(KEEP_CONN, fds, n, &c->kept,
				      sizeof(c->kept));
	if (c->keep_id && c->route_fd >= 0 && !c->proofs_keep_id)
		proofs_keep(c);
}

/* Tells the keeper what a request changed (a bind, a group...). */
static void
conn_keep_state(struct conn *c)
{
	struct nlsock_state now;

	if (!c->keep_id)
		return;
	nlsock_save(c->sk, &now);
	if (memcmp(&now, &c->kept, sizeof(now))) {
		c->kept = now;
		ctl_lock();
		keep_meta(c->keep_id, &now, sizeof(now));
		ctl_unlock();
	}
}

/* The request mh holds (n bytes in buf), from the sender of pidfd
 * (creds_pidfd_of); false when the connection must close. */
static bool
conn_request(struct conn *c, struct msghdr *mh, char *buf, ssize_t n,
	     int pidfd)
{
	struct tapdp_rep rep = { 0 };
	struct tapdp_req req;
	int memfd = -1;
	bool sent;

	if (n < (ssize_t)sizeof(req) || (mh->msg_flags & MSG_TRUNC)) {
		take_fds(mh, NULL, 0);
		return false;
	}
	memcpy(&req, buf, sizeof(req));
	if (c->sk) {
		/* Noted where a successor finds it, should we die before
		 * answering. */
		c->shared->req_op = req.op;
		rep.seq = ++c->shared->req_read;
	} else {
		rep.seq = 1;
	}
	if (mh->msg_flags & MSG_CTRUNC) {
		/* Descriptors lost: to a full table (or more were passed than
		 * any request takes). A HELLO fails as socket() would. */
		take_fds(mh, NULL, 0);
		rep.err = -ENFILE;
		if (req.op == TAPDP_OP_HELLO)
			conn_reply(c, &rep, -1);
		return false;
	}
	if (c->sk) {
		struct ucred uc = creds_of(mh);

		nlsock_set_sender_admin(c->sk,
					nlsock_creds(c->sk)->net_admin &&
						sender_admin(c, &uc, pidfd));
	}
	if (req.op == TAPDP_OP_HELLO) {
		ctl_lock();
		rep.err = conn_hello(c, &req, mh, pidfd, &memfd);
		if (!rep.err)
			conn_keep(c);
		if (!rep.err && c->route_fd >= 0)
			rep.val[0] = TAPDP_HELLO_PROVE;
		ctl_unlock();
	} else if (req.op == TAPDP_OP_KERNEL && c->sk) {
		ctl_lock();
		rep.err = conn_kernel(c, mh);
		if (!rep.err)
			conn_keep(c);
		ctl_unlock();
	} else if (take_fds(mh, NULL, 0) || !c->sk) {
		return false;
	} else if (req.op == TAPDP_OP_SEND) {
		/* conn_send takes the lock for what needs it: a packet
		 * execute does not. */
		rep.err = conn_dispatch(c, &req, buf + sizeof(req),
					n - sizeof(req), &rep);
		conn_keep_state(c);
	} else {
		ctl_lock();
		rep.err = conn_dispatch(c, &req, buf + sizeof(req),
					n - sizeof(req), &rep);
		conn_keep_state(c);
		ctl_unlock();
	}
	sent = conn_reply(c, &rep, memfd);
	if (c->sk)
		c->shared->req_done = rep.seq;
	return sent && rep.err != -EPROTO;
}

/* One request from a shim; false when the connection must close. */
static bool
conn_serve(struct conn *c, char *buf, size_t cap)
{
	char cbuf[CREDS_CMSG_SPACE + CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { buf, cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int pidfd;
	bool ok;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	pidfd = creds_pidfd_of(&mh);
	ok = conn_request(c, &mh, buf, n, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	return ok;
}

static void
kernel_readable(void *tag)
{
	struct conn *c = kernel_tag_conn(tag);

	if (c)
		nlsock_kernel_drain(c->sk);
}

/* A connection's requests, on the thread its event woke; buf holds one
 * request. Closed, or armed again for the next. */
static void
conn_event(struct conn *c, char *buf, size_t cap)
{
	/* One request: the shim waits for its answer before the next. */
	if (conn_serve(c, buf, cap) && !conn_watch(c, EPOLL_CTL_MOD))
		return;
	ctl_lock();
	conn_close(c);
	ctl_unlock();
}

/* A serving thread: requests of whichever connection is ready, one
 * thread per connection at a time, so that one client's requests keep
 * their order and different clients' go on in parallel. */
static void *
serve_main(void *arg)
{
	size_t cap = sizeof(struct tapdp_req) + TAPDP_MAX_SEND;
	char *buf = malloc(cap);
	char name[16];

	snprintf(name, sizeof(name), "ctl%u", (unsigned)(uintptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	rcu_register_thread();
	while (buf) {
		struct epoll_event ev;
		int n = epoll_pwait(conn_epoll_fd, &ev, 1, -1, NULL);

		if (n < 0 && errno != EINTR)
			break;
		if (n == 1 && ev.data.ptr == &tag_wake)
			break;
		if (n == 1)
			conn_event(ev.data.ptr, buf, cap);
	}
	rcu_unregister_thread();
	free(buf);
	return NULL;
}

void
server_set_threads(unsigned n)
{
	serving_want = n > SERVER_THREADS_MAX ? SERVER_THREADS_MAX : (int)n;
}

/* The serving threads beside the loop's own (server_set_threads). None
 * when they cannot be made: the loop serves. */
static void
serving_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &tag_wake };
	unsigned want = serving_want >= 0 ? (unsigned)serving_want
			: cpus < 1 ? 1
			: cpus > SERVER_THREADS_MAX ? SERVER_THREADS_MAX
						    : (unsigned)cpus;

	if (!want)
		return;
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0 ||
	    epoll_ctl(conn_epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev) < 0) {
		log_warn("server: no serving threads: %s", strerror(errno));
		return;
	}
	for (n_serving = 0; n_serving < want; n_serving++)
		if (pthread_create(&serving[n_serving], NULL, serve_main,
				   (void *)(uintptr_t)(n_serving + 1))) {
			log_warn("server: %u serving threads of %u", n_serving,
				 want);
			break;
		}
	/* They serve the connections: a request woke the loop too (one
	 * wake-up for nothing, a sixth of an execute's rate). */
	if (n_serving)
		epoll_ctl(epoll_fd, EPOLL_CTL_DEL, conn_epoll_fd, NULL);
}

static void
serving_stop(void)
{
	uint64_t one = 1;

	if (wake_fd < 0)
		return;
	if (write(wake_fd, &one, sizeof(one)) != sizeof(one))
		log_warn("server: cannot stop the serving threads: %s",
			 strerror(errno));
	if (n_serving)
		epoll_watch(conn_epoll_fd, &tag_conns);
	while (n_serving)
		pthread_join(serving[--n_serving], NULL);
	epoll_ctl(conn_epoll_fd, EPOLL_CTL_DEL, wake_fd, NULL);
	close(wake_fd);
	wake_fd = -1;
}

int
server_run(void)
{
	size_t cap = sizeof(struct tapdp_req) + TAPDP_MAX_SEND;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, during;
	char *buf = malloc(cap);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &during);
	sigdelset(&during, SIGTERM);
	sigdelset(&during, SIGINT);
	sigdelset(&during, SIGUSR2);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Made with the signals blocked: they keep them so. */
	serving_start();

	while (!stop_requested) {
		struct epoll_event evs[32];
		int n = epoll_pwait(epoll_fd, evs, 32,
				    accept_paused ? ACCEPT_RETRY_MS : -1,
				    &during);

		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			struct epoll_event ev;

			if (tag == &tag_conns) {
				/* A serving thread may have taken it. */
				if (epoll_pwait(conn_epoll_fd, &ev, 1, 0,
						NULL) == 1 &&
				    ev.data.ptr != &tag_wake)
					conn_event(ev.data.ptr, buf, cap);
				continue;
			}
			ctl_lock();
			if (tag == &tag_listen)
				accept_conns();
			else if ((uintptr_t)tag & 1)
				kernel_readable(tag);
			else if (is_watch(tag) && ((struct watch *)tag)->timer)
				timer_fire(tag);
			else if (is_watch(tag))
				((struct watch *)tag)->fn(((struct watch *)tag)->arg);
			ctl_unlock();
		}
		if (n == 0) {
			ctl_lock();
			accept_resume();
			ctl_unlock();
		}
	}
	serving_stop();
	free(buf);
	if (!err)
		log_info(upgrade_requested ? "handing over to a successor"
					   : "shutting down");
	return err;
}

bool
server_upgrade_requested(void)
{
	return upgrade_requested;
}

static bool
proofs_of(const struct keep_entry *e, void *arg)
{
	return e->n_fds == 1 && e->meta_len == sizeof(struct keep_proofs) &&
	       !memcmp(e->meta, arg, sizeof(uint64_t));
}

/* The route socket c's senders proved themselves on, if the dead daemon
 * kept one, with the proofs it had read. Its shim proves again before
 * its next request all the same (the kernel may have dropped a proof
 * to a full queue, and a proof is believed for a pid with its uid). */
static void
proofs_restore(struct conn *c)
{
	struct keep_entry *e = keep_claim(KEEP_PROOFS, proofs_of, &c->keep_id);
	struct keep_proofs kp;

	if (!e)
		return;
	memcpy(&kp, e->meta, sizeof(kp));
	c->route_fd = e->fds[0];
	c->proofs_keep_id = e->id;
	memcpy(c->proved, kp.proved, sizeof(c->proved));
	c->n_proved = kp.n_proved;
	__atomic_store_n(&c->shared->proved, 0, __ATOMIC_RELEASE);
}

/* A connection a dead daemon served, from its keeper entry: control
 * socket, data socket, shared page[, kernel socket], its socket's state
 * as meta; the route socket of its proofs in an entry of its own. */
static void
conn_restore(struct keep_entry *e)
{
	struct nlsock_state st;
	struct tapdp_shared *shared = MAP_FAILED;
	struct conn *c = calloc(1, sizeof(*c));
	struct conn **grown = realloc(conns, (n_conns + 1) * sizeof(*conns));
	int kfd = e->n_fds == 4 ? e->fds[3] : -1;
	void *net;

	if (grown)
		conns = grown;
	if (!c || !grown || e->n_fds < 3 || e->meta_len != sizeof(st))
		goto fail;
	memcpy(&st, e->meta, sizeof(st));
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED, e->fds[2], 0);
	if (shared == MAP_FAILED)
		goto fail;
	/* The predecessor judged the opener over the socket's namespace,
	 * which is what the socket acts on; where that is, the sockets
	 * say. */
	c->netns = netns_cookie(e->fds[1]);
	st.creds.other_netns = other_netns(c->netns);
	if (kfd >= 0 && netns_cookie(kfd) != c->netns)
		goto fail;
	net = net_attach(e->fds[1], c->netns, st.creds.net_admin, &(int){ 0 });
	if (!net)
		goto fail;
	c->sk = nlsock_restore(e->fds[1], shared, &st, net);
	if (!c->sk) {
		net_detach(net);
		goto fail;
	}
	c->fd = e->fds[0];
	c->route_fd = -1;
	creds_pass(c->fd);
	c->data_fd = e->fds[1];
	c->memfd = e->fds[2];
	c->shared = shared;
	c->keep_id = e->id;
	proofs_restore(c);
	c->kept = st;
	c->uid = st.creds.uid;
	conn_count(c);
	conns[n_conns++] = c;
	if (conn_watch(c, EPOLL_CTL_ADD)) {
		conn_close(c);
		return;
	}
	if (kfd >= 0 && nlsock_set_kernel(c->sk, kfd)) {
		close(kfd);
		conn_close(c);
		return;
	}
	if (kfd >= 0 && epoll_watch(kfd, kernel_tag(c))) {
		conn_close(c);
		return;
	}
	/* The request the dead daemon read and did not answer (proto.h). */
	if (shared->req_read != shared->req_done) {
		struct tapdp_rep rep = { .seq = shared->req_read,
					 .flags = TAPDP_REP_LOST };

		if (shared->req_op == TAPDP_OP_SEND)
			__atomic_store_n(&shared->overrun, 1, __ATOMIC_RELEASE);
		conn_reply(c, &rep, -1);
		shared->req_done = shared->req_read;
	}
	nlsock_end_lost_dump(c->sk);
	return;
fail:
	log_warn("a client socket could not be taken over: it is closed");
	if (shared != MAP_FAILED)
		munmap(shared, sizeof(*shared));
	for (unsigned i = 0; i < e->n_fds; i++)
		close(e->fds[i]);
	keep_drop(e->id);
	free(c);
}

unsigned
server_restore_clients(void)
{
	struct keep_entry *e;
	unsigned n = 0;

	while ((e = keep_claim(KEEP_CONN, NULL, NULL))) {
		conn_restore(e);
		n++;
	}
	return n;
}

void
server_close_clients(void)
{
	while (n_conns)
		conn_close(conns[0]);
	free(conns);
	conns = NULL;
	nlsock_registry_destroy();
}

void
server_close(void)
{
	server_close_clients();
	genl_unregister_all();
	kernel_relay_close();
	nlerr_close_kmsg();
	for (size_t i = 0; i < n_watches; i++) {
		epoll_ctl(epoll_fd, EPOLL_CTL_DEL, watches[i]->fd, NULL);
		if (watches[i]->timer)
			close(watches[i]->fd);
		free(watches[i]);
	}
	free(watches);
	watches = NULL;
	n_watches = 0;
	if (epoll_fd >= 0)
		close(epoll_fd);
	if (conn_epoll_fd >= 0)
		close(conn_epoll_fd);
	if (listen_fd >= 0)
		close(listen_fd);
	if (spare_fd >= 0)
		close(spare_fd);
	if (per_uid)
		g_hash_table_destroy(per_uid);
	per_uid = NULL;
	if (sock_path) {
		unlink(sock_path);
		free(sock_path);
	}
	epoll_fd = conn_epoll_fd = listen_fd = spare_fd = -1;
	sock_path = NULL;
}
