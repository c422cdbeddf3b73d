/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/ctl-follow.h"

#include <errno.h>
#include <getopt.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/genl-client.h"
#include "include/tapdp/ctl-uapi.h"

int
ctl_follow_opts(int argc, char **argv, unsigned opts, struct ctl_follow *f)
{
	static const struct option longs[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*f = (struct ctl_follow){ .count = -1, .timeout = -1 };
	/* 0: glibc starts afresh, permuting again (main's options stop at
	 * the command). */
	optind = 0;
	while ((ch = getopt_long(argc, argv, opts & CTL_FOLLOW_OPT_W ? "w:" : "",
				 longs, NULL)) != -1) {
		switch (ch) {
		case 'w':
			f->file = optarg;
			break;
		case 'f':
			if (!(opts & CTL_FOLLOW_OPT_FOLLOW))
				return -1;
			f->follow = true;
			break;
		case 'c':
			f->count = strtol(optarg, NULL, 10);
			break;
		case 't':
			f->timeout = strtod(optarg, NULL);
			break;
		default:
			return -1;
		}
	}
	return optind;
}

int
ctl_follow_run(struct ctl_ctx *ctx, uint32_t group, const char *what,
	       struct ctl_follow *f, mnl_cb_t cb, void *data)
{
	int err = gclient_join(&ctx->nl, group);
	char joining[128];

	if (err) {
		snprintf(joining, sizeof(joining), "joining %s", what);
		return ctl_fail(joining, err);
	}
	fprintf(stderr, "following %s\n", what);
	while (f->count < 0 || f->seen < (unsigned long)f->count) {
		err = gclient_listen(&ctx->nl,
				     f->timeout < 0 ? -1 : f->timeout * 1000,
				     cb, data);
		if (err == -ENOBUFS) {
			fprintf(stderr, "tapdpctl: %s: events lost (the "
					"socket was full)\n", what);
			continue;
		}
		if (err == 0)
			return 1;
		if (err < 0)
			return ctl_fail(what, err);
	}
	return 0;
}

int
ctl_follow_pcapng(const struct ctl_follow *f, struct pcapng *p)
{
	FILE *out = strcmp(f->file, "-") ? fopen(f->file, "we") : stdout;

	if (!out || pcapng_open(p, out)) {
		perror(f->file);
		if (out && out != stdout)
			fclose(out);
		p->f = NULL;
		return 1;
	}
	return 0;
}

void
ctl_follow_close(struct pcapng *p)
{
	if (p->f && p->f != stdout)
		fclose(p->f);
	p->f = NULL;
}

const struct nlattr *
ctl_follow_event(const struct nlmsghdr *h, uint8_t cmd,
		 const struct nlattr **tb)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(h);

	if (h->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN) || g->cmd != cmd)
		return NULL;
	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      TAPDP_CTL_ATTR_MAX);
	return tb[TAPDP_CTL_ATTR_PACKET];
}

void
ctl_follow_line(uint64_t ts_ns, const char *words)
{
	printf("%llu.%06llu %s\n", (unsigned long long)(ts_ns / 1000000000),
	       (unsigned long long)(ts_ns / 1000 % 1000000), words);
	fflush(stdout);
}
