/* Datapaths, their ports and their packet path, kept free of netlink
 * sockets.
 *
 * A datapath is named by its local port (port 0, an internal port named like
 * it); its dp_ifindex is that device's ifindex. Ports are numbered below
 * TAPDP_DP_MAX_PORTS. Names are unique across all datapaths.
 *
 * The packet path (receive threads, and OVS_PACKET_CMD_EXECUTE on the
 * control thread) extracts the key, looks the megaflow table up, executes
 * the flow's actions or sends a miss upcall. Upcalls leave through the sink
 * the daemon installs (dp_set_upcall_sink), as ready-made ovs_packet
 * messages.
 *
 * Threads: creation, deletion and changes happen on the control thread, a
 * registered RCU thread. Receive threads read ports, pids and flows under
 * rcu_read_lock(); what they may be reading is freed after a grace period.
 * A port's receive threads are joined before the port is freed. */
#ifndef TAPDP_DATAPATH_H
#define TAPDP_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/table.h"
#include "include/tapdp/ovs-uapi.h"
#include "datapath/meter.h"
#include "vport/vport.h"

struct dp_pids {
	unsigned n;
	uint32_t pid[];
};

struct dp_port {
	struct datapath *dp;
	uint32_t port_no;
	enum ovs_vport_type type;
	struct vport *vport;
	struct dp_pids *pids;		/* RCU */
	uint64_t upcall_success;	/* atomic */
	uint64_t upcall_fail;		/* atomic */
};

struct dp_port_array {
	uint32_t n;
	struct dp_port *port[];		/* RCU entries */
};

/* Packet counters, kept per thread as the kernel keeps them per CPU: each
 * packet thread adds to its own slot (atomically, since threads past
 * DP_STATS_SLOTS share slots) and readers sum the slots. */
#define DP_STATS_SLOTS	16

struct dp_stats {
	uint64_t n_hit, n_missed, n_lost;
	uint64_t n_mask_hit, n_cache_hit;
} __attribute__((aligned(64)));

struct datapath {
	struct dp_stats stats[DP_STATS_SLOTS];
	uint32_t user_features;
	struct dp_pids *cpu_pids;	/* RCU: per-CPU upcall pids, or NULL */
	struct dp_port_array *ports;	/* RCU, indexed by port number */
	struct meter_table meters;
	struct flow_table table;
};

/* A flow's actions as stored: the validated netlink blob. */
struct dp_actions {
	struct rcu_head rcu;
	int len;
	uint8_t data[] __attribute__((aligned(4)));
};

/* Where upcalls go: a finished ovs_packet message for portid. Returns 0 or
 * a negative errno (the upcall is then lost). */
struct dp_upcall_sink {
	uint16_t family_id;
	uint8_t version;
	int (*send)(uint32_t portid, const void *msg, size_t len);
};

void dp_set_upcall_sink(const struct dp_upcall_sink *sink);

/* The sums of the packet counters over all threads. */
void dp_get_stats(const struct datapath *dp, struct dp_stats *sum);

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

/* The kernel's checks: unknown feature bits -EOPNOTSUPP, a cache size that
 * is not 0 or a power of two -EINVAL. */
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
/* A port of any datapath, by its device's namespace (its id in ours,
 * NETNSA_NSID_NOT_ASSIGNED for ours) and index there. */
struct dp_port *dp_port_by_ifindex(int netnsid, int ifindex);
const char *dp_port_name(const struct dp_port *port);
int dp_port_set_pids(struct dp_port *port, const uint32_t *pids, unsigned n);

/* Flows: the table is the datapath's; these keep its counters and free
 * replaced actions and removed flows after a grace period. */
struct dp_actions *dp_actions_new(const void *data, int len);
void dp_flow_set_actions(struct flow *flow, struct dp_actions *acts);
int dp_flow_insert(struct datapath *dp, struct flow *flow,
		   const struct flow_key *key, const struct flow_key *mask);
void dp_flow_remove(struct datapath *dp, struct flow *flow);
void dp_flow_flush(struct datapath *dp);
void dp_flow_clear_stats(struct flow *flow);

/* OVS_PACKET_CMD_EXECUTE: runs actions on a copy of frame, with the
 * metadata of key (in_port..., and mac_proto/eth_type for an L3 packet)
 * and the MRU of a reassembled datagram (0:
 * none). -ENODEV when neither the input port nor the local port exists. */
int dp_execute(struct datapath *dp, const void *frame, size_t len,
	       const struct flow_key *metadata, uint64_t hash, uint16_t mru,
	       const void *actions, int actions_len);

/* The connection tracker all datapaths share, created on first use with
 * room for the set maximum of connections (the kernel's nf_conntrack_max
 * on a machine with this much memory). */
#define DP_CONNTRACK_MAX_DEFAULT	262144
struct conntrack;
void dp_conntrack_set_max(uint32_t max);
struct conntrack *dp_conntrack(void);
void dp_conntrack_destroy(void);

/* Periodic work of the control thread: mask rebalancing. */
void dp_run_periodic(void);

#endif
