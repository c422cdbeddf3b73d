/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "genl-server/nlsock.h"

#include <errno.h>
#include <limits.h>
#include <glib.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "include/tapdp/proto.h"
#include "genl-server/msg.h"

enum nlsock_flag {
	F_EXT_ACK = 1 << 0,
	F_CAP_ACK = 1 << 1,
	F_NO_ENOBUFS = 1 << 2,
	F_STRICT_CHK = 1 << 3,
	F_LISTEN_ALL_NSID = 1 << 4,
	F_PKTINFO = 1 << 5,
	F_BROADCAST_ERROR = 1 << 6,
};

/* Where a portid lives: each namespace has a portid space per protocol,
 * as the kernel's netlink_lookup(net, protocol, portid). */
struct reg_key {
	void *net;
	int protocol;
	uint32_t portid;
};

struct nlsock {
	int data_fd;
	struct tapdp_shared *shared;
	struct nlsock_creds creds;
	bool sender_admin;	/* nlsock_set_sender_admin()'s */
	struct reg_key at;	/* protocol, net; portid once bound */
	bool bound;
	unsigned flags;
	uint64_t groups;	/* the daemon's groups joined: see group_bit() */
	size_t rcvbuf;
	/* Atomic: bytes that may be queued before the queue must be read
	 * again (over_rcvbuf()); 0 or less: read it at the next delivery. */
	long room;
	size_t max_recv;
	void *dump;
	void (*dump_free)(void *);
	int kernel_fd;		/* the client's kernel socket, or -1 */
	uint32_t kernel_portid;
};

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static GHashTable *by_portid;	/* struct reg_key -> nlsock */
static GPtrArray *all_socks;
static size_t default_rcvbuf = 212992;
/* nlsock_set_tap's. */
static uint32_t tap_group;
static nlsock_tap_fn *tap_fn;
static void (*groups_fn)(void);

/* How many sockets are in each of the daemon's groups, by group_bit(), on
 * generic netlink [0] and netfilter [1] sockets: changed under the
 * registry's write lock, read without it. */
static uint32_t n_members[2][NLSOCK_MAX_GROUPS];

static uint32_t *
members(int protocol, int bit)
{
	return &n_members[protocol != NETLINK_GENERIC][bit];
}

static size_t
read_sysctl(const char *path, size_t dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%lu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static guint
reg_key_hash(gconstpointer p)
{
	const struct reg_key *k = p;

	return g_direct_hash(k->net) ^ (guint)k->protocol << 24 ^ k->portid;
}

static gboolean
reg_key_equal(gconstpointer a, gconstpointer b)
{
	const struct reg_key *x = a, *y = b;

	return x->net == y->net && x->protocol == y->protocol &&
	       x->portid == y->portid;
}

void
nlsock_registry_init(void)
{
	by_portid = g_hash_table_new(reg_key_hash, reg_key_equal);
	all_socks = g_ptr_array_new();
	default_rcvbuf = read_sysctl("/proc/sys/net/core/rmem_default",
				     default_rcvbuf);
}

void
nlsock_registry_destroy(void)
{
	while (all_socks && all_socks->len)
		nlsock_free(g_ptr_array_index(all_socks, 0));
	if (by_portid)
		g_hash_table_destroy(by_portid);
	if (all_socks)
		g_ptr_array_free(all_socks, TRUE);
	by_portid = NULL;
	all_socks = NULL;
}

/* The daemon's send buffer must hold whatever the client's receive buffer
 * may: the overrun decision is ours, not AF_UNIX's. */
static void
size_send_buffer(struct nlsock *sk)
{
	size_t want = sk->rcvbuf + (256 << 10);
	int v = want > INT_MAX ? INT_MAX : (int)want;

	if (setsockopt(sk->data_fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(sk->data_fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

struct nlsock *
nlsock_new(int data_fd, struct tapdp_shared *shared,
	   const struct nlsock_creds *creds, int protocol, void *net)
{
	struct nlsock *sk = calloc(1, sizeof(*sk));

	if (!sk)
		return NULL;
	sk->at = (struct reg_key) { .net = net, .protocol = protocol };
	sk->sender_admin = true;
	sk->data_fd = data_fd;
	sk->shared = shared;
	sk->creds = *creds;
	sk->rcvbuf = default_rcvbuf;
	sk->kernel_fd = -1;
	size_send_buffer(sk);
	pthread_rwlock_wrlock(&reg_lock);
	g_ptr_array_add(all_socks, sk);
	pthread_rwlock_unlock(&reg_lock);
	return sk;
}

void
nlsock_free(struct nlsock *sk)
{
	if (!sk)
		return;
	pthread_rwlock_wrlock(&reg_lock);
	if (sk->bound)
		g_hash_table_remove(by_portid, &sk->at);
	g_ptr_array_remove_fast(all_socks, sk);
	for (int bit = 0; bit < NLSOCK_MAX_GROUPS; bit++)
		if (sk->groups & 1ULL << bit)
			__atomic_fetch_sub(members(sk->at.protocol, bit), 1,
					   __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&reg_lock);
	if (sk->groups && groups_fn)
		groups_fn();
	if (sk->dump && sk->dump_free)
		sk->dump_free(sk->dump);
	if (sk->data_fd >= 0)
		close(sk->data_fd);
	if (sk->kernel_fd >= 0)
		close(sk->kernel_fd);
	if (sk->shared)
		munmap(sk->shared, sizeof(*sk->shared));
	free(sk);
}

static bool
portid_taken(const struct nlsock *sk, uint32_t portid)
{
	struct reg_key k = { sk->at.net, sk->at.protocol, portid };

	return g_hash_table_contains(by_portid, &k);
}

static void
insert_locked(struct nlsock *sk, uint32_t portid)
{
	sk->at.portid = portid;
	sk->bound = true;
	g_hash_table_insert(by_portid, &sk->at, sk);
}

int
nlsock_bind(struct nlsock *sk, uint32_t portid)
{
	int err = 0;

	if (!portid)
		return nlsock_autobind(sk);
	pthread_rwlock_wrlock(&reg_lock);
	if (sk->bound)
		err = sk->at.portid == portid ? 0 : -EINVAL;
	else if (portid_taken(sk, portid))
		err = -EADDRINUSE;
	else
		insert_locked(sk, portid);
	pthread_rwlock_unlock(&reg_lock);
	return err;
}

int
nlsock_autobind(struct nlsock *sk)
{
	uint32_t portid = sk->creds.pid;
	int32_t rover = -4097;

	/* Bound by its own requests only, which come one at a time: no
	 * write lock on the registry for each send. */
	if (sk->bound)
		return 0;
	pthread_rwlock_wrlock(&reg_lock);
	if (!sk->bound) {
		while (!portid || portid_taken(sk, portid))
			portid = (uint32_t)rover--;
		insert_locked(sk, portid);
	}
	pthread_rwlock_unlock(&reg_lock);
	return 0;
}

uint32_t
nlsock_portid(const struct nlsock *sk)
{
	return sk->bound ? sk->at.portid : 0;
}

int
nlsock_protocol(const struct nlsock *sk)
{
	return sk->at.protocol;
}

void *
nlsock_net(const struct nlsock *sk)
{
	return sk->at.net;
}

const struct nlsock_creds *
nlsock_creds(const struct nlsock *sk)
{
	return &sk->creds;
}

bool
nlsock_net_admin(const struct nlsock *sk)
{
	return sk->creds.net_admin && sk->sender_admin;
}

void
nlsock_set_sender_admin(struct nlsock *sk, bool admin)
{
	sk->sender_admin = admin;
}

static unsigned
flag_of(int name)
{
	switch (name) {
	case NETLINK_EXT_ACK:
		return F_EXT_ACK;
	case NETLINK_CAP_ACK:
		return F_CAP_ACK;
	case NETLINK_NO_ENOBUFS:
		return F_NO_ENOBUFS;
	case NETLINK_GET_STRICT_CHK:
		return F_STRICT_CHK;
	case NETLINK_LISTEN_ALL_NSID:
		return F_LISTEN_ALL_NSID;
	case NETLINK_PKTINFO:
		return F_PKTINFO;
	case NETLINK_BROADCAST_ERROR:
		return F_BROADCAST_ERROR;
	default:
		return 0;
	}
}

/* The bit of sk->groups for group on a socket of protocol: generic
 * netlink's are the ids the daemon hands out, the other protocols' their
 * own numbers; -1 for a group the daemon never sends to. */
static int
group_bit(int protocol, uint32_t group)
{
	if (protocol != NETLINK_GENERIC)
		return group >= 1 && group <= NLSOCK_MAX_GROUPS ? (int)group - 1
								: -1;
	if (group < NLSOCK_GROUP_BASE ||
	    group >= NLSOCK_GROUP_BASE + NLSOCK_MAX_GROUPS)
		return -1;
	return group - NLSOCK_GROUP_BASE;
}

/* The group of bit on a socket of protocol: group_bit()'s inverse. */
static uint32_t
bit_group(int protocol, int bit)
{
	return protocol != NETLINK_GENERIC ? (uint32_t)bit + 1
					   : NLSOCK_GROUP_BASE + (uint32_t)bit;
}

unsigned
nlsock_groups(const struct nlsock *sk, uint32_t *out, unsigned max)
{
	unsigned n = 0;

	for (int bit = 0; bit < NLSOCK_MAX_GROUPS; bit++) {
		if (!(sk->groups & 1ULL << bit))
			continue;
		if (n < max)
			out[n] = bit_group(sk->at.protocol, bit);
		n++;
	}
	return n;
}

const struct nlsock *
nlsock_at(unsigned i)
{
	const struct nlsock *sk = NULL;

	pthread_rwlock_rdlock(&reg_lock);
	if (all_socks && i < all_socks->len)
		sk = g_ptr_array_index(all_socks, i);
	pthread_rwlock_unlock(&reg_lock);
	return sk;
}

int
nlsock_setsockopt(struct nlsock *sk, int level, int name, int value)
{
	unsigned flag;
	bool join;
	int bit;

	if (level == SOL_SOCKET && name == SO_RCVBUF) {
		/* The size the client's own setsockopt() left on its end (the
		 * kernel's doubled value). A client speaking the protocol
		 * directly may claim any: without CAP_NET_ADMIN it gets what
		 * SO_RCVBUF would give it, twice net.core.rmem_max at most
		 * (SO_RCVBUFFORCE, which passes that, is CAP_NET_ADMIN's). */
		size_t max = nlsock_net_admin(sk)
				     ? INT_MAX
				     : 2 * read_sysctl("/proc/sys/net/core/rmem_max",
						       default_rcvbuf);

		sk->rcvbuf = value > 0 ? (size_t)value : default_rcvbuf;
		if (sk->rcvbuf > max)
			sk->rcvbuf = max;
		size_send_buffer(sk);
		__atomic_store_n(&sk->room, 0, __ATOMIC_RELAXED);
		return 0;
	}
	if (level != SOL_NETLINK)
		return -ENOPROTOOPT;
	switch (name) {
	case NETLINK_ADD_MEMBERSHIP:
	case NETLINK_DROP_MEMBERSHIP:
		if (value == 0)
			return -EINVAL;
		/* Groups that are not ours have no sender here. */
		bit = group_bit(sk->at.protocol, value);
		if (bit < 0)
			return 0;
		join = name == NETLINK_ADD_MEMBERSHIP;
		pthread_rwlock_wrlock(&reg_lock);
		/* Counted once per socket, however often it joins. */
		if (!!(sk->groups & 1ULL << bit) != join) {
			sk->groups ^= 1ULL << bit;
			__atomic_fetch_add(members(sk->at.protocol, bit),
					   join ? 1 : -1, __ATOMIC_RELAXED);
		}
		pthread_rwlock_unlock(&reg_lock);
		if (groups_fn)
			groups_fn();
		return 0;
	default:
		flag = flag_of(name);
		if (!flag)
			return -ENOPROTOOPT;
		if (value)
			sk->flags |= flag;
		else
			sk->flags &= ~flag;
		return 0;
	}
}

int
nlsock_getsockopt(struct nlsock *sk, int level, int name, int *value)
{
	unsigned flag;

	if (level != SOL_NETLINK)
		return -ENOPROTOOPT;
	flag = flag_of(name);
	if (!flag)
		return -ENOPROTOOPT;
	*value = !!(sk->flags & flag);
	return 0;
}

bool
nlsock_ext_ack(const struct nlsock *sk)
{
	return sk->flags & F_EXT_ACK;
}

bool
nlsock_cap_ack(const struct nlsock *sk)
{
	return sk->flags & F_CAP_ACK;
}

size_t
nlsock_queued(const struct nlsock *sk)
{
	int q = 0;

	if (ioctl(sk->data_fd, SIOCOUTQ, &q) < 0)
		return 0;
	return q;
}

size_t
nlsock_rcvbuf(const struct nlsock *sk)
{
	return sk->rcvbuf;
}

void
nlsock_note_recv(struct nlsock *sk, size_t len)
{
	if (len > sk->max_recv)
		sk->max_recv = len;
}

size_t
nlsock_recv_hint(const struct nlsock *sk)
{
	return sk->max_recv;
}

void
nlsock_report_enobufs(struct nlsock *sk)
{
	__atomic_store_n(&sk->shared->overrun, 1, __ATOMIC_RELEASE);
}

static void
overrun(struct nlsock *sk)
{
	if (!(sk->flags & F_NO_ENOBUFS))
		nlsock_report_enobufs(sk);
}

/* Writes one datagram, with info in front for a client that asked for
 * NETLINK_PKTINFO, or for NETLINK_LISTEN_ALL_NSID when info carries a
 * namespace id (proto.h). */
static int
write_dgram(struct nlsock *sk, const void *buf, size_t len,
	    const struct tapdp_dgram_info *info)
{
	struct iovec iov[2] = { { (void *)info, sizeof(*info) },
				{ (void *)buf, len } };
	bool framed = (sk->flags & F_PKTINFO) ||
		      ((sk->flags & F_LISTEN_ALL_NSID) &&
		       (info->flags & TAPDP_DGRAM_NSID));
	struct msghdr mh = { .msg_iov = framed ? iov : iov + 1,
			     .msg_iovlen = framed ? 2 : 1 };
	ssize_t n;

	n = sendmsg(sk->data_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n == (ssize_t)(len + (framed ? sizeof(*info) : 0)))
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
		overrun(sk);
		return -ENOBUFS;
	}
	return -ECONNRESET;
}

void
nlsock_set_tap(uint32_t group, nlsock_tap_fn *fn)
{
	tap_group = group;
	tap_fn = fn;
}

bool
nlsock_member(const struct nlsock *sk, uint32_t group)
{
	int bit = group_bit(sk->at.protocol, group);

	return bit >= 0 && (sk->groups & (1ULL << bit));
}

static void
tap(const struct nlsock *sk, const void *buf, size_t len, bool to_client)
{
	if (tap_fn && nlsock_has_listeners(NETLINK_GENERIC, tap_group) &&
	    !(sk->at.protocol == NETLINK_GENERIC && nlsock_member(sk, tap_group)))
		tap_fn(sk, buf, len, to_client);
}

void
nlsock_tap_sent(const struct nlsock *sk, const void *buf, size_t len)
{
	tap(sk, buf, len, false);
}

/* The most a datagram of len bytes adds to an AF_UNIX socket's queue
 * (SIOCOUTQ counts the skb's truesize): its head is kmalloc'd with the
 * shared info behind it, rounded up at most to twice that, plus the skb;
 * the paged part of a large one counts its pages. test-genl checks the
 * bound against the running kernel. */
size_t
nlsock_dgram_charge_max(size_t len)
{
	return 2 * len + 1024;
}

/* Whether the queue is over rcvbuf before a datagram of len joins it,
 * the kernel's test, asked of the socket (an ioctl, a system call that
 * was a sixth of a miss's cost on the receive threads) only once the
 * datagrams sent since it was last asked could have taken it there.
 * Concurrent senders may each pass on the room the last of them saw, as
 * concurrent senders pass the kernel's check before either is queued. */
static bool
over_rcvbuf(struct nlsock *sk, size_t len)
{
	long charge = (long)nlsock_dgram_charge_max(len);
	size_t q;

	if (__atomic_fetch_sub(&sk->room, charge, __ATOMIC_RELAXED) > 0)
		return false;
	q = nlsock_queued(sk);
	if (q > sk->rcvbuf)
		return true;
	__atomic_store_n(&sk->room, (long)sk->rcvbuf - (long)q - charge,
			 __ATOMIC_RELAXED);
	return false;
}

/* Queues one datagram sent to group (0: unicast). */
static int
deliver(struct nlsock *sk, const void *buf, size_t len, uint32_t group)
{
	struct tapdp_dgram_info info = { .group = group };
	int err;

	/* As the kernel: refuse once the queue is already over the limit. */
	if (over_rcvbuf(sk, len)) {
		overrun(sk);
		return -ENOBUFS;
	}
	err = write_dgram(sk, buf, len, &info);
	if (!err)
		tap(sk, buf, len, true);
	return err;
}

int
nlsock_unicast(struct nlsock *sk, const void *buf, size_t len)
{
	return deliver(sk, buf, len, 0);
}

int
nlsock_unicast_portid(int protocol, void *net, uint32_t portid,
		      const void *buf, size_t len)
{
	struct reg_key k = { net, protocol, portid };
	struct nlsock *sk;
	int err = -ECONNREFUSED;

	pthread_rwlock_rdlock(&reg_lock);
	sk = g_hash_table_lookup(by_portid, &k);
	if (sk)
		err = nlsock_unicast(sk, buf, len);
	pthread_rwlock_unlock(&reg_lock);
	return err;
}

void
nlsock_multicast(int protocol, const void *net, uint32_t group,
		 const void *buf, size_t len, uint32_t exclude_portid)
{
	int bit = group_bit(protocol, group);

	if (bit < 0)
		return;
	pthread_rwlock_rdlock(&reg_lock);
	for (guint i = 0; i < all_socks->len; i++) {
		struct nlsock *sk = g_ptr_array_index(all_socks, i);

		if (sk->at.protocol != protocol || sk->at.net != net ||
		    !(sk->groups & (1ULL << bit)))
			continue;
		if (exclude_portid && sk->bound && sk->at.portid == exclude_portid)
			continue;
		deliver(sk, buf, len, group);
	}
	pthread_rwlock_unlock(&reg_lock);
}

void
nlsock_on_groups(void (*fn)(void))
{
	groups_fn = fn;
}

bool
nlsock_has_listeners(int protocol, uint32_t group)
{
	int bit = group_bit(protocol, group);

	return bit >= 0 &&
	       __atomic_load_n(members(protocol, bit), __ATOMIC_RELAXED);
}

int
nlsock_set_kernel(struct nlsock *sk, int fd)
{
	struct sockaddr_nl sa;
	socklen_t len = sizeof(sa);
	int protocol = -1;
	socklen_t plen = sizeof(protocol);

	if (sk->kernel_fd >= 0)
		return -EEXIST;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 ||
	    len < sizeof(sa) || sa.nl_family != AF_NETLINK ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &plen) < 0 ||
	    protocol != sk->at.protocol)
		return -EINVAL;
	sk->kernel_fd = fd;
	sk->kernel_portid = sa.nl_pid;
	return 0;
}

int
nlsock_kernel_fd(const struct nlsock *sk)
{
	return sk->kernel_fd;
}

void
nlsock_kernel_drain(struct nlsock *sk)
{
	static char buf[128 << 10];
	char cbuf[CMSG_SPACE(sizeof(struct nl_pktinfo)) +
		  CMSG_SPACE(sizeof(int))];

	for (int budget = 256; budget > 0; budget--) {
		struct tapdp_dgram_info info = { 0 };
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		ssize_t n = recvmsg(sk->kernel_fd, &mh, MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS) {
			overrun(sk);
			continue;
		}
		if (n <= 0)
			return;
		/* Answers to the client's requests name its portid. Anyone
		 * may have queued a datagram here. */
		for (size_t off = 0, step; (step = nlmsg_span(buf, n, off));
		     off += step) {
			struct nlmsghdr *nlh = (void *)(buf + off);

			if (nlh->nlmsg_pid == sk->kernel_portid)
				nlh->nlmsg_pid = nlsock_portid(sk);
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
		     c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_NETLINK)
				continue;
			if (c->cmsg_type == NETLINK_PKTINFO &&
			    c->cmsg_len >= CMSG_LEN(sizeof(info.group)))
				memcpy(&info.group, CMSG_DATA(c),
				       sizeof(info.group));
			if (c->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
			    c->cmsg_len >= CMSG_LEN(sizeof(info.nsid))) {
				memcpy(&info.nsid, CMSG_DATA(c),
				       sizeof(info.nsid));
				info.flags |= TAPDP_DGRAM_NSID;
			}
		}
		/* The kernel socket kept to its own receive buffer. */
		write_dgram(sk, buf, n, &info);
	}
}

void *
nlsock_dump(const struct nlsock *sk)
{
	return sk->dump;
}

void
nlsock_set_dump(struct nlsock *sk, void *dump, void (*free_fn)(void *),
		uint32_t seq)
{
	if (sk->dump && sk->dump_free && sk->dump != dump)
		sk->dump_free(sk->dump);
	sk->dump = dump;
	sk->dump_free = free_fn;
	sk->shared->dump_seq = seq;
	sk->shared->dump_running = dump != NULL;
}

void
nlsock_save(const struct nlsock *sk, struct nlsock_state *st)
{
	memset(st, 0, sizeof(*st));
	st->protocol = sk->at.protocol;
	st->portid = sk->at.portid;
	st->flags = sk->flags;
	st->bound = sk->bound;
	st->groups = sk->groups;
	st->rcvbuf = sk->rcvbuf;
	st->max_recv = sk->max_recv;
	st->creds = sk->creds;
}

struct nlsock *
nlsock_restore(int data_fd, struct tapdp_shared *shared,
	       const struct nlsock_state *st, void *net)
{
	struct nlsock *sk = nlsock_new(data_fd, shared, &st->creds,
				       st->protocol, net);

	if (!sk)
		return NULL;
	if (st->bound && nlsock_bind(sk, st->portid)) {
		sk->data_fd = -1;
		sk->shared = NULL;
		nlsock_free(sk);
		return NULL;
	}
	sk->flags = st->flags;
	sk->rcvbuf = st->rcvbuf;
	sk->max_recv = st->max_recv;
	size_send_buffer(sk);
	pthread_rwlock_wrlock(&reg_lock);
	sk->groups = st->groups;
	for (int bit = 0; bit < NLSOCK_MAX_GROUPS; bit++)
		if (sk->groups & 1ULL << bit)
			__atomic_fetch_add(members(sk->at.protocol, bit), 1,
					   __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&reg_lock);
	if (sk->groups && groups_fn)
		groups_fn();
	return sk;
}

void
nlsock_end_lost_dump(struct nlsock *sk)
{
	struct {
		struct nlmsghdr nlh;
		int32_t err;
	} done = {
		.nlh = { .nlmsg_len = sizeof(done), .nlmsg_type = NLMSG_DONE,
			 .nlmsg_flags = NLM_F_MULTI | NLM_F_DUMP_INTR,
			 .nlmsg_seq = sk->shared->dump_seq,
			 .nlmsg_pid = nlsock_portid(sk) },
		.err = -EINTR,
	};

	if (!sk->shared->dump_running)
		return;
	nlsock_unicast(sk, &done, sizeof(done));
	sk->shared->dump_running = 0;
}
