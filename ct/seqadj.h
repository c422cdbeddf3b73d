/* SPDX-License-Identifier: Apache-2.0 */
/* TCP sequence adjustment, as nf_conntrack_seqadj does it: once NAT has
 * made a segment of a connection longer or shorter (an FTP command
 * rewritten), the sender's later sequence numbers, and the peer's
 * acknowledgements of them (SACK blocks included), are shifted by what
 * the rewrites added so far, so that both ends keep their own view.
 *
 * Each direction keeps one correction point: segments starting after it
 * take the offset after it, the others (retransmissions included) the
 * offset before. A rewrite of a segment at or before the point (its
 * retransmission rewritten again) leaves it as it is.
 *
 * Plain data: the caller serializes access (the connection's lock). */
#ifndef TAPDP_CT_SEQADJ_H
#define TAPDP_CT_SEQADJ_H

#include <stdbool.h>
#include <stdint.h>

struct ct_seqadj_dir {
	uint32_t pos;			/* sequence number of the rewrite */
	int32_t before, after;		/* offsets up to it and past it */
};

struct ct_seqadj {
	struct ct_seqadj_dir dir[2];	/* by the sender's direction */
	bool on;			/* a length changed: adjust segments */
};

/* The segment sent in dir starting at seq (host order) changed length by
 * off bytes. */
void ct_seqadj_set(struct ct_seqadj *s, int dir, uint32_t seq, int32_t off);

/* Shifts the sequence and acknowledgement numbers and the SACK blocks of
 * the TCP segment at tcp (len bytes, the header's length checked by the
 * caller) sent in dir. partial: the checksum is offloaded (not updated:
 * it does not cover these fields yet). false: its options are malformed
 * (the kernel drops the segment). */
bool ct_seqadj_packet(const struct ct_seqadj *s, int dir, uint8_t *tcp,
		      uint32_t len, bool partial);

#endif
