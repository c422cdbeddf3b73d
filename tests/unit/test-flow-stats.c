/* SPDX-License-Identifier: Apache-2.0 */
/* The flow counters' file (datapath/flow-stats.h): slots handed out at
 * zero and given back; a slot given back under a journal waits for a
 * compaction; a successor's file, taken from the fd, gives each slot
 * back once, with its counts, to the flow that claims it, and frees the
 * rest when the claims are done; a full file says so; what is not such
 * a file is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "datapath/flow-stats.h"
#include "flow/table.h"

#define MAX	10000

static void
test_alloc_free(void **state)
{
	struct flow_stats *a, *b, *c;
	struct flow_stats_file *f;
	int err;

	(void)state;
	f = flow_stats_open(-1, MAX, &err);
	assert_non_null(f);
	a = flow_stats_alloc(f);
	b = flow_stats_alloc(f);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(flow_stats_slot(f, a), 0);
	assert_int_equal(flow_stats_slot(f, b), 1);
	assert_int_equal(flow_stats_used(f), 2);
	a->packets = 7;
	/* No keeper: back at once, and handed out again at zero. */
	flow_stats_free(f, a);
	c = flow_stats_alloc(f);
	assert_ptr_equal(c, a);
	assert_int_equal(c->packets, 0);
	flow_stats_close(f);
}

static void
test_limbo_until_compaction(void **state)
{
	struct flow_stats *a, *b;
	struct flow_stats_file *f;
	int err;

	(void)state;
	f = flow_stats_open(-1, MAX, &err);
	assert_non_null(f);
	flow_stats_set_kept(f, true);
	a = flow_stats_alloc(f);
	flow_stats_free(f, a);
	b = flow_stats_alloc(f);
	assert_ptr_not_equal(b, a);
	flow_stats_recycle(f);
	assert_ptr_equal(flow_stats_alloc(f), a);
	flow_stats_close(f);
}

static void
test_successor_claims(void **state)
{
	struct flow_stats *s[3], *got, *fresh;
	struct flow_stats_file *f, *g;
	int err, fd;

	(void)state;
	f = flow_stats_open(-1, MAX, &err);
	assert_non_null(f);
	for (int i = 0; i < 3; i++) {
		s[i] = flow_stats_alloc(f);
		s[i]->packets = 100 + i;
		s[i]->bytes = 1000 + i;
		s[i]->used_ms = 5;
		s[i]->tcp_flags = 0x12;
	}
	/* The predecessor dies: its file, as the keeper holds it. */
	fd = dup(flow_stats_fd(f));
	flow_stats_close(f);
	g = flow_stats_open(fd, MAX, &err);
	assert_non_null(g);
	/* Slots not claimed yet are not handed out: a new one is past
	 * the file's extent. */
	fresh = flow_stats_alloc(g);
	assert_true(flow_stats_slot(g, fresh) > 2);
	assert_int_equal(fresh->packets, 0);
	got = flow_stats_claim(g, 1);
	assert_non_null(got);
	assert_int_equal(got->packets, 101);
	assert_int_equal(got->bytes, 1001);
	assert_int_equal(got->used_ms, 5);
	assert_int_equal(got->tcp_flags, 0x12);
	/* Once only; not past the file; not one handed out since. */
	assert_null(flow_stats_claim(g, 1));
	assert_null(flow_stats_claim(g, MAX));
	assert_null(flow_stats_claim(g, flow_stats_slot(g, fresh)));
	assert_non_null(flow_stats_claim(g, 0));
	flow_stats_claims_done(g);
	/* Slot 2, never claimed, is free now, at zero. */
	assert_null(flow_stats_claim(g, 2));
	got = flow_stats_alloc(g);
	assert_int_equal(flow_stats_slot(g, got), 2);
	assert_int_equal(got->packets, 0);
	assert_int_equal(flow_stats_used(g), 4);
	flow_stats_close(g);
}

static void
test_full(void **state)
{
	struct flow_stats_file *f;
	int err, n = 0;

	(void)state;
	f = flow_stats_open(-1, 5000, &err);
	assert_non_null(f);
	while (flow_stats_alloc(f))
		n++;
	assert_int_equal(n, 5000);
	flow_stats_close(f);
}

static void
test_not_a_file(void **state)
{
	char junk[8192];
	int err, fd = memfd_create("junk", MFD_CLOEXEC);

	(void)state;
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), sizeof(junk));
	assert_null(flow_stats_open(fd, MAX, &err));
	assert_int_equal(err, -EINVAL);
	/* A short one too; the fd stays the caller's. */
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_null(flow_stats_open(fd, MAX, &err));
	assert_int_equal(err, -EINVAL);
	assert_int_equal(close(fd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free),
		cmocka_unit_test(test_limbo_until_compaction),
		cmocka_unit_test(test_successor_claims),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_not_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
