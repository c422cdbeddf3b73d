/* Datapaths and their ports: the state the ovs_datapath and ovs_vport
 * families manage, kept free of netlink.
 *
 * A datapath is named by its local port (port 0, an internal port named like
 * it); its dp_ifindex is that device's ifindex. Ports are numbered below
 * TAPDP_DP_MAX_PORTS. Names are unique across all datapaths.
 *
 * Threads: creation, deletion and changes happen on the control thread;
 * receive threads only touch the atomic counters. A port's receive thread is
 * joined before the port is freed. */
#ifndef TAPDP_DATAPATH_H
#define TAPDP_DATAPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "include/tapdp/ovs-uapi.h"
#include "meter.h"
#include "tap/vport.h"

struct dp_pids {
	unsigned n;
	uint32_t pid[];
};

struct dp_port {
	struct datapath *dp;
	uint32_t port_no;
	enum ovs_vport_type type;
	struct vport *vport;
	struct dp_pids *pids;
	uint64_t upcall_success;	/* atomic */
	uint64_t upcall_fail;		/* atomic */
};

struct datapath {
	uint32_t user_features;
	uint32_t masks_cache_size;
	struct dp_pids *cpu_pids;	/* per-CPU upcall pids, or NULL */
	struct dp_port **ports;		/* indexed by port number */
	uint32_t n_ports_alloc;
	struct meter_table meters;
	/* atomic counters */
	uint64_t n_hit, n_missed, n_lost;
	uint64_t n_mask_hit, n_cache_hit;
	uint32_t n_flows, n_masks;
};

/* The kernel's nr_cpu_ids: the number of possible CPUs. */
unsigned dp_nr_cpu_ids(void);

/* Creates a datapath and its local port; -EEXIST if the name is taken. */
int dp_create(const char *name, const uint32_t *pids, unsigned n_pids,
	      struct datapath **out);
void dp_destroy(struct datapath *dp);
void dp_destroy_all(void);

const char *dp_name(const struct datapath *dp);
int dp_ifindex(const struct datapath *dp);
struct datapath *dp_by_ifindex(int ifindex);
/* The datapath whose local port is called name. */
struct datapath *dp_by_name(const char *name);
/* Iteration in creation order: dp_at(0), dp_at(1)... NULL past the end. */
struct datapath *dp_at(unsigned i);

/* The kernel's checks, in its order: unknown feature bits -EOPNOTSUPP,
 * a cache size that is not 0 or a power of two -EINVAL. */
int dp_set_features(struct datapath *dp, uint32_t features);
int dp_set_masks_cache_size(struct datapath *dp, uint32_t size);
int dp_set_cpu_pids(struct datapath *dp, const uint32_t *pids, unsigned n);

/* port_no 0 picks the lowest free number. Errors: -EBUSY (number taken),
 * -EFBIG (no number left), -EINVAL (bad pids, or attaching an internal
 * device as netdev), -EBUSY (device already attached), and the vport's own
 * (-ENODEV, -EEXIST, -EAFNOSUPPORT). */
int dp_port_add(struct datapath *dp, uint32_t port_no, enum ovs_vport_type,
		const char *name, const uint32_t *pids, unsigned n_pids,
		struct dp_port **out);
void dp_port_del(struct dp_port *port);
struct dp_port *dp_port_get(const struct datapath *dp, uint32_t port_no);
/* A port of any datapath, by device name. */
struct dp_port *dp_port_locate(const char *name);
struct dp_port *dp_port_by_ifindex(int ifindex);
const char *dp_port_name(const struct dp_port *port);
int dp_port_set_pids(struct dp_port *port, const uint32_t *pids, unsigned n);

#endif
