/* SPDX-License-Identifier: Apache-2.0 */
/* Netlink for unit tests: a client's emulated socket (struct nlsock over a
 * socketpair, as the shim makes it) to send requests on and read the
 * daemon's answers from. Requests are written with genl-server/msg.h's msgbuf,
 * as the attribute lists of tests/unit/builders.h are.
 *
 * The helpers fail the running cmocka test on what a test never expects
 * (no socketpair, a request that does not fit). One thread. */
#ifndef TAPDP_TESTS_NL_TEST_H
#define TAPDP_TESTS_NL_TEST_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "genl-server/msg.h"

struct dp_net;
struct nlsock;
struct tapdp_shared;

/* A client's netlink socket of protocol (NETLINK_GENERIC,
 * NETLINK_NETFILTER, or NETLINK_ROUTE for the daemon's tunnel devices),
 * bound to its autobind portid, opened with or without CAP_NET_ADMIN,
 * acting on net. */
struct fx {
	int peer;			/* the client's end */
	struct nlsock *sk;
	struct tapdp_shared *shared;	/* the page the shim reads */
	/* Requests not sent yet: msgbuf_put*() and msgbuf_nest_*() on it
	 * add attributes to the one begun. */
	struct msgbuf req;
	char req_mem[65536];
	char rep[65536];		/* the datagram recv_rep() read */
};

/* What tapdpd serves, and its end: the socket registry, nlctrl, the OVS
 * families and ctnetlink. */
void nl_serve(void);
void nl_serve_end(void);

/* nl_serve() with a datapath context as tapdpd's (upcalls and psample
 * samples to the families' sockets) whose ports are fake-port.h's, one
 * receive queue each, on an RCU-registered thread; NULL without memory.
 * nl_serve_net_end() undoes it all. */
struct dp_net *nl_serve_net(void);
void nl_serve_net_end(struct dp_net *net);
/* Another context as nl_serve_net()'s, for its caller to destroy. */
struct dp_net *nl_net_new(void);

struct fx *fx_new(struct dp_net *net, int protocol, bool admin);
void fx_free(struct fx *f);

/* Starts a request of type with a header of hdrsize bytes (returned,
 * zeroed) in f->req; req_end() closes it. Sequence number 99. */
void *req_msg(struct fx *f, uint16_t type, uint16_t flags, size_t hdrsize);
/* A generic netlink request (version 1); returns the family header. */
void *req_start(struct fx *f, uint16_t type, uint16_t flags, uint8_t cmd,
		size_t hdrsize);
/* The request begun, until req_end(). */
struct nlmsghdr *req_cur(struct fx *f);
void req_end(struct fx *f);
/* Hands f->req to the daemon's side, as one datagram, and empties it. */
void send_req(struct fx *f);

/* The next datagram queued for the client, -1 when there is none. */
ssize_t recv_rep(struct fx *f);
/* The error of the NLMSG_ERROR that makes up the datagram just read. */
int rep_error(struct fx *f, ssize_t n);
/* Ends the request, sends f->req and returns the error its answer says. */
int ask(struct fx *f);
/* An attribute of the first message in f->rep, whose family header is
 * hdrsize bytes after the genl header. */
const struct nlattr *rep_attr(struct fx *f, size_t hdrsize, uint16_t type);
/* Sends f->req, a dump request, and reads the dump part after part (the
 * next one asked for once a part is read, as the shim does) until
 * NLMSG_DONE, which must carry 0; calls fn for each message and returns
 * how many parts carried messages. */
int dump_all(struct fx *f, void (*fn)(const struct nlmsghdr *, void *),
	     void *arg);
/* An attribute of the attributes at p (rem bytes). */
const struct nlattr *attrs_find(const void *p, int rem, uint16_t type);

/* A ctnetlink request (IPCTNL_MSG_CT_*) for family, with its nfgenmsg. */
void ct_req(struct fx *f, uint8_t msg, uint16_t flags, uint8_t family,
	    uint8_t version);
/* A tuple (CTA_TUPLE_ORIG, REPLY, MASTER...) of IPv4 proto from
 * src:sport to dst:dport, host order. */
void put_tuple_of(struct msgbuf *mb, uint16_t type, uint8_t proto,
		  uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport);
/* A cttimeout request of msg for policy name (NULL: none), of l4num with
 * its first value, UDP's UNREPLIED (0: no data). */
void tp_req(struct fx *f, uint8_t msg, uint16_t flags, const char *name,
	    uint8_t l4num, uint32_t first);

#endif
