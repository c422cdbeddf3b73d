/* SPDX-License-Identifier: Apache-2.0 */
#include "compat/dgram.h"

#include <linux/netlink.h>
#include <string.h>

size_t
msg_span(const char *p, size_t rem)
{
	const struct nlmsghdr *nlh = (const void *)p;
	size_t len;

	if (rem < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > rem)
		return rem;
	len = NLMSG_ALIGN(nlh->nlmsg_len);
	return len < rem ? len : rem;
}

size_t
iov_scatter(const struct iovec *iov, size_t cnt, size_t off, const void *src,
	    size_t len)
{
	size_t done = 0;

	for (size_t i = 0; i < cnt && done < len; i++) {
		size_t k = iov[i].iov_len;

		if (off >= k) {
			off -= k;
			continue;
		}
		k -= off;
		if (k > len - done)
			k = len - done;
		memcpy((char *)iov[i].iov_base + off, (const char *)src + done,
		       k);
		done += k;
		off = 0;
	}
	return done;
}

void
iov_gather(const struct iovec *iov, size_t cnt, void *dst, size_t len)
{
	size_t done = 0;

	for (size_t i = 0; i < cnt && done < len; i++) {
		size_t k = iov[i].iov_len < len - done ? iov[i].iov_len
						       : len - done;

		memcpy((char *)dst + done, iov[i].iov_base, k);
		done += k;
	}
}
