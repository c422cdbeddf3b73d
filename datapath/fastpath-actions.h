/* SPDX-License-Identifier: Apache-2.0 */
/* A megaflow's actions in the fast path's form (struct fp_actions,
 * bpf/fastpath-abi.h): the ops its programs run, made from the stored
 * attributes when the programs do to every frame the megaflow can match
 * what net/openvswitch/actions.c does, and refused otherwise.
 *
 * What the programs run: outputs to the ports the fast path serves,
 * push_vlan and pop_vlan, set and set_masked of Ethernet addresses, of
 * IPv4 and IPv6 addresses, TOS/traffic class, TTL/hop limit and flow
 * label, and of TCP and UDP ports (one set of each kind), and a drop: an
 * explicit one, or a list that does not end with an output. A set of any
 * other field, and every other action, stays the daemon's.
 *
 * Pure: no state; any thread. */
#ifndef TAPDP_DATAPATH_FASTPATH_ACTIONS_H
#define TAPDP_DATAPATH_FASTPATH_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/fastpath-abi.h"
#include "flow/key.h"

/* Fills an output op's ifindex, flags, counted and mtu for port_no: false
 * when the fast path does not serve that port. */
typedef bool fastpath_port_fn(void *ctx, uint32_t port_no, struct fp_op *op);

/* The ops of the actions (acts, len bytes of stored attributes, which
 * actions_validate() passed for key) of the megaflow key under mask,
 * into *out (dp_ifindex and slot left as they were): false when the
 * programs cannot run them. */
bool fastpath_actions_make(const struct flow_key *key,
			   const struct flow_key *mask, const void *acts,
			   uint32_t len, fastpath_port_fn *port, void *ctx,
			   struct fp_actions *out);

#endif
