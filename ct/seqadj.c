/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/seqadj.h"

#include <arpa/inet.h>
#include <string.h>

#include "ct/tcp.h"
#include "packet/csum.h"
#include "packet/headers.h"

#define TCPOPT_EOL	0
#define TCPOPT_NOP	1
#define TCPOPT_SACK	5
#define SACK_BLOCK	8

/* a after b, in sequence space. */

void
ct_seqadj_set(struct ct_seqadj *s, int dir, uint32_t seq, int32_t off)
{
	struct ct_seqadj_dir *d = &s->dir[dir];

	if (!off)
		return;
	s->on = true;
	/* A retransmission of a segment already counted adds nothing. */
	if (d->before != d->after && !ct_seq_after(seq, d->pos))
		return;
	d->pos = seq;
	d->before = d->after;
	d->after += off;
}

/* Rewrites the 32-bit field at field to v (host order). */
static void
set32(uint8_t *field, uint32_t v, void *sum, bool partial)
{
	uint32_t old, new = htonl(v);

	memcpy(&old, field, 4);
	memcpy(field, &new, 4);
	if (!partial)
		csum_replace(sum, &old, &new, 4);
}

static uint32_t
get32(const uint8_t *field)
{
	uint32_t v;

	memcpy(&v, field, 4);
	return ntohl(v);
}

/* An acknowledged sequence number of the peer's (it sent in the direction
 * d describes), taken back to the peer's own numbering. */
static uint32_t
unshift(const struct ct_seqadj_dir *d, uint32_t ack)
{
	return ack - (ct_seq_after(ack - d->before, d->pos) ? d->after
							 : d->before);
}

static bool
sack_adjust(const struct ct_seqadj_dir *peer, uint8_t *tcp, uint32_t hlen,
	    void *sum, bool partial)
{
	uint32_t off = TCP_HLEN;

	while (off < hlen) {
		uint8_t kind = tcp[off], olen;

		if (kind == TCPOPT_EOL)
			return true;
		if (kind == TCPOPT_NOP) {
			off++;
			continue;
		}
		if (off + 1 == hlen)
			return false;
		olen = tcp[off + 1];
		if (olen < 2 || off + olen > hlen)
			return false;
		if (kind == TCPOPT_SACK && olen >= 2 + SACK_BLOCK &&
		    (olen - 2) % SACK_BLOCK == 0) {
			for (uint32_t b = off + 2; b < off + olen; b += 4)
				set32(tcp + b, unshift(peer, get32(tcp + b)),
				      sum, partial);
		}
		off += olen;
	}
	return true;
}

bool
ct_seqadj_packet(const struct ct_seqadj *s, int dir, uint8_t *tcp,
		 uint32_t len, bool partial)
{
	struct tcp_header *th = (struct tcp_header *)tcp;
	const struct ct_seqadj_dir *me = &s->dir[dir], *peer = &s->dir[!dir];
	uint32_t seq = ntohl(th->seq), hlen = tcp_hlen(th);
	void *sum = tcp + offsetof(struct tcp_header, csum);

	if (hlen < TCP_HLEN || hlen > len)
		return false;
	set32(tcp + offsetof(struct tcp_header, seq),
	      seq + (ct_seq_after(seq, me->pos) ? me->after : me->before),
	      sum, partial);
	if (!(tcp_flags(th) & TCP_ACK))
		return true;
	set32(tcp + offsetof(struct tcp_header, ack),
	      unshift(peer, ntohl(th->ack)), sum, partial);
	return sack_adjust(peer, tcp, hlen, sum, partial);
}
