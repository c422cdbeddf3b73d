/* SPDX-License-Identifier: Apache-2.0 */
/* Memory per installed megaflow: RSS growth over N flows (default
 * 1,000,000) put in a flow table as the ovs_flow family installs them for
 * ovs-vswitchd: a UFID each, actions "output:2" (stored as the kernel's
 * form), keys over the fields NORMAL-switching flows match (in_port,
 * Ethernet addresses and type, IPv4 addresses) under 4 masks. The
 * baseline, in the same process: the same flows without UFIDs, which
 * keep their unmasked key too (as the kernel does for them).
 *
 *   bench-flow-memory [N]       target: at most 600 bytes per flow */
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <urcu.h>

#include "actions/actions-netlink.h"
#include "flow/table.h"
#include "include/tapdp/ovs-uapi.h"
#include "bench/rss.h"

static void
free_flow(struct flow *f)
{
	free(f->actions);
	free(f);
}

/* Bytes per flow for n flows, with or without UFIDs. */
static double
fill(unsigned n, bool ufid)
{
	/* output:2, as one attribute in host order, in its nest */
	const struct {
		struct nlattr nest, a;
		uint32_t port;
	} acts = {
		{ .nla_len = 12, .nla_type = OVS_FLOW_ATTR_ACTIONS },
		{ .nla_len = 8, .nla_type = OVS_ACTION_ATTR_OUTPUT }, 2
	};
	struct flow_key key, mask[4];
	struct flow_table t;
	long before, after;

	memset(mask, 0, sizeof(mask));
	for (int m = 0; m < 4; m++) {
		mask[m].in_port = ~0u;
		memset(mask[m].eth_src, 0xff, 6);
		memset(mask[m].eth_dst, 0xff, 6);
		mask[m].eth_type = 0xffff;
		mask[m].ipv4_src = ~0u;
		mask[m].ipv4_dst = ~0u;
		mask[m].ip_proto = 0xff >> m;	/* four distinct masks */
	}
	flow_table_init(&t);
	before = rss_kib();
	for (unsigned i = 0; i < n; i++) {
		size_t extra = ufid ? 0 : sizeof(key);
		struct flow *f = calloc(1, sizeof(*f) + extra);

		memset(&key, 0, sizeof(key));
		key.in_port = 1 + (i & 3);
		key.eth_type = htons(ETH_P_IP);
		key.ipv4_src = htonl(0x0a000000 + i);
		key.ipv4_dst = htonl(0x0b000000 + (i >> 8));
		key.ip_proto = 17;
		if (ufid) {
			memcpy(f->ufid, &i, sizeof(i));
			f->ufid_len = 16;
		} else {
			memcpy(f + 1, &key, sizeof(key));
			f->unmasked_key = (const struct flow_key *)(f + 1);
		}
		f->actions = actions_store(&acts.nest, &key);
		if (!f->actions ||
		    flow_table_insert(&t, f, &key, &mask[i & 3])) {
			fprintf(stderr, "insert %u failed\n", i);
			exit(1);
		}
	}
	after = rss_kib();
	flow_table_destroy(&t, free_flow);
	return (after - before) * 1024.0 / n;
}

/* Each measure in a fresh process: freed memory would be reused. */
static double
measure(unsigned n, bool ufid)
{
	int p[2];
	double v = -1;
	pid_t pid;

	if (pipe(p) || (pid = fork()) < 0)
		exit(1);
	if (!pid) {
		rcu_register_thread();
		v = fill(n, ufid);
		if (write(p[1], &v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &v, sizeof(v)) != sizeof(v))
		exit(1);
	waitpid(pid, NULL, 0);
	close(p[0]);
	return v;
}

int
main(int argc, char **argv)
{
	unsigned n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	double with, without;

	with = measure(n, true);
	without = measure(n, false);
	printf("flow-memory: %u megaflows: %.0f bytes each with UFIDs "
	       "(ovs-vswitchd's), %.0f without (unmasked keys kept); "
	       "ratio %.2f; target <= 600: %s\n",
	       n, with, without, with / without,
	       with <= 600 ? "met" : "not met");
	return 0;
}
