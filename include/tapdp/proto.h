/* SPDX-License-Identifier: Apache-2.0 */
/* The private protocol between the LD_PRELOAD shim and tapdpd.
 *
 * An emulated netlink socket is two AF_UNIX sockets:
 *  - the data socket, a SOCK_DGRAM socketpair made by the shim. The
 *    application holds one end as its "netlink" fd; the daemon holds the
 *    other and writes every datagram the socket receives into it (replies,
 *    ACKs, dump parts, notifications, upcalls). So poll/epoll, MSG_PEEK,
 *    MSG_TRUNC and MSG_DONTWAIT are the kernel's own AF_UNIX semantics.
 *  - the control socket, a SOCK_SEQPACKET connection to the daemon's
 *    listening socket, private to the shim. Requests go over it and the
 *    daemon answers only after all the replies of a request sit in the data
 *    socket: when the application's send() returns, its replies are
 *    readable, as with the kernel.
 * A shared page (a memfd the daemon makes and seals against resizing,
 * mapped by both) carries the overrun flag, so that the next recv() fails
 * once with ENOBUFS as the kernel's would.
 * Privilege is the kernel's to say: with HELLO the shim passes a real
 * NETLINK_ROUTE socket it opened, and the daemon asks the kernel whether
 * its opener had CAP_NET_ADMIN (genl-server/creds.h).
 *
 * NETLINK_ROUTE stays the kernel's, but for the tunnel devices the daemon
 * serves (RTM_NEWLINK of a flow-based tunnel kind, RTM_GETLINK and
 * RTM_DELLINK of such a device): the shim offers each link request of a
 * route socket to the daemon through a private emulated NETLINK_ROUTE
 * socket (ROUTE), which either answers it there or leaves it to the kernel.
 *
 * Requests to the kernel's own families go out on a kernel socket the shim
 * opens (with the client's credentials and namespace) and hands to the
 * daemon (KERNEL): the daemon alone reads it, so the answers (moved when
 * the shim asks, KERNEL_DRAIN) and the kernel's multicasts (as they come)
 * reach the data socket in order, and wake the client's poll.
 *
 * Every control message is one struct tapdp_req (plus payload for SEND and
 * ROUTE), answered by one struct tapdp_rep.
 *
 * What the kernel gives as control messages of a received datagram
 * (NETLINK_PKTINFO's group, NETLINK_LISTEN_ALL_NSID's namespace id) travels
 * in a struct tapdp_dgram_info in front of the datagram: the daemon puts
 * one before every datagram of a socket that asked for NETLINK_PKTINFO,
 * and before one of the kernel socket's that came with a namespace id. Its first word is
 * zero, which no netlink message's length is, so the shim tells framed
 * datagrams from the others (those queued before the option was set). */
#ifndef TAPDP_COMPAT_PROTO_H
#define TAPDP_COMPAT_PROTO_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define TAPDP_PROTO_VERSION	5
#define TAPDP_DEFAULT_SOCKET	"/run/tapdp/tapdp.sock"
#define TAPDP_SOCKET_ENV	"TAPDP_SOCKET"

/* What the daemon serves: nlctrl, the control messages, and family ids
 * and multicast groups in these ranges (above the kernel's: genetlink
 * allocates family ids below 1024 and few groups). Everything else the shim
 * sends to the kernel itself. */
#define TAPDP_FAMILY_ID_FIRST	0x400
#define TAPDP_FAMILY_ID_LAST	0x4ff
#define TAPDP_GROUP_FIRST	0x4000
#define TAPDP_GROUP_COUNT	64

/* Largest datagram a client may send (the kernel's default netlink sndbuf,
 * less its 32-byte slack): a bigger send fails with EMSGSIZE. */
#define TAPDP_MAX_SEND		(212992 - 32)
/* Largest datagram ROUTE_VIEW gives back: what it was shown, grown by
 * the daemon's link info. */
#define TAPDP_VIEW_MAX		(TAPDP_MAX_SEND + (64 << 10))

enum tapdp_op {
	TAPDP_OP_HELLO = 1,	/* arg0 version, arg1 socket type, arg2
				 * netlink protocol;
				 * SCM_RIGHTS: data socket end, then
				 * optionally a NETLINK_ROUTE socket
				 * -> SCM_RIGHTS: the shared page's memfd;
				 * val0 TAPDP_HELLO_PROVE */
	TAPDP_OP_BIND,		/* arg0 portid (0: autobind) -> val0 portid */
	TAPDP_OP_CONNECT,	/* autobind if unbound -> val0 portid */
	TAPDP_OP_SEND,		/* arg0 destination portid, arg1 largest
				 * recv buffer so far; payload: datagram
				 * -> val0 portid, val1 dump running */
	TAPDP_OP_SETSOCKOPT,	/* arg0 level, arg1 optname, arg2 value */
	TAPDP_OP_GETSOCKOPT,	/* arg0 level, arg1 optname -> val0 value */
	TAPDP_OP_DUMP_NEXT,	/* arg0 largest recv buffer so far; queue the
				 * next dump part -> val1 running */
	TAPDP_OP_ROUTE,		/* NETLINK_ROUTE sockets; payload: one
				 * message -> val0 1 when the daemon
				 * answered it (the answer sits in the data
				 * socket), 0 when it is the kernel's */
	TAPDP_OP_KERNEL,	/* SCM_RIGHTS: the shim's kernel socket of
				 * the same protocol (bound), which the
				 * daemon reads from now on */
	TAPDP_OP_KERNEL_DRAIN,	/* a request went out on it: move its
				 * answer into the data socket now */
	TAPDP_OP_ROUTE_VIEW,	/* NETLINK_ROUTE sockets; payload: a
				 * datagram the kernel gave the socket
				 * -> val0 1 when the daemon changed it
				 * (as it would read were its devices the
				 * kernel's: the new one sits in the data
				 * socket), 0 when it is unchanged */
};

struct tapdp_req {
	uint32_t op;
	int32_t arg[3];
};

struct tapdp_rep {
	int32_t err;		/* 0 or a negative errno */
	int32_t val[2];
	uint32_t seq;		/* the request's: the n-th on the connection,
				 * HELLO being the first */
	uint32_t flags;		/* TAPDP_REP_LOST */
};

/* HELLO's answer: the daemon kept the NETLINK_ROUTE socket to learn there
 * which senders have CAP_NET_ADMIN (genl-server/creds.h). Before HELLO, and
 * before a request from another process than the one that last did
 * (tapdp_shared.proved), the shim sends on it, to the socket's own portid,
 * one NLMSG_NOOP: the kernel lets it through only for such a sender. */
#define TAPDP_HELLO_PROVE	1

/* A daemon that took over from one that died (common/keep.h) answers so
 * the request the dead one had read and not answered: a SEND is lost as a
 * datagram the kernel could not queue (the daemon flags an overrun, so the
 * next recv() fails with ENOBUFS and the client sends again), other
 * requests the shim makes again. */
#define TAPDP_REP_LOST		1

#define TAPDP_DGRAM_NSID	1	/* tapdp_dgram_info.nsid is set */

struct tapdp_dgram_info {
	uint32_t zero;
	uint32_t flags;
	uint32_t group;		/* the multicast group, 0: unicast */
	int32_t nsid;
};

struct tapdp_shared {
	uint32_t overrun;	/* set by the daemon, cleared by the shim */
	/* The daemon's own notes, kept with the connection so that its
	 * successor knows where it stopped (a client that changes them only
	 * confuses its own socket): the requests read and answered so far,
	 * the last one's op, and the dump running, by its request's sequence
	 * number. */
	uint32_t req_read, req_done, req_op;
	uint32_t dump_running, dump_seq;
	/* The shim's: requests sent, by every process sharing the socket
	 * (a fork shares the connection), so that each knows the sequence
	 * number of its answer. */
	uint32_t sent;
	/* The shim's: the process that proved itself last (getpid()); a
	 * daemon that took the connection over sets it to 0, the proofs
	 * its predecessor read being lost with it. */
	uint32_t proved;
};

/* Room for passing n descriptors with one control message. */
#define TAPDP_FDS_SPACE(n)	CMSG_SPACE((n) * sizeof(int))

/* Makes mh pass fds[0..n) (SCM_RIGHTS) in cbuf, TAPDP_FDS_SPACE(n) bytes. */
static inline void
tapdp_pass_fds(struct msghdr *mh, void *cbuf, const int *fds, int n)
{
	struct cmsghdr *c;

	mh->msg_control = cbuf;
	mh->msg_controllen = TAPDP_FDS_SPACE(n);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
}

#endif
