/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl capture: the packets the datapath sees, from tapdp_ctl's
 * capture group (CAP_NET_ADMIN), without touching the ports.
 *
 *   capture all|upcalls|drops|PORT [-w FILE] [--count N] [--timeout S]
 *
 * all: every step of every packet (in by a port, out by a port, up to
 * userspace, its upcall lost, dropped); upcalls (sent and lost), drops:
 * those steps only; PORT: the packets in and out by the ports of that
 * name. Without -w, a line per packet: TIME DATAPATH PORT_NO PORT
 * rx|tx|drop:REASON|upcall:CMD portid=N|lost:CMD portid=N ERRNO len=N
 * [ufid=HEX], CMD miss or action. With -w, pcapng (FILE "-": standard
 * output), an interface per port and per packet a comment of the same
 * words, which tcpdump and tshark read. Stops after N packets; after S seconds without one it
 * gives up (exit status 1). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ctl-dp.h"
#include "tools/ctl-follow.h"
#include "tools/pcapng.h"
#include "include/tapdp/ctl-uapi.h"
#include "include/tapdp/ovs-uapi.h"

/* A port of a datapath, and its pcapng interface once it has one. */
struct cport {
	int dp_ifindex;
	uint32_t port_no;
	char dp[IFNAMSIZ], name[IFNAMSIZ];
	uint32_t iface;
	bool has_iface;
};

struct capture {
	struct cport *ports;
	unsigned n_ports;
	const char *target;		/* all, upcalls, drops or a port */
	struct pcapng pcap;
	struct ctl_follow f;
};

/* Every datapath's ports, to name the ports packets go by. */
static int
ports_read(struct ctl_ctx *ctx, struct capture *c)
{
	struct ctl_dps d;
	int err = 0;

	if (ctl_dps_read(ctx, true, &d))
		return 1;
	for (unsigned i = 0; !err && i < d.n; i++) {
		for (unsigned k = 0; k < d.dp[i].n_ports; k++) {
			struct cport *p = ctl_grow(&c->ports, &c->n_ports,
						   sizeof(*p));

			if (!p) {
				err = ctl_fail("ports", -ENOMEM);
				break;
			}
			p->dp_ifindex = d.dp[i].ifindex;
			p->port_no = d.dp[i].ports[k].port_no;
			memcpy(p->dp, d.dp[i].name, sizeof(p->dp));
			memcpy(p->name, d.dp[i].ports[k].name, sizeof(p->name));
		}
	}
	ctl_dps_free(&d);
	return err;
}

static struct cport *
port_find(struct capture *c, int dp_ifindex, uint32_t port_no)
{
	for (unsigned i = 0; i < c->n_ports; i++)
		if (c->ports[i].dp_ifindex == dp_ifindex &&
		    c->ports[i].port_no == port_no)
			return &c->ports[i];
	return NULL;
}

static bool
port_find_name(const struct capture *c, const char *name)
{
	for (unsigned i = 0; i < c->n_ports; i++)
		if (!strcmp(c->ports[i].name, name))
			return true;
	return false;
}

static const char *const kind_names[] = {
	[TAPDP_CTL_KIND_RX] = "rx",
	[TAPDP_CTL_KIND_TX] = "tx",
	[TAPDP_CTL_KIND_UPCALL] = "upcall",
	[TAPDP_CTL_KIND_DROP] = "drop",
	[TAPDP_CTL_KIND_UPCALL_LOST] = "lost",
};
#define N_KINDS	(sizeof(kind_names) / sizeof(kind_names[0]))

/* Whether the capture's target takes a packet of kind at port p. */
static bool
wanted(const struct capture *c, uint32_t kind, const struct cport *p)
{
	if (!strcmp(c->target, "all"))
		return true;
	if (!strcmp(c->target, "upcalls"))
		return kind == TAPDP_CTL_KIND_UPCALL ||
		       kind == TAPDP_CTL_KIND_UPCALL_LOST;
	if (!strcmp(c->target, "drops"))
		return kind == TAPDP_CTL_KIND_DROP;
	return p && (kind == TAPDP_CTL_KIND_RX || kind == TAPDP_CTL_KIND_TX) &&
	       !strcmp(p->name, c->target);
}

/* The words that describe a packet: DATAPATH PORT_NO PORT KIND[:REASON]
 * len=N [ufid=HEX]. */
static void
describe(char *buf, size_t len, const struct cport *p, uint32_t port_no,
	 const struct nlattr **tb)
{
	uint32_t kind = gclient_uint(tb[TAPDP_CTL_ATTR_KIND]);
	const struct nlattr *ufid = tb[TAPDP_CTL_ATTR_UFID];
	size_t n;

	n = ctl_addf(buf, len, 0, "%s %u %s %s", p ? p->dp : "?", port_no,
		     p ? p->name : "?", kind < N_KINDS ? kind_names[kind] : "?");
	if (kind == TAPDP_CTL_KIND_DROP)
		n = ctl_addf(buf, len, n, ":%s",
			     gclient_str(tb[TAPDP_CTL_ATTR_REASON_NAME], "?"));
	if (tb[TAPDP_CTL_ATTR_UPCALL_CMD])
		n = ctl_addf(buf, len, n, ":%s portid=%llu",
			     gclient_uint(tb[TAPDP_CTL_ATTR_UPCALL_CMD]) ==
					     OVS_PACKET_CMD_MISS
				     ? "miss"
				     : "action",
			     (unsigned long long)gclient_uint(
				     tb[TAPDP_CTL_ATTR_PORTID]));
	if (tb[TAPDP_CTL_ATTR_ERRNO]) {
		int e = gclient_uint(tb[TAPDP_CTL_ATTR_ERRNO]);
		const char *name = strerrorname_np(e);

		if (name)
			n = ctl_addf(buf, len, n, " %s", name);
		else
			n = ctl_addf(buf, len, n, " errno=%d", e);
	}
	n = ctl_addf(buf, len, n, " len=%llu", (unsigned long long)
		     gclient_uint(tb[TAPDP_CTL_ATTR_PACKET_LEN]));
	if (ufid) {
		const uint8_t *u = mnl_attr_get_payload(ufid);

		n = ctl_addf(buf, len, n, " ufid=");
		for (unsigned i = 0; i < mnl_attr_get_payload_len(ufid); i++)
			n = ctl_addf(buf, len, n, "%02x", u[i]);
	}
}

static int
packet_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1], *pkt;
	struct capture *c = data;
	uint32_t port_no, kind;
	uint64_t ts;
	struct cport *p;
	char words[256];

	pkt = ctl_follow_event(h, TAPDP_CTL_CMD_PACKET, tb);
	if (!pkt)
		return MNL_CB_OK;
	port_no = gclient_uint(tb[TAPDP_CTL_ATTR_PORT_NO]);
	kind = gclient_uint(tb[TAPDP_CTL_ATTR_KIND]);
	p = port_find(c, gclient_uint(tb[TAPDP_CTL_ATTR_DP_IFINDEX]), port_no);
	if (!wanted(c, kind, p))
		return MNL_CB_OK;
	c->f.seen++;
	ts = gclient_uint(tb[TAPDP_CTL_ATTR_TIMESTAMP_NS]);
	describe(words, sizeof(words), p, port_no, tb);
	if (!c->pcap.f) {
		ctl_follow_line(ts, words);
		return MNL_CB_OK;
	}
	if (p && !p->has_iface) {
		char name[2 * IFNAMSIZ + 2];

		snprintf(name, sizeof(name), "%s:%s", p->dp, p->name);
		if (pcapng_iface(&c->pcap, PCAPNG_LINKTYPE_ETHERNET,
				 TAPDP_CTL_CAPTURE_SNAPLEN, name, &p->iface))
			return -EIO;
		p->has_iface = true;
	}
	if (!p)
		return MNL_CB_OK;
	if (pcapng_packet(&c->pcap, p->iface, ts / 1000,
			  mnl_attr_get_payload(pkt), mnl_attr_get_payload_len(pkt),
			  gclient_uint(tb[TAPDP_CTL_ATTR_PACKET_LEN]), words))
		return -EIO;
	fflush(c->pcap.f);
	return MNL_CB_OK;
}

int
ctl_capture(struct ctl_ctx *ctx, const char *target, const struct ctl_follow *f)
{
	struct capture c = { .target = target, .f = *f };
	uint16_t family;
	uint32_t group;
	int err = 1;

	if (ctl_family(ctx, TAPDP_CTL_FAMILY, &family,
		       TAPDP_CTL_MCGROUP_CAPTURE, &group))
		return 1;
	if (ports_read(ctx, &c))
		goto out;
	if (strcmp(c.target, "all") && strcmp(c.target, "upcalls") &&
	    strcmp(c.target, "drops") && !port_find_name(&c, c.target)) {
		fprintf(stderr, "tapdpctl: no port %s\n", c.target);
		goto out;
	}
	if (c.f.file && ctl_follow_pcapng(&c.f, &c.pcap))
		goto out;
	err = ctl_follow_run(ctx, group, TAPDP_CTL_FAMILY " "
			     TAPDP_CTL_MCGROUP_CAPTURE, &c.f, packet_cb, &c);
out:
	ctl_follow_close(&c.pcap);
	free(c.ports);
	return err;
}

static int
capture_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	struct ctl_follow f;
	int first = ctl_follow_opts(argc, argv, CTL_FOLLOW_OPT_W, &f);

	if (first < 0 || argc - first != 1) {
		fprintf(stderr, "usage: tapdpctl capture all|upcalls|drops|PORT "
				"[-w FILE] [--count N] [--timeout S]\n");
		return 2;
	}
	return ctl_capture(ctx, argv[first], &f);
}

const struct ctl_cmd ctl_cmd_capture = {
	.name = "capture",
	.usage = "capture all|upcalls|drops|PORT [-w FILE]",
	.help = "packets as pcapng, with port, step, reason and flow",
	.run = capture_run,
};
