/* SPDX-License-Identifier: Apache-2.0 */
/* Executing a flow's actions on a packet, as net/openvswitch/actions.c does.
 *
 * The actions run in their stored form (struct actions_stored, made by
 * actions-netlink.h from validated attributes). What leaves the action
 * engine (a port, userspace, a new lookup after recirculation, a meter,
 * the tracker, a psample group) goes through the callbacks of struct
 * actions_env, which the datapath implements: the engine knows nothing of
 * ports or sockets.
 *
 * Runs on the packet's thread; the only state is per thread, as the
 * kernel's is per CPU: the nesting level of executions, scratch buffers
 * for copies, and the queue of clones and recirculations deferred past
 * the kernel's depth, run when the outermost execution ends (buffers
 * allocated at first use and kept: no allocation per packet). */
#ifndef TAPDP_FLOW_ACTIONS_H
#define TAPDP_FLOW_ACTIONS_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <urcu.h>

#include "ct/ct-types.h"
#include "flow/key.h"
#include "flow/packet.h"

/* A ct action of a stored list, parsed. */
struct actions_ct {
	uint32_t offset;		/* of its OVS_ACTION_ATTR_CT in data */
	struct ct_action ct;
};

/* A set(tunnel(...)) of a stored list, parsed: the tunnel it gives. */
struct actions_tun {
	uint32_t offset;		/* of its OVS_ACTION_ATTR_SET in data */
	struct tun_key tun;
};

/* Validated actions as they are kept and run: the attributes in the
 * kernel's form, which flow dumps and upcalls return, and beside them
 * every ct action and every set(tunnel) (nested ones too) parsed, as the
 * kernel keeps a parsed struct ovs_conntrack_info, and a tunnel's
 * metadata_dst, in its list: no packet parses one. One allocation, freed
 * with free(); call_rcu() on rcu when packet threads may still be running
 * it. */
struct actions_stored {
	struct rcu_head rcu;
	uint32_t len;			/* of data */
	uint32_t n_ct;
	uint32_t n_tun;
	const struct actions_ct *ct;	/* by offset; behind data */
	const struct actions_tun *tun;	/* by offset; behind ct */
	uint8_t data[] __attribute__((aligned(4)));
};

struct actions_env {
	void *ctx;
	/* Sends the packet (packet_out_len() bytes) out of port_no; a tunnel
	 * port encapsulates it as pkt->egress_tun says. key: the packet's
	 * (an L3 packet's protocol is its eth_type). */
	void (*output)(void *ctx, const struct packet *pkt,
		       const struct flow_key *key, uint32_t port_no);
	/* OVS_PACKET_CMD_ACTION to pid, with the attributes of the
	 * userspace action; actions (may be NULL) are the flow's. */
	void (*userspace)(void *ctx, const struct packet *pkt,
			  const struct flow_key *key,
			  const struct nlattr *userspace,
			  const void *actions, int actions_len);
	/* Looks the packet up again with key->recirc_id set, and executes
	 * its flow's actions with actions_execute(). */
	void (*recirc)(void *ctx, struct packet *pkt, struct flow_key *key);
	/* true when the meter's band says drop. */
	bool (*meter)(void *ctx, const struct packet *pkt, uint32_t meter_id);
	/* The ct action on the packet, whose header offsets are current
	 * and whose key is of the action's family; updates the key's ct_*
	 * fields and may rewrite the packet (NAT). Not 0: the packet goes no
	 * further; -EINPROGRESS for a fragment held for reassembly, else
	 * the tracker's error (the kernel's ovs_ct_execute() ones), with
	 * the drop reported by the callback. */
	int (*ct)(void *ctx, struct packet *pkt, struct flow_key *key,
		  const struct ct_action *ct);
	/* The psample action: the packet (its first packet_out_len()
	 * bytes sent) to psample group 'group' with the cookie (NULL:
	 * none), at 'rate', a probability scaled to UINT32_MAX. */
	void (*psample)(void *ctx, const struct packet *pkt,
			const struct flow_key *key, uint32_t group,
			const struct nlattr *cookie, uint32_t rate);
	/* Optional: the packet (or a copy the actions made of it) is
	 * dropped, for reason (enum tapdp_drop_reason), where the kernel's
	 * action engine drops it: its list ended without sending it on, a
	 * drop or meter action, an expired TTL, a failed action, the
	 * recursion limit, a full deferral queue. */
	void (*drop)(void *ctx, const struct packet *pkt, uint32_t reason);
	/* Optional, for a trace: told each action a before it runs, with
	 * the packet and key as they stand. NULL on the packet path. */
	void (*step)(void *ctx, const struct nlattr *a,
		     const struct packet *pkt, const struct flow_key *key);
};

/* Executes acts on pkt, whose key (metadata and fields) is key. The
 * packet and key may be changed. As in the kernel, the list consumes the
 * packet: it ends sent, handed to userspace or recirculated, or dropped
 * (env->drop). An execution nested 5 deep (through env callbacks) drops
 * the packet with OVS_DROP_RECURSION_LIMIT; the outermost one runs what
 * its nested ones deferred before it returns, so env and everything the
 * actions point to must outlive it (one RCU read-side section).
 * Returns 0, or the error of the action that ended the list (a failed
 * ct, set, push_nsh or pop_nsh, in the list or in a branch of it that
 * ran at once), -ENETDOWN past the recursion limit: what the kernel's
 * ovs_execute_actions() returns to a client's packet execute. What was
 * deferred, and the lists a recirculation runs, return nothing. */
int actions_execute(const struct actions_env *env, struct packet *pkt,
		     struct flow_key *key, const struct actions_stored *acts);

/* Gives back the frame buffers the calling thread's executions took for
 * copies (clone, sample, deferral), once the packets they ran on are
 * done: at the end of a receive burst or an execute, not per packet, so
 * the pool's lock is taken once per burst. */
void actions_release(void);
/* That, and frees the thread's deferral queue, as a thread that ran
 * actions ends. */
void actions_thread_free(void);

/* The packet's hash for dispatch and the hash action, computed once. */
uint32_t packet_hash(struct packet *pkt, const struct flow_key *key);

#endif
