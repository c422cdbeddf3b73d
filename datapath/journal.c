/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "datapath/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "datapath/datapath.h"
#include "datapath/family-ids.h"
#include "datapath/flow-stats.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"

#define JOURNAL_MAGIC	0x4c4e524a50445054ull	/* "TPDPJRNL" */
#define JOURNAL_VERSION	1
#define PAGE		4096u
/* Records start after the header page. */
#define HDR_SIZE	PAGE
/* The file grows by this much at least. */
#define CHUNK		(1u << 20)
/* Address space kept for the mapping: the file grows inside it. Another
 * namespace's context gets less: a user may make a thousand namespaces
 * (each with its admin a client), and 64 GiB each would take the
 * daemon's address space. 4 GiB still holds millions of flows. */
#define RESERVE		(64ull << 30)
#define RESERVE_ELSEWHERE	(4ull << 30)

struct journal_slot {
	uint64_t start, used;
};

struct journal_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t live;			/* 0 or 1: the slot in use */
	struct journal_slot slot[2];
};

struct journal {
	pthread_mutex_t lock;		/* recursive: see journal_compact */
	int fd;
	char *base;
	size_t reserve;			/* RESERVE or RESERVE_ELSEWHERE */
	size_t map_len;
	uint64_t size;			/* the file's */
	struct journal_hdr *hdr;
	uint64_t compacted;		/* bytes of records after the last */
	bool replaying;
	/* While compacting, appends go to [.., wpos) from here, outside
	 * the live region. */
	bool compacting;
	bool overflow;			/* a compaction's append failed */
	uint64_t wpos;
};

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static struct journal_slot *
live_slot(const struct journal *j)
{
	return &j->hdr->slot[__atomic_load_n(&j->hdr->live, __ATOMIC_ACQUIRE)];
}

/* Makes the file at least end bytes long. */
static int
ensure(struct journal *j, uint64_t end)
{
	uint64_t size;

	if (end <= j->size)
		return 0;
	if (end > j->map_len)
		return -EFBIG;
	size = align_up(end, CHUNK);
	if (size > j->map_len)
		size = j->map_len;
	if (ftruncate(j->fd, size))
		return -errno;
	/* Map the new chunk's pages in one call: appended to a record at a
	 * time, each of its 256 pages would fault on the control thread
	 * (a tenth of its time setting up flows). A kernel before 5.14
	 * says EINVAL, and the pages then fault in as written. */
	madvise(j->base + j->size / PAGE * PAGE, size - j->size / PAGE * PAGE,
		MADV_POPULATE_WRITE);
	j->size = size;
	return 0;
}

/* The bytes a record takes, in 64 bits: NLMSG_ALIGN of a length near
 * 2^32 wraps to 0. */
static uint64_t
rec_size(const struct nlmsghdr *nlh)
{
	return ((uint64_t)nlh->nlmsg_len + NLMSG_ALIGNTO - 1) &
	       ~(uint64_t)(NLMSG_ALIGNTO - 1);
}

/* Whether [start, used) holds whole records only. */
static bool
records_valid(const struct journal *j, uint64_t start, uint64_t used,
	      unsigned *count)
{
	uint64_t off = start;

	*count = 0;
	while (off < used) {
		const struct nlmsghdr *nlh = (const void *)(j->base + off);

		if (used - off < NLMSG_HDRLEN ||
		    nlh->nlmsg_len < NLMSG_HDRLEN ||
		    rec_size(nlh) > used - off)
			return false;
		off += rec_size(nlh);
		++*count;
	}
	return true;
}

static int
map(struct journal *j, int fd, uint64_t size)
{
	size_t len = size > j->reserve ? size : j->reserve;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_NORESERVE, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	j->base = p;
	j->map_len = len;
	j->hdr = p;
	j->size = size;
	j->fd = fd;
	return 0;
}

static void
unmap(struct journal *j)
{
	munmap(j->base, j->map_len);
	j->base = NULL;
	j->hdr = NULL;
	j->fd = -1;
}

static int
open_new(struct journal *j)
{
	int fd = memfd_create("tapdp-journal", MFD_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, CHUNK)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = map(j, fd, CHUNK);
	if (err) {
		close(fd);
		return err;
	}
	j->hdr->magic = JOURNAL_MAGIC;
	j->hdr->version = JOURNAL_VERSION;
	j->hdr->slot[0].start = j->hdr->slot[0].used = HDR_SIZE;
	j->compacted = 0;
	return 0;
}

static int
adopt(struct journal *j, int fd)
{
	const struct journal_slot *s;
	unsigned count;
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < HDR_SIZE) {
		log_err("journal: %lld bytes, too short for a journal",
			(long long)st.st_size);
		return -EINVAL;
	}
	err = map(j, fd, st.st_size);
	if (err)
		return err;
	s = &j->hdr->slot[j->hdr->live & 1];
	if (j->hdr->magic != JOURNAL_MAGIC ||
	    j->hdr->version != JOURNAL_VERSION || j->hdr->live > 1) {
		log_err("journal: not a journal of version %d",
			JOURNAL_VERSION);
		err = -EINVAL;
	} else if (s->start < HDR_SIZE || s->start > s->used ||
		   s->used > j->size || s->start % NLMSG_ALIGNTO) {
		log_err("journal: records at [%llu, %llu) outside the file's "
			"%llu bytes", (unsigned long long)s->start,
			(unsigned long long)s->used,
			(unsigned long long)j->size);
		err = -EINVAL;
	} else if (!records_valid(j, s->start, s->used, &count)) {
		log_err("journal: a record overruns the journal");
		err = -EINVAL;
	}
	if (err) {
		unmap(j);
		return err;
	}
	j->compacted = s->used - s->start;
	log_info("journal: adopted, %u records, %llu bytes", count,
		 (unsigned long long)j->compacted);
	return 0;
}

/* The net's journal, NULL when it has none. */
static struct journal *
net_journal(const struct dp_net *net)
{
	return net ? dp_net_journal(net) : NULL;
}

static void
journal_free(struct journal *j)
{
	int fd = j->fd;

	unmap(j);
	close(fd);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

int
journal_open(struct dp_net *net, int fd)
{
	pthread_mutexattr_t attr;
	struct journal *j;
	int err;

	if (net_journal(net))
		return -EBUSY;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->fd = -1;
	j->reserve = dp_net_elsewhere(net) ? RESERVE_ELSEWHERE : RESERVE;
	err = fd < 0 ? open_new(j) : adopt(j, fd);
	if (err) {
		free(j);
		return err;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&j->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	dp_net_set_journal(net, j, journal_free);
	/* Its records name flows' counter slots: none is given out again
	 * while a record may name it. */
	flow_stats_set_kept(dp_net_flow_stats(net), true);
	return 0;
}

unsigned
journal_keep_fds(const struct dp_net *net, int fds[2])
{
	fds[0] = journal_fd(net);
	fds[1] = flow_stats_fd(dp_net_flow_stats(net));
	return fds[0] < 0 ? 0 : 2;
}

int
journal_open_kept(struct dp_net *net, const int *fds, unsigned n,
		  bool *renewed)
{
	int err = journal_open(net, fds[0]);

	*renewed = true;
	if (n > 1) {
		if (!err && !dp_net_take_flow_stats(net, fds[1])) {
			flow_stats_set_kept(dp_net_flow_stats(net), true);
			*renewed = false;
		} else {
			close(fds[1]);
		}
	}
	if (*renewed && !err)
		log_warn("journal: no flow counters kept with it: the flows "
			 "count again from zero");
	return err;
}

int
journal_fd(const struct dp_net *net)
{
	const struct journal *j = net_journal(net);

	return j ? j->fd : -1;
}

void
journal_close(struct dp_net *net)
{
	struct journal *j = net_journal(net);

	if (!j)
		return;
	dp_net_set_journal(net, NULL, NULL);
	journal_free(j);
	flow_stats_set_kept(dp_net_flow_stats(net), false);
}

static bool
active(const struct journal *j)
{
	return j && !j->replaying;
}

bool
journal_replaying(const struct dp_net *net)
{
	const struct journal *j = net_journal(net);

	return j && j->replaying;
}

bool
journal_keeps(const struct dp_net *net)
{
	return active(net_journal(net));
}

void
journal_append(const struct dp_net *net, const struct msgbuf *mb)
{
	struct journal *j = net_journal(net);
	struct journal_slot *s;
	uint64_t pos;
	int err;

	if (!active(j) || !mb->len)
		return;
	pthread_mutex_lock(&j->lock);
	s = live_slot(j);
	pos = j->compacting ? j->wpos : s->used;
	err = ensure(j, pos + mb->len);
	if (err) {
		if (j->compacting)
			j->overflow = true;
		else
			log_err("journal: cannot grow past %llu bytes: %s; a "
				"change is not kept",
				(unsigned long long)j->size, strerror(-err));
		pthread_mutex_unlock(&j->lock);
		return;
	}
	/* msgbuf messages are NLMSG_ALIGNed already. */
	memcpy(j->base + pos, mb->buf, mb->len);
	if (j->compacting)
		j->wpos = pos + mb->len;
	else
		__atomic_store_n(&s->used, pos + mb->len, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&j->lock);
}

/* The families' state and replay handlers (journal_set_ops). */
static const struct journal_ops *ops;

void
journal_set_ops(const struct journal_ops *o)
{
	ops = o;
}

/* The record being written (control thread), and whose. */
static char rec_mem[GENL_MSG_MAX];

static struct msgbuf rec_mb;
static const struct dp_net *rec_net;

struct msgbuf *
journal_record_start(const struct dp_net *net,
		     const struct genl_family *family, uint8_t cmd,
		     int dp_ifindex)
{
	struct ovs_header *hdr;

	if (!journal_keeps(net))
		return NULL;
	msgbuf_init(&rec_mb, rec_mem, sizeof(rec_mem));
	rec_net = net;
	hdr = genl_msg_start(&rec_mb, family, 0, 0,
			     NLM_F_REQUEST | NLM_F_ACK, cmd);
	hdr->dp_ifindex = dp_ifindex;
	return &rec_mb;
}

void
journal_record_end(struct msgbuf *mb)
{
	const struct nlmsghdr *nlh = mb->cur;

	if (msgbuf_end(mb))
		log_err("journal: a record of family %u does not fit: a "
			"change is not kept", nlh->nlmsg_type);
	else
		journal_append(rec_net, mb);
}

size_t
journal_used(const struct dp_net *net)
{
	const struct journal *j = net_journal(net);
	const struct journal_slot *s;

	if (!j)
		return 0;
	s = live_slot(j);
	return s->used - s->start;
}

unsigned
journal_records(const struct dp_net *net)
{
	const struct journal *j = net_journal(net);
	const struct journal_slot *s;
	unsigned count;

	if (!j)
		return 0;
	s = live_slot(j);
	records_valid(j, s->start, s->used, &count);
	return count;
}

/* Makes [start, used) the live region, with one store. */
static void
publish(struct journal *j, uint64_t start, uint64_t used)
{
	uint32_t other = !j->hdr->live;

	j->hdr->slot[other].start = start;
	j->hdr->slot[other].used = used;
	__atomic_store_n(&j->hdr->live, other, __ATOMIC_RELEASE);
}

/* Gives back the pages outside the live region. */
static void
trim(struct journal *j)
{
	const struct journal_slot *s = live_slot(j);
	uint64_t below = s->start / PAGE * PAGE;
	uint64_t size = align_up(s->used, CHUNK);

	if (below > HDR_SIZE &&
	    fallocate(j->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      HDR_SIZE, below - HDR_SIZE))
		log_warn("journal: cannot free %llu bytes: %s",
			 (unsigned long long)(below - HDR_SIZE),
			 strerror(errno));
	if (size < j->size && !ftruncate(j->fd, size))
		j->size = size;
}

int
journal_compact(struct dp_net *net)
{
	struct journal *j = net_journal(net);
	uint64_t start, n;
	int err = 0;

	if (!active(j))
		return -EBADF;
	/* The families append the records of the state through
	 * journal_append, on this thread, while the lock is held. */
	pthread_mutex_lock(&j->lock);
	start = align_up(live_slot(j)->used, PAGE);
	j->compacting = true;
	j->overflow = false;
	j->wpos = start;
	ops->state(net);
	j->compacting = false;
	n = j->wpos - start;
	if (j->overflow) {
		log_err("journal: cannot compact: no room for %llu bytes",
			(unsigned long long)n);
		err = -EFBIG;
		goto out;
	}
	publish(j, start, start + n);
	/* Back in front when it fits there: offsets stay low. */
	if (HDR_SIZE + n <= start) {
		memcpy(j->base + HDR_SIZE, j->base + start, n);
		publish(j, HDR_SIZE, HDR_SIZE + n);
	}
	trim(j);
	j->compacted = n;
	/* No record names a slot given back before now. */
	flow_stats_recycle(dp_net_flow_stats(net));
	log_info("journal: compacted to %llu bytes", (unsigned long long)n);
out:
	pthread_mutex_unlock(&j->lock);
	return err;
}

void
journal_maybe_compact(struct dp_net *net)
{
	const struct journal *j = net_journal(net);

	if (active(j) && journal_used(net) > 2 * j->compacted + CHUNK)
		journal_compact(net);
}

/* Datapath indexes of the journal's records and of the replayed
 * datapaths, which may differ (new devices). An index no datapath NEW of
 * the journal made, or whose NEW failed, maps to 0, which no datapath
 * has: its records fail rather than reach a datapath that took its index
 * since. */
struct ifindex_map {
	struct {
		int from, to;
	} *e;
	unsigned n;
};

static int
map_get(const struct ifindex_map *m, int from)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->e[i].from == from)
			return m->e[i].to;
	return 0;
}

static void
map_set(struct ifindex_map *m, int from, int to)
{
	void *e;

	for (unsigned i = 0; i < m->n; i++)
		if (m->e[i].from == from) {
			m->e[i].to = to;
			return;
		}
	e = realloc(m->e, (m->n + 1) * sizeof(*m->e));
	if (!e)
		return;
	m->e = e;
	m->e[m->n].from = from;
	m->e[m->n++].to = to;
}

static bool
is_ovs_family(uint16_t type)
{
	return type >= FAMILY_ID_DATAPATH && type <= FAMILY_ID_CT_LIMIT;
}

/* The header of an OVS family's record, NULL for another record. */
static struct ovs_header *
ovs_hdr(struct nlmsghdr *nlh)
{
	if (!is_ovs_family(nlh->nlmsg_type) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN +
					  sizeof(struct ovs_header)))
		return NULL;
	return (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

/* After a datapath NEW record: where its datapath is now, if it worked. */
static void
note_datapath(struct dp_net *net, struct nlmsghdr *nlh, int from,
	      bool failed, struct ifindex_map *m)
{
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);
	size_t off = NLMSG_LENGTH(GENL_HDRLEN + sizeof(struct ovs_header));
	struct datapath *dp = NULL;
	const struct nlattr *a;
	int rem;

	if (nlh->nlmsg_type != FAMILY_ID_DATAPATH || gh->cmd != OVS_DP_CMD_NEW)
		return;
	attr_for_each(a, (char *)nlh + off, nlh->nlmsg_len - off, rem)
		if (!failed && attr_type(a) == OVS_DP_ATTR_NAME &&
		    attr_len(a) > 0 && memchr(attr_data(a), 0, attr_len(a)))
			dp = dp_by_name(net, attr_data(a));
	map_set(m, from, dp ? dp_ifindex(dp) : 0);
}

/* Failures logged one by one, of a replay; the rest are counted. */
#define LOGGED_FAILURES	20

/* Reads the answers to record i from the socket's other end: whether one
 * was an error (logged while fewer than LOGGED_FAILURES were). */
static bool
read_answers(int fd, unsigned i, const struct nlmsghdr *req, int before)
{
	static char buf[GENL_MSG_MAX];
	const struct genlmsghdr *gh = NLMSG_DATA(req);
	bool failed = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		const struct nlmsghdr *nlh = (const void *)buf;
		size_t len = n;

		for (; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			const struct nlmsgerr *e = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) ||
			    !e->error)
				continue;
			failed = true;
			if (before >= LOGGED_FAILURES)
				continue;
			log_warn("journal: record %u (family %u, command %u) "
				 "failed: %s", i, req->nlmsg_type,
				 req->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)
					 ? gh->cmd : 0,
				 strerror(-e->error));
		}
	}
	return failed;
}

/* The sockets replay speaks on, as an admin client of net: generic
 * netlink for the OVS families, netfilter for cttimeout and ctnetlink,
 * route for the tunnel devices made over rtnetlink. */
enum { R_GENL, R_NETFILTER, R_ROUTE, R_N };
struct restore {
	struct nlsock *sk;
	int peer;			/* the client's end */
};

static int
restore_open(struct restore *r, struct dp_net *net, int protocol)
{
	struct nlsock_creds creds = { .pid = getpid(), .net_admin = true };
	struct tapdp_shared *shared;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	r->sk = shared == MAP_FAILED ? NULL
		: nlsock_new(sv[1], shared, &creds, protocol, net);
	if (!r->sk) {
		if (shared != MAP_FAILED)
			munmap(shared, sizeof(*shared));
		close(sv[1]);
	}
	/* The socket took sv[1] and shared. */
	if (!r->sk || nlsock_autobind(r->sk)) {
		nlsock_free(r->sk);
		close(sv[0]);
		return -ENOMEM;
	}
	r->peer = sv[0];
	return 0;
}

static void
restore_close(struct restore *r)
{
	nlsock_free(r->sk);
	close(r->peer);
}

/* One record, copied out of the journal (its datapath index rewritten). */
static bool
replay_one(struct restore r[R_N], struct dp_net *net, unsigned i,
	   const struct nlmsghdr *rec, struct ifindex_map *m, int before)
{
	static char buf[1 << 16];
	struct nlmsghdr *nlh = (void *)buf;
	struct ovs_header *hdr;
	int from = 0, on;
	bool failed;

	if (rec->nlmsg_len > sizeof(buf)) {
		log_warn("journal: record %u of %u bytes is too long", i,
			 rec->nlmsg_len);
		return true;
	}
	memcpy(buf, rec, rec->nlmsg_len);
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	hdr = ovs_hdr(nlh);
	if (hdr) {
		from = hdr->dp_ifindex;
		hdr->dp_ifindex = map_get(m, from);
	}
	/* Connections and timeout policies are netfilter's, tunnel
	 * devices rtnetlink's; the rest generic netlink's (whose family
	 * ids are none of these). */
	if (nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK)
		on = R_ROUTE;
	else if (NFNL_SUBSYS_ID(nlh->nlmsg_type) == NFNL_SUBSYS_CTNETLINK ||
		 NFNL_SUBSYS_ID(nlh->nlmsg_type) ==
			 NFNL_SUBSYS_CTNETLINK_TIMEOUT)
		on = R_NETFILTER;
	else
		on = R_GENL;
	if (on == R_ROUTE)
		ops->route(r[on].sk, buf, nlh->nlmsg_len);
	else if (on == R_NETFILTER)
		ops->netfilter(r[on].sk, buf, nlh->nlmsg_len);
	else
		ops->generic(r[on].sk, buf, nlh->nlmsg_len);
	failed = read_answers(r[on].peer, i, nlh, before);
	if (hdr)
		note_datapath(net, nlh, from, failed, m);
	return failed;
}

int
journal_replay(struct dp_net *net)
{
	static const int protocol[R_N] = { NETLINK_GENERIC, NETLINK_NETFILTER,
					   NETLINK_ROUTE };
	struct journal *j = net_journal(net);
	struct ifindex_map m = { 0 };
	struct restore r[R_N];
	uint64_t off, used;
	unsigned i = 0, n;
	int failed = 0, err = 0;

	if (!j)
		return -EBADF;
	for (n = 0; n < R_N && !err; n++)
		err = restore_open(&r[n], net, protocol[n]);
	if (err) {
		/* r[n - 1] failed to open. */
		for (unsigned k = 0; k + 1 < n; k++)
			restore_close(&r[k]);
		return err;
	}
	j->replaying = true;
	off = live_slot(j)->start;
	used = live_slot(j)->used;
	while (off < used) {
		const struct nlmsghdr *rec = (const void *)(j->base + off);

		failed += replay_one(r, net, i++, rec, &m, failed);
		off += rec_size(rec);
	}
	j->replaying = false;
	flow_stats_claims_done(dp_net_flow_stats(net));
	for (n = 0; n < R_N; n++)
		restore_close(&r[n]);
	free(m.e);
	if (failed > LOGGED_FAILURES)
		log_warn("journal: %d more records failed",
			 failed - LOGGED_FAILURES);
	log_info("journal: replayed %u records, %d failed", i, failed);
	if (failed)
		journal_compact(net);
	return failed;
}
