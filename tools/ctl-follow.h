/* SPDX-License-Identifier: Apache-2.0 */
/* What tapdpctl's commands that follow a multicast group share (drops
 * --follow, capture, nlmon): their options, --count N (stop after N
 * events), --timeout S (give up after S seconds without one), -w FILE
 * and --follow where the command takes them, and the loop that joins the
 * group and hands each event to the command. Single-threaded. */
#ifndef TAPDP_CTL_FOLLOW_H
#define TAPDP_CTL_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/ctl-cmd.h"
#include "tools/pcapng.h"

struct nlattr;
struct nlmsghdr;

/* Options a command takes beyond --count and --timeout. */
#define CTL_FOLLOW_OPT_W	1u	/* -w FILE */
#define CTL_FOLLOW_OPT_FOLLOW	2u	/* --follow */

struct ctl_follow {
	long count;		/* -1: no end */
	double timeout;		/* seconds; -1: for ever */
	const char *file;	/* -w's, or NULL */
	bool follow;
	unsigned long seen;	/* events the command took, counted by it */
};

/* Parses the options of argv (those of opts, CTL_FOLLOW_OPT_*) into f;
 * the index of the first operand, or -1 after an unknown option. */
int ctl_follow_opts(int argc, char **argv, unsigned opts,
		    struct ctl_follow *f);
/* Joins group (what names it in messages) and runs cb(message, data) on
 * each message that comes, until f->seen reaches f->count. Events lost
 * because they came faster than they were read are told on standard
 * error, and the loop goes on. 0, or 1 after a timeout or a failure
 * (told on standard error). */
int ctl_follow_run(struct ctl_ctx *ctx, uint32_t group, const char *what,
		   struct ctl_follow *f, mnl_cb_t cb, void *data);
/* -w's file ("-": standard output) opened into p, its section header
 * written: 0, or 1 (told on standard error). */
int ctl_follow_pcapng(const struct ctl_follow *f, struct pcapng *p);
/* Closes the file ctl_follow_pcapng opened, if any. */
void ctl_follow_close(struct pcapng *p);
/* An event of the tapdp_ctl family: when h is a cmd message, its
 * attributes in tb (TAPDP_CTL_ATTR_MAX + 1 of them) and its
 * TAPDP_CTL_ATTR_PACKET; NULL for any other message or one without it. */
const struct nlattr *ctl_follow_event(const struct nlmsghdr *h, uint8_t cmd,
				      const struct nlattr **tb);
/* A line of text output: the time (ns since the epoch) in seconds and
 * microseconds, then words; written at once. */
void ctl_follow_line(uint64_t ts_ns, const char *words);

/* capture TARGET with f's options (ctl-capture.c), which upcalls
 * --follow is too: all, upcalls, drops or a port's name. */
int ctl_capture(struct ctl_ctx *ctx, const char *target,
		const struct ctl_follow *f);

#endif
