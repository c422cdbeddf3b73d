/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/kernel-relay.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/log.h"
#include "genl-server/msg.h"
#include "genl-server/nlsock.h"

#define RELAY_BUF (64 << 10)

static struct mnl_socket *ksock;
static uint32_t kseq;

static struct mnl_socket *
kernel_socket(void)
{
	struct timeval tv = { .tv_sec = 2 };

	if (ksock)
		return ksock;
	ksock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!ksock)
		return NULL;
	if (mnl_socket_bind(ksock, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(ksock);
		ksock = NULL;
		return NULL;
	}
	/* The kernel answers nlctrl at once; never hang the daemon. */
	setsockopt(mnl_socket_get_fd(ksock), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	return ksock;
}

void
kernel_relay_close(void)
{
	if (ksock)
		mnl_socket_close(ksock);
	ksock = NULL;
}

static void
set_flag(int fd, int opt, bool on)
{
	int v = on;

	setsockopt(fd, SOL_NETLINK, opt, &v, sizeof(v));
}

/* Rewrites the answer's messages for the client, drops what keep refuses;
 * returns the new length and whether the answer is complete. */
static size_t
rewrite(char *buf, size_t len, const struct nlmsghdr *req, uint32_t portid,
	kernel_relay_filter *keep, bool dump, bool *complete)
{
	size_t in = 0, out = 0, mlen;

	while ((mlen = nlmsg_span(buf, len, in))) {
		struct nlmsghdr *nlh = (void *)(buf + in);

		if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE ||
		    (!dump && !(req->nlmsg_flags & NLM_F_ACK)))
			*complete = true;
		nlh->nlmsg_seq = req->nlmsg_seq;
		nlh->nlmsg_pid = portid;
		if (nlh->nlmsg_type == NLMSG_ERROR &&
		    nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
			struct nlmsgerr *e = NLMSG_DATA(nlh);

			e->msg.nlmsg_seq = req->nlmsg_seq;
			e->msg.nlmsg_pid = req->nlmsg_pid;
		}
		if (!keep || nlh->nlmsg_type == NLMSG_ERROR ||
		    nlh->nlmsg_type == NLMSG_DONE || keep(nlh)) {
			memmove(buf + out, nlh, mlen);
			out += mlen;
		}
		in += mlen;
	}
	return out;
}

int
kernel_relay(struct nlsock *sk, const struct nlmsghdr *req,
	     kernel_relay_filter *keep)
{
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	struct mnl_socket *k = kernel_socket();
	bool complete = false;
	struct nlmsghdr *copy;
	char *buf;
	int fd;

	if (!k)
		return -errno;
	fd = mnl_socket_get_fd(k);
	set_flag(fd, NETLINK_EXT_ACK, nlsock_ext_ack(sk));
	set_flag(fd, NETLINK_CAP_ACK, nlsock_cap_ack(sk));
	buf = malloc(RELAY_BUF);
	copy = malloc(req->nlmsg_len);
	if (!buf || !copy) {
		free(buf);
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, req, req->nlmsg_len);
	copy->nlmsg_seq = ++kseq;
	copy->nlmsg_pid = 0;
	if (mnl_socket_sendto(k, copy, copy->nlmsg_len) < 0) {
		int err = -errno;

		free(buf);
		free(copy);
		return err;
	}
	while (!complete) {
		ssize_t n = mnl_socket_recvfrom(k, buf, RELAY_BUF);
		size_t len;

		if (n <= 0) {
			log_warn("kernel relay: %s", n < 0 ? strerror(errno)
							   : "no answer");
			break;
		}
		/* Leftovers of an earlier, abandoned answer. */
		if (((struct nlmsghdr *)buf)->nlmsg_seq != kseq)
			continue;
		len = rewrite(buf, n, req, nlsock_portid(sk), keep, dump,
			      &complete);
		if (len)
			nlsock_unicast(sk, buf, len);
	}
	free(buf);
	free(copy);
	return complete ? 0 : -ETIMEDOUT;
}
