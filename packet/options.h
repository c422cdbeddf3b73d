/* SPDX-License-Identifier: Apache-2.0 */
/* IPv4 and TCP options, which share a layout: kind 0 ends the list, kind 1
 * is one byte of padding, any other kind has a length byte counting the
 * kind, itself and the data.
 *
 * Pure functions on caller-owned bytes: thread-safe. */
#ifndef TAPDP_PACKET_OPTIONS_H
#define TAPDP_PACKET_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "packet/headers.h"

struct ip_option {
	uint8_t kind;
	uint8_t len;
	uint8_t data[];
} HEADER_PACKED;

#define OPT_END			0
#define OPT_NOP			1
#define IPV4_OPT_COPIED		0x80	/* kept in every fragment */
#define TCP_OPT_WSCALE		3
#define TCP_OPT_WSCALE_LEN	3

/* The option at or after *at (padding skipped) in the list in hdr that
 * ends at end, *at moved to it; NULL when the list ends there: its end
 * option, no more room, a length below 2 or running past end. Add the
 * option's length to *at for the next one. */
const struct ip_option *option_next(const void *hdr, size_t end, size_t *at);

#endif
