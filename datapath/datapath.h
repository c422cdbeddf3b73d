/* SPDX-License-Identifier: Apache-2.0 */
/* Datapaths, their ports and their packet path, kept free of netlink
 * sockets.
 *
 * Datapaths live in a context (struct dp_net, the kernel's per-namespace
 * ovs_net): the daemon makes one, tests make their own. It holds the
 * datapaths, the connection tracker they share, where their upcalls go and
 * the port types they create, and where psample actions' samples go.
 *
 * A datapath is named by its local port (port 0, an internal port named like
 * it); its dp_ifindex is that device's ifindex. Ports are numbered below
 * TAPDP_DP_MAX_PORTS. Names are unique across the datapaths of a context.
 *
 * The packet path (receive threads, and OVS_PACKET_CMD_EXECUTE on the
 * control thread) extracts the key, looks the megaflow table up, executes
 * the flow's actions or sends a miss upcall. Upcalls leave through the
 * context's sink, as ready-made ovs_packet messages.
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
#include "datapath/drop.h"
#include "datapath/meter.h"
#include "tap/vport.h"

struct conntrack;
struct datapath;
struct dp_net;

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
	struct drop_counters *drops;	/* of packets that came in here */
	uint8_t fast;			/* enum fastpath_port: served */
};

/* Packet counters, kept per thread as the kernel keeps them per CPU. */
struct dp_stats {
	uint64_t n_hit, n_missed, n_lost;
	uint64_t n_mask_hit, n_cache_hit;
} __attribute__((aligned(64)));

/* Where upcalls go: a finished ovs_packet message for portid. Returns 0 or
 * a negative errno (the upcall is then lost). */
struct dp_upcall_sink {
	uint16_t family_id;
	uint8_t version;
	/* net: the datapath's context, whose portids the upcall names. */
	int (*send)(struct dp_net *net, uint32_t portid, const void *msg,
		    size_t len);
};

/* A packet the psample action samples, as the kernel's execute_psample
 * gives it to psample_sample_packet. */
struct dp_psample {
	const struct dp_net *net;	/* the datapath's context */
	uint32_t group;
	uint32_t rate;			/* a probability, scaled to UINT32_MAX */
	int in_ifindex;			/* the input port's device */
	uint16_t proto;			/* host order: the skb's protocol */
	const void *cookie;		/* NULL: none */
	uint32_t cookie_len;
	const uint8_t *data;
	uint32_t len;			/* the packet's */
	uint32_t trunc_size;		/* of it to send (trunc()) */
	/* The skb's tunnel: the one set(tunnel) gave, else the one the
	 * packet came in by; NULL: none. */
	const struct tun_key *tun;
};

/* What happened to a packet, as the context's packet sink is told. */
enum dp_packet_kind {
	DP_PACKET_RX,			/* came in by a port */
	DP_PACKET_TX,			/* left by a port */
	DP_PACKET_UPCALL,		/* went to userspace */
	DP_PACKET_DROP,			/* was dropped */
	DP_PACKET_UPCALL_LOST,		/* its upcall failed */
};

struct dp_packet_event {
	enum dp_packet_kind kind;
	const struct dp_net *net;	/* the datapath's context */
	int dp_ifindex;
	uint32_t port_no;		/* TX: the port it left by; else the
					 * one it came in by */
	uint32_t reason;		/* DROP: enum tapdp_drop_reason;
					 * UPCALL_LOST: the errno */
	uint32_t portid;		/* UPCALL*: where it went */
	uint8_t upcall_cmd;		/* UPCALL*: OVS_PACKET_CMD_* */
	const uint8_t *ufid;		/* of the flow it hit; NULL: none */
	uint8_t ufid_len;
	const void *data;		/* the packet */
	uint32_t len;
};

/* Where packets are told as they come, leave, go up and are dropped:
 * listening(kind) is asked first, for every packet at every step, and
 * must cost next to nothing; send() only when it says someone listens.
 * Any packet thread. */
struct dp_packet_sink {
	bool (*listening)(enum dp_packet_kind kind);
	void (*send)(const struct dp_packet_event *ev);
};

/* The connection tracker of a context's datapaths, by default with room
 * for the kernel's nf_conntrack_max on a machine with this much memory. */
#define DP_CONNTRACK_MAX_DEFAULT	262144
/* Flows a context's datapaths may hold together: their counters' file
 * (datapath/flow-stats.h) has room for so many. */
#define DP_FLOWS_MAX			(1u << 21)

struct dp_net_config {
	struct dp_upcall_sink upcall;
	struct dp_packet_sink packets;	/* may be all NULL: not told */
	uint32_t conntrack_max;		/* 0: DP_CONNTRACK_MAX_DEFAULT */
	/* A port type's ops, NULL for a type without support; NULL:
	 * vport_ops_for (this system's devices). */
	const struct vport_ops *(*port_ops)(enum ovs_vport_type type);
	/* Where psample actions' samples go, from the packet's thread
	 * (NULL: nowhere). */
	void (*psample)(const struct dp_psample *sample);
};

/* NULL without memory. */
struct dp_net *dp_net_new(const struct dp_net_config *cfg);
/* Destroys the context's datapaths and its tracker, and closes its
 * journal; what they leave to RCU is freed after a grace period
 * (rcu_barrier() waits for it). */
void dp_net_destroy(struct dp_net *net);
/* The tracker, created on first use (one for all datapaths, as one
 * namespace's nf_conntrack); NULL when it cannot be (the next call tries
 * again). Any thread. */
struct conntrack *dp_net_conntrack(struct dp_net *net);
/* The tracker if it was made, NULL otherwise. Any thread. */
struct conntrack *dp_net_conntrack_made(const struct dp_net *net);
/* fn(ct, net) runs when a context's tracker is made, before any thread
 * sees it: ctnetlink sends its events (families_register sets it). */
void dp_set_conntrack_attach(void (*fn)(struct conntrack *ct, void *net));
/* Makes net a context of another network namespace than the daemon's:
 * netnsid is that namespace's id in ours (NETNSA_NSID_NOT_ASSIGNED: none
 * yet); nsfd (the caller's, -1: none now) where its ports' devices are
 * made, as the kernel makes them in the datapath's namespace. Internal
 * ports only: its other ports would be the daemon's namespace's devices
 * (port_ops says which types). */
void dp_net_set_namespace(struct dp_net *net, int netnsid, int nsfd);
bool dp_net_elsewhere(const struct dp_net *net);
/* NETNSA_NSID_NOT_ASSIGNED for the daemon's own namespace. */
int dp_net_netnsid(const struct dp_net *net);
/* An fd of its namespace while it has one (a client, or ports that hold
 * it); -1 for the daemon's own, or none now. */
int dp_net_nsfd(const struct dp_net *net);
/* Whether another namespace's context still has its namespace: a local
 * port's device is there (destroyed with it; it may not leave). False
 * without datapaths. Control thread. */
bool dp_net_home_alive(const struct dp_net *net);
/* Whether another namespace's context has a port or a device with
 * sockets there (a netdev or tunnel port's, a userspace VLAN device's, a
 * tunnel device of one remote's: common/ns-socket.h), which hold the
 * namespace, as the kernel's do not.
 * Control thread. */
bool dp_net_holds_namespace(const struct dp_net *net);
/* No datapath, no tunnel device, and no tracker was made: nothing would
 * be lost with it. */
bool dp_net_idle(const struct dp_net *net);
/* The context's journal (datapath/journal.h, which sets it), or NULL;
 * dp_net_destroy frees it with free_fn. */
struct journal *dp_net_journal(const struct dp_net *net);
/* The file of net's flow counters (datapath/flow-stats.h). */
struct flow_stats_file *dp_net_flow_stats(const struct dp_net *net);
/* net, with no flow yet, takes fd, the file of a predecessor's (the
 * keeper's, with the journal): 0, or -errno with fd still the caller's. */
int dp_net_take_flow_stats(struct dp_net *net, int fd);
void dp_net_set_journal(struct dp_net *net, struct journal *journal,
			void (*free_fn)(struct journal *));
/* How many contexts there are (the namespaces served). Any thread. */
unsigned dp_net_count(void);
/* Periodic work of the control thread: mask rebalancing. */
void dp_net_run_periodic(struct dp_net *net);

/* The sums of the packet counters over all threads. */
void dp_get_stats(const struct datapath *dp, struct dp_stats *sum);

/* Packets dropped, by reason (n[i] for drop_reason_at(i)): all the
 * datapath's, and those that came in by one port. */
void dp_get_drops(const struct datapath *dp, uint64_t n[DROP_REASONS]);
void dp_port_get_drops(const struct dp_port *port, uint64_t n[DROP_REASONS]);
/* A port's device changed (MTU, place): the fast path's entries of its
 * datapath are made again. */
void dp_port_changed(struct dp_port *port);
/* The device's counters (vport_get_stats()) and the fast path's. */
int dp_port_get_stats(const struct dp_port *port, struct ovs_vport_stats *st);

/* The kernel's nr_cpu_ids: the number of possible CPUs. */
unsigned dp_nr_cpu_ids(void);

/* Creates a datapath and its local port; -EEXIST if the name is taken. */
int dp_create(struct dp_net *net, const char *name, const uint32_t *pids,
	      unsigned n_pids, struct datapath **out);
void dp_destroy(struct datapath *dp);

const char *dp_name(const struct datapath *dp);
int dp_ifindex(const struct datapath *dp);
/* The context dp lives in (the kernel's ovs_dp_get_net). */
struct dp_net *dp_get_net(const struct datapath *dp);
struct datapath *dp_by_ifindex(const struct dp_net *net, int ifindex);
/* The datapath whose local port is called name. */
struct datapath *dp_by_name(const struct dp_net *net, const char *name);
/* Iteration in creation order: dp_at(net, 0), dp_at(net, 1)... NULL past
 * the end. */
struct datapath *dp_at(const struct dp_net *net, unsigned i);

/* The kernel's checks: unknown feature bits -EOPNOTSUPP, a cache size that
 * is not 0 or a power of two -EINVAL. */
int dp_set_features(struct datapath *dp, uint32_t features);
uint32_t dp_features(const struct datapath *dp);
int dp_set_masks_cache_size(struct datapath *dp, uint32_t size);
uint32_t dp_masks_cache_size(const struct datapath *dp);
int dp_set_cpu_pids(struct datapath *dp, const uint32_t *pids, unsigned n);
/* The per-CPU upcall pids (control thread), NULL when none were set. */
const struct dp_pids *dp_cpu_pids(const struct datapath *dp);
/* The meters the ovs_meter family manages. */
struct meter_table *dp_meters(struct datapath *dp);

/* port_no 0 picks the lowest free number. Errors: -EBUSY (number taken),
 * -EFBIG (no number left), -EINVAL (bad pids, or attaching an internal
 * device as netdev), -EBUSY (device already attached), and the vport's own
 * (-ENODEV, -EEXIST, -EAFNOSUPPORT). */
/* tnl: a tunnel port's options (NULL: none given). A netdev port on a
 * tunnel device made over rtnetlink (tap/tnl-dev.h) is a tunnel port. */
int dp_port_add(struct datapath *dp, uint32_t port_no, enum ovs_vport_type,
		const char *name, const struct vport_tunnel_config *tnl,
		const uint32_t *pids, unsigned n_pids, struct dp_port **out);
void dp_port_del(struct dp_port *port);
struct dp_port *dp_port_get(const struct datapath *dp, uint32_t port_no);
/* Iteration in port number order: the port numbered *port_no or the
 * first above it, its number left in *port_no; NULL past the last. */
struct dp_port *dp_port_next(const struct datapath *dp, uint32_t *port_no);
/* A port of any of net's datapaths, by device name. */
struct dp_port *dp_port_locate(const struct dp_net *net, const char *name);
/* The id the datapath's namespace has for the namespace port's device is
 * in (the kernel's peernet2id()): NETNSA_NSID_NOT_ASSIGNED when that is
 * the datapath's own, or has no id there. Control thread. */
int dp_port_netnsid(const struct dp_port *port);
/* Whether the fast path (datapath/fastpath.h) serves the port's device. */
bool dp_port_fast(const struct dp_port *port);
/* A port of any of net's datapaths, by its device's namespace (its id in
 * ours, NETNSA_NSID_NOT_ASSIGNED for ours) and index there. */
struct dp_port *dp_port_by_ifindex(const struct dp_net *net, int netnsid,
				   int ifindex);
const char *dp_port_name(const struct dp_port *port);
/* Whether the kernel would have linked the port's device to the
 * datapath's local port as its master (netdev_master_upper_dev_link):
 * any port but an internal one, its device in the datapath's namespace.
 * Control thread. */
bool dp_port_has_master(const struct dp_port *port);
/* The port's device was renamed: the port goes by the new name, as the
 * kernel's (a vport's name is its device's). Control thread. */
void dp_port_rename(struct dp_port *port, const char *name);
int dp_port_set_pids(struct dp_port *port, const uint32_t *pids, unsigned n);

/* Flows: the table is the datapath's; these keep its counters and free
 * replaced actions and removed flows after a grace period. A flow's
 * actions (flow->actions) are a struct actions_stored. */
struct actions_stored;
/* The flow a packet with key would hit (masks applied), with the masks
 * probed for it (n_mask_hit may be NULL); no mask cache. */
struct flow *dp_flow_lookup(struct datapath *dp, const struct flow_key *key,
			    uint32_t *n_mask_hit);
/* The flow whose unmasked key is key, or whose UFID is ufid. */
struct flow *dp_flow_lookup_exact(struct datapath *dp,
				  const struct flow_key *key);
struct flow *dp_flow_lookup_ufid(struct datapath *dp, const uint8_t *ufid,
				 size_t len);
/* Dump iteration, as flow_table_dump_next(). */
struct flow *dp_flow_dump_next(struct datapath *dp, uint64_t *cursor);
unsigned dp_flow_count(const struct datapath *dp);
unsigned dp_mask_count(const struct datapath *dp);
void dp_flow_set_actions(struct datapath *dp, struct flow *flow,
			 struct actions_stored *acts);
int dp_flow_insert(struct datapath *dp, struct flow *flow,
		   const struct flow_key *key, const struct flow_key *mask);
void dp_flow_remove(struct datapath *dp, struct flow *flow);
void dp_flow_flush(struct datapath *dp);
void dp_flow_clear_stats(struct flow *flow);
/* The flow's counters, the fast path's included. */
void dp_flow_get_stats(const struct flow *flow, struct flow_stats *out);
/* A flow a journal's replay makes again, before dp_flow_insert: it takes
 * the counters it had (the predecessor's slot its record names); false
 * when that slot is none of the file's held ones (it gets new ones). */
bool dp_flow_claim_stats(struct datapath *dp, struct flow *flow,
			 uint32_t slot);
/* The slot of an inserted flow's counters, for its journal record. */
uint32_t dp_flow_stats_slot(const struct flow *flow);

/* The upcall figures of tapdpctl upcalls (upcall-stats.h). */
struct upcall_figures;
void dp_upcall_figures(const struct datapath *dp, struct upcall_figures *f);
/* A flow installed from userspace, whose unmasked key is key: the end of
 * the wait of the miss it answers. Control thread. */
void dp_upcall_answered(struct datapath *dp, const struct flow_key *key);

/* The portid a miss of a packet with this hash that came in by port in
 * goes to (in NULL: a userspace action's, with per-CPU dispatch); 0:
 * none. Inside rcu_read_lock(). */
uint32_t dp_upcall_portid(struct datapath *dp, struct dp_port *in,
			  uint32_t hash);

/* OVS_PACKET_CMD_EXECUTE: runs actions on a copy of frame, with the
 * metadata of key (in_port..., and mac_proto/eth_type for an L3 packet),
 * the MRU of a reassembled datagram (0: none) and the portid its misses
 * and userspace actions go to (0: the datapath's choice). -ENODEV when neither the input port nor the local port exists;
 * -EINVAL when the frame's key cannot be extracted; else what
 * actions_execute() returns (a ct refused by a zone limit: -ENOMEM). */
int dp_execute(struct datapath *dp, const void *frame, size_t len,
	       const struct flow_key *metadata, uint64_t hash, uint16_t mru,
	       uint32_t upcall_pid, const struct actions_stored *acts);
/* An OVS_PACKET_CMD_EXECUTE refused once the kernel would have built the
 * packet (a bad key or actions, no memory for them): the kernel frees it
 * with no reason given, counted here as NOT_SPECIFIED on the datapath and
 * on in_port (the local port when in_port is not one). dp_execute counts
 * its own refusals. */
void dp_execute_refused(struct datapath *dp, const void *frame, size_t len,
			uint32_t in_port);

/* Upcalls' buffers, taken for one upcall each. */
extern struct buf_pool dp_upcall_pool;

#endif
