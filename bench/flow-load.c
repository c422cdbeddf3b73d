/* SPDX-License-Identifier: Apache-2.0 */
/* Load on the ovs_flow and ovs_vport families, put the way ovs-vswitchd
 * puts it: a libmnl client, run under tapdp-run (bench/flow-load.sh runs
 * it against a daemon of its own). Each check prints "ok - ..." or
 * "FAIL - ..."; the figures are the other lines. PID is the daemon's, for
 * its memory (VmRSS, VmHWM) and descriptors.
 *
 *   bench-flow-load flows DP N BATCH PID
 *	creates DP; puts N megaflows (in_port, Ethernet, IPv4 source and
 *	destination, a UFID each, output:100), BATCH OVS_FLOW_CMD_NEW
 *	(NLM_F_CREATE | NLM_F_ACK) per sendmsg, every ACK read; dumps them;
 *	flushes them; the datapath's n_flows and the daemon's memory at
 *	each step.
 *   bench-flow-load ports-add DP N | ports-del DP N
 *	N internal ports fl0..fl<N-1>, one request each as ovs-vswitchd
 *	sends them; ports-add also dumps the ports (N + the local port).
 *   bench-flow-load churn DP CLIENTS SECS SET PID
 *	CLIENTS processes dump DP's flows in a loop for SECS s while one
 *	more adds and deletes flows at random over a working set of SET;
 *	every dump must end with NLMSG_DONE (or be flagged NLM_F_DUMP_INTR)
 *	and no other error; then the flows dumped are the ones the churner
 *	holds installed, and the daemon's descriptors come back.
 *   bench-flow-load dp-del DP */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/openvswitch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/clock.h"

#define RECV_BUF	(256 * 1024)
#define RCVBUF		(4 * 1024 * 1024)
#define MSG_MAX		512		/* one flow put, with room */
#define OUT_PORT	100
#define CHURN_TAG	0x63687572u	/* "chur": the churner's UFIDs */
#define FLOW_TAG	0x666c6f77u	/* "flow" */

static int passed, failed;

static void
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

static void __attribute__((noreturn))
die(const char *what)
{
	fprintf(stderr, "flow-load: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The daemon's /proc/PID/status field in KiB, or -1. */
static long
proc_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static void
print_mem(pid_t pid, const char *when)
{
	printf("  daemon memory %s: VmRSS %ld KiB (anonymous %ld, file %ld, "
	       "shared %ld), VmHWM %ld KiB\n", when, proc_kib(pid, "VmRSS"),
	       proc_kib(pid, "RssAnon"), proc_kib(pid, "RssFile"),
	       proc_kib(pid, "RssShmem"), proc_kib(pid, "VmHWM"));
}

static int
fd_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* A generic netlink socket and the OVS families' ids. */
struct nl {
	struct mnl_socket *sock;
	uint32_t seq;
	uint16_t dp_fam, vport_fam, flow_fam;
	int dp_ifindex;
	char *buf;			/* RECV_BUF bytes */
};

/* Reads one datagram; returns its length or -errno. */
static int
nl_recv(struct nl *nl)
{
	ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf, RECV_BUF);

	return n < 0 ? -errno : (int)n;
}

/* The error of an NLMSG_ERROR (0 for an ACK). */
static int
msg_err(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

	return h->nlmsg_len < mnl_nlmsg_size(sizeof(*e)) ? -EBADMSG : e->error;
}

/* Sends one request and reads until its ACK or error; cb (if any) sees
 * each other message of the answer. */
static int
nl_transact(struct nl *nl, struct nlmsghdr *req,
	    void (*cb)(struct nl *, const struct nlmsghdr *, void *),
	    void *arg)
{
	uint32_t seq = req->nlmsg_seq;

	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		int n = nl_recv(nl);
		const struct nlmsghdr *h = (const void *)nl->buf;

		if (n < 0)
			return n;
		for (; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return msg_err(h);
			if (cb)
				cb(nl, h, arg);
		}
	}
}

static struct nlmsghdr *
genl_put(char *buf, struct nl *nl, uint16_t fam, uint8_t cmd,
	 uint8_t version, uint16_t flags)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	h->nlmsg_type = fam;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(h, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return h;
}

static struct nlmsghdr *
ovs_put(char *buf, struct nl *nl, uint16_t fam, uint8_t cmd,
	uint8_t version, uint16_t flags)
{
	struct nlmsghdr *h = genl_put(buf, nl, fam, cmd, version, flags);
	struct ovs_header *o = mnl_nlmsg_put_extra_header(h, sizeof(*o));

	o->dp_ifindex = nl->dp_ifindex;
	return h;
}

static void
family_cb(struct nl *nl, const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, h, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)arg = mnl_attr_get_u16(a);
}

static uint16_t
resolve(struct nl *nl, const char *name)
{
	char buf[MSG_MAX];
	struct nlmsghdr *h = genl_put(buf, nl, GENL_ID_CTRL,
				      CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	uint16_t id = 0;
	int err;

	mnl_attr_put_strz(h, CTRL_ATTR_FAMILY_NAME, name);
	err = nl_transact(nl, h, family_cb, &id);
	if (err || !id) {
		errno = err ? -err : ENOENT;
		die(name);
	}
	return id;
}

static void
nl_open(struct nl *nl)
{
	int size = RCVBUF;

	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(RECV_BUF);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->buf || !nl->sock ||
	    mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink socket");
	/* As ovs-vswitchd's sockets: a large receive buffer, if allowed. */
	if (setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVBUFFORCE,
		       &size, sizeof(size)) < 0)
		setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVBUF,
			   &size, sizeof(size));
	nl->seq = time(NULL);
	nl->dp_fam = resolve(nl, OVS_DATAPATH_FAMILY);
	nl->vport_fam = resolve(nl, OVS_VPORT_FAMILY);
	nl->flow_fam = resolve(nl, OVS_FLOW_FAMILY);
}

static void
nl_close(struct nl *nl)
{
	mnl_socket_close(nl->sock);
	free(nl->buf);
}

/* The datapath's answer: its ifindex and flow count. */
static void
dp_cb(struct nl *nl, const struct nlmsghdr *h, void *arg)
{
	const struct ovs_header *o = (const void *)((const char *)
		mnl_nlmsg_get_payload(h) + GENL_HDRLEN);
	const struct nlattr *a;

	nl->dp_ifindex = o->dp_ifindex;
	mnl_attr_for_each(a, h, GENL_HDRLEN + sizeof(*o))
		if (mnl_attr_get_type(a) == OVS_DP_ATTR_STATS &&
		    mnl_attr_get_payload_len(a) >= sizeof(struct ovs_dp_stats))
			*(uint64_t *)arg = ((const struct ovs_dp_stats *)
				mnl_attr_get_payload(a))->n_flows;
}

static int
dp_request(struct nl *nl, uint8_t cmd, const char *dp, uint64_t *n_flows)
{
	char buf[MSG_MAX];
	struct nlmsghdr *h;
	uint64_t n = UINT64_MAX;
	int err;

	nl->dp_ifindex = 0;
	h = ovs_put(buf, nl, nl->dp_fam, cmd, OVS_DATAPATH_VERSION,
		    NLM_F_ACK | NLM_F_ECHO);
	mnl_attr_put_strz(h, OVS_DP_ATTR_NAME, dp);
	if (cmd == OVS_DP_CMD_NEW)
		mnl_attr_put_u32(h, OVS_DP_ATTR_UPCALL_PID, 0);
	err = nl_transact(nl, h, dp_cb, &n);
	if (n_flows)
		*n_flows = n;
	return err;
}

static void
dp_open(struct nl *nl, const char *dp)
{
	int err;

	nl_open(nl);
	err = dp_request(nl, OVS_DP_CMD_GET, dp, NULL);
	if (err) {
		errno = -err;
		die(dp);
	}
}

static uint64_t
n_flows(struct nl *nl, const char *dp)
{
	uint64_t n;

	return dp_request(nl, OVS_DP_CMD_GET, dp, &n) ? UINT64_MAX : n;
}

/* A flow's UFID: 12 bytes that look random, as OVS's (a hash of the key),
 * then the tag and index it was made from. */
static void
make_ufid(uint8_t ufid[16], uint32_t tag, uint32_t i)
{
	uint64_t x = ((uint64_t)tag << 32 | i) + 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	memcpy(ufid, &x, 8);
	memcpy(ufid + 8, &tag, 4);
	memcpy(ufid + 12, &i, 4);
}

/* The flow key of index i: in_port, Ethernet, IPv4 source and
 * destination varying with i (a UDP packet); the mask matches those
 * exactly. */
static void
put_key(struct nlmsghdr *h, uint16_t type, uint32_t i, bool mask)
{
	struct ovs_key_ethernet eth;
	struct ovs_key_ipv4 ip;
	struct ovs_key_udp udp = { htons(1024 + (i & 0x7fff)), htons(53) };
	struct nlattr *nest = mnl_attr_nest_start(h, type);

	memset(&eth, mask ? 0xff : 0, sizeof(eth));
	memset(&ip, 0, sizeof(ip));
	if (mask) {
		ip.ipv4_src = ip.ipv4_dst = ~0u;
		ip.ipv4_frag = 0xff;
		memset(&udp, 0, sizeof(udp));
	} else {
		uint8_t src[6] = { 0x02, 0, i >> 24, i >> 16, i >> 8, i };
		uint8_t dst[6] = { 0x02, 1, 0, 0, i >> 18, i >> 10 };

		memcpy(eth.eth_src, src, 6);
		memcpy(eth.eth_dst, dst, 6);
		ip.ipv4_src = htonl(0x0a000000 | (i & 0xffffff));
		ip.ipv4_dst = htonl(0x0b000000 | (i >> 6));
		ip.ipv4_proto = 17;
		ip.ipv4_ttl = 64;
	}
	mnl_attr_put_u32(h, OVS_KEY_ATTR_IN_PORT, mask ? ~0u : i & 3);
	mnl_attr_put(h, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	mnl_attr_put_u16(h, OVS_KEY_ATTR_ETHERTYPE, mask ? 0xffff
							 : htons(0x0800));
	mnl_attr_put(h, OVS_KEY_ATTR_IPV4, sizeof(ip), &ip);
	/* The packet's UDP ports, which the megaflow wildcards. */
	mnl_attr_put(h, OVS_KEY_ATTR_UDP, sizeof(udp), &udp);
	mnl_attr_nest_end(h, nest);
}

static struct nlmsghdr *
flow_new(char *buf, struct nl *nl, uint32_t tag, uint32_t i)
{
	struct nlmsghdr *h = ovs_put(buf, nl, nl->flow_fam, OVS_FLOW_CMD_NEW,
				     OVS_FLOW_VERSION,
				     NLM_F_CREATE | NLM_F_ACK);
	struct nlattr *acts;
	uint8_t ufid[16];

	put_key(h, OVS_FLOW_ATTR_KEY, i, false);
	put_key(h, OVS_FLOW_ATTR_MASK, i, true);
	make_ufid(ufid, tag, i);
	mnl_attr_put(h, OVS_FLOW_ATTR_UFID, 16, ufid);
	acts = mnl_attr_nest_start(h, OVS_FLOW_ATTR_ACTIONS);
	mnl_attr_put_u32(h, OVS_ACTION_ATTR_OUTPUT, OUT_PORT);
	mnl_attr_nest_end(h, acts);
	return h;
}

static struct nlmsghdr *
flow_del(char *buf, struct nl *nl, uint32_t tag, uint32_t i)
{
	struct nlmsghdr *h = ovs_put(buf, nl, nl->flow_fam, OVS_FLOW_CMD_DEL,
				     OVS_FLOW_VERSION, NLM_F_ACK);
	uint8_t ufid[16];

	make_ufid(ufid, tag, i);
	mnl_attr_put(h, OVS_FLOW_ATTR_UFID, 16, ufid);
	/* The reply need not carry the flow back. */
	mnl_attr_put_u32(h, OVS_FLOW_ATTR_UFID_FLAGS, OVS_UFID_F_OMIT_KEY |
			 OVS_UFID_F_OMIT_MASK | OVS_UFID_F_OMIT_ACTIONS);
	return h;
}

/* Sends the n requests in buf (len bytes, sequence numbers first..)
 * in one sendmsg and reads their n answers into errs[]. Returns 0 or the
 * socket's error (-ENOBUFS: answers were lost). */
static int
batch_run(struct nl *nl, const char *buf, size_t len, uint32_t first,
	  unsigned n, int *errs)
{
	unsigned got = 0;

	if (mnl_socket_sendto(nl->sock, buf, len) < 0)
		return -errno;
	while (got < n) {
		int r = nl_recv(nl);
		const struct nlmsghdr *h = (const void *)nl->buf;

		if (r < 0)
			return r;
		for (; mnl_nlmsg_ok(h, r); h = mnl_nlmsg_next(h, &r)) {
			uint32_t k = h->nlmsg_seq - first;

			if (h->nlmsg_type != NLMSG_ERROR || k >= n)
				continue;
			errs[k] = msg_err(h);
			got++;
		}
	}
	return 0;
}

/* A dump's outcome. */
struct dump_result {
	uint64_t flows, bytes;
	int err;			/* the socket's or NLMSG_DONE's */
	bool done, intr;
};

/* Dumps DP's flows; seen (if any) gets each CHURN_TAG UFID's index. */
static void
flow_dump(struct nl *nl, bool terse, uint8_t *seen, uint32_t set,
	  struct dump_result *r)
{
	char buf[MSG_MAX];
	struct nlmsghdr *req = ovs_put(buf, nl, nl->flow_fam, OVS_FLOW_CMD_GET,
				       OVS_FLOW_VERSION, NLM_F_DUMP);

	memset(r, 0, sizeof(*r));
	if (terse)
		mnl_attr_put_u32(req, OVS_FLOW_ATTR_UFID_FLAGS,
				 OVS_UFID_F_OMIT_KEY | OVS_UFID_F_OMIT_MASK |
				 OVS_UFID_F_OMIT_ACTIONS);
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0) {
		r->err = -errno;
		return;
	}
	while (!r->done) {
		int n = nl_recv(nl);
		const struct nlmsghdr *h = (const void *)nl->buf;

		if (n < 0) {
			r->err = n;
			return;
		}
		r->bytes += n;
		for (; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
			const struct nlattr *a;

			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				r->intr = true;
			if (h->nlmsg_type == NLMSG_DONE) {
				r->done = true;
				if (mnl_nlmsg_get_payload_len(h) >= 4)
					r->err = *(int *)mnl_nlmsg_get_payload(h);
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				r->err = msg_err(h);
				return;
			}
			if (h->nlmsg_type != nl->flow_fam)
				continue;
			r->flows++;
			if (!seen)
				continue;
			mnl_attr_for_each(a, h, GENL_HDRLEN +
					  sizeof(struct ovs_header)) {
				const uint8_t *u = mnl_attr_get_payload(a);
				uint32_t tag, i;

				if (mnl_attr_get_type(a) != OVS_FLOW_ATTR_UFID ||
				    mnl_attr_get_payload_len(a) != 16)
					continue;
				memcpy(&tag, u + 8, 4);
				memcpy(&i, u + 12, 4);
				if (tag == CHURN_TAG && i < set)
					seen[i]++;
			}
		}
	}
}

static void
check_n_flows(struct nl *nl, const char *dp, uint64_t want, const char *when)
{
	uint64_t n = n_flows(nl, dp);

	check(n == want, "n_flows %s: %llu (want %llu)", when,
	      (unsigned long long)n, (unsigned long long)want);
}

static int
cmd_flows(const char *dp, uint32_t n, unsigned batch, pid_t pid)
{
	char *buf = malloc((size_t)batch * MSG_MAX);
	int *errs = calloc(batch, sizeof(*errs));
	unsigned long bad = 0, lost = 0;
	double t, slowest = 0;
	time_t slowest_at = 0;		/* for the daemon's log */
	int first_err = 0;
	char at[16];
	struct dump_result r;
	struct nl nl;
	int err;

	if (!buf || !errs)
		die("malloc");
	nl_open(&nl);
	err = dp_request(&nl, OVS_DP_CMD_NEW, dp, NULL);
	check(!err, "datapath %s created (%s)", dp, strerror(-err));
	if (err)
		return 1;
	print_mem(pid, "before");
	check_n_flows(&nl, dp, 0, "before");

	t = now_s();
	for (uint32_t i = 0; i < n;) {
		uint32_t first = nl.seq + 1;
		unsigned k = 0;
		size_t len = 0;
		double bt;

		for (; k < batch && i < n; k++, i++)
			len += flow_new(buf + len, &nl, FLOW_TAG, i)->nlmsg_len;
		memset(errs, 0, k * sizeof(*errs));
		bt = now_s();
		err = batch_run(&nl, buf, len, first, k, errs);
		bt = now_s() - bt;
		if (bt > slowest) {
			slowest = bt;
			slowest_at = time(NULL);
		}
		if (err) {
			/* The answers of this batch are lost, not its puts. */
			lost++;
			if (!first_err)
				first_err = err;
			continue;
		}
		for (unsigned j = 0; j < k; j++)
			if (errs[j]) {
				bad++;
				if (!first_err)
					first_err = errs[j];
			}
	}
	t = now_s() - t;
	strftime(at, sizeof(at), "%H:%M:%S", gmtime(&slowest_at));
	printf("  installed %u flows in %.2f s: %.0f puts/s (%u per sendmsg; "
	       "the slowest sendmsg answered in %.1f ms, at %s UTC)\n", n, t,
	       n / t, batch, slowest * 1e3, at);
	check(!bad && !lost, "every put acknowledged without error (%lu "
	      "errors, %lu batches' answers lost; first: %s)", bad, lost,
	      strerror(-first_err));
	print_mem(pid, "after install");
	check_n_flows(&nl, dp, n, "after install");

	t = now_s();
	flow_dump(&nl, false, NULL, 0, &r);
	t = now_s() - t;
	printf("  dumped %llu flows in %.2f s: %llu bytes, %.0f flows/s\n",
	       (unsigned long long)r.flows, t, (unsigned long long)r.bytes,
	       r.flows / t);
	check(r.done && !r.err, "the dump ends with NLMSG_DONE and no error "
	      "(%s)", strerror(-r.err));
	check(r.flows == n, "the dump counts %llu flows (want %u)",
	      (unsigned long long)r.flows, n);
	print_mem(pid, "after dump");
	check_n_flows(&nl, dp, n, "after dump");

	{
		char req[MSG_MAX];
		struct nlmsghdr *h = ovs_put(req, &nl, nl.flow_fam,
					     OVS_FLOW_CMD_DEL,
					     OVS_FLOW_VERSION, NLM_F_ACK);

		t = now_s();
		err = nl_transact(&nl, h, NULL, NULL);
		t = now_s() - t;
	}
	printf("  flushed in %.3f s\n", t);
	check(!err, "the flush is acknowledged (%s)", strerror(-err));
	print_mem(pid, "after flush");
	check_n_flows(&nl, dp, 0, "after flush");
	nl_close(&nl);
	return failed ? 1 : 0;
}

static int
vport_request(struct nl *nl, uint8_t cmd, const char *name)
{
	char buf[MSG_MAX];
	struct nlmsghdr *h = ovs_put(buf, nl, nl->vport_fam, cmd,
				     OVS_VPORT_VERSION, NLM_F_ACK | NLM_F_ECHO);

	mnl_attr_put_strz(h, OVS_VPORT_ATTR_NAME, name);
	if (cmd == OVS_VPORT_CMD_NEW) {
		mnl_attr_put_u32(h, OVS_VPORT_ATTR_TYPE,
				 OVS_VPORT_TYPE_INTERNAL);
		mnl_attr_put_u32(h, OVS_VPORT_ATTR_UPCALL_PID, 0);
	}
	return nl_transact(nl, h, NULL, NULL);
}

static int
cmd_ports(const char *dp, uint32_t n, bool add)
{
	unsigned long bad = 0;
	int first_err = 0;
	struct nl nl;
	double t;

	dp_open(&nl, dp);
	t = now_s();
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		int err;

		snprintf(name, sizeof(name), "fl%u", i);
		err = vport_request(&nl, add ? OVS_VPORT_CMD_NEW
					     : OVS_VPORT_CMD_DEL, name);
		if (err) {
			bad++;
			if (!first_err)
				first_err = err;
		}
	}
	t = now_s() - t;
	printf("  %s %u internal ports in %.2f s: %.0f ports/s\n",
	       add ? "added" : "deleted", n, t, n / t);
	check(!bad, "every port %s (%lu errors; first: %s)",
	      add ? "added" : "deleted", bad, strerror(-first_err));
	if (add) {
		char buf[MSG_MAX];
		struct nlmsghdr *h = ovs_put(buf, &nl, nl.vport_fam,
					     OVS_VPORT_CMD_GET,
					     OVS_VPORT_VERSION, NLM_F_DUMP);
		unsigned long ports = 0;
		bool done = false;
		int err = 0;

		if (mnl_socket_sendto(nl.sock, h, h->nlmsg_len) < 0)
			die("send");
		while (!done && !err) {
			int r = nl_recv(&nl);
			const struct nlmsghdr *m = (const void *)nl.buf;

			if (r < 0) {
				err = r;
				break;
			}
			for (; mnl_nlmsg_ok(m, r);
			     m = mnl_nlmsg_next(m, &r)) {
				if (m->nlmsg_type == NLMSG_DONE)
					done = true;
				else if (m->nlmsg_type == NLMSG_ERROR)
					err = msg_err(m);
				else if (m->nlmsg_type == nl.vport_fam)
					ports++;
			}
		}
		check(done && !err && ports == n + 1, "the port dump counts "
		      "%lu ports (want %u + the local port; %s)", ports, n,
		      strerror(-err));
	}
	nl_close(&nl);
	return failed ? 1 : 0;
}

/* What each churn process reports, in memory shared with the parent. */
struct client_stats {
	uint64_t dumps, intr, errors, not_done, flows;
	int first_err;
	double slowest;			/* a whole dump's time */
};

struct churn_stats {
	uint64_t ops, errors;
	int first_err;
	double secs, slowest;		/* slowest: a batch's answers */
};

static volatile sig_atomic_t stop;

static void
on_alarm(int sig)
{
	stop = 1;
}

static void
dumper(const char *dp, unsigned secs, struct client_stats *s)
{
	struct dump_result r;
	struct nl nl;

	dp_open(&nl, dp);
	signal(SIGALRM, on_alarm);
	alarm(secs);
	while (!stop) {
		double t = now_s();

		/* Half the clients dump as revalidators do, tersely. */
		flow_dump(&nl, getpid() & 1, NULL, 0, &r);
		t = now_s() - t;
		if (t > s->slowest)
			s->slowest = t;
		if (r.err == -EINTR && r.intr) {
			s->intr++;
			continue;
		}
		if (r.err || !r.done) {
			s->errors += !!r.err;
			s->not_done += !r.done;
			if (!s->first_err)
				s->first_err = r.err;
			/* A failed socket read has nothing more to give. */
			if (r.err && !r.done)
				break;
			continue;
		}
		s->intr += r.intr;
		s->dumps++;
		s->flows += r.flows;
	}
	nl_close(&nl);
}

/* Adds and deletes flows at random over [0, set), BATCH per sendmsg,
 * keeping installed[] as the daemon should. */
static void
churner(const char *dp, unsigned secs, uint32_t set, uint8_t *installed,
	struct churn_stats *s)
{
	enum { BATCH = 50 };
	char *buf = malloc(BATCH * MSG_MAX);
	int errs[BATCH];
	uint32_t idx[BATCH];
	uint64_t rnd = getpid();
	struct nl nl;
	double t;

	if (!buf)
		die("malloc");
	dp_open(&nl, dp);
	signal(SIGALRM, on_alarm);
	alarm(secs);
	t = now_s();
	while (!stop) {
		uint32_t first = nl.seq + 1;
		size_t len = 0;
		double bt;
		int err;

		for (unsigned k = 0; k < BATCH; k++) {
			rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
			idx[k] = (rnd >> 33) % set;
			/* The state after the requests before it in the batch. */
			installed[idx[k]] ^= 1;
			len += (installed[idx[k]] ? flow_new : flow_del)
				(buf + len, &nl, CHURN_TAG, idx[k])->nlmsg_len;
		}
		bt = now_s();
		err = batch_run(&nl, buf, len, first, BATCH, errs);
		bt = now_s() - bt;
		if (bt > s->slowest)
			s->slowest = bt;
		if (err) {
			/* The answers are lost: the state is unknown. */
			s->errors++;
			s->first_err = err;
			break;
		}
		for (unsigned k = 0; k < BATCH; k++)
			if (errs[k]) {
				s->errors++;
				if (!s->first_err)
					s->first_err = errs[k];
			}
		s->ops += BATCH;
	}
	s->secs = now_s() - t;
	nl_close(&nl);
	free(buf);
}

static void *
shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static int
cmd_churn(const char *dp, unsigned clients, unsigned secs, uint32_t set,
	  pid_t pid)
{
	struct client_stats *cs = shared(clients * sizeof(*cs));
	struct churn_stats *chs = shared(sizeof(*chs));
	uint8_t *installed = shared(set), *seen = calloc(set, 1);
	uint64_t dumps = 0, intr = 0, errors = 0, not_done = 0, flows = 0;
	double slowest = 0;
	unsigned long want = 0, missing = 0, extra = 0, twice = 0;
	int fds0 = fd_count(pid), fds = -1, first_err = 0, status;
	long rss0 = proc_kib(pid, "VmRSS"), rss;
	bool children_ok = true;
	struct dump_result r;
	struct nl nl;

	if (!seen)
		die("calloc");
	printf("  daemon before: %d descriptors, VmRSS %ld KiB\n", fds0, rss0);
	fflush(stdout);
	for (unsigned c = 0; c <= clients; c++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (p)
			continue;
		if (c < clients)
			dumper(dp, secs, &cs[c]);
		else
			churner(dp, secs, set, installed, chs);
		_exit(0);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			children_ok = false;
	check(children_ok, "every client exited cleanly");
	for (unsigned c = 0; c < clients; c++) {
		dumps += cs[c].dumps;
		intr += cs[c].intr;
		errors += cs[c].errors;
		not_done += cs[c].not_done;
		flows += cs[c].flows;
		if (cs[c].slowest > slowest)
			slowest = cs[c].slowest;
		if (!first_err)
			first_err = cs[c].first_err;
	}
	printf("  %u clients dumped %llu times in %u s (%.1f dumps/s, %.0f "
	       "flows per dump, the slowest in %.0f ms), %llu flagged "
	       "NLM_F_DUMP_INTR\n", clients, (unsigned long long)dumps, secs,
	       (double)dumps / secs, dumps ? (double)flows / dumps : 0.0,
	       slowest * 1e3, (unsigned long long)intr);
	printf("  the churner made %llu changes in %.1f s: %.0f ops/s (50 per "
	       "sendmsg; the slowest answered in %.1f ms)\n",
	       (unsigned long long)chs->ops, chs->secs, chs->ops / chs->secs,
	       chs->slowest * 1e3);
	check(dumps > 0 && !errors && !not_done, "every dump ended with "
	      "NLMSG_DONE and no error (%llu errors, %llu without DONE; "
	      "first: %s)", (unsigned long long)errors,
	      (unsigned long long)not_done, strerror(-first_err));
	check(chs->ops > 0 && !chs->errors, "every change acknowledged "
	      "without error (%llu errors; first: %s)",
	      (unsigned long long)chs->errors, strerror(-chs->first_err));

	dp_open(&nl, dp);
	flow_dump(&nl, false, seen, set, &r);
	for (uint32_t i = 0; i < set; i++) {
		want += installed[i];
		missing += installed[i] && !seen[i];
		extra += !installed[i] && seen[i];
		twice += seen[i] > 1;
	}
	check(r.done && !r.err && !missing && !extra && !twice &&
	      r.flows == want, "the flow table is what the churner holds "
	      "installed: %llu flows dumped, %lu held (%lu missing, %lu "
	      "extra, %lu twice)", (unsigned long long)r.flows, want, missing,
	      extra, twice);
	check_n_flows(&nl, dp, want, "after churn");
	nl_close(&nl);

	/* The daemon closes a connection when it sees it hang up. */
	for (int i = 0; i < 100 && (fds = fd_count(pid)) > fds0; i++)
		usleep(100000);
	rss = proc_kib(pid, "VmRSS");
	printf("  daemon after: %d descriptors, VmRSS %ld KiB, VmHWM %ld KiB\n",
	       fds, rss, proc_kib(pid, "VmHWM"));
	check(fds == fds0, "the daemon's descriptors are back: %d (before "
	      "%d)", fds, fds0);
	/* Back near the start: at most the working set's flows (about 1
	 * KiB each) and what the allocator keeps, not what the connections
	 * held nor anything growing with the time the churn ran. */
	check(rss <= rss0 + 32768, "the daemon's VmRSS is back near the "
	      "start: %ld KiB (before %ld KiB, at most 32 MiB more)", rss,
	      rss0);
	return failed ? 1 : 0;
}

static unsigned long
arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || !*s) {
		fprintf(stderr, "flow-load: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "flows") && argc == 6)
		rc = cmd_flows(argv[2], arg(argv[3]), arg(argv[4]) ?: 1,
			       arg(argv[5]));
	else if (!strcmp(cmd, "ports-add") && argc == 4)
		rc = cmd_ports(argv[2], arg(argv[3]), true);
	else if (!strcmp(cmd, "ports-del") && argc == 4)
		rc = cmd_ports(argv[2], arg(argv[3]), false);
	else if (!strcmp(cmd, "churn") && argc == 7)
		rc = cmd_churn(argv[2], arg(argv[3]), arg(argv[4]),
			       arg(argv[5]) ?: 1, arg(argv[6]));
	else if (!strcmp(cmd, "dp-del") && argc == 3) {
		struct nl nl;
		int err;

		nl_open(&nl);
		err = dp_request(&nl, OVS_DP_CMD_DEL, argv[2], NULL);
		check(!err, "datapath %s deleted (%s)", argv[2],
		      strerror(-err));
		nl_close(&nl);
		rc = !!err;
	} else {
		fprintf(stderr, "usage: see bench/flow-load.c\n");
		return 2;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return rc;
}
