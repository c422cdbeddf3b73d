/* SPDX-License-Identifier: Apache-2.0 */
/* Hashing for the daemon's tables and for the packet hash: the primitives
 * every hash here is made of, inline because they sit on the packet path.
 *
 *  - hash_mum(): a 64-bit multiply-fold, the 128-bit product of two words
 *    with its halves xored. Products that do not depend on each other run
 *    at once, so a key of fixed size hashes fastest in lanes of these
 *    (ct/tuple.c).
 *  - hash_fmix64(): a finalizer (murmur3's): each input bit flips each
 *    output bit with a probability close to 1/2.
 *  - hash_words(): n 64-bit words and a basis, one multiply per word, then
 *    the finalizer: for keys whose length varies (flow/table.c's masked
 *    keys) and short ones.
 *  - hash_2x32(): two 32-bit values, e.g. a hash and what sets it apart
 *    (a recirculation id, a hash action's basis).
 *
 * None is cryptographic: a table whose keys an adversary picks hashes with
 * a random basis of its own. Pure functions, callable from any thread. */
#ifndef TAPDP_COMMON_HASH_H
#define TAPDP_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
hash_mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t
hash_fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* The n words at p, read as bytes (any object, any alignment). */
static inline uint32_t
hash_words(const void *p, size_t n, uint64_t basis)
{
	uint64_t h = basis ^ n, w;

	for (size_t i = 0; i < n; i++) {
		memcpy(&w, (const char *)p + i * 8, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return hash_fmix64(h);
}

static inline uint32_t
hash_2x32(uint32_t a, uint32_t b)
{
	return hash_fmix64((uint64_t)a << 32 | b);
}

#endif
