/* SPDX-License-Identifier: Apache-2.0 */
/* The shim's NETLINK_ROUTE part: the socket stays the application's real
 * kernel socket, and only link requests that concern the daemon's tunnel
 * devices are answered by the daemon (proto.h). Internal to libtapdp.so;
 * thread safety as the rest of the shim: one lock per socket. */
#ifndef TAPDP_COMPAT_ROUTE_H
#define TAPDP_COMPAT_ROUTE_H

#include <stdbool.h>
#include <sys/socket.h>

/* How the daemon is reached, set by the shim before any socket is
 * tracked: open makes an emulated socket of the daemon (or -1: no
 * daemon), offer offers it one message, 1 when the daemon answered it
 * into fd's data socket, 0 when it is the kernel's (TAPDP_OP_ROUTE);
 * view shows it a datagram of the kernel's, 1 when the daemon gave it
 * back changed into fd's data socket, 0 unchanged, -1 on failure
 * (TAPDP_OP_ROUTE_VIEW). */
void route_set_daemon(int (*open)(int type, int protocol),
		      int (*offer)(int fd, const void *msg, size_t len),
		      int (*view)(int fd, const void *dgram, size_t len));
/* fd is a new NETLINK_ROUTE socket. */
void route_track(int fd);
/* fd is closed, or replaced by dup2/dup3. */
void route_forget(int fd);
/* newfd is a dup of fd: the same socket. */
void route_share(int fd, int newfd);
bool route_tracked(int fd);
ssize_t route_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t route_recvmsg(int fd, struct msghdr *msg, int flags);

#endif
