/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: tapdpctl's flow-key writer (tools/odp-key.c) on a
 * key and a mask as the daemon's dumps carry them: the input is the two
 * attribute lists, an OVS_FLOW_ATTR_KEY and an OVS_FLOW_ATTR_MASK nest. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/odp-key.h"
#include "genl-server/attr.h"
#include "tests/fuzz/nl-mutator.h"

static const struct nl_mut_layout layout = {
	.region = { NL_MUT_ATTRS }, .max_type = 40, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	const struct nlattr *tb[3] = { 0 };

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	/* Key and mask at the top, anything else ignored; a malformed list
	 * is written up to where it breaks, as a dump that came cut. */
	attr_parse(data, size, NULL, 2, tb, NULL);
	if (tb[1])
		odp_key_format(sink, attr_data(tb[1]), attr_len(tb[1]),
			       tb[2] ? attr_data(tb[2]) : NULL,
			       tb[2] ? attr_len(tb[2]) : 0);
	if (tb[2])
		odp_mask_fields(sink, attr_data(tb[2]), attr_len(tb[2]));
	return 0;
}
