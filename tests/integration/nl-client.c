/* SPDX-License-Identifier: Apache-2.0 */
/* nl-client: an OVS datapath client written with libnl-3 and libnl-genl-3,
 * the way many C tools speak generic netlink, to check the daemon against
 * a netlink library neither OVS nor tapdp wrote. Run it under tapdp-run.
 *
 *   nl-client resolve
 *	resolves the six OVS families (genl_ctrl_resolve) and their
 *	multicast groups (genl_ctrl_resolve_grp); prints "family F id N"
 *	and "group F/G id N", or "family F: no multicast group" when the
 *	family has none (ovs_packet, as in the kernel).
 *   nl-client dp-new DP | dp-get DP | dp-del DP | dp-dump
 *   nl-client vport-new DP PORT
 *	adds an internal port; a second socket, subscribed to the ovs_vport
 *	group beforehand, must be told: "notified: new vport PORT ...".
 *   nl-client vport-dump DP | vport-stats DP (each port's counters)
 *   nl-client flow-put DP PORT_NO | flow-del DP PORT_NO | flow-dump DP
 *	the flow in_port(PORT_NO),eth(),eth_type(0x88cc) -> output:PORT_NO
 *   nl-client nsh-push-flow DP IN_PORT OUT_PORT MDTYPE SPI SI
 *	the flow in_port(IN_PORT),eth() (any frame) -> push_nsh(ttl=63,mdtype=MDTYPE,
 *	np=3,spi=SPI,si=SI, MD type 1: c1=0x11223344,c4=0x55667788; 2: the
 *	TLV 0x000101040a0b0c0d),push_eth(...),output:OUT_PORT
 *   nl-client nsh-pop-flow DP IN_PORT OUT_PORT MDTYPE SPI SI
 *	the flow in_port(IN_PORT),eth(),eth_type(0x894f),nsh(mdtype=MDTYPE,
 *	np=3,spi=SPI,si=SI) (the rest of eth() and nsh() wildcarded) ->
 *	pop_eth,pop_nsh,output:OUT_PORT
 *	Debian's ovs-dpctl (3.1) cannot say either: its nsh() key parser
 *	fails every key, and it parses push_eth only after a userspace().
 *   nl-client execute-flood DP N
 *	N executes of an LLDP frame from port 0 to port 0, each answered
 *	before the next: "execute-flood: started" once the datapath is
 *	found, then "execute-flood: N executed, K ENODEV", K 1 when the
 *	datapath was deleted meanwhile, which ends it; any other error fails
 *   nl-client malformed dp-no-pid|vport-no-type|flow-no-key DP
 *	a request without an attribute the command requires
 *   nl-client malformed execute-bad-actions DP
 *	OVS_PACKET_CMD_EXECUTE of an LLDP frame from port 1 (the flow key
 *	of flow-put) with an action type no kernel defines
 *
 * Changes ask for NLM_F_ECHO, as OVS does: only then does the kernel send
 * the requester the object, which is printed as the dumps print theirs.
 * An error the daemon answers is printed as "COMMAND: ENAME (message)"
 * and the exit status is 1; a failure of the client itself exits 2. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/openvswitch.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLOW_ETH_TYPE 0x88cc	/* LLDP: nothing further to match */

struct family {
	const char *name;
	const char *group;	/* NULL: the family has none */
	int version;
	int id;
};

enum { DP, VPORT, FLOW, PACKET, METER, CT_LIMIT, N_FAMILIES };

static struct family families[N_FAMILIES] = {
	[DP] = { OVS_DATAPATH_FAMILY, OVS_DATAPATH_MCGROUP,
		 OVS_DATAPATH_VERSION, 0 },
	[VPORT] = { OVS_VPORT_FAMILY, OVS_VPORT_MCGROUP, OVS_VPORT_VERSION, 0 },
	[FLOW] = { OVS_FLOW_FAMILY, OVS_FLOW_MCGROUP, OVS_FLOW_VERSION, 0 },
	[PACKET] = { OVS_PACKET_FAMILY, NULL, OVS_PACKET_VERSION, 0 },
	[METER] = { OVS_METER_FAMILY, OVS_METER_MCGROUP, OVS_METER_VERSION, 0 },
	[CT_LIMIT] = { OVS_CT_LIMIT_FAMILY, OVS_CT_LIMIT_MCGROUP,
		       OVS_CT_LIMIT_VERSION, 0 },
};

static const char *command;

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nl-client %s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static struct nl_sock *
sock_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk)
		fail("nl_socket_alloc failed");
	err = genl_connect(sk);
	if (err < 0)
		fail("genl_connect: %s", nl_geterror(err));
	return sk;
}

static int
resolve_family(struct nl_sock *sk, int f)
{
	if (!families[f].id) {
		int id = genl_ctrl_resolve(sk, families[f].name);

		if (id < 0)
			fail("genl_ctrl_resolve %s: %s", families[f].name,
			     nl_geterror(id));
		families[f].id = id;
	}
	return families[f].id;
}

/* One request and everything it brings back: the replies go to parse, an
 * ACK or NLMSG_DONE ends it. Returns 0 or the daemon's -errno. */
struct exchange {
	nl_recvmsg_msg_cb_t parse;
	void *arg;
	bool done;
	int error;
};

static int
on_valid(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	return x->parse ? x->parse(msg, x->arg) : NL_OK;
}

static int
on_end(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	x->done = true;
	return NL_STOP;
}

static int
on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct exchange *x = arg;

	x->error = e->error;
	x->done = true;
	return NL_STOP;
}

static int
transact(struct nl_sock *sk, struct nl_msg *msg, nl_recvmsg_msg_cb_t parse,
	 void *arg)
{
	struct exchange x = { .parse = parse, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	if (!cb)
		fail("nl_cb_alloc failed");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_end, &x);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_end, &x);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &x);
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	while (err >= 0 && !x.done)
		err = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (!x.done)
		fail("no answer: %s", nl_geterror(err));
	return x.error;
}

/* A request to family f for the datapath whose local port has ifindex
 * dp_ifindex (0: none, or named by an attribute). */
static struct nl_msg *
request(struct nl_sock *sk, int f, uint8_t cmd, int flags, int dp_ifindex)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct ovs_header *oh;

	if (!msg)
		fail("nlmsg_alloc failed");
	oh = genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, resolve_family(sk, f),
			 sizeof(*oh), flags, cmd, families[f].version);
	if (!oh)
		fail("genlmsg_put failed");
	oh->dp_ifindex = dp_ifindex;
	return msg;
}

static void
put(struct nl_msg *msg, int err)
{
	if (err < 0)
		fail("building the request: %s", nl_geterror(err));
}

/* Exits 1 with the daemon's errno, named, when err is one. */
static void
expect_ok(int err)
{
	if (!err)
		return;
	printf("%s: %s (%s)\n", command, strerrorname_np(-err),
	       strerror(-err));
	exit(1);
}

/* The attributes of a reply, for families whose header is ovs_header. */
static struct ovs_header *
parse_reply(struct nl_msg *msg, struct nlattr **tb, int maxattr)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (genlmsg_parse(nlh, sizeof(struct ovs_header), tb, maxattr, NULL))
		fail("a reply does not parse");
	return genlmsg_user_hdr(genlmsg_hdr(nlh));
}

static void
copy_name(char *dst, size_t size, const struct nlattr *a)
{
	if (!a)
		fail("a reply has no name");
	nla_strlcpy(dst, a, size);
}

static int
print_dp(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OVS_DP_ATTR_MAX + 1];
	struct ovs_header *oh = parse_reply(msg, tb, OVS_DP_ATTR_MAX);
	char name[IFNAMSIZ];

	copy_name(name, sizeof(name), tb[OVS_DP_ATTR_NAME]);
	printf("datapath %s ifindex %d\n", name, oh->dp_ifindex);
	return NL_OK;
}

static int
store_dp_ifindex(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OVS_DP_ATTR_MAX + 1];

	*(int *)arg = parse_reply(msg, tb, OVS_DP_ATTR_MAX)->dp_ifindex;
	return NL_OK;
}

static struct nl_msg *
dp_request(struct nl_sock *sk, uint8_t cmd, int flags, const char *name)
{
	struct nl_msg *msg = request(sk, DP, cmd, flags, 0);

	put(msg, nla_put_string(msg, OVS_DP_ATTR_NAME, name));
	return msg;
}

/* The dp_ifindex that names the datapath in the other families' requests. */
static int
dp_ifindex(struct nl_sock *sk, const char *name)
{
	int ifindex = 0;

	expect_ok(transact(sk, dp_request(sk, OVS_DP_CMD_GET, 0, name),
			   store_dp_ifindex, &ifindex));
	if (!ifindex)
		fail("datapath %s: no reply", name);
	return ifindex;
}

static int
print_vport(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OVS_VPORT_ATTR_MAX + 1];
	char name[IFNAMSIZ];

	parse_reply(msg, tb, OVS_VPORT_ATTR_MAX);
	copy_name(name, sizeof(name), tb[OVS_VPORT_ATTR_NAME]);
	if (!tb[OVS_VPORT_ATTR_PORT_NO] || !tb[OVS_VPORT_ATTR_TYPE])
		fail("vport %s: no port number or type", name);
	printf("%svport %s port %u type %u\n", arg ? (char *)arg : "", name,
	       nla_get_u32(tb[OVS_VPORT_ATTR_PORT_NO]),
	       nla_get_u32(tb[OVS_VPORT_ATTR_TYPE]));
	return NL_OK;
}

/* A port's counters (OVS_VPORT_ATTR_STATS), for the tests that count. */
static int
print_vport_stats(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OVS_VPORT_ATTR_MAX + 1];
	struct ovs_vport_stats st;
	char name[IFNAMSIZ];

	parse_reply(msg, tb, OVS_VPORT_ATTR_MAX);
	copy_name(name, sizeof(name), tb[OVS_VPORT_ATTR_NAME]);
	if (!tb[OVS_VPORT_ATTR_STATS] ||
	    nla_len(tb[OVS_VPORT_ATTR_STATS]) < (int)sizeof(st))
		fail("vport %s: no stats", name);
	memcpy(&st, nla_data(tb[OVS_VPORT_ATTR_STATS]), sizeof(st));
	printf("vport %s rx_packets %llu rx_dropped %llu tx_packets %llu "
	       "tx_dropped %llu\n", name, (unsigned long long)st.rx_packets,
	       (unsigned long long)st.rx_dropped,
	       (unsigned long long)st.tx_packets,
	       (unsigned long long)st.tx_dropped);
	return NL_OK;
}

/* The ovs_vport group's notification of the new port, read from a socket
 * that subscribed before the request. */
struct notification {
	const char *name;
	bool seen;
};

static int
on_vport_notification(struct nl_msg *msg, void *arg)
{
	struct notification *n = arg;
	struct nlattr *tb[OVS_VPORT_ATTR_MAX + 1];
	char name[IFNAMSIZ];

	if (genlmsg_hdr(nlmsg_hdr(msg))->cmd != OVS_VPORT_CMD_NEW)
		return NL_OK;
	parse_reply(msg, tb, OVS_VPORT_ATTR_MAX);
	copy_name(name, sizeof(name), tb[OVS_VPORT_ATTR_NAME]);
	if (strcmp(name, n->name))
		return NL_OK;
	n->seen = true;
	return print_vport(msg, "notified: new ");
}

/* Notifications carry the requester's sequence number: the listener
 * checks none (nl_socket_disable_seq_check). */
static void
await_vport_notification(struct nl_sock *listener, const char *name)
{
	struct notification n = { .name = name };
	struct pollfd pfd = { .fd = nl_socket_get_fd(listener),
			      .events = POLLIN };
	time_t deadline = time(NULL) + 5;

	nl_socket_modify_cb(listener, NL_CB_VALID, NL_CB_CUSTOM,
			    on_vport_notification, &n);
	while (!n.seen) {
		int left = deadline - time(NULL);
		int err;

		if (left <= 0 || poll(&pfd, 1, left * 1000) <= 0) {
			printf("%s: no notification of vport %s\n", command,
			       name);
			exit(1);
		}
		err = nl_recvmsgs_default(listener);
		if (err < 0)
			fail("reading the ovs_vport group: %s",
			     nl_geterror(err));
	}
}

static void
vport_new(struct nl_sock *sk, const char *dp, const char *name)
{
	int group = genl_ctrl_resolve_grp(sk, OVS_VPORT_FAMILY,
					  OVS_VPORT_MCGROUP);
	struct nl_sock *listener = sock_open();
	struct nl_msg *msg;
	int err;

	if (group < 0)
		fail("genl_ctrl_resolve_grp: %s", nl_geterror(group));
	nl_socket_disable_seq_check(listener);
	err = nl_socket_add_membership(listener, group);
	if (err < 0)
		fail("joining the ovs_vport group: %s", nl_geterror(err));

	msg = request(sk, VPORT, OVS_VPORT_CMD_NEW, NLM_F_ECHO,
		      dp_ifindex(sk, dp));
	put(msg, nla_put_string(msg, OVS_VPORT_ATTR_NAME, name));
	put(msg, nla_put_u32(msg, OVS_VPORT_ATTR_TYPE,
			     OVS_VPORT_TYPE_INTERNAL));
	put(msg, nla_put_u32(msg, OVS_VPORT_ATTR_UPCALL_PID, 0));
	expect_ok(transact(sk, msg, print_vport, NULL));
	await_vport_notification(listener, name);
	nl_socket_free(listener);
}

static void
put_flow_key(struct nl_msg *msg, int type, uint32_t port_no)
{
	struct ovs_key_ethernet eth = {
		.eth_src = { 0x02, 0, 0, 0, 0, 1 },
		.eth_dst = { 0x01, 0x80, 0xc2, 0, 0, 0x0e },
	};
	struct nlattr *key = nla_nest_start(msg, type);

	if (!key)
		fail("building the request: no room");
	put(msg, nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, port_no));
	put(msg, nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth));
	put(msg, nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE,
			     htons(FLOW_ETH_TYPE)));
	nla_nest_end(msg, key);
}

/* The actions output:PORT_NO, in the nest of type (a flow's or an
 * execute's). */
static void
put_actions(struct nl_msg *msg, int type, uint32_t port_no)
{
	struct nlattr *actions = nla_nest_start(msg, type);

	if (!actions)
		fail("building the request: no room");
	put(msg, nla_put_u32(msg, OVS_ACTION_ATTR_OUTPUT, port_no));
	nla_nest_end(msg, actions);
}

/* Prints "flow in_port(N) eth_type(0xT) actions:output(N),..." */
static int
print_flow(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OVS_FLOW_ATTR_MAX + 1];
	struct nlattr *a;
	int rem;

	parse_reply(msg, tb, OVS_FLOW_ATTR_MAX);
	if (!tb[OVS_FLOW_ATTR_KEY] || !tb[OVS_FLOW_ATTR_ACTIONS])
		fail("a flow without key or actions");
	printf("flow");
	nla_for_each_nested(a, tb[OVS_FLOW_ATTR_KEY], rem) {
		if (nla_type(a) == OVS_KEY_ATTR_IN_PORT &&
		    nla_len(a) == sizeof(uint32_t))
			printf(" in_port(%u)", nla_get_u32(a));
		else if (nla_type(a) == OVS_KEY_ATTR_ETHERTYPE &&
			 nla_len(a) == sizeof(uint16_t))
			printf(" eth_type(0x%04x)", ntohs(nla_get_u16(a)));
	}
	printf(" actions:");
	nla_for_each_nested(a, tb[OVS_FLOW_ATTR_ACTIONS], rem) {
		if (nla_type(a) == OVS_ACTION_ATTR_OUTPUT &&
		    nla_len(a) == sizeof(uint32_t))
			printf("output(%u),", nla_get_u32(a));
		else
			printf("%d,", nla_type(a));
	}
	printf("\n");
	return NL_OK;
}

static uint32_t port_number(const char *s);

static void
put_nsh_key(struct nl_msg *msg, int type, uint32_t port_no,
	    uint16_t eth_type, const struct ovs_nsh_key_base *base)
{
	struct ovs_nsh_key_md1 md1;
	struct ovs_key_ethernet eth;
	struct nlattr *key = nla_nest_start(msg, type), *nsh;

	memset(&md1, 0, sizeof(md1));
	memset(&eth, 0, sizeof(eth));
	if (!key)
		fail("building the request: no room");
	put(msg, nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, port_no));
	put(msg, nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth));
	put(msg, nla_put_u16(msg, OVS_KEY_ATTR_ETHERTYPE, eth_type));
	nsh = nla_nest_start(msg, OVS_KEY_ATTR_NSH);
	if (!nsh)
		fail("building the request: no room");
	put(msg, nla_put(msg, OVS_NSH_KEY_ATTR_BASE, sizeof(*base), base));
	if (type == OVS_FLOW_ATTR_MASK)
		put(msg, nla_put(msg, OVS_NSH_KEY_ATTR_MD1, sizeof(md1),
				 &md1));
	nla_nest_end(msg, nsh);
	nla_nest_end(msg, key);
}

/* The NSH base header of MDTYPE SPI SI (argv[3..5]). */
static struct ovs_nsh_key_base
nsh_base(char **argv)
{
	struct ovs_nsh_key_base base = {
		.ttl = 63,
		.mdtype = atoi(argv[3]),
		.np = 3,
		.path_hdr = htonl(strtoul(argv[4], NULL, 0) << 8 |
				  (strtoul(argv[5], NULL, 0) & 0xff)),
	};

	return base;
}

static void
nsh_push_flow(struct nl_sock *sk, char **argv)
{
	static const uint8_t md2[] = { 0, 1, 1, 4, 0x0a, 0x0b, 0x0c, 0x0d };
	struct nl_msg *msg = request(sk, FLOW, OVS_FLOW_CMD_NEW,
				     NLM_F_CREATE | NLM_F_ECHO,
				     dp_ifindex(sk, argv[0]));
	struct ovs_action_push_eth eth = {
		.addresses = {
			.eth_src = { 0x02, 0, 0, 0, 0x0a, 1 },
			.eth_dst = { 0x02, 0, 0, 0, 0x0b, 1 },
		},
	};
	struct ovs_nsh_key_base base = nsh_base(argv);
	struct ovs_nsh_key_md1 md1;
	struct ovs_key_ethernet e;
	struct nlattr *nest, *push, *nsh;

	memset(&md1, 0, sizeof(md1));
	memset(&e, 0, sizeof(e));
	md1.context[0] = htonl(0x11223344);
	md1.context[3] = htonl(0x55667788);
	nest = nla_nest_start(msg, OVS_FLOW_ATTR_KEY);
	if (!nest)
		fail("building the request: no room");
	put(msg, nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, port_number(argv[1])));
	put(msg, nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(e), &e));
	nla_nest_end(msg, nest);
	/* Any frame of the port: the addresses wildcarded. */
	nest = nla_nest_start(msg, OVS_FLOW_ATTR_MASK);
	if (!nest)
		fail("building the request: no room");
	put(msg, nla_put_u32(msg, OVS_KEY_ATTR_IN_PORT, 0xffffffff));
	put(msg, nla_put(msg, OVS_KEY_ATTR_ETHERNET, sizeof(e), &e));
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, OVS_FLOW_ATTR_ACTIONS);
	push = nla_nest_start(msg, OVS_ACTION_ATTR_PUSH_NSH);
	nsh = nla_nest_start(msg, OVS_KEY_ATTR_NSH);
	if (!nest || !push || !nsh)
		fail("building the request: no room");
	put(msg, nla_put(msg, OVS_NSH_KEY_ATTR_BASE, sizeof(base), &base));
	if (base.mdtype == 1)
		put(msg, nla_put(msg, OVS_NSH_KEY_ATTR_MD1, sizeof(md1), &md1));
	else
		put(msg, nla_put(msg, OVS_NSH_KEY_ATTR_MD2, sizeof(md2), md2));
	nla_nest_end(msg, nsh);
	nla_nest_end(msg, push);
	put(msg, nla_put(msg, OVS_ACTION_ATTR_PUSH_ETH, sizeof(eth), &eth));
	put(msg, nla_put_u32(msg, OVS_ACTION_ATTR_OUTPUT,
			     port_number(argv[2])));
	nla_nest_end(msg, nest);
	expect_ok(transact(sk, msg, print_flow, NULL));
}

static void
nsh_pop_flow(struct nl_sock *sk, char **argv)
{
	struct nl_msg *msg = request(sk, FLOW, OVS_FLOW_CMD_NEW,
				     NLM_F_CREATE | NLM_F_ECHO,
				     dp_ifindex(sk, argv[0]));
	struct ovs_nsh_key_base key = nsh_base(argv);
	struct ovs_nsh_key_base mask = {
		.mdtype = 0xff, .np = 0xff, .path_hdr = 0xffffffff,
	};
	struct nlattr *actions;

	put_nsh_key(msg, OVS_FLOW_ATTR_KEY, port_number(argv[1]),
		    htons(ETH_P_NSH), &key);
	put_nsh_key(msg, OVS_FLOW_ATTR_MASK, 0xffffffff, 0xffff, &mask);
	actions = nla_nest_start(msg, OVS_FLOW_ATTR_ACTIONS);
	if (!actions)
		fail("building the request: no room");
	put(msg, nla_put_flag(msg, OVS_ACTION_ATTR_POP_ETH));
	put(msg, nla_put_flag(msg, OVS_ACTION_ATTR_POP_NSH));
	put(msg, nla_put_u32(msg, OVS_ACTION_ATTR_OUTPUT,
			     port_number(argv[2])));
	nla_nest_end(msg, actions);
	expect_ok(transact(sk, msg, print_flow, NULL));
}

static void
flow_put(struct nl_sock *sk, const char *dp, uint32_t port_no)
{
	struct nl_msg *msg = request(sk, FLOW, OVS_FLOW_CMD_NEW,
				     NLM_F_CREATE | NLM_F_ECHO,
				     dp_ifindex(sk, dp));

	put_flow_key(msg, OVS_FLOW_ATTR_KEY, port_no);
	put_actions(msg, OVS_FLOW_ATTR_ACTIONS, port_no);
	expect_ok(transact(sk, msg, print_flow, NULL));
}

static void
flow_del(struct nl_sock *sk, const char *dp, uint32_t port_no)
{
	struct nl_msg *msg = request(sk, FLOW, OVS_FLOW_CMD_DEL, NLM_F_ECHO,
				     dp_ifindex(sk, dp));

	put_flow_key(msg, OVS_FLOW_ATTR_KEY, port_no);
	expect_ok(transact(sk, msg, print_flow, NULL));
}

static void
malformed(struct nl_sock *sk, const char *what, const char *dp)
{
	struct nl_msg *msg;

	if (!strcmp(what, "dp-no-pid")) {
		msg = dp_request(sk, OVS_DP_CMD_NEW, 0, dp);
	} else if (!strcmp(what, "vport-no-type")) {
		msg = request(sk, VPORT, OVS_VPORT_CMD_NEW, 0,
			      dp_ifindex(sk, dp));
		put(msg, nla_put_string(msg, OVS_VPORT_ATTR_NAME, "nl-bad0"));
		put(msg, nla_put_u32(msg, OVS_VPORT_ATTR_UPCALL_PID, 0));
	} else if (!strcmp(what, "flow-no-key")) {
		msg = request(sk, FLOW, OVS_FLOW_CMD_NEW, NLM_F_CREATE,
			      dp_ifindex(sk, dp));
		put_actions(msg, OVS_FLOW_ATTR_ACTIONS, 0);
	} else if (!strcmp(what, "execute-bad-actions")) {
		uint8_t frame[60] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e,
				      0x02, 0, 0, 0, 0, 1,
				      FLOW_ETH_TYPE >> 8, FLOW_ETH_TYPE & 0xff };
		struct nlattr *acts;

		msg = request(sk, PACKET, OVS_PACKET_CMD_EXECUTE, 0,
			      dp_ifindex(sk, dp));
		put(msg, nla_put(msg, OVS_PACKET_ATTR_PACKET, sizeof(frame),
				 frame));
		put_flow_key(msg, OVS_PACKET_ATTR_KEY, 1);
		acts = nla_nest_start(msg, OVS_PACKET_ATTR_ACTIONS);
		if (!acts)
			fail("building the request: no room");
		put(msg, nla_put_u32(msg, 200, 2));
		nla_nest_end(msg, acts);
	} else {
		fail("unknown malformed request %s", what);
	}
	expect_ok(transact(sk, msg, NULL, NULL));
}

/* n executes of an LLDP frame from port 0 to port 0 of datapath dp, each
 * answered before the next, until ENODEV (the datapath deleted
 * meanwhile); any other error fails. */
static void
execute_flood(struct nl_sock *sk, const char *dp, unsigned long n)
{
	static const uint8_t frame[60] = {
		0x01, 0x80, 0xc2, 0, 0, 0x0e, 0x02, 0, 0, 0, 0, 1,
		FLOW_ETH_TYPE >> 8, FLOW_ETH_TYPE & 0xff,
	};
	unsigned long ok = 0, gone = 0;
	int ifindex = dp_ifindex(sk, dp);

	/* Told to whoever waits for the flood to be under way. */
	printf("execute-flood: started\n");
	fflush(stdout);
	for (unsigned long i = 0; i < n; i++) {
		struct nl_msg *msg = request(sk, PACKET,
					     OVS_PACKET_CMD_EXECUTE, 0, ifindex);
		int err;

		put(msg, nla_put(msg, OVS_PACKET_ATTR_PACKET, sizeof(frame),
				 frame));
		put_flow_key(msg, OVS_PACKET_ATTR_KEY, 0);
		put_actions(msg, OVS_PACKET_ATTR_ACTIONS, 0);
		err = transact(sk, msg, NULL, NULL);
		if (err == -ENODEV) {
			gone++;
			break;
		}
		expect_ok(err);
		ok++;
	}
	printf("execute-flood: %lu executed, %lu ENODEV\n", ok, gone);
}

static void
resolve(struct nl_sock *sk)
{
	bool ok = true;

	for (int f = 0; f < N_FAMILIES; f++) {
		const char *name = families[f].name;
		int id = genl_ctrl_resolve(sk, name);
		int group;

		if (id < 0) {
			printf("family %s: %s\n", name, nl_geterror(id));
			ok = false;
			continue;
		}
		printf("family %s id %d\n", name, id);
		if (!families[f].group) {
			/* Any group name will do: there must be none. */
			group = genl_ctrl_resolve_grp(sk, name, name);
			if (group == -NLE_OBJ_NOTFOUND) {
				printf("family %s: no multicast group\n", name);
			} else {
				printf("family %s: unexpected group answer %d\n",
				       name, group);
				ok = false;
			}
			continue;
		}
		group = genl_ctrl_resolve_grp(sk, name, families[f].group);
		if (group < 0) {
			printf("group %s/%s: %s\n", name, families[f].group,
			       nl_geterror(group));
			ok = false;
		} else {
			printf("group %s/%s id %d\n", name, families[f].group,
			       group);
		}
	}
	exit(ok ? 0 : 1);
}

static uint32_t
port_number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > UINT32_MAX)
		fail("bad port number %s", s);
	return v;
}

int
main(int argc, char **argv)
{
	struct nl_sock *sk;
	struct nl_msg *msg;
	int n = argc - 2;	/* the command's arguments */

	if (argc < 2) {
		fprintf(stderr, "usage: nl-client COMMAND [ARGS] "
			"(see tests/integration/nl-client.c)\n");
		return 2;
	}
	command = argv[1];
	sk = sock_open();

	if (!strcmp(command, "resolve") && n == 0) {
		resolve(sk);
	} else if (!strcmp(command, "dp-new") && n == 1) {
		msg = dp_request(sk, OVS_DP_CMD_NEW, NLM_F_ECHO, argv[2]);
		put(msg, nla_put_u32(msg, OVS_DP_ATTR_UPCALL_PID, 0));
		expect_ok(transact(sk, msg, print_dp, NULL));
	} else if (!strcmp(command, "dp-get") && n == 1) {
		msg = dp_request(sk, OVS_DP_CMD_GET, 0, argv[2]);
		expect_ok(transact(sk, msg, print_dp, NULL));
	} else if (!strcmp(command, "dp-del") && n == 1) {
		msg = dp_request(sk, OVS_DP_CMD_DEL, NLM_F_ECHO, argv[2]);
		expect_ok(transact(sk, msg, print_dp, NULL));
	} else if (!strcmp(command, "dp-dump") && n == 0) {
		msg = request(sk, DP, OVS_DP_CMD_GET, NLM_F_DUMP, 0);
		expect_ok(transact(sk, msg, print_dp, NULL));
	} else if (!strcmp(command, "vport-new") && n == 2) {
		vport_new(sk, argv[2], argv[3]);
	} else if (!strcmp(command, "vport-dump") && n == 1) {
		msg = request(sk, VPORT, OVS_VPORT_CMD_GET, NLM_F_DUMP,
			      dp_ifindex(sk, argv[2]));
		expect_ok(transact(sk, msg, print_vport, NULL));
	} else if (!strcmp(command, "vport-stats") && n == 1) {
		msg = request(sk, VPORT, OVS_VPORT_CMD_GET, NLM_F_DUMP,
			      dp_ifindex(sk, argv[2]));
		expect_ok(transact(sk, msg, print_vport_stats, NULL));
	} else if (!strcmp(command, "flow-put") && n == 2) {
		flow_put(sk, argv[2], port_number(argv[3]));
	} else if (!strcmp(command, "flow-del") && n == 2) {
		flow_del(sk, argv[2], port_number(argv[3]));
	} else if (!strcmp(command, "flow-dump") && n == 1) {
		msg = request(sk, FLOW, OVS_FLOW_CMD_GET, NLM_F_DUMP,
			      dp_ifindex(sk, argv[2]));
		expect_ok(transact(sk, msg, print_flow, NULL));
	} else if (!strcmp(command, "nsh-push-flow") && n == 6) {
		nsh_push_flow(sk, argv + 2);
	} else if (!strcmp(command, "nsh-pop-flow") && n == 6) {
		nsh_pop_flow(sk, argv + 2);
	} else if (!strcmp(command, "execute-flood") && n == 2) {
		execute_flood(sk, argv[2], strtoul(argv[3], NULL, 10));
	} else if (!strcmp(command, "malformed") && n == 2) {
		malformed(sk, argv[2], argv[3]);
	} else {
		fail("unknown command or wrong number of arguments");
	}
	nl_socket_free(sk);
	return 0;
}
