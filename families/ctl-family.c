/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp_ctl (include/tapdp/ctl-uapi.h), a family of tapdpd's own: what the
 * daemon is and holds (STATUS), its threads (THREADS), who talks to it
 * (CLIENTS), its datapaths' upcalls (UPCALLS), a frame's dry run
 * (TRACE, datapath/trace.h), for tapdpctl; and every step of every packet
 * to the capture group while someone listens (from the packet's thread),
 * and every netlink datagram to the nlmon group likewise. The figures of
 * the process come from /proc, as ps would read them; the commands run on
 * the control thread. */
#include <dirent.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf-pool.h"
#include "common/clock.h"
#include "common/kernel-profile.h"
#include "ct/conntrack.h"
#include "datapath/drop.h"
#include "datapath/fastpath.h"
#include "families/families.h"
#include "datapath/meter.h"
#include "datapath/trace.h"
#include "datapath/upcall-stats.h"
#include "include/tapdp/ctl-uapi.h"
#include "genl-server/genl.h"

static const struct genl_family ctl_family;
static uint64_t started_ms;

/* The first line of a small /proc file into buf, its newline cut; false
 * when it cannot be read. */
static bool
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* A thread's name and its user and system time in ms, from its stat line
 * (the name, in parentheses, may hold spaces and parentheses itself). */
static bool
thread_stat(const char *tid, char *name, size_t len, uint64_t *cpu_ms)
{
	unsigned long utime, stime;
	char path[300], line[512], *open, *close;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	if (!read_line(path, line, sizeof(line)))
		return false;
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			      "%lu %lu", &utime, &stime) != 2)
		return false;
	snprintf(name, len, "%.*s", (int)(close - open - 1), open + 1);
	*cpu_ms = (uint64_t)(utime + stime) * 1000 / (hz > 0 ? hz : 100);
	return true;
}

/* args[0]: how many threads of /proc/self/task sent so far (a thread
 * that ends between two parts shifts the rest: one may be skipped or
 * repeated, as a kernel dump over a changing list). */
static int
ctl_cmd_threads(struct genl_dump *d, struct msgbuf *mb)
{
	DIR *dir;
	struct dirent *e;
	long i = 0;

	/* Their names are the daemon's ports: not for another namespace. */
	if (nlsock_creds(d->sk)->other_netns)
		return 0;
	dir = opendir("/proc/self/task");
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		char name[64];
		uint64_t cpu;

		if (e->d_name[0] == '.' || i++ < d->args[0] ||
		    !thread_stat(e->d_name, name, sizeof(name), &cpu))
			continue;
		if (!genl_msg_start(mb, &ctl_family, nlsock_portid(d->sk),
				    d->nlh->nlmsg_seq, NLM_F_MULTI,
				    TAPDP_CTL_CMD_THREADS))
			break;
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_TID, atoi(e->d_name));
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_NAME, name);
		msgbuf_put_u64(mb, TAPDP_CTL_ATTR_CPU_MS, cpu);
		if (msgbuf_end(mb))
			break;
		d->args[0] = i;
	}
	closedir(dir);
	return mb->len;
}

static void
put_table(struct msgbuf *mb, const char *name, const struct datapath *dp,
	  uint64_t entries)
{
	struct nlattr *table = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_TABLE);

	msgbuf_put_string(mb, TAPDP_CTL_ATTR_NAME, name);
	if (dp)
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_DP_NAME, dp_name(dp));
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_ENTRIES, entries);
	msgbuf_nest_end(mb, table);
}

static void
put_tables(struct msgbuf *mb, struct dp_net *net)
{
	struct conntrack *ct = dp_net_conntrack_made(net);
	struct nlattr *tables;
	struct datapath *dp;

	tables = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_TABLES);
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		put_table(mb, "flows", dp, dp_flow_count(dp));
		put_table(mb, "masks", dp, dp_mask_count(dp));
		put_table(mb, "meters", dp, dp_meters(dp)->count);
	}
	if (ct) {
		struct conntrack_stats s;

		conntrack_get_stats(ct, &s);
		put_table(mb, "connections", NULL, s.n_conns);
		put_table(mb, "expectations", NULL, s.n_expects);
	}
	if (fastpath_on())
		put_table(mb, "fast-path", NULL, fastpath_entries());
	msgbuf_nest_end(mb, tables);
}

/* The ports whose frames the fast path takes. */
static void
put_fast_ports(struct msgbuf *mb, struct dp_net *net)
{
	struct nlattr *list, *port;
	struct datapath *dp;
	struct dp_port *p;

	if (!fastpath_on())
		return;
	list = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_FAST_PORTS);
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		for (uint32_t no = 0; (p = dp_port_next(dp, &no)); no++) {
			if (!dp_port_fast(p))
				continue;
			port = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_FAST_PORT);
			msgbuf_put_string(mb, TAPDP_CTL_ATTR_DP_NAME,
					  dp_name(dp));
			msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORT_NO, no);
			msgbuf_nest_end(mb, port);
		}
	}
	msgbuf_nest_end(mb, list);
}

/* The packet threads' pooled buffers (common/buf-pool.h). */
static void
put_buffers(struct msgbuf *mb)
{
	static const struct {
		const char *name;
		struct buf_pool *pool;
	} pools[] = {
		{ "frame", &frame_pool },
		{ "transmit", &vport_txq_pool },
		{ "upcall", &dp_upcall_pool },
	};
	struct nlattr *list = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_BUFFERS);

	for (size_t i = 0; i < sizeof(pools) / sizeof(pools[0]); i++) {
		struct nlattr *nest = msgbuf_nest_start(mb,
							TAPDP_CTL_ATTR_BUFFER);
		unsigned made, free;

		buf_pool_stats(pools[i].pool, &made, &free);
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_NAME, pools[i].name);
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_SIZE, pools[i].pool->size);
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_MADE, made);
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_FREE, free);
		msgbuf_nest_end(mb, nest);
	}
	msgbuf_nest_end(mb, list);
}

/* Resident bytes, from statm's second field (pages). */
static uint64_t
rss_bytes(void)
{
	unsigned long size, resident;
	char line[128];

	if (!read_line("/proc/self/statm", line, sizeof(line)) ||
	    sscanf(line, "%lu %lu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * sysconf(_SC_PAGESIZE);
}

/* Under a sanitizer the allocator is its own, and says so here. */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

static uint64_t
heap_bytes(void)
{
	struct mallinfo2 mi;

	if (__sanitizer_get_current_allocated_bytes)
		return __sanitizer_get_current_allocated_bytes();
	mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* Whether viewer may see sk among the clients: those of its own
 * namespace, as /proc/net/netlink shows its own namespace's. */
static bool
client_visible(const struct nlsock *viewer, const struct nlsock *sk)
{
	return nlsock_net(sk) == nlsock_net(viewer);
}

static unsigned
n_clients(const struct nlsock *viewer)
{
	const struct nlsock *sk;
	unsigned n = 0;

	for (unsigned i = 0; (sk = nlsock_at(i)); i++)
		n += client_visible(viewer, sk);
	return n;
}

static int
ctl_cmd_status(struct genl_info *info)
{
	static char mem[GENL_MSG_MAX];
	struct msgbuf mb;
	uint64_t now;

	msgbuf_init(&mb, mem, sizeof(mem));
	if (!genl_msg_start(&mb, &ctl_family, nlsock_portid(info->sk),
			    info->nlh->nlmsg_seq, 0, TAPDP_CTL_CMD_STATUS))
		return -EMSGSIZE;
	msgbuf_put_string(&mb, TAPDP_CTL_ATTR_VERSION, TAPDP_VERSION);
	msgbuf_put_u32(&mb, TAPDP_CTL_ATTR_PID, getpid());
	now = clock_now_ms();
	/* (A test's fake clock may stand before the start.) */
	msgbuf_put_u64(&mb, TAPDP_CTL_ATTR_UPTIME_MS,
		       now > started_ms ? now - started_ms : 0);
	msgbuf_put_string(&mb, TAPDP_CTL_ATTR_KERNEL, kernel_profile()->name);
	msgbuf_put_u64(&mb, TAPDP_CTL_ATTR_RSS, rss_bytes());
	msgbuf_put_u64(&mb, TAPDP_CTL_ATTR_HEAP, heap_bytes());
	msgbuf_put_u32(&mb, TAPDP_CTL_ATTR_CLIENTS, n_clients(info->sk));
	/* Other namespaces are the host's to know of, as /proc/net shows a
	 * container its own. */
	if (!nlsock_creds(info->sk)->other_netns)
		msgbuf_put_u32(&mb, TAPDP_CTL_ATTR_NAMESPACES, dp_net_count());
	msgbuf_put_string(&mb, TAPDP_CTL_ATTR_FAST_PATH, fastpath_state());
	put_tables(&mb, nlsock_net(info->sk));
	put_fast_ports(&mb, nlsock_net(info->sk));
	put_buffers(&mb);
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

/* The command of the process that opened sk, into comm; NULL when its
 * /proc entry is gone or not ours to read. */
static const char *
client_comm(const struct nlsock *sk, char *comm, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm",
		 (int)nlsock_creds(sk)->pid);
	return read_line(path, comm, len) ? comm : NULL;
}

static int
ctl_client_fill(struct msgbuf *mb, const struct nlsock *sk, uint32_t portid,
		uint32_t seq)
{
	const struct nlsock_creds *cr = nlsock_creds(sk);
	uint32_t groups[NLSOCK_MAX_GROUPS];
	unsigned n = nlsock_groups(sk, groups, NLSOCK_MAX_GROUPS);
	char comm[64];

	if (!genl_msg_start(mb, &ctl_family, portid, seq, NLM_F_MULTI,
			    TAPDP_CTL_CMD_CLIENTS))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_CLIENT_PID, cr->pid);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_CLIENT_UID, cr->uid);
	if (client_comm(sk, comm, sizeof(comm)))
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_COMM, comm);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PROTOCOL, nlsock_protocol(sk));
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORTID, nlsock_portid(sk));
	msgbuf_put(mb, TAPDP_CTL_ATTR_GROUPS, n * sizeof(groups[0]), groups);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_QUEUED, nlsock_queued(sk));
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_RCVBUF, nlsock_rcvbuf(sk));
	return msgbuf_end(mb);
}

/* args[0]: the next socket's index (nlsock_at). */
static int
ctl_cmd_clients(struct genl_dump *d, struct msgbuf *mb)
{
	const struct nlsock *sk;

	while ((sk = nlsock_at(d->args[0]))) {
		if (client_visible(d->sk, sk) &&
		    ctl_client_fill(mb, sk, nlsock_portid(d->sk),
				    d->nlh->nlmsg_seq))
			return mb->len;
		d->args[0]++;
	}
	return mb->len;
}

/* One datapath's upcall figures (upcall-stats.h). */
static int
ctl_upcalls_fill(struct msgbuf *mb, const struct datapath *dp,
		 uint32_t portid, uint32_t seq)
{
	static struct upcall_figures f;	/* the control thread's */
	struct nlattr *hs;

	dp_upcall_figures(dp, &f);
	if (!genl_msg_start(mb, &ctl_family, portid, seq, NLM_F_MULTI,
			    TAPDP_CTL_CMD_UPCALLS))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_DP_IFINDEX, dp_ifindex(dp));
	msgbuf_put_string(mb, TAPDP_CTL_ATTR_DP_NAME, dp_name(dp));
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_UPCALL_MISS, f.miss);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_UPCALL_ACTION, f.action);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_LOST_FULL,
		       f.lost[UPCALL_LOST_FULL]);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_LOST_NO_SOCKET,
		       f.lost[UPCALL_LOST_NO_SOCKET]);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_LOST_OTHER,
		       f.lost[UPCALL_LOST_OTHER]);
	msgbuf_put(mb, TAPDP_CTL_ATTR_WAIT, sizeof(f.wait), f.wait);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_WAIT_N, f.wait_n);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_WAIT_SUM_US, f.wait_sum_us);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_WAIT_MAX_US, f.wait_max_us);
	hs = msgbuf_nest_start(mb, TAPDP_CTL_ATTR_HANDLERS);
	for (unsigned i = 0; i < f.n_handlers; i++) {
		struct nlattr *h = msgbuf_nest_start(mb,
						     TAPDP_CTL_ATTR_HANDLER);

		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORTID,
			       f.handler[i].portid);
		msgbuf_put_u64(mb, TAPDP_CTL_ATTR_SENT, f.handler[i].sent);
		msgbuf_put_u64(mb, TAPDP_CTL_ATTR_LOST, f.handler[i].lost);
		msgbuf_nest_end(mb, h);
	}
	msgbuf_nest_end(mb, hs);
	return msgbuf_end(mb);
}

/* args[0]: the next datapath's index (dp_at). */
static int
ctl_cmd_upcalls(struct genl_dump *d, struct msgbuf *mb)
{
	const struct datapath *dp;

	while ((dp = dp_at(nlsock_net(d->sk), d->args[0]))) {
		if (ctl_upcalls_fill(mb, dp, nlsock_portid(d->sk),
				     d->nlh->nlmsg_seq))
			return mb->len;
		d->args[0]++;
	}
	return mb->len;
}

bool
ctl_family_capturing(void)
{
	return nlsock_has_listeners(NETLINK_GENERIC, GROUP_CAPTURE);
}

static const uint32_t kinds[] = {
	[DP_PACKET_RX] = TAPDP_CTL_KIND_RX,
	[DP_PACKET_TX] = TAPDP_CTL_KIND_TX,
	[DP_PACKET_UPCALL] = TAPDP_CTL_KIND_UPCALL,
	[DP_PACKET_DROP] = TAPDP_CTL_KIND_DROP,
	[DP_PACKET_UPCALL_LOST] = TAPDP_CTL_KIND_UPCALL_LOST,
};

int
ctl_family_packet(struct msgbuf *mb, const struct dp_packet_event *ev,
		  uint64_t now_ns)
{
	uint32_t snap = ev->len < TAPDP_CTL_CAPTURE_SNAPLEN
				? ev->len : TAPDP_CTL_CAPTURE_SNAPLEN;

	if (!genl_msg_start(mb, &ctl_family, 0, 0, 0, TAPDP_CTL_CMD_PACKET))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_DP_IFINDEX, ev->dp_ifindex);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORT_NO, ev->port_no);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_KIND, kinds[ev->kind]);
	if (ev->kind == DP_PACKET_DROP) {
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_REASON, ev->reason);
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_REASON_NAME,
				  drop_reason_name(ev->reason));
	}
	if (ev->kind == DP_PACKET_UPCALL || ev->kind == DP_PACKET_UPCALL_LOST) {
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_UPCALL_CMD, ev->upcall_cmd);
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORTID, ev->portid);
	}
	if (ev->kind == DP_PACKET_UPCALL_LOST)
		msgbuf_put_u32(mb, TAPDP_CTL_ATTR_ERRNO, ev->reason);
	if (ev->ufid)
		msgbuf_put(mb, TAPDP_CTL_ATTR_UFID, ev->ufid_len, ev->ufid);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_TIMESTAMP_NS, now_ns);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PACKET_LEN, ev->len);
	msgbuf_put(mb, TAPDP_CTL_ATTR_PACKET, snap, ev->data);
	return msgbuf_end(mb);
}

void
ctl_family_capture(const struct dp_packet_event *ev)
{
	/* Room for the snap and the attributes: on the packet thread's
	 * stack, no allocation per packet. */
	char mem[TAPDP_CTL_CAPTURE_SNAPLEN + 256];
	struct msgbuf mb;

	msgbuf_init(&mb, mem, sizeof(mem));
	if (!ctl_family_packet(&mb, ev, clock_real_ns()))
		genl_multicast(ev->net, GROUP_CAPTURE, &mb);
}

int
ctl_family_nlmsg(struct msgbuf *mb, const struct nlsock *sk, const char *comm,
		 const void *buf, size_t len, bool to_client, uint64_t now_ns)
{
	const struct nlsock_creds *cr = nlsock_creds(sk);
	size_t snap = len < TAPDP_CTL_NLMON_SNAPLEN ? len
						    : TAPDP_CTL_NLMON_SNAPLEN;

	if (!genl_msg_start(mb, &ctl_family, 0, 0, 0, TAPDP_CTL_CMD_NLMSG))
		return -EMSGSIZE;
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_CLIENT_PID, cr->pid);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_CLIENT_UID, cr->uid);
	if (comm)
		msgbuf_put_string(mb, TAPDP_CTL_ATTR_COMM, comm);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PROTOCOL, nlsock_protocol(sk));
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PORTID, nlsock_portid(sk));
	if (to_client)
		msgbuf_put(mb, TAPDP_CTL_ATTR_TO_CLIENT, 0, NULL);
	msgbuf_put_u64(mb, TAPDP_CTL_ATTR_TIMESTAMP_NS, now_ns);
	msgbuf_put_u32(mb, TAPDP_CTL_ATTR_PACKET_LEN, len);
	msgbuf_put(mb, TAPDP_CTL_ATTR_PACKET, snap, buf);
	return msgbuf_end(mb);
}

/* The tap (nlsock_set_tap): on whichever thread sends, so the message is
 * built in memory of its own. */
static void
ctl_nlmon_tap(const struct nlsock *sk, const void *buf, size_t len,
	      bool to_client)
{
	size_t size = TAPDP_CTL_NLMON_SNAPLEN + 512;
	char comm[64], *mem = malloc(size);
	struct msgbuf mb;

	if (!mem)
		return;
	msgbuf_init(&mb, mem, size);
	if (!ctl_family_nlmsg(&mb, sk, client_comm(sk, comm, sizeof(comm)),
			      buf, len, to_client, clock_real_ns()))
		genl_multicast(nlsock_net(sk), GROUP_NLMON, &mb);
	free(mem);
}

/* A dry run of the frame in by the port: its steps (datapath/trace.h). */
static int
ctl_cmd_trace(struct genl_info *info)
{
	static char mem[GENL_MSG_MAX];
	const struct nlattr **tb = info->attrs;
	struct dp_net *net = nlsock_net(info->sk);
	struct datapath *dp;
	struct dp_port *in;
	struct msgbuf mb;
	int err = 0;

	if (!tb[TAPDP_CTL_ATTR_DP_IFINDEX] || !tb[TAPDP_CTL_ATTR_PORT_NO] ||
	    !tb[TAPDP_CTL_ATTR_PACKET])
		return -EINVAL;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (!genl_msg_start(&mb, &ctl_family, nlsock_portid(info->sk),
			    info->nlh->nlmsg_seq, 0, TAPDP_CTL_CMD_TRACE))
		return -EMSGSIZE;
	rcu_read_lock();
	dp = dp_by_ifindex(net, attr_get_u32(tb[TAPDP_CTL_ATTR_DP_IFINDEX]));
	in = dp ? dp_port_get(dp, attr_get_u32(tb[TAPDP_CTL_ATTR_PORT_NO]))
		: NULL;
	if (!in)
		err = -ENODEV;
	else
		dp_trace(dp, in, dp_net_conntrack(net),
			 attr_data(tb[TAPDP_CTL_ATTR_PACKET]),
			 attr_len(tb[TAPDP_CTL_ATTR_PACKET]), &mb);
	rcu_read_unlock();
	if (err)
		return err;
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static const struct attr_policy ctl_policy[TAPDP_CTL_ATTR_MAX + 1] = {
	[TAPDP_CTL_ATTR_DP_IFINDEX] = { .kind = ATTR_U32 },
	[TAPDP_CTL_ATTR_PORT_NO] = { .kind = ATTR_U32 },
	/* A frame of an Ethernet header at least. */
	[TAPDP_CTL_ATTR_PACKET] = { .kind = ATTR_UNSPEC, .len = ETH_HLEN },
};

static const struct genl_ops_entry ctl_ops[] = {
	{ .cmd = TAPDP_CTL_CMD_STATUS, .doit = ctl_cmd_status },
	{ .cmd = TAPDP_CTL_CMD_CLIENTS, .dumpit = ctl_cmd_clients },
	{ .cmd = TAPDP_CTL_CMD_THREADS, .dumpit = ctl_cmd_threads },
	{ .cmd = TAPDP_CTL_CMD_TRACE, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = ctl_cmd_trace },
	{ .cmd = TAPDP_CTL_CMD_UPCALLS, .dumpit = ctl_cmd_upcalls },
};

static const struct genl_mcgrp ctl_groups[] = {
	{ .name = TAPDP_CTL_MCGROUP_CAPTURE, .id = GROUP_CAPTURE,
	  .flags = GENL_MCAST_CAP_NET_ADMIN },
	{ .name = TAPDP_CTL_MCGROUP_NLMON, .id = GROUP_NLMON,
	  .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static const struct genl_family ctl_family = {
	.name = TAPDP_CTL_FAMILY,
	.id = FAMILY_ID_CTL,
	.version = TAPDP_CTL_VERSION,
	.maxattr = TAPDP_CTL_ATTR_MAX,
	.policy = ctl_policy,
	.resv_start_op = TAPDP_CTL_CMD_NLMSG + 1,
	.ops = ctl_ops,
	.n_ops = sizeof(ctl_ops) / sizeof(ctl_ops[0]),
	.mcgrps = ctl_groups,
	.n_mcgrps = sizeof(ctl_groups) / sizeof(ctl_groups[0]),
};

void
ctl_family_register(void)
{
	started_ms = clock_now_ms();
	genl_register(&ctl_family);
	nlsock_set_tap(GROUP_NLMON, ctl_nlmon_tap);
}
