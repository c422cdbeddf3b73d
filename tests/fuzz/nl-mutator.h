/* SPDX-License-Identifier: Apache-2.0 */
/* A structure-aware libFuzzer mutator for netlink-shaped inputs, shared by
 * the targets whose input is netlink messages or attributes.
 *
 * An input is read as a tree: netlink messages (nlmsghdr, the family's
 * fixed header, attributes) or bare attributes, each attribute a leaf or,
 * when its payload parses exactly as attributes, a nest. A mutation
 * changes the tree (an attribute's type within the family's range, a
 * payload's length by a few bytes, an attribute duplicated, removed,
 * swapped with its neighbour or spliced from elsewhere, an integer set to
 * a boundary value, a message's type, flags or command) and writes it back
 * with every length fixed up; one time in malformed_one_in a length is
 * left wrong on purpose. What does not parse (trailing bytes, a length
 * that overruns) is kept as opaque bytes, and an input with nothing to
 * work on goes to LLVMFuzzerMutate. Every length read is checked against
 * what holds it.
 *
 * A layout may start with bytes that are not netlink (a fixed prefix,
 * left to LLVMFuzzerMutate), and may split the rest in two regions at an
 * offset its first two bytes give (fuzz-flow-netlink, fuzz-actions): the
 * mutator keeps that offset pointing at the boundary it changed.
 *
 * Not thread-safe: one mutation at a time (libFuzzer calls it so). */
#ifndef TAPDP_FUZZ_NL_MUTATOR_H
#define TAPDP_FUZZ_NL_MUTATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum nl_mut_region {
	NL_MUT_RAW,		/* bytes: LLVMFuzzerMutate's */
	NL_MUT_ATTRS,		/* nlattrs */
	NL_MUT_MSGS,		/* nlmsghdr + hdr_len bytes + nlattrs, repeated */
};

struct nl_mut_layout {
	size_t prefix;		/* bytes before the netlink data */
	/* The first two bytes (after prefix) give, modulo the length of
	 * what follows them less one, where region[0] ends and region[1]
	 * starts; without it region[0] is all. */
	bool split;
	enum nl_mut_region region[2];
	size_t hdr_len;		/* a message's fixed header (genlmsghdr: 4) */
	uint16_t max_type;	/* attribute types drawn from [1, max_type] */
	uint8_t max_cmd;	/* genl commands (first byte of hdr) */
	unsigned malformed_one_in;	/* 0: lengths always fixed up */
};

/* What LLVMFuzzerCustomMutator does with layout: data holds size bytes
 * and room for max; returns the new size (<= max). */
size_t nl_mutate(const struct nl_mut_layout *layout, uint8_t *data,
		 size_t size, size_t max, unsigned seed);
/* What LLVMFuzzerCustomCrossOver does: a's tree with a subtree or a
 * message of b's spliced in, written to out (max bytes). */
size_t nl_crossover(const struct nl_mut_layout *layout, const uint8_t *a,
		    size_t a_size, const uint8_t *b, size_t b_size,
		    uint8_t *out, size_t max, unsigned seed);

/* libFuzzer's own mutator, linked from libFuzzer (a stub in the unit
 * test). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

/* Defines a target's libFuzzer hooks on layout L. */
#define NL_MUTATOR(L)							\
	size_t LLVMFuzzerCustomMutator(uint8_t *d, size_t s, size_t m,	\
				       unsigned seed)			\
	{								\
		return nl_mutate(&(L), d, s, m, seed);			\
	}								\
	size_t LLVMFuzzerCustomCrossOver(const uint8_t *a, size_t as,	\
					 const uint8_t *b, size_t bs,	\
					 uint8_t *o, size_t m,		\
					 unsigned seed)			\
	{								\
		return nl_crossover(&(L), a, as, b, bs, o, m, seed);	\
	}

#endif
