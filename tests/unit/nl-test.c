#include "tests/unit/nl-test.h"

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "datapath/ctnetlink.h"
#include "datapath/families.h"
#include "include/tapdp/proto.h"
#include "netlink/attr.h"
#include "netlink/genl.h"
#include "netlink/nlsock.h"

struct nlattr *
nb_put(struct nb *b, uint16_t type, const void *data, int len)
{
	struct nlattr *a = (void *)(b->buf + b->len);

	assert_true(b->len + NLA_ALIGN(NLA_HDRLEN + len) <=
		    (int)sizeof(b->buf));
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(b->buf + b->len + NLA_HDRLEN, data, len);
	b->len += NLA_ALIGN(a->nla_len);
	return a;
}

void
nb_put_u8(struct nb *b, uint16_t type, uint8_t v)
{
	nb_put(b, type, &v, 1);
}

void
nb_put_u16(struct nb *b, uint16_t type, uint16_t v)
{
	nb_put(b, type, &v, 2);
}

void
nb_put_u32(struct nb *b, uint16_t type, uint32_t v)
{
	nb_put(b, type, &v, 4);
}

void
nb_put_be16(struct nb *b, uint16_t type, uint16_t host)
{
	nb_put_u16(b, type, htons(host));
}

void
nb_put_be32(struct nb *b, uint16_t type, uint32_t host)
{
	nb_put_u32(b, type, htonl(host));
}

int
nb_nest_start(struct nb *b, uint16_t type)
{
	assert_true(b->depth < (int)(sizeof(b->stack) / sizeof(b->stack[0])));
	b->stack[b->depth++] = b->len;
	nb_put(b, type, NULL, 0);
	return b->len - NLA_HDRLEN;
}

void
nb_nest_end(struct nb *b)
{
	struct nlattr *a = (void *)(b->buf + b->stack[--b->depth]);

	a->nla_len = b->len - b->stack[b->depth];
}

const struct nlattr *
nb_at(const struct nb *b, int off)
{
	return (const void *)(b->buf + off);
}

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
	f->peer = sv[0];
	f->sk = nlsock_new(sv[1], shared, &creds, protocol, net);
	assert_non_null(f->sk);
	nlsock_autobind(f->sk);
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
	struct nlmsghdr *nlh = (void *)(f->req.buf + f->req.len);
	size_t len = NLMSG_LENGTH(hdrsize);

	assert_true(f->req.len + NLMSG_ALIGN(len) <= sizeof(f->req.buf));
	memset(nlh, 0, NLMSG_ALIGN(len));
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = 99;
	f->msg = f->req.len;
	f->req.len += NLMSG_ALIGN(len);
	return NLMSG_DATA(nlh);
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
	return (void *)(f->req.buf + f->msg);
}

void
req_end(struct fx *f)
{
	req_cur(f)->nlmsg_len = f->req.len - f->msg;
}

void
send_req(struct fx *f)
{
	if (nlsock_protocol(f->sk) == NETLINK_NETFILTER)
		ctnetlink_rcv(f->sk, f->req.buf, f->req.len);
	else
		genl_rcv(f->sk, f->req.buf, f->req.len);
	f->req.len = 0;
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
