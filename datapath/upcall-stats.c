/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/upcall-stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/hash.h"
#include "include/tapdp/ovs-uapi.h"

/* Misses remembered at once; a power of two. */
#define MISS_SLOTS	4096

struct miss_slot {
	uint32_t tag;			/* the key's hash, 0: free */
	uint64_t sent_us;
};

struct handler_slot {
	uint32_t portid;		/* 0: free */
	uint32_t order;			/* of its first upcall, from 1 */
	uint64_t sent, lost;
};

struct upcall_stats {
	uint64_t miss, action;
	uint64_t lost[UPCALL_LOST_REASONS];
	uint32_t n_handlers;
	struct handler_slot handler[UPCALL_HANDLERS];
	struct miss_slot misses[MISS_SLOTS];
	/* The control thread's alone. */
	uint64_t wait[UPCALL_WAIT_BUCKETS];
	uint64_t wait_n, wait_sum_us, wait_max_us;
};

struct upcall_stats *
upcall_stats_new(void)
{
	return calloc(1, sizeof(struct upcall_stats));
}

void
upcall_stats_free(struct upcall_stats *s)
{
	free(s);
}

static void
add(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static uint64_t
get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Never 0, which marks a free slot. */
static uint32_t
key_tag(const struct flow_key *key)
{
	uint32_t h = hash_words(key, sizeof(*key) / 8, 0);

	return h ? h : 1;
}

/* portid's slot, claimed on its first upcall; NULL when the table is
 * full. */
static struct handler_slot *
handler_of(struct upcall_stats *s, uint32_t portid)
{
	uint32_t start = hash_2x32(portid, 0) % UPCALL_HANDLERS;

	for (uint32_t i = 0; i < UPCALL_HANDLERS; i++) {
		struct handler_slot *h =
			&s->handler[(start + i) % UPCALL_HANDLERS];
		uint32_t cur = __atomic_load_n(&h->portid, __ATOMIC_ACQUIRE);

		if (cur == portid)
			return h;
		if (cur)
			continue;
		if (__atomic_compare_exchange_n(&h->portid, &cur, portid,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			__atomic_store_n(&h->order,
					 __atomic_add_fetch(&s->n_handlers, 1,
							    __ATOMIC_RELAXED),
					 __ATOMIC_RELEASE);
			return h;
		}
		if (cur == portid)
			return h;
	}
	return NULL;
}

static enum upcall_lost
lost_reason(int err)
{
	switch (err) {
	case -ENOBUFS:
	case -EAGAIN:
		return UPCALL_LOST_FULL;
	case -ENOTCONN:
	case -ECONNREFUSED:
		return UPCALL_LOST_NO_SOCKET;
	default:
		return UPCALL_LOST_OTHER;
	}
}

void
upcall_stats_count(struct upcall_stats *s, uint8_t cmd, uint32_t portid,
		   int err, const struct flow_key *key)
{
	struct handler_slot *h = portid ? handler_of(s, portid) : NULL;

	add(cmd == OVS_PACKET_CMD_MISS ? &s->miss : &s->action);
	if (err) {
		add(&s->lost[lost_reason(err)]);
		if (h)
			add(&h->lost);
		return;
	}
	if (h)
		add(&h->sent);
	if (key) {
		uint32_t tag = key_tag(key);
		struct miss_slot *m = &s->misses[tag % MISS_SLOTS];

		/* The time first, then the tag that makes it count. */
		__atomic_store_n(&m->sent_us, clock_exact_us(),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&m->tag, tag, __ATOMIC_RELEASE);
	}
}

unsigned
upcall_wait_bucket(uint64_t us)
{
	unsigned b = 0;

	for (uint64_t limit = 10; us >= limit && b < UPCALL_WAIT_BUCKETS - 1;
	     limit *= 10)
		b++;
	return b;
}

void
upcall_stats_installed(struct upcall_stats *s, const struct flow_key *key)
{
	uint32_t tag = key_tag(key);
	struct miss_slot *m = &s->misses[tag % MISS_SLOTS];
	uint32_t cur = tag;
	uint64_t sent, now, us;

	if (__atomic_load_n(&m->tag, __ATOMIC_ACQUIRE) != tag)
		return;
	sent = __atomic_load_n(&m->sent_us, __ATOMIC_RELAXED);
	/* Timed once: a second flow for the same key is no wait. */
	if (!__atomic_compare_exchange_n(&m->tag, &cur, 0, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	now = clock_exact_us();
	us = now > sent ? now - sent : 0;
	s->wait[upcall_wait_bucket(us)]++;
	s->wait_n++;
	s->wait_sum_us += us;
	if (us > s->wait_max_us)
		s->wait_max_us = us;
}

void
upcall_stats_read(const struct upcall_stats *s, struct upcall_figures *f)
{
	bool at[UPCALL_HANDLERS] = { false };

	f->miss = get(&s->miss);
	f->action = get(&s->action);
	for (unsigned i = 0; i < UPCALL_LOST_REASONS; i++)
		f->lost[i] = get(&s->lost[i]);
	for (unsigned i = 0; i < UPCALL_WAIT_BUCKETS; i++)
		f->wait[i] = s->wait[i];
	f->wait_n = s->wait_n;
	f->wait_sum_us = s->wait_sum_us;
	f->wait_max_us = s->wait_max_us;
	/* In the order they first had an upcall: each slot at its order's
	 * place, then the places not yet published closed up. */
	for (unsigned i = 0; i < UPCALL_HANDLERS; i++) {
		const struct handler_slot *h = &s->handler[i];
		uint32_t order = __atomic_load_n(&h->order, __ATOMIC_ACQUIRE);
		struct upcall_handler *o;

		if (!order || order > UPCALL_HANDLERS)
			continue;
		o = &f->handler[order - 1];
		o->portid = __atomic_load_n(&h->portid, __ATOMIC_RELAXED);
		o->sent = get(&h->sent);
		o->lost = get(&h->lost);
		at[order - 1] = true;
	}
	f->n_handlers = 0;
	for (unsigned k = 0; k < UPCALL_HANDLERS; k++)
		if (at[k])
			f->handler[f->n_handlers++] = f->handler[k];
}
