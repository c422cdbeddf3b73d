/* SPDX-License-Identifier: Apache-2.0 */
/* Connection tracking for the ct action: the kernel datapath's use of
 * nf_conntrack (net/openvswitch/conntrack.c), in userspace.
 *
 * One tracker serves every datapath of the daemon, as one network
 * namespace's conntrack serves every datapath in it. Connections live in
 * a lock-free hash table (liburcu), one node per direction; zones are part
 * of the tuple, so they never meet. Packets look connections up without
 * locks; a connection's TCP state is updated under its own lock; inserts
 * are lock-free (add-unique), and a sweeper thread expires connections
 * past their timeout (nf_conntrack's defaults, or the timeout policy the
 * ct action that created them names).
 *
 * Thread-safety: conntrack_execute() runs on any packet thread inside an
 * RCU read-side section (rcu_read_lock, thread registered); the rest may be
 * called from any registered thread. */
#ifndef TAPDP_CT_CONNTRACK_H
#define TAPDP_CT_CONNTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/ct-types.h"
#include "ct/expect.h"
#include "ct/frag.h"
#include "ct/tuple.h"
#include "flow/key.h"
#include "flow/packet.h"

struct conntrack;

/* A tracker holding at most max_conns connections (the kernel's
 * nf_conntrack_max); more new connections are refused and counted. */
struct conntrack *conntrack_create(uint32_t max_conns);
void conntrack_destroy(struct conntrack *ct);

/* Runs the ct action a on pkt, whose key is key: reassembles fragments,
 * tracks (and commits, NATs, marks, labels) and sets key's ct_* fields as
 * the kernel does. Returns 0; -EINPROGRESS when pkt is a fragment held
 * for its datagram (the packet goes no further; not an error); or another
 * negative errno when the kernel would drop the packet (a bad fragment,
 * NAT impossible, zone limit reached on commit, table full). */
int conntrack_execute(struct conntrack *ct, struct packet *pkt,
		      struct flow_key *key, const struct ct_action *a);
/* What conntrack_execute() would make of pkt, for a trace, changing
 * nothing in the tracker: the key's ct_* fields from the connection the
 * packet belongs to (+new for one it would start), a committed
 * connection's NAT applied to pkt and key, the action's mark and labels
 * when it commits. Not run: reassembly (a fragment gives -EINPROGRESS),
 * the protocol state machine (TCP windows), a new connection's NAT
 * mapping, helpers, zone limits. */
int conntrack_peek(struct conntrack *ct, struct packet *pkt,
		   struct flow_key *key, const struct ct_action *a);

/* Zone limits (ovs_ct_limit): a zone without its own limit has the
 * default; 0 means unlimited. */
void conntrack_limit_set_default(struct conntrack *ct, uint32_t limit);
uint32_t conntrack_limit_default(struct conntrack *ct);
void conntrack_limit_set(struct conntrack *ct, uint16_t zone,
			 uint32_t limit);
void conntrack_limit_del(struct conntrack *ct, uint16_t zone);
uint32_t conntrack_limit_get(struct conntrack *ct, uint16_t zone);
/* Zones with their own limit, in order: the first after *zone (start
 * with -1); false at the end. */
bool conntrack_limit_next(struct conntrack *ct, int *zone);
/* What the limit counts, as nf_conncount does for openvswitch.ko: the
 * connections the ct action committed while their zone had a limit,
 * until they go or (TCP) reach TIME_WAIT or CLOSE. */
uint32_t conntrack_zone_count(struct conntrack *ct, uint16_t zone);

/* A connection as ctnetlink shows it. */
struct conntrack_entry {
	struct ct_tuple orig, reply;	/* reply: as the reply is seen */
	uint32_t id;
	uint32_t status;		/* the kernel's IPS_* bits */
	uint32_t mark;
	uint8_t labels[16];
	bool has_labels;		/* labels were ever set */
	uint32_t timeout;		/* seconds left */
	/* TCP only: state, and per direction the window scale and the
	 * kernel's IP_CT_TCP_FLAG_* bits. */
	uint8_t tcp_state;		/* enum ct_tcp_state */
	uint8_t tcp_wscale[2];
	uint8_t tcp_flags[2];
	uint8_t helper;			/* enum ct_helper_kind */
	bool has_master;
	struct ct_tuple master;		/* its master's original tuple */
};

/* ctnetlink's events, as nf_conntrack reports them: a connection's
 * events (1 << IPCT_*: NEW or RELATED when committed, REPLY, ASSURED,
 * PROTOINFO (a TCP state), MARK, LABEL) noted while a ct action runs are
 * delivered together when it ends; DESTROY when the connection goes
 * (expired, deleted, flushed). Only those a connection's eventmask lets
 * through (every one without an eventmask). listening says whether
 * anybody would receive the events; deliver gets them with the entry as
 * they leave it. Both are called from any thread. */
struct conntrack_events {
	bool (*listening)(uint32_t events, void *arg);
	/* portid: the netlink socket whose request caused them (0: a
	 * packet or the sweeper). */
	void (*deliver)(const struct conntrack_entry *e, uint32_t events,
			uint32_t portid, void *arg);
	/* An expectation added (destroy false) or gone, from any thread
	 * (under the expectation table's lock: it must not call back). */
	void (*expect_deliver)(const struct ct_expect *e, bool destroy,
			       uint32_t portid, void *arg);
	/* Every connection's events whatever its eventmask, for the
	 * journal a successor takes the table back from, when keeping()
	 * says it is wanted now (both NULL: never). Any thread. */
	bool (*keeping)(void *arg);
	void (*keep)(const struct conntrack_entry *e, uint32_t events,
		     void *arg);
	void *arg;
};
/* Before any packet (NULL: none). */
void conntrack_set_events(struct conntrack *ct,
			  const struct conntrack_events *ev);

/* Calls visit for each connection (of zone, or all when zone < 0) until
 * it returns nonzero, which is then returned. */
int conntrack_dump(struct conntrack *ct, int zone,
		   int (*visit)(const struct conntrack_entry *, void *),
		   void *arg);

/* Deletes the connections of zone (all when zone < 0) and of family
 * (all when 0), on behalf of the netlink socket portid (0: none), whose
 * DESTROY events name it. Returns how many. */
int conntrack_flush(struct conntrack *ct, int zone, int family,
		    uint32_t portid);

/* The connection with tuple t (either direction, zone included) as a dump
 * shows it; -ENOENT when there is none. */
int conntrack_get(struct conntrack *ct, const struct ct_tuple *t,
		  struct conntrack_entry *e);
/* Deletes it, on behalf of portid; with id != 0, only if that is its id.
 * -ENOENT otherwise. */
int conntrack_delete(struct conntrack *ct, const struct ct_tuple *t,
		     uint32_t id, uint32_t portid);

/* A connection as ctnetlink creates or changes it (IPCTNL_MSG_CT_NEW):
 * the fields named in given (CT_SET_*). Status bits are the kernel's
 * IPS_*; of those the tracker keeps, SEEN_REPLY and ASSURED may be set,
 * never cleared, and the others must stay as they are (-EBUSY); the rest
 * of the kernel's changeable bits are accepted and not kept. */
#define CT_SET_TIMEOUT		0x01
#define CT_SET_STATUS		0x02
#define CT_SET_MARK		0x04
#define CT_SET_LABELS		0x08
#define CT_SET_TCP_STATE	0x10
#define CT_SET_MASTER		0x20	/* creation only */
#define CT_SET_SNAT		0x40	/* creation only */
#define CT_SET_DNAT		0x80	/* creation only */
#define CT_SET_HELPER		0x100	/* a helper; to an existing one: none */
struct conntrack_change {
	uint32_t given;			/* CT_SET_* */
	uint32_t timeout;		/* seconds */
	uint32_t status;
	/* Mark and labels become (old & keep) ^ new, as the kernel's
	 * CTA_MARK_MASK and CTA_LABELS_MASK make them. */
	uint32_t mark, mark_keep;
	uint8_t labels[16], labels_keep[16];
	uint8_t tcp_state;		/* enum ct_tcp_state */
	uint8_t helper;			/* enum ct_helper_kind */
	struct ct_tuple master;		/* the master's tuple, in its zone */
	/* The ranges the source and destination are mapped in; a side
	 * not given is mapped to itself when the other is (nf_nat's null
	 * binding). */
	struct ct_nat_range snat, dnat;
};

/* ctnetlink_create_conntrack(): a confirmed connection of tuples orig
 * and reply (same zone and protocol; NAT, when given, maps the reply as
 * nf_nat_setup_info() does) with ch applied, reported as NEW (RELATED
 * with a master) to all but portid. -EEXIST when either tuple is taken,
 * -ENOENT when the master is missing, -ENOMEM when the table is full or
 * no mapping is free, -EBUSY or -EINVAL for a status or TCP state it
 * cannot take. */
int conntrack_insert(struct conntrack *ct, const struct ct_tuple *orig,
		     const struct ct_tuple *reply,
		     const struct conntrack_change *ch, uint32_t portid);
/* ctnetlink_change_conntrack(): applies ch to the connection with tuple
 * t (either direction), reported as an UPDATE. -ENOENT when there is
 * none; errors as conntrack_insert() (then nothing is changed). */
int conntrack_update(struct conntrack *ct, const struct ct_tuple *t,
		     const struct conntrack_change *ch, uint32_t portid);

/* Expectations, as ctnetlink's expectation subsystem shows them: each
 * live one, under the table's lock, until visit returns nonzero. */
int conntrack_expect_dump(struct conntrack *ct,
			  int (*visit)(const struct ct_expect *, void *),
			  void *arg);
/* The live one tuple t (in its zone) meets; -ENOENT. */
int conntrack_expect_get(struct conntrack *ct, const struct ct_tuple *t,
			 struct ct_expect *out);
/* Removes those match says, on behalf of portid; how many. */
int conntrack_expect_remove(struct conntrack *ct,
			    bool (*match)(const struct ct_expect *, void *),
			    void *arg, uint32_t portid);
/* ctnetlink_create_expect(): an expectation of t by the connection with
 * tuple master, as its helper would add it, reported to all but portid. -ENOENT without that
 * connection, -EOPNOTSUPP when it has no helper; else as expect_add(). */
int conntrack_expect_new(struct conntrack *ct, const struct ct_tuple *t,
			 const struct ct_tuple *master, uint32_t portid);
/* The one t meets lives timeout seconds from now; -ENOENT. */
int conntrack_expect_set_timeout(struct conntrack *ct,
				 const struct ct_tuple *t, uint32_t timeout);

/* The tracker's timeout policies (ct/timeout.h), which ct actions name. */
struct ct_timeout_table *conntrack_timeouts(struct conntrack *ct);

struct conntrack_stats {
	uint64_t n_conns;		/* in the table now */
	uint64_t n_invalid;		/* packets found invalid */
	uint64_t n_refused;		/* commits refused: limits, full */
	uint64_t n_expired;
	uint64_t n_expects;		/* expectations waiting */
	uint64_t n_expect_create, n_expect_new, n_expect_delete;
	uint32_t max_conns;
	struct frag_stats frags;
};
void conntrack_get_stats(struct conntrack *ct, struct conntrack_stats *s);

/* One pass of the sweeper: deletes the connections, fragment queues and
 * expectations past due at clock_now_ms(). The sweeper thread calls it
 * every second; tests call it themselves. */
void conntrack_sweep(struct conntrack *ct);

#endif
