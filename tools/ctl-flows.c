/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl flows: each datapath's megaflows from the ovs_flow dump, with
 * what ovs-dpctl does not show: how long each has been idle, the mask it
 * uses (numbered in the datapath's mask table, which follows with the
 * flows per mask), the mask cache's hits, and with --rate S the packets a
 * second each flow saw over S seconds (two dumps, matched by UFID, else
 * by key).
 *
 *   flows [--rate S] [DATAPATH]
 *
 * Human form: per datapath a line of totals, a line per flow
 *   ufid:UUID KEY packets:N bytes:N idle:Ss mask:M [rate:R/s]
 * (the key as ovs-dpctl writes it), then a line per mask
 *   mask M: N flows MASK
 * --json: one object per datapath. */
#include <errno.h>
#include <getopt.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/ctl-dp.h"
#include "tools/json.h"
#include "tools/odp-key.h"
#include "include/tapdp/ovs-uapi.h"

struct flow {
	uint8_t ufid[16];
	unsigned ufid_len;
	void *key, *mask;	/* attribute payloads, owned */
	size_t key_len, mask_len;
	uint64_t packets, bytes, used;
	unsigned mask_no;	/* in the datapath's mask table */
	double rate;		/* -1: not measured */
};

struct mask {
	void *bytes;		/* not owned: the first flow's */
	size_t len;
	unsigned n_flows;
};

struct dp {
	struct ctl_dp info;		/* without its ports */
	struct flow *flows;
	unsigned n_flows;
	struct mask *masks;
	unsigned n_masks;
};

struct dps {
	struct dp *dp;
	unsigned n;
	const char *only;	/* NULL: all */
};

static void *
dup_payload(const struct nlattr *a, size_t *len)
{
	void *p;

	*len = mnl_attr_get_payload_len(a);
	p = malloc(*len ? *len : 1);
	if (p)
		memcpy(p, mnl_attr_get_payload(a), *len);
	return p;
}

static int
flow_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[OVS_FLOW_ATTR_MAX + 1];
	struct dp *dp = data;
	struct flow *fl;
	size_t hdr = GENL_HDRLEN + sizeof(struct ovs_header);

	if (h->nlmsg_len < mnl_nlmsg_size(hdr))
		return -EBADMSG;
	gclient_attrs((const char *)mnl_nlmsg_get_payload(h) + hdr,
		      mnl_nlmsg_get_payload_len(h) - hdr, tb,
		      OVS_FLOW_ATTR_MAX);
	if (!tb[OVS_FLOW_ATTR_KEY])
		return MNL_CB_OK;
	fl = ctl_grow(&dp->flows, &dp->n_flows, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	fl->rate = -1;
	fl->key = dup_payload(tb[OVS_FLOW_ATTR_KEY], &fl->key_len);
	if (tb[OVS_FLOW_ATTR_MASK])
		fl->mask = dup_payload(tb[OVS_FLOW_ATTR_MASK], &fl->mask_len);
	if (!fl->key || (tb[OVS_FLOW_ATTR_MASK] && !fl->mask))
		return -ENOMEM;
	if (tb[OVS_FLOW_ATTR_UFID]) {
		fl->ufid_len = mnl_attr_get_payload_len(tb[OVS_FLOW_ATTR_UFID]);
		if (fl->ufid_len > sizeof(fl->ufid))
			fl->ufid_len = sizeof(fl->ufid);
		memcpy(fl->ufid, mnl_attr_get_payload(tb[OVS_FLOW_ATTR_UFID]),
		       fl->ufid_len);
	}
	if (tb[OVS_FLOW_ATTR_STATS] &&
	    mnl_attr_get_payload_len(tb[OVS_FLOW_ATTR_STATS]) >=
		    sizeof(struct ovs_flow_stats)) {
		struct ovs_flow_stats st;

		memcpy(&st, mnl_attr_get_payload(tb[OVS_FLOW_ATTR_STATS]),
		       sizeof(st));
		fl->packets = st.n_packets;
		fl->bytes = st.n_bytes;
	}
	fl->used = gclient_uint(tb[OVS_FLOW_ATTR_USED]);
	return MNL_CB_OK;
}

/* Numbers each flow's mask in the datapath's mask table (in the order
 * first seen), counting the flows of each. */
static int
number_masks(struct dp *dp)
{
	for (unsigned i = 0; i < dp->n_flows; i++) {
		struct flow *fl = &dp->flows[i];
		unsigned k;

		for (k = 0; k < dp->n_masks; k++)
			if (dp->masks[k].len == fl->mask_len &&
			    !memcmp(dp->masks[k].bytes, fl->mask, fl->mask_len))
				break;
		if (k == dp->n_masks) {
			struct mask *m = ctl_grow(&dp->masks, &dp->n_masks,
					      sizeof(*m));

			if (!m)
				return -ENOMEM;
			m->bytes = fl->mask;
			m->len = fl->mask_len;
		}
		dp->masks[k].n_flows++;
		fl->mask_no = k;
	}
	return 0;
}

static void
dps_free(struct dps *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		for (unsigned k = 0; k < d->dp[i].n_flows; k++) {
			free(d->dp[i].flows[k].key);
			free(d->dp[i].flows[k].mask);
		}
		free(d->dp[i].flows);
		free(d->dp[i].masks);
	}
	free(d->dp);
	d->dp = NULL;
	d->n = 0;
}

static int
dps_read(struct ctl_ctx *ctx, uint16_t flowf, struct dps *d)
{
	struct ovs_header oh = { 0 };
	struct ctl_dps all;
	int err = 0;

	if (ctl_dps_read(ctx, false, &all))
		return 1;
	for (unsigned i = 0; !err && i < all.n; i++) {
		struct dp *dp;

		if (d->only && strcmp(all.dp[i].name, d->only))
			continue;
		dp = ctl_grow(&d->dp, &d->n, sizeof(*dp));
		if (!dp) {
			err = ctl_fail("datapaths", -ENOMEM);
			break;
		}
		dp->info = all.dp[i];
		oh.dp_ifindex = dp->info.ifindex;
		err = gclient_request(&ctx->nl, flowf, OVS_FLOW_CMD_GET,
				      OVS_FLOW_VERSION, NLM_F_DUMP, &oh,
				      sizeof(oh), flow_cb, dp);
		if (err == -ENODEV)
			err = 0;
		if (!err && number_masks(dp))
			err = -ENOMEM;
		if (err)
			err = ctl_fail("flows", err);
	}
	ctl_dps_free(&all);
	return err;
}

/* The same flow in an earlier dump: by UFID, else by key and mask. */
static const struct flow *
flow_match(const struct dp *dp, const struct flow *fl)
{
	for (unsigned i = 0; dp && i < dp->n_flows; i++) {
		const struct flow *o = &dp->flows[i];

		if (fl->ufid_len ? o->ufid_len == fl->ufid_len &&
					   !memcmp(o->ufid, fl->ufid,
						   fl->ufid_len)
				 : o->key_len == fl->key_len &&
					   o->mask_len == fl->mask_len &&
					   !memcmp(o->key, fl->key,
						   fl->key_len) &&
					   !memcmp(o->mask, fl->mask,
						   fl->mask_len))
			return o;
	}
	return NULL;
}

static void
rates(struct dps *now, const struct dps *before, double secs)
{
	for (unsigned i = 0; i < now->n; i++) {
		const struct dp *old = NULL;

		for (unsigned k = 0; k < before->n; k++)
			if (before->dp[k].info.ifindex == now->dp[i].info.ifindex)
				old = &before->dp[k];
		for (unsigned k = 0; k < now->dp[i].n_flows; k++) {
			struct flow *fl = &now->dp[i].flows[k];
			const struct flow *o = flow_match(old, fl);
			uint64_t base = o && o->packets <= fl->packets
						? o->packets : 0;

			fl->rate = (fl->packets - base) / secs;
		}
	}
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The UFID as OVS writes it, "-" for none. */
static void
ufid_string(const struct flow *fl, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "-");
		return;
	}
	if (fl->ufid_len)
		odp_ufid_format(f, fl->ufid, fl->ufid_len);
	else
		fputs("-", f);
	fclose(f);
}

/* A key (mask NULL: exact) as ovs-dpctl writes it, as a string. */
static char *
key_string(const void *key, size_t key_len, const void *mask,
	   size_t mask_len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	odp_key_format(f, key, key_len, mask, mask_len);
	fclose(f);
	return s;
}

/* The fields a mask matches on, as a string. */
static char *
mask_string(const void *mask, size_t len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	odp_mask_fields(f, mask, len);
	fclose(f);
	return s;
}

/* How long ago a flow was used, in seconds; -1 never. */
static double
idle_s(const struct flow *fl, uint64_t now)
{
	if (!fl->used)
		return -1;
	return fl->used < now ? (now - fl->used) / 1000.0 : 0;
}

static void
print_human(const struct dps *d, uint64_t now)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct dp *dp = &d->dp[i];
		uint64_t pkts = dp->info.stats.n_hit + dp->info.stats.n_missed;

		printf("datapath %s: %u flows, %u masks, %.2f masks probed "
		       "per packet, %llu mask cache hits\n", dp->info.name,
		       dp->n_flows, dp->n_masks,
		       pkts ? (double)dp->info.mf.n_mask_hit / pkts : 0.0,
		       (unsigned long long)dp->info.mf.n_cache_hit);
		for (unsigned k = 0; k < dp->n_flows; k++) {
			const struct flow *fl = &dp->flows[k];
			char ufid[64], *key;
			double idle = idle_s(fl, now);

			ufid_string(fl, ufid, sizeof(ufid));
			key = key_string(fl->key, fl->key_len, fl->mask,
					 fl->mask_len);
			printf("  %s %s packets:%llu bytes:%llu ", ufid,
			       key ? key : "?",
			       (unsigned long long)fl->packets,
			       (unsigned long long)fl->bytes);
			if (idle < 0)
				printf("idle:never");
			else
				printf("idle:%.3fs", idle);
			printf(" mask:%u", fl->mask_no);
			if (fl->rate >= 0)
				printf(" rate:%.1f/s", fl->rate);
			printf("\n");
			free(key);
		}
		for (unsigned k = 0; k < dp->n_masks; k++) {
			char *m = mask_string(dp->masks[k].bytes,
					      dp->masks[k].len);

			printf("  mask %u: %u flows %s\n", k,
			       dp->masks[k].n_flows, m ? m : "?");
			free(m);
		}
	}
}

static void
print_json(const struct dps *d, uint64_t now)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct dp *dp = &d->dp[i];
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_string(&j, "datapath", dp->info.name);
		json_uint(&j, "mask_hit", dp->info.mf.n_mask_hit);
		json_uint(&j, "cache_hit", dp->info.mf.n_cache_hit);
		json_array_begin(&j, "flows");
		for (unsigned k = 0; k < dp->n_flows; k++) {
			const struct flow *fl = &dp->flows[k];
			char ufid[64], *key;
			double idle = idle_s(fl, now);

			ufid_string(fl, ufid, sizeof(ufid));
			key = key_string(fl->key, fl->key_len, fl->mask,
					 fl->mask_len);
			json_object_begin(&j, NULL);
			if (fl->ufid_len)
				json_string(&j, "ufid", ufid + 5);
			json_string(&j, "key", key ? key : "");
			json_uint(&j, "packets", fl->packets);
			json_uint(&j, "bytes", fl->bytes);
			if (idle >= 0)
				json_uint(&j, "idle_ms", idle * 1000);
			json_uint(&j, "mask", fl->mask_no);
			if (fl->rate >= 0)
				json_uint(&j, "packets_per_s", fl->rate + 0.5);
			json_object_end(&j);
			free(key);
		}
		json_array_end(&j);
		json_array_begin(&j, "masks");
		for (unsigned k = 0; k < dp->n_masks; k++) {
			char *m = mask_string(dp->masks[k].bytes,
					      dp->masks[k].len);

			json_object_begin(&j, NULL);
			json_uint(&j, "mask", k);
			json_uint(&j, "flows", dp->masks[k].n_flows);
			json_string(&j, "fields", m ? m : "");
			json_object_end(&j);
			free(m);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
}

static int
flows_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct dps before = { 0 }, d = { 0 };
	uint16_t flowf;
	double rate = 0;
	int c, err;

	/* 0: glibc starts afresh, permuting again (main's options stop at
	 * the command). */
	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'r' || (rate = strtod(optarg, NULL)) <= 0) {
			fprintf(stderr, "usage: tapdpctl flows [--rate S] "
					"[DATAPATH]\n");
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "usage: tapdpctl flows [--rate S] [DATAPATH]\n");
		return 2;
	}
	before.only = d.only = argc > optind ? argv[optind] : NULL;
	if (ctl_family(ctx, OVS_FLOW_FAMILY, &flowf, NULL, NULL))
		return 1;
	if (rate > 0) {
		uint64_t t0 = now_ms();

		err = dps_read(ctx, flowf, &before);
		if (err)
			goto out;
		usleep(rate * 1e6);
		err = dps_read(ctx, flowf, &d);
		if (!err)
			rates(&d, &before, (now_ms() - t0) / 1000.0);
	} else {
		err = dps_read(ctx, flowf, &d);
	}
	if (!err && d.only && !d.n) {
		fprintf(stderr, "tapdpctl: no datapath %s\n", d.only);
		err = 1;
	}
	if (!err) {
		if (ctx->json)
			print_json(&d, now_ms());
		else
			print_human(&d, now_ms());
	}
out:
	dps_free(&before);
	dps_free(&d);
	return err;
}

const struct ctl_cmd ctl_cmd_flows = {
	.name = "flows",
	.usage = "flows [--rate S] [DATAPATH]",
	.help = "megaflows with idle times, masks, hit rates",
	.run = flows_run,
};
