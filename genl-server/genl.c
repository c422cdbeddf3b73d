/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/genl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/nlerr.h"
#include "genl-server/ctl-lock.h"
#include "genl-server/nlsock.h"

#define MAX_FAMILIES 16
/* What the kernel puts in a first dump part (SKB_WITH_OVERHEAD of a page). */
#define GENL_DUMP_MIN 3776

static const struct genl_family *families[MAX_FAMILIES];
static unsigned n_families;

void
genl_register(const struct genl_family *family)
{
	if (n_families < MAX_FAMILIES)
		families[n_families++] = family;
}

void
genl_unregister_all(void)
{
	n_families = 0;
}

const struct genl_family *
genl_family_by_id(uint16_t id)
{
	for (unsigned i = 0; i < n_families; i++)
		if (families[i]->id == id)
			return families[i];
	return NULL;
}

int
genl_join_check(const struct nlsock *sk, uint32_t group)
{
	for (unsigned i = 0; i < n_families; i++) {
		const struct genl_family *f = families[i];

		for (unsigned g = 0; g < f->n_mcgrps; g++)
			if (f->mcgrps[g].id == group &&
			    (f->mcgrps[g].flags & GENL_MCAST_CAP_NET_ADMIN) &&
			    !nlsock_net_admin(sk))
				return -EPERM;
	}
	return 0;
}

const struct genl_family *
genl_family_by_name(const char *name)
{
	for (unsigned i = 0; i < n_families; i++)
		if (!strcmp(families[i]->name, name))
			return families[i];
	return NULL;
}

const struct genl_family *
genl_family_at(unsigned i)
{
	return i < n_families ? families[i] : NULL;
}

void *
genl_msg_start(struct msgbuf *mb, const struct genl_family *family,
	       uint32_t portid, uint32_t seq, uint16_t flags, uint8_t cmd)
{
	struct genlmsghdr *gh;

	gh = msgbuf_start(mb, family->id, flags, seq, portid,
			  GENL_HDRLEN + family->hdrsize);
	if (!gh)
		return NULL;
	gh->cmd = cmd;
	gh->version = family->version;
	return (char *)gh + GENL_HDRLEN;
}

int
genl_reply(const struct genl_info *info, const struct msgbuf *mb)
{
	return nlsock_unicast(info->sk, mb->buf, mb->len);
}

void
genl_notify(const struct genl_info *info, uint32_t group,
	    const struct msgbuf *mb)
{
	bool echo = info->nlh->nlmsg_flags & NLM_F_ECHO;
	uint32_t portid = nlsock_portid(info->sk);

	nlsock_multicast(NETLINK_GENERIC, nlsock_net(info->sk), group, mb->buf,
			 mb->len, echo ? portid : 0);
	if (echo)
		nlsock_unicast(info->sk, mb->buf, mb->len);
}

void
genl_multicast(const void *net, uint32_t group, const struct msgbuf *mb)
{
	nlsock_multicast(NETLINK_GENERIC, net, group, mb->buf, mb->len, 0);
}

/* The ext-ACK TLVs the kernel appends: the message, and on error the
 * offset of the offending attribute. */
static void
put_ack_tlvs(struct msgbuf *mb, const struct nlmsghdr *req, int err,
	     const struct extack *ack)
{
	if (ack->msg)
		msgbuf_put_string(mb, NLMSGERR_ATTR_MSG, ack->msg);
	if (err && ack->bad_attr) {
		const char *a = (const char *)ack->bad_attr;
		const char *start = (const char *)req;

		if (a >= start && a < start + req->nlmsg_len)
			msgbuf_put_u32(mb, NLMSGERR_ATTR_OFFS, a - start);
	}
}

static bool
want_tlvs(const struct nlsock *sk, int err, const struct extack *ack)
{
	return nlsock_ext_ack(sk) && (ack->msg || (err && ack->bad_attr));
}

static void
send_ack(struct nlsock *sk, const struct nlmsghdr *nlh, int err,
	 const struct extack *ack)
{
	size_t payload = 0, cap;
	uint16_t flags = 0;
	struct nlmsgerr *e;
	char small[2048];
	struct msgbuf mb;
	char *mem;

	if (err && !nlsock_cap_ack(sk))
		payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	else
		flags |= NLM_F_CAPPED;
	if (want_tlvs(sk, err, ack))
		flags |= NLM_F_ACK_TLVS;
	cap = NLMSG_SPACE(sizeof(*e) + payload) + 1024;
	/* An ack echoing no request needs no allocation: the answer to a
	 * change made is never lost for want of memory. */
	mem = cap <= sizeof(small) ? small : malloc(cap);
	if (!mem) {
		/* As the kernel: the client's next read fails. */
		nlsock_report_enobufs(sk);
		return;
	}
	msgbuf_init(&mb, mem, cap);
	e = msgbuf_start(&mb, NLMSG_ERROR, flags, nlh->nlmsg_seq,
			 nlsock_portid(sk), sizeof(*e) + payload);
	e->error = err;
	e->msg = *nlh;
	memcpy(e + 1, NLMSG_DATA(nlh), payload);
	if (flags & NLM_F_ACK_TLVS)
		put_ack_tlvs(&mb, nlh, err, ack);
	/* The request itself is echoed, so the ack may be longer than a
	 * normal reply; it always fits in what we allocated. */
	msgbuf_end(&mb);
	nlsock_unicast(sk, mb.buf, mb.len);
	if (mem != small)
		free(mem);
}

/* Commands past resv_start_op get the kernel's stricter header checks. */
static int
header_check(const struct genl_family *family, const struct nlmsghdr *nlh,
	     const struct genlmsghdr *gh, struct extack *ack)
{
	uint16_t flags = nlh->nlmsg_flags;

	if (gh->cmd < family->resv_start_op)
		return 0;
	if (gh->reserved) {
		ack->msg = "genlmsghdr.reserved field is not 0";
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		ack->msg = "ambiguous or reserved bits set in nlmsg_flags";
		return -EINVAL;
	}
	return 0;
}

static const struct genl_ops_entry *
find_op(const struct genl_family *family, uint8_t cmd)
{
	for (unsigned i = 0; i < family->n_ops; i++)
		if (family->ops[i].cmd == cmd)
			return &family->ops[i];
	return NULL;
}

static void
dump_free(void *p)
{
	struct genl_dump *d = p;

	if (d->op->done)
		d->op->done(d);
	free(d->nlh);
	free(d);
}

static int
dump_begin(struct nlsock *sk, const struct genl_family *family,
	   const struct genl_ops_entry *op, const struct nlmsghdr *nlh,
	   void *data, struct extack *ack)
{
	struct genl_dump *d;
	int err;

	if (nlsock_dump(sk))
		return -EBUSY;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->nlh = malloc(nlh->nlmsg_len);
	if (!d->nlh) {
		free(d);
		return -ENOMEM;
	}
	memcpy(d->nlh, nlh, nlh->nlmsg_len);
	d->family = family;
	d->op = op;
	d->sk = sk;
	d->data = data;
	d->done_errno = INT_MAX;
	if (op->start && (err = op->start(d, ack)) != 0) {
		free(d->nlh);
		free(d);
		return err;
	}
	nlsock_set_dump(sk, d, dump_free, nlh->nlmsg_seq);
	genl_dump_next(sk);
	return GENL_ANSWERED;
}

int
genl_dump_start(struct nlsock *sk, const struct genl_family *family,
		const struct genl_ops_entry *op, const struct nlmsghdr *nlh,
		void *data)
{
	struct extack ack = { 0 };

	return dump_begin(sk, family, op, nlh, data, &ack);
}

static int
rcv_msg(struct nlsock *sk, const struct nlmsghdr *nlh, struct extack *ack)
{
	const struct genl_family *family = genl_family_by_id(nlh->nlmsg_type);
	/* Zeroed whole: a family may read attributes past the maxattr it
	 * serves, which are absent. */
	const struct nlattr *attrs[256] = { 0 };
	const struct genl_ops_entry *op;
	const struct genlmsghdr *gh;
	struct genl_info info;
	size_t hdrlen;
	bool dump;
	int err;

	if (!family)
		return -ENOENT;
	hdrlen = GENL_HDRLEN + family->hdrsize;
	if (nlh->nlmsg_len < NLMSG_LENGTH(hdrlen))
		return -EINVAL;
	gh = NLMSG_DATA(nlh);
	if (header_check(family, nlh, gh, ack))
		return -EINVAL;
	dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	op = find_op(family, gh->cmd);
	if (!op || (dump ? !op->dumpit : !op->doit))
		return -EOPNOTSUPP;
	if ((op->flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM)) &&
	    !nlsock_net_admin(sk))
		return -EPERM;
	if (dump) {
		ctl_lock();
		err = dump_begin(sk, family, op, nlh, NULL, ack);
		ctl_unlock();
		return err;
	}

	if (family->maxattr) {
		size_t off = NLMSG_ALIGN(hdrlen);
		size_t len = nlh->nlmsg_len - NLMSG_HDRLEN;

		err = attr_parse((const char *)gh + off,
				 len > off ? len - off : 0, family->policy,
				 family->maxattr, attrs, ack);
		if (err)
			return err;
	}
	nlerr_clear();
	info = (struct genl_info) {
		.sk = sk,
		.nlh = nlh,
		.genlhdr = gh,
		.userhdr = (char *)gh + GENL_HDRLEN,
		.attrs = family->maxattr ? attrs : NULL,
		.family = family,
		.ack = ack,
	};
	if (op->unlocked) {
		err = op->doit(&info);
	} else {
		ctl_lock();
		err = op->doit(&info);
		ctl_unlock();
	}
	/* The datapath's validation words travel in the extended ACK too. */
	if (err < 0 && !ack->msg)
		ack->msg = nlerr_last();
	return err;
}

void
genl_rcv(struct nlsock *sk, const void *buf, size_t len)
{
	netlink_rcv(sk, buf, len, rcv_msg);
}

void
netlink_rcv(struct nlsock *sk, const void *buf, size_t len,
	    int (*handle)(struct nlsock *, const struct nlmsghdr *,
			  struct extack *))
{
	for (size_t off = 0, step; (step = nlmsg_span(buf, len, off));
	     off += step) {
		const struct nlmsghdr *nlh =
			(const void *)((const char *)buf + off);
		struct extack ack = { 0 };
		int err = 0;

		if ((nlh->nlmsg_flags & NLM_F_REQUEST) &&
		    nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			err = handle(sk, nlh, &ack);
		if (err != GENL_ANSWERED &&
		    ((nlh->nlmsg_flags & NLM_F_ACK) || err))
			send_ack(sk, nlh, err, &ack);
	}
}

static int
put_done(struct msgbuf *mb, struct genl_dump *d, const struct extack *ack)
{
	bool tlvs = want_tlvs(d->sk, d->done_errno, ack);
	int *payload;

	payload = msgbuf_start(mb, NLMSG_DONE,
			       NLM_F_MULTI | (tlvs ? NLM_F_ACK_TLVS : 0),
			       d->nlh->nlmsg_seq, nlsock_portid(d->sk),
			       sizeof(int));
	if (!payload)
		return -EMSGSIZE;
	*payload = d->done_errno;
	if (tlvs)
		put_ack_tlvs(mb, d->nlh, d->done_errno, ack);
	return msgbuf_end(mb);
}

bool
genl_dump_next(struct nlsock *sk)
{
	struct genl_dump *d = nlsock_dump(sk);
	size_t cap = nlsock_recv_hint(sk);
	struct extack ack = { 0 };
	struct msgbuf mb;
	char *mem;
	int ret;

	if (!d)
		return false;
	/* A full receive buffer pauses the dump until the client reads. */
	if (nlsock_queued(sk) >= nlsock_rcvbuf(sk))
		return true;
	if (cap < GENL_DUMP_MIN)
		cap = GENL_DUMP_MIN;
	if (cap > GENL_DUMP_PART)
		cap = GENL_DUMP_PART;
	mem = malloc(cap);
	if (!mem) {
		/* Nothing would ask for the part again: the dump ends as one
		 * whose dumpit found no memory. */
		char done[NLMSG_SPACE(sizeof(int))];

		d->done_errno = -ENOMEM;
		msgbuf_init(&mb, done, sizeof(done));
		put_done(&mb, d, &ack);
		nlsock_unicast(sk, mb.buf, mb.len);
		nlsock_set_dump(sk, NULL, NULL, 0);
		return false;
	}
	msgbuf_init(&mb, mem, cap);
	ret = d->op->dumpit(d, &mb);
	if (ret == -EMSGSIZE && mb.len)
		ret = mb.len;
	if (d->done_sent) {
		free(mem);
		nlsock_set_dump(sk, NULL, NULL, 0);
		return false;
	}
	if (ret > 0) {
		nlsock_unicast(sk, mb.buf, mb.len);
		free(mem);
		return true;
	}
	/* The end: NLMSG_DONE after what the last call put, in the same
	 * datagram when it fits, as the kernel does. */
	d->done_errno = ret;
	if (put_done(&mb, d, &ack)) {
		nlsock_unicast(sk, mb.buf, mb.len);
		msgbuf_init(&mb, mem, cap);
		put_done(&mb, d, &ack);
	}
	nlsock_unicast(sk, mb.buf, mb.len);
	free(mem);
	nlsock_set_dump(sk, NULL, NULL, 0);
	return false;
}

bool
genl_dump_running(const struct nlsock *sk)
{
	return nlsock_dump(sk) != NULL;
}
