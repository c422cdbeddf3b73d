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
	uint32_t id;			/* given when added */
	uint8_t helper;			/* the master's, enum ct_helper_kind */
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

/* Called, under the table's lock, when an expectation is added (NEW)
 * or goes (destroy: met, past due, replaced, deleted, its master gone);
 * portid: the netlink socket whose request removed it (0: none). */
typedef void expect_event_fn(const struct ct_expect *e, bool destroy,
			     uint32_t portid, void *arg);

struct expect_table {
	pthread_mutex_t lock;
	struct expect_node *list;
	uint32_t n;			/* atomic */
	uint32_t next_id;
	expect_event_fn *event;		/* set before any expectation */
	void *event_arg;
	/* Counted as the kernel's expect_create (added), expect_new (met
	 * by a connection) and expect_delete (gone, met or not); under
	 * the lock. */
	uint64_t n_create, n_new, n_delete;
};

void expect_table_init(struct expect_table *t);
void expect_table_destroy(struct expect_table *t);

/* Adds e, replacing its master's previous expectation (and dropping those
 * past due at now), on behalf of portid (0: a packet). -EBUSY when
 * another master expects the same tuple, -EMFILE when the table is full
 * (as nf_ct_expect_related()), -ENOMEM. */
int expect_add(struct expect_table *t, const struct ct_expect *e,
	       uint64_t now, uint32_t portid);
/* The live expectation tuple tp meets (any source port), copied to out;
 * consume: it goes (its connection is committed). */
bool expect_find(struct expect_table *t, const struct ct_tuple *tp,
		 uint64_t now, bool consume, struct ct_expect *out);
/* Forgets master_id's expectations, or with master_id 0 those past due. */
void expect_forget(struct expect_table *t, uint32_t master_id, uint64_t now);

/* Calls visit with each live expectation, under the lock, until it
 * returns nonzero, which is then returned. */
int expect_visit(struct expect_table *t, uint64_t now,
		 int (*visit)(const struct ct_expect *, void *), void *arg);
/* Removes those match says, on behalf of portid; how many. */
int expect_remove(struct expect_table *t,
		  bool (*match)(const struct ct_expect *, void *), void *arg,
		  uint32_t portid);
/* Gives the live expectation tuple tp meets a new expiry; false when
 * there is none. */
bool expect_set_expires(struct expect_table *t, const struct ct_tuple *tp,
			uint64_t now, uint64_t expires);
/* The counts above. */
void expect_get_counts(struct expect_table *t, uint64_t *create,
		       uint64_t *new, uint64_t *delete);

#endif
