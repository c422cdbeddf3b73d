/* SPDX-License-Identifier: Apache-2.0 */
/* ct/nat.c's choice of a mapping: unique among the table's tuples, and
 * found in a few probes however many connections one address already
 * carries (its search starts where the connection's own tuple says, not
 * where the mapped tuple does, which all connections to one address
 * share). */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ct/conn.h"
#include "ct/nat.h"

#define N	4000

/* The reply tuples taken so far, and how often the search asked. */
struct fake_table {
	struct nat_table nat;
	struct ct_tuple taken[N];
	unsigned n_taken;
	unsigned long asked;
};

static bool
fake_taken(const struct nat_table *t, const struct ct_tuple *tuple)
{
	struct fake_table *f = (struct fake_table *)t;

	f->asked++;
	for (unsigned i = 0; i < f->n_taken; i++)
		if (ct_tuple_equal(&f->taken[i], tuple))
			return true;
	return false;
}

/* A UDP connection from host i's port sport to 10.1.1.1:80, not mapped
 * yet. */
static void
conn_init(struct conn *c, uint32_t i, uint16_t sport)
{
	memset(c, 0, sizeof(*c));
	c->tuple[CT_DIR_ORIG] = (struct ct_tuple) {
		.src.ip = htonl(0x0a000000 + i), .dst.ip = htonl(0x0a010101),
		.sport = htons(sport), .dport = htons(80),
		.proto = IPPROTO_UDP, .family = AF_INET,
	};
	assert_true(ct_tuple_invert(&c->tuple[CT_DIR_ORIG],
				    &c->tuple[CT_DIR_REPLY]));
}

/* The same connection over IPv6: 2001:db8::i to 2001:db8:1::1. */
static void
conn_init6(struct conn *c, uint32_t i, uint16_t sport)
{
	conn_init(c, i, sport);
	for (int d = 0; d < 2; d++) {
		struct ct_tuple *t = &c->tuple[d];
		union ct_addr *host = d ? &t->dst : &t->src;
		union ct_addr *server = d ? &t->src : &t->dst;

		memset(host, 0, sizeof(*host));
		memset(server, 0, sizeof(*server));
		host->ip6.s6_addr32[0] = server->ip6.s6_addr32[0] =
			htonl(0x20010db8);
		host->ip6.s6_addr32[3] = htonl(i);
		server->ip6.s6_addr32[1] = htonl(0x00010000);
		server->ip6.s6_addr32[3] = htonl(1);
		t->family = AF_INET6;
	}
}

/* Many hosts behind one address, all from the same port: each is given
 * its own port, and the search asks a few times each, not once per
 * connection already there. */
static void
many_to_one(int family)
{
	struct ct_nat_range r = {
		.flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO,
		.min_port = 1024, .max_port = 65535,
	};
	struct fake_table *f = calloc(1, sizeof(*f));
	struct conn c;

	if (family == AF_INET) {
		r.min_addr.ip = r.max_addr.ip = htonl(0x0a090909);
	} else {
		r.min_addr.ip6.s6_addr32[0] = htonl(0x20010db8);
		r.min_addr.ip6.s6_addr32[3] = htonl(0x09090909);
		r.max_addr = r.min_addr;
	}
	f->nat.taken = fake_taken;
	for (uint32_t i = 0; i < N; i++) {
		if (family == AF_INET)
			conn_init(&c, i, 5000);
		else
			conn_init6(&c, i, 5000);
		assert_true(nat_setup(&f->nat, &c, &r, CT_MANIP_SRC));
		assert_true(c.status & CT_S_SRC_NAT);
		/* Replies go to the mapped address, at a port of the range. */
		assert_memory_equal(&c.tuple[CT_DIR_REPLY].dst, &r.min_addr,
				    sizeof(r.min_addr));
		assert_in_range(ntohs(c.tuple[CT_DIR_REPLY].dport), 1024, 65535);
		assert_false(fake_taken(&f->nat, &c.tuple[CT_DIR_REPLY]));
		f->taken[f->n_taken++] = c.tuple[CT_DIR_REPLY];
	}
	/* 4000 of 64512 ports taken: about 1.03 probes each on average;
	 * one search per connection already there would be N * N / 2. The
	 * uniqueness checks above asked N times themselves. */
	assert_true(f->asked - N < 3ul * N);
	free(f);
}

static void
test_many_to_one_address(void **state)
{
	many_to_one(AF_INET);
}

static void
test_many_to_one_address6(void **state)
{
	many_to_one(AF_INET6);
}

/* A range of one port: the first connection has it, the next finds the
 * range exhausted. */
static void
test_one_port_exhausted(void **state)
{
	const struct ct_nat_range r = {
		.flags = CT_RANGE_MAP_IPS | CT_RANGE_PROTO,
		.min_addr.ip = htonl(0x0a090909),
		.max_addr.ip = htonl(0x0a090909),
		.min_port = 2000, .max_port = 2000,
	};
	struct fake_table *f = calloc(1, sizeof(*f));
	struct conn c;

	f->nat.taken = fake_taken;
	conn_init(&c, 1, 5000);
	assert_true(nat_setup(&f->nat, &c, &r, CT_MANIP_SRC));
	assert_int_equal(ntohs(c.tuple[CT_DIR_REPLY].dport), 2000);
	f->taken[f->n_taken++] = c.tuple[CT_DIR_REPLY];
	conn_init(&c, 2, 5000);
	assert_false(nat_setup(&f->nat, &c, &r, CT_MANIP_SRC));
	free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_to_one_address),
		cmocka_unit_test(test_many_to_one_address6),
		cmocka_unit_test(test_one_port_exhausted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
