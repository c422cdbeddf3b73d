/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a tunnel kind's IFLA_INFO_DATA as an RTM_NEWLINK
 * brings it (tap/tnl-dev.h). The first byte picks the kind, the rest is
 * the nest's contents, a heap copy of its exact size. What parses is given
 * back as RTM_GETLINK would give it, and that must parse to the same
 * configuration (a device of one remote's tunnel too). No device is
 * made. */
#include <errno.h>
#include <linux/if_link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genl-server/msg.h"
#include "tap/tnl-dev.h"
#include "tests/fuzz/nl-mutator.h"

static const char *const kinds[] = { "vxlan", "geneve", "gre", "gretap",
				     "ip6gretap", "erspan", "ip6erspan",
				     "bareudp" };

static int
parse(const struct tnl_kind *k, const struct nlattr *data,
      struct tnl_dev *dev, bool *md)
{
	struct extack ack = { 0 };

	memset(dev, 0, sizeof(*dev));
	return tnl_kind_parse(k, data, dev, md, &ack);
}

/* The kind's byte, then IFLA_INFO_DATA's attributes (IFLA_VXLAN_MAX,
 * the largest, is under 32). */
static const struct nl_mut_layout layout = {
	.prefix = 1, .region = { NL_MUT_ATTRS }, .max_type = 32,
	.malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const struct tnl_kind *k;
	const struct nlattr *a, *info, *back_data = NULL;
	struct tnl_dev dev, back;
	struct nlattr *nest;
	struct msgbuf mb;
	char mem[2048];
	bool md, md2;
	int err, rem;

	if (!size || size - 1 > 0xffff - NLA_HDRLEN)
		return 0;
	k = tnl_kind_find(kinds[in[0] % (sizeof(kinds) / sizeof(kinds[0]))]);
	nest = malloc(NLA_HDRLEN + size - 1);
	if (!nest)
		return 0;
	nest->nla_type = 2;	/* IFLA_INFO_DATA */
	nest->nla_len = NLA_HDRLEN + size - 1;
	memcpy((char *)nest + NLA_HDRLEN, in + 1, size - 1);
	err = parse(k, nest, &dev, &md);
	free(nest);
	if (err) {
		if (err != -EINVAL && err != -ERANGE)
			abort();
		return 0;
	}
	if (dev.kind != k)
		abort();
	/* Given back, read again: the same device. */
	snprintf(dev.name, sizeof(dev.name), "f0");
	msgbuf_init(&mb, mem, sizeof(mem));
	msgbuf_start(&mb, 16, 0, 0, 0, 0);
	nest = msgbuf_nest_start(&mb, IFLA_LINKINFO);
	tnl_dev_fill_info(&dev, &mb);
	msgbuf_nest_end(&mb, nest);
	if (msgbuf_end(&mb))
		abort();
	info = (const struct nlattr *)(mb.buf + NLMSG_HDRLEN);
	attr_for_each(a, attr_data(info), attr_len(info), rem)
		if (attr_type(a) == 2)
			back_data = a;
	if (!back_data)
		abort();
	/* A VXLAN-GPE device's data does not read back, as the kernel's
	 * does not (TTL_INHERIT, which GPE refuses): its flag is there. */
	if (dev.cfg.gpe) {
		const struct nlattr *gpe = NULL;

		attr_for_each(a, attr_data(back_data), attr_len(back_data),
			      rem)
			if (attr_type(a) == IFLA_VXLAN_GPE)
				gpe = a;
		if (!gpe || attr_len(gpe))
			abort();
		return 0;
	}
	/* A device of one remote reads back as one, with its tunnel and
	 * receive key; any other as collect-metadata. */
	if (parse(k, back_data, &back, &md2) || md2 != !dev.remote.family ||
	    memcmp(&back.remote, &dev.remote, sizeof(dev.remote)) ||
	    back.rx_keyed != dev.rx_keyed || back.rx_id != dev.rx_id)
		abort();
	if (back.cfg.dst_port != dev.cfg.dst_port ||
	    back.cfg.gbp != dev.cfg.gbp || back.cfg.gpe != dev.cfg.gpe ||
	    back.cfg.csum6_zero_rx != dev.cfg.csum6_zero_rx ||
	    back.cfg.family != dev.cfg.family || back.cfg.l3 != dev.cfg.l3 ||
	    back.learning != dev.learning || back.erspan_ver != dev.erspan_ver ||
	    back.cfg.ethertype != dev.cfg.ethertype ||
	    back.cfg.multiproto != dev.cfg.multiproto ||
	    back.cfg.port_min != dev.cfg.port_min)
		abort();
	return 0;
}
