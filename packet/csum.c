/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/csum.h"

#include <arpa/inet.h>
#include <string.h>

#include "common/unaligned.h"

uint32_t
csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t s = sum;
	size_t i = 0;

	for (; i + 4 <= len; i += 4) {
		uint32_t w;

		memcpy(&w, b + i, 4);
		s += w;
	}
	for (; i + 2 <= len; i += 2)
		s += get_unaligned16(b + i);
	if (i < len) {
		uint16_t t = 0;

		memcpy(&t, b + i, 1);
		s += t;
	}
	while (s >> 32)
		s = (s & 0xffffffff) + (s >> 32);
	return (uint32_t)s;
}

uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t
csum_pseudo(const void *src, const void *dst, size_t alen, uint8_t proto,
	    uint32_t l4len)
{
	uint32_t s = csum_add(0, src, alen);
	uint32_t tail[2] = { htonl(l4len), htonl(proto) };

	s = csum_add(s, dst, alen);
	return csum_add(s, tail, sizeof(tail));
}

/* Sum of ~old + new over n bytes, added to s (host-order 16-bit words). */
static uint32_t
delta(uint32_t s, const uint8_t *o, const uint8_t *w, size_t n)
{
	for (size_t i = 0; i < n; i += 2) {
		s += (uint16_t)~ntohs(get_unaligned16(o + i));
		s += ntohs(get_unaligned16(w + i));
	}
	return s;
}

void
csum_replace(void *sum, const void *old, const void *new, size_t n)
{
	uint32_t s = delta((uint16_t)~ntohs(get_unaligned16(sum)), old, new, n);

	put_unaligned16(sum, htons((uint16_t)~csum_fold(s)));
}

void
csum_update_partial(void *sum, const void *old, const void *new, size_t n)
{
	uint32_t s = delta(ntohs(get_unaligned16(sum)), old, new, n);

	put_unaligned16(sum, htons(csum_fold(s)));
}

void
csum_update_l4(void *sum, const void *old, const void *new, size_t n,
	       bool partial, bool udp)
{
	if (partial) {
		csum_update_partial(sum, old, new, n);
		return;
	}
	csum_replace(sum, old, new, n);
	if (udp && !get_unaligned16(sum))
		put_unaligned16(sum, 0xffff);
}
