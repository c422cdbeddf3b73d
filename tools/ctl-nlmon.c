/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl nlmon: every netlink datagram between the clients and the
 * daemon, from tapdp_ctl's nlmon group (CAP_NET_ADMIN), what an nlmon
 * device shows of the kernel's.
 *
 *   nlmon [-w FILE] [--count N] [--timeout S]
 *
 * Without -w, a line per datagram: TIME COMM[PID] portid N ->|<- and its
 * messages (family and command, flags, seq; an error's errno). With -w,
 * pcapng of link type NETLINK (each datagram behind the 16-byte cooked
 * header the kernel's nlmon gives it, its pkttype saying which way it
 * went) with a comment per datagram naming the client, which tshark
 * decodes; the file opens with the daemon's answer to a dump of its
 * families, so that tshark knows them by name. Stops after N datagrams;
 * after S seconds without one it gives up (exit status 1). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/ctl-follow.h"
#include "tools/pcapng.h"
#include "include/tapdp/ctl-uapi.h"

/* ARPHRD_NETLINK: the device type of an nlmon device. */
#define NLMON_HATYPE	824

/* LINKTYPE_NETLINK's header, Linux's cooked capture header (SLL), in
 * network byte order. */
struct nlmon_hdr {
	uint16_t pkttype;	/* PACKET_USER: to a client; PACKET_KERNEL */
	uint16_t hatype;
	uint16_t halen;
	uint8_t addr[8];
	uint16_t protocol;	/* the netlink protocol */
} __attribute__((packed));

struct family {
	uint16_t id;
	char name[GENL_NAMSIZ];
};

struct nlmon {
	struct family *families;
	unsigned n_families;
	/* The answer to the family dump, as the daemon sent it. */
	char *intro;
	size_t intro_len;
	struct pcapng pcap;
	uint32_t iface;
	struct ctl_follow f;
};

static int
family_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct nlmon *m = data;
	struct family *fam;
	char *intro;

	if (h->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN))
		return -EBADMSG;
	gclient_attrs(mnl_nlmsg_get_payload_offset(h, GENL_HDRLEN),
		      mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN, tb,
		      CTRL_ATTR_MAX);
	if (!tb[CTRL_ATTR_FAMILY_ID] ||
	    mnl_attr_get_payload_len(tb[CTRL_ATTR_FAMILY_ID]) != 2)
		return MNL_CB_OK;
	fam = ctl_grow(&m->families, &m->n_families, sizeof(*fam));
	intro = realloc(m->intro, m->intro_len + NLMSG_ALIGN(h->nlmsg_len));
	if (!fam || !intro)
		return -ENOMEM;
	fam->id = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	snprintf(fam->name, sizeof(fam->name), "%s",
		 gclient_str(tb[CTRL_ATTR_FAMILY_NAME], "?"));
	memcpy(intro + m->intro_len, h, h->nlmsg_len);
	memset(intro + m->intro_len + h->nlmsg_len, 0,
	       NLMSG_ALIGN(h->nlmsg_len) - h->nlmsg_len);
	m->intro = intro;
	m->intro_len += NLMSG_ALIGN(h->nlmsg_len);
	return MNL_CB_OK;
}

static const char *
family_name(const struct nlmon *m, uint16_t id)
{
	for (unsigned i = 0; i < m->n_families; i++)
		if (m->families[i].id == id)
			return m->families[i].name;
	return NULL;
}

/* The flags of a request or an answer, by their names in linux/netlink.h
 * (without NLM_F_), the rest in hex. */
static size_t
add_flags(char *buf, size_t len, size_t n, uint16_t flags)
{
	static const struct { uint16_t bit; const char *name; } names[] = {
		{ NLM_F_REQUEST, "REQUEST" }, { NLM_F_MULTI, "MULTI" },
		{ NLM_F_ACK, "ACK" }, { NLM_F_ECHO, "ECHO" },
		{ NLM_F_DUMP_INTR, "DUMP_INTR" },
	};
	uint16_t left = flags;
	const char *sep = "";

	n = ctl_addf(buf, len, n, " flags ");
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(left & names[i].bit))
			continue;
		n = ctl_addf(buf, len, n, "%s%s", sep, names[i].name);
		left &= ~names[i].bit;
		sep = "|";
	}
	if (left || !flags)
		n = ctl_addf(buf, len, n, "%s0x%x", sep, left);
	return n;
}

/* One message of a datagram in words: generic netlink's by family name
 * and command number; an error by its errno (0: an ACK). */
static size_t
add_msg(char *buf, size_t len, size_t n, const struct nlmon *m,
	int protocol, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(h);
	const int *e = mnl_nlmsg_get_payload(h);
	const char *name;

	if (h->nlmsg_type == NLMSG_ERROR &&
	    h->nlmsg_len >= mnl_nlmsg_size(sizeof(*e)))
		n = *e ? ctl_addf(buf, len, n, " error %d (%s)", *e, strerror(-*e))
		       : ctl_addf(buf, len, n, " ack");
	else if (h->nlmsg_type == NLMSG_DONE)
		n = ctl_addf(buf, len, n, " done");
	else if (protocol == NETLINK_GENERIC &&
		 h->nlmsg_len >= mnl_nlmsg_size(GENL_HDRLEN) &&
		 (name = family_name(m, h->nlmsg_type)))
		n = ctl_addf(buf, len, n, " %s cmd %u", name, g->cmd);
	else
		n = ctl_addf(buf, len, n, " type %u", h->nlmsg_type);
	n = add_flags(buf, len, n, h->nlmsg_flags);
	return ctl_addf(buf, len, n, " seq %u", h->nlmsg_seq);
}

/* The words for a datagram: COMM[PID] portid N ->|<- MESSAGE[, ...]
 * len=N. */
static void
describe(char *buf, size_t len, const struct nlmon *m,
	 const struct nlattr **tb)
{
	const struct nlattr *pkt = tb[TAPDP_CTL_ATTR_PACKET];
	const struct nlmsghdr *h = mnl_attr_get_payload(pkt);
	int left = mnl_attr_get_payload_len(pkt);
	int protocol = gclient_uint(tb[TAPDP_CTL_ATTR_PROTOCOL]);
	unsigned shown = 0;
	size_t n;

	n = ctl_addf(buf, len, 0, "%s[%llu] portid %llu %s",
		gclient_str(tb[TAPDP_CTL_ATTR_COMM], "?"),
		(unsigned long long)gclient_uint(tb[TAPDP_CTL_ATTR_CLIENT_PID]),
		(unsigned long long)gclient_uint(tb[TAPDP_CTL_ATTR_PORTID]),
		tb[TAPDP_CTL_ATTR_TO_CLIENT] ? "<-" : "->");
	for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
		/* A dump part holds many: the first few tell enough. */
		if (shown++ == 3) {
			n = ctl_addf(buf, len, n, ", ...");
			break;
		}
		if (shown > 1)
			n = ctl_addf(buf, len, n, ",");
		n = add_msg(buf, len, n, m, protocol, h);
	}
	ctl_addf(buf, len, n, " len=%llu", (unsigned long long)
	    gclient_uint(tb[TAPDP_CTL_ATTR_PACKET_LEN]));
}

/* A datagram into the pcapng file, behind its cooked header. */
static int
write_dgram(struct nlmon *m, uint64_t ts_us, bool to_client, int protocol,
	    const void *data, uint32_t caplen, uint32_t len,
	    const char *comment)
{
	struct nlmon_hdr hdr = {
		.pkttype = htons(to_client ? PACKET_USER : PACKET_KERNEL),
		.hatype = htons(NLMON_HATYPE),
		.protocol = htons(protocol),
	};
	char *frame = malloc(sizeof(hdr) + caplen);
	int err;

	if (!frame)
		return -ENOMEM;
	memcpy(frame, &hdr, sizeof(hdr));
	memcpy(frame + sizeof(hdr), data, caplen);
	err = pcapng_packet(&m->pcap, m->iface, ts_us, frame,
			    sizeof(hdr) + caplen, sizeof(hdr) + len, comment);
	free(frame);
	return err;
}

static int
nlmsg_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1], *pkt;
	struct nlmon *m = data;
	uint64_t ts;
	char words[512];

	pkt = ctl_follow_event(h, TAPDP_CTL_CMD_NLMSG, tb);
	if (!pkt)
		return MNL_CB_OK;
	m->f.seen++;
	ts = gclient_uint(tb[TAPDP_CTL_ATTR_TIMESTAMP_NS]);
	describe(words, sizeof(words), m, tb);
	if (!m->pcap.f) {
		ctl_follow_line(ts, words);
		return MNL_CB_OK;
	}
	if (write_dgram(m, ts / 1000, tb[TAPDP_CTL_ATTR_TO_CLIENT],
			gclient_uint(tb[TAPDP_CTL_ATTR_PROTOCOL]),
			mnl_attr_get_payload(pkt), mnl_attr_get_payload_len(pkt),
			gclient_uint(tb[TAPDP_CTL_ATTR_PACKET_LEN]), words))
		return -EIO;
	fflush(m->pcap.f);
	return MNL_CB_OK;
}

/* The file's first packet: the families as the daemon answered
 * tapdpctl's dump of them, which name the ids that follow. */
static int
write_intro(struct nlmon *m)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return write_dgram(m, now.tv_sec * 1000000ull + now.tv_nsec / 1000,
			   true, NETLINK_GENERIC, m->intro, m->intro_len,
			   m->intro_len, "tapdpctl's dump of the families");
}

static int
nlmon_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	struct nlmon m = { 0 };
	uint16_t family;
	uint32_t group;
	int err = 1;

	if (ctl_follow_opts(argc, argv, CTL_FOLLOW_OPT_W, &m.f) != argc) {
		fprintf(stderr, "usage: tapdpctl nlmon [-w FILE] [--count N] "
				"[--timeout S]\n");
		return 2;
	}
	if (ctl_family(ctx, TAPDP_CTL_FAMILY, &family,
		       TAPDP_CTL_MCGROUP_NLMON, &group))
		return 1;
	err = gclient_request(&ctx->nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 2,
			      NLM_F_DUMP, NULL, 0, family_cb, &m);
	if (err) {
		err = ctl_fail("families", err);
		goto out;
	}
	err = 1;
	if (m.f.file && (ctl_follow_pcapng(&m.f, &m.pcap) ||
			 pcapng_iface(&m.pcap, PCAPNG_LINKTYPE_NETLINK,
				      sizeof(struct nlmon_hdr) +
					      TAPDP_CTL_NLMON_SNAPLEN,
				      "nlmon", &m.iface) ||
			 write_intro(&m))) {
		fprintf(stderr, "tapdpctl: %s: cannot write\n", m.f.file);
		goto out;
	}
	err = ctl_follow_run(ctx, group, TAPDP_CTL_FAMILY " "
			     TAPDP_CTL_MCGROUP_NLMON, &m.f, nlmsg_cb, &m);
out:
	ctl_follow_close(&m.pcap);
	free(m.families);
	free(m.intro);
	return err;
}

const struct ctl_cmd ctl_cmd_nlmon = {
	.name = "nlmon",
	.usage = "nlmon [-w FILE]",
	.help = "netlink between clients and daemon, as pcapng",
	.run = nlmon_run,
};
