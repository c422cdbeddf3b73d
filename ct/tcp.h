/* SPDX-License-Identifier: Apache-2.0 */
/* TCP connection tracking in the manner of nf_conntrack: a state machine
 * per connection driven by the segments' flags in each direction, and
 * sequence/window bounds that mark segments far outside the peers' windows
 * invalid (conditions I-IV of Rooij's "Real Stateful TCP Packet Filtering
 * in IP Filter", as Linux applies them). Connections picked up in the
 * middle (no SYN seen) and established ones are tracked liberally, as the
 * kernel datapath asks of nf_conntrack.
 *
 * The caller holds the connection's lock around ct_tcp_packet(). */
#ifndef TAPDP_CT_TCP_H
#define TAPDP_CT_TCP_H

#include <stdbool.h>
#include <stdint.h>

struct ct_timeout;

enum ct_tcp_state {
	CT_TCP_NONE,
	CT_TCP_SYN_SENT,
	CT_TCP_SYN_RECV,
	CT_TCP_ESTABLISHED,
	CT_TCP_FIN_WAIT,
	CT_TCP_CLOSE_WAIT,
	CT_TCP_LAST_ACK,
	CT_TCP_TIME_WAIT,
	CT_TCP_CLOSE,
	CT_TCP_SYN_SENT2,
	CT_TCP_N_STATES,
};

struct ct_tcp_peer {
	uint32_t end;			/* highest seq + len sent */
	uint32_t maxend;		/* highest right window edge allowed */
	uint32_t maxwin;		/* largest window seen; 0: nothing seen */
	uint8_t scale;
	uint8_t flags;			/* CT_TCP_F_* */
};

#define CT_TCP_F_WSCALE		0x01	/* sent the window scale option */
#define CT_TCP_F_LIBERAL	0x02	/* no window checks */
#define CT_TCP_F_UNACKED	0x04	/* data not acknowledged yet */

struct ct_tcp {
	struct ct_tcp_peer peer[2];	/* by direction: 0 original */
	uint8_t state;			/* enum ct_tcp_state */
};

enum ct_tcp_verdict {
	CT_TCP_ACCEPT,			/* state updated */
	CT_TCP_IGNORE,			/* let through, state kept */
	CT_TCP_INVALID,			/* not part of the connection */
	CT_TCP_REOPEN,			/* a new SYN on a closed connection */
};

/* Sequence numbers compared modulo 2^32: a before (after) b. */
static inline bool
ct_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool
ct_seq_after(uint32_t a, uint32_t b)
{
	return ct_seq_before(b, a);
}

/* Starts tracking from the first segment (tcp: the header, len: the L4
 * length). false when that segment cannot open a connection. */
bool ct_tcp_new(struct ct_tcp *t, const uint8_t *tcp, uint32_t len);

/* A segment in direction dir (0 original, 1 reply). */
enum ct_tcp_verdict ct_tcp_packet(struct ct_tcp *t, int dir,
				  const uint8_t *tcp, uint32_t len);

/* Seconds the connection lives after the last segment, in its state: by
 * its timeout policy tp (NULL: the defaults). */
uint32_t ct_tcp_timeout(const struct ct_tcp *t, const struct ct_timeout *tp);

/* The kernel's name of a state, for dumps ("ESTABLISHED", ...). */
const char *ct_tcp_state_name(uint8_t state);

#endif
