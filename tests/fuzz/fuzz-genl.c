/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: arbitrary datagrams from a client, as genl_rcv() gets
 * them. The client lacks CAP_NET_ADMIN, so no device is ever created, but
 * every header, attribute and dump path is reached. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "include/tapdp/proto.h"
#include "families/families.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/fuzz/nl-mutator.h"

static struct nlsock *sk;
static struct dp_net *net;
static int peer;

static void
setup(void)
{
	struct nlsock_creds creds = { .pid = 1234, .net_admin = false };
	const struct dp_net_config cfg = { .upcall = packet_family_upcalls };
	struct tapdp_shared *shared;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		abort();
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	net = dp_net_new(&cfg);
	if (!net)
		abort();
	nlsock_registry_init();
	nlctrl_register();
	families_register();
	peer = sv[0];
	sk = nlsock_new(sv[1], shared, &creds, NETLINK_GENERIC, net);
	nlsock_autobind(sk);
}

/* Requests of the OVS families: genlmsghdr and ovs_header, then
 * attributes (OVS_FLOW_ATTR_MAX, the largest, is under 32). nlctrl's
 * have no ovs_header: their first attribute is taken for one. */
static const struct nl_mut_layout layout = {
	.region = { NL_MUT_MSGS }, .hdr_len = 8, .max_type = 32,
	.max_cmd = 12, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char sink[65536];

	if (!sk)
		setup();
	genl_rcv(sk, data, size);
	while (genl_dump_next(sk))
		;
	while (recv(peer, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	return 0;
}
