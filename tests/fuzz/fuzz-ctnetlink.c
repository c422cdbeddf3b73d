/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: arbitrary datagrams from a NETLINK_NETFILTER client
 * with CAP_NET_ADMIN, as ctnetlink_rcv() gets them: ctnetlink's (its
 * connections and expectations) and cttimeout's requests, dumps included.
 * Each input starts from an empty tracker without timeout policies. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "include/tapdp/proto.h"
#include "ct/conntrack.h"
#include "ct/timeout.h"
#include "families/ctnetlink.h"
#include "datapath/datapath.h"
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
	struct nlsock_creds creds = { .pid = 1234, .net_admin = true };
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
	peer = sv[0];
	sk = nlsock_new(sv[1], shared, &creds, NETLINK_NETFILTER, net);
	nlsock_autobind(sk);
}

/* nfgenmsg, then attributes (CTA_MAX is under 32). */
static const struct nl_mut_layout layout = {
	.region = { NL_MUT_MSGS }, .hdr_len = 4, .max_type = 32,
	.max_cmd = 12, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char sink[65536];

	if (!sk)
		setup();
	ctnetlink_rcv(sk, data, size);
	while (genl_dump_next(sk))
		;
	while (recv(peer, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	/* Expectations need a master with a helper, which only packets
	 * make: flushing the connections empties the tracker. */
	conntrack_flush(dp_net_conntrack(net), -1, 0, 0);
	ct_timeout_del(conntrack_timeouts(dp_net_conntrack(net)), NULL);
	return 0;
}
