/* SPDX-License-Identifier: Apache-2.0 */
/* The fuzz targets' netlink mutator (tests/fuzz/nl-mutator.h): with
 * lengths always fixed up, what it makes of a well-formed input is still
 * well formed, messages and attributes tiling their buffers exactly, the
 * split offset at a boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/fuzz/nl-mutator.h"

#define ROUNDS	20000
#define MAX	4096

/* libFuzzer's mutator: one byte changed. A call on the whole input (not
 * on one attribute's payload) keeps no structure: noted. */
static const uint8_t *whole;
static bool whole_mutated;

size_t
LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max)
{
	if (data == whole)
		whole_mutated = true;
	if (size)
		data[size / 2] ^= 0x55;
	return size;
}

static uint32_t
rd(const uint8_t *p, size_t n)
{
	uint32_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

/* Attributes fill len exactly, each padded to 4 but maybe the last. */
static bool
attrs_tile(const uint8_t *p, size_t len)
{
	while (len) {
		size_t l;

		if (len < 4 || (l = rd(p, 2)) < 4 || l > len)
			return false;
		l = ((l + 3) & ~(size_t)3) < len ? (l + 3) & ~(size_t)3 : len;
		p += l;
		len -= l;
	}
	return true;
}

/* Messages fill len exactly; each one's attributes after 16 + 4 bytes
 * fill it. */
static bool
msgs_tile(const uint8_t *p, size_t len)
{
	while (len) {
		size_t l;

		if (len < 20 || (l = rd(p, 4)) < 20 || l > len ||
		    !attrs_tile(p + 20, l - 20) || l % 4)
			return false;
		p += l;
		len -= l;
	}
	return true;
}

/* A genl request: a nest of a nest and leaves of 1, 2, 4 and 8 bytes. */
static const uint8_t genl_seed[] = {
	/* nlmsghdr: len 72, type 0x400, REQUEST|ACK, seq 1, pid 0 */
	72, 0, 0, 0, 0x00, 0x04, 0x05, 0x00, 1, 0, 0, 0, 0, 0, 0, 0,
	/* genlmsghdr: cmd 1, version 1 */
	1, 1, 0, 0,
	/* u32 type 1 */
	8, 0, 1, 0, 0x2a, 0, 0, 0,
	/* nest type 2 (32): u8, u16, nest type 3 (8): u32 type 1 */
	32, 0, 2, 0x80, 5, 0, 1, 0, 7, 0, 0, 0, 6, 0, 2, 0, 9, 9, 0, 0,
	12, 0, 3, 0x80, 8, 0, 1, 0, 1, 2, 3, 4,
	/* u64 type 4 */
	12, 0, 4, 0, 1, 2, 3, 4, 5, 6, 7, 8,
};

static void
test_messages_stay_well_formed(void **state)
{
	static const struct nl_mut_layout layout = {
		.region = { NL_MUT_MSGS }, .hdr_len = 4, .max_type = 8,
		.max_cmd = 10,
	};
	static uint8_t buf[MAX], out[MAX];
	unsigned structural = 0;

	assert_true(msgs_tile(genl_seed, sizeof(genl_seed)));
	for (unsigned i = 0; i < ROUNDS; i++) {
		size_t n;

		memcpy(buf, genl_seed, sizeof(genl_seed));
		whole = buf;
		whole_mutated = false;
		n = nl_mutate(&layout, buf, sizeof(genl_seed), MAX, i);
		assert_true(n <= MAX);
		if (whole_mutated)
			continue;
		structural++;
		assert_true(msgs_tile(buf, n));
		n = nl_crossover(&layout, genl_seed, sizeof(genl_seed),
				 buf, n, out, MAX, i);
		assert_true(n <= MAX);
		if (n)
			assert_true(msgs_tile(out, n));
	}
	/* Most mutations are structural. */
	assert_true(structural > ROUNDS / 2);
}

/* [split: 2 bytes][key attributes][actions attributes]. */
static void
test_split_stays_at_the_boundary(void **state)
{
	static const struct nl_mut_layout layout = {
		.split = true, .region = { NL_MUT_ATTRS, NL_MUT_ATTRS },
		.max_type = 30,
	};
	static uint8_t buf[MAX];
	uint8_t seed[2 + 16 + 12] = { 16, 0,
		/* two u32s */
		8, 0, 1, 0, 1, 0, 0, 0, 8, 0, 2, 0, 2, 0, 0, 0,
		/* one u64 */
		12, 0, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	for (unsigned i = 0; i < ROUNDS; i++) {
		size_t n, split;

		memcpy(buf, seed, sizeof(seed));
		whole = buf;
		whole_mutated = false;
		n = nl_mutate(&layout, buf, sizeof(seed), MAX, i);
		if (whole_mutated)
			continue;
		assert_true(n >= 2);
		split = rd(buf, 2) % (n - 1);
		assert_int_equal(split, rd(buf, 2));
		assert_true(attrs_tile(buf + 2, split));
		assert_true(attrs_tile(buf + 2 + split, n - 2 - split));
	}
}

/* What is not netlink, or overruns, is kept, and nothing reads past the
 * input (ASan watches the unit tests' sanitizer build). */
static void
test_garbage_is_survived(void **state)
{
	static const struct nl_mut_layout layout = {
		.region = { NL_MUT_MSGS }, .hdr_len = 4, .max_type = 8,
		.max_cmd = 10, .malformed_one_in = 4,
	};
	static uint8_t buf[MAX];
	uint32_t x = 1;

	for (unsigned i = 0; i < ROUNDS; i++) {
		size_t size = i % 97, n;

		for (size_t k = 0; k < size; k++) {
			x = x * 1103515245 + 12345;
			buf[k] = k < 4 ? genl_seed[k] : x >> 24;
		}
		n = nl_mutate(&layout, buf, size, size + 8, i);
		assert_true(n <= size + 8);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages_stay_well_formed),
		cmocka_unit_test(test_split_stays_at_the_boundary),
		cmocka_unit_test(test_garbage_is_survived),
	};

	return cmocka_run_group_tests_name("nl-mutator", tests, NULL, NULL);
}
