/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a shim connection may change things: the kernel grants
 * CAP_NET_ADMIN's commands by the credentials of whoever opened the netlink
 * socket, fixed when it was opened (file_ns_capable on the socket's file),
 * not by what the process is later. The shim opens a real NETLINK_ROUTE
 * socket alongside each emulated one and hands it over; the daemon asks the
 * kernel, through that socket, to answer a request that needs
 * CAP_NET_ADMIN and changes nothing. So a process that execs a setuid
 * program after connecting, or hands its connection to another, keeps the
 * privilege it had when it opened the socket, as with the kernel.
 *
 * The kernel checks the sender of each message too (netlink_ns_capable:
 * file_ns_capable of the socket's opener and ns_capable of the current
 * task), so that a socket handed to another process grants it nothing it
 * lacks. The server learns each request's sender from the kernel
 * (SCM_CREDENTIALS) and asks creds_sender_net_admin().
 *
 * /proc can say so only of a sender in the daemon's user namespace. One in
 * another (unshare -rn, a rootless container) proves it the kernel's way:
 * it sends a message on the route socket to that socket itself. Netlink
 * lets a NETLINK_ROUTE socket address another only for a sender with
 * CAP_NET_ADMIN over the socket's namespace (ns_capable of the current
 * task, the sender half of netlink_ns_capable), and gives the receiver the
 * sender's pid and uid. The daemon keeps such a client's route socket and
 * reads the proofs there (proto.h says when the shim sends one).
 *
 * Any thread; the fd stays the caller's. */
#ifndef TAPDP_CREDS_H
#define TAPDP_CREDS_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* fd: a netlink socket the client opened. False for anything else, or
 * when the kernel refuses, or does not answer, the probe. */
bool creds_opener_net_admin(int fd);
/* Whether process pid, whose real uid the kernel gave as uid, holds
 * CAP_NET_ADMIN in the daemon's user namespace: its effective set, when
 * it lives in that namespace (its uid_map reads as the daemon's own) and
 * is still the process of that uid. pidfd (creds_pidfd_of) is the
 * sender's own: /proc is believed only if it still names pid once read,
 * so that a sender gone and its pid taken by another are never confused
 * (-ENOENT: none, a kernel before 6.5, judged by pid and uid alone). False
 * when /proc does not say. */
bool creds_sender_net_admin(pid_t pid, uid_t uid, int pidfd);

/* A sender that proved CAP_NET_ADMIN: its pid as its own pid namespace
 * numbers it (the kernel's netlink credentials do), its uid as the
 * daemon's user namespace does. */
struct creds_proof {
	pid_t pid;
	uid_t uid;
};

/* The sender's credentials a received message carries (SCM_CREDENTIALS,
 * the kernel's, which a process cannot forge); pid 0 when it has none. */
struct ucred creds_of(struct msghdr *mh);
/* Has the sockets of fd's connection carry them, and the sender's pidfd
 * where the kernel can (SO_PASSPIDFD, Linux 6.5). */
void creds_pass(int fd);
/* The sender's pidfd a received message carries (SCM_PIDFD): an fd, the
 * caller's to close; -ESRCH when the kernel could make none (the sender
 * is gone); -ENOENT when there is none. */
int creds_pidfd_of(struct msghdr *mh);
/* Room in a control buffer for creds_of's and creds_pidfd_of's. */
#define CREDS_CMSG_SPACE \
	(CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)))
/* Reads the proofs waiting on route socket fd into ring[*next % n],
 * advancing *next: the newest n stay. Other messages (the kernel's) are
 * dropped. */
void creds_proofs_read(int fd, struct creds_proof *ring, size_t n,
		       unsigned *next);
/* Process pid's number in its own pid namespace (NSpid's last); 0 when
 * /proc does not say. */
pid_t creds_own_pid(pid_t pid);

#endif
