/* SPDX-License-Identifier: Apache-2.0 */
/* Emulated netlink sockets: one per shim connection.
 *
 * An nlsock owns the daemon's end of the client's data socket (see
 * include/tapdp/proto.h) and carries what the kernel keeps in a
 * netlink_sock: portid, multicast memberships, flags (EXT_ACK, CAP_ACK,
 * NO_ENOBUFS...), the receive-buffer size, the running dump, the
 * credentials of the process that opened it (for CAP_NET_ADMIN checks),
 * and the client's own kernel socket for the kernel's families, whose
 * datagrams it relays.
 *
 * Threads: the control thread creates, binds and frees sockets and changes
 * their options; any thread may deliver to them (nlsock_unicast_portid,
 * nlsock_multicast), under the registry's read lock. */
#ifndef TAPDP_NLSOCK_H
#define TAPDP_NLSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tapdp_shared;
struct nlsock;

#include "include/tapdp/proto.h"

/* Multicast group ids the daemon hands out (see include/tapdp/proto.h). */
#define NLSOCK_GROUP_BASE	TAPDP_GROUP_FIRST
#define NLSOCK_MAX_GROUPS	TAPDP_GROUP_COUNT

struct nlsock_creds {
	pid_t pid;
	uid_t uid;
	bool net_admin;		/* CAP_NET_ADMIN when the socket was opened */
	bool other_netns;	/* opened in another namespace than ours */
};

void nlsock_registry_init(void);
void nlsock_registry_destroy(void);

/* protocol: NETLINK_GENERIC or NETLINK_NETFILTER. net: what the socket's
 * requests act on, as the kernel's sock_net(): the context of the families
 * that serve them, opaque here. Each (net, protocol) has its own portid
 * space and its own multicasts, as in the kernel. */
struct nlsock *nlsock_new(int data_fd, struct tapdp_shared *shared,
			  const struct nlsock_creds *creds, int protocol,
			  void *net);
void nlsock_free(struct nlsock *sk);

/* portid 0 autobinds (tgid first, then negative numbers, as the kernel).
 * Binding again to another portid is -EINVAL; a taken portid -EADDRINUSE. */
int nlsock_bind(struct nlsock *sk, uint32_t portid);
int nlsock_autobind(struct nlsock *sk);
uint32_t nlsock_portid(const struct nlsock *sk);
int nlsock_protocol(const struct nlsock *sk);
void *nlsock_net(const struct nlsock *sk);
const struct nlsock_creds *nlsock_creds(const struct nlsock *sk);
/* Whether the request being served may do what needs CAP_NET_ADMIN: the
 * socket's opener had it, and the request's sender has it (the kernel's
 * netlink_ns_capable checks both). */
bool nlsock_net_admin(const struct nlsock *sk);
/* The verdict on the sender of the requests served from now on; true
 * until the server says otherwise (the journal's and the tests' sockets
 * send for themselves). */
void nlsock_set_sender_admin(struct nlsock *sk, bool admin);

int nlsock_setsockopt(struct nlsock *sk, int level, int name, int value);
int nlsock_getsockopt(struct nlsock *sk, int level, int name, int *value);
bool nlsock_ext_ack(const struct nlsock *sk);
bool nlsock_cap_ack(const struct nlsock *sk);

/* Queues one datagram; -ENOBUFS when the receive buffer is full (the
 * overrun is then flagged to the client unless NO_ENOBUFS), -ECONNRESET when
 * the client is gone. With NETLINK_PKTINFO set, every datagram goes with
 * its group in front (proto.h, struct tapdp_dgram_info). */
int nlsock_unicast(struct nlsock *sk, const void *buf, size_t len);
/* Same, to whichever socket of protocol in net holds portid;
 * -ECONNREFUSED if none. */
int nlsock_unicast_portid(int protocol, void *net, uint32_t portid,
			  const void *buf, size_t len);
/* The client's next read fails with ENOBUFS, whatever NETLINK_NO_ENOBUFS
 * says: what the kernel does when it cannot answer a request at all. */
void nlsock_report_enobufs(struct nlsock *sk);
/* Delivers to every member of group of protocol in net (the kernel's
 * multicasts stay in their namespace) except exclude_portid (0: none).
 * The daemon's groups are, on NETLINK_GENERIC sockets, the ids it
 * hands out; on the others, the protocol's own numbers (1 to
 * NLSOCK_MAX_GROUPS), those the shim leaves to the daemon. */
void nlsock_multicast(int protocol, const void *net, uint32_t group,
		      const void *buf, size_t len, uint32_t exclude_portid);
/* Whether group has a member; takes no lock (a packet thread asks it for
 * every event it may send). */
bool nlsock_has_listeners(int protocol, uint32_t group);

/* Whether sk joined group. */
bool nlsock_member(const struct nlsock *sk, uint32_t group);
/* fn runs on the control thread after a socket joined or left groups
 * (a socket freed leaves its own). Set once, before serving. */
void nlsock_on_groups(void (*fn)(void));

/* The daemon's netlink tap, as the kernel's (what an nlmon device shows):
 * every datagram a client sends the daemon (to_client false) and every
 * one the daemon queues to a client, while group, a NETLINK_GENERIC
 * group, has a member. The members' own datagrams are not told, or what
 * fn sends them would be told again. fn runs on the sending thread, maybe
 * under the registry's read lock (glibc's default rwlock lets a reader
 * take it again while a writer waits). Set once, on the control thread,
 * before serving. */
typedef void nlsock_tap_fn(const struct nlsock *sk, const void *buf,
			   size_t len, bool to_client);
void nlsock_set_tap(uint32_t group, nlsock_tap_fn *fn);
/* A datagram the client sent on sk, for the tap. */
void nlsock_tap_sent(const struct nlsock *sk, const void *buf, size_t len);

/* The i-th socket open (in no lasting order: a socket closed moves the
 * last one into its place), NULL past the last. Control thread. */
const struct nlsock *nlsock_at(unsigned i);
/* The groups sk joined, at most max of them into out; returns how many
 * it joined. */
unsigned nlsock_groups(const struct nlsock *sk, uint32_t *out, unsigned max);

/* Bytes queued and not yet read by the client. */
size_t nlsock_queued(const struct nlsock *sk);
/* The most one datagram of len bytes adds to nlsock_queued(). */
size_t nlsock_dgram_charge_max(size_t len);
size_t nlsock_rcvbuf(const struct nlsock *sk);
/* The largest buffer the client has read with (the kernel's
 * max_recvmsg_len), which sizes dump parts. */
void nlsock_note_recv(struct nlsock *sk, size_t len);
size_t nlsock_recv_hint(const struct nlsock *sk);

/* The client's own kernel socket of the socket's protocol (requests to the
 * kernel's families go out on it; answers and the kernel's multicasts come
 * back on it), which the daemon reads. Takes fd, closed by nlsock_free;
 * -EINVAL if it is no bound netlink socket of that protocol, -EEXIST when
 * one is set. Control thread. */
int nlsock_set_kernel(struct nlsock *sk, int fd);
/* The kernel socket, -1 if none. */
int nlsock_kernel_fd(const struct nlsock *sk);
/* Moves what the kernel socket holds into the data socket (a bounded
 * batch: the rest waits for the next call): answers addressed to the
 * socket's portid, with the group and namespace id the kernel gave in
 * front as the client asked for them. Control thread. */
void nlsock_kernel_drain(struct nlsock *sk);

/* The dump running on the socket, owned by the genl layer. */
void *nlsock_dump(const struct nlsock *sk);
/* seq: the dump request's (the shared page notes it while it runs). */
void nlsock_set_dump(struct nlsock *sk, void *dump, void (*free_fn)(void *),
		     uint32_t seq);

/* What a successor daemon needs to serve the socket on (common/keep.h):
 * everything but the descriptors, the shared page and a running dump. */
struct nlsock_state {
	int32_t protocol;
	uint32_t portid;
	uint32_t flags;
	uint8_t bound;
	uint64_t groups;
	uint64_t rcvbuf, max_recv;
	struct nlsock_creds creds;
};

void nlsock_save(const struct nlsock *sk, struct nlsock_state *st);
/* A socket as a dead daemon left it: bound to the same portid, in the
 * same groups. NULL without memory or when its portid is taken. */
struct nlsock *nlsock_restore(int data_fd, struct tapdp_shared *shared,
			      const struct nlsock_state *st, void *net);
/* A dump the dead daemon left running ends as a kernel dump whose
 * dumpit failed: NLMSG_DONE carrying -EINTR, marked NLM_F_DUMP_INTR. */
void nlsock_end_lost_dump(struct nlsock *sk);

#endif
