/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a datagram of rtnetlink messages as the shim shows
 * the daemon what the kernel gave a client (families/link-view.h).
 *
 * Through link_view() for a namespace with no device of the daemon's:
 * nothing changes, and each whole message comes out as it went in. Then
 * each link message through link_view_msg() as a port's device (a
 * master), an internal port, or both unset, and read back: its
 * attributes fit it exactly; every attribute it had but IFLA_LINKINFO
 * (and IFLA_MASTER, when a master is given) is there, in order,
 * unchanged; a master given is the one IFLA_MASTER; IFLA_LINKINFO is there
 * once, of kind openvswitch for an internal port, and names openvswitch
 * as its master's kind for a port's device. */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/datapath.h"
#include "families/families.h"
#include "families/link-view.h"
#include "genl-server/attr.h"
#include "tests/fuzz/nl-mutator.h"

static const struct nl_mut_layout layout = {
	.region = { NL_MUT_MSGS }, .hdr_len = sizeof(struct ifinfomsg),
	.max_type = IFLA_MAX, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

#define MASTER	7

static char out[1 << 20];

/* Whether the nest holds a string attribute of type equal to s. */
static bool
holds(const struct nlattr *nest, uint16_t type, const char *s)
{
	const struct nlattr *a;
	int rem;

	attr_for_each(a, attr_data(nest), attr_len(nest), rem)
		if (attr_type(a) == type && (size_t)attr_len(a) == strlen(s) + 1 &&
		    !memcmp(attr_data(a), s, strlen(s) + 1))
			return true;
	return false;
}

static void
check_one(const struct nlmsghdr *in, const struct link_as *as)
{
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg));
	const struct nlmsghdr *o = (const void *)out;
	const struct nlattr *a, *b, *info = NULL;
	int rem, rem_b, n_master = 0, n_info = 0;
	struct msgbuf mb;

	msgbuf_init(&mb, out, sizeof(out));
	link_view_msg(&mb, in, as);
	if (msgbuf_end(&mb))
		abort();
	if (o->nlmsg_type != in->nlmsg_type || o->nlmsg_seq != in->nlmsg_seq ||
	    memcmp(NLMSG_DATA(o), NLMSG_DATA(in), sizeof(struct ifinfomsg)))
		abort();
	b = (const void *)((const char *)NLMSG_DATA(o) + hl);
	rem_b = o->nlmsg_len - NLMSG_HDRLEN - hl;
	attr_for_each(a, (const char *)NLMSG_DATA(o) + hl,
		      o->nlmsg_len - NLMSG_HDRLEN - hl, rem) {
		if (attr_type(a) == IFLA_MASTER && as->master) {
			n_master++;
			if (attr_len(a) != 4 || attr_get_u32(a) != MASTER)
				abort();
		} else if (attr_type(a) == IFLA_LINKINFO) {
			n_info++;
			info = a;
		}
	}
	if (rem != 0 || n_info != 1 || n_master != (as->master ? 1 : 0))
		abort();
	if ((as->internal && !holds(info, IFLA_INFO_KIND, "openvswitch")) ||
	    (as->master && !holds(info, IFLA_INFO_SLAVE_KIND, "openvswitch")))
		abort();
	/* The rest, in order: each attribute of the input but those two
	 * (and what a message cut short has past its end) is the next
	 * attribute of the output that is neither. */
	attr_for_each(a, (const char *)NLMSG_DATA(in) + hl,
		      in->nlmsg_len - NLMSG_HDRLEN - hl, rem) {
		if ((attr_type(a) == IFLA_MASTER && as->master) ||
		    attr_type(a) == IFLA_LINKINFO)
			continue;
		while (rem_b >= NLA_HDRLEN &&
		       ((attr_type(b) == IFLA_MASTER && as->master) ||
			attr_type(b) == IFLA_LINKINFO)) {
			rem_b -= NLA_ALIGN(b->nla_len);
			b = (const void *)((const char *)b + NLA_ALIGN(b->nla_len));
		}
		if (rem_b < NLA_HDRLEN || b->nla_type != a->nla_type ||
		    b->nla_len != a->nla_len ||
		    memcmp(attr_data(a), attr_data(b), attr_len(a)))
			abort();
		rem_b -= NLA_ALIGN(b->nla_len);
		b = (const void *)((const char *)b + NLA_ALIGN(b->nla_len));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static struct dp_net *net;
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg)), off, span, o = 0;
	struct msgbuf mb;

	if (!net) {
		const struct dp_net_config cfg = {
			.upcall = packet_family_upcalls,
		};

		net = dp_net_new(&cfg);
		if (!net)
			abort();
	}
	msgbuf_init(&mb, out, sizeof(out));
	if (link_view(net, in, size, &mb) != 0)
		abort();
	for (off = 0; (span = nlmsg_span(in, size, off)); off += span) {
		const struct nlmsghdr *nlh = (const void *)(in + off);
		const struct nlmsghdr *got = (const void *)(out + o);

		if (o + NLMSG_HDRLEN > mb.len ||
		    got->nlmsg_len != NLMSG_ALIGN(nlh->nlmsg_len) ||
		    got->nlmsg_type != nlh->nlmsg_type ||
		    got->nlmsg_flags != nlh->nlmsg_flags ||
		    got->nlmsg_seq != nlh->nlmsg_seq ||
		    got->nlmsg_pid != nlh->nlmsg_pid ||
		    memcmp(NLMSG_DATA(got), NLMSG_DATA(nlh),
			   nlh->nlmsg_len - NLMSG_HDRLEN))
			abort();
		o += got->nlmsg_len;
	}
	if (o != mb.len)
		abort();
	for (off = 0; (span = nlmsg_span(in, size, off)); off += span) {
		const struct nlmsghdr *nlh = (const void *)(in + off);
		struct link_as as = { 0 };

		if ((nlh->nlmsg_type != RTM_NEWLINK &&
		     nlh->nlmsg_type != RTM_DELLINK) ||
		    nlh->nlmsg_len < NLMSG_HDRLEN + hl)
			continue;
		check_one(nlh, &as);
		as.master = MASTER;
		check_one(nlh, &as);
		as.master = 0;
		as.internal = true;
		check_one(nlh, &as);
	}
	return 0;
}
