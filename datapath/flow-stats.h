/* SPDX-License-Identifier: Apache-2.0 */
/* Flow counters that outlive the daemon.
 *
 * A flow's counters (flow/table.h, struct flow_stats) live in a slot of a
 * memory file of its context, which the keeper holds with the context's
 * journal (common/keep.h). A successor, after a kill -9 or an upgrade,
 * takes the file with the journal, and each flow the replay makes again
 * claims the slot its record names, so that its counts go on from where
 * the dead daemon left them: the kernel's never restart, and OVS's
 * revalidators take a count that goes down for a bug ("Unexpected jump
 * in packet stats").
 *
 * A slot a flow gave back is not handed out again until the journal has
 * been compacted (flow_stats_recycle): until then a record of the flow
 * that had it may be in the journal, and two flows would claim it in a
 * replay. A file no keeper holds gives slots back at once.
 *
 * Slots are handed out and claimed on the control thread and given back
 * from any (a flow's RCU callback): a mutex. Packet threads update a
 * slot's counters with atomics. */
#ifndef TAPDP_DATAPATH_FLOW_STATS_H
#define TAPDP_DATAPATH_FLOW_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flow_stats;
struct flow_stats_file;

/* A file of at most max_slots slots: fd -1 makes a new one (a memfd);
 * otherwise it takes fd, which a predecessor left (taking it: closed with
 * the file), its slots held for flow_stats_claim until
 * flow_stats_claims_done. NULL with *err -errno (fd is then still the
 * caller's; -EINVAL, logged: not such a file). */
struct flow_stats_file *flow_stats_open(int fd, size_t max_slots, int *err);
void flow_stats_close(struct flow_stats_file *f);
int flow_stats_fd(const struct flow_stats_file *f);
/* A keeper holds the file: slots given back wait for a compaction. */
void flow_stats_set_kept(struct flow_stats_file *f, bool kept);

/* A slot with its counters at zero, NULL when the file is full. */
struct flow_stats *flow_stats_alloc(struct flow_stats_file *f);
/* The slot a predecessor's flow had, with its counters as they are;
 * NULL when slot is not one of those held. */
struct flow_stats *flow_stats_claim(struct flow_stats_file *f,
				    uint32_t slot);
/* The replay is over: the held slots no flow claimed are free. */
void flow_stats_claims_done(struct flow_stats_file *f);
/* Gives s back (any thread, after the flow's grace period). */
void flow_stats_free(struct flow_stats_file *f, struct flow_stats *s);
/* s's index, for the journal's record. */
uint32_t flow_stats_slot(const struct flow_stats_file *f,
			 const struct flow_stats *s);
/* The journal was compacted: slots given back before are free. */
void flow_stats_recycle(struct flow_stats_file *f);
/* Slots in use, and the most ever (the file's extent). */
size_t flow_stats_used(const struct flow_stats_file *f);

#endif
