/* SPDX-License-Identifier: Apache-2.0 */
/* Timeout policies: named sets of connection timeouts for one layer 3 and
 * layer 4 protocol (the kernel's cttimeout objects, one list per tracker as
 * per namespace), and nf_conntrack's defaults for connections without one.
 *
 * A policy's values are indexed by its protocol's CTA_TIMEOUT_<PROTO>_*
 * attribute (TCP's are its states, then RETRANS and UNACK; UDP's
 * UNREPLIED and REPLIED; ICMP's and the generic protocol's the one
 * TIMEOUT), in seconds. A connection created by a ct action that names a
 * policy holds it and takes its timeouts from it; deleting the policy
 * returns those connections to the defaults (nf_ct_untimeout), replacing
 * its values changes theirs from their next packet.
 *
 * Thread-safety: changes and queries are serialized by the table's mutex;
 * ct_timeout_find runs on any registered thread inside an RCU read-side
 * section and the policy it returns stays valid until that section ends
 * (ct_timeout_hold keeps it longer); ct_timeout_value and ct_timeout_put
 * from any thread. */
#ifndef TAPDP_CT_TIMEOUT_H
#define TAPDP_CT_TIMEOUT_H

#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <urcu/list.h>

#include "ct/ct-types.h"

/* The largest protocol's attributes, and the room for its values. */
#define CT_TIMEOUT_N		(CTA_TIMEOUT_TCP_MAX + 1)
/* The kernel's l4proto number for protocols it tracks generically. */
#define CT_TIMEOUT_GENERIC	255

struct ct_timeout;

struct ct_timeout_table {
	pthread_mutex_t lock;
	struct cds_list_head list;	/* in creation order, as dumps show */
};

/* A policy as cttimeout reports it. */
struct ct_timeout_info {
	char name[CT_TIMEOUT_NAME_LEN];
	uint16_t l3num;
	uint8_t l4num;
	uint32_t use;			/* the list's reference + connections */
	uint32_t values[CT_TIMEOUT_N];
};

void ct_timeout_table_init(struct ct_timeout_table *t);
/* Deletes every policy; call rcu_barrier() before freeing what holds t. */
void ct_timeout_table_destroy(struct ct_timeout_table *t);

/* The highest attribute of l4num's policies; 0 for a protocol without
 * them (the kernel's EOPNOTSUPP). */
int ct_timeout_max_attr(uint8_t l4num);

/* Creates the policy name, or with replace changes an existing one's
 * values (l3num and l4num must be its own: -EINVAL). values[i] counts
 * only when present has bit i; the others are the defaults. -EEXIST with
 * excl when name exists, -EBUSY without excl nor replace, -EOPNOTSUPP for
 * an l4num without policies. */
int ct_timeout_set(struct ct_timeout_table *t, const char *name,
		   uint16_t l3num, uint8_t l4num, const uint32_t *values,
		   uint32_t present, bool excl, bool replace);
/* -ENOENT when there is no policy name. */
int ct_timeout_get(struct ct_timeout_table *t, const char *name,
		   struct ct_timeout_info *info);
/* Deletes policy name (every policy when name is NULL); -ENOENT when
 * there is none. Its connections go back to the defaults. */
int ct_timeout_del(struct ct_timeout_table *t, const char *name);
/* The i-th policy in order (dumps walk them so); -ENOENT past the last. */
int ct_timeout_at(struct ct_timeout_table *t, size_t i,
		  struct ct_timeout_info *info);

/* The policy name if it is for l3num and l4num, else NULL (the kernel
 * then runs the action without one). Inside an RCU read-side section. */
struct ct_timeout *ct_timeout_find(struct ct_timeout_table *t,
				   const char *name, uint16_t l3num,
				   uint8_t l4num);
/* A reference beyond the RCU section, for a committed connection. */
void ct_timeout_hold(struct ct_timeout *tp);
/* Drops it; after a grace period since the holder was last reachable. */
void ct_timeout_put(struct ct_timeout *tp);

/* Seconds for attribute attr of l4num: tp's while it exists, else the
 * default (tp may be NULL). */
uint32_t ct_timeout_value(const struct ct_timeout *tp, uint8_t l4num,
			  int attr);

#endif
