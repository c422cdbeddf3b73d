/* SPDX-License-Identifier: Apache-2.0 */
/* Describing attribute policies to clients, as the kernel's
 * netlink_policy_dump_* do for nlctrl GETPOLICY: a set of policies, each
 * numbered in the order it was added (a policy added twice keeps its
 * first index), and one attribute's description (its type, integer range
 * or length limits) as NL_POLICY_TYPE_ATTR_* attributes.
 *
 * The daemon's policies nest no policies (families parse their nests
 * themselves), so a set holds only what is added to it.
 * Pure functions over caller memory: a set belongs to one dump. */
#ifndef TAPDP_NETLINK_POLICY_DUMP_H
#define TAPDP_NETLINK_POLICY_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "genl-server/attr.h"
#include "genl-server/msg.h"

/* More than a family's ops have policies (one per op, twice). */
#define POLICY_SET_MAX	64

struct policy_set {
	unsigned n;
	struct {
		const struct attr_policy *policy;
		unsigned maxtype;
	} p[POLICY_SET_MAX];
};

/* Adds policy[0..maxtype] unless it is there already; a NULL policy or a
 * zero maxtype is nothing to add. 0, or -ENOMEM when the set is full. */
int policy_set_add(struct policy_set *set, const struct attr_policy *policy,
		   unsigned maxtype);
/* policy's index in set, -1 when it is not there. */
int policy_set_index(const struct policy_set *set,
		     const struct attr_policy *policy, unsigned maxtype);

/* Puts pt's description as a nest of type nesttype; false when the kernel
 * says nothing of such an attribute (unspecified and big-endian kinds),
 * and then nothing is put. */
bool policy_attr_put(struct msgbuf *mb, const struct attr_policy *pt,
		     uint16_t nesttype);

#endif
