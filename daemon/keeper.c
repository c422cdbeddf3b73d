/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/keeper.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/keep.h"
#include "common/log.h"
#include "daemon/sandbox.h"
#include "daemon/subprocess.h"

struct held {
	uint64_t id;
	uint32_t kind;
	int fds[KEEP_MAX_FDS];
	unsigned n_fds;
	uint32_t meta_len;
	uint8_t meta[KEEP_META_MAX];
};

static struct held *held;
static size_t n_held, cap_held;
static bool said_full;

static struct held *
held_find(uint64_t id)
{
	for (size_t i = 0; i < n_held; i++)
		if (held[i].id == id)
			return &held[i];
	return NULL;
}

static void
held_close_fds(struct held *h)
{
	for (unsigned i = 0; i < h->n_fds; i++)
		close(h->fds[i]);
	h->n_fds = 0;
}

static void
held_drop(uint64_t id)
{
	struct held *h = held_find(id);

	if (!h)
		return;
	held_close_fds(h);
	*h = held[--n_held];
}

static bool
held_put(const struct keep_msg *m, const int *fds, unsigned n)
{
	struct held *h = held_find(m->id);

	if (!h) {
		if (n_held == cap_held) {
			size_t cap = cap_held ? 2 * cap_held : 64;
			struct held *grown = realloc(held, cap * sizeof(*held));

			if (!grown)
				return false;
			held = grown;
			cap_held = cap;
		}
		h = &held[n_held++];
		h->id = m->id;
		h->n_fds = 0;
	}
	held_close_fds(h);
	h->kind = m->kind;
	memcpy(h->fds, fds, n * sizeof(int));
	h->n_fds = n;
	h->meta_len = m->meta_len;
	memcpy(h->meta, m->meta, m->meta_len);
	return true;
}

static void
held_close_all(void)
{
	for (size_t i = 0; i < n_held; i++)
		held_close_fds(&held[i]);
	n_held = 0;
}

static void
give_back(int fd)
{
	struct keep_msg m;

	for (size_t i = 0; i < n_held; i++) {
		struct held *h = &held[i];

		m = (struct keep_msg) { .op = KEEP_OP_PUT, .kind = h->kind,
					.id = h->id, .n_fds = h->n_fds,
					.meta_len = h->meta_len };
		memcpy(m.meta, h->meta, h->meta_len);
		if (keep_send(fd, &m, h->fds, h->n_fds))
			return;
	}
	m = (struct keep_msg) { .op = KEEP_OP_END };
	keep_send(fd, &m, NULL, 0);
}

/* One message from the attached daemon; false when it is gone or asked us
 * to quit (*quit). */
static bool
serve_daemon(int fd, bool *quit)
{
	struct keep_msg m;
	int fds[KEEP_MAX_FDS];
	unsigned n;
	ssize_t r = keep_recv(fd, &m, fds, &n);
	bool used = false;

	if (r == -EAGAIN)
		return true;
	if (r == -EMFILE) {
		/* Out of descriptors: that entry is not kept (its object
		 * would not survive a restart); the rest still are. */
		if (!said_full)
			log_err("keeper: out of descriptors: some of the "
				"daemon's are not kept");
		said_full = true;
		return true;
	}
	if (r <= 0)
		return false;
	switch (m.op) {
	case KEEP_OP_PUT:
	case KEEP_OP_UPDATE:
		used = held_put(&m, fds, n);
		break;
	case KEEP_OP_META: {
		struct held *h = held_find(m.id);

		if (h) {
			h->meta_len = m.meta_len;
			memcpy(h->meta, m.meta, m.meta_len);
		}
		break;
	}
	case KEEP_OP_DROP:
		held_drop(m.id);
		m = (struct keep_msg) { .op = KEEP_OP_DROPPED, .id = m.id };
		keep_send(fd, &m, NULL, 0);
		break;
	case KEEP_OP_TAKE:
		give_back(fd);
		break;
	case KEEP_OP_QUIT:
		*quit = true;
		break;
	}
	if (!used)
		for (unsigned i = 0; i < n; i++)
			close(fds[i]);
	return !*quit;
}

static void
hello(int fd, bool ours)
{
	struct keep_msg m = { .op = KEEP_OP_HELLO, .id = ours };

	keep_send(fd, &m, NULL, 0);
}

static void
keeper_main(int listen_fd, int daemon_fd, const char *path, unsigned wait_s)
{
	uint64_t alone_since = 0;
	bool quit = false;

	for (;;) {
		struct pollfd p[2] = { { listen_fd, POLLIN, 0 },
				       { daemon_fd, POLLIN, 0 } };
		int timeout = -1;

		if (daemon_fd < 0) {
			uint64_t waited = clock_now_ms() - alone_since;

			if (waited >= wait_s * 1000ULL)
				break;
			timeout = wait_s * 1000ULL - waited;
		}
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			break;
		sandbox_report();
		/* The attached daemon's last words before a newcomer: one
		 * that died has gone once its messages are read. */
		if (daemon_fd >= 0 && p[1].revents) {
			if (serve_daemon(daemon_fd, &quit))
				continue;
			/* Asked to quit, the daemon waits for our end to
			 * close, after everything else. */
			if (quit)
				break;
			close(daemon_fd);
			daemon_fd = -1;
			alone_since = clock_now_ms();
			log_warn("keeper: the daemon went away; keeping %zu "
				 "entries for its successor for %u s", n_held,
				 wait_s);
			continue;
		}
		if (p[0].revents & POLLIN) {
			int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd < 0)
				continue;
			hello(fd, daemon_fd < 0);
			if (daemon_fd >= 0) {
				close(fd);
				continue;
			}
			daemon_fd = fd;
			log_info("keeper: a new daemon takes over %zu entries",
				 n_held);
		}
	}
	if (!quit)
		log_err("keeper: no daemon came back in %u s: giving up the "
			"datapath's devices and clients", wait_s);
	/* No newcomer may find us from now on. */
	unlink(path);
	close(listen_fd);
	held_close_all();
	if (daemon_fd >= 0)
		close(daemon_fd);
}

struct keeper_args {
	const char *path;
	unsigned wait_s;
	bool sandboxed;
};

/* The keeper, in its process. */
static void
keeper_child(int sock, int lfd, void *arg)
{
	const struct keeper_args *a = arg;
	struct rlimit rl;

	/* It holds as many as the daemon, which raises its own. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Unsandboxed if that fails: it holds what the daemon needs, and
	 * says why in the log. */
	if (a->sandboxed)
		sandbox_apply_keeper();
	keeper_main(lfd, sock, a->path, a->wait_s);
}

int
keeper_spawn(const char *path, unsigned wait_s, bool sandboxed)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct keeper_args a = { path, wait_s, sandboxed };
	int lfd, fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	unlink(path);
	if (bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(path, 0600) < 0 || listen(lfd, 4) < 0) {
		int err = -errno;

		close(lfd);
		return err;
	}
	fd = subprocess_spawn(lfd, keeper_child, &a);
	close(lfd);
	if (fd < 0)
		return fd;
	keep_attach_fd(fd);
	return 0;
}
