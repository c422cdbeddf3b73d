/* SPDX-License-Identifier: Apache-2.0 */
/* Keeping a liburcu hash table at a bucket per node.
 *
 * liburcu grows a CDS_LFHT_AUTO_RESIZE table by itself, but past a few
 * thousand nodes only from a count it commits in steps, checked at powers
 * of two; that was seen to miss for good (tables left at a fraction of
 * their nodes, chains of hundreds: 400,000 connections or 1,000,000 flows
 * went in 10 to 50 times slower, in some runs and not others). The owner
 * says how many nodes the table holds after it grew; lfht_fit resizes
 * when that passed the size it last asked for. liburcu still shrinks the
 * table as nodes go; the size asked for follows the count down.
 *
 * Thread-safety: one caller per table (*asked is its own), a thread
 * registered with RCU and outside any read-side critical section: the
 * resize waits for readers. */
#ifndef TAPDP_COMMON_LFHT_FIT_H
#define TAPDP_COMMON_LFHT_FIT_H

#include <urcu.h>
#include <urcu/rculfhash.h>

/* *asked: the size last asked for, the table's initial size at first. */
void lfht_fit(struct cds_lfht *ht, unsigned long nodes, unsigned long *asked,
	      unsigned long min);

#endif
