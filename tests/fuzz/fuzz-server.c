/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the shim<->daemon protocol (include/tapdp/proto.h) as
 * the server reads it (genl-server/server.c). The server runs its loop on a
 * thread of its own, on a socket in a private directory, serving the
 * families as tapdpd does. Each input is one client connection: it says
 * HELLO as the shim would, with no NETLINK_ROUTE socket (so no
 * CAP_NET_ADMIN: no device is ever made), then sends the input's requests
 * one at a time, each answered, or the connection closed, before the next.
 *
 * Input: a byte that picks the HELLO's protocol (generic, netfilter,
 * route), then records [u8 fds][u16 len][len bytes: a struct tapdp_req
 * and its payload], fds % 4 being how many AF_UNIX datagram sockets go
 * with it (what HELLO and KERNEL take, or more than any takes). With
 * fds & 4, the first is instead a generic netlink socket holding the
 * payload as a datagram (when the fuzzer may unicast to it: root), what a
 * client's KERNEL socket may hold. An answer that does not come in 10 s
 * is a hang: abort. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "include/tapdp/proto.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "genl-server/server.h"

static struct sockaddr_un addr = { .sun_family = AF_UNIX };
static char dir[] = "/tmp/fuzz-server.XXXXXX";

static void *
serve(void *arg)
{
	if (server_run())
		abort();
	return NULL;
}

static void
cleanup(void)
{
	unlink(addr.sun_path);
	rmdir(dir);
}

static void
setup(void)
{
	const struct dp_net_config cfg = { .upcall = packet_family_upcalls };
	struct dp_net *net = dp_net_new(&cfg);
	pthread_t th;

	/* Its clients are all of our namespace. */
	if (!net || !mkdtemp(dir))
		abort();
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/sock", dir);
	if (server_open(addr.sun_path, net, NULL))
		abort();
	families_register();
	atexit(cleanup);
	if (pthread_create(&th, NULL, serve, NULL))
		abort();
}

/* A generic netlink socket with len bytes of p queued in it, sent from
 * another (refused unless we may: then it is empty). */
static int
netlink_holding(const void *p, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	int k = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (k < 0 || s < 0 || bind(k, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(k, (struct sockaddr *)&sa, &salen))
		abort();
	sendto(s, p, len, MSG_DONTWAIT, (struct sockaddr *)&sa, sizeof(sa));
	close(s);
	return k;
}

/* Sends buf with n fresh datagram sockets' ends (the first one keep_fd,
 * if >= 0); false when the server closed the connection. */
static bool
request(int fd, const void *buf, size_t len, int n, int keep_fd)
{
	char cbuf[TAPDP_FDS_SPACE(3)];
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[3], sv[2];
	bool ok;

	for (int i = 0; i < n; i++) {
		if (i == 0 && keep_fd >= 0) {
			fds[i] = keep_fd;
			continue;
		}
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
			abort();
		close(sv[0]);
		fds[i] = sv[1];
	}
	if (n)
		tapdp_pass_fds(&mh, cbuf, fds, n);
	ok = sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len;
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return ok;
}

/* The answer, and any descriptor it passes closed; false when the
 * connection closed instead. */
static bool
answer(int fd)
{
	char cbuf[TAPDP_FDS_SPACE(1)];
	struct tapdp_rep rep;
	struct iovec iov = { &rep, sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		fprintf(stderr, "fuzz-server: no answer in 10 s\n");
		abort();
	}
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0;
			     i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int pfd;

				memcpy(&pfd, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(int));
				close(pfd);
			}
	return n == sizeof(rep);
}

static void
drain(int fd)
{
	static char sink[65536];

	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int protocols[] = { NETLINK_GENERIC, NETLINK_NETFILTER,
					 NETLINK_ROUTE };
	static char buf[sizeof(struct tapdp_req) + 0xffff];
	const struct timeval tv = { .tv_sec = 10 };
	struct tapdp_req hello = { .op = TAPDP_OP_HELLO,
				   .arg = { TAPDP_PROTO_VERSION, SOCK_RAW } };
	int fd, sv[2];

	if (!size)
		return 0;
	if (!addr.sun_path[0])
		setup();
	hello.arg[2] = protocols[data[0] % 3];
	data++;
	size--;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (request(fd, &hello, sizeof(hello), 1, sv[1]) && answer(fd)) {
		while (size >= 3) {
			size_t len = data[1] | data[2] << 8;
			size_t hdr = sizeof(struct tapdp_req);
			int n = data[0] % 4, k = -1;

			if (len > size - 3)
				len = size - 3;
			memcpy(buf, data + 3, len);
			if (data[0] & 4 && n)
				k = netlink_holding(buf + (len > hdr ? hdr : len),
						    len > hdr ? len - hdr : 0);
			data += 3 + len;
			size -= 3 + len;
			if (!request(fd, buf, len, n, k) || !answer(fd))
				break;
			drain(sv[0]);
		}
	}
	close(fd);
	close(sv[0]);
	return 0;
}
