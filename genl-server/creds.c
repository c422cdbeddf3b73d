/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "genl-server/creds.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "genl-server/msg.h"

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

/* The first size - 1 bytes of path, NUL-terminated; false when it cannot
 * be read. */
static bool
read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* The kernel shows a uid_map relative to the reader's user namespace (to
 * its parent's for the reader's own): a process whose map reads as ours
 * lives in our namespace. Another namespace with the same map can only be
 * made by whoever holds CAP_SETUID over every uid it maps, here root. */
static bool
same_user_ns(pid_t pid)
{
	char path[64], theirs[512], ours[512];

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	return read_text(path, theirs, sizeof(theirs)) &&
	       read_text("/proc/self/uid_map", ours, sizeof(ours)) &&
	       !strcmp(theirs, ours);
}

/* /proc/pid/status; false when it cannot be read. */
static bool
read_status(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return pid > 0 && read_text(path, buf, size);
}

/* Linux 6.5's, which older headers lack. */
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD	76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD	0x04
#endif

/* Whether pidfd's process still has pid: its fdinfo says -1 once it
 * exited. */
static bool
pidfd_names(int pidfd, pid_t pid)
{
	char path[64], info[512];
	const char *p;
	int have;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (!read_text(path, info, sizeof(info)))
		return false;
	p = strstr(info, "\nPid:");
	return p && sscanf(p, "\nPid:%d", &have) == 1 && have == pid;
}

bool
creds_sender_net_admin(pid_t pid, uid_t uid, int pidfd)
{
	char status[4096];
	unsigned long long eff;
	const char *p;
	unsigned ruid;

	if (pid <= 0 || (pidfd < 0 && pidfd != -ENOENT) ||
	    !same_user_ns(pid) || !read_status(pid, status, sizeof(status)) ||
	    (pidfd >= 0 && !pidfd_names(pidfd, pid)))
		return false;
	p = strstr(status, "\nUid:");
	if (!p || sscanf(p, "\nUid:%u", &ruid) != 1 || ruid != uid)
		return false;
	p = strstr(status, "\nCapEff:");
	return p && sscanf(p, "\nCapEff:%llx", &eff) == 1 &&
	       (eff >> CAP_NET_ADMIN & 1);
}

/* Copies the data of mh's SOL_SOCKET message of type (len bytes) to out;
 * false when there is none. */
static bool
cmsg_get(struct msghdr *mh, int type, void *out, size_t len)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == type &&
		    cm->cmsg_len >= CMSG_LEN(len)) {
			memcpy(out, CMSG_DATA(cm), len);
			return true;
		}
	return false;
}

struct ucred
creds_of(struct msghdr *mh)
{
	struct ucred uc = { 0 };

	cmsg_get(mh, SCM_CREDENTIALS, &uc, sizeof(uc));
	return uc;
}

void
creds_pass(int fd)
{
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_PASSPIDFD, &one, sizeof(one));
}

int
creds_pidfd_of(struct msghdr *mh)
{
	int fd;

	if (!cmsg_get(mh, SCM_PIDFD, &fd, sizeof(fd)))
		return -ENOENT;
	/* The kernel puts its error there when it could not make one. */
	return fd < 0 ? -ESRCH : fd;
}

/* The sender of a datagram read from a netlink socket, when it was a
 * process (a socket with a portid, not the kernel). */
static bool
proof_of(struct msghdr *mh, const struct sockaddr_nl *from,
	 struct creds_proof *out)
{
	struct ucred uc;

	if (mh->msg_namelen < sizeof(*from) || from->nl_family != AF_NETLINK ||
	    !from->nl_pid)
		return false;
	uc = creds_of(mh);
	*out = (struct creds_proof) { .pid = uc.pid, .uid = uc.uid };
	return uc.pid > 0;
}

void
creds_proofs_read(int fd, struct creds_proof *ring, size_t n, unsigned *next)
{
	int one = 1;

	/* Netlink hands the credentials over at reading: those queued
	 * before come too. */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		return;
	for (int i = 0; i < PROBE_MAX_READS; i++) {
		char buf[64], cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_name = &from,
				     .msg_namelen = sizeof(from),
				     .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct creds_proof p;

		/* ENOBUFS: some were lost to a full queue; read on. */
		if (recvmsg(fd, &mh, MSG_DONTWAIT) < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return;
		}
		if (proof_of(&mh, &from, &p))
			ring[(*next)++ % n] = p;
	}
}

pid_t
creds_own_pid(pid_t pid)
{
	char status[4096];
	const char *p;
	int last = 0, used;

	if (!read_status(pid, status, sizeof(status)))
		return 0;
	p = strstr(status, "\nNSpid:");
	if (!p)
		return 0;
	p += strlen("\nNSpid:");
	for (int v; sscanf(p, "%d%n", &v, &used) == 1; p += used)
		last = v;
	return last;
}
