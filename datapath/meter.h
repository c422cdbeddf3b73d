/* SPDX-License-Identifier: Apache-2.0 */
/* Meters of a datapath: the table the ovs_meter family manages.
 *
 * Kept as the kernel keeps it, since clients see its effects: an array of
 * slots indexed by id modulo its size (1024 at first, doubled when full,
 * halved when a quarter full), where two ids on one slot collide (EBUSY),
 * and a cap on the number of meters (EFBIG). A meter has at most one band.
 *
 * Threads: control thread only, for now. */
#ifndef TAPDP_METER_H
#define TAPDP_METER_H

#include <linux/openvswitch.h>
#include <stdbool.h>
#include <stdint.h>

#define METER_MAX_BANDS		1
#define METER_SLOTS_MIN		1024
#define METER_NUM_MAX		200000

struct meter_band {
	uint32_t type;
	uint32_t rate;
	uint32_t burst_size;
	uint64_t bucket;	/* 1/1000 packets, or bits */
	struct ovs_flow_stats stats;
};

struct meter {
	uint32_t id;
	bool kbps;
	bool keep_stats;
	uint16_t n_bands;
	uint32_t max_delta_t;
	uint64_t used;		/* ms, clock_now_ms() */
	struct ovs_flow_stats stats;
	struct meter_band bands[METER_MAX_BANDS];
};

struct meter_table {
	struct meter **slots;
	uint32_t n_slots;
	uint32_t count;
	uint32_t max_meters;
};

int meter_table_init(struct meter_table *t);
void meter_table_destroy(struct meter_table *t);
struct meter *meter_lookup(const struct meter_table *t, uint32_t id);
/* Takes ownership of m on success: -EFBIG (table full), -EBUSY (slot
 * taken by another id), -ENOMEM. */
int meter_attach(struct meter_table *t, struct meter *m);
/* Removes m (not freed); 0 or -ENOMEM. NULL is a no-op. */
int meter_detach(struct meter_table *t, struct meter *m);
/* Band from its fields; -EINVAL for a zero rate. */
int meter_band_init(struct meter *m, unsigned i, uint32_t type,
		    uint32_t rate, uint32_t burst);

#endif
