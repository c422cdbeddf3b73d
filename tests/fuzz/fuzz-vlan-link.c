/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the vlan kind's IFLA_INFO_DATA as an RTM_NEWLINK
 * brings it (tap/vlan-dev.h, vlan_dev_parse), a heap copy of its exact
 * size. What parses is an id under 4095 with 802.1Q's or 802.1ad's
 * protocol; what does not gets one of the driver's answers. No device is
 * made. */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "genl-server/attr.h"
#include "tap/vlan-dev.h"
#include "tests/fuzz/nl-mutator.h"

static const struct nl_mut_layout layout = {
	.region = { NL_MUT_ATTRS }, .max_type = IFLA_VLAN_MAX + 1,
	.malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	struct vlan_dev_config cfg;
	struct extack ack = { 0 };
	struct nlattr *nest;
	int err;

	if (size > 0xffff - NLA_HDRLEN)
		return 0;
	nest = malloc(NLA_HDRLEN + size);
	if (!nest)
		return 0;
	nest->nla_type = IFLA_INFO_DATA;
	nest->nla_len = NLA_HDRLEN + size;
	memcpy((char *)nest + NLA_HDRLEN, in, size);
	memset(&cfg, 0, sizeof(cfg));
	err = vlan_dev_parse(nest, &cfg, &ack);
	free(nest);
	if (err) {
		if (err != -EINVAL && err != -ERANGE &&
		    err != -EPROTONOSUPPORT)
			abort();
		return 0;
	}
	if (cfg.id >= 4095 ||
	    (cfg.proto != ETH_P_8021Q && cfg.proto != ETH_P_8021AD))
		abort();
	return 0;
}
