/* SPDX-License-Identifier: Apache-2.0 */
#include "tests/unit/nl-test.h"

#include <linux/genetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <urcu.h>

#include "datapath/ctnetlink.h"
#include "datapath/families.h"
#include "include/tapdp/proto.h"
#include "netlink/attr.h"
#include "netlink/genl.h"
#include "netlink/nlsock.h"
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
		.drops = drop_family_sink,
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
	if (nlsock_protocol(f->sk) == NETLINK_NETFILTER)
		ctnetlink_rcv(f->sk, f->req.buf, f->req.len);
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
