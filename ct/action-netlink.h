/* SPDX-License-Identifier: Apache-2.0 */
/* The ct action's netlink codec (OVS_ACTION_ATTR_CT): parsing and
 * validation as the kernel's parse_ct()/parse_nat() do
 * (net/openvswitch/conntrack.c), with the same length checks, rules and
 * errno, into struct ct_action, which the tracker executes; and the
 * attributes back, as the kernel dumps them. The action codec
 * (actions/actions-netlink.c) calls it for each ct action.
 *
 * Pure functions: thread-safe. */
#ifndef TAPDP_CT_ACTION_NETLINK_H
#define TAPDP_CT_ACTION_NETLINK_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>

#include "ct/ct-types.h"
#include "flow/key.h"

/* Parses the contents of an OVS_ACTION_ATTR_CT nest for a flow whose
 * (masked) key is key. Returns 0 or -EINVAL (-ERANGE for two NAT types;
 * -EINVAL also for a helper unknown or not for the key's protocol, as
 * when the kernel has no such helper), logging the kernel's OVS_NLERR
 * message when log is true. */
int ct_action_parse(const struct nlattr *nest, const struct flow_key *key,
		    struct ct_action *ct, bool log);

/* The kernel's name of a helper ("ftp"), or NULL. */
const char *ct_helper_name(uint8_t helper);
/* The helper of that name for protocol proto (__nf_conntrack_helper_find),
 * or CT_HELPER_NONE. */
uint8_t ct_helper_find(const char *name, uint8_t proto);

struct msgbuf;

/* Puts a as the kernel dumps it (ovs_ct_action_to_attr()): flags, zone
 * always, then mark, labels, helper, event mask, timeout and NAT as set. */
void ct_action_put(struct msgbuf *mb, const struct ct_action *a);

#endif
