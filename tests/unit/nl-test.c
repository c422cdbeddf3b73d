/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/unit/nl-test.h"

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <urcu.h>

#include "families/ctnetlink.h"
#include "families/families.h"
#include "include/tapdp/proto.h"
#include "genl-server/attr.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/unit/fake-port.h"

void
nl_serve(void)
{
	nlsock_registry_init();
	nlctrl_register();
	families_register();
}

void
nl_serve_end(void)
{
	genl_unregister_all();
	nlsock_registry_destroy();
}

struct dp_net *
nl_net_new(void)
{
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.port_ops = fake_port_ops,
		.psample = psample_family_sample,
		.packets = families_packet_sink,
	};

	return dp_net_new(&cfg);
}

struct dp_net *
nl_serve_net(void)
{
	rcu_register_thread();
	vport_set_rx_queues(1);
	nl_serve();
	return nl_net_new();
}

void
nl_serve_net_end(struct dp_net *net)
{
	nl_serve_end();
	if (net)
		dp_net_destroy(net);
	rcu_barrier();
	rcu_unregister_thread();
}

struct fx *
fx_new(struct dp_net *net, int protocol, bool admin)
{
	struct fx *f = test_calloc(1, sizeof(*f));
	struct nlsock_creds creds = { .pid = 4242, .net_admin = admin };
	struct tapdp_shared *shared;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shared != MAP_FAILED);
	f->shared = shared;
	f->peer = sv[0];
	f->sk = nlsock_new(sv[1], shared, &creds, protocol, net);
	assert_non_null(f->sk);
	nlsock_autobind(f->sk);
	msgbuf_init(&f->req, f->req_mem, sizeof(f->req_mem));
	return f;
}

void
fx_free(struct fx *f)
{
	nlsock_free(f->sk);
	close(f->peer);
	test_free(f);
}

void *
req_msg(struct fx *f, uint16_t type, uint16_t flags, size_t hdrsize)
{
	void *hdr = msgbuf_start(&f->req, type, NLM_F_REQUEST | flags, 99, 0,
				 hdrsize);

	assert_non_null(hdr);
	return hdr;
}

void
ct_req(struct fx *f, uint8_t msg, uint16_t flags, uint8_t family,
       uint8_t version)
{
	struct nfgenmsg *nf = req_msg(f, NFNL_SUBSYS_CTNETLINK << 8 | msg,
				      flags, sizeof(*nf));

	nf->nfgen_family = family;
	nf->version = version;
}

void
put_tuple_of(struct msgbuf *mb, uint16_t type, uint8_t proto, uint32_t src,
	     uint16_t sport, uint32_t dst, uint16_t dport)
{
	struct nlattr *tuple, *ip, *l4;

	tuple = msgbuf_nest_start(mb, type | NLA_F_NESTED);
	ip = msgbuf_nest_start(mb, CTA_TUPLE_IP | NLA_F_NESTED);
	msgbuf_put_u32(mb, CTA_IP_V4_SRC, htonl(src));
	msgbuf_put_u32(mb, CTA_IP_V4_DST, htonl(dst));
	msgbuf_nest_end(mb, ip);
	l4 = msgbuf_nest_start(mb, CTA_TUPLE_PROTO | NLA_F_NESTED);
	msgbuf_put_u8(mb, CTA_PROTO_NUM, proto);
	msgbuf_put_u16(mb, CTA_PROTO_SRC_PORT, htons(sport));
	msgbuf_put_u16(mb, CTA_PROTO_DST_PORT, htons(dport));
	msgbuf_nest_end(mb, l4);
	msgbuf_nest_end(mb, tuple);
}

void
tp_req(struct fx *f, uint8_t msg, uint16_t flags, const char *name,
       uint8_t l4num, uint32_t first)
{
	struct nfgenmsg *nf = req_msg(f, NFNL_SUBSYS_CTNETLINK_TIMEOUT << 8 |
						 msg,
				      flags, sizeof(*nf));
	struct nlattr *data;

	nf->nfgen_family = AF_UNSPEC;
	if (name)
		msgbuf_put_string(&f->req, CTA_TIMEOUT_NAME, name);
	if (!first)
		return;
	msgbuf_put_u16(&f->req, CTA_TIMEOUT_L3PROTO, htons(AF_INET));
	msgbuf_put_u8(&f->req, CTA_TIMEOUT_L4PROTO, l4num);
	data = msgbuf_nest_start(&f->req, CTA_TIMEOUT_DATA | NLA_F_NESTED);
	msgbuf_put_u32(&f->req, 1, htonl(first));
	msgbuf_nest_end(&f->req, data);
}

void *
req_start(struct fx *f, uint16_t type, uint16_t flags, uint8_t cmd,
	  size_t hdrsize)
{
	struct genlmsghdr *gh = req_msg(f, type, flags, GENL_HDRLEN + hdrsize);

	gh->cmd = cmd;
	gh->version = 1;
	return (char *)gh + GENL_HDRLEN;
}

struct nlmsghdr *
req_cur(struct fx *f)
{
	assert_non_null(f->req.cur);
	return f->req.cur;
}

void
req_end(struct fx *f)
{
	assert_int_equal(msgbuf_end(&f->req), 0);
}

void
send_req(struct fx *f)
{
	/* As the server: the netlink tap first. */
	nlsock_tap_sent(f->sk, f->req.buf, f->req.len);
	if (nlsock_protocol(f->sk) == NETLINK_NETFILTER)
		ctnetlink_rcv(f->sk, f->req.buf, f->req.len);
	else if (nlsock_protocol(f->sk) == NETLINK_ROUTE)
		rtnl_link_rcv(f->sk, f->req.buf, f->req.len);
	else
		genl_rcv(f->sk, f->req.buf, f->req.len);
	msgbuf_init(&f->req, f->req_mem, sizeof(f->req_mem));
}

ssize_t
recv_rep(struct fx *f)
{
	return recv(f->peer, f->rep, sizeof(f->rep), MSG_DONTWAIT);
}

int
rep_error(struct fx *f, ssize_t n)
{
	struct nlmsghdr *nlh = (void *)f->rep;

	assert_true(n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)));
	assert_int_equal(nlh->nlmsg_type, NLMSG_ERROR);
	return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
}

int
ask(struct fx *f)
{
	req_end(f);
	send_req(f);
	return rep_error(f, recv_rep(f));
}

int
dump_all(struct fx *f, void (*fn)(const struct nlmsghdr *, void *),
	 void *arg)
{
	int parts = 0;

	send_req(f);
	for (;;) {
		ssize_t n = recv_rep(f);
		struct nlmsghdr *m = (void *)f->rep;

		assert_true(n > 0);
		parts += m->nlmsg_type != NLMSG_DONE;
		for (; NLMSG_OK(m, n); m = NLMSG_NEXT(m, n)) {
			if (m->nlmsg_type == NLMSG_DONE) {
				assert_int_equal(*(int *)NLMSG_DATA(m), 0);
				assert_false(genl_dump_running(f->sk));
				return parts;
			}
			assert_true(m->nlmsg_flags & NLM_F_MULTI);
			fn(m, arg);
		}
		genl_dump_next(f->sk);
	}
}

const struct nlattr *
attrs_find(const void *p, int rem, uint16_t type)
{
	const struct nlattr *a;

	attr_for_each(a, p, rem, rem)
		if (attr_type(a) == type)
			return a;
	return NULL;
}

const struct nlattr *
rep_attr(struct fx *f, size_t hdrsize, uint16_t type)
{
	struct nlmsghdr *nlh = (void *)f->rep;
	const char *p = (char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(GENL_HDRLEN +
							      hdrsize);

	return attrs_find(p, nlh->nlmsg_len - (p - (char *)nlh), type);
}
