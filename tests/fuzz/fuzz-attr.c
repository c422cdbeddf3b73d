/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: attribute parsing under a policy with every kind. */
#include <stdint.h>

#include "genl-server/attr.h"
#include "tests/fuzz/nl-mutator.h"

static const struct attr_policy pol[] = {
	[1] = { .kind = ATTR_U8 },
	[2] = { .kind = ATTR_U16 },
	[3] = { .kind = ATTR_U32, .range = true, .min = 0, .max = 4096 },
	[4] = { .kind = ATTR_U64 },
	[5] = { .kind = ATTR_S32, .range = true, .min = 0, .max = INT32_MAX },
	[6] = { .kind = ATTR_STRING, .len = 15 },
	[7] = { .kind = ATTR_NUL_STRING, .len = 15 },
	[8] = { .kind = ATTR_FLAG },
	[9] = { .kind = ATTR_NESTED },
	[10] = { .kind = ATTR_BINARY, .len = 16 },
	[11] = { .kind = ATTR_BE16 },
	[12] = { .kind = ATTR_BE32 },
	[13] = { .kind = ATTR_UNSPEC, .len = 8 },
};

static const struct nl_mut_layout layout = {
	.region = { NL_MUT_ATTRS }, .max_type = 14, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlattr *tb[14], *inner[14];
	struct extack ack = { 0 };

	if (attr_parse(data, size, pol, 13, tb, &ack) == 0 && tb[9])
		attr_parse_nested(tb[9], pol, 13, inner, &ack);
	return 0;
}
