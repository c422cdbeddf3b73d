/* SPDX-License-Identifier: Apache-2.0 */
/* The fast path: frames forwarded in the kernel by BPF programs
 * (bpf/fastpath.bpf.c) from an exact-match table the daemon fills with
 * the megaflows its own path found, so that a flow's frames after its
 * first cross no AF_PACKET ring or TAP queue.
 *
 * Only what the programs can do the same way goes there: a frame whose
 * key bpf/fastpath-key.h can make, that came in by a netdev or internal
 * port of a datapath of the daemon's own namespace, hitting a megaflow
 * whose match the programs can make (fastpath_match) and whose actions
 * they can run (datapath/fastpath-actions.h: outputs to such ports, VLAN
 * tags, sets of addresses and ports, drops). The daemon's path
 * stays whole for the rest, and for a frame the programs let go (over an
 * output's MTU, no entry).
 *
 * The table follows the megaflows: a megaflow made gets its entry (its
 * match as the programs see frames, with its outputs) before the
 * request's answer, and loses it before the answer of one that deletes
 * it or gives it new actions; a datapath's entries are made again when
 * one of its ports is added, deleted, moved, or changes its MTU. A flow's counters, its
 * datapath's hits and an internal port's device counters add what the
 * programs counted.
 *
 * Threads: the control thread; a flow's counters are folded on the RCU
 * callbacks' thread too (a mutex). Off (fastpath_start() not called or failed), every
 * call is a test of one flag. */
#ifndef TAPDP_DATAPATH_FASTPATH_H
#define TAPDP_DATAPATH_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fastpath-abi.h"
#include "datapath/drop.h"
#include "flow/table.h"
#include "include/tapdp/ovs-uapi.h"

struct vport;

/* Loads the programs and makes the maps: 0, or -errno with the fast path
 * off and why in fastpath_state(). */
int fastpath_start(void);
void fastpath_stop(void);
bool fastpath_on(void);
/* "bpf" (and whether a capture holds it off), or "none" and why. */
const char *fastpath_state(void);

/* How a port's device is served. */
enum fastpath_port {
	FASTPATH_PORT_NONE,		/* its rings only */
	FASTPATH_PORT_ON,
	FASTPATH_PORT_QDISC,		/* and we made its clsact qdisc */
};

/* A port's device gets the programs (local: a datapath's local port,
 * whose index names the datapath's counters); a port kind or place the
 * programs cannot serve keeps its rings. Returns how it is served, which
 * fastpath_port_detach() is given back. */
enum fastpath_port fastpath_port_attach(struct vport *v,
					enum ovs_vport_type type, bool local);
void fastpath_port_detach(struct vport *v, enum ovs_vport_type type,
			  bool local, enum fastpath_port how);

/* The programs' match of a megaflow (flow key & mask, its in_port's
 * device in_ifindex): an fp_key value under an fp_key mask that an
 * eligible frame's key (bpf/fastpath-key.h) matches when, and only when,
 * its flow key matches the megaflow's. False for a megaflow no eligible
 * frame can match, or one matching on what fp_key has not. */
bool fastpath_match(const struct flow_key *key, const struct flow_key *mask,
		    uint32_t in_ifindex, struct fp_key *v, struct fp_key *m);
/* A flow made, or given new actions (its entry forgotten first): it
 * gets an entry when the programs can match it and a (its outputs and
 * datapath, by the caller) says what they are to do. */
void fastpath_flow_install(struct flow *flow, const struct flow_key *mask,
			   uint32_t in_ifindex, struct fp_actions *a);
/* The flow's entries go; with gone, the flow is being removed: its
 * counters are folded into flow->stats and no entry is made for it any
 * more. */
void fastpath_flow_forget(struct flow *flow, bool gone);
/* Adds what the programs counted for the flow since the last call to its
 * own counters (flow->stats), which are then whole. */
void fastpath_flow_fold(const struct flow *flow);
void fastpath_flow_clear_stats(struct flow *flow);
/* The hits of the datapath whose local port's device is dp_ifindex; its
 * entries' drops added to drops (by drop_reason_index(); may be NULL). */
uint64_t fastpath_dp_stats(int dp_ifindex, uint64_t drops[DROP_REASONS]);
/* Adds a port's device's (ifindex) frames its TAP did not count (an
 * internal port's) to st, and the drops of frames that came in by it to
 * drops; either may be NULL. */
void fastpath_port_stats(int ifindex, struct ovs_vport_stats *st,
			 uint64_t drops[DROP_REASONS]);
/* While on, every frame takes the daemon's path: someone captures what
 * the datapath does with each (tapdpctl capture), which the programs
 * would not tell. */
void fastpath_set_bypass(bool on);
/* While on, a frame an entry would drop takes the daemon's path: someone
 * listens for drops, which the daemon tells of. */
void fastpath_set_drops_told(bool on);

/* What an internal port's program does with a frame (fastpath_probe). */
struct fastpath_probe {
	bool taken;			/* not left to the daemon */
	uint32_t drop;			/* enum fp_drop */
	uint32_t n_out;
	struct fp_trace_out out[FP_TRACE_MAX];
};
/* For tests, before fastpath_start(): loads the test program too. */
void fastpath_want_probe(void);
/* Runs an internal port's program on frame, as the kernel would for a
 * frame the host sends on the loopback device (BPF_PROG_TEST_RUN), with
 * its outputs recorded in *out instead of sent; the counters count it.
 * 0 or -errno (-ENOTCONN without the test program). For tests. */
int fastpath_probe(const void *frame, size_t len, struct fastpath_probe *out);
/* Entries in the table, for status. */
unsigned fastpath_entries(void);

#endif
