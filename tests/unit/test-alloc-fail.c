/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation failure on the control path: for each request a client makes
 * (datapath, port, flow, meter and ct limit commands, packet executes, one
 * committing to conntrack, dumps of one part and of several; ctnetlink's
 * connection get, dump, delete and flush, cttimeout's policy new, dump
 * and delete), the k-th allocation the daemon makes
 * while serving it fails, for k = 1, 2, ... until one where none failed.
 * Each time the client gets an error (an NLMSG_ERROR or NLMSG_DONE with a
 * negative errno, or ENOBUFS on its next read where the kernel could not
 * queue an answer either) and the state read back through the families'
 * handlers is the one before the request; or, where the failure is one
 * the kernel too survives, the answer is a success and the state that of
 * a request without failure. The same request made again without failure
 * then works: nothing half done stands in its way.
 *
 * The allocator is linked with -Wl,--wrap (the Makefile's rule for this
 * test): the core's calls to malloc, calloc, realloc, strdup,
 * posix_memalign and aligned_alloc come here. Allocations made inside
 * libraries (glib, liburcu's hash tables) are not reached. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <urcu.h>

#include "common/clock.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "include/tapdp/proto.h"
#include "genl-server/attr.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define HDR		sizeof(struct ovs_header)
#define N_DUMP_FLOWS	100
#define STATE_MAX	(1 << 20)

/* The failing allocator: off while fail_at is 0; else the fail_at-th
 * allocation the control thread makes from now fails, once (the ports'
 * threads allocate too, at their own pace). */
static unsigned long fail_at;
static bool failed;
static pthread_t control;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
int __real_posix_memalign(void **p, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
/* The linker sends the core's calls here (-Wl,--wrap). */
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
int __wrap_posix_memalign(void **p, size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);

static bool
fail_now(void)
{
	if (!fail_at || !pthread_equal(pthread_self(), control) || --fail_at)
		return false;
	failed = true;
	errno = ENOMEM;
	return true;
}

void *
__wrap_malloc(size_t size)
{
	return fail_now() ? NULL : __real_malloc(size);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t size)
{
	return fail_now() ? NULL : __real_realloc(p, size);
}

char *
__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

int
__wrap_posix_memalign(void **p, size_t align, size_t size)
{
	return fail_now() ? ENOMEM : __real_posix_memalign(p, align, size);
}

void *
__wrap_aligned_alloc(size_t align, size_t size)
{
	return fail_now() ? NULL : __real_aligned_alloc(align, size);
}

static struct dp_net *net;
static struct fx *nff;		/* the client's ctnetlink socket */
static int dpi;			/* the datapath's ifindex, once made */
static uint8_t dump_src[6] = { 2, 0, 0, 0, 1, 0 };

static void
ovs_req(struct fx *f, uint16_t family, uint16_t flags, uint8_t cmd)
{
	struct ovs_header *hdr = req_start(f, family, flags, cmd, HDR);

	hdr->dp_ifindex = dpi;
}

/* Sends a request that must work; returns its answer's error. */
static int
must_ask(struct fx *f)
{
	ssize_t n;

	req_end(f);
	send_req(f);
	n = recv_rep(f);
	assert_true(n > 0);
	if (((struct nlmsghdr *)f->rep)->nlmsg_type == NLMSG_ERROR)
		return rep_error(f, n);
	return 0;
}

/* The requests, each as a client writes it into f->req. */

static void
req_dp_new(struct fx *f)
{
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_NEW, HDR);
	msgbuf_put_string(&f->req, OVS_DP_ATTR_NAME, "tdp0");
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_UPCALL_PID, nlsock_portid(f->sk));
}

static void
req_dp_del(struct fx *f)
{
	ovs_req(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_DEL);
}

static void
req_vport_new(struct fx *f)
{
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_NEW);
	msgbuf_put_string(&f->req, OVS_VPORT_ATTR_NAME, "tdp-p1");
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE, OVS_VPORT_TYPE_INTERNAL);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_UPCALL_PID,
		       nlsock_portid(f->sk));
}

static void
req_vport_set(struct fx *f)
{
	uint32_t pids[2] = { 11, 12 };

	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_SET);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 1);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_UPCALL_PID, sizeof(pids), pids);
}

static void
req_vport_del(struct fx *f)
{
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_DEL);
	msgbuf_put_string(&f->req, OVS_VPORT_ATTR_NAME, "tdp-p1");
}

/* The key of an IPv4 UDP flow from port 1 (conntrack needs IP). */
static void
put_ip_key(struct msgbuf *mb)
{
	struct nlattr *key = msgbuf_nest_start(mb, OVS_FLOW_ATTR_KEY);
	struct ovs_key_ipv4 ip = {
		.ipv4_src = htonl(0x0a000001), .ipv4_dst = htonl(0x0a000002),
		.ipv4_proto = 17, .ipv4_ttl = 64,
	};
	struct ovs_key_udp udp = { .udp_src = htons(1000),
				   .udp_dst = htons(2000) };
	struct ovs_key_ethernet eth;

	memcpy(eth.eth_src, fb_mac_src, ETH_ALEN);
	memcpy(eth.eth_dst, fb_mac_dst, ETH_ALEN);
	msgbuf_put_u32(mb, OVS_KEY_ATTR_IN_PORT, 1);
	msgbuf_put(mb, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	msgbuf_put_u16(mb, OVS_KEY_ATTR_ETHERTYPE, htons(0x0800));
	msgbuf_put(mb, OVS_KEY_ATTR_IPV4, sizeof(ip), &ip);
	msgbuf_put(mb, OVS_KEY_ATTR_UDP, sizeof(udp), &udp);
	msgbuf_nest_end(mb, key);
}

/* set_masked(eth_dst), ct(commit, zone 3), userspace(pid), output(port):
 * what OVS installs for a stateful flow. */
static void
put_flow_actions(struct fx *f, uint32_t port)
{
	struct nlattr *acts = msgbuf_nest_start(&f->req,
						OVS_FLOW_ATTR_ACTIONS);
	struct ovs_key_ethernet eth[2];
	struct nlattr *a;

	memset(eth, 0, sizeof(eth));
	memset(eth[0].eth_dst, 0xaa, ETH_ALEN);
	memset(eth[1].eth_dst, 0xff, ETH_ALEN);
	a = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_SET_MASKED);
	msgbuf_put(&f->req, OVS_KEY_ATTR_ETHERNET, sizeof(eth), eth);
	msgbuf_nest_end(&f->req, a);
	a = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_CT);
	msgbuf_put(&f->req, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put_u16(&f->req, OVS_CT_ATTR_ZONE, 3);
	msgbuf_nest_end(&f->req, a);
	a = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&f->req, OVS_USERSPACE_ATTR_PID, nlsock_portid(f->sk));
	msgbuf_nest_end(&f->req, a);
	msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_OUTPUT, port);
	msgbuf_nest_end(&f->req, acts);
}

static void
req_flow_new(struct fx *f)
{
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_ECHO | NLM_F_CREATE | NLM_F_EXCL,
		OVS_FLOW_CMD_NEW);
	put_ip_key(&f->req);
	put_flow_actions(f, 2);
}

static void
req_flow_set(struct fx *f)
{
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_ECHO, OVS_FLOW_CMD_SET);
	put_ip_key(&f->req);
	put_flow_actions(f, 3);
	msgbuf_put(&f->req, OVS_FLOW_ATTR_CLEAR, 0, NULL);
}

static void
req_flow_get(struct fx *f)
{
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_GET);
	put_ip_key(&f->req);
}

static void
req_flow_del(struct fx *f)
{
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_ECHO, OVS_FLOW_CMD_DEL);
	put_ip_key(&f->req);
}

static void
req_flow_dump(struct fx *f)
{
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_DUMP, OVS_FLOW_CMD_GET);
}

static void
put_meter(struct fx *f, uint32_t id, uint32_t rate)
{
	struct nlattr *bands, *band;

	ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_SET);
	msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, id);
	msgbuf_put(&f->req, OVS_METER_ATTR_KBPS, 0, NULL);
	bands = msgbuf_nest_start(&f->req, OVS_METER_ATTR_BANDS);
	band = msgbuf_nest_start(&f->req, OVS_BAND_ATTR_UNSPEC);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_RATE, rate);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_BURST, rate);
	msgbuf_nest_end(&f->req, band);
	msgbuf_nest_end(&f->req, bands);
}

static void
req_meter_new(struct fx *f)
{
	put_meter(f, 6, 2000);
}

static void
req_meter_set(struct fx *f)
{
	put_meter(f, 5, 3000);
}

static void
req_ct_limit_set(struct fx *f)
{
	struct ovs_zone_limit zl[2] = {
		{ .zone_id = OVS_ZONE_LIMIT_DEFAULT_ZONE, .limit = 10 },
		{ .zone_id = 5, .limit = 3 },
	};

	req_start(f, FAMILY_ID_CT_LIMIT, NLM_F_ACK, OVS_CT_LIMIT_CMD_SET, HDR);
	msgbuf_put(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT, sizeof(zl), zl);
}

/* A frame from port 1, to userspace and out of the internal port. */
static void
req_execute(struct fx *f)
{
	uint8_t frame[FAKE_FRAME_LEN];
	size_t len = fake_frame(frame);
	struct nlattr *acts, *a;

	ovs_req(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, len, frame);
	fake_frame_key(&f->req, OVS_PACKET_ATTR_KEY, 1, fb_mac_src);
	acts = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_ACTIONS);
	a = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&f->req, OVS_USERSPACE_ATTR_PID, nlsock_portid(f->sk));
	msgbuf_nest_end(&f->req, a);
	msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_OUTPUT, 1);
	msgbuf_nest_end(&f->req, acts);
}

/* A UDP datagram from port 1 committed in zone 3, then out of the
 * internal port: a connection committed while the client waits. A
 * failure is the kernel's: ovs_ct_execute()'s -ENOMEM, the packet not
 * sent. (Each time in a new context with the tracker made, so that the
 * connection is new.) */
static void
req_execute_ct(struct fx *f)
{
	uint8_t frame[128];
	struct nlattr *acts, *a;
	struct fb b;
	size_t len;

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, 0x0a000001, 0x0a000002, IPPROTO_UDP);
	fb_udp(&b, 1000, 2000);
	fb_put(&b, "data", 4);
	len = fb_end(&b);
	ovs_req(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, len, frame);
	fake_frame_key(&f->req, OVS_PACKET_ATTR_KEY, 1, fb_mac_src);
	acts = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_ACTIONS);
	a = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_CT);
	msgbuf_put(&f->req, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put_u16(&f->req, OVS_CT_ATTR_ZONE, 3);
	msgbuf_nest_end(&f->req, a);
	msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_OUTPUT, 1);
	msgbuf_nest_end(&f->req, acts);
}

/* ctnetlink and cttimeout requests, on nff: the connection
 * req_execute_ct() committed, the policy "tp0" P_CT made. */
static void
put_conn_tuple(struct fx *f)
{
	put_tuple_of(&f->req, CTA_TUPLE_ORIG, IPPROTO_UDP, 0x0a000001, 1000,
		     0x0a000002, 2000);
	msgbuf_put_u16(&f->req, CTA_ZONE, htons(3));
}

static void
req_ct_get(struct fx *f)
{
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_conn_tuple(f);
}

static void
req_ct_dump(struct fx *f)
{
	ct_req(f, IPCTNL_MSG_CT_GET, NLM_F_DUMP, AF_INET, NFNETLINK_V0);
}

static void
req_ct_del(struct fx *f)
{
	ct_req(f, IPCTNL_MSG_CT_DELETE, NLM_F_ACK, AF_INET, NFNETLINK_V0);
	put_conn_tuple(f);
}

static void
req_ct_flush(struct fx *f)
{
	ct_req(f, IPCTNL_MSG_CT_DELETE, NLM_F_ACK, AF_INET, NFNETLINK_V0);
}

static void
req_tp_new(struct fx *f)
{
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_ACK | NLM_F_CREATE, "tp1",
	       IPPROTO_UDP, 7);
}

static void
req_tp_dump(struct fx *f)
{
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, NLM_F_DUMP, NULL, 0, 0);
}

static void
req_tp_del(struct fx *f)
{
	tp_req(f, IPCTNL_MSG_TIMEOUT_DELETE, NLM_F_ACK, "tp0", 0, 0);
}

/* The states requests start from. */
enum prep { P_NONE, P_DP, P_PORT, P_FLOW, P_METER, P_FLOWS, P_PORT_CT,
	    P_CT };

static void
prepare(struct fx *f, enum prep p)
{
	struct nlattr *a;

	if (p == P_NONE)
		return;
	req_dp_new(f);
	assert_int_equal(must_ask(f), 0);
	dpi = ((struct ovs_header *)(f->rep + NLMSG_HDRLEN +
				     GENL_HDRLEN))->dp_ifindex;
	if (p >= P_PORT) {
		req_vport_new(f);
		assert_int_equal(must_ask(f), 0);
	}
	if (p == P_FLOW) {
		req_flow_new(f);
		assert_int_equal(must_ask(f), 0);
		/* The upcall the flow new did not make: none. */
		assert_true(recv_rep(f) < 0);
	}
	if (p == P_METER) {
		put_meter(f, 5, 1000);
		assert_int_equal(must_ask(f), 0);
	}
	if (p >= P_PORT_CT) {
		/* Setting a ct limit (the default one to none, as it is)
		 * makes the tracker; reading them does not. */
		struct ovs_zone_limit none = {
			.zone_id = OVS_ZONE_LIMIT_DEFAULT_ZONE };

		req_start(f, FAMILY_ID_CT_LIMIT, 0, OVS_CT_LIMIT_CMD_SET, HDR);
		msgbuf_put(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT, sizeof(none),
			   &none);
		assert_int_equal(must_ask(f), 0);
	}
	if (p == P_CT) {
		req_execute_ct(f);
		assert_int_equal(must_ask(f), 0);
		tp_req(nff, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_ACK | NLM_F_CREATE,
		       "tp0", IPPROTO_UDP, 5);
		assert_int_equal(must_ask(nff), 0);
	}
	if (p == P_FLOWS)
		for (int i = 0; i < N_DUMP_FLOWS; i++) {
			dump_src[5] = i;
			ovs_req(f, FAMILY_ID_FLOW, NLM_F_ACK,
				OVS_FLOW_CMD_NEW);
			fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1,
				       dump_src);
			a = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_ACTIONS);
			msgbuf_put_u32(&f->req, OVS_ACTION_ATTR_OUTPUT, 1);
			msgbuf_nest_end(&f->req, a);
			assert_int_equal(must_ask(f), 0);
		}
}

/* Back to nothing: no datapath, no ct limit. */
static void
clear(struct fx *f)
{
	struct ovs_zone_limit zl[2] = {
		{ .zone_id = OVS_ZONE_LIMIT_DEFAULT_ZONE },
		{ .zone_id = 5 },
	};
	struct datapath *dp;

	while ((dp = dp_at(net, 0)))
		dp_destroy(dp);
	rcu_barrier();
	if (dp_net_conntrack_made(net)) {
		req_start(f, FAMILY_ID_CT_LIMIT, NLM_F_ACK,
			  OVS_CT_LIMIT_CMD_DEL, HDR);
		msgbuf_put(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT, sizeof(zl),
			   zl);
		assert_int_equal(must_ask(f), 0);
	}
	while (recv_rep(f) > 0)
		;
	dpi = 0;
}

/* What the client reads from the daemon for one request. */
struct answer {
	int err;		/* the first negative errno it carried */
	bool enobufs;		/* its next read fails with ENOBUFS */
	int n_msgs;
};

static void
note(struct answer *a, int err)
{
	if (err < 0 && !a->err)
		a->err = err;
}

/* Reads everything the request brought, asking for the next dump part
 * once one is read, as the shim does; fails when a dump waits with
 * nothing to read (the client would wait for ever). */
static void
read_answer(struct fx *f, struct answer *a, char *keep, size_t *kept)
{
	memset(a, 0, sizeof(*a));
	for (;;) {
		ssize_t n = recv_rep(f);
		struct nlmsghdr *m = (void *)f->rep;

		if (n < 0) {
			if (genl_dump_running(f->sk))
				fail_msg("a dump stalled: nothing to read");
			break;
		}
		for (; NLMSG_OK(m, n); m = NLMSG_NEXT(m, n)) {
			a->n_msgs++;
			if (m->nlmsg_type == NLMSG_ERROR)
				note(a, ((struct nlmsgerr *)
					 NLMSG_DATA(m))->error);
			else if (m->nlmsg_type == NLMSG_DONE)
				note(a, *(int *)NLMSG_DATA(m));
			else if (keep) {
				size_t len = NLMSG_ALIGN(m->nlmsg_len);

				assert_true(*kept + len <= STATE_MAX);
				memset(keep + *kept, 0, len);
				memcpy(keep + *kept, m, m->nlmsg_len);
				*kept += len;
			}
		}
		if (genl_dump_running(f->sk))
			genl_dump_next(f->sk);
	}
	if (__atomic_exchange_n(&f->shared->overrun, 0, __ATOMIC_ACQ_REL))
		a->enobufs = true;
}

/* Zeroes what differs between two runs that did the same: the device
 * indexes (new devices each time). */
static void
normalize(char *p, size_t len)
{
	struct nlmsghdr *m = (void *)p;
	int n = len;

	for (; NLMSG_OK(m, n); m = NLMSG_NEXT(m, n)) {
		struct genlmsghdr *gh = NLMSG_DATA(m);
		struct ovs_header *hdr = (void *)((char *)gh + GENL_HDRLEN);
		size_t off = NLMSG_LENGTH(GENL_HDRLEN + HDR);
		const struct nlattr *at;
		int rem;

		m->nlmsg_flags &= ~NLM_F_MULTI;
		if (m->nlmsg_type >> 8 == NFNL_SUBSYS_CTNETLINK) {
			/* A connection's id counts connections ever made. */
			off = NLMSG_LENGTH(sizeof(struct nfgenmsg));
			attr_for_each(at, (char *)m + off,
				      m->nlmsg_len - off, rem)
				if (attr_type(at) == CTA_ID)
					memset((char *)attr_data(at), 0,
					       attr_len(at));
			continue;
		}
		if (m->nlmsg_type >> 8 == NFNL_SUBSYS_CTNETLINK_TIMEOUT)
			continue;
		hdr->dp_ifindex = 0;
		attr_for_each(at, (char *)m + off, m->nlmsg_len - off, rem)
			if (m->nlmsg_type == FAMILY_ID_VPORT &&
			    attr_type(at) == OVS_VPORT_ATTR_IFINDEX)
				memset((char *)attr_data(at), 0,
				       attr_len(at));
	}
}

static int
msg_cmp(const void *a, const void *b)
{
	const struct nlmsghdr *x = *(const struct nlmsghdr *const *)a;
	const struct nlmsghdr *y = *(const struct nlmsghdr *const *)b;

	if (x->nlmsg_len != y->nlmsg_len)
		return x->nlmsg_len < y->nlmsg_len ? -1 : 1;
	return memcmp(x, y, x->nlmsg_len);
}

/* The messages in an order of their own: a flow table dumps in an order
 * that depends on more than its flows. */
static void
sort_msgs(char *p, size_t len)
{
	static const struct nlmsghdr *msgs[STATE_MAX / NLMSG_HDRLEN];
	static char sorted[STATE_MAX];
	const struct nlmsghdr *m = (void *)p;
	size_t n = 0, off = 0;
	int rem = len;

	for (; NLMSG_OK(m, rem); m = NLMSG_NEXT(m, rem))
		msgs[n++] = m;
	qsort(msgs, n, sizeof(msgs[0]), msg_cmp);
	for (size_t i = 0; i < n; i++) {
		memcpy(sorted + off, msgs[i], msgs[i]->nlmsg_len);
		off += NLMSG_ALIGN(msgs[i]->nlmsg_len);
	}
	assert_int_equal(off, len);
	memcpy(p, sorted, len);
}

/* The state as a client reads it: datapaths, ports, flows, meters 5 and
 * 6; once there is a tracker (asking for its limits makes it), the ct
 * limits, connections and timeout policies. */
static size_t
state(struct fx *f, char *buf)
{
	struct datapath *dp = dp_by_name(net, "tdp0");
	struct answer a;
	size_t len = 0;

	req_start(f, FAMILY_ID_DATAPATH, NLM_F_DUMP, OVS_DP_CMD_GET, HDR);
	req_end(f);
	send_req(f);
	read_answer(f, &a, buf, &len);
	if (dp) {
		dpi = dp_ifindex(dp);
		ovs_req(f, FAMILY_ID_VPORT, NLM_F_DUMP, OVS_VPORT_CMD_GET);
		req_end(f);
		send_req(f);
		read_answer(f, &a, buf, &len);
		assert_int_equal(a.err, 0);
		ovs_req(f, FAMILY_ID_FLOW, NLM_F_DUMP, OVS_FLOW_CMD_GET);
		req_end(f);
		send_req(f);
		read_answer(f, &a, buf, &len);
		assert_int_equal(a.err, 0);
		for (uint32_t id = 5; id <= 6; id++) {
			ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_GET);
			msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, id);
			req_end(f);
			send_req(f);
			read_answer(f, &a, buf, &len);
		}
	}
	if (dp_net_conntrack_made(net)) {
		req_start(f, FAMILY_ID_CT_LIMIT, 0, OVS_CT_LIMIT_CMD_GET, HDR);
		req_end(f);
		send_req(f);
		read_answer(f, &a, buf, &len);
		assert_int_equal(a.err, 0);
		req_ct_dump(nff);
		req_end(nff);
		send_req(nff);
		read_answer(nff, &a, buf, &len);
		assert_int_equal(a.err, 0);
		req_tp_dump(nff);
		req_end(nff);
		send_req(nff);
		read_answer(nff, &a, buf, &len);
		assert_int_equal(a.err, 0);
	}
	normalize(buf, len);
	sort_msgs(buf, len);
	return len;
}

struct request {
	const char *name;
	enum prep prep;
	void (*build)(struct fx *f);
	bool fresh;		/* each time in a new context: no tracker */
	bool nf;		/* on the ctnetlink socket */
};

static const struct request requests[] = {
	{ "datapath new", P_NONE, req_dp_new, false, false },
	{ "vport new (internal)", P_DP, req_vport_new, false, false },
	{ "flow new (set, ct, userspace, output)", P_PORT, req_flow_new,
	  false, false },
	{ "flow set", P_FLOW, req_flow_set, false, false },
	{ "flow get", P_FLOW, req_flow_get, false, false },
	{ "flow dump", P_FLOW, req_flow_dump, false, false },
	{ "flow del", P_FLOW, req_flow_del, false, false },
	{ "meter new", P_DP, req_meter_new, false, false },
	{ "meter set", P_METER, req_meter_set, false, false },
	{ "ct limit set", P_DP, req_ct_limit_set, false, false },
	{ "packet execute (userspace, output)", P_PORT, req_execute, false,
	  false },
	{ "vport set", P_PORT, req_vport_set, false, false },
	{ "vport del", P_PORT, req_vport_del, false, false },
	{ "datapath del", P_FLOW, req_dp_del, false, false },
	{ "flow dump of many parts", P_FLOWS, req_flow_dump, false,
	  false },
	{ "ct limit set, the tracker made", P_NONE, req_ct_limit_set, true,
	  false },
	{ "packet execute (ct commit)", P_PORT_CT, req_execute_ct, true,
	  false },
	{ "ctnetlink: connection get", P_CT, req_ct_get, true, true },
	{ "ctnetlink: connection dump", P_CT, req_ct_dump, true, true },
	{ "ctnetlink: connection delete", P_CT, req_ct_del, true, true },
	{ "ctnetlink: flush", P_CT, req_ct_flush, true, true },
	{ "cttimeout: policy new", P_CT, req_tp_new, true, true },
	{ "cttimeout: policy dump", P_CT, req_tp_dump, true, true },
	{ "cttimeout: policy delete (unused)", P_CT, req_tp_del, true, true },
};

static char before[STATE_MAX], after[STATE_MAX], want[STATE_MAX];

/* Sends the request, made with the k-th allocation failing (0: none), and
 * reads its answer; returns whether an allocation failed. */
static bool
run(struct fx *f, const struct request *r, unsigned long k,
    struct answer *a)
{
	struct fx *to = r->nf ? nff : f;

	r->build(to);
	req_end(to);
	fail_at = k;
	failed = false;
	send_req(to);
	read_answer(to, a, NULL, NULL);
	fail_at = 0;
	return failed;
}

static bool
worked(const struct answer *a)
{
	return !a->err && !a->enobufs;
}

/* A context of its own for f, as it was before any request. */
static struct fx *
renew(struct fx *f)
{
	fx_free(f);
	fx_free(nff);
	dp_net_destroy(net);
	rcu_barrier();
	net = nl_net_new();
	assert_non_null(net);
	nff = fx_new(net, NETLINK_NETFILTER, true);
	return fx_new(net, NETLINK_GENERIC, true);
}

static struct fx *
test_request(const struct request *r, struct fx *f)
{
	size_t before_len, want_len, after_len;
	struct answer a, ok;
	unsigned long k;
	int n_errors = 0;

	/* What the request does when nothing fails. */
	if (r->fresh)
		f = renew(f);
	clear(f);
	prepare(f, r->prep);
	assert_false(run(f, r, 0, &ok));
	if (!worked(&ok))
		fail_msg("%s: %d without failure", r->name, ok.err);
	want_len = state(f, want);
	for (k = 1;; k++) {
		if (r->fresh)
			f = renew(f);
		clear(f);
		prepare(f, r->prep);
		before_len = state(f, before);
		if (!run(f, r, k, &a))
			break;
		after_len = state(f, after);
		if (worked(&a)) {
			if (a.n_msgs != ok.n_msgs)
				fail_msg("%s: allocation %lu failed, %d "
					 "messages in the answer instead of %d",
					 r->name, k, a.n_msgs, ok.n_msgs);
			if (after_len != want_len ||
			    memcmp(after, want, want_len))
				fail_msg("%s: allocation %lu failed, the "
					 "answer says it worked but the state "
					 "is not that of a success", r->name,
					 k);
			continue;
		}
		n_errors++;
		if (a.err && a.err != -ENOMEM && a.err != -ENOBUFS)
			fail_msg("%s: allocation %lu failed: error %d",
				 r->name, k, a.err);
		if (after_len != before_len || memcmp(after, before,
						      before_len))
			fail_msg("%s: allocation %lu failed, error %d, but "
				 "the state changed", r->name, k, a.err);
		/* Nothing half done in the way. */
		assert_false(run(f, r, 0, &a));
		if (!worked(&a))
			fail_msg("%s: after allocation %lu failed, the same "
				 "request again: %d", r->name, k, a.err);
		after_len = state(f, after);
		if (after_len != want_len || memcmp(after, want, want_len))
			fail_msg("%s: after allocation %lu failed, the same "
				 "request again left another state", r->name,
				 k);
	}
	clear(f);
	printf("alloc-fail: %-45s %3lu allocations failed in turn, %d "
	       "answered with an error\n", r->name, k - 1, n_errors);
	return f;
}

static void
test_requests(void **state)
{
	struct fx *f = fx_new(net, NETLINK_GENERIC, true);

	nff = fx_new(net, NETLINK_NETFILTER, true);
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
		f = test_request(&requests[i], f);
	fx_free(nff);
	fx_free(f);
}

static int
group_setup(void **state)
{
	/* One time for every run: when meters and flows were used. */
	clock_fake_set(1000);
	control = pthread_self();
	net = nl_serve_net();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_net_end(net);
	clock_fake_set(0);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
	};

	return cmocka_run_group_tests_name("alloc-fail", tests, group_setup,
					   group_teardown);
}
