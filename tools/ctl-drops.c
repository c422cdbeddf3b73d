/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl drops: why tapdpd dropped packets, from its tapdp_drop family
 * (include/tapdp/drop-uapi.h).
 *
 *   drops                the counts, per datapath then per port, one
 *                        line per reason that dropped a packet:
 *                        DATAPATH PORT_NO|- PORT_NAME|- 0xREASON NAME N
 *   drops --follow [--count N] [--timeout S]
 *                        each drop as it happens (CAP_NET_ADMIN: events
 *                        carry packet bytes): DP_IFINDEX PORT_NO 0xREASON
 *                        NAME ufid=HEX|- len=N HEX-OF-THE-FIRST-BYTES;
 *                        after N drops it stops, after S seconds without
 *                        one it gives up (exit status 1)
 *
 * The reasons are the kernel's numbers, those perf shows for
 * skb:kfree_skb (0x30001 is OVS_DROP_LAST_ACTION). --json gives one JSON
 * object a line. */
#include <errno.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ctl-follow.h"
#include "tools/json.h"
#include "include/tapdp/drop-uapi.h"

struct drops {
	bool json;
	struct ctl_follow f;
};

static void
print_hex(FILE *f, const struct nlattr *a)
{
	const unsigned char *p = mnl_attr_get_payload(a);

	for (unsigned i = 0; i < mnl_attr_get_payload_len(a); i++)
		fprintf(f, "%02x", p[i]);
}

/* The hex of a binary attribute as a JSON string. */
static void
json_hex(struct json *j, const char *key, const struct nlattr *a)
{
	unsigned len = a ? mnl_attr_get_payload_len(a) : 0;
	const unsigned char *p = a ? mnl_attr_get_payload(a) : NULL;
	char *s = malloc(2 * len + 1);

	if (!s)
		return;
	for (unsigned i = 0; i < len; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * len] = '\0';
	json_string(j, key, s);
	free(s);
}

/* One count: its datapath and port (port NULL: the datapath's own). */
static void
put_count(const struct drops *d, const char *dp, const struct nlattr *port,
	  const char *port_name, const struct nlattr **ctb)
{
	unsigned long long reason = gclient_uint(ctb[TAPDP_DROP_ATTR_REASON]);
	unsigned long long n = gclient_uint(ctb[TAPDP_DROP_ATTR_PACKETS]);
	const char *name = gclient_str(ctb[TAPDP_DROP_ATTR_REASON_NAME], "");
	struct json j;

	if (!d->json) {
		printf("%s ", dp[0] ? dp : "-");
		if (port)
			printf("%llu ", (unsigned long long)gclient_uint(port));
		else
			printf("- ");
		printf("%s 0x%llx %s %llu\n", port_name[0] ? port_name : "-",
		       reason, name[0] ? name : "-", n);
		return;
	}
	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_string(&j, "datapath", dp);
	if (port) {
		json_uint(&j, "port", gclient_uint(port));
		json_string(&j, "port_name", port_name);
	}
	json_uint(&j, "reason", reason);
	json_string(&j, "name", name);
	json_uint(&j, "packets", n);
	json_object_end(&j);
}

static int
count_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	const struct nlattr *ctb[TAPDP_DROP_ATTR_MAX + 1];
	const struct nlattr *c;
	struct drops *d = data;

	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      TAPDP_DROP_ATTR_MAX);
	if (!tb[TAPDP_DROP_ATTR_COUNTS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(c, tb[TAPDP_DROP_ATTR_COUNTS]) {
		gclient_attrs(mnl_attr_get_payload(c),
			      mnl_attr_get_payload_len(c), ctb,
			      TAPDP_DROP_ATTR_MAX);
		put_count(d, gclient_str(tb[TAPDP_DROP_ATTR_DP_NAME], ""),
			  tb[TAPDP_DROP_ATTR_PORT_NO],
			  gclient_str(tb[TAPDP_DROP_ATTR_PORT_NAME], ""), ctb);
	}
	return MNL_CB_OK;
}

static int
event_cb(const struct nlmsghdr *h, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(h);
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	unsigned long long dp, port, reason, len;
	struct drops *d = data;
	const char *name;
	struct json j;

	if (h->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN) ||
	    g->cmd != TAPDP_DROP_CMD_EVENT)
		return MNL_CB_OK;
	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      TAPDP_DROP_ATTR_MAX);
	d->f.seen++;
	dp = gclient_uint(tb[TAPDP_DROP_ATTR_DP_IFINDEX]);
	port = gclient_uint(tb[TAPDP_DROP_ATTR_PORT_NO]);
	reason = gclient_uint(tb[TAPDP_DROP_ATTR_REASON]);
	len = gclient_uint(tb[TAPDP_DROP_ATTR_PACKET_LEN]);
	name = gclient_str(tb[TAPDP_DROP_ATTR_REASON_NAME], "");
	if (d->json) {
		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_uint(&j, "dp_ifindex", dp);
		json_uint(&j, "port", port);
		json_uint(&j, "reason", reason);
		json_string(&j, "name", name);
		json_hex(&j, "ufid", tb[TAPDP_DROP_ATTR_UFID]);
		json_uint(&j, "len", len);
		json_hex(&j, "packet", tb[TAPDP_DROP_ATTR_PACKET]);
		json_object_end(&j);
	} else {
		printf("%llu %llu 0x%llx %s ufid=", dp, port, reason,
		       name[0] ? name : "-");
		if (tb[TAPDP_DROP_ATTR_UFID])
			print_hex(stdout, tb[TAPDP_DROP_ATTR_UFID]);
		else
			printf("-");
		printf(" len=%llu ", len);
		if (tb[TAPDP_DROP_ATTR_PACKET])
			print_hex(stdout, tb[TAPDP_DROP_ATTR_PACKET]);
		printf("\n");
	}
	fflush(stdout);
	return MNL_CB_OK;
}

static int
drops_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	struct drops d = { .json = ctx->json };
	uint32_t group;
	uint16_t family;
	int err;

	if (ctl_follow_opts(argc, argv, CTL_FOLLOW_OPT_FOLLOW, &d.f) != argc) {
		fprintf(stderr, "usage: tapdpctl drops [--follow "
				"[--count N] [--timeout S]]\n");
		return 2;
	}
	if (ctl_family(ctx, TAPDP_DROP_FAMILY, &family, TAPDP_DROP_MCGROUP,
		       &group))
		return 1;
	if (d.f.follow)
		return ctl_follow_run(ctx, group, TAPDP_DROP_FAMILY " "
				      TAPDP_DROP_MCGROUP, &d.f, event_cb, &d);
	err = gclient_request(&ctx->nl, family, TAPDP_DROP_CMD_GET,
			      TAPDP_DROP_VERSION, NLM_F_DUMP, NULL, 0,
			      count_cb, &d);
	return err ? ctl_fail("drops", err) : 0;
}

const struct ctl_cmd ctl_cmd_drops = {
	.name = "drops",
	.usage = "drops [--follow [--count N] [--timeout S]]",
	.help = "drops by reason per datapath and port, or as they happen",
	.run = drops_run,
};
