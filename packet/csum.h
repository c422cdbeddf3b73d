/* SPDX-License-Identifier: Apache-2.0 */
/* Internet checksums (RFC 1071) and their incremental updates (RFC 1624),
 * and SCTP's CRC32c (RFC 9260), for the actions and the connection
 * tracker that rewrite headers.
 *
 * Pure functions on caller-owned bytes; unaligned access is fine. */
#ifndef TAPDP_PACKET_CSUM_H
#define TAPDP_PACKET_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Adds len bytes at p (an odd tail padded with zero) to a 32-bit
 * one's-complement accumulator. */
uint32_t csum_add(uint32_t sum, const void *p, size_t len);

/* Folds an accumulator to 16 bits, not complemented. */
uint16_t csum_fold(uint32_t sum);

/* The sum of an IPv4 or IPv6 pseudo-header (addresses of alen bytes). */
uint32_t csum_pseudo(const void *src, const void *dst, size_t alen,
		     uint8_t proto, uint32_t l4len);

/* The checksum field at sum (network order) covers n bytes (even) that
 * change from old to new: update it in place. */
void csum_replace(void *sum, const void *old, const void *new, size_t n);

/* The same for a partial (offloaded) checksum field, which holds the
 * pseudo-header sum uncomplemented. */
void csum_update_partial(void *sum, const void *old, const void *new,
			 size_t n);

/* An address or port under an L4 checksum (at sum) changed from old to new
 * (n bytes): a partial (offloaded) field gets the pseudo-header update, a
 * complete one the RFC 1624 update, and a UDP checksum that comes out as 0
 * is written as all ones (0 means "none" for UDP over IPv4). */
void csum_update_l4(void *sum, const void *old, const void *new, size_t n,
		    bool partial, bool udp);

/* SCTP's checksum of the packet at sctp (len bytes from its common
 * header, which len must cover): the CRC32c over it with the checksum
 * field as zero, as the field holds it (sctp_compute_cksum). */
uint32_t csum_sctp(const void *sctp, size_t len);

#endif
