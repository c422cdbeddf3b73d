/* SPDX-License-Identifier: Apache-2.0 */
/* Validation of OVS_FLOW_ATTR_ACTIONS / OVS_PACKET_ATTR_ACTIONS as the
 * kernel's __ovs_nla_copy_actions() does: the same accepted actions,
 * argument lengths, nesting limit (EOVERFLOW past 16 levels), size limit
 * (EMSGSIZE past 32 KiB once stored), per-action checks against the flow's
 * key, and the same errno. Validated actions are then stored as the kernel
 * stores them (struct actions_stored, actions.h), the ct actions parsed by
 * the tracker's codec (ct/action-netlink.h), the set(tunnel)s by the
 * tunnel's (flow/tun-netlink.h).
 *
 * Thread-safe. */
#ifndef TAPDP_FLOW_ACTIONS_NETLINK_H
#define TAPDP_FLOW_ACTIONS_NETLINK_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>

#include "actions/actions.h"
#include "flow/key.h"

/* The kernel's bound on the stored form of a flow's actions. */
#define ACTIONS_MAX_SIZE	(32 * 1024)
#define ACTIONS_MAX_DEPTH	16

/* Validates the contents of an actions nest for a flow whose masked key is
 * key. Returns 0, -EINVAL, -EOVERFLOW, -EMSGSIZE or -EOPNOTSUPP. */
int actions_validate(const struct nlattr *actions, const struct flow_key *key,
		     bool log);

/* Validated actions in their stored form: the attributes as the kernel
 * keeps them, which flow dumps return (the same, with each ct action and
 * each set(tunnel), nested ones too, re-encoded as the kernel dumps them
 * from their parsed forms), and each ct action and set(tunnel) parsed.
 * key: the one they were validated against (a flow's masked key). NULL:
 * out of memory. */
struct actions_stored *actions_store(const struct nlattr *actions,
				     const struct flow_key *key);

#endif
