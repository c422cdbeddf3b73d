/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl upcalls: what went up to userspace, from tapdp_ctl's UPCALLS
 * dump, beyond ovs-dpctl show's missed and lost.
 *
 *   upcalls [DATAPATH]
 *       per datapath: the upcalls by command (miss, userspace action),
 *       those lost by reason, how long misses waited for their flow (from
 *       the upcall to the flow NEW with the packet's key) by decade of
 *       microseconds, then a line per handler (each portid upcalls went
 *       to, named by the process that holds it): sent and lost
 *   upcalls --follow [--count N] [--timeout S]
 *       each upcall as it is sent or lost, as capture upcalls prints it
 *       (CAP_NET_ADMIN: the events carry the packets)
 *
 * --json: one object a datapath. */
#include <errno.h>
#include <inttypes.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ctl-follow.h"
#include "tools/json.h"
#include "include/tapdp/ctl-uapi.h"

#define WAIT_BUCKETS	8

static const char *const wait_names[WAIT_BUCKETS] = {
	"<10us", "<100us", "<1ms", "<10ms", "<100ms", "<1s", "<10s", ">=10s",
};

/* Who holds a portid, from the CLIENTS dump. */
struct holder {
	uint32_t portid, pid;
	char comm[64];
};

struct upcalls {
	struct ctl_ctx *ctx;
	struct json j;
	const char *only;	/* NULL: every datapath */
	unsigned n_dps;
	struct holder *holders;
	unsigned n_holders;
};

static int
holder_cb(const struct nlmsghdr *h, void *data)
{
	struct upcalls *u = data;
	struct holder *o = ctl_grow(&u->holders, &u->n_holders, sizeof(*o));
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];

	if (!o)
		return -ENOMEM;
	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      TAPDP_CTL_ATTR_MAX);
	o->portid = gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]);
	o->pid = gclient_uint(tb[TAPDP_CTL_ATTR_CLIENT_PID]);
	snprintf(o->comm, sizeof(o->comm), "%s",
		 gclient_str(tb[TAPDP_CTL_ATTR_COMM], "?"));
	return MNL_CB_OK;
}

static const struct holder *
holder_of(const struct upcalls *u, uint32_t portid)
{
	for (unsigned i = 0; i < u->n_holders; i++)
		if (u->holders[i].portid == portid)
			return &u->holders[i];
	return NULL;
}

static void
handler_human(struct upcalls *u, const struct nlattr **tb)
{
	uint32_t portid = gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]);
	const struct holder *o = holder_of(u, portid);

	printf("  handler portid %" PRIu32, portid);
	if (o)
		printf(" (%s[%" PRIu32 "])", o->comm, o->pid);
	else
		printf(" (no socket)");
	printf(": sent %" PRIu64 " lost %" PRIu64 "\n",
	       gclient_uint(tb[TAPDP_CTL_ATTR_SENT]),
	       gclient_uint(tb[TAPDP_CTL_ATTR_LOST]));
}

static void
handler_json(struct upcalls *u, const struct nlattr **tb)
{
	uint32_t portid = gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]);
	const struct holder *o = holder_of(u, portid);

	json_object_begin(&u->j, NULL);
	json_uint(&u->j, "portid", portid);
	if (o) {
		json_uint(&u->j, "pid", o->pid);
		json_string(&u->j, "command", o->comm);
	}
	json_uint(&u->j, "sent", gclient_uint(tb[TAPDP_CTL_ATTR_SENT]));
	json_uint(&u->j, "lost", gclient_uint(tb[TAPDP_CTL_ATTR_LOST]));
	json_object_end(&u->j);
}

/* Runs fn on each HANDLER of the HANDLERS nest (NULL: none). */
static void
handlers(struct upcalls *u, const struct nlattr *nest,
	 void (*fn)(struct upcalls *u, const struct nlattr **tb))
{
	const struct nlattr *h;

	if (!nest)
		return;
	mnl_attr_for_each_nested(h, nest) {
		const struct nlattr *ht[TAPDP_CTL_ATTR_MAX + 1];

		gclient_attrs(mnl_attr_get_payload(h),
			      mnl_attr_get_payload_len(h), ht,
			      TAPDP_CTL_ATTR_MAX);
		fn(u, ht);
	}
}

static void
wait_buckets(const struct nlattr *a, uint64_t out[WAIT_BUCKETS])
{
	memset(out, 0, WAIT_BUCKETS * sizeof(out[0]));
	if (a)
		memcpy(out, mnl_attr_get_payload(a),
		       mnl_attr_get_payload_len(a) < WAIT_BUCKETS * 8
			       ? mnl_attr_get_payload_len(a)
			       : WAIT_BUCKETS * 8);
}

static void
dp_human(struct upcalls *u, const struct nlattr **tb, uint64_t wait[])
{
	uint64_t miss = gclient_uint(tb[TAPDP_CTL_ATTR_UPCALL_MISS]);
	uint64_t action = gclient_uint(tb[TAPDP_CTL_ATTR_UPCALL_ACTION]);
	uint64_t full = gclient_uint(tb[TAPDP_CTL_ATTR_LOST_FULL]);
	uint64_t nosock = gclient_uint(tb[TAPDP_CTL_ATTR_LOST_NO_SOCKET]);
	uint64_t other = gclient_uint(tb[TAPDP_CTL_ATTR_LOST_OTHER]);
	uint64_t n = gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_N]);

	printf("datapath %s: upcalls %" PRIu64 " (miss %" PRIu64
	       ", action %" PRIu64 "), lost %" PRIu64 " (socket full %" PRIu64
	       ", no socket %" PRIu64 ", other %" PRIu64 ")\n",
	       gclient_str(tb[TAPDP_CTL_ATTR_DP_NAME], "?"), miss + action,
	       miss, action, full + nosock + other, full, nosock, other);
	printf("  miss to flow: %" PRIu64 " timed", n);
	if (n)
		printf(", mean %" PRIu64 " us, max %" PRIu64 " us",
		       gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_SUM_US]) / n,
		       gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_MAX_US]));
	for (unsigned i = 0; i < WAIT_BUCKETS; i++)
		printf("%s %s %" PRIu64, i ? "," : ";", wait_names[i], wait[i]);
	printf("\n");
	handlers(u, tb[TAPDP_CTL_ATTR_HANDLERS], handler_human);
}

static void
dp_json(struct upcalls *u, const struct nlattr **tb, uint64_t wait[])
{
	static const struct {
		uint16_t attr;
		const char *name;
	} lost[] = {
		{ TAPDP_CTL_ATTR_LOST_FULL, "socket_full" },
		{ TAPDP_CTL_ATTR_LOST_NO_SOCKET, "no_socket" },
		{ TAPDP_CTL_ATTR_LOST_OTHER, "other" },
	};
	struct json *j = &u->j;

	json_object_begin(j, NULL);
	json_string(j, "datapath", gclient_str(tb[TAPDP_CTL_ATTR_DP_NAME], ""));
	json_uint(j, "miss", gclient_uint(tb[TAPDP_CTL_ATTR_UPCALL_MISS]));
	json_uint(j, "action", gclient_uint(tb[TAPDP_CTL_ATTR_UPCALL_ACTION]));
	json_object_begin(j, "lost");
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		json_uint(j, lost[i].name, gclient_uint(tb[lost[i].attr]));
	json_object_end(j);
	json_object_begin(j, "miss_to_flow");
	json_uint(j, "n", gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_N]));
	json_uint(j, "sum_us", gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_SUM_US]));
	json_uint(j, "max_us", gclient_uint(tb[TAPDP_CTL_ATTR_WAIT_MAX_US]));
	json_object_begin(j, "buckets");
	for (unsigned i = 0; i < WAIT_BUCKETS; i++)
		json_uint(j, wait_names[i], wait[i]);
	json_object_end(j);
	json_object_end(j);
	json_array_begin(j, "handlers");
	handlers(u, tb[TAPDP_CTL_ATTR_HANDLERS], handler_json);
	json_array_end(j);
	json_object_end(j);
	putchar('\n');
}

static int
dp_cb(const struct nlmsghdr *h, void *data)
{
	struct upcalls *u = data;
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];
	uint64_t wait[WAIT_BUCKETS];

	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      TAPDP_CTL_ATTR_MAX);
	if (u->only &&
	    strcmp(u->only, gclient_str(tb[TAPDP_CTL_ATTR_DP_NAME], "")))
		return MNL_CB_OK;
	u->n_dps++;
	wait_buckets(tb[TAPDP_CTL_ATTR_WAIT], wait);
	if (u->ctx->json)
		dp_json(u, tb, wait);
	else
		dp_human(u, tb, wait);
	return MNL_CB_OK;
}

static int
upcalls_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	struct upcalls u = { .ctx = ctx };
	struct ctl_follow f;
	uint16_t family;
	int first, err;

	first = ctl_follow_opts(argc, argv, CTL_FOLLOW_OPT_FOLLOW, &f);
	if (first < 0 || argc - first > (f.follow ? 0 : 1)) {
		fprintf(stderr, "usage: tapdpctl upcalls [DATAPATH] | "
				"--follow [--count N] [--timeout S]\n");
		return 2;
	}
	if (f.follow)
		return ctl_capture(ctx, "upcalls", &f);
	u.only = argc > first ? argv[first] : NULL;
	if (ctl_family(ctx, TAPDP_CTL_FAMILY, &family, NULL, NULL))
		return 1;
	json_init(&u.j, stdout);
	err = gclient_request(&ctx->nl, family, TAPDP_CTL_CMD_CLIENTS,
			      TAPDP_CTL_VERSION, NLM_F_DUMP, NULL, 0,
			      holder_cb, &u);
	if (!err)
		err = gclient_request(&ctx->nl, family, TAPDP_CTL_CMD_UPCALLS,
				      TAPDP_CTL_VERSION, NLM_F_DUMP, NULL, 0,
				      dp_cb, &u);
	free(u.holders);
	if (err)
		return ctl_fail("upcalls", err);
	if (u.only && !u.n_dps) {
		fprintf(stderr, "tapdpctl: no datapath %s\n", u.only);
		return 1;
	}
	return 0;
}

const struct ctl_cmd ctl_cmd_upcalls = {
	.name = "upcalls",
	.usage = "upcalls [DATAPATH] | --follow [--count N] [--timeout S]",
	.help = "upcalls by command and handler, lost ones, miss-to-flow waits",
	.run = upcalls_run,
};
