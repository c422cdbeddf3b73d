/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "compat/real.h"

#include <dlfcn.h>

int (*real_socket)(int, int, int);
int (*real_close)(int);
int (*real_bind)(int, const struct sockaddr *, socklen_t);
int (*real_connect)(int, const struct sockaddr *, socklen_t);
int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
ssize_t (*real_recvmsg)(int, struct msghdr *, int);
int (*real_setsockopt)(int, int, int, const void *, socklen_t);
int (*real_getsockopt)(int, int, int, void *, socklen_t *);
int (*real_dup)(int);
int (*real_dup2)(int, int);
int (*real_dup3)(int, int, int);
int (*real_fcntl)(int, int, ...);
int (*real_fcntl64)(int, int, ...);

void
real_resolve(void)
{
	real_socket = dlsym(RTLD_NEXT, "socket");
	real_close = dlsym(RTLD_NEXT, "close");
	real_bind = dlsym(RTLD_NEXT, "bind");
	real_connect = dlsym(RTLD_NEXT, "connect");
	real_getsockname = dlsym(RTLD_NEXT, "getsockname");
	real_getpeername = dlsym(RTLD_NEXT, "getpeername");
	real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
	real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	real_setsockopt = dlsym(RTLD_NEXT, "setsockopt");
	real_getsockopt = dlsym(RTLD_NEXT, "getsockopt");
	real_dup = dlsym(RTLD_NEXT, "dup");
	real_dup2 = dlsym(RTLD_NEXT, "dup2");
	real_dup3 = dlsym(RTLD_NEXT, "dup3");
	real_fcntl = dlsym(RTLD_NEXT, "fcntl");
	real_fcntl64 = dlsym(RTLD_NEXT, "fcntl64");
	if (!real_fcntl64)
		real_fcntl64 = real_fcntl;
}
