/* SPDX-License-Identifier: Apache-2.0 */
/* The journal of the datapath's state (datapath/journal.h): a state built
 * through the families in one context, replayed from the journal's memfd
 * into a fresh context, is the same state as the families' dumps and the
 * tables show it (datapaths, ports and their numbers, flows by UFID or key
 * with their masks and actions, meters, conntrack limits); a journal cut
 * anywhere in its last record replays what came before it; compaction
 * shrinks a journal after churn and keeps the state; what is not a journal
 * is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/net_namespace.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <urcu.h>

#include "ct/conntrack.h"
#include "ct/timeout.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"
#include "tap/tnl-dev.h"

#define HDR		sizeof(struct ovs_header)

/* The context the state is built in; replays go to fresh ones. */
static struct dp_net *net;

static struct dp_net *
fresh_net(void)
{
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.port_ops = fake_port_ops,
	};
	struct dp_net *n = dp_net_new(&cfg);

	assert_non_null(n);
	return n;
}

/* Removes n's datapaths and conntrack limits, behind the journal's back
 * (as a daemon's death does). */
static void
clear_net(struct dp_net *n)
{
	struct conntrack *ct = dp_net_conntrack_made(n);
	struct datapath *dp;
	int zone = -1;

	while ((dp = dp_at(n, 0)))
		dp_destroy(dp);
	rcu_barrier();
	if (!ct)
		return;
	conntrack_limit_set_default(ct, 0);
	while (conntrack_limit_next(ct, &zone))
		conntrack_limit_del(ct, zone);
	ct_timeout_del(conntrack_timeouts(ct), NULL);
}

/* --- Requests ----------------------------------------------------------- */

/* Sends the request with NLM_F_ACK; its error (0: done), the reply it
 * may have had in f->rep before. */
static int
transact(struct fx *f)
{
	ssize_t n;

	((struct nlmsghdr *)f->req.buf)->nlmsg_flags |= NLM_F_ACK;
	send_req(f);
	for (;;) {
		n = recv_rep(f);
		assert_true(n > 0);
		if (((struct nlmsghdr *)f->rep)->nlmsg_type == NLMSG_ERROR)
			return rep_error(f, n);
	}
}

static void
ovs_req(struct fx *f, uint16_t family, uint16_t flags, uint8_t cmd,
	int ifindex)
{
	struct ovs_header *hdr = req_start(f, family, flags, cmd, HDR);

	hdr->dp_ifindex = ifindex;
}

static int
dp_new(struct fx *f, const char *name, uint32_t features)
{
	struct dp_net *n = nlsock_net(f->sk);

	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, HDR);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, name);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_UPCALL_PID, 1000);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES, features);
	req_end(f);
	assert_int_equal(transact(f), 0);
	return dp_ifindex(dp_by_name(n, name));
}

static void
port_new(struct fx *f, int ifindex, const char *name, uint32_t port_no,
	 unsigned n_pids)
{
	/* At most the machine's CPUs (dp_nr_cpu_ids), and it may have 1. */
	uint32_t pids[2] = { 11, 12 };

	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_NEW, ifindex);
	msgbuf_put_string(&f->req, OVS_VPORT_ATTR_NAME, name);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE, OVS_VPORT_TYPE_INTERNAL);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_UPCALL_PID,
		   n_pids * sizeof(uint32_t), pids);
	if (port_no)
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, port_no);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
port_del(struct fx *f, int ifindex, uint32_t port_no)
{
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_DEL, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, port_no);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
port_set_pids(struct fx *f, int ifindex, uint32_t port_no, uint32_t pid)
{
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, port_no);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_UPCALL_PID, pid);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
src_of(unsigned i, uint8_t src[6])
{
	memcpy(src, fb_mac_src, 6);
	src[3] = i >> 16;
	src[4] = i >> 8;
	src[5] = i;
}

static void
ufid_of(unsigned i, uint8_t ufid[16])
{
	memset(ufid, 0x5a, 16);
	memcpy(ufid, &i, sizeof(i));
}

/* Flow i: with a UFID unless i % 10 == 9, masked on its source address
 * when i is even, output to port. A NEW asks for a new flow (NLM_F_CREATE)
 * unless told to replace. */
static void
flow_put(struct fx *f, int ifindex, uint8_t cmd, unsigned i, uint32_t port,
	 bool replace)
{
	uint8_t src[6], ufid[16];
	struct nlattr *nest;

	src_of(i, src);
	ufid_of(i, ufid);
	ovs_req(f, FAMILY_ID_FLOW,
		cmd == OVS_FLOW_CMD_NEW && !replace ? NLM_F_CREATE : 0, cmd,
		ifindex);
	if (i % 10 != 9)
		msgbuf_put(&f->req, OVS_FLOW_ATTR_UFID, sizeof(ufid), ufid);
	fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1 + i % 3, src);
	if (i % 2 == 0) {
		struct ovs_key_ethernet eth = { 0 };

		memset(eth.eth_src, 0xff, sizeof(eth.eth_src));
		nest = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_MASK);
		msgbuf_put_u32(&f->req, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
		msgbuf_put(&f->req, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
		msgbuf_put_u16(&f->req, OVS_KEY_ATTR_ETHERTYPE, 0xffff);
		msgbuf_nest_end(&f->req, nest);
	}
	nest = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_ACTIONS);
	msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_OUTPUT, port);
	if (port % 2)
		msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_METER, 7);
	msgbuf_nest_end(&f->req, nest);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
flow_del(struct fx *f, int ifindex, unsigned i)
{
	uint8_t src[6], ufid[16];

	src_of(i, src);
	ufid_of(i, ufid);
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_DEL, ifindex);
	if (i % 10 != 9)
		msgbuf_put(&f->req, OVS_FLOW_ATTR_UFID, sizeof(ufid), ufid);
	else
		fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1 + i % 3, src);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
meter_set(struct fx *f, int ifindex, uint32_t id, uint32_t rate, bool kbps)
{
	struct nlattr *bands, *band;

	ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, id);
	if (kbps)
		msgbuf_put(&f->req, OVS_METER_ATTR_KBPS, 0, NULL);
	bands = msgbuf_nest_start(&f->req, OVS_METER_ATTR_BANDS);
	band = msgbuf_nest_start(&f->req, OVS_BAND_ATTR_UNSPEC);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_RATE, rate);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_BURST, rate / 2);
	msgbuf_nest_end(&f->req, band);
	msgbuf_nest_end(&f->req, bands);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
meter_del(struct fx *f, int ifindex, uint32_t id)
{
	ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_DEL, ifindex);
	msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, id);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

static void
ct_limit(struct fx *f, uint8_t cmd, int zone, uint32_t limit)
{
	struct ovs_zone_limit zl = { .zone_id = zone, .limit = limit };
	struct nlattr *nest;

	ovs_req(f, FAMILY_ID_CT_LIMIT, 0, cmd, 0);
	nest = msgbuf_nest_start(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT);
	msgbuf_put_raw(&f->req, &zl, sizeof(zl));
	msgbuf_nest_end(&f->req, nest);
	req_end(f);
	assert_int_equal(transact(f), 0);
}

/* A cttimeout request (NETLINK_NETFILTER): a policy for UDP over IPv4
 * with its first value (0: none, as DELETE sends). */
static void
policy(struct fx *f, uint8_t msg, uint16_t flags, const char *name,
       uint32_t first)
{
	struct nfgenmsg *nf = req_msg(f, NFNL_SUBSYS_CTNETLINK_TIMEOUT << 8 |
					 msg, flags, sizeof(*nf));
	struct nlattr *data;

	nf->nfgen_family = AF_UNSPEC;
	if (name)
		msgbuf_put_string(&f->req, CTA_TIMEOUT_NAME, name);
	if (first) {
		msgbuf_put_u16(&f->req, CTA_TIMEOUT_L3PROTO, htons(AF_INET));
		msgbuf_put_u8(&f->req, CTA_TIMEOUT_L4PROTO, IPPROTO_UDP);
		data = msgbuf_nest_start(&f->req,
					 CTA_TIMEOUT_DATA | NLA_F_NESTED);
		msgbuf_put_u32(&f->req, CTA_TIMEOUT_UDP_UNREPLIED,
			       htonl(first));
		msgbuf_nest_end(&f->req, data);
	}
	req_end(f);
	assert_int_equal(transact(f), 0);
}

/* --- Snapshots of a context's state, as sorted lines --------------------- */

struct snap {
	char **line;
	size_t n, cap;
};

static void
snap_add(struct snap *s, const char *fmt, ...)
{
	va_list ap;
	char *l;

	va_start(ap, fmt);
	assert_true(vasprintf(&l, fmt, ap) >= 0);
	va_end(ap);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->line = realloc(s->line, s->cap * sizeof(*s->line));
		assert_non_null(s->line);
	}
	s->line[s->n++] = l;
}

static char *
hex(const void *p, size_t len)
{
	static char buf[4][8192];
	static unsigned k;
	char *out = buf[k++ % 4];
	const uint8_t *b = p;

	assert_true(2 * len < sizeof(buf[0]));
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * len] = 0;
	return out;
}

struct dump_ctx {
	struct snap *s;
	const char *dp;
	const uint16_t *keep;		/* 0-terminated; NULL: all */
};

/* A line of the message's attributes that ctx keeps, in their order. */
static void
dump_line(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_ctx *c = arg;
	size_t off = NLMSG_LENGTH(GENL_HDRLEN + HDR);
	char line[16384] = "";
	const struct nlattr *a;
	int rem;

	attr_for_each(a, (const char *)nlh + off, nlh->nlmsg_len - off, rem) {
		bool keep = !c->keep;

		for (const uint16_t *t = c->keep; t && *t; t++)
			keep |= *t == attr_type(a);
		if (keep)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %u=%s", attr_type(a),
				 hex(attr_data(a), attr_len(a)));
	}
	snap_add(c->s, "%u %s%s", nlh->nlmsg_type, c->dp, line);
}

static void
dump(struct fx *f, uint16_t family, uint8_t cmd, int ifindex,
     struct dump_ctx *c)
{
	ovs_req(f, family, NLM_F_DUMP, cmd, ifindex);
	req_end(f);
	dump_all(f, dump_line, c);
}

static int
cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
snapshot(struct dp_net *n, struct snap *s)
{
	static const uint16_t dp_keep[] = { OVS_DP_ATTR_NAME,
		OVS_DP_ATTR_USER_FEATURES, OVS_DP_ATTR_MASKS_CACHE_SIZE,
		OVS_DP_ATTR_PER_CPU_PIDS, 0 };
	static const uint16_t port_keep[] = { OVS_VPORT_ATTR_PORT_NO,
		OVS_VPORT_ATTR_TYPE, OVS_VPORT_ATTR_NAME,
		OVS_VPORT_ATTR_UPCALL_PID, OVS_VPORT_ATTR_OPTIONS, 0 };
	struct fx *f = fx_new(n, NETLINK_GENERIC, true);
	struct dump_ctx c = { .s = s, .dp = "", .keep = dp_keep };
	struct ct_timeout_info tp;
	struct datapath *dp;

	memset(s, 0, sizeof(*s));
	dump(f, FAMILY_ID_DATAPATH, OVS_DP_CMD_GET, 0, &c);
	for (unsigned i = 0; (dp = dp_at(n, i)); i++) {
		const struct meter_slots *ms = dp_meters(dp)->slots;
		const struct dp_pids *cpu = dp_cpu_pids(dp);

		snap_add(s, "dp %u %s cpu-pids %s", i, dp_name(dp),
			 cpu ? hex(cpu->pid, cpu->n * 4) : "-");
		c.dp = dp_name(dp);
		c.keep = port_keep;
		dump(f, FAMILY_ID_VPORT, OVS_VPORT_CMD_GET, dp_ifindex(dp), &c);
		c.keep = NULL;
		dump(f, FAMILY_ID_FLOW, OVS_FLOW_CMD_GET, dp_ifindex(dp), &c);
		for (uint32_t k = 0; k < ms->n; k++) {
			const struct meter *m = ms->m[k];

			if (!m)
				continue;
			snap_add(s, "meter %s %u kbps %d bands %u: %u %u %u",
				 dp_name(dp), m->id, m->kbps, m->n_bands,
				 m->bands[0].type, m->bands[0].rate,
				 m->bands[0].burst_size);
		}
	}
	ovs_req(f, FAMILY_ID_CT_LIMIT, 0, OVS_CT_LIMIT_CMD_GET, 0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_type,
			 FAMILY_ID_CT_LIMIT);
	dump_line((const struct nlmsghdr *)f->rep,
		  &(struct dump_ctx){ .s = s, .dp = "limits" });
	fx_free(f);
	for (size_t i = 0; dp_net_conntrack_made(n) &&
	     !ct_timeout_at(conntrack_timeouts(dp_net_conntrack_made(n)), i,
			    &tp); i++)
		snap_add(s, "policy %s %u %u %s", tp.name, tp.l3num, tp.l4num,
			 hex(tp.values, sizeof(tp.values)));
	qsort(s->line, s->n, sizeof(*s->line), cmp_line);
}

static void
snap_free(struct snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->line[i]);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

static void
assert_same(const struct snap *a, const struct snap *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (strcmp(a->line[i], b->line[i])) {
			print_error("line %zu:\n  %s\n  %s\n", i, a->line[i],
				    b->line[i]);
			fail();
		}
	assert_int_equal(a->n, b->n);
}

static size_t
snap_count(const struct snap *s, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !strncmp(s->line[i], prefix, strlen(prefix));
	return n;
}

/* --- The journal's memfd ----------------------------------------------- */

/* A copy of the journal's file, as a new memfd. */
static int
copy_journal(void)
{
	int fd = journal_fd(net), out = memfd_create("copy", MFD_CLOEXEC);
	struct stat st;
	void *p;

	assert_true(out >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(out, st.st_size), 0);
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(pwrite(out, p, st.st_size, 0), st.st_size);
	munmap(p, st.st_size);
	return out;
}

/* What the successor does: adopts fd and replays it into a fresh
 * context, which it returns with its snapshot and journal. */
static struct dp_net *
adopt_replay(int fd, struct snap *s)
{
	struct dp_net *n = fresh_net();

	assert_int_equal(journal_open(n, fd), 0);
	assert_int_equal(journal_replay(n), 0);
	snapshot(n, s);
	return n;
}

static void
drop_net(struct dp_net *n)
{
	clear_net(n);
	dp_net_destroy(n);
	rcu_barrier();
}

/* The state of the first test: three datapaths, ports deleted and added
 * again under chosen numbers, features and per-CPU pids, flows some of
 * which are deleted or have their actions replaced, meters, limits. */
static void
build_state(struct fx *f)
{
	uint32_t cpu_pids[1] = { 21 };
	struct fx *nf;
	int ifi[3];
	char name[16];

	ifi[0] = dp_new(f, "jdp0", OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS);
	ifi[1] = dp_new(f, "jdp1", 0);
	ifi[2] = dp_new(f, "jdp2", OVS_DP_F_VPORT_PIDS);
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_SET, HDR);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "jdp1");
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES,
		       OVS_DP_F_DISPATCH_UPCALL_PER_CPU);
	msgbuf_put(&f->req, OVS_DP_ATTR_PER_CPU_PIDS, sizeof(cpu_pids),
		   cpu_pids);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_MASKS_CACHE_SIZE, 64);
	req_end(f);
	assert_int_equal(transact(f), 0);
	for (int d = 0; d < 3; d++) {
		for (int p = 1; p <= 4; p++) {
			snprintf(name, sizeof(name), "jp%d-%d", d, p);
			port_new(f, ifi[d], name, 0, 1 + (p + d) % 2);
		}
		port_del(f, ifi[d], 2);
		port_del(f, ifi[d], 3);
		snprintf(name, sizeof(name), "jp%d-9", d);
		port_new(f, ifi[d], name, 9 + d, 2);
		snprintf(name, sizeof(name), "jp%d-2", d);
		port_new(f, ifi[d], name, 0, 2);
		port_set_pids(f, ifi[d], 4, 40 + d);
	}
	port_set_pids(f, ifi[2], OVSP_LOCAL, 77);
	meter_set(f, ifi[0], 7, 1000, true);
	meter_set(f, ifi[0], 8, 2000, false);
	meter_set(f, ifi[0], 9, 3000, false);
	meter_set(f, ifi[0], 8, 2500, true);
	meter_del(f, ifi[0], 9);
	meter_set(f, ifi[1], 1, 100, false);
	for (unsigned i = 0; i < 1000; i++)
		flow_put(f, ifi[0], OVS_FLOW_CMD_NEW, i, 2 + i % 5, false);
	for (unsigned i = 0; i < 1000; i += 7)
		flow_del(f, ifi[0], i);
	/* Actions replaced, of flows that are there (SET) or not (a NEW
	 * without NLM_F_CREATE makes them again). */
	for (unsigned i = 1; i < 1000; i += 5)
		flow_put(f, ifi[0], i % 2 || i % 7 == 0 ? OVS_FLOW_CMD_NEW
						       : OVS_FLOW_CMD_SET,
			 i, 30 + i % 4, true);
	for (unsigned i = 0; i < 60; i++)
		flow_put(f, ifi[1], OVS_FLOW_CMD_NEW, i, 4, false);
	/* A flush, then flows again. */
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_DEL, ifi[1]);
	req_end(f);
	assert_int_equal(transact(f), 0);
	for (unsigned i = 100; i < 110; i++)
		flow_put(f, ifi[1], OVS_FLOW_CMD_NEW, i, 1, false);
	ct_limit(f, OVS_CT_LIMIT_CMD_SET, OVS_ZONE_LIMIT_DEFAULT_ZONE, 10);
	ct_limit(f, OVS_CT_LIMIT_CMD_SET, 1, 5);
	ct_limit(f, OVS_CT_LIMIT_CMD_SET, 2, 7);
	ct_limit(f, OVS_CT_LIMIT_CMD_SET, 3, 8);
	ct_limit(f, OVS_CT_LIMIT_CMD_DEL, 2, 0);
	nf = fx_new(nlsock_net(f->sk), NETLINK_NETFILTER, true);
	policy(nf, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_CREATE, "jtp1", 10);
	policy(nf, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_CREATE, "jtp2", 20);
	policy(nf, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_CREATE, "jtp3", 30);
	policy(nf, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_CREATE | NLM_F_REPLACE,
	       "jtp2", 25);
	policy(nf, IPCTNL_MSG_TIMEOUT_DELETE, 0, "jtp1", 0);
	fx_free(nf);
}

static int
setup(void **state)
{
	assert_int_equal(journal_open(net, -1), 0);
	*state = fx_new(net, NETLINK_GENERIC, true);
	return 0;
}

static int
teardown(void **state)
{
	fx_free(*state);
	clear_net(net);
	journal_close(net);
	return 0;
}

static void
test_replay(void **state)
{
	struct snap before, after;
	char prefix[32];
	struct dp_net *n;

	build_state(*state);
	snapshot(net, &before);
	/* What the test built is there to compare. */
	assert_int_equal(snap_count(&before, "dp "), 3);
	snprintf(prefix, sizeof(prefix), "%u jdp0 ", FAMILY_ID_FLOW);
	assert_true(snap_count(&before, prefix) > 800);
	assert_int_equal(snap_count(&before, "meter "), 3);
	assert_int_equal(snap_count(&before, "policy "), 2);
	clear_net(net);
	n = adopt_replay(dup(journal_fd(net)), &after);
	assert_same(&before, &after);
	snap_free(&after);
	/* A second successor, from the journal the first one kept and
	 * compacted: every object as its family writes it whole. */
	assert_int_equal(journal_compact(n), 0);
	clear_net(n);
	drop_net(adopt_replay(dup(journal_fd(n)), &after));
	dp_net_destroy(n);
	assert_same(&before, &after);
	snap_free(&before);
	snap_free(&after);
}

/* Counters a test sets on every flow of n: a function of its key. */
static uint64_t
key_sum(const struct flow *fl)
{
	const uint8_t *b = (const uint8_t *)&fl->key;
	uint64_t sum = 1;

	for (size_t i = 0; i < sizeof(fl->key); i++)
		sum = sum * 31 + b[i];
	return sum;
}

/* Sets the counters of n's flows; how many. */
static size_t
flow_counts_set(struct dp_net *n)
{
	struct datapath *dp;
	struct flow *fl;
	size_t count = 0;

	for (unsigned d = 0; (dp = dp_at(n, d)); d++)
		for (uint64_t c = 0; (fl = dp_flow_dump_next(dp, &c)); count++) {
			fl->stats->packets = key_sum(fl);
			fl->stats->bytes = key_sum(fl) * 2;
			fl->stats->used_ms = 77;
			fl->stats->tcp_flags = 0x12;
		}
	return count;
}

/* How many of n's flows have the counters flow_counts_set gave them;
 * the others must have none (*zero of them). */
static size_t
flow_counts_check(struct dp_net *n, size_t *zero)
{
	struct datapath *dp;
	struct flow *fl;
	size_t count = 0;

	*zero = 0;
	for (unsigned d = 0; (dp = dp_at(n, d)); d++)
		for (uint64_t c = 0; (fl = dp_flow_dump_next(dp, &c));) {
			if (!fl->stats->packets && !fl->stats->bytes &&
			    !fl->stats->used_ms && !fl->stats->tcp_flags) {
				(*zero)++;
				continue;
			}
			assert_int_equal(fl->stats->packets, key_sum(fl));
			assert_int_equal(fl->stats->bytes, key_sum(fl) * 2);
			assert_int_equal(fl->stats->used_ms, 77);
			assert_int_equal(fl->stats->tcp_flags, 0x12);
			count++;
		}
	return count;
}

/* A successor of n, from copies of the files the keeper holds for it. */
static struct dp_net *
take_kept(struct dp_net *n)
{
	struct dp_net *s = fresh_net();
	int fds[2];
	bool renewed;

	assert_int_equal(journal_keep_fds(n, fds), 2);
	fds[0] = dup(fds[0]);
	fds[1] = dup(fds[1]);
	clear_net(n);
	assert_int_equal(journal_open_kept(s, fds, 2, &renewed), 0);
	assert_false(renewed);
	assert_int_equal(journal_replay(s), 0);
	return s;
}

/* Flows' counters outlive the daemon: each flow a successor's replay
 * makes again has the counts it had, to the packet; so after a second
 * successor, from a journal the first compacted; and a flow made after
 * a takeover starts at zero, taking none of theirs. */
static void
test_flow_counters(void **state)
{
	struct fx *f2;
	struct dp_net *n, *m;
	size_t count, zero;
	int ifindex;

	build_state(*state);
	count = flow_counts_set(net);
	assert_true(count > 800);
	n = take_kept(net);
	assert_int_equal(flow_counts_check(n, &zero), count);
	assert_int_equal(zero, 0);
	assert_int_equal(journal_compact(n), 0);
	f2 = fx_new(n, NETLINK_GENERIC, true);
	ifindex = dp_ifindex(dp_by_name(n, "jdp1"));
	for (unsigned i = 2000; i < 2010; i++)
		flow_put(f2, ifindex, OVS_FLOW_CMD_NEW, i, 1, false);
	fx_free(f2);
	m = take_kept(n);
	/* The ten new flows have no counts; the others theirs. */
	assert_int_equal(flow_counts_check(m, &zero), count);
	assert_int_equal(zero, 10);
	dp_net_destroy(n);
	drop_net(m);
}

/* A daemon killed while appending its last record leaves the bytes of a
 * part of it after the records: they replay as if it never came. */
static void
test_cut_last_record(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "jcut", OVS_DP_F_VPORT_PIDS);
	struct snap want, whole, got;
	unsigned char *a, *b;
	size_t used, len, first;
	struct stat st;
	int fa, fb;

	port_new(f, ifindex, "jcut-1", 0, 2);
	flow_put(f, ifindex, OVS_FLOW_CMD_NEW, 3, 1, false);
	snapshot(net, &want);
	fa = copy_journal();
	used = journal_used(net);
	flow_put(f, ifindex, OVS_FLOW_CMD_NEW, 4, 1, false);
	snapshot(net, &whole);
	fb = copy_journal();
	len = journal_used(net) - used;
	clear_net(net);
	assert_int_equal(fstat(fb, &st), 0);
	a = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 0);
	b = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fb, 0);
	assert_true(a != MAP_FAILED && b != MAP_FAILED);
	/* The record is where the two first differ past the header page. */
	for (first = 4096; a[first] == b[first]; first++)
		;
	for (size_t k = 0; k < len; k++) {
		struct dp_net *n;

		a[first + k] = b[first + k];
		n = adopt_replay(dup(fa), &got);
		assert_same(&want, &got);
		snap_free(&got);
		drop_net(n);
	}
	munmap(a, st.st_size);
	munmap(b, st.st_size);
	drop_net(adopt_replay(fb, &got));
	assert_same(&whole, &got);
	/* A file cut short of its records is not a journal. */
	journal_close(net);
	assert_int_equal(ftruncate(fa, first - 4), 0);
	assert_int_equal(journal_open(net, fa), -EINVAL);
	close(fa);
	assert_int_equal(journal_open(net, -1), 0);
	snap_free(&want);
	snap_free(&whole);
	snap_free(&got);
}

static void
test_compact(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "jcomp", 0);
	struct snap want, got;
	struct dp_net *n;
	size_t churned;
	int fd;

	port_new(f, ifindex, "jcomp-1", 0, 1);
	port_new(f, ifindex, "jcomp-2", 0, 1);
	for (unsigned round = 0; round < 8; round++)
		for (unsigned i = 0; i < 2000; i++) {
			if (round)
				flow_del(f, ifindex, i);
			flow_put(f, ifindex, OVS_FLOW_CMD_NEW, i, 1 + round, false);
		}
	for (unsigned i = 500; i < 2000; i++)
		flow_del(f, ifindex, i);
	churned = journal_used(net);
	assert_true(churned > (2 << 20));
	journal_maybe_compact(net);
	assert_true(journal_used(net) < churned / 10);
	snapshot(net, &want);
	clear_net(net);
	n = adopt_replay(dup(journal_fd(net)), &got);
	assert_same(&want, &got);
	snap_free(&got);
	snap_free(&want);
	/* The successor compacts again, with records after it. */
	f = fx_new(n, NETLINK_GENERIC, true);
	ifindex = dp_ifindex(dp_by_name(n, "jcomp"));
	assert_int_equal(journal_compact(n), 0);
	flow_put(f, ifindex, OVS_FLOW_CMD_NEW, 3000, 1, false);
	assert_int_equal(journal_compact(n), 0);
	flow_put(f, ifindex, OVS_FLOW_CMD_NEW, 3001, 2, false);
	flow_del(f, ifindex, 3);
	fx_free(f);
	snapshot(n, &want);
	fd = dup(journal_fd(n));
	drop_net(n);
	drop_net(adopt_replay(fd, &got));
	assert_same(&want, &got);
	snap_free(&want);
	snap_free(&got);
}

/* RTM_NEWLINK of a collect-metadata device of kind on UDP port. */
static void
link_new(struct fx *rt, const char *name, const char *kind, uint16_t port)
{
	struct nlattr *info, *data;
	bool vxlan = !strcmp(kind, "vxlan");

	req_msg(rt, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		sizeof(struct ifinfomsg));
	msgbuf_put_string(&rt->req, IFLA_IFNAME, name);
	info = msgbuf_nest_start(&rt->req, IFLA_LINKINFO);
	msgbuf_put_string(&rt->req, IFLA_INFO_KIND, kind);
	data = msgbuf_nest_start(&rt->req, IFLA_INFO_DATA);
	msgbuf_put(&rt->req, vxlan ? IFLA_VXLAN_COLLECT_METADATA
				   : IFLA_GENEVE_COLLECT_METADATA,
		   vxlan ? 1 : 0, &(uint8_t){ 1 });
	msgbuf_put_u16(&rt->req, vxlan ? IFLA_VXLAN_PORT : IFLA_GENEVE_PORT,
		       htons(port));
	msgbuf_nest_end(&rt->req, data);
	msgbuf_nest_end(&rt->req, info);
	assert_int_equal(ask(rt), 0);
}

/* The daemon's tunnel devices, forgotten (their TAPs closed) as by a
 * daemon's death with no keeper; then whether a successor from the
 * journal of from has name (a vxlan device on port) and not gone. */
static struct dp_net *
tunnels_replayed(struct dp_net *from, const char *name, uint16_t port,
		 const char *gone)
{
	const struct tnl_dev *dev;
	struct snap s;
	struct dp_net *n;

	tnl_dev_destroy_all();
	clear_net(from);
	n = adopt_replay(dup(journal_fd(from)), &s);
	snap_free(&s);
	dev = tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, name);
	assert_non_null(dev);
	assert_string_equal(tnl_kind_name(dev->kind), "vxlan");
	assert_int_equal(dev->cfg.dst_port, port);
	assert_non_null(dev->made_by);
	assert_null(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, gone));
	return n;
}

/* Tunnel devices made over rtnetlink are kept as the requests that make
 * them, their deletion too: a successor makes them again from the live
 * records, and from a compaction's. In a namespace of the test's own: the
 * devices are TAPs. */
static void
test_tunnel_devices(void **state)
{
	struct fx *rt;
	struct dp_net *n;

	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "test-journal: unshare(CLONE_NEWNET): %s\n",
			strerror(errno));
		skip();
	}
	rt = fx_new(net, NETLINK_ROUTE, true);
	link_new(rt, "jvx0", "vxlan", 4789);
	link_new(rt, "jgn0", "geneve", 6081);
	req_msg(rt, RTM_DELLINK, NLM_F_ACK, sizeof(struct ifinfomsg));
	msgbuf_put_string(&rt->req, IFLA_IFNAME, "jgn0");
	assert_int_equal(ask(rt), 0);
	fx_free(rt);
	n = tunnels_replayed(net, "jvx0", 4789, "jgn0");
	assert_int_equal(journal_compact(n), 0);
	drop_net(tunnels_replayed(n, "jvx0", 4789, "jgn0"));
	drop_net(n);
	tnl_dev_destroy_all();
}

/* A datapath whose NEW fails at replay takes its records with it: they
 * fail, and never reach another datapath. The journal is then compacted
 * to what the successor holds. */
static void
test_failed_datapath(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "jfail", 0);
	struct dp_net *n = fresh_net();
	struct datapath *dp;
	int fd;

	port_new(f, ifindex, "jfail-1", 0, 1);
	clear_net(net);
	fd = dup(journal_fd(net));
	assert_int_equal(journal_open(n, fd), 0);
	/* The successor has a datapath of that name already. */
	assert_int_equal(dp_create(n, "jfail", (uint32_t[]){ 1 }, 1, &dp), 0);
	assert_int_equal(journal_replay(n), 2);
	assert_null(dp_port_get(dp, 1));
	assert_int_equal(journal_records(n), 1);
	drop_net(n);
}

/* Each context (another namespace's, here) has a journal of its own: a
 * change is written to its context's only, and each journal makes its
 * context's state again, whichever is replayed first. */
static void
test_contexts_apart(void **state)
{
	struct dp_net *other = fresh_net(), *n1, *n2;
	struct snap here, there, got;
	struct fx *g;
	int ifindex, fd;

	dp_net_set_namespace(other, 7, -1);
	assert_int_equal(journal_open(other, -1), 0);
	g = fx_new(other, NETLINK_GENERIC, true);
	ifindex = dp_new(*state, "jhere", 0);
	flow_put(*state, ifindex, OVS_FLOW_CMD_NEW, 1, 1, false);
	ifindex = dp_new(g, "jthere", OVS_DP_F_VPORT_PIDS);
	for (unsigned i = 0; i < 3; i++)
		flow_put(g, ifindex, OVS_FLOW_CMD_NEW, i, 1, false);
	fx_free(g);
	/* Each journal has its datapath NEW and flows only. */
	assert_int_equal(journal_records(net), 2);
	assert_int_equal(journal_records(other), 4);
	snapshot(net, &here);
	snapshot(other, &there);
	assert_int_equal(snap_count(&here, "dp "), 1);
	assert_int_equal(snap_count(&there, "dp "), 1);
	/* A compaction keeps to its context too. */
	assert_int_equal(journal_compact(other), 0);
	assert_int_equal(journal_records(other), 4);
	fd = dup(journal_fd(other));
	clear_net(other);
	drop_net(other);
	n2 = adopt_replay(fd, &got);
	assert_same(&there, &got);
	snap_free(&got);
	clear_net(net);
	n1 = adopt_replay(dup(journal_fd(net)), &got);
	assert_same(&here, &got);
	assert_null(dp_by_name(n1, "jthere"));
	assert_null(dp_by_name(n2, "jhere"));
	drop_net(n1);
	drop_net(n2);
	snap_free(&got);
	snap_free(&here);
	snap_free(&there);
}

/* What is not a journal is refused, and the fd stays the caller's. */
static void
test_refused(void **state)
{
	int fd = memfd_create("bad", MFD_CLOEXEC);
	uint64_t magic;

	journal_close(net);
	assert_int_equal(journal_open(net, fd), -EINVAL);	/* empty */
	assert_int_equal(ftruncate(fd, 8192), 0);
	assert_int_equal(journal_open(net, fd), -EINVAL);	/* zeros */
	close(fd);
	/* A journal with its magic changed, or a record overrunning it. */
	assert_int_equal(journal_open(net, -1), 0);
	dp_new(*state, "jbad", 0);
	fd = copy_journal();
	assert_int_equal(pread(fd, &magic, sizeof(magic), 0), sizeof(magic));
	magic ^= 1;
	assert_int_equal(pwrite(fd, &magic, sizeof(magic), 0), sizeof(magic));
	journal_close(net);
	assert_int_equal(journal_open(net, fd), -EINVAL);
	close(fd);
	assert_int_equal(journal_open(net, -1), 0);
	dp_new(*state, "jbad2", 0);
	fd = copy_journal();
	assert_int_equal(pwrite(fd, &(uint32_t){ 60000 }, 4, 4096), 4);
	journal_close(net);
	assert_int_equal(journal_open(net, fd), -EINVAL);
	assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	assert_int_equal(journal_open(net, -1), 0);
	assert_int_equal(journal_open(net, -1), -EBUSY);
}

/* Without a journal, nothing is written; a journal records only changes
 * that worked. */
static void
test_only_successes(void **state)
{
	struct fx *f = *state;
	unsigned before;

	dp_new(f, "jok", 0);
	before = journal_records(net);
	assert_int_equal(before, 1);
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, HDR);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "jok2");
	req_end(f);
	assert_int_equal(transact(f), -EINVAL);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_DEL,
		dp_ifindex(dp_by_name(net, "jok")));
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 5);
	req_end(f);
	assert_int_equal(transact(f), -ENODEV);
	assert_int_equal(journal_records(net), before);
	journal_close(net);
	dp_new(f, "jnone", 0);
	assert_int_equal(journal_fd(net), -1);
	assert_int_equal(journal_records(net), 0);
	assert_int_equal(journal_open(net, -1), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_last_record, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_compact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_counters, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tunnel_devices, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_datapath, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_contexts_apart, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_successes, setup,
						teardown),
	};
	int rc;

	net = nl_serve_net();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	nl_serve_net_end(net);
	return rc;
}
