/* SPDX-License-Identifier: Apache-2.0 */
/* Fields of frames and messages at any alignment (frames come as they
 * come): every access is a memcpy, which compilers turn into a plain move.
 * The plain forms keep the byte order of memory; the _be forms convert
 * from and to network order. */
#ifndef TAPDP_UNALIGNED_H
#define TAPDP_UNALIGNED_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
get_unaligned16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
get_unaligned32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
put_unaligned16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t
get_be16(const void *p)
{
	return ntohs(get_unaligned16(p));
}

static inline uint32_t
get_be32(const void *p)
{
	return ntohl(get_unaligned32(p));
}

static inline void
put_be16(void *p, uint16_t v)
{
	put_unaligned16(p, htons(v));
}

#endif
