/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpd's serving side: the listening socket, the shim connections (one
 * emulated netlink socket each), the loop that serves them and the
 * sources its users add, until a signal asks it to stop, and the serving
 * threads beside it. It knows netlink, not what the families serve:
 * nlctrl is its own, the others register.
 *
 * Threads: the calls here are the loop's thread's, before server_run and
 * after it returns; during it, each connection's requests are served on
 * one thread at a time, and everything but the unlocked generic netlink
 * ops under the control lock (genl-server/ctl-lock.h), as are the watched
 * sources and the periodic work. */
#ifndef TAPDP_SERVER_H
#define TAPDP_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* How many connections a uid may hold whose socket's opener lacks
 * CAP_NET_ADMIN (those that have not said HELLO yet included); root's are
 * not counted. Set before server_open. */
#define SERVER_MAX_PER_UID_DEFAULT	1024
void server_set_max_per_uid(unsigned n);
/* Threads that serve requests beside the loop, at most SERVER_THREADS_MAX
 * (0: the loop alone); by default one per CPU. Set before server_run. */
#define SERVER_THREADS_MAX	8
void server_set_threads(unsigned n);
/* The contexts of other network namespaces than the daemon's, as the
 * kernel's pernet state: attach() gives the one a socket of namespace
 * cookie acts on (fd: the client's socket, of that namespace; admin: it
 * has CAP_NET_ADMIN over it), made on first use, NULL with *err set when
 * it cannot be (what the client's socket() then fails with); detach()
 * says a socket that acted on it closed. Both on the loop, under the
 * control lock. */
struct server_netns {
	void *(*attach)(int fd, uint64_t cookie, bool admin, int *err);
	void (*detach)(void *net);
};
/* Binds the socket at path. -EADDRINUSE when another daemon answers there;
 * a stale socket file is replaced. A socket a client opens in the daemon's
 * network namespace acts on net (nlsock_net), the served families'
 * context; one opened in another namespace on that namespace's, from
 * ns. */
int server_open(const char *path, void *net, const struct server_netns *ns);
/* fn(arg) runs on the loop, under the control lock, whenever fd is
 * readable; fd stays the caller's. 0 or -errno. */
int server_watch(int fd, void (*fn)(void *), void *arg);
/* fn(arg) runs on the loop, under the control lock, every ms
 * milliseconds. 0 or -errno. */
int server_every(unsigned ms, void (*fn)(void *), void *arg);
struct nlsock;
/* Serves requests of sockets of this protocol (NETLINK_GENERIC is the
 * server's own; a HELLO for a protocol nobody serves is refused). */
void server_set_protocol(int protocol,
			 void (*rcv)(struct nlsock *, const void *, size_t));
/* NETLINK_ROUTE stays the kernel's; the shim offers a socket's link
 * requests one message at a time (proto.h), and offer answers one into sk
 * and returns true, or returns false to leave it to the kernel. The shim
 * also shows the daemon each datagram of the kernel's that holds a link
 * message: view gives it back changed into sk and returns true, or
 * returns false when it stands. */
void server_set_route(bool (*offer)(struct nlsock *, const void *, size_t),
		      bool (*view)(struct nlsock *, const void *, size_t));
/* Serves until SIGTERM, SIGINT or SIGUSR2; returns 0 or -errno. */
int server_run(void);
/* Whether it was SIGUSR2: hand over to a successor (common/keep.h). */
bool server_upgrade_requested(void);
/* Serves on the client connections a dead daemon left with the keeper
 * (common/keep.h), answering the request it had read and not answered
 * and ending the dump it left running (proto.h). Returns how many. */
unsigned server_restore_clients(void);
/* Closes every connection and frees every emulated socket. */
void server_close_clients(void);
/* That, and the families, the relay and the socket. */
void server_close(void);

#endif
