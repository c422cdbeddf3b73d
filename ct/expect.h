/* SPDX-License-Identifier: Apache-2.0 */
/* Expectations: the connections helpers announce (ct/helper.c), waiting
 * for their first packet. Few and short-lived (5 minutes, one per master,
 * 4096 at most), so a mutex guards them; the packet path takes it only
 * while some exist (an atomic count says so).
 *
 * Thread-safe. */
#ifndef TAPDP_CT_EXPECT_H
#define TAPDP_CT_EXPECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ct/tuple.h"

/* One announced connection and what it inherits from its master. */
struct ct_expect {
	struct ct_tuple t;		/* its first packet's; sport 0: any */
	struct ct_tuple master;		/* the master's original tuple */
	uint32_t master_id;
	uint32_t mark;
	uint8_t labels[16];
	bool has_labels;
	/* NAT of the master applied to it (nf_nat_follow_master): its
	 * source mapped to nat_src, its destination to nat_dst and
	 * nat_dport (network order). */
	bool follow_nat;
	union ct_addr nat_src, nat_dst;
	uint16_t nat_dport;
	uint64_t expires;		/* ms */
};

struct expect_table {
	pthread_mutex_t lock;
	struct expect_node *list;
	uint32_t n;			/* atomic */
	/* Counted as the kernel's expect_create (added), expect_new (met
	 * by a connection) and expect_delete (gone, met or not); under
	 * the lock. */
	uint64_t n_create, n_new, n_delete;
};

void expect_table_init(struct expect_table *t);
void expect_table_destroy(struct expect_table *t);

/* Adds e, replacing its master's previous expectation (and dropping those
 * past due at now). -EBUSY when another master expects the same tuple,
 * -EMFILE when the table is full (as nf_ct_expect_related()), -ENOMEM. */
int expect_add(struct expect_table *t, const struct ct_expect *e,
	       uint64_t now);
/* The live expectation tuple tp meets (any source port), copied to out;
 * consume: it goes (its connection is committed). */
bool expect_find(struct expect_table *t, const struct ct_tuple *tp,
		 uint64_t now, bool consume, struct ct_expect *out);
/* Forgets master_id's expectations, or with master_id 0 those past due. */
void expect_forget(struct expect_table *t, uint32_t master_id, uint64_t now);
/* The counts above. */
void expect_get_counts(struct expect_table *t, uint64_t *create,
		       uint64_t *new, uint64_t *delete);

#endif
