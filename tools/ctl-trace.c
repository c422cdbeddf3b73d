/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl trace: a frame run through a datapath as a dry run
 * (TAPDP_CTL_CMD_TRACE), each step printed: the key extracted, the
 * megaflow it hits (as ovs-dpctl dump-flows writes it, with its UFID) or
 * the upcall a miss would make, each action, the tracker's states,
 * recirculations, the ports it would leave by, why it would be dropped.
 *
 *   trace [DATAPATH] PORT FRAME|--pcap FILE
 *
 * PORT: a port's name or number; FRAME: the frame in hex (spaces and
 * colons allowed); FILE: a pcap or pcapng file (tcpdump -w, tapdpctl
 * capture -w), whose every packet is traced in turn. Human form: a line a
 * step, indented by recirculation; --json: one object a packet. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ctl-dp.h"
#include "tools/json.h"
#include "tools/odp-actions.h"
#include "tools/odp-key.h"
#include "include/tapdp/ctl-uapi.h"

#define USAGE "usage: tapdpctl trace [DATAPATH] PORT FRAME|--pcap FILE\n"
/* A frame's bytes at most, as the daemon's answer leaves room for. */
#define FRAME_MAX	65000

struct frames {
	uint8_t **data;
	uint32_t *len;
	unsigned n;
};

static int
frames_add(struct frames *fs, const uint8_t *p, uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	unsigned n = fs->n;

	if (!copy || !ctl_grow(&fs->data, &n, sizeof(*fs->data)) ||
	    !ctl_grow(&fs->len, &fs->n, sizeof(*fs->len))) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, p, len);
	fs->data[fs->n - 1] = copy;
	fs->len[fs->n - 1] = len;
	return 0;
}

static void
frames_free(struct frames *fs)
{
	for (unsigned i = 0; i < fs->n; i++)
		free(fs->data[i]);
	free(fs->data);
	free(fs->len);
}

/* Hex digits, spaces and colons; -EINVAL for anything else or an odd
 * count of digits. */
static int
frame_parse(const char *s, struct frames *fs)
{
	uint8_t *buf = malloc(strlen(s) / 2 + 1);
	uint32_t n = 0;
	int hi = -1, err;

	if (!buf)
		return -ENOMEM;
	for (; *s; s++) {
		int v;

		if (*s == ' ' || *s == ':')
			continue;
		if (!isxdigit((unsigned char)*s) || n >= FRAME_MAX) {
			free(buf);
			return -EINVAL;
		}
		v = isdigit((unsigned char)*s) ? *s - '0'
					       : tolower((unsigned char)*s) -
							 'a' + 10;
		if (hi < 0) {
			hi = v;
		} else {
			buf[n++] = hi << 4 | v;
			hi = -1;
		}
	}
	err = hi >= 0 || !n ? -EINVAL : frames_add(fs, buf, n);
	free(buf);
	return err;
}

static uint32_t
get32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* The packets of a pcap or pcapng file of n bytes; -EINVAL when it is
 * neither or a record runs past the end. */
static int
pcap_parse(const uint8_t *p, size_t n, struct frames *fs)
{
	uint32_t magic = n >= 24 ? get32(p, false) : 0;
	size_t off;
	bool swap;
	int err = 0;

	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ||
	    magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1) {
		swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
		for (off = 24; !err && off < n; ) {
			uint32_t caplen;

			if (n - off < 16)
				return -EINVAL;
			caplen = get32(p + off + 8, swap);
			off += 16;
			if (caplen > n - off)
				return -EINVAL;
			err = frames_add(fs, p + off, caplen);
			off += caplen;
		}
		return err;
	}
	if (magic != 0x0a0d0d0a || n < 12)
		return -EINVAL;
	/* pcapng: the section header's byte-order magic says the order. */
	swap = get32(p + 8, false) != 0x1a2b3c4d;
	for (off = 0; !err && off < n; ) {
		uint32_t type, len, caplen;

		if (n - off < 12)
			return -EINVAL;
		type = get32(p + off, swap);
		len = get32(p + off + 4, swap);
		if (len < 12 || len % 4 || len > n - off)
			return -EINVAL;
		if (type == 6) {		/* enhanced packet block */
			if (len < 32)
				return -EINVAL;
			caplen = get32(p + off + 20, swap);
			if (caplen > len - 32)
				return -EINVAL;
			err = frames_add(fs, p + off + 28, caplen);
		}
		off += len;
	}
	return err;
}

static int
pcap_read(const char *path, struct frames *fs)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int err;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (n == cap) {
			uint8_t *bigger = realloc(buf, cap = cap ? cap * 2
							     : 65536);

			if (!bigger) {
				err = -ENOMEM;
				goto out;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	err = ferror(f) ? -EIO : pcap_parse(buf, n, fs);
out:
	fclose(f);
	free(buf);
	return err;
}

/* Where the frame comes in. */
struct in_port {
	int dp_ifindex;
	uint32_t port_no;
	char dp[IFNAMSIZ];
	char name[IFNAMSIZ];
};

/* PORT (name or number) of DATAPATH (NULL: the only one, or the one a
 * named port is in). */
static int
port_find(struct ctl_ctx *ctx, const char *dp, const char *port,
	  struct in_port *in)
{
	char *end;
	unsigned long no = strtoul(port, &end, 10);
	bool by_no = *port && !*end;
	struct ctl_dps d;
	unsigned found = 0;

	if (ctl_dps_read(ctx, true, &d))
		return 1;
	for (unsigned i = 0; i < d.n; i++) {
		if (dp && strcmp(dp, d.dp[i].name))
			continue;
		if (by_no && !dp && d.n > 1)
			continue;
		for (unsigned k = 0; k < d.dp[i].n_ports; k++) {
			const struct ctl_port *p = &d.dp[i].ports[k];

			if (by_no ? p->port_no != no : strcmp(p->name, port))
				continue;
			in->dp_ifindex = d.dp[i].ifindex;
			in->port_no = p->port_no;
			memcpy(in->dp, d.dp[i].name, sizeof(in->dp));
			memcpy(in->name, p->name, sizeof(in->name));
			found++;
		}
	}
	ctl_dps_free(&d);
	if (found == 1)
		return 0;
	if (by_no && !dp && d.n > 1)
		fprintf(stderr, "tapdpctl: port %s: name the datapath\n", port);
	else
		fprintf(stderr, "tapdpctl: no port %s%s%s\n", port,
			dp ? " in " : "", dp ? dp : "");
	return 1;
}

/* A step's text pieces, written to a memory stream by the odp writers. */
static char *
text(void (*write)(FILE *, const void *, size_t), const struct nlattr *a)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	if (a)
		write(f, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
	fclose(f);
	return s;
}

static void
key_exact(FILE *f, const void *key, size_t len)
{
	odp_key_format(f, key, len, NULL, 0);
}

/* The megaflow as ovs-dpctl dump-flows -m writes it, without its
 * statistics: "ufid:UUID KEY, actions:ACTIONS". */
static char *
megaflow(const struct nlattr **tb)
{
	const struct nlattr *k = tb[TAPDP_CTL_ATTR_FLOW_KEY];
	const struct nlattr *m = tb[TAPDP_CTL_ATTR_FLOW_MASK];
	const struct nlattr *a = tb[TAPDP_CTL_ATTR_FLOW_ACTIONS];
	const struct nlattr *u = tb[TAPDP_CTL_ATTR_UFID];
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	if (u) {
		odp_ufid_format(f, mnl_attr_get_payload(u),
				mnl_attr_get_payload_len(u));
		fputc(' ', f);
	}
	if (k)
		odp_key_format(f, mnl_attr_get_payload(k),
			       mnl_attr_get_payload_len(k),
			       m ? mnl_attr_get_payload(m) : NULL,
			       m ? mnl_attr_get_payload_len(m) : 0);
	fputs(", actions:", f);
	if (a)
		odp_actions_format(f, mnl_attr_get_payload(a),
				   mnl_attr_get_payload_len(a));
	fclose(f);
	return s;
}

static void
action_text(FILE *f, const void *a, size_t len)
{
	odp_actions_format(f, a, len);
}

/* ct_state(+new+trk): the bits set, as ovs-dpctl writes a flow's. */
static char *
ct_state_text(uint32_t state)
{
	struct {
		struct nlattr a;
		uint32_t v;
	} key = { { sizeof(key), OVS_KEY_ATTR_CT_STATE }, state },
	  mask = { { sizeof(mask), OVS_KEY_ATTR_CT_STATE }, state };
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	odp_key_format(f, &key, sizeof(key), &mask, sizeof(mask));
	fclose(f);
	return s;
}

static const char *const kind_names[] = {
	[TAPDP_CTL_STEP_KEY] = "key",
	[TAPDP_CTL_STEP_MISS] = "miss",
	[TAPDP_CTL_STEP_FLOW] = "megaflow",
	[TAPDP_CTL_STEP_ACTION] = "action",
	[TAPDP_CTL_STEP_CT] = "ct",
	[TAPDP_CTL_STEP_OUTPUT] = "output",
	[TAPDP_CTL_STEP_USERSPACE] = "userspace",
	[TAPDP_CTL_STEP_RECIRC] = "recirc",
	[TAPDP_CTL_STEP_METER] = "meter",
	[TAPDP_CTL_STEP_PSAMPLE] = "psample",
	[TAPDP_CTL_STEP_DROP] = "drop",
};

struct printer {
	struct ctl_ctx *ctx;
	struct json j;
	const struct in_port *in;
	unsigned no;		/* the packet's, from 1 */
	uint32_t len;
};

static void
step_human(const struct nlattr **tb)
{
	uint32_t kind = gclient_uint(tb[TAPDP_CTL_ATTR_STEP_KIND]);
	int indent = 2 * gclient_uint(tb[TAPDP_CTL_ATTR_DEPTH]);
	uint64_t port = gclient_uint(tb[TAPDP_CTL_ATTR_PORT_NO]);
	uint64_t n_masks = gclient_uint(tb[TAPDP_CTL_ATTR_MASKS_PROBED]);
	char *s = NULL;

	switch (kind) {
	case TAPDP_CTL_STEP_KEY:
		s = text(key_exact, tb[TAPDP_CTL_ATTR_KEY]);
		printf("%*skey: %s\n", indent, "", s ? s : "");
		break;
	case TAPDP_CTL_STEP_MISS:
		printf("%*sno megaflow (masks probed: %" PRIu64 "): upcall "
		       "to portid %" PRIu64 "\n", indent, "", n_masks,
		       gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]));
		break;
	case TAPDP_CTL_STEP_FLOW:
		s = megaflow(tb);
		printf("%*smegaflow: %s\n%*s(masks probed: %" PRIu64 ")\n",
		       indent, "", s ? s : "", indent, "", n_masks);
		break;
	case TAPDP_CTL_STEP_ACTION:
		if (tb[TAPDP_CTL_ATTR_ACTION])
			s = text(action_text, tb[TAPDP_CTL_ATTR_ACTION]);
		printf("%*saction: %s\n", indent, "", s ? s : "");
		break;
	case TAPDP_CTL_STEP_CT:
		s = ct_state_text(gclient_uint(tb[TAPDP_CTL_ATTR_CT_STATE]));
		printf("%*s  conntrack: %s zone %" PRIu64 " mark %#" PRIx64,
		       indent, "", s ? s : "",
		       gclient_uint(tb[TAPDP_CTL_ATTR_CT_ZONE]),
		       gclient_uint(tb[TAPDP_CTL_ATTR_CT_MARK]));
		if (tb[TAPDP_CTL_ATTR_ERRNO])
			printf(": %s", strerror(gclient_uint(
					       tb[TAPDP_CTL_ATTR_ERRNO])));
		printf("\n");
		break;
	case TAPDP_CTL_STEP_OUTPUT:
		printf("%*s  out by port %" PRIu64 " (%s), %" PRIu64
		       " bytes\n", indent, "", port,
		       gclient_str(tb[TAPDP_CTL_ATTR_NAME], "?"),
		       gclient_uint(tb[TAPDP_CTL_ATTR_PACKET_LEN]));
		break;
	case TAPDP_CTL_STEP_USERSPACE:
		printf("%*s  up to userspace, portid %" PRIu64 "\n", indent,
		       "", gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]));
		break;
	case TAPDP_CTL_STEP_RECIRC:
		printf("%*srecirculated with recirc_id(%#" PRIx64 ")\n",
		       indent + 2, "",
		       gclient_uint(tb[TAPDP_CTL_ATTR_RECIRC_ID]));
		break;
	case TAPDP_CTL_STEP_METER:
		printf("%*s  (meters are not run in a trace)\n", indent, "");
		break;
	case TAPDP_CTL_STEP_PSAMPLE:
		printf("%*s  sampled to psample group %" PRIu64 "\n", indent,
		       "", gclient_uint(tb[TAPDP_CTL_ATTR_GROUP]));
		break;
	case TAPDP_CTL_STEP_DROP:
		printf("%*s  dropped: %s\n", indent, "",
		       gclient_str(tb[TAPDP_CTL_ATTR_REASON_NAME], "?"));
		break;
	}
	free(s);
}

/* key: s, which is freed (nothing when NULL). */
static void
json_text(struct json *j, const char *key, char *s)
{
	if (s)
		json_string(j, key, s);
	free(s);
}

static void
step_json(struct json *j, const struct nlattr **tb)
{
	static const struct {
		uint16_t attr;
		const char *name;
	} uints[] = {
		{ TAPDP_CTL_ATTR_MASKS_PROBED, "masks_probed" },
		{ TAPDP_CTL_ATTR_CT_ZONE, "ct_zone" },
		{ TAPDP_CTL_ATTR_CT_MARK, "ct_mark" },
		{ TAPDP_CTL_ATTR_ERRNO, "errno" },
		{ TAPDP_CTL_ATTR_PORT_NO, "port_no" },
		{ TAPDP_CTL_ATTR_PACKET_LEN, "len" },
		{ TAPDP_CTL_ATTR_PORTID, "portid" },
		{ TAPDP_CTL_ATTR_RECIRC_ID, "recirc_id" },
		{ TAPDP_CTL_ATTR_GROUP, "group" },
	};
	uint32_t kind = gclient_uint(tb[TAPDP_CTL_ATTR_STEP_KIND]);
	bool known = kind < sizeof(kind_names) / sizeof(kind_names[0]) &&
		     kind_names[kind];

	json_object_begin(j, NULL);
	json_string(j, "step", known ? kind_names[kind] : "?");
	json_uint(j, "depth", gclient_uint(tb[TAPDP_CTL_ATTR_DEPTH]));
	if (tb[TAPDP_CTL_ATTR_KEY])
		json_text(j, "key", text(key_exact, tb[TAPDP_CTL_ATTR_KEY]));
	if (kind == TAPDP_CTL_STEP_FLOW)
		json_text(j, "megaflow", megaflow(tb));
	if (tb[TAPDP_CTL_ATTR_ACTION])
		json_text(j, "action",
			  text(action_text, tb[TAPDP_CTL_ATTR_ACTION]));
	if (tb[TAPDP_CTL_ATTR_CT_STATE])
		json_text(j, "ct_state",
			  ct_state_text(gclient_uint(
				  tb[TAPDP_CTL_ATTR_CT_STATE])));
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++)
		if (tb[uints[i].attr])
			json_uint(j, uints[i].name,
				  gclient_uint(tb[uints[i].attr]));
	if (tb[TAPDP_CTL_ATTR_NAME])
		json_string(j, "port", gclient_str(tb[TAPDP_CTL_ATTR_NAME], ""));
	if (tb[TAPDP_CTL_ATTR_REASON_NAME])
		json_string(j, "reason",
			    gclient_str(tb[TAPDP_CTL_ATTR_REASON_NAME], ""));
	json_object_end(j);
}

static int
trace_cb(const struct nlmsghdr *h, void *data)
{
	struct printer *pr = data;
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1], *trace, *step;
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(h);

	gclient_attrs(gh + 1, mnl_nlmsg_get_payload_len(h) - sizeof(*gh), tb,
		      TAPDP_CTL_ATTR_MAX);
	if (!(trace = tb[TAPDP_CTL_ATTR_TRACE]))
		return MNL_CB_OK;
	if (pr->ctx->json) {
		json_object_begin(&pr->j, NULL);
		json_uint(&pr->j, "packet", pr->no);
		json_string(&pr->j, "datapath", pr->in->dp);
		json_string(&pr->j, "in_port", pr->in->name);
		json_uint(&pr->j, "len", pr->len);
		json_array_begin(&pr->j, "steps");
	} else {
		printf("packet %u: in by port %u (%s) of %s, %u bytes\n", pr->no,
		       pr->in->port_no, pr->in->name, pr->in->dp, pr->len);
	}
	mnl_attr_for_each_nested(step, trace) {
		const struct nlattr *st[TAPDP_CTL_ATTR_MAX + 1];

		if (mnl_attr_get_type(step) != TAPDP_CTL_ATTR_STEP)
			continue;
		gclient_attrs(mnl_attr_get_payload(step),
			      mnl_attr_get_payload_len(step), st,
			      TAPDP_CTL_ATTR_MAX);
		if (pr->ctx->json)
			step_json(&pr->j, st);
		else
			step_human(st);
	}
	gclient_attrs(mnl_attr_get_payload(trace),
		      mnl_attr_get_payload_len(trace), tb, TAPDP_CTL_ATTR_MAX);
	if (pr->ctx->json) {
		json_array_end(&pr->j);
		json_bool(&pr->j, "truncated", tb[TAPDP_CTL_ATTR_TRUNCATED]);
		json_object_end(&pr->j);
		putchar('\n');
	} else if (tb[TAPDP_CTL_ATTR_TRUNCATED]) {
		printf("(the rest did not fit in the answer)\n");
	}
	return MNL_CB_OK;
}

static int
trace_one(struct ctl_ctx *ctx, uint16_t family, struct printer *pr,
	  const uint8_t *frame, uint32_t len)
{
	struct {
		struct nlattr a;
		uint32_t v;
	} u32s[2] = {
		{ { 8, TAPDP_CTL_ATTR_DP_IFINDEX }, pr->in->dp_ifindex },
		{ { 8, TAPDP_CTL_ATTR_PORT_NO }, pr->in->port_no },
	};
	struct nlattr *pkt;
	uint8_t *req;
	size_t n = sizeof(u32s) + MNL_ALIGN(sizeof(*pkt) + len);
	int err;

	if (!(req = calloc(1, n)))
		return ctl_fail("trace", -ENOMEM);
	memcpy(req, u32s, sizeof(u32s));
	pkt = (struct nlattr *)(req + sizeof(u32s));
	pkt->nla_type = TAPDP_CTL_ATTR_PACKET;
	pkt->nla_len = sizeof(*pkt) + len;
	memcpy(pkt + 1, frame, len);
	pr->len = len;
	/* The attributes go where a family header would. */
	err = gclient_request(&ctx->nl, family, TAPDP_CTL_CMD_TRACE,
			      TAPDP_CTL_VERSION, 0, req, n, trace_cb, pr);
	free(req);
	return err ? ctl_fail("trace", err) : 0;
}

static int
trace_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pcap", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct printer pr = { .ctx = ctx };
	const char *pcap = NULL, *dp = NULL;
	struct frames fs = { 0 };
	struct in_port in;
	uint16_t family;
	int c, err, rest, status = 0;

	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'p') {
			fprintf(stderr, USAGE);
			return 2;
		}
		pcap = optarg;
	}
	/* [DATAPATH] PORT, then FRAME unless --pcap. */
	rest = argc - optind - (pcap ? 0 : 1);
	if (rest < 1 || rest > 2) {
		fprintf(stderr, USAGE);
		return 2;
	}
	if (rest == 2)
		dp = argv[optind++];
	err = pcap ? pcap_read(pcap, &fs) : frame_parse(argv[optind + 1], &fs);
	if (err) {
		status = ctl_fail(pcap ? pcap : "frame", err);
		goto out;
	}
	if (ctl_family(ctx, TAPDP_CTL_FAMILY, &family, NULL, NULL) ||
	    port_find(ctx, dp, argv[optind], &in)) {
		status = 1;
		goto out;
	}
	pr.in = &in;
	json_init(&pr.j, stdout);
	for (unsigned i = 0; !status && i < fs.n; i++) {
		pr.no = i + 1;
		if (i && !ctx->json)
			printf("\n");
		status = trace_one(ctx, family, &pr, fs.data[i], fs.len[i]);
	}
out:
	frames_free(&fs);
	return status;
}

const struct ctl_cmd ctl_cmd_trace = {
	.name = "trace",
	.usage = "trace [DATAPATH] PORT FRAME|--pcap FILE",
	.help = "a frame through the datapath's tables, as a dry run",
	.run = trace_run,
};
