/* SPDX-License-Identifier: Apache-2.0 */
/* Netlink datagrams in the application's buffers: where a message ends,
 * and copies between a datagram and a msghdr's iovec. Internal to
 * libtapdp.so; no state. */
#ifndef TAPDP_COMPAT_DGRAM_H
#define TAPDP_COMPAT_DGRAM_H

#include <stddef.h>
#include <sys/uio.h>

/* Bytes of the netlink message at p, or of the rest when it is malformed
 * (the daemon then drops it as the kernel would). */
size_t msg_span(const char *p, size_t rem);

/* Copies len bytes of src into the buffers of iov from byte off of them
 * on, as far as they go; returns the bytes copied. */
size_t iov_scatter(const struct iovec *iov, size_t cnt, size_t off,
		   const void *src, size_t len);
/* Copies the first len bytes the buffers of iov hold to dst. */
void iov_gather(const struct iovec *iov, size_t cnt, void *dst, size_t len);

#endif
