/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/csum.h"

#include <arpa/inet.h>
#include <endian.h>
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

/* CRC32c (Castagnoli, reflected), four bits at a time. */
static uint32_t
crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	static const uint32_t nibble[16] = {
		0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1,
		0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
		0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
		0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
	};

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nibble[crc & 15];
		crc = (crc >> 4) ^ nibble[crc & 15];
	}
	return crc;
}

uint32_t
csum_sctp(const void *sctp, size_t len)
{
	static const uint8_t zero[4];
	const uint8_t *b = sctp;
	uint32_t crc;

	/* The checksum is the common header's last four bytes. */
	crc = crc32c(~0u, b, 8);
	crc = crc32c(crc, zero, 4);
	crc = crc32c(crc, b + 12, len - 12);
	return htole32(~crc);
}
