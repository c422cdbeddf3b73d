/* SPDX-License-Identifier: Apache-2.0 */
/* The fixed IPv4 and IPv6 headers: the checks a reader makes before
 * trusting one (IHL, version, the datagram length against the buffer),
 * each caller choosing those the kernel code it follows makes, and the
 * IPv4 header checksum.
 *
 * Pure functions on caller-owned bytes: thread-safe. */
#ifndef TAPDP_PACKET_IP_H
#define TAPDP_PACKET_IP_H

#include <stddef.h>
#include <stdint.h>

#include "packet/headers.h"

/* Checks beyond the header fitting in the buffer. */
#define IP_CHECK_VERSION	(1u << 0)	/* the version field matches */
#define IP_CHECK_LENGTH		(1u << 1)	/* the datagram's length fits
						 * in the buffer (IPv4: and
						 * holds the header) */

/* The IPv4 header at off in data (len bytes): NULL unless its 20 bytes and
 * the IHL's length fit, the IHL is at least 5, and the checks pass. */
const struct ipv4_header *ipv4_header_at(const void *data, size_t len,
					 size_t off, unsigned checks);

/* The IPv6 header at off in data (len bytes): NULL unless its 40 bytes fit
 * and the checks pass. */
const struct ipv6_header *ipv6_header_at(const void *data, size_t len,
					 size_t off, unsigned checks);

/* Computes the header checksum of ip, its IHL's length long. */
void ipv4_set_csum(struct ipv4_header *ip);

#endif
