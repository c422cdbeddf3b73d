/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: flow keys, masks and actions as the flow family gets
 * them. The input is split at its first two bytes' offset into a key nest
 * and a mask or actions nest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actions/actions-netlink.h"
#include "flow/key-netlink.h"
#include "tests/fuzz/nl-mutator.h"

static struct nlattr *
as_nest(uint8_t *buf, const uint8_t *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)buf;

	nla->nla_type = 1;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy(buf + NLA_HDRLEN, data, len);
	return nla;
}

/* Key attributes, then mask or actions (OVS_KEY_ATTR_MAX and
 * OVS_ACTION_ATTR_MAX are under 40). */
static const struct nl_mut_layout layout = {
	.split = true, .region = { NL_MUT_ATTRS, NL_MUT_ATTRS },
	.max_type = 40, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t kbuf[65536], mbuf[65536];
	struct flow_key key, mask;
	struct nlattr *k, *m;
	size_t split;

	if (size < 2 || size > 60000)
		return 0;
	split = (data[0] | data[1] << 8) % (size - 1);
	k = as_nest(kbuf, data + 2, split);
	m = as_nest(mbuf, data + 2 + split, size - 2 - split);
	/* Actions that pass are stored, as the flow family stores them. */
	if ((flow_match_from_nlattrs(&key, &mask, k, m, false) == 0 ||
	     flow_match_from_nlattrs(&key, &mask, k, NULL, false) == 0) &&
	    actions_validate(m, &key, false) == 0)
		free(actions_store(m, &key));
	flow_metadata_from_nlattrs(&key, k, false);
	return 0;
}
