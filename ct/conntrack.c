/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "ct/conntrack.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/openvswitch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/lfht-fit.h"
#include "ct/conn.h"
#include "ct/expect.h"
#include "flow/extract.h"
#include "ct/frag.h"
#include "ct/helper.h"
#include "ct/nat-helper.h"
#include "ct/nat.h"
#include "ct/timeout.h"
#include "packet/headers.h"

#define HT_MIN_BUCKETS	1024
#define N_ZONES		65536
#define SWEEP_MS	1000

/* How the packet relates to its connection (the kernel's ctinfo, with the
 * direction kept apart). */
enum ct_info { INFO_NEW, INFO_EST, INFO_REL };

struct conntrack {
	struct cds_lfht *ht;
	uint32_t basis;
	uint32_t max_conns;
	uint32_t n_conns;		/* atomic */
	uint32_t next_id;		/* atomic */
	uint32_t *zone_count;		/* [N_ZONES], atomic */
	uint32_t *zone_limit;		/* [N_ZONES] */
	uint8_t *zone_limited;		/* [N_ZONES]: has its own limit */
	uint32_t default_limit;
	uint64_t n_invalid, n_refused, n_expired;	/* atomic */
	struct frag_table *frags;

	struct expect_table expects;	/* the helpers' */
	struct nat_table nat;		/* what NAT asks of ht */
	struct ct_timeout_table timeouts;
	struct conntrack_events events;	/* set before any packet */

	pthread_t sweeper;
	unsigned long buckets;		/* the sweeper's lfht_fit */
	pthread_mutex_t lock;		/* guards stop */
	pthread_cond_t cond;
	bool stop;
};

#define EXPECT_TIMEOUT	(5 * 60 * 1000)	/* ftp's and tftp's, ms */

/* What one ct action found for its packet. */
struct track {
	struct ct_packet p;
	enum ct_parse_result res;
	struct conn *c;			/* NULL: invalid */
	int dir;
	enum ct_info info;
	struct conn tmp;		/* a new connection not committed yet */
	bool tmp_live;			/* tmp's lock is initialized */
	struct ct_tuple master;		/* tmp's master, if expected */
	uint64_t now;			/* ms */
};

static void
count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static uint32_t
status_of(const struct conn *c)
{
	return __atomic_load_n(&c->status, __ATOMIC_ACQUIRE);
}

static void
status_set(struct conn *c, uint32_t bits)
{
	__atomic_fetch_or(&c->status, bits, __ATOMIC_RELEASE);
}

/* Sets bits of c's status; whether one was not set before. */
static bool
status_test_set(struct conn *c, uint32_t bits)
{
	return ~__atomic_fetch_or(&c->status, bits, __ATOMIC_RELEASE) & bits;
}

/* Takes c out of its zone's count, once. nf_conncount keeps only the
 * connections committed under a limit and forgets a TCP one once it is
 * closing (TIME_WAIT, CLOSE) or gone. */
static void
uncount(struct conntrack *ct, struct conn *c)
{
	if (__atomic_fetch_and(&c->status, ~CT_S_COUNTED, __ATOMIC_RELAXED) &
	    CT_S_COUNTED)
		__atomic_fetch_sub(&ct->zone_count[c->tuple[0].zone], 1,
				   __ATOMIC_RELAXED);
}

/* uncount() for a TCP connection that a packet or ctnetlink closed. */
static void
uncount_closed(struct conntrack *ct, struct conn *c)
{
	uint8_t state = __atomic_load_n(&c->tcp.state, __ATOMIC_RELAXED);

	if (c->tuple[0].proto == IPPROTO_TCP &&
	    (state == CT_TCP_TIME_WAIT || state == CT_TCP_CLOSE))
		uncount(ct, c);
}

/* Notes event (IPCT_*) for c's next delivery (the kernel's
 * nf_conntrack_event_cache). */
static void
event_cache(struct conn *c, int event)
{
	__atomic_fetch_or(&c->events, 1u << event, __ATOMIC_RELAXED);
}

static bool
confirmed(const struct conn *c)
{
	return status_of(c) & CT_S_CONFIRMED;
}

static bool
expired(const struct conn *c, uint64_t now)
{
	return __atomic_load_n(&c->expires, __ATOMIC_RELAXED) < now;
}

static int
match(struct cds_lfht_node *n, const void *key)
{
	const struct conn_node *cn = caa_container_of(n, struct conn_node, lfht);

	return ct_tuple_equal(&cn->conn->tuple[cn->dir], key);
}

static struct conn_node *
find(struct conntrack *ct, const struct ct_tuple *t)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *n;

	cds_lfht_lookup(ct->ht, ct_tuple_hash(t, ct->basis), match, t, &it);
	n = cds_lfht_iter_get_node(&it);
	return n ? caa_container_of(n, struct conn_node, lfht) : NULL;
}

/* The node under it, or NULL at the end (liburcu's for_each_entry macro
 * offsets a NULL pointer at the end, which UBSan rightly reports). */
static struct conn_node *
iter_node(struct cds_lfht_iter *it)
{
	struct cds_lfht_node *n = cds_lfht_iter_get_node(it);

	return n ? caa_container_of(n, struct conn_node, lfht) : NULL;
}

#define for_each_node(CT, IT, N)					\
	for (cds_lfht_first((CT)->ht, IT); ((N) = iter_node(IT));	\
	     cds_lfht_next((CT)->ht, IT))

static bool
tuple_taken(const struct nat_table *nat, const struct ct_tuple *t)
{
	return find(caa_container_of(nat, struct conntrack, nat), t) != NULL;
}

static void
conn_free_rcu(struct rcu_head *h)
{
	struct conn *c = caa_container_of(h, struct conn, rcu);

	pthread_spin_destroy(&c->lock);
	ct_timeout_put(c->tp);
	free(c->master);
	free(c->help);
	free(c);
}

/* The helper's part of the packet, in the connection's lock. */
static int
helper_locked(struct conntrack *ct, struct track *tr,
	      struct nat_tcp_packet *tp)
{
	struct conn *c = tr->c;
	uint8_t *l3 = tp->pkt->data + tp->l3off;
	struct ct_helper_found f;
	struct ct_expect e = {
		.master = c->master ? *c->master : c->tuple[CT_DIR_ORIG],
		.master_id = c->id,
		.helper = c->helper,
		.mark = c->mark,
		.has_labels = status_of(c) & CT_S_LABELS,
		.expires = tr->now + EXPECT_TIMEOUT,
	};

	switch (ct_helper_run(c->helper, c->tuple, tr->dir,
			      tr->info == INFO_EST, l3, &tr->p,
			      &c->help->ftp, &f)) {
	case CT_HELPER_PASS:
		break;
	case CT_HELPER_DROP:
		return -EINVAL;
	case CT_HELPER_EXPECT: {
		int err;

		memcpy(e.labels, c->labels, 16);
		e.t = f.expect;
		if (!(status_of(c) & CT_S_NAT_MASK))
			err = expect_add(&ct->expects, &e, tr->now, 0);
		else if (c->helper == CT_HELPER_FTP)
			err = nat_ftp(&ct->expects, c, tr->dir, &e, &f, tp,
				      &c->help->seqadj, tr->now);
		else
			err = nat_tftp(&ct->expects, c, &e, tr->now);
		if (err)
			return err;
		break;
	}
	}
	/* What NAT made longer or shorter shifts the sequence numbers. */
	if (c->help->seqadj.on &&
	    !ct_seqadj_packet(&c->help->seqadj, tr->dir, l3 + tr->p.l4_off,
			      tr->p.l4_len, tp->partial))
		return -EINVAL;
	return 0;
}

/* helper_run()'s part for a connection that has a helper. */
static __attribute__((noinline)) int
helper_run_locked(struct conntrack *ct, struct track *tr, struct packet *pkt,
		  uint32_t l3off, bool partial)
{
	struct nat_tcp_packet tp = {
		.pkt = pkt, .l3off = l3off, .p = &tr->p, .partial = partial,
	};
	int err;

	pthread_spin_lock(&tr->c->lock);
	err = helper_locked(ct, tr, &tp);
	pthread_spin_unlock(&tr->c->lock);
	return err;
}

/* nf_ct_helper(): runs committed connection c's helper on its packet,
 * after NAT: what it announces is expected, with c's mark, labels and
 * mapping to inherit; then sequence numbers are adjusted. 0, or a
 * negative errno when the packet must be dropped. Inline: most
 * connections have no helper, and a call only to learn that was 4% of
 * a tracked packet's time. */
static inline int
helper_run(struct conntrack *ct, struct track *tr, struct packet *pkt,
	   uint32_t l3off, bool partial)
{
	const struct conn *c = tr->c;

	if (!c->helper || !c->help || tr->res != CT_PARSE_OK)
		return 0;
	return helper_run_locked(ct, tr, pkt, l3off, partial);
}

static void event_deliver(struct conntrack *ct, struct conn *c,
			  uint32_t events, uint32_t portid);
static void event_flush(struct conntrack *ct, struct conn *c);

/* Unlinks a committed connection, on behalf of portid (0: none); the
 * thread that unlinks its original node owns the rest of the deletion. */
static bool
conn_delete(struct conntrack *ct, struct conn *c, uint32_t portid)
{
	if (cds_lfht_del(ct->ht, &c->node[CT_DIR_ORIG].lfht))
		return false;
	cds_lfht_del(ct->ht, &c->node[CT_DIR_REPLY].lfht);
	event_deliver(ct, c, 1u << IPCT_DESTROY, portid);
	if (c->helper)
		expect_forget(&ct->expects, c->id, 0);
	uncount(ct, c);
	__atomic_fetch_sub(&ct->n_conns, 1, __ATOMIC_RELAXED);
	call_rcu(&c->rcu, conn_free_rcu);
	return true;
}

/* The live connection with tuple t, and the direction t is. */
static struct conn *
lookup(struct conntrack *ct, const struct ct_tuple *t, int *dir, uint64_t now)
{
	struct conn_node *n = find(ct, t);

	if (!n)
		return NULL;
	if (expired(n->conn, now)) {
		if (conn_delete(ct, n->conn, 0))
			count(&ct->n_expired);
		return NULL;
	}
	*dir = n->dir;
	return n->conn;
}

static bool
icmp_valid_new(const struct ct_tuple *t)
{
	if (t->family == AF_INET)
		return t->icmp_type == 8 || t->icmp_type == 13 ||
		       t->icmp_type == 15 || t->icmp_type == 17;
	return t->icmp_type == 128 || t->icmp_type == 139;
}

/* Updates a connection's protocol state for a packet in dir; false when
 * the packet is not part of it. reopen: a new SYN on a closed one. */
static bool
proto_packet(struct conn *c, int dir, const uint8_t *l3,
	     const struct ct_packet *p, bool *reopen, uint64_t now)
{
	const struct ct_tuple *t = &c->tuple[0];
	uint32_t to;

	if (dir == CT_DIR_REPLY && !(status_of(c) & CT_S_SEEN_REPLY) &&
	    status_test_set(c, CT_S_SEEN_REPLY))
		event_cache(c, IPCT_REPLY);
	switch (t->proto) {
	case IPPROTO_TCP: {
		enum ct_tcp_verdict v;
		uint8_t old;

		pthread_spin_lock(&c->lock);
		old = c->tcp.state;
		v = ct_tcp_packet(&c->tcp, dir, l3 + p->l4_off, p->l4_len);
		if (v == CT_TCP_ACCEPT && c->tcp.state != old)
			event_cache(c, IPCT_PROTOINFO);
		if (v == CT_TCP_ACCEPT && c->tcp.state == CT_TCP_ESTABLISHED) {
			if ((old == CT_TCP_SYN_RECV ||
			     old == CT_TCP_ESTABLISHED) &&
			    status_test_set(c, CT_S_ASSURED))
				event_cache(c, IPCT_ASSURED);
			/* The datapath asks for liberal tracking once a
			 * connection is established. */
			if (confirmed(c)) {
				c->tcp.peer[0].flags |= CT_TCP_F_LIBERAL;
				c->tcp.peer[1].flags |= CT_TCP_F_LIBERAL;
			}
		}
		to = ct_tcp_timeout(&c->tcp, c->tp);
		pthread_spin_unlock(&c->lock);
		if (v == CT_TCP_REOPEN) {
			*reopen = true;
			return false;
		}
		if (v == CT_TCP_INVALID)
			return false;
		if (v == CT_TCP_IGNORE)
			return true;
		break;
	}
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		if (status_of(c) & CT_S_SEEN_REPLY) {
			to = ct_timeout_value(c->tp, t->proto,
					      CTA_TIMEOUT_UDP_REPLIED);
			if (dir == CT_DIR_ORIG &&
			    status_test_set(c, CT_S_ASSURED))
				event_cache(c, IPCT_ASSURED);
		} else {
			to = ct_timeout_value(c->tp, t->proto,
					      CTA_TIMEOUT_UDP_UNREPLIED);
		}
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		to = ct_timeout_value(c->tp, t->proto,
				      CTA_TIMEOUT_ICMP_TIMEOUT);
		break;
	default:
		to = ct_timeout_value(c->tp, t->proto,
				      CTA_TIMEOUT_GENERIC_TIMEOUT);
		break;
	}
	__atomic_store_n(&c->expires, now + to * 1000ull, __ATOMIC_RELAXED);
	return true;
}

/* A connection that would start with this packet, in tr->tmp, with the
 * timeout policy the action names (nf_ct_set_timeout). */
static bool
conn_new(struct conntrack *ct, struct track *tr, const uint8_t *l3,
	 const struct ct_action *a)
{
	struct conn *c = &tr->tmp;
	const struct ct_tuple *t = &tr->p.tuple;
	struct ct_expect e;
	bool reopen;

	memset(c, 0, sizeof(*c));
	if (expect_find(&ct->expects, t, tr->now, false, &e)) {
		/* Related: it inherits its master's mark and labels. */
		tr->master = e.master;
		c->master = &tr->master;
		c->status = CT_S_EXPECTED | (e.has_labels ? CT_S_LABELS : 0);
		c->mark = e.mark;
		memcpy(c->labels, e.labels, 16);
	}
	c->tuple[CT_DIR_ORIG] = *t;
	c->ctmask = 0xffff;	/* every event, without an eventmask */
	if (a->timeout[0])
		c->tp = ct_timeout_find(&ct->timeouts, a->timeout, t->family,
					t->proto);
	if (!ct_tuple_invert(t, &c->tuple[CT_DIR_REPLY]))
		return false;
	if (t->proto == ct_icmp_proto(t->family) && !icmp_valid_new(t))
		return false;
	if (t->proto == IPPROTO_TCP &&
	    !ct_tcp_new(&c->tcp, l3 + tr->p.l4_off, tr->p.l4_len))
		return false;
	if (c->master)
		nat_follow_master(&ct->nat, c, &e);
	pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	tr->tmp_live = true;
	return proto_packet(c, CT_DIR_ORIG, l3, &tr->p, &reopen, tr->now);
}

/* How a packet in dir relates to committed connection c (the kernel's
 * ctinfo). */
static enum ct_info
info_of(const struct conn *c, int dir)
{
	uint32_t st = status_of(c);

	if (dir == CT_DIR_REPLY || (st & CT_S_SEEN_REPLY))
		return INFO_EST;
	return st & CT_S_EXPECTED ? INFO_REL : INFO_NEW;
}

/* nf_conntrack_in(): finds or starts the packet's connection. */
static void
track_packet(struct conntrack *ct, struct track *tr, const uint8_t *l3,
	     const struct ct_action *a)
{
	struct ct_tuple inv;
	bool reopen = false;
	struct conn *c;

	tr->c = NULL;
	if (tr->res == CT_PARSE_INVALID)
		goto invalid;
	if (tr->res == CT_PARSE_ICMP_ERROR) {
		/* Related to the connection whose packet it quotes. */
		if (!ct_tuple_invert(&tr->p.tuple, &inv))
			goto invalid;
		tr->c = lookup(ct, &inv, &tr->dir, tr->now);
		if (!tr->c)
			goto invalid;
		tr->info = INFO_REL;
		return;
	}
	c = lookup(ct, &tr->p.tuple, &tr->dir, tr->now);
	if (c) {
		if (proto_packet(c, tr->dir, l3, &tr->p, &reopen, tr->now)) {
			uncount_closed(ct, c);
			tr->c = c;
			tr->info = info_of(c, tr->dir);
			return;
		}
		if (!reopen)
			goto invalid;
		conn_delete(ct, c, 0);
	}
	if (conn_new(ct, tr, l3, a)) {
		tr->c = &tr->tmp;
		tr->dir = CT_DIR_ORIG;
		tr->info = tr->tmp.master ? INFO_REL : INFO_NEW;
		return;
	}
invalid:
	count(&ct->n_invalid);
}

static bool
is_nd(const struct flow_key *key)
{
	return key->ip_proto == IPPROTO_ICMPV6 && !key->tp_dst &&
	       (key->tp_src == htons(135) || key->tp_src == htons(136));
}

/* The key's ct_* fields after tracking (the kernel's
 * ovs_ct_update_key(), NAT flags kept). */
static void
update_key(struct flow_key *key, const struct track *tr, uint16_t zone)
{
	const struct conn *c = tr->c;
	const struct ct_tuple *o;
	uint8_t state = key->ct_state & OVS_CS_F_NAT_MASK;

	flow_key_clear_ct(key);
	key->ct_zone = zone;
	if (!c) {
		key->ct_state = OVS_CS_F_TRACKED | OVS_CS_F_INVALID;
		return;
	}
	state |= OVS_CS_F_TRACKED;
	if (tr->dir == CT_DIR_REPLY && tr->info != INFO_NEW)
		state |= OVS_CS_F_REPLY_DIR;
	state |= tr->info == INFO_EST ? OVS_CS_F_ESTABLISHED
		 : tr->info == INFO_REL ? OVS_CS_F_RELATED
					: OVS_CS_F_NEW;
	if (!confirmed(c))
		state |= OVS_CS_F_NEW;
	/* Related for as long as the connection lives. */
	if (c->master)
		state |= OVS_CS_F_RELATED;
	key->ct_state = state;
	key->ct_mark = c->mark;
	memcpy(key->ct_labels, c->labels, 16);
	o = c->master ? c->master : &c->tuple[CT_DIR_ORIG];
	if (key->eth_type == htons(ETH_P_IP) && o->family == AF_INET) {
		key->ct_orig_ipv4_src = o->src.ip;
		key->ct_orig_ipv4_dst = o->dst.ip;
	} else if (key->eth_type == htons(ETH_P_IPV6) &&
		   o->family == AF_INET6 && !is_nd(key)) {
		key->ct_orig_ipv6_src = o->src.ip6;
		key->ct_orig_ipv6_dst = o->dst.ip6;
	} else {
		return;
	}
	key->ct_orig_proto = o->proto;
	if (o->proto == ct_icmp_proto(o->family)) {
		key->ct_orig_tp_src = htons(o->icmp_type);
		key->ct_orig_tp_dst = htons(o->icmp_code);
	} else {
		key->ct_orig_tp_src = o->sport;
		key->ct_orig_tp_dst = o->dport;
	}
}

/* The key's addresses and ports after NAT rewrote side manip. */
static void
nat_update_key(struct flow_key *key, const uint8_t *l3,
	       const struct ct_packet *p, enum ct_manip manip)
{
	bool src = manip == CT_MANIP_SRC;
	const struct ipv4_header *ip = (const struct ipv4_header *)l3;
	const struct ipv6_header *ip6 = (const struct ipv6_header *)l3;
	const struct l4_ports *ports =
		(const struct l4_ports *)(l3 + p->l4_off);

	key->ct_state |= src ? OVS_CS_F_SRC_NAT : OVS_CS_F_DST_NAT;
	if (key->eth_type == htons(ETH_P_IP)) {
		if (src)
			key->ipv4_src = ip->saddr;
		else
			key->ipv4_dst = ip->daddr;
	} else {
		memcpy(src ? &key->ipv6_src : &key->ipv6_dst,
		       src ? ip6->saddr : ip6->daddr, sizeof(key->ipv6_src));
	}
	if (key->ip_proto == IPPROTO_TCP || key->ip_proto == IPPROTO_UDP ||
	    key->ip_proto == IPPROTO_SCTP) {
		if (src)
			key->tp_src = ports->src;
		else
			key->tp_dst = ports->dst;
	}
}

/* One mapping step of nf_ct_nat(); false: drop. */
static bool
nat_step(struct conntrack *ct, struct track *tr, uint8_t *l3, bool partial,
	 const struct ct_nat_range *range, enum ct_manip manip,
	 uint32_t *done)
{
	struct conn *c = tr->c;
	uint32_t init = manip == CT_MANIP_SRC ? CT_S_SRC_NAT_DONE
					      : CT_S_DST_NAT_DONE;

	switch (tr->info) {
	case INFO_REL:
		if (tr->res == CT_PARSE_ICMP_ERROR) {
			nat_icmp_error(c, tr->dir, manip, l3, &tr->p, partial);
			break;
		}
		/* fall through */
	case INFO_NEW:
		if (!(status_of(c) & init) && !confirmed(c)) {
			if (!nat_setup(&ct->nat, c,
				       range && (range->flags &
						 CT_RANGE_MAP_IPS)
					       ? range
					       : NULL,
				       manip))
				return false;
		}
		/* fall through */
	case INFO_EST:
		nat_packet(c, tr->dir, manip, l3, &tr->p, partial);
		break;
	}
	*done |= 1u << manip;
	return true;
}

static bool
do_nat(struct conntrack *ct, struct track *tr, const struct ct_action *a,
       uint8_t *l3, bool partial, struct flow_key *key)
{
	struct conn *c = tr->c;
	uint32_t st = status_of(c), done = 0;
	enum ct_manip m;

	if (tr->info != INFO_NEW && (st & CT_S_NAT_MASK) &&
	    (tr->info != INFO_REL || tr->dir == CT_DIR_REPLY || a->commit)) {
		/* Translate as the connection was translated. */
		if (tr->dir == CT_DIR_REPLY)
			m = st & CT_S_SRC_NAT ? CT_MANIP_DST : CT_MANIP_SRC;
		else
			m = st & CT_S_SRC_NAT ? CT_MANIP_SRC : CT_MANIP_DST;
	} else if (a->nat & CT_ACTION_SNAT) {
		m = CT_MANIP_SRC;
	} else if (a->nat & CT_ACTION_DNAT) {
		m = CT_MANIP_DST;
	} else {
		return true;
	}
	if (!nat_step(ct, tr, l3, partial, &a->range, m, &done))
		return false;
	st = status_of(c);
	if (st & CT_S_DST_NAT) {
		bool ok = true;

		if (st & CT_S_SRC_NAT)
			ok = nat_step(ct, tr, l3, partial, &a->range,
				      m == CT_MANIP_SRC ? CT_MANIP_DST
							: CT_MANIP_SRC,
				      &done);
		else if (tr->dir == CT_DIR_ORIG)
			ok = nat_step(ct, tr, l3, partial, NULL, CT_MANIP_SRC,
				      &done);
		if (!ok)
			return false;
	}
	if (done & (1u << CT_MANIP_SRC))
		nat_update_key(key, l3, &tr->p, CT_MANIP_SRC);
	if (done & (1u << CT_MANIP_DST))
		nat_update_key(key, l3, &tr->p, CT_MANIP_DST);
	return true;
}

static void
apply_labels(struct conn *c, const struct ct_action *a)
{
	for (int i = 0; i < 16; i++)
		c->labels[i] = (c->labels[i] & ~a->labels_mask[i]) |
			       (a->labels[i] & a->labels_mask[i]);
}

/* Puts new connection c in the table, both directions, or none: 0;
 * -EEXIST when its original tuple is taken (by *other); -EAGAIN when its
 * reply tuple is, once c was seen (it is freed after a grace period). */
static int
insert_nodes(struct conntrack *ct, struct conn *c, struct conn_node **other)
{
	struct cds_lfht_node *n;

	for (int d = 0; d < 2; d++) {
		cds_lfht_node_init(&c->node[d].lfht);
		c->node[d].conn = c;
		c->node[d].dir = d;
	}
	n = cds_lfht_add_unique(ct->ht, ct_tuple_hash(&c->tuple[0], ct->basis),
				match, &c->tuple[0], &c->node[0].lfht);
	if (n != &c->node[0].lfht) {
		*other = caa_container_of(n, struct conn_node, lfht);
		return -EEXIST;
	}
	n = cds_lfht_add_unique(ct->ht, ct_tuple_hash(&c->tuple[1], ct->basis),
				match, &c->tuple[1], &c->node[1].lfht);
	if (n != &c->node[1].lfht) {
		cds_lfht_del(ct->ht, &c->node[0].lfht);
		return -EAGAIN;
	}
	return 0;
}

/* Puts the new connection of tr into the table; NULL: refused. */
static struct conn *
confirm(struct conntrack *ct, struct track *tr, int *err)
{
	uint16_t zone = tr->tmp.tuple[0].zone;
	uint32_t limit = conntrack_limit_get(ct, zone);
	struct conn_node *other;
	struct conn *c;

	/* Only a zone with a limit counts (ovs_ct_check_limit). */
	if ((limit && __atomic_load_n(&ct->zone_count[zone],
				      __ATOMIC_RELAXED) >= limit) ||
	    __atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED) >= ct->max_conns) {
		count(&ct->n_refused);
		*err = -ENOMEM;
		return NULL;
	}
	c = malloc(sizeof(*c));
	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	*c = tr->tmp;
	c->master = NULL;
	if (tr->tmp.master) {
		c->master = malloc(sizeof(*c->master));
		if (c->master)
			*c->master = tr->master;
	}
	if (c->helper)
		c->help = calloc(1, sizeof(*c->help));
	if ((tr->tmp.master && !c->master) || (c->helper && !c->help)) {
		free(c->master);
		free(c);
		*err = -ENOMEM;
		return NULL;
	}
	pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	if (c->tp)
		ct_timeout_hold(c->tp);
	c->status |= CT_S_CONFIRMED | (limit ? CT_S_COUNTED : 0);
	c->id = __atomic_add_fetch(&ct->next_id, 1, __ATOMIC_RELAXED);
	switch (insert_nodes(ct, c, &other)) {
	case -EEXIST:
		/* Another thread committed it first: join that one. */
		pthread_spin_destroy(&c->lock);
		ct_timeout_put(c->tp);
		free(c->master);
		free(c->help);
		free(c);
		tr->dir = other->dir;
		return other->conn;
	case -EAGAIN:
		/* Its reply tuple is another's: nf_conntrack drops it. */
		call_rcu(&c->rcu, conn_free_rcu);
		count(&ct->n_refused);
		*err = -EINVAL;
		return NULL;
	}
	if (limit)
		__atomic_fetch_add(&ct->zone_count[zone], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ct->n_conns, 1, __ATOMIC_RELAXED);
	event_cache(c, c->master ? IPCT_RELATED : IPCT_NEW);
	if (c->master) {
		struct ct_expect e;

		/* The expectation is met: it goes. */
		expect_find(&ct->expects, &c->tuple[0], tr->now, true, &e);
	}
	return c;
}

/* ovs_ct_commit() past the lookup: limits, mark, labels, confirmation. */
static int
commit(struct conntrack *ct, struct track *tr, const struct ct_action *a,
       struct flow_key *key, struct packet *pkt, uint32_t l3off,
       bool partial)
{
	struct conn *c = tr->c;
	uint8_t labels[16];
	int err = 0;

	if (a->mark_mask) {
		uint32_t mark = a->mark | (c->mark & ~a->mark_mask);

		if (mark != c->mark && confirmed(c))
			event_cache(c, IPCT_MARK);
		c->mark = mark;
		key->ct_mark = c->mark;
	}
	if (a->set_labels) {
		pthread_spin_lock(&c->lock);
		memcpy(labels, c->labels, 16);
		apply_labels(c, a);
		memcpy(key->ct_labels, c->labels, 16);
		pthread_spin_unlock(&c->lock);
		status_set(c, CT_S_LABELS);
		if (!confirmed(c) || memcmp(labels, key->ct_labels, 16))
			event_cache(c, IPCT_LABEL);
	}
	/* Kept until a later commit gives another. */
	if (a->have_eventmask)
		c->ctmask = a->eventmask;
	if (confirmed(c))
		return 0;
	/* A helper joins a connection when it is committed. */
	if (a->helper && !c->helper)
		c->helper = a->helper;
	c = confirm(ct, tr, &err);
	if (!c)
		return err;
	tr->c = c;
	return helper_run(ct, tr, pkt, l3off, partial);
}

/* The committed connection a packet already tracked in this zone belongs
 * to (the kernel keeps it with the skb; we look it up again). */
static struct conn *
find_existing(struct conntrack *ct, struct track *tr,
	      const struct flow_key *key)
{
	struct ct_tuple t = tr->p.tuple;
	struct conn *c;

	if (tr->res != CT_PARSE_OK)
		return NULL;
	/* Translated already: its tuple is the inverse of one we keep. */
	if ((key->ct_state & OVS_CS_F_NAT_MASK) &&
	    !ct_tuple_invert(&tr->p.tuple, &t))
		return NULL;
	c = lookup(ct, &t, &tr->dir, tr->now);
	if (c && (key->ct_state & OVS_CS_F_NAT_MASK))
		tr->dir = !tr->dir;
	if (c)
		tr->info = info_of(c, tr->dir);
	return c;
}

/* The ct action on a parsed packet; 0 or a negative errno. */
static int
execute(struct conntrack *ct, struct track *tr, struct flow_key *key,
	const struct ct_action *a, struct packet *pkt, uint32_t l3off,
	bool partial)
{
	/* Tracked in this zone before (recirculated): no second pass
	 * through the state machine. */
	bool executed = (key->ct_state & OVS_CS_F_TRACKED) &&
			!(key->ct_state & OVS_CS_F_INVALID) &&
			key->ct_zone == a->zone;
	uint8_t *l3 = pkt->data + l3off;
	bool cached;
	int err;

	if (executed || (!key->ct_state && a->force))
		tr->c = find_existing(ct, tr, key);
	if (tr->c && a->force && tr->dir == CT_DIR_REPLY) {
		/* force_commit: the connection restarts in this packet's
		 * direction. */
		conn_delete(ct, tr->c, 0);
		tr->c = NULL;
	}
	cached = executed && tr->c;
	if (!cached) {
		track_packet(ct, tr, l3, a);
		key->ct_state = 0;
		update_key(key, tr, a->zone);
	}
	if (!tr->c)
		return 0;
	if (a->nat && !(key->ct_state & OVS_CS_F_NAT_MASK) &&
	    (confirmed(tr->c) || a->commit) &&
	    !do_nat(ct, tr, a, l3, partial, key))
		return -EINVAL;
	/* The helper of a committed connection reads the packet once per
	 * zone, after NAT; a new connection's, when it is committed. */
	if (confirmed(tr->c) && !cached) {
		err = helper_run(ct, tr, pkt, l3off, partial);
		if (err)
			return err;
	}
	return a->commit ? commit(ct, tr, a, key, pkt, l3off, partial) : 0;
}

/* Fragments wait for their datagram, which conntrack then sees whole (the
 * kernel's ovs_ct_handle_fragments()). 0: pkt and key are the datagram's. */
static int
defrag(struct conntrack *ct, struct packet *pkt, struct flow_key *key,
       const struct ct_action *a, uint64_t now)
{
	switch (frag_gather(ct->frags, pkt, pkt->layers.l3, a->family,
			    a->zone, now)) {
	case FRAG_QUEUED:
		return -EINPROGRESS;
	case FRAG_DROP:
		return -EINVAL;
	case FRAG_DONE:
		break;
	}
	if (!pkt->key_valid)
		packet_extract(pkt, key);
	key->ip_frag = OVS_FRAG_TYPE_NONE;
	return 0;
}

int
conntrack_execute(struct conntrack *ct, struct packet *pkt,
		  struct flow_key *key, const struct ct_action *a)
{
	bool partial, csum_ok;
	struct track tr;
	uint32_t l3off, len;
	uint8_t *l3;
	int err;

	tr.c = NULL;
	tr.tmp_live = false;
	tr.now = clock_now_ms();
	l3off = pkt->layers.l3;
	if (l3off == FLOW_OFS_NONE || l3off > pkt->len ||
	    flow_key_family(key) != a->family) {
		count(&ct->n_invalid);
		key->ct_state = 0;
		update_key(key, &tr, a->zone);
		return 0;
	}
	if (key->ip_frag != OVS_FRAG_TYPE_NONE) {
		err = defrag(ct, pkt, key, a, tr.now);
		if (err)
			return err;
	}
	partial = packet_csum_partial(pkt);
	csum_ok = partial || (pkt->vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID);
	l3 = pkt->data + l3off;
	len = pkt->len - l3off;
	tr.res = ct_packet_parse(l3, len, a->family, a->zone, csum_ok, &tr.p);
	err = execute(ct, &tr, key, a, pkt, l3off, partial);
	if (tr.c)
		event_flush(ct, tr.c);
	if (tr.tmp_live)
		pthread_spin_destroy(&tr.tmp.lock);
	return err;
}

/* A connection the tracker holds for t, changing nothing (an expired
 * one is absent, and left for the sweeper). */
static struct conn *
peek(struct conntrack *ct, const struct ct_tuple *t, int *dir, uint64_t now)
{
	struct conn_node *n = find(ct, t);

	if (!n || expired(n->conn, now))
		return NULL;
	*dir = n->dir;
	return n->conn;
}

/* track_packet() for a trace: the connection found, or the one the packet
 * would start (in tr->tmp), without the protocol state machine. */
static void
peek_track(struct conntrack *ct, struct track *tr, const uint8_t *l3,
	   const struct ct_action *a, const struct flow_key *key)
{
	bool natted = key->ct_state & OVS_CS_F_NAT_MASK;
	struct ct_tuple t = tr->p.tuple;

	tr->c = NULL;
	if (tr->res == CT_PARSE_ICMP_ERROR) {
		if (ct_tuple_invert(&tr->p.tuple, &t) &&
		    (tr->c = peek(ct, &t, &tr->dir, tr->now)))
			tr->info = INFO_REL;
		return;
	}
	if (tr->res != CT_PARSE_OK)
		return;
	if (natted && !ct_tuple_invert(&tr->p.tuple, &t))
		return;
	tr->c = peek(ct, &t, &tr->dir, tr->now);
	if (tr->c && natted)
		tr->dir = !tr->dir;
	/* force_commit restarts a connection seen from its reply side. */
	if (tr->c && a->force && tr->dir == CT_DIR_REPLY)
		tr->c = NULL;
	if (tr->c) {
		tr->info = info_of(tr->c, tr->dir);
	} else if (!natted && conn_new(ct, tr, l3, a)) {
		tr->c = &tr->tmp;
		tr->dir = CT_DIR_ORIG;
		tr->info = tr->tmp.master ? INFO_REL : INFO_NEW;
	}
}

int
conntrack_peek(struct conntrack *ct, struct packet *pkt, struct flow_key *key,
	       const struct ct_action *a)
{
	bool executed = (key->ct_state & OVS_CS_F_TRACKED) &&
			!(key->ct_state & OVS_CS_F_INVALID) &&
			key->ct_zone == a->zone;
	uint32_t l3off = pkt->layers.l3;
	bool partial, csum_ok;
	struct track tr;

	tr.c = NULL;
	tr.tmp_live = false;
	tr.now = clock_now_ms();
	if (l3off == FLOW_OFS_NONE || l3off > pkt->len ||
	    flow_key_family(key) != a->family) {
		key->ct_state = 0;
		update_key(key, &tr, a->zone);
		return 0;
	}
	if (key->ip_frag != OVS_FRAG_TYPE_NONE)
		return -EINPROGRESS;
	partial = packet_csum_partial(pkt);
	csum_ok = partial || (pkt->vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID);
	tr.res = ct_packet_parse(pkt->data + l3off, pkt->len - l3off,
				 a->family, a->zone, csum_ok, &tr.p);
	peek_track(ct, &tr, pkt->data + l3off, a, key);
	/* Tracked in this zone before and found again: the key stands. */
	if (!(executed && tr.c && tr.c != &tr.tmp)) {
		key->ct_state = 0;
		update_key(key, &tr, a->zone);
	}
	/* A committed connection's translation changes nothing in it; a new
	 * one's mapping would take a tuple, so it is left out. */
	if (tr.c && tr.c != &tr.tmp && a->nat &&
	    !(key->ct_state & OVS_CS_F_NAT_MASK) &&
	    !do_nat(ct, &tr, a, pkt->data + l3off, partial, key)) {
		if (tr.tmp_live)
			pthread_spin_destroy(&tr.tmp.lock);
		return -EINVAL;
	}
	if (tr.c && a->commit) {
		key->ct_mark = (key->ct_mark & ~a->mark_mask) |
			       (a->mark & a->mark_mask);
		if (a->set_labels)
			for (int i = 0; i < 16; i++)
				key->ct_labels[i] =
					(key->ct_labels[i] & ~a->labels_mask[i]) |
					(a->labels[i] & a->labels_mask[i]);
	}
	if (tr.tmp_live)
		pthread_spin_destroy(&tr.tmp.lock);
	return 0;
}

/* Limits. */

void
conntrack_limit_set_default(struct conntrack *ct, uint32_t limit)
{
	__atomic_store_n(&ct->default_limit, limit, __ATOMIC_RELAXED);
}

uint32_t
conntrack_limit_default(struct conntrack *ct)
{
	return __atomic_load_n(&ct->default_limit, __ATOMIC_RELAXED);
}

void
conntrack_limit_set(struct conntrack *ct, uint16_t zone, uint32_t limit)
{
	__atomic_store_n(&ct->zone_limit[zone], limit, __ATOMIC_RELAXED);
	__atomic_store_n(&ct->zone_limited[zone], 1, __ATOMIC_RELEASE);
}

void
conntrack_limit_del(struct conntrack *ct, uint16_t zone)
{
	__atomic_store_n(&ct->zone_limited[zone], 0, __ATOMIC_RELEASE);
}

uint32_t
conntrack_limit_get(struct conntrack *ct, uint16_t zone)
{
	if (__atomic_load_n(&ct->zone_limited[zone], __ATOMIC_ACQUIRE))
		return __atomic_load_n(&ct->zone_limit[zone],
				       __ATOMIC_RELAXED);
	return conntrack_limit_default(ct);
}

bool
conntrack_limit_next(struct conntrack *ct, int *zone)
{
	for (int z = *zone + 1; z < N_ZONES; z++) {
		if (__atomic_load_n(&ct->zone_limited[z], __ATOMIC_ACQUIRE)) {
			*zone = z;
			return true;
		}
	}
	return false;
}

uint32_t
conntrack_zone_count(struct conntrack *ct, uint16_t zone)
{
	return __atomic_load_n(&ct->zone_count[zone], __ATOMIC_RELAXED);
}

/* Dumps, flushes, expiry. */

/* The kernel's IP_CT_TCP_FLAG_* bits (its IPS_* bits are
 * nf_conntrack_common.h's). */
enum {
	TCPF_WINDOW_SCALE = 0x01, TCPF_BE_LIBERAL = 0x08,
	TCPF_DATA_UNACKNOWLEDGED = 0x10,
};

/* The kernel's IPS_* bits for a status (CT_S_*), but IPS_SEQ_ADJUST,
 * which the helper's data says. */
static uint32_t
ips_status(uint32_t st)
{
	static const struct { uint32_t ours, ips; } bits[] = {
		{ CT_S_SEEN_REPLY, IPS_SEEN_REPLY },
		{ CT_S_ASSURED, IPS_ASSURED },
		{ CT_S_CONFIRMED, IPS_CONFIRMED },
		{ CT_S_SRC_NAT, IPS_SRC_NAT },
		{ CT_S_DST_NAT, IPS_DST_NAT },
		{ CT_S_SRC_NAT_DONE, IPS_SRC_NAT_DONE },
		{ CT_S_DST_NAT_DONE, IPS_DST_NAT_DONE },
		{ CT_S_EXPECTED, IPS_EXPECTED },
	};
	uint32_t ips = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (st & bits[i].ours)
			ips |= bits[i].ips;
	return ips;
}

static void
entry_fill(struct conn *c, uint64_t now, struct conntrack_entry *e)
{
	uint32_t st = status_of(c);
	uint64_t exp = __atomic_load_n(&c->expires, __ATOMIC_RELAXED);

	memset(e, 0, sizeof(*e));
	e->orig = c->tuple[CT_DIR_ORIG];
	e->reply = c->tuple[CT_DIR_REPLY];
	e->id = c->id;
	e->status = ips_status(st);
	e->mark = c->mark;
	pthread_spin_lock(&c->lock);
	memcpy(e->labels, c->labels, 16);
	if (c->help && c->help->seqadj.on)
		e->status |= IPS_SEQ_ADJUST;
	e->tcp_state = c->tcp.state;
	for (int d = 0; d < 2; d++) {
		uint8_t f = c->tcp.peer[d].flags;

		e->tcp_wscale[d] = c->tcp.peer[d].scale;
		e->tcp_flags[d] =
			(f & CT_TCP_F_WSCALE ? TCPF_WINDOW_SCALE : 0) |
			(f & CT_TCP_F_LIBERAL ? TCPF_BE_LIBERAL : 0) |
			(f & CT_TCP_F_UNACKED ? TCPF_DATA_UNACKNOWLEDGED : 0);
	}
	pthread_spin_unlock(&c->lock);
	e->has_labels = st & CT_S_LABELS;
	e->helper = c->helper;
	if (c->master) {
		e->has_master = true;
		e->master = *c->master;
	}
	e->timeout = exp > now ? (exp - now) / 1000 : 0;
}

/* Hands events to the tracker's listener if c's eventmask has one of
 * them (nf_conntrack_eventmask_report: the mask lets the events through
 * together or not at all), and all of them to the journal. */
static void
event_deliver(struct conntrack *ct, struct conn *c, uint32_t events,
	      uint32_t portid)
{
	const struct conntrack_events *ev = &ct->events;
	bool tell = ev->deliver && (events & c->ctmask) &&
		    ev->listening(events, ev->arg);
	bool keep = ev->keep && ev->keeping(ev->arg);
	struct conntrack_entry e;

	if (!tell && !keep)
		return;
	entry_fill(c, clock_now_ms(), &e);
	if (keep)
		ev->keep(&e, events, ev->arg);
	if (tell)
		ev->deliver(&e, events, portid, ev->arg);
}

/* Delivers what packets noted on committed connection c (the kernel's
 * nf_ct_deliver_cached_events, after each ct action). */
static void
event_flush(struct conntrack *ct, struct conn *c)
{
	uint32_t events;

	if (!ct->events.deliver || !confirmed(c) ||
	    !__atomic_load_n(&c->events, __ATOMIC_RELAXED))
		return;
	events = __atomic_exchange_n(&c->events, 0, __ATOMIC_ACQ_REL);
	if (events)
		event_deliver(ct, c, events, 0);
}

static void
expect_event(const struct ct_expect *e, bool destroy, uint32_t portid,
	     void *arg)
{
	struct conntrack *ct = arg;

	if (ct->events.expect_deliver)
		ct->events.expect_deliver(e, destroy, portid, ct->events.arg);
}

void
conntrack_set_events(struct conntrack *ct, const struct conntrack_events *ev)
{
	if (ev)
		ct->events = *ev;
	else
		memset(&ct->events, 0, sizeof(ct->events));
	pthread_mutex_lock(&ct->expects.lock);
	ct->expects.event = expect_event;
	ct->expects.event_arg = ct;
	pthread_mutex_unlock(&ct->expects.lock);
}

int
conntrack_dump(struct conntrack *ct, int zone,
	       int (*visit)(const struct conntrack_entry *, void *), void *arg)
{
	struct conntrack_entry e;
	struct cds_lfht_iter it;
	struct conn_node *n;
	uint64_t now = clock_now_ms();
	int ret = 0;

	rcu_read_lock();
	for_each_node(ct, &it, n) {
		if (n->dir != CT_DIR_ORIG || expired(n->conn, now) ||
		    (zone >= 0 && n->conn->tuple[0].zone != zone))
			continue;
		entry_fill(n->conn, now, &e);
		ret = visit(&e, arg);
		if (ret)
			break;
	}
	rcu_read_unlock();
	return ret;
}

int
conntrack_flush(struct conntrack *ct, int zone, int family, uint32_t portid)
{
	struct cds_lfht_iter it;
	struct conn_node *n;
	int deleted = 0;

	rcu_read_lock();
	for_each_node(ct, &it, n) {
		const struct ct_tuple *t = &n->conn->tuple[0];

		if (n->dir == CT_DIR_ORIG && (zone < 0 || t->zone == zone) &&
		    (!family || t->family == family) &&
		    conn_delete(ct, n->conn, portid))
			deleted++;
	}
	rcu_read_unlock();
	return deleted;
}

int
conntrack_get(struct conntrack *ct, const struct ct_tuple *t,
	      struct conntrack_entry *e)
{
	uint64_t now = clock_now_ms();
	struct conn *c;
	int dir;

	rcu_read_lock();
	c = lookup(ct, t, &dir, now);
	if (c)
		entry_fill(c, now, e);
	rcu_read_unlock();
	return c ? 0 : -ENOENT;
}

int
conntrack_delete(struct conntrack *ct, const struct ct_tuple *t, uint32_t id,
		 uint32_t portid)
{
	int dir, err = -ENOENT;
	struct conn *c;

	rcu_read_lock();
	c = lookup(ct, t, &dir, clock_now_ms());
	if (c && (!id || c->id == id) && conn_delete(ct, c, portid))
		err = 0;
	rcu_read_unlock();
	return err;
}

/* Creating and changing connections (ctnetlink's CT_NEW). */

/* nf_ct_change_status_common()'s checks of the IPS_* status want against
 * the current cur. */
static int
status_check(uint32_t cur, uint32_t want)
{
	uint32_t d = cur ^ want;

	if (d & (IPS_EXPECTED | IPS_CONFIRMED | IPS_DYING))
		return -EBUSY;
	/* SEEN_REPLY and ASSURED can only be set. */
	if ((d & IPS_SEEN_REPLY && !(want & IPS_SEEN_REPLY)) ||
	    (d & IPS_ASSURED && !(want & IPS_ASSURED)))
		return -EBUSY;
	return 0;
}

static int
change_check(uint32_t cur, const struct conntrack_change *ch)
{
	if ((ch->given & CT_SET_TCP_STATE) && ch->tcp_state >= CT_TCP_N_STATES)
		return -EINVAL;
	return ch->given & CT_SET_STATUS ? status_check(cur, ch->status) : 0;
}

/* Applies ch, checked, to c. */
static void
change_apply(struct conn *c, const struct conntrack_change *ch, uint64_t now)
{
	if (ch->given & CT_SET_TIMEOUT)
		__atomic_store_n(&c->expires, now + ch->timeout * 1000ull,
				 __ATOMIC_RELAXED);
	if (ch->given & CT_SET_STATUS)
		status_set(c, (ch->status & IPS_SEEN_REPLY ? CT_S_SEEN_REPLY
							    : 0) |
				      (ch->status & IPS_ASSURED ? CT_S_ASSURED
								: 0));
	if (ch->given & CT_SET_MARK)
		c->mark = (c->mark & ch->mark_keep) ^ ch->mark;
	pthread_spin_lock(&c->lock);
	if (ch->given & CT_SET_TCP_STATE)
		c->tcp.state = ch->tcp_state;
	if (ch->given & CT_SET_LABELS) {
		for (int i = 0; i < 16; i++)
			c->labels[i] = (c->labels[i] & ch->labels_keep[i]) ^
				       ch->labels[i];
	}
	pthread_spin_unlock(&c->lock);
	if (ch->given & CT_SET_LABELS)
		status_set(c, CT_S_LABELS);
}

/* What nf_conntrack reports for a connection ctnetlink made or changed
 * (besides NEW or RELATED). */
#define CHANGE_EVENTS							\
	(1u << IPCT_REPLY | 1u << IPCT_ASSURED | 1u << IPCT_HELPER |	\
	 1u << IPCT_PROTOINFO | 1u << IPCT_SEQADJ | 1u << IPCT_MARK |	\
	 1u << IPCT_SYNPROXY)

int
conntrack_insert(struct conntrack *ct, const struct ct_tuple *orig,
		 const struct ct_tuple *reply,
		 const struct conntrack_change *ch, uint32_t portid)
{
	uint64_t now = clock_now_ms();
	struct conn_node *other;
	struct conn *c, *m;
	uint32_t events;
	int dir, err;

	if (!(ch->given & CT_SET_TIMEOUT))
		return -EINVAL;
	err = change_check(IPS_CONFIRMED, ch);
	if (err)
		return err;
	if (__atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED) >= ct->max_conns) {
		count(&ct->n_refused);
		return -ENOMEM;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tuple[CT_DIR_ORIG] = *orig;
	c->tuple[CT_DIR_REPLY] = *reply;
	c->status = CT_S_CONFIRMED;
	c->ctmask = 0xffff;
	pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	change_apply(c, ch, now);
	if ((ch->given & CT_SET_HELPER) && ch->helper) {
		c->help = calloc(1, sizeof(*c->help));
		if (!c->help) {
			pthread_spin_destroy(&c->lock);
			free(c);
			return -ENOMEM;
		}
		c->helper = ch->helper;
	}
	rcu_read_lock();
	/* As ctnetlink_setup_nat(): the destination first. */
	if ((ch->given & (CT_SET_SNAT | CT_SET_DNAT)) &&
	    (!nat_setup(&ct->nat, c, ch->given & CT_SET_DNAT ? &ch->dnat : NULL,
			CT_MANIP_DST) ||
	     !nat_setup(&ct->nat, c, ch->given & CT_SET_SNAT ? &ch->snat : NULL,
			CT_MANIP_SRC))) {
		err = -ENOMEM;
		goto fail;
	}
	if (ch->given & CT_SET_MASTER) {
		/* A confirmed expectation: related to its master. */
		m = lookup(ct, &ch->master, &dir, now);
		c->master = m ? malloc(sizeof(*c->master)) : NULL;
		if (!c->master) {
			err = m ? -ENOMEM : -ENOENT;
			goto fail;
		}
		*c->master = m->tuple[CT_DIR_ORIG];
		c->status |= CT_S_EXPECTED;
	}
	c->id = __atomic_add_fetch(&ct->next_id, 1, __ATOMIC_RELAXED);
	err = insert_nodes(ct, c, &other);
	if (err == -EAGAIN) {
		rcu_read_unlock();
		call_rcu(&c->rcu, conn_free_rcu);
		return -EEXIST;
	}
	if (err)
		goto fail;
	/* Not counted in its zone: only the ct action counts. */
	__atomic_fetch_add(&ct->n_conns, 1, __ATOMIC_RELAXED);
	events = CHANGE_EVENTS | 1u << (c->master ? IPCT_RELATED : IPCT_NEW);
	if (ch->given & CT_SET_LABELS)
		events |= 1u << IPCT_LABEL;
	event_deliver(ct, c, events, portid);
	rcu_read_unlock();
	return 0;
fail:
	rcu_read_unlock();
	pthread_spin_destroy(&c->lock);
	free(c->master);
	free(c->help);
	free(c);
	return err;
}

int
conntrack_update(struct conntrack *ct, const struct ct_tuple *t,
		 const struct conntrack_change *ch, uint32_t portid)
{
	uint64_t now = clock_now_ms();
	struct conn *c;
	int dir, err;

	rcu_read_lock();
	c = lookup(ct, t, &dir, now);
	if (!c)
		err = -ENOENT;
	else if (ch->given & CT_SET_MASTER)
		err = -EOPNOTSUPP;
	else
		err = change_check(ips_status(status_of(c)), ch);
	if (!err) {
		change_apply(c, ch, now);
		uncount_closed(ct, c);
		if ((ch->given & CT_SET_HELPER) && c->helper) {
			/* The helper leaves, and what it expected. */
			pthread_spin_lock(&c->lock);
			__atomic_store_n(&c->helper, CT_HELPER_NONE,
					 __ATOMIC_RELAXED);
			pthread_spin_unlock(&c->lock);
			expect_forget(&ct->expects, c->id, 0);
		}
		event_deliver(ct, c, CHANGE_EVENTS | 1u << IPCT_LABEL,
			      portid);
	}
	rcu_read_unlock();
	return err;
}

/* Expectations (ctnetlink's expectation subsystem). */

int
conntrack_expect_dump(struct conntrack *ct,
		      int (*visit)(const struct ct_expect *, void *), void *arg)
{
	return expect_visit(&ct->expects, clock_now_ms(), visit, arg);
}

int
conntrack_expect_get(struct conntrack *ct, const struct ct_tuple *t,
		     struct ct_expect *out)
{
	return expect_find(&ct->expects, t, clock_now_ms(), false, out)
		       ? 0
		       : -ENOENT;
}

int
conntrack_expect_remove(struct conntrack *ct,
			bool (*which)(const struct ct_expect *, void *),
			void *arg, uint32_t portid)
{
	return expect_remove(&ct->expects, which, arg, portid);
}

int
conntrack_expect_new(struct conntrack *ct, const struct ct_tuple *t,
		     const struct ct_tuple *master, uint32_t portid)
{
	uint64_t now = clock_now_ms();
	struct ct_expect e;
	struct conn *c;
	int dir, err;

	rcu_read_lock();
	c = lookup(ct, master, &dir, now);
	if (!c || !c->helper) {
		rcu_read_unlock();
		return c ? -EOPNOTSUPP : -ENOENT;
	}
	memset(&e, 0, sizeof(e));
	e.t = *t;
	e.master = c->master ? *c->master : c->tuple[CT_DIR_ORIG];
	e.master_id = c->id;
	e.helper = c->helper;
	e.mark = c->mark;
	e.has_labels = status_of(c) & CT_S_LABELS;
	e.expires = now + EXPECT_TIMEOUT;
	pthread_spin_lock(&c->lock);
	memcpy(e.labels, c->labels, 16);
	pthread_spin_unlock(&c->lock);
	err = expect_add(&ct->expects, &e, now, portid);
	rcu_read_unlock();
	return err;
}

int
conntrack_expect_set_timeout(struct conntrack *ct, const struct ct_tuple *t,
			     uint32_t timeout)
{
	uint64_t now = clock_now_ms();

	return expect_set_expires(&ct->expects, t, now, now + timeout * 1000ull)
		       ? 0
		       : -ENOENT;
}

struct ct_timeout_table *
conntrack_timeouts(struct conntrack *ct)
{
	return &ct->timeouts;
}

void
conntrack_get_stats(struct conntrack *ct, struct conntrack_stats *s)
{
	s->n_conns = __atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED);
	s->n_invalid = __atomic_load_n(&ct->n_invalid, __ATOMIC_RELAXED);
	s->n_refused = __atomic_load_n(&ct->n_refused, __ATOMIC_RELAXED);
	s->n_expired = __atomic_load_n(&ct->n_expired, __ATOMIC_RELAXED);
	s->n_expects = __atomic_load_n(&ct->expects.n, __ATOMIC_RELAXED);
	expect_get_counts(&ct->expects, &s->n_expect_create, &s->n_expect_new,
			  &s->n_expect_delete);
	s->max_conns = ct->max_conns;
	frag_get_stats(ct->frags, &s->frags);
}

void
conntrack_sweep(struct conntrack *ct)
{
	struct cds_lfht_iter it;
	struct conn_node *n;
	uint64_t now = clock_now_ms();

	rcu_read_lock();
	for_each_node(ct, &it, n) {
		if (n->dir == CT_DIR_ORIG && expired(n->conn, now) &&
		    conn_delete(ct, n->conn, 0))
			count(&ct->n_expired);
	}
	rcu_read_unlock();
	frag_expire(ct->frags, now);
	expect_forget(&ct->expects, 0, now);
}

static void *
sweeper_main(void *arg)
{
	struct conntrack *ct = arg;
	struct timespec ts;

	pthread_setname_np(pthread_self(), "ct-sweeper");
	rcu_register_thread();
	pthread_mutex_lock(&ct->lock);
	while (!ct->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += SWEEP_MS / 1000;
		pthread_cond_timedwait(&ct->cond, &ct->lock, &ts);
		if (ct->stop)
			break;
		pthread_mutex_unlock(&ct->lock);
		conntrack_sweep(ct);
		/* Both directions' nodes; once a second bounds how long a
		 * table liburcu failed to grow stays small. */
		lfht_fit(ct->ht, 2ul * __atomic_load_n(&ct->n_conns,
						       __ATOMIC_RELAXED),
			 &ct->buckets, HT_MIN_BUCKETS);
		pthread_mutex_lock(&ct->lock);
	}
	pthread_mutex_unlock(&ct->lock);
	rcu_unregister_thread();
	return NULL;
}

struct conntrack *
conntrack_create(uint32_t max_conns)
{
	struct conntrack *ct = calloc(1, sizeof(*ct));
	pthread_condattr_t ca;

	if (!ct)
		return NULL;
	ct->max_conns = max_conns;
	ct->buckets = HT_MIN_BUCKETS;
	ct->basis = (uint32_t)random();
	ct->zone_count = calloc(N_ZONES, sizeof(uint32_t));
	ct->zone_limit = calloc(N_ZONES, sizeof(uint32_t));
	ct->zone_limited = calloc(N_ZONES, 1);
	ct->frags = frag_table_create();
	ct->ht = cds_lfht_new(HT_MIN_BUCKETS, HT_MIN_BUCKETS, 0,
			      CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
			      NULL);
	if (!ct->zone_count || !ct->zone_limit || !ct->zone_limited ||
	    !ct->ht || !ct->frags)
		goto fail;
	pthread_mutex_init(&ct->lock, NULL);
	expect_table_init(&ct->expects);
	ct_timeout_table_init(&ct->timeouts);
	ct->nat.taken = tuple_taken;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ct->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&ct->sweeper, NULL, sweeper_main, ct)) {
		pthread_cond_destroy(&ct->cond);
		pthread_mutex_destroy(&ct->lock);
		goto fail;
	}
	return ct;
fail:
	if (ct->ht)
		cds_lfht_destroy(ct->ht, NULL);
	frag_table_destroy(ct->frags);
	free(ct->zone_count);
	free(ct->zone_limit);
	free(ct->zone_limited);
	free(ct);
	return NULL;
}

void
conntrack_destroy(struct conntrack *ct)
{
	if (!ct)
		return;
	pthread_mutex_lock(&ct->lock);
	ct->stop = true;
	pthread_cond_signal(&ct->cond);
	pthread_mutex_unlock(&ct->lock);
	pthread_join(ct->sweeper, NULL);
	conntrack_set_events(ct, NULL);
	conntrack_flush(ct, -1, 0, 0);
	ct_timeout_table_destroy(&ct->timeouts);
	rcu_barrier();
	cds_lfht_destroy(ct->ht, NULL);
	pthread_cond_destroy(&ct->cond);
	pthread_mutex_destroy(&ct->lock);
	expect_table_destroy(&ct->expects);
	frag_table_destroy(ct->frags);
	free(ct->zone_count);
	free(ct->zone_limit);
	free(ct->zone_limited);
	free(ct);
}
