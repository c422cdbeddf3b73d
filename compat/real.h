/* SPDX-License-Identifier: Apache-2.0 */
/* The C library's own calls that the shim's wrappers stand in front of,
 * found past the shim (dlsym RTLD_NEXT) by real_resolve(), which runs once
 * before any wrapper uses them. Internal to libtapdp.so. */
#ifndef TAPDP_COMPAT_REAL_H
#define TAPDP_COMPAT_REAL_H

#include <sys/socket.h>
#include <sys/types.h>

/* Descriptors the shim's tables follow; a socket above them stays the
 * kernel's. */
#define MAX_FDS 65536

extern int (*real_socket)(int, int, int);
extern int (*real_close)(int);
extern int (*real_bind)(int, const struct sockaddr *, socklen_t);
extern int (*real_connect)(int, const struct sockaddr *, socklen_t);
extern int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
extern int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
extern ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
extern ssize_t (*real_recvmsg)(int, struct msghdr *, int);
extern int (*real_setsockopt)(int, int, int, const void *, socklen_t);
extern int (*real_getsockopt)(int, int, int, void *, socklen_t *);
extern int (*real_dup)(int);
extern int (*real_dup2)(int, int);
extern int (*real_dup3)(int, int, int);
extern int (*real_fcntl)(int, int, ...);
extern int (*real_fcntl64)(int, int, ...);

void real_resolve(void);

#endif
