/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/meter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
meter_table_init(struct meter_table *t)
{
	t->slots = calloc(METER_SLOTS_MIN, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->n_slots = METER_SLOTS_MIN;
	t->count = 0;
	t->max_meters = METER_NUM_MAX;
	return 0;
}

void
meter_table_destroy(struct meter_table *t)
{
	for (uint32_t i = 0; i < t->n_slots; i++)
		free(t->slots[i]);
	free(t->slots);
	t->slots = NULL;
	t->n_slots = t->count = 0;
}

struct meter *
meter_lookup(const struct meter_table *t, uint32_t id)
{
	struct meter *m = t->slots[id % t->n_slots];

	return m && m->id == id ? m : NULL;
}

/* Resizes keeping every meter at its index, as the kernel does: ids are
 * not rehashed. */
static int
resize(struct meter_table *t, uint32_t size)
{
	uint32_t keep = size < t->n_slots ? size : t->n_slots;
	struct meter **slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memcpy(slots, t->slots, keep * sizeof(*slots));
	free(t->slots);
	t->slots = slots;
	t->n_slots = size;
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
	if (t->count >= t->n_slots && (err = resize(t, t->n_slots * 2)))
		goto fail;
	if (t->slots[m->id % t->n_slots]) {
		err = -EBUSY;
		goto fail;
	}
	t->slots[m->id % t->n_slots] = m;
	return 0;
fail:
	t->count--;
	return err;
}

int
meter_detach(struct meter_table *t, struct meter *m)
{
	uint32_t half = t->n_slots / 2;

	if (!m)
		return 0;
	t->slots[m->id % t->n_slots] = NULL;
	t->count--;
	if (t->n_slots > METER_SLOTS_MIN && t->count <= t->n_slots / 4) {
		for (uint32_t i = half; i < t->n_slots; i++)
			if (t->slots[i])
				return 0;
		if (resize(t, half)) {
			t->slots[m->id % t->n_slots] = m;
			t->count++;
			return -ENOMEM;
		}
	}
	return 0;
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
