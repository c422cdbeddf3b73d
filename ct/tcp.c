/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "ct/timeout.h"
#include "packet/headers.h"
#include "packet/options.h"

/* Segment classes the transition table is indexed by. */
enum seg { SEG_SYN, SEG_SYNACK, SEG_FIN, SEG_ACK, SEG_RST, SEG_NONE, N_SEG };

/* Table entries besides states: ignore the segment, or it is invalid. */
#define IG	0xfe
#define IV	0xff

enum {
	NO = CT_TCP_NONE, SS = CT_TCP_SYN_SENT, SR = CT_TCP_SYN_RECV,
	ES = CT_TCP_ESTABLISHED, FW = CT_TCP_FIN_WAIT, CW = CT_TCP_CLOSE_WAIT,
	LA = CT_TCP_LAST_ACK, TW = CT_TCP_TIME_WAIT, CL = CT_TCP_CLOSE,
	S2 = CT_TCP_SYN_SENT2,
};

/* next[dir][segment][state]: Linux's transitions (RFC 793 plus
 * simultaneous open, half-open and reopen cases). */
static const uint8_t next[2][N_SEG][CT_TCP_N_STATES] = {
	{	/* original direction */
		/*         NO  SS  SR  ES  FW  CW  LA  TW  CL  S2 */
		[SEG_SYN] = { SS, SS, IG, IG, IG, IG, IG, SS, SS, S2 },
		[SEG_SYNACK] = { IV, IV, SR, IV, IV, IV, IV, IV, IV, SR },
		[SEG_FIN] = { IV, IV, FW, FW, LA, LA, LA, TW, CL, IV },
		[SEG_ACK] = { ES, IV, ES, ES, CW, CW, TW, TW, CL, IV },
		[SEG_RST] = { IV, CL, CL, CL, CL, CL, CL, CL, CL, CL },
		[SEG_NONE] = { IV, IV, IV, IV, IV, IV, IV, IV, IV, IV },
	},
	{	/* reply direction */
		[SEG_SYN] = { IV, S2, IV, IV, IV, IV, IV, SS, IV, S2 },
		[SEG_SYNACK] = { IV, SR, IG, IG, IG, IG, IG, IG, IG, SR },
		[SEG_FIN] = { IV, IV, FW, FW, LA, LA, LA, TW, CL, IV },
		[SEG_ACK] = { IV, IG, SR, ES, CW, CW, TW, TW, CL, IG },
		[SEG_RST] = { IV, CL, CL, CL, CL, CL, CL, CL, CL, CL },
		[SEG_NONE] = { IV, IV, IV, IV, IV, IV, IV, IV, IV, IV },
	},
};


static const char *const names[CT_TCP_N_STATES] = {
	"NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT",
	"CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2",
};

/* Acks may trail the data they acknowledge by at most this much. */
#define MAX_ACK_WINDOW_MIN	66000

static enum seg
classify(uint8_t f)
{
	if (f & TCP_RST)
		return SEG_RST;
	if (f & TCP_SYN)
		return f & TCP_ACK ? SEG_SYNACK : SEG_SYN;
	if (f & TCP_FIN)
		return SEG_FIN;
	return f & TCP_ACK ? SEG_ACK : SEG_NONE;
}

/* Sequence space the segment ends at: data, plus one for SYN and FIN. */
static uint32_t
seg_end(const struct tcp_header *th, uint32_t len)
{
	return ntohl(th->seq) + (len - tcp_hlen(th)) +
	       !!(tcp_flags(th) & TCP_SYN) + !!(tcp_flags(th) & TCP_FIN);
}

/* Window scale of a SYN's options, if any. */
static void
parse_options(struct ct_tcp_peer *p, const struct tcp_header *th)
{
	const struct ip_option *o;
	size_t at = TCP_HLEN;

	p->scale = 0;
	p->flags &= ~CT_TCP_F_WSCALE;
	while ((o = option_next(th, tcp_hlen(th), &at))) {
		if (o->kind == TCP_OPT_WSCALE && o->len == TCP_OPT_WSCALE_LEN) {
			p->scale = o->data[0] > 14 ? 14 : o->data[0];
			p->flags |= CT_TCP_F_WSCALE;
		}
		at += o->len;
	}
}

static void
init_sender(struct ct_tcp *t, int dir, const struct tcp_header *th,
	    uint32_t end, uint32_t win)
{
	struct ct_tcp_peer *s = &t->peer[dir], *r = &t->peer[!dir];

	s->end = s->maxend = end;
	s->maxwin = win ? win : 1;
	parse_options(s, th);
	/* Scaling holds only if both sides offered it. */
	if (dir == 1 && !(s->flags & r->flags & CT_TCP_F_WSCALE))
		s->scale = r->scale = 0;
}

bool
ct_tcp_new(struct ct_tcp *t, const uint8_t *tcp, uint32_t len)
{
	const struct tcp_header *th = (const struct tcp_header *)tcp;
	uint8_t st = next[0][classify(tcp_flags(th))][CT_TCP_NONE];
	uint16_t win = ntohs(th->window);

	memset(t, 0, sizeof(*t));

	if (st == SS) {
		init_sender(t, 0, th, seg_end(th, len), win);
		return true;
	}
	if (st == ES) {
		/* Picked up mid-stream: nothing is known of the windows. */
		struct ct_tcp_peer *s = &t->peer[0];

		s->end = seg_end(th, len);
		s->maxwin = win ? win : 1;
		s->maxend = s->end + s->maxwin;
		t->peer[0].flags = t->peer[1].flags = CT_TCP_F_LIBERAL;
		return true;
	}
	return false;
}

/* Conditions I-IV on the segment; updates the peers when it passes. */
static enum ct_tcp_verdict
in_window(struct ct_tcp *t, int dir, const struct tcp_header *th,
	  uint32_t len)
{
	struct ct_tcp_peer *s = &t->peer[dir], *r = &t->peer[!dir];
	bool liberal = s->flags & CT_TCP_F_LIBERAL;
	uint8_t f = tcp_flags(th);
	uint32_t seq = ntohl(th->seq), ack = ntohl(th->ack);
	uint32_t end = seg_end(th, len), win = ntohs(th->window), maxack;

	if (!s->maxwin) {
		if (f & TCP_SYN) {
			init_sender(t, dir, th, end, win);
			if (!(f & TCP_ACK))
				return CT_TCP_ACCEPT;
		} else {
			/* First segment of this side: a pickup. */
			s->end = end;
			s->maxwin = (win << s->scale) ? win << s->scale : 1;
			s->maxend = end + s->maxwin;
			if (!r->maxwin)
				r->end = r->maxend = ack;
			else if (ack == r->end + 1)
				r->end++;
		}
	} else if ((f & TCP_SYN) && ct_seq_after(end, s->end) &&
		   (t->state == SS || t->state == SR)) {
		/* A retransmitted SYN with a new sequence number. */
		init_sender(t, dir, th, end, win);
		if (dir == 1 && !(f & TCP_ACK))
			return CT_TCP_ACCEPT;
	}
	if (!(f & TCP_ACK) || ((f & TCP_RST) && !ack))
		ack = r->end;
	if ((f & TCP_RST) && !seq && t->state == SS)
		seq = end = s->end;

	maxack = s->maxwin > MAX_ACK_WINDOW_MIN ? s->maxwin
						  : MAX_ACK_WINDOW_MIN;
	if (!liberal) {
		if (!ct_seq_before(seq, s->maxend + 1))	/* I */
			return CT_TCP_INVALID;
		if (!ct_seq_before(ack, r->end + 1))		/* III */
			return CT_TCP_INVALID;
		if (r->maxwin && !ct_seq_after(end, s->end - r->maxwin - 1))	/* II */
			return CT_TCP_IGNORE;
		if (!ct_seq_after(ack, r->end - maxack - 1))	/* IV */
			return CT_TCP_IGNORE;
	}
	if (!(f & TCP_SYN))
		win <<= s->scale;
	if (s->maxwin < win)
		s->maxwin = win;
	if (ct_seq_after(end, s->end)) {
		s->end = end;
		s->flags |= CT_TCP_F_UNACKED;
	}
	if (r->maxwin && ct_seq_after(end, s->maxend))
		r->maxwin += end - s->maxend;
	if (ct_seq_after(ack + win, r->maxend - 1))
		r->maxend = ack + win + !win;
	if (ack == r->end)
		r->flags &= ~CT_TCP_F_UNACKED;
	return CT_TCP_ACCEPT;
}

enum ct_tcp_verdict
ct_tcp_packet(struct ct_tcp *t, int dir, const uint8_t *tcp, uint32_t len)
{
	const struct tcp_header *th = (const struct tcp_header *)tcp;
	enum seg seg = classify(tcp_flags(th));
	uint8_t old = t->state, st = next[dir][seg][old];
	enum ct_tcp_verdict v;

	if (dir == 0 && seg == SEG_SYN && (old == TW || old == CL) &&
	    t->peer[0].maxwin)
		return CT_TCP_REOPEN;
	if (st == IV)
		return CT_TCP_INVALID;
	if (st == IG)
		return CT_TCP_IGNORE;
	v = in_window(t, dir, th, len);
	if (v != CT_TCP_ACCEPT)
		return v;
	t->state = st;
	return CT_TCP_ACCEPT;
}

uint32_t
ct_tcp_timeout(const struct ct_tcp *t, const struct ct_timeout *tp)
{
	/* A policy's TCP attributes are the states. */
	uint32_t to = ct_timeout_value(tp, IPPROTO_TCP, t->state);
	uint32_t unacked = ct_timeout_value(tp, IPPROTO_TCP,
					    CTA_TIMEOUT_TCP_UNACK);

	if (((t->peer[0].flags | t->peer[1].flags) & CT_TCP_F_UNACKED) &&
	    to > unacked)
		to = unacked;
	return to;
}

const char *
ct_tcp_state_name(uint8_t state)
{
	return state < CT_TCP_N_STATES ? names[state] : "NONE";
}
