/* SPDX-License-Identifier: Apache-2.0 */
/* Descriptors that outlive the daemon.
 *
 * A module never restarts; a daemon does. What a client or the host holds
 * on to must therefore not die with tapdpd: the listening socket, the
 * client connections (control socket, data socket, shared page, kernel
 * socket), the TAP devices of ports, and the memory file of the datapath's
 * journal. The daemon hands a copy of each to its keeper (daemon/keeper.c),
 * a small process that only holds them, so that after a crash, a kill -9
 * or an upgrade the next tapdpd takes them back and nobody sees a socket
 * close or a device vanish. Each entry is a few descriptors and a small
 * description (meta) of what they are.
 *
 * With no keeper (keep_open not called, unit tests), every call is a
 * no-op: ids are 0 and nothing is kept.
 *
 * Threads: any; one mutex serialises the messages to the keeper. The
 * entries taken back at start (keep_take) are claimed by the control
 * thread before it serves. */
#ifndef TAPDP_COMMON_KEEP_H
#define TAPDP_COMMON_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum keep_kind {
	KEEP_LISTEN = 1,	/* the listening socket */
	KEEP_CONN,		/* a shim connection: control, data, shared
				 * page[, kernel socket]; meta: its socket's
				 * state (genl-server/nlsock.h) */
	KEEP_TAP,		/* a queue of a TAP/TUN device; meta: struct
				 * keep_tap */
	KEEP_JOURNAL,		/* a context's journal's memory file and
				 * its flow counters' (journal_keep_fds);
				 * meta: none for the daemon's namespace's,
				 * struct keep_netns for another's */
	KEEP_PROOFS,		/* the route socket a connection's senders
				 * prove themselves on (genl-server/creds.h);
				 * meta: the connection's entry id and the
				 * proofs read (genl-server/server.c) */
	KEEP_AGENT,		/* the namespace agent's socket
				 * (daemon/ns-agent.h); meta: none */
};

#define KEEP_MAX_FDS	4
#define KEEP_META_MAX	256

struct keep_tap {
	char name[16];		/* the name it was opened by (IFNAMSIZ) */
	uint8_t l3;
};

/* Instead, for a queue of a port of another namespace's datapath, whose
 * device was made here and moved there (tap/tap.h): */
struct keep_tap_moved {
	char name[16];		/* the port's */
	int32_t netnsid;	/* the datapath's namespace's id in ours */
	uint32_t pad;
};

/* Which namespace a journal is of: found again through the devices of its
 * ports, in the namespace our namespace gives netnsid. */
struct keep_netns {
	uint64_t cookie;	/* SO_NETNS_COOKIE */
	int32_t netnsid;
	uint32_t pad;
};

/* What the keeper gives back at start. */
struct keep_entry {
	uint64_t id;
	enum keep_kind kind;
	int fds[KEEP_MAX_FDS];
	unsigned n_fds;
	uint8_t meta[KEEP_META_MAX];
	size_t meta_len;
	bool claimed;
};

/* The keeper's socket for the daemon serving path. */
void keep_path(const char *sock_path, char *out, size_t size);

/* Attaches to the keeper listening at path: 1 when one answered (and
 * keep_take gives what it holds), 0 when none did, -errno when one
 * answered but refused us (-EADDRINUSE: it still serves another daemon
 * after 3 s: one that died has let go by then). */
int keep_attach(const char *path);
/* Attaches to a keeper just made, through one end of a socketpair. */
void keep_attach_fd(int fd);
bool keep_attached(void);

/* Hands fds (copies: the caller keeps its own) and meta to the keeper as a
 * new entry; returns its id, 0 when nothing is kept. */
uint64_t keep_put(enum keep_kind kind, const int *fds, unsigned n,
		  const void *meta, size_t len);
/* Replaces an entry's fds and meta. */
void keep_update(uint64_t id, const int *fds, unsigned n, const void *meta,
		 size_t len);
/* Replaces an entry's meta only. */
void keep_meta(uint64_t id, const void *meta, size_t len);
/* The entry's descriptors are ours alone again (the object went). When it
 * returns the keeper has closed its copies: a TAP device deleted is gone,
 * as the kernel's is when its DEL returns. */
void keep_drop(uint64_t id);

/* Takes back everything the keeper holds (after keep_attach said 1).
 * 0 or -errno. */
int keep_take(void);
/* The next unclaimed entry of kind taken back, for which match (NULL:
 * any) says yes, left unclaimed: its fds are not the caller's. */
struct keep_entry *keep_find(enum keep_kind kind,
			     bool (*match)(const struct keep_entry *, void *),
			     void *arg);
/* keep_find's entry, marked claimed. Its fds are the claimer's. */
struct keep_entry *keep_claim(enum keep_kind kind,
			      bool (*match)(const struct keep_entry *, void *),
			      void *arg);
/* Closes what nobody claimed and tells the keeper to forget it. Every
 * entry keep_claim returned is freed: copy out what is still needed. */
void keep_release_unclaimed(void);

/* A clean stop: the keeper closes everything and exits, before this
 * returns. (A daemon that dies or execs without it leaves the keeper
 * waiting for its successor.) */
void keep_quit(void);

/* The keeper's side of the conversation (daemon/keeper.c). */
enum keep_op {
	KEEP_OP_PUT = 1,	/* new entry (id chosen by the daemon) */
	KEEP_OP_UPDATE,		/* fds and meta of id */
	KEEP_OP_META,		/* meta of id */
	KEEP_OP_DROP,		/* -> KEEP_OP_DROPPED once closed */
	KEEP_OP_TAKE,		/* -> every entry (KEEP_OP_PUT), then
				 * KEEP_OP_END */
	KEEP_OP_END,
	KEEP_OP_QUIT,
	KEEP_OP_HELLO,		/* keeper -> daemon, first: id 1 when it
				 * serves us, 0 when another daemon has it */
	KEEP_OP_DROPPED,
};

struct keep_msg {
	uint32_t op;
	uint32_t kind;
	uint64_t id;
	uint32_t n_fds;
	uint32_t meta_len;
	uint8_t meta[KEEP_META_MAX];
};

/* Sends one message with n fds: 0, or -1 (errno). */
int keep_send(int fd, const struct keep_msg *m, const int *fds, unsigned n);
/* Reads one message and its fds (at most KEEP_MAX_FDS; more are closed).
 * Returns its length, 0 at the end of the stream, or -errno (-EPROTO:
 * malformed; -EMFILE: its fds could not be taken, no room for them;
 * either way its fds are closed). */
ssize_t keep_recv(int fd, struct keep_msg *m, int *fds, unsigned *n);

#endif
