/* SPDX-License-Identifier: Apache-2.0 */
/* A datapath's upcalls counted beyond the kernel's missed and lost, for
 * tapdpctl upcalls: by command (a miss, a userspace action), those lost
 * by reason (the socket full, no pid or no socket at it, one that could
 * not be built), what each handler (the portid they go to) was sent and
 * lost, and how long a miss waited for its flow: from the upcall to the
 * flow NEW whose key is the packet's, in decades of microseconds.
 *
 * A miss is remembered by its key's hash in a fixed table of slots, so
 * one whose slot a later miss takes before its flow comes is not timed; a
 * handler past UPCALL_HANDLERS distinct portids is counted in the totals
 * only. Nothing is allocated after upcall_stats_new().
 *
 * Thread-safety: packet threads count (atomics, no lock); the control
 * thread tells installs and reads. */
#ifndef TAPDP_DATAPATH_UPCALL_STATS_H
#define TAPDP_DATAPATH_UPCALL_STATS_H

#include <stdint.h>

#include "flow/key.h"

#define UPCALL_HANDLERS		256
/* Waits under 10 us, 100 us, ..., 10 s, and longer. */
#define UPCALL_WAIT_BUCKETS	8

enum upcall_lost {
	UPCALL_LOST_FULL,		/* ENOBUFS: the socket's queue full */
	UPCALL_LOST_NO_SOCKET,		/* no pid, or no socket at it */
	UPCALL_LOST_OTHER,		/* too big, no memory */
	UPCALL_LOST_REASONS
};

struct upcall_handler {
	uint32_t portid;
	uint64_t sent, lost;
};

struct upcall_figures {
	uint64_t miss, action;		/* upcalls tried */
	uint64_t lost[UPCALL_LOST_REASONS];
	uint64_t wait[UPCALL_WAIT_BUCKETS];
	uint64_t wait_n, wait_sum_us, wait_max_us;
	unsigned n_handlers;		/* in order of their first upcall */
	struct upcall_handler handler[UPCALL_HANDLERS];
};

struct upcall_stats;

struct upcall_stats *upcall_stats_new(void);
void upcall_stats_free(struct upcall_stats *s);
/* An upcall of cmd (OVS_PACKET_CMD_*) to portid, err its outcome (0 or a
 * negative errno); key: a miss's, remembered when sent to time its
 * flow, else NULL. */
void upcall_stats_count(struct upcall_stats *s, uint8_t cmd, uint32_t portid,
			int err, const struct flow_key *key);
/* A flow installed from userspace whose unmasked key is key. */
void upcall_stats_installed(struct upcall_stats *s,
			    const struct flow_key *key);
void upcall_stats_read(const struct upcall_stats *s, struct upcall_figures *f);
/* A wait's bucket: 0 below 10 us, 1 below 100 us, ... */
unsigned upcall_wait_bucket(uint64_t us);

#endif
