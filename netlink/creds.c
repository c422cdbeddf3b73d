/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "netlink/creds.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "netlink/msg.h"

/* The socket is the client's: it may hold other messages, or none of ours
 * if the client reads it too. Bounded, and never waited on. */
#define PROBE_MAX_READS 64

/* RTM_DELLINK of no device: rtnetlink checks CAP_NET_ADMIN first (EPERM),
 * then finds neither index nor name (EINVAL). */
struct probe {
	struct nlmsghdr nlh;
	struct ifinfomsg ifm;
};

static bool
is_rtnetlink(int fd)
{
	int domain = 0, protocol = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
	    domain != AF_NETLINK)
		return false;
	len = sizeof(int);
	return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 &&
	       protocol == NETLINK_ROUTE;
}

/* The probe's answer in one datagram: 1 granted, 0 refused, -1 not
 * there. The sequence number is random, so the client cannot have queued
 * an answer that looks like it. */
static int
find_answer(const char *buf, size_t len, uint32_t seq)
{
	for (size_t off = 0, step; (step = nlmsg_span(buf, len, off));
	     off += step) {
		const struct nlmsghdr *nlh = (const void *)(buf + off);
		const struct nlmsgerr *e = NLMSG_DATA(nlh);

		if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_seq != seq ||
		    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) ||
		    e->msg.nlmsg_type != RTM_DELLINK)
			continue;
		return e->error == -EINVAL;
	}
	return -1;
}

bool
creds_opener_net_admin(int fd)
{
	struct probe req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_DELLINK,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.ifm = { .ifi_family = AF_UNSPEC },
	};
	char buf[4096];

	if (!is_rtnetlink(fd) ||
	    getrandom(&req.nlh.nlmsg_seq, sizeof(req.nlh.nlmsg_seq),
		      GRND_NONBLOCK) != sizeof(req.nlh.nlmsg_seq))
		return false;
	/* No address: with one, netlink would check only the sender's (the
	 * daemon's) capabilities, not the opener's. Unconnected, the socket
	 * sends to the kernel, which answers within send(). */
	if (send(fd, &req, sizeof(req), MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    sizeof(req))
		return false;
	for (int i = 0; i < PROBE_MAX_READS; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		int found;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		found = find_answer(buf, n, req.nlh.nlmsg_seq);
		if (found >= 0)
			return found;
	}
	return false;
}
