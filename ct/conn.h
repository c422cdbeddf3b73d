/* SPDX-License-Identifier: Apache-2.0 */
/* A tracked connection, as the tracker's modules share it (private to
 * ct/). Two hash nodes, one per direction, point at it; readers find it
 * under RCU without locks, and the lock guards what packets update (the
 * TCP state). Freed after a grace period once both nodes are gone. */
#ifndef TAPDP_CT_CONN_H
#define TAPDP_CT_CONN_H

#include <pthread.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "ct/helper.h"
#include "ct/seqadj.h"
#include "ct/tcp.h"
#include "ct/tuple.h"

enum { CT_DIR_ORIG, CT_DIR_REPLY };

/* conn.status bits (the kernel's IPS_* in spirit). */
#define CT_S_SEEN_REPLY		0x001
#define CT_S_ASSURED		0x002
#define CT_S_CONFIRMED		0x004	/* committed: in the table */
#define CT_S_SRC_NAT		0x008	/* source mapped to another */
#define CT_S_DST_NAT		0x010
#define CT_S_SRC_NAT_DONE	0x020	/* source mapping decided */
#define CT_S_DST_NAT_DONE	0x040
#define CT_S_NAT_MASK		(CT_S_SRC_NAT | CT_S_DST_NAT)
#define CT_S_LABELS		0x080	/* labels set at least once */
#define CT_S_EXPECTED		0x100	/* met a helper's expectation */
#define CT_S_COUNTED		0x200	/* counted in its zone's limit */

enum ct_manip { CT_MANIP_SRC, CT_MANIP_DST };

struct conn;

struct conn_node {
	struct cds_lfht_node lfht;
	struct conn *conn;
	uint8_t dir;
};

/* What a connection with a helper keeps for it (allocated on commit),
 * guarded by the connection's lock. */
struct conn_help {
	struct ct_ftp_lines ftp;
	struct ct_seqadj seqadj;
};

struct conn {
	struct conn_node node[2];
	struct ct_tuple tuple[2];	/* as seen in each direction */
	pthread_spinlock_t lock;
	uint32_t status;		/* CT_S_*, atomic */
	uint32_t id;
	uint64_t expires;		/* ms, monotonic */
	uint32_t mark;
	uint8_t labels[16];
	uint8_t helper;			/* enum ct_helper_kind */
	struct conn_help *help;		/* committed with a helper */
	/* Related connections: their master's original tuple (owned by
	 * committed connections), else NULL. */
	struct ct_tuple *master;
	/* Its timeout policy, held by committed connections; NULL: the
	 * defaults. */
	struct ct_timeout *tp;
	struct ct_tcp tcp;
	/* ctnetlink's events (1 << IPCT_*): those waiting to be delivered
	 * (atomic), and those that are (the ct action's eventmask). */
	uint32_t events;
	uint16_t ctmask;
	struct rcu_head rcu;
};

#endif
