/* SPDX-License-Identifier: Apache-2.0 */
/* Inline rcu_dereference() and friends on the packet path. */
#define URCU_INLINE_SMALL_FUNCTIONS

#include "datapath/meter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

static struct meter_slots *
slots_new(uint32_t n)
{
	struct meter_slots *s = calloc(1, sizeof(*s) + n * sizeof(s->m[0]));

	if (s)
		s->n = n;
	return s;
}

static void
slots_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct meter_slots, rcu));
}

int
meter_table_init(struct meter_table *t)
{
	t->slots = slots_new(METER_SLOTS_MIN);
	if (!t->slots)
		return -ENOMEM;
	t->count = 0;
	t->max_meters = METER_NUM_MAX;
	return 0;
}

void
meter_table_destroy(struct meter_table *t)
{
	for (uint32_t i = 0; i < t->slots->n; i++)
		meter_destroy(t->slots->m[i]);
	free(t->slots);
	t->slots = NULL;
	t->count = 0;
}

struct meter *
meter_lookup(const struct meter_table *t, uint32_t id)
{
	struct meter_slots *s = rcu_dereference(t->slots);
	struct meter *m = rcu_dereference(s->m[id % s->n]);

	return m && m->id == id ? m : NULL;
}

/* Resizes keeping every meter at its index, as the kernel does: ids are
 * not rehashed. */
static int
resize(struct meter_table *t, uint32_t size)
{
	struct meter_slots *old = t->slots, *s = slots_new(size);

	if (!s)
		return -ENOMEM;
	memcpy(s->m, old->m, (size < old->n ? size : old->n) * sizeof(s->m[0]));
	rcu_assign_pointer(t->slots, s);
	call_rcu(&old->rcu, slots_free_rcu);
	return 0;
}

int
meter_attach(struct meter_table *t, struct meter *m)
{
	int err;

	t->count++;
	if (t->count >= t->max_meters) {
		err = -EFBIG;
		goto fail;
	}
	if (t->count >= t->slots->n && (err = resize(t, t->slots->n * 2)))
		goto fail;
	if (t->slots->m[m->id % t->slots->n]) {
		err = -EBUSY;
		goto fail;
	}
	rcu_assign_pointer(t->slots->m[m->id % t->slots->n], m);
	return 0;
fail:
	t->count--;
	return err;
}

int
meter_detach(struct meter_table *t, struct meter *m)
{
	struct meter_slots *s = t->slots;
	uint32_t half = s->n / 2;

	if (!m)
		return 0;
	rcu_set_pointer(&s->m[m->id % s->n], NULL);
	t->count--;
	if (s->n > METER_SLOTS_MIN && t->count <= s->n / 4) {
		for (uint32_t i = half; i < s->n; i++)
			if (s->m[i])
				return 0;
		if (resize(t, half)) {
			rcu_assign_pointer(s->m[m->id % s->n], m);
			t->count++;
			return -ENOMEM;
		}
	}
	return 0;
}

struct meter *
meter_new(uint32_t id, bool kbps, uint16_t n_bands)
{
	struct meter *m = calloc(1, sizeof(*m) + n_bands * sizeof(m->bands[0]));

	if (!m)
		return NULL;
	pthread_spin_init(&m->lock, PTHREAD_PROCESS_PRIVATE);
	m->id = id;
	m->kbps = kbps;
	m->n_bands = n_bands;
	m->used = clock_exact_ms();
	return m;
}

int
meter_band_init(struct meter *m, unsigned i, uint32_t type, uint32_t rate,
		uint32_t burst)
{
	struct meter_band *b = &m->bands[i];
	uint32_t max_delta;

	if (!rate)
		return -EINVAL;
	b->type = type;
	b->rate = rate;
	b->burst_size = burst;
	/* A full bucket; the longest time that can fill any bucket bounds
	 * the refill arithmetic. */
	b->bucket = burst * 1000ULL;
	max_delta = b->bucket / rate;
	if (max_delta > m->max_delta_t)
		m->max_delta_t = max_delta;
	return 0;
}

void
meter_destroy(struct meter *m)
{
	if (!m)
		return;
	pthread_spin_destroy(&m->lock);
	free(m);
}

static void
meter_free_rcu(struct rcu_head *head)
{
	meter_destroy(caa_container_of(head, struct meter, rcu));
}

void
meter_free(struct meter *m)
{
	if (m)
		call_rcu(&m->rcu, meter_free_rcu);
}

static void
stats_add(struct ovs_flow_stats *s, uint32_t len)
{
	s->n_packets++;
	s->n_bytes += len;
}

bool
meter_execute(const struct meter_table *t, uint32_t id, uint32_t len)
{
	struct meter *m = meter_lookup(t, id);
	uint64_t now = clock_exact_ms(), cost, delta;
	struct meter_band *over = NULL;
	bool drop = false;

	if (!m)
		return false;
	pthread_spin_lock(&m->lock);
	/* A thread that read the clock first may take the lock second: no
	 * time passed for it. No refill beyond what fills every bucket. */
	delta = now > m->used ? now - m->used : 0;
	if (delta > m->max_delta_t)
		delta = m->max_delta_t;
	m->used = now;
	stats_add(&m->stats, len);
	cost = m->kbps ? (uint64_t)len * 8 : 1000;
	for (unsigned i = 0; i < m->n_bands; i++) {
		struct meter_band *b = &m->bands[i];
		uint64_t max = b->burst_size * 1000ULL;

		b->bucket += delta * b->rate;
		if (b->bucket > max)
			b->bucket = max;
		if (b->bucket >= cost)
			b->bucket -= cost;
		else if (!over || b->rate > over->rate)
			over = b;
	}
	if (over) {
		stats_add(&over->stats, len);
		drop = over->type == OVS_METER_BAND_TYPE_DROP;
	}
	pthread_spin_unlock(&m->lock);
	return drop;
}

void
meter_read(struct meter *m, struct ovs_flow_stats *stats,
	   struct ovs_flow_stats *band_stats, uint64_t *used)
{
	pthread_spin_lock(&m->lock);
	*stats = m->stats;
	for (unsigned i = 0; i < m->n_bands; i++)
		band_stats[i] = m->bands[i].stats;
	*used = m->used;
	pthread_spin_unlock(&m->lock);
}
