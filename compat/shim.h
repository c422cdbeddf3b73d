/* SPDX-License-Identifier: Apache-2.0 */
/* What the shim's parts share: the real calls it wraps, and its emulated
 * sockets as route.c uses them. Internal to libtapdp.so. */
#ifndef TAPDP_COMPAT_SHIM_H
#define TAPDP_COMPAT_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define MAX_FDS 65536

extern int (*real_socket)(int, int, int);
extern int (*real_close)(int);
extern int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
extern ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
extern ssize_t (*real_recvmsg)(int, struct msghdr *, int);
extern int (*real_getsockopt)(int, int, int, void *, socklen_t *);

/* Bytes of the netlink message at p, or of the rest when it is malformed. */
size_t msg_span(const char *p, size_t rem);

/* Copies len bytes of src into the buffers of iov from byte off of them
 * on, as far as they go; returns the bytes copied. */
size_t iov_scatter(const struct iovec *iov, size_t cnt, size_t off,
		   const void *src, size_t len);

/* An emulated socket of the daemon (the application never sees it), or
 * -1 when no daemon answers or it refuses one. Closed with close(). */
int shim_emu_open(int type, int protocol);
/* Offers one message to the daemon (TAPDP_OP_ROUTE): 1 when the daemon
 * answered it into fd's data socket, 0 when it is the kernel's. */
int shim_emu_offer(int fd, const void *msg, size_t len);

#endif
