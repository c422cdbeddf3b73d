/* SPDX-License-Identifier: Apache-2.0 */
/* The keeper (daemon/keeper.c) and its client (common/keep.c): what a
 * daemon hands over survives the daemon's end and comes back to the next
 * one, fds working; drops and updates are honoured; one daemon at a time;
 * a clean stop and a successor that never comes both end the keeper. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/keep.h"
#include "daemon/keeper.h"

static char dir[64], path[128];

/* A "daemon": a forked child that makes the keeper and hands it a pipe's
 * write end, then dies as told (0: without a word, like kill -9; 1: with
 * a clean stop). Returns the pipe's read end. */
static int
first_daemon(int how, unsigned wait_s)
{
	int p[2], st;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct keep_tap kt = { .name = "kept0" };
		uint64_t a, b;

		close(p[0]);
		if (keeper_spawn(path, wait_s, true))
			_exit(1);
		a = keep_put(KEEP_TAP, &p[1], 1, &kt, sizeof(kt));
		b = keep_put(KEEP_LISTEN, &p[1], 1, NULL, 0);
		keep_put(KEEP_JOURNAL, &p[1], 1, "j", 1);
		keep_drop(b);
		kt.l3 = 1;
		keep_meta(a, &kt, sizeof(kt));
		if (how == 1)
			keep_quit();
		_exit(a && b ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return p[0];
}

static int
setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test-keep.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.keep", dir);
	return 0;
}

static int
teardown(void **state)
{
	unlink(path);
	rmdir(dir);
	return 0;
}

static void
test_takeover(void **state)
{
	int rd = first_daemon(0, 10), r, jfd;
	struct keep_entry *e;
	uint64_t jid;
	struct keep_tap kt;
	pid_t pid;
	char c;

	/* The daemon is dead, yet the pipe has a writer: the keeper's. */
	assert_int_equal(read(rd, &c, 0), 0);
	r = keep_attach(path);
	assert_int_equal(r, 1);
	assert_int_equal(keep_take(), 0);
	/* A second daemon is turned away while we are attached. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(keep_attach(path) == -EADDRINUSE ? 0 : 1);
	assert_int_equal(waitpid(pid, &r, 0), pid);
	assert_true(WIFEXITED(r) && WEXITSTATUS(r) == 0);
	assert_null(keep_claim(KEEP_LISTEN, NULL, NULL));
	e = keep_claim(KEEP_TAP, NULL, NULL);
	assert_non_null(e);
	assert_int_equal(e->n_fds, 1);
	assert_int_equal(e->meta_len, sizeof(kt));
	memcpy(&kt, e->meta, sizeof(kt));
	assert_string_equal(kt.name, "kept0");
	assert_int_equal(kt.l3, 1);
	/* The fd works: what we write, the pipe gives. */
	assert_int_equal(write(e->fds[0], "x", 1), 1);
	assert_int_equal(read(rd, &c, 1), 1);
	assert_int_equal(c, 'x');
	close(e->fds[0]);
	keep_drop(e->id);
	e = keep_claim(KEEP_JOURNAL, NULL, NULL);
	assert_non_null(e);
	assert_memory_equal(e->meta, "j", 1);
	assert_null(keep_claim(KEEP_TAP, NULL, NULL));
	/* The entry lives until the release: keep what we need of it. */
	jfd = e->fds[0];
	jid = e->id;
	/* Unclaimed: none left; the journal entry is ours now. */
	keep_release_unclaimed();
	close(jfd);
	keep_drop(jid);
	keep_quit();
	/* Every writer gone: the keeper let its copies go and ended. */
	assert_int_equal(read(rd, &c, 1), 0);
	close(rd);
}

static void
test_clean_stop_ends_the_keeper(void **state)
{
	int rd = first_daemon(1, 10);
	char c;

	assert_int_equal(read(rd, &c, 1), 0);
	assert_int_equal(keep_attach(path), 0);
	close(rd);
}

static void
test_no_successor_in_time(void **state)
{
	int rd = first_daemon(0, 1);
	char c;

	/* After 1 s alone the keeper gives up: the pipe's last writer goes. */
	assert_int_equal(read(rd, &c, 1), 0);
	assert_int_equal(keep_attach(path), 0);
	close(rd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_takeover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clean_stop_ends_the_keeper,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_successor_in_time,
						setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
