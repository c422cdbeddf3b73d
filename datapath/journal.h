/* SPDX-License-Identifier: Apache-2.0 */
/* The journal of the datapath's state, for a daemon that restarts without
 * loss: a memory file (memfd) another process keeps open across the
 * daemon's death, which the successor adopts and replays.
 *
 * Records are netlink requests of the OVS families, of cttimeout and of
 * rtnetlink, exactly what a client would send to make an object as it is
 * now (a datapath NEW with its features and pids, a port NEW with the
 * number it got, a flow NEW with its key, mask, actions and UFID, a
 * timeout policy NEW, a tunnel device's RTM_NEWLINK...) or to remove it
 * (DEL, RTM_DELLINK). Replay feeds them in order through the
 * families' own handlers, so one path creates objects. The families write a record after each change that succeeded,
 * and only while a journal is open.
 *
 * Layout of the file: a header page, then records (netlink messages, each
 * NLMSG_ALIGNed), contiguous in [start, used) of the header's live slot.
 * The header has two slots {start, used} and the index of the live one.
 * - An append copies the record after 'used' and only then moves 'used'
 *   past it (a release store): a daemon killed mid-append leaves the
 *   journal as it was before the record.
 * - Compaction writes the records of the live state outside the live
 *   region (after it, or in front of it when that room is enough), fills
 *   the other slot and makes it the live one with one store; a kill at any
 *   point leaves one complete journal. The pages outside the live region
 *   are then given back (hole punched, file shortened). The file stays the
 *   same: the fd the keeper holds never changes.
 *
 * Tracked connections are kept as ctnetlink requests (CT_NEW that makes
 * one with its tuples, NAT, master and helper, then CT_NEW that changes
 * its status, timeout, mark, labels and TCP state, CT_DELETE), written by
 * the tracker's packet threads whatever the connections' eventmasks
 * (families/ctnetlink.c).
 *
 * Not kept: flow statistics and used times, meter and band statistics,
 * connections' counters, TCP windows and timeout policy names (a
 * connection comes back with the default timeouts), expectations, a
 * chosen ifindex of internal ports, psample and drop-family state.
 *
 * Each context (datapath/datapath.h: the daemon's namespace's, and each
 * other namespace's) has a journal of its own, so that a restart makes
 * each namespace's state again in that namespace.
 *
 * Threads: appends take the journal's mutex, so any thread may write a
 * record; open, close, compaction and replay belong to the control
 * thread, between requests. */
#ifndef TAPDP_JOURNAL_H
#define TAPDP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "genl-server/msg.h"

struct dp_net;
struct genl_family;
struct nlsock;

/* What the journal needs of the families above it, which register it
 * (families_register()): the records of a context's whole state, each
 * appended with journal_append (for compaction), and the handlers a
 * replayed record of each netlink protocol goes to. */
struct journal_ops {
	void (*state)(struct dp_net *net);
	void (*route)(struct nlsock *sk, const void *buf, size_t len);
	void (*netfilter)(struct nlsock *sk, const void *buf, size_t len);
	void (*generic)(struct nlsock *sk, const void *buf, size_t len);
};
void journal_set_ops(const struct journal_ops *ops);

/* Gives net a journal, which may grow to 64 GiB (4 GiB for another
 * namespace's context: dp_net_set_namespace before). fd -1: a new,
 * empty one in a new memfd.
 * Otherwise adopts fd, a journal a previous daemon wrote (the journal
 * takes the fd): -EINVAL, logged, when its header or records are not a
 * journal's, and fd is then still the caller's. -EBUSY when net has
 * one. */
int journal_open(struct dp_net *net, int fd);
/* The memfd of net's journal, -1 when it has none. */
int journal_fd(const struct dp_net *net);
/* What the keeper holds for net: its journal's memfd and its flow
 * counters' file (datapath/flow-stats.h), into fds; how many (0: no
 * journal). */
unsigned journal_keep_fds(const struct dp_net *net, int fds[2]);
/* journal_open of the files a predecessor left with the keeper (fds[0]
 * its journal; fds[1], if n > 1, its flow counters), before the replay:
 * 0, or -errno with fds[0] still the caller's. The counters' file, taken
 * or closed, is not; *renewed says net has a new one instead (none was
 * given, or it was not one), which the keeper should hold. */
int journal_open_kept(struct dp_net *net, const int *fds, unsigned n,
		      bool *renewed);
/* Unmaps and closes net's journal, once no thread writes to it:
 * dp_net_destroy does, after the context's ports and tracker stopped. */
void journal_close(struct dp_net *net);
/* Whether changes to net's state are written now: it has a journal, not
 * being replayed. */
bool journal_keeps(const struct dp_net *net);
/* Whether the request being handled is a record of net's journal
 * replayed (what only a record may say is believed then). */
bool journal_replaying(const struct dp_net *net);

/* Appends mb's messages to net's journal, as one unit. No-op unless
 * journal_keeps(net). Any thread. */
void journal_append(const struct dp_net *net, const struct msgbuf *mb);

/* How the families write a record: a request of family's cmd (NLM_F_ACK,
 * no NLM_F_CREATE) on datapath dp_ifindex of net, started in the
 * journal's buffer, filled with msgbuf_put*() and appended to net's
 * journal by journal_record_end(). NULL unless journal_keeps(net).
 * Control thread. */
struct msgbuf *journal_record_start(const struct dp_net *net,
				    const struct genl_family *family,
				    uint8_t cmd, int dp_ifindex);
void journal_record_end(struct msgbuf *mb);

/* Bytes of records, and their count, in the live region of net's. */
size_t journal_used(const struct dp_net *net);
unsigned journal_records(const struct dp_net *net);

/* Rewrites net's journal as the records of net's state now. 0 or -errno
 * (the journal is then unchanged). */
int journal_compact(struct dp_net *net);
/* Compacts when the records have grown past twice their size after the
 * last compaction plus 1 MiB. The control thread's periodic work, between
 * requests. */
void journal_maybe_compact(struct dp_net *net);

/* Replays the journal into net, a context with no datapath yet, through
 * the families' handlers (journal_set_ops, and the families registered),
 * without recording the replayed requests again. Returns how many records
 * failed (each is logged with its errno), or -errno when replay could not
 * run. When some failed, the journal is compacted to what net holds. */
int journal_replay(struct dp_net *net);

#endif
