/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/options.h"

const struct ip_option *
option_next(const void *hdr, size_t end, size_t *at)
{
	const struct ip_option *o;

	for (; *at < end; ++*at) {
		o = (const struct ip_option *)((const uint8_t *)hdr + *at);
		if (o->kind == OPT_END)
			return NULL;
		if (o->kind == OPT_NOP)
			continue;
		if (end - *at < sizeof(*o) || o->len < sizeof(*o) ||
		    o->len > end - *at)
			return NULL;
		return o;
	}
	return NULL;
}
