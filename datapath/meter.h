/* SPDX-License-Identifier: Apache-2.0 */
/* Meters of a datapath: the table the ovs_meter family manages and the
 * meter action's policing.
 *
 * The table is kept as the kernel keeps it, since clients see its effects:
 * an array of slots indexed by id modulo its size (1024 at first, doubled
 * when full, halved when a quarter full), where two ids on one slot collide
 * (EBUSY), and a cap on the number of meters (EFBIG). The ovs_meter family
 * allows one band per meter; the policing takes any number.
 *
 * A band is a token bucket: rate in kbit/s (bucket in bits, a packet costs
 * its length * 8) or in packets/s (bucket in 1/1000 packets, a packet costs
 * 1000), so that rate * ms gives bucket units. It holds at most burst_size
 * * 1000 units and starts full. A packet refills every band for the time
 * since the meter's last packet, takes its cost from each band that has
 * it, and of the bands that do not, the one with the highest rate counts
 * the packet and, a drop band, drops it.
 *
 * Threads: the table and its slots change on the control thread only (a
 * registered RCU thread). Receive threads call meter_execute() inside
 * rcu_read_lock(); a slot array or meter replaced is freed after a grace
 * period (meter_free()). A meter's buckets, stats and used time are under
 * its spinlock, as the kernel's are: a packet reads and writes all of them
 * at once, and a reply reads its stats at once; it is held for a few
 * dozen instructions, never across a call out. */
#ifndef TAPDP_METER_H
#define TAPDP_METER_H

#include <linux/openvswitch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <urcu.h>

#define METER_MAX_BANDS		1	/* per meter, over netlink */
#define METER_SLOTS_MIN		1024
#define METER_NUM_MAX		200000

struct meter_band {
	uint32_t type;
	uint32_t rate;
	uint32_t burst_size;
	uint64_t bucket;	/* 1/1000 packets, or bits */
	struct ovs_flow_stats stats;	/* packets over its rate */
};

struct meter {
	pthread_spinlock_t lock;
	struct rcu_head rcu;
	uint32_t id;
	bool kbps;
	bool keep_stats;
	uint16_t n_bands;
	uint32_t max_delta_t;	/* ms that fill the largest bucket */
	uint64_t used;		/* ms, clock_exact_ms() */
	struct ovs_flow_stats stats;
	struct meter_band bands[];
};

struct meter_slots {
	struct rcu_head rcu;
	uint32_t n;
	struct meter *m[];	/* RCU */
};

struct meter_table {
	struct meter_slots *slots;	/* RCU */
	uint32_t count;
	uint32_t max_meters;
};

int meter_table_init(struct meter_table *t);
/* Frees the meters at once: no packet thread may be using the table. */
void meter_table_destroy(struct meter_table *t);
/* Control thread, or inside rcu_read_lock(). */
struct meter *meter_lookup(const struct meter_table *t, uint32_t id);
/* Takes ownership of m on success: -EFBIG (table full), -EBUSY (slot
 * taken by another id), -ENOMEM. */
int meter_attach(struct meter_table *t, struct meter *m);
/* Removes m (not freed); 0 or -ENOMEM. NULL is a no-op. */
int meter_detach(struct meter_table *t, struct meter *m);

/* A meter with n_bands bands to fill in, last used now; NULL without
 * memory. */
struct meter *meter_new(uint32_t id, bool kbps, uint16_t n_bands);
/* Band i from its fields, its bucket full; -EINVAL for a zero rate. */
int meter_band_init(struct meter *m, unsigned i, uint32_t type,
		    uint32_t rate, uint32_t burst);
/* Frees m after a grace period. NULL is a no-op. */
void meter_free(struct meter *m);
/* Frees m at once: m was never attached. */
void meter_destroy(struct meter *m);

/* Polices a packet of len bytes by meter id; true when a drop band says
 * drop. No meter: false, as the kernel. Inside rcu_read_lock(). */
bool meter_execute(const struct meter_table *t, uint32_t id, uint32_t len);
/* Copies m's stats, band stats (n_bands of them) and used time at once. */
void meter_read(struct meter *m, struct ovs_flow_stats *stats,
		struct ovs_flow_stats *band_stats, uint64_t *used);

#endif
