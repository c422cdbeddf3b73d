/* SPDX-License-Identifier: Apache-2.0 */
/* Generic netlink in the daemon: the family registry and the processing of
 * a client's datagram, as the kernel's af_netlink + genetlink do it.
 *
 * A family is a static table: name, fixed id, version, header size,
 * attribute policy and an op table {cmd, flags, doit, dumpit}, plus its
 * multicast groups. genl_rcv() walks the messages of one datagram in order,
 * checks headers, permissions and attributes, runs the op and queues the
 * reply, the ACK or the error (with extended ACK) to the sender. Dumps keep
 * their continuation in struct genl_dump, stored on the socket; the next part
 * is produced when the client has read the previous one (genl_dump_next).
 *
 * Threads: genl_rcv() takes the control lock (ctl-lock.h) around each
 * op's doit and dump start, but the doit of an op marked unlocked; the
 * rest runs under the control lock. */
#ifndef TAPDP_GENL_H
#define TAPDP_GENL_H

#include <linux/genetlink.h>
#include <stdbool.h>
#include <stdint.h>

#include "genl-server/attr.h"
#include "genl-server/msg.h"

struct nlsock;
struct genl_family;

/* Room for any single reply; a dump part is at most GENL_DUMP_PART. */
#define GENL_MSG_MAX	(64 << 10)
#define GENL_DUMP_PART	(32 << 10)

/* Returned by a doit that has queued its whole answer, ACK included (a
 * request relayed to the kernel): genl adds no ACK. */
#define GENL_ANSWERED	1

struct genl_info {
	struct nlsock *sk;
	const struct nlmsghdr *nlh;
	const struct genlmsghdr *genlhdr;
	void *userhdr;
	const struct nlattr **attrs;
	const struct genl_family *family;
	struct extack *ack;
};

struct genl_dump {
	const struct genl_family *family;
	const struct genl_ops_entry *op;
	struct nlmsghdr *nlh;		/* copy of the request */
	struct nlsock *sk;
	long args[4];			/* the dumpit's continuation */
	void *data;			/* given at the start (may be NULL) */
	int done_errno;			/* > 0 while running */
	bool done_sent;			/* the dumpit sent NLMSG_DONE itself */
};

struct genl_ops_entry {
	uint8_t cmd;
	uint8_t flags;		/* GENL_ADMIN_PERM, GENL_UNS_ADMIN_PERM */
	/* doit runs without the control lock (genl-server/ctl-lock.h), on
	 * state it reaches under RCU, so that clients' requests of it go
	 * on in parallel (the kernel's parallel_ops families that take no
	 * ovs_lock for it). */
	bool unlocked;
	int (*doit)(struct genl_info *info);
	/* Appends messages to mb; returns mb->len (0: finished) or -errno. */
	int (*dumpit)(struct genl_dump *dump, struct msgbuf *mb);
	/* Releases the dump's continuation state (may be NULL). */
	void (*done)(struct genl_dump *dump);
	/* Checks a dump request before its first part, as the kernel's
	 * .start (may be NULL): a negative errno answers the request with
	 * that error, GENL_ANSWERED says start queued the whole answer
	 * itself; either way no dump runs (done is not called). */
	int (*start)(struct genl_dump *dump, struct extack *ack);
	/* The policy a dump request is described by (GETPOLICY) and start
	 * parses it with; NULL: dump requests are not validated, as the
	 * kernel's GENL_DONT_VALIDATE_DUMP. Requests to doit are checked
	 * against the family's policy. */
	const struct attr_policy *dump_policy;
	uint16_t dump_maxattr;
};

/* A group only sockets with CAP_NET_ADMIN may join (the kernel's flag of
 * the same name, which is not uapi). */
#define GENL_MCAST_CAP_NET_ADMIN	0x1

struct genl_mcgrp {
	const char *name;
	uint32_t id;
	uint8_t flags;		/* GENL_MCAST_CAP_NET_ADMIN */
};

struct genl_family {
	const char *name;
	uint16_t id;
	uint8_t version;
	uint16_t hdrsize;
	uint16_t maxattr;
	const struct attr_policy *policy;
	uint8_t resv_start_op;
	const struct genl_ops_entry *ops;
	unsigned n_ops;
	const struct genl_mcgrp *mcgrps;
	unsigned n_mcgrps;
};

void genl_register(const struct genl_family *family);
void genl_unregister_all(void);
/* nlctrl, the family that names the others (the server registers it). */
void nlctrl_register(void);
const struct genl_family *genl_family_by_id(uint16_t id);
const struct genl_family *genl_family_by_name(const char *name);
/* The i-th registered family, NULL past the end. */
const struct genl_family *genl_family_at(unsigned i);

/* Whether sk may join group, as genl_bind judges: -EPERM for a group
 * that asks for CAP_NET_ADMIN of a socket without it, else 0. */
int genl_join_check(const struct nlsock *sk, uint32_t group);

/* Processes one datagram from sk. */
void genl_rcv(struct nlsock *sk, const void *buf, size_t len);
/* The same message walk (ACKs, extended ACKs, errors) for the other
 * netlink protocols the daemon serves: handle answers one request with 0,
 * a negative errno, or GENL_ANSWERED. */
void netlink_rcv(struct nlsock *sk, const void *buf, size_t len,
		 int (*handle)(struct nlsock *, const struct nlmsghdr *,
			       struct extack *));
/* Starts the dump op->dumpit answers to nlh (family may be NULL outside
 * generic netlink), with data for the dumpit, which op->done releases;
 * returns GENL_ANSWERED, or -EBUSY/-ENOMEM (or op->start's error) with data
 * still the caller's. */
int genl_dump_start(struct nlsock *sk, const struct genl_family *family,
		    const struct genl_ops_entry *op,
		    const struct nlmsghdr *nlh, void *data);
/* Queues the next part of sk's dump; returns whether it is still running. */
bool genl_dump_next(struct nlsock *sk);
bool genl_dump_running(const struct nlsock *sk);

/* Opens a family message in mb; returns the family header (userhdr) or
 * NULL when it does not fit. */
void *genl_msg_start(struct msgbuf *mb, const struct genl_family *family,
		     uint32_t portid, uint32_t seq, uint16_t flags,
		     uint8_t cmd);
/* Sends mb's messages to the requester. */
int genl_reply(const struct genl_info *info, const struct msgbuf *mb);
/* A NEW/SET/DEL outcome: to the group (sender excluded when it asked for
 * an echo) and, with NLM_F_ECHO, to the sender. */
void genl_notify(const struct genl_info *info, uint32_t group,
		 const struct msgbuf *mb);
/* An event nobody asked for (port vanished...): to the group's members
 * in net only. */
void genl_multicast(const void *net, uint32_t group, const struct msgbuf *mb);

#endif
