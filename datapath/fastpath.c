/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/fastpath.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actions/actions.h"
#include "bpf/fastpath-key.h"
#include "common/log.h"
#include "datapath/drop.h"
#include "tap/vport.h"

/* The programs' object, built from bpf/fastpath.bpf.c and linked in. */
extern const char fastpath_bpf_obj[];
extern const uint64_t fastpath_bpf_obj_size;

/* tc filters of ours are known by this handle and priority. */
#define FP_TC_HANDLE	0x7a9d
#define FP_TC_PRIO	1
/* A flow's part of the fast path: its slot of counters, and its entry
 * (its masked fp_key, under the mask of index mask_id) while it has
 * one. */
struct fp_flow {
	struct flow *flow;
	uint32_t slot;
	bool in_table;
	struct fp_key key;
	struct fp_flow_stats folded;	/* of the slot, in the flow's own */
};

/* flow->fast of a flow being removed: it gets no entry. */
static struct fp_flow gone_mark;
#define FP_GONE (&gone_mark)

static struct {
	bool on;
	bool probe;			/* fp_probe loaded (tests) */
	char state[160];
	struct bpf_object *obj;
	int flows, flow_stats, dp_stats, port_stats;	/* map fds */
	int prog_ring, prog_netdev_in, prog_tap_out, prog_probe;
	int trace_n, trace_outs;			/* map fds */
	int barrier, barrier_inner;
	unsigned ncpu;
	pthread_mutex_t lock;
	uint32_t *free_slots, n_free;
	uint32_t *pending, n_pending;	/* freed before the last barrier */
	unsigned entries;
	int masks, conf_fd;		/* map fds */
	struct {
		struct fp_key mask;
		unsigned refs;
		bool pending;		/* freed before the last barrier */
	} mask[FP_MASKS];
	struct fp_conf conf;		/* as in the map */
} fp = {
	.state = "none (--fast-path none)",
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

bool
fastpath_on(void)
{
	return __atomic_load_n(&fp.on, __ATOMIC_RELAXED);
}

const char *
fastpath_state(void)
{
	if (fastpath_on() && __atomic_load_n(&fp.conf.bypass, __ATOMIC_RELAXED))
		return "bpf (off while a capture runs)";
	return fp.state;
}

static int
map_fd(const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(fp.obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

static int
prog_fd(const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(fp.obj, name);

	return p ? bpf_program__fd(p) : -ENOENT;
}

/* Waits until no program runs that may have found what was there before
 * (an update of a map of maps waits for a grace period of the kernel's
 * RCU, which the programs run under). */
static void
barrier(void)
{
	uint32_t zero = 0;

	bpf_map_update_elem(fp.barrier, &zero, &fp.barrier_inner, BPF_ANY);
}

static int
make_barrier(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	fp.barrier_inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fp_inner", 4,
					  4, 1, NULL);
	if (fp.barrier_inner < 0)
		return -errno;
	opts.inner_map_fd = fp.barrier_inner;
	fp.barrier = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "fp_barrier",
				    4, 4, 1, &opts);
	return fp.barrier < 0 ? -errno : 0;
}

static void
set_state(int err, const char *what)
{
	snprintf(fp.state, sizeof(fp.state), "none (%s: %s)", what,
		 strerror(-err));
}

int
fastpath_start(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "tapdp_fp");
	int err;

	fp.obj = bpf_object__open_mem(fastpath_bpf_obj, fastpath_bpf_obj_size,
				      &opts);
	if (!fp.obj) {
		err = -errno;
		set_state(err, "open");
		return err;
	}
	/* The test program only for tests: a daemon verifies no more than
	 * it runs. */
	bpf_program__set_autoload(bpf_object__find_program_by_name(fp.obj,
								   "fp_probe"),
				  fp.probe);
	err = bpf_object__load(fp.obj);
	if (err) {
		set_state(err, "load");
		goto fail;
	}
	fp.flows = map_fd("fp_flows");
	fp.flow_stats = map_fd("fp_flow_stats");
	fp.dp_stats = map_fd("fp_dp_stats");
	fp.port_stats = map_fd("fp_port_stats");
	fp.masks = map_fd("fp_masks");
	fp.conf_fd = map_fd("fp_conf");
	fp.prog_ring = prog_fd("fp_ring");
	fp.prog_netdev_in = prog_fd("fp_netdev_in");
	fp.prog_tap_out = prog_fd("fp_tap_out");
	fp.prog_probe = prog_fd("fp_probe");
	fp.trace_n = map_fd("fp_trace_n");
	fp.trace_outs = map_fd("fp_trace_outs");
	err = make_barrier();
	if (err) {
		set_state(err, "barrier map");
		goto fail;
	}
	fp.ncpu = libbpf_num_possible_cpus();
	fp.free_slots = malloc(FP_SLOTS * sizeof(uint32_t));
	fp.pending = malloc(FP_SLOTS * sizeof(uint32_t));
	if (!fp.free_slots || !fp.pending) {
		err = -ENOMEM;
		set_state(err, "slots");
		goto fail;
	}
	for (uint32_t i = 0; i < FP_SLOTS; i++)
		fp.free_slots[i] = FP_SLOTS - 1 - i;
	fp.n_free = FP_SLOTS;
	snprintf(fp.state, sizeof(fp.state), "bpf");
	__atomic_store_n(&fp.on, true, __ATOMIC_RELEASE);
	log_info("fast path: bpf (tc and socket filter programs loaded)");
	return 0;
fail:
	fastpath_stop();
	return err;
}

void
fastpath_stop(void)
{
	/* Under the lock: an RCU callback may be freeing a flow. */
	pthread_mutex_lock(&fp.lock);
	__atomic_store_n(&fp.on, false, __ATOMIC_RELAXED);
	if (fp.barrier > 0)
		close(fp.barrier);
	if (fp.barrier_inner > 0)
		close(fp.barrier_inner);
	fp.barrier = fp.barrier_inner = 0;
	bpf_object__close(fp.obj);
	fp.obj = NULL;
	free(fp.free_slots);
	free(fp.pending);
	fp.free_slots = fp.pending = NULL;
	pthread_mutex_unlock(&fp.lock);
}

/* Ports. */

static bool
port_can(const struct vport *v, enum ovs_vport_type type)
{
	return (type == OVS_VPORT_TYPE_NETDEV ||
		type == OVS_VPORT_TYPE_INTERNAL) &&
	       !v->l3 && !v->ops->get_stats &&
	       v->netnsid == NETNSA_NSID_NOT_ASSIGNED;
}

static int
tc_attach(int ifindex, enum bpf_tc_attach_point where, int prog, bool *made)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = where);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = FP_TC_HANDLE,
		    .priority = FP_TC_PRIO, .prog_fd = prog,
		    .flags = BPF_TC_F_REPLACE);
	int err = bpf_tc_hook_create(&hook);

	if (err && err != -EEXIST)
		return err;
	*made = !err;
	return bpf_tc_attach(&hook, &opts);
}

static void
tc_detach(int ifindex, enum bpf_tc_attach_point where, bool made)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = where);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = FP_TC_HANDLE,
		    .priority = FP_TC_PRIO);

	bpf_tc_detach(&hook, &opts);
	if (made) {
		/* The clsact qdisc was ours: the device is left as found. */
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
}

/* Per-CPU counters of key in map fd, zeroed, or read (NULL: none). */
static int
counters_zero(int fd, uint32_t key, size_t size)
{
	void *zero = calloc(fp.ncpu, size);
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(fd, &key, zero, BPF_ANY) ? -errno : 0;
	free(zero);
	return err;
}

static void *
counters_read(int fd, uint32_t key, size_t size)
{
	void *v = calloc(fp.ncpu, size);

	if (v && bpf_map_lookup_elem(fd, &key, v)) {
		free(v);
		return NULL;
	}
	return v;
}

enum fastpath_port
fastpath_port_attach(struct vport *v, enum ovs_vport_type type, bool local)
{
	bool made = false;
	int err = 0;

	if (!fastpath_on() || !port_can(v, type))
		return FASTPATH_PORT_NONE;
	if (local)
		err = counters_zero(fp.dp_stats, v->ifindex,
				   sizeof(struct fp_dp_stats));
	/* (Every port's drops; an internal port's frames too.) */
	if (!err)
		err = counters_zero(fp.port_stats, v->ifindex,
				   sizeof(struct fp_port_stats));
	if (!err && type == OVS_VPORT_TYPE_INTERNAL) {
		err = tc_attach(v->ifindex, BPF_TC_EGRESS, fp.prog_tap_out,
				&made);
	} else if (!err) {
		err = tc_attach(v->ifindex, BPF_TC_INGRESS,
				fp.prog_netdev_in, &made);
		/* The ring's filter after the tc program that acts on its
		 * decisions. */
		for (unsigned i = 0; !err && i < v->n_rxq; i++)
			if (setsockopt(v->rxq[i].fd, SOL_SOCKET, SO_ATTACH_BPF,
				       &fp.prog_ring, sizeof(int)) < 0)
				err = -errno;
	}
	if (err) {
		log_warn("%s: fast path not attached: %s", v->name,
			 strerror(-err));
		fastpath_port_detach(v, type, local,
				     made ? FASTPATH_PORT_QDISC
					  : FASTPATH_PORT_ON);
		return FASTPATH_PORT_NONE;
	}
	return made ? FASTPATH_PORT_QDISC : FASTPATH_PORT_ON;
}

void
fastpath_port_detach(struct vport *v, enum ovs_vport_type type, bool local,
		     enum fastpath_port how)
{
	bool made = how == FASTPATH_PORT_QDISC;
	uint32_t ifindex = v->ifindex;

	if (!fastpath_on() || how == FASTPATH_PORT_NONE)
		return;
	bpf_map_delete_elem(fp.port_stats, &ifindex);
	if (type == OVS_VPORT_TYPE_INTERNAL) {
		tc_detach(v->ifindex, BPF_TC_EGRESS, made);
	} else {
		for (unsigned i = 0; i < v->n_rxq; i++)
			setsockopt(v->rxq[i].fd, SOL_SOCKET, SO_DETACH_BPF,
				   &fp.prog_ring, sizeof(int));
		tc_detach(v->ifindex, BPF_TC_INGRESS, made);
	}
	if (local)
		bpf_map_delete_elem(fp.dp_stats, &ifindex);
}

/* Megaflows as the programs match them. */

/* What an eligible frame's flow key holds in the fields fp_key has not:
 * no tunnel, metadata, ct state, MPLS, NSH, IPv6 extension headers or
 * neighbour discovery fields; Ethernet. */
static const struct flow_key eligible = { .mac_proto = FLOW_MAC_ETHERNET };

static void
copy_masked(void *v, void *m, const void *key, const void *mask, size_t n,
	    void *rest)
{
	const uint8_t *k = key, *mk = mask;
	uint8_t *vo = v, *mo = m;

	for (size_t i = 0; i < n; i++) {
		mo[i] = mk[i];
		vo[i] = k[i] & mk[i];
	}
	memset(rest, 0, n);
}

static bool
nonzero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return true;
	return false;
}

bool
fastpath_match(const struct flow_key *key, const struct flow_key *mask,
	       uint32_t in_ifindex, struct fp_key *v, struct fp_key *m)
{
	struct flow_key rest = *mask;
	const uint8_t *k = (const void *)key, *r = (const void *)&rest;
	const uint8_t *e = (const void *)&eligible;
	uint16_t tci_m, tci_v, tpid_m, tpid_v, type;
	bool l3_fields;

	memset(v, 0, sizeof(*v));
	memset(m, 0, sizeof(*m));
	if (mask->in_port) {
		/* Port numbers are 16 bits wide, as the kernel's. */
		if ((mask->in_port & 0xffff) != 0xffff)
			return false;
		m->ifindex = UINT32_MAX;
		v->ifindex = in_ifindex;
	}
	rest.in_port = 0;
	copy_masked(v->eth_dst, m->eth_dst, key->eth_dst, mask->eth_dst, 6,
		    rest.eth_dst);
	copy_masked(v->eth_src, m->eth_src, key->eth_src, mask->eth_src, 6,
		    rest.eth_src);

	/* The tag: its TCI but for the bit the key uses for "present"
	 * (the frame's DEI bit, which the key loses). */
	tci_m = ntohs(mask->vlan.tci);
	tci_v = ntohs(key->vlan.tci) & tci_m;
	tpid_m = ntohs(mask->vlan.tpid);
	tpid_v = ntohs(key->vlan.tpid) & tpid_m;
	if (tpid_m && (tpid_m != 0xffff || (tpid_v && tpid_v != 0x8100)))
		return false;
	if (tpid_m || (tci_m & FLOW_VLAN_PRESENT)) {
		bool tagged = tpid_m ? tpid_v != 0 : (tci_v & FLOW_VLAN_PRESENT);

		if (tpid_m && (tci_m & FLOW_VLAN_PRESENT) &&
		    tagged != !!(tci_v & FLOW_VLAN_PRESENT))
			return false;
		m->vlan = 0xff;
		v->vlan = tagged;
	}
	m->vlan_tci = tci_m & ~FLOW_VLAN_PRESENT;
	v->vlan_tci = tci_v & ~FLOW_VLAN_PRESENT;
	memset(&rest.vlan, 0, sizeof(rest.vlan));

	/* The L3 type: the fields past it read as the key's for that type
	 * only. */
	type = ntohs(key->eth_type & mask->eth_type);
	/* (Each differs from one type to another in eligible frames.) */
	l3_fields = mask->ip_proto || mask->ip_tos || mask->ip_ttl ||
		    mask->ipv4_src || mask->ipv4_dst || mask->tp_src ||
		    mask->tp_dst || mask->tcp_flags || mask->ipv6_label ||
		    nonzero(mask->arp_sha, 6) || nonzero(mask->arp_tha, 6) ||
		    nonzero(&mask->ipv6_src, 16) ||
		    nonzero(&mask->ipv6_dst, 16);
	if (mask->eth_type) {
		if (mask->eth_type != 0xffff)
			return false;
		m->l3 = 0xff;
		if (type == FP_ETH_P_IP)
			v->l3 = FP_L3_IPV4;
		else if (type == FP_ETH_P_IPV6)
			v->l3 = FP_L3_IPV6;
		else if (type == FP_ETH_P_ARP)
			v->l3 = FP_L3_ARP;
		else
			return false;
	} else if (l3_fields) {
		return false;
	}
	rest.eth_type = 0;
	if (v->l3 == FP_L3_ARP) {
		/* The key's opcode is 0 for one over 255 too. */
		if (mask->ip_proto && (mask->ip_proto != 0xff || !key->ip_proto))
			return false;
		if (mask->ip_proto) {
			m->proto = m->arp_op_hi = 0xff;
			v->proto = key->ip_proto;
		}
		rest.ip_proto = 0;
		copy_masked(v->src, m->src, &key->ipv4_src, &mask->ipv4_src, 4,
			    &rest.ipv4_src);
		copy_masked(v->dst, m->dst, &key->ipv4_dst, &mask->ipv4_dst, 4,
			    &rest.ipv4_dst);
		copy_masked(v->arp_sha, m->arp_sha, key->arp_sha,
			    mask->arp_sha, 6, rest.arp_sha);
		copy_masked(v->arp_tha, m->arp_tha, key->arp_tha,
			    mask->arp_tha, 6, rest.arp_tha);
	} else if (v->l3) {
		copy_masked(&v->proto, &m->proto, &key->ip_proto,
			    &mask->ip_proto, 1, &rest.ip_proto);
		copy_masked(&v->tos, &m->tos, &key->ip_tos, &mask->ip_tos, 1,
			    &rest.ip_tos);
		copy_masked(&v->ttl, &m->ttl, &key->ip_ttl, &mask->ip_ttl, 1,
			    &rest.ip_ttl);
		if (v->l3 == FP_L3_IPV4) {
			copy_masked(v->src, m->src, &key->ipv4_src,
				    &mask->ipv4_src, 4, &rest.ipv4_src);
			copy_masked(v->dst, m->dst, &key->ipv4_dst,
				    &mask->ipv4_dst, 4, &rest.ipv4_dst);
		} else {
			copy_masked(v->src, m->src, &key->ipv6_src,
				    &mask->ipv6_src, 16, &rest.ipv6_src);
			copy_masked(v->dst, m->dst, &key->ipv6_dst,
				    &mask->ipv6_dst, 16, &rest.ipv6_dst);
			m->label = ntohl(mask->ipv6_label);
			v->label = ntohl(key->ipv6_label & mask->ipv6_label);
			rest.ipv6_label = 0;
		}
		copy_masked(&v->tp_src, &m->tp_src, &key->tp_src,
			    &mask->tp_src, 2, &rest.tp_src);
		copy_masked(&v->tp_dst, &m->tp_dst, &key->tp_dst,
			    &mask->tp_dst, 2, &rest.tp_dst);
		copy_masked(&v->tcp_flags, &m->tcp_flags, &key->tcp_flags,
			    &mask->tcp_flags, 2, &rest.tcp_flags);
	}
	/* Every other field it matches on must hold what an eligible
	 * frame's key holds there. */
	for (size_t i = 0; i < sizeof(rest); i++)
		if ((k[i] & r[i]) != (e[i] & r[i]))
			return false;
	return true;
}

static void
slot_zero(uint32_t slot)
{
	counters_zero(fp.flow_stats, slot, sizeof(struct fp_flow_stats));
}

/* Slots of counters and masks given back wait for a barrier before they
 * are handed out again: a program may still be using one. Under the
 * lock. */
static void
recycle(void)
{
	barrier();
	memcpy(fp.free_slots + fp.n_free, fp.pending,
	       fp.n_pending * sizeof(uint32_t));
	fp.n_free += fp.n_pending;
	fp.n_pending = 0;
	for (unsigned i = 0; i < FP_MASKS; i++)
		fp.mask[i].pending = false;
}

static bool
slot_get(uint32_t *slot)
{
	if (!fp.n_free && fp.n_pending)
		recycle();
	if (!fp.n_free)
		return false;
	*slot = fp.free_slots[--fp.n_free];
	slot_zero(*slot);
	return true;
}

static int
mask_find(const struct fp_key *m)
{
	for (unsigned i = 0; i < fp.conf.n_masks; i++)
		if (fp.mask[i].refs && !memcmp(&fp.mask[i].mask, m, sizeof(*m)))
			return i;
	return -1;
}

static int
mask_free_index(void)
{
	for (unsigned i = 0; i < FP_MASKS; i++)
		if (!fp.mask[i].refs && !fp.mask[i].pending)
			return i;
	return -1;
}

/* The index of mask m, made if need be; -1 when all are taken. */
static int
mask_get(const struct fp_key *m)
{
	struct fp_mask bm = { .mask = *m, .active = 1 };
	struct fp_conf conf;
	uint32_t zero = 0;
	int i = mask_find(m);

	if (i >= 0) {
		fp.mask[i].refs++;
		return i;
	}
	i = mask_free_index();
	if (i < 0) {
		recycle();
		i = mask_free_index();
	}
	if (i < 0 || bpf_map_update_elem(fp.masks, &(uint32_t){ i }, &bm,
					 BPF_ANY))
		return -1;
	fp.mask[i].mask = *m;
	fp.mask[i].refs = 1;
	if ((uint32_t)i >= fp.conf.n_masks) {
		conf = fp.conf;
		conf.n_masks = i + 1;
		if (bpf_map_update_elem(fp.conf_fd, &zero, &conf, BPF_ANY)) {
			fp.mask[i].refs = 0;
			return -1;
		}
		fp.conf = conf;
	}
	return i;
}

static void
mask_put(unsigned i)
{
	struct fp_mask off = { .active = 0 };

	if (--fp.mask[i].refs)
		return;
	bpf_map_update_elem(fp.masks, &(uint32_t){ i }, &off, BPF_ANY);
	fp.mask[i].pending = true;
}

static struct fp_flow *
part_new(struct flow *flow)
{
	struct fp_flow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (!slot_get(&f->slot)) {
		free(f);
		return NULL;
	}
	f->flow = flow;
	flow->fast = f;
	return f;
}

void
fastpath_flow_install(struct flow *flow, const struct flow_key *mask,
		      uint32_t in_ifindex, struct fp_actions *a)
{
	struct fp_key v, m;
	struct fp_flow *f;
	int idx;

	if (!fastpath_on() ||
	    !fastpath_match(&flow->key, mask, in_ifindex, &v, &m))
		return;
	pthread_mutex_lock(&fp.lock);
	f = flow->fast;
	if (!fp.on || f == FP_GONE || (f && f->in_table))
		goto out;
	idx = mask_get(&m);
	if (idx < 0)
		goto out;
	if (!f && !(f = part_new(flow))) {
		mask_put(idx);
		goto out;
	}
	v.mask_id = idx;
	a->slot = f->slot;
	if (bpf_map_update_elem(fp.flows, &v, a, BPF_NOEXIST)) {
		/* Another megaflow of the same match (the kernel allows two
		 * with different masks), or no room. */
		mask_put(idx);
		goto out;
	}
	f->key = v;
	f->in_table = true;
	fp.entries++;
out:
	pthread_mutex_unlock(&fp.lock);
}

/* Forgetting. Under the lock. */

static void
part_clear(struct fp_flow *f)
{
	if (!f->in_table)
		return;
	bpf_map_delete_elem(fp.flows, &f->key);
	mask_put(f->key.mask_id);
	f->in_table = false;
	fp.entries--;
}

/* The sums of the slot's counters over the CPUs. */
static void
slot_read(uint32_t slot, struct fp_flow_stats *sum)
{
	struct fp_flow_stats *v = counters_read(fp.flow_stats, slot,
						sizeof(*v));

	memset(sum, 0, sizeof(*sum));
	if (!v)
		return;
	for (unsigned c = 0; c < fp.ncpu; c++) {
		sum->packets += v[c].packets;
		sum->bytes += v[c].bytes;
		if (v[c].used_ns > sum->used_ns)
			sum->used_ns = v[c].used_ns;
		sum->tcp_flags |= v[c].tcp_flags;
	}
	free(v);
}

static void
stats_add(struct flow_stats *st, const struct fp_flow_stats *s)
{
	uint64_t used = s->used_ns / 1000000;

	if (!s->packets)
		return;
	__atomic_fetch_add(&st->packets, s->packets, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->bytes, s->bytes, __ATOMIC_RELAXED);
	if (used > __atomic_load_n(&st->used_ms, __ATOMIC_RELAXED))
		__atomic_store_n(&st->used_ms, used, __ATOMIC_RELAXED);
	__atomic_fetch_or(&st->tcp_flags, (uint16_t)s->tcp_flags,
			  __ATOMIC_RELAXED);
}

/* The flow's part while the fast path is on, else NULL (also for one
 * without, or one going). Under the lock. */
static struct fp_flow *
live_part(const struct flow *flow)
{
	struct fp_flow *f = fp.on ? flow->fast : NULL;

	return f == FP_GONE ? NULL : f;
}

/* What the programs counted for the flow since the last fold goes into
 * its own counters (in the keeper's file: a successor's counts go on
 * from every figure a client was given). Under the lock. */
static void
fold(struct fp_flow *f)
{
	struct fp_flow_stats sum, delta;

	slot_read(f->slot, &sum);
	delta = (struct fp_flow_stats) {
		.packets = sum.packets - f->folded.packets,
		.bytes = sum.bytes - f->folded.bytes,
		.used_ns = sum.used_ns,
		.tcp_flags = sum.tcp_flags,
	};
	f->folded = sum;
	if (f->flow->stats)
		stats_add(f->flow->stats, &delta);
}

void
fastpath_flow_forget(struct flow *flow, bool gone)
{
	struct fp_flow *f;

	if (!fastpath_on())
		return;
	pthread_mutex_lock(&fp.lock);
	f = live_part(flow);
	if (f) {
		part_clear(f);
		if (gone) {
			fold(f);
			fp.pending[fp.n_pending++] = f->slot;
			free(f);
		}
	}
	if (gone)
		flow->fast = FP_GONE;
	pthread_mutex_unlock(&fp.lock);
}

void
fastpath_flow_fold(const struct flow *flow)
{
	struct fp_flow *f;

	if (!fastpath_on())
		return;
	pthread_mutex_lock(&fp.lock);
	f = live_part(flow);
	if (f)
		fold(f);
	pthread_mutex_unlock(&fp.lock);
}

void
fastpath_flow_clear_stats(struct flow *flow)
{
	struct fp_flow *f;

	if (!fastpath_on())
		return;
	pthread_mutex_lock(&fp.lock);
	f = live_part(flow);
	if (f) {
		slot_zero(f->slot);
		memset(&f->folded, 0, sizeof(f->folded));
	}
	pthread_mutex_unlock(&fp.lock);
}

/* Datapaths' and ports' counters. */


/* The reasons of enum fp_drop. */
static const uint32_t fp_drop_reason[FP_DROPS] = {
	[FP_DROP_LAST_ACTION] = TAPDP_DROP_OVS_LAST_ACTION,
	[FP_DROP_EXPLICIT] = TAPDP_DROP_OVS_EXPLICIT,
	[FP_DROP_EXPLICIT_WITH_ERROR] = TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR,
};

static void
drops_add(const __u64 *d, uint64_t n[DROP_REASONS])
{
	for (unsigned r = FP_DROP_NONE + 1; r < FP_DROPS; r++) {
		int i = drop_reason_index(fp_drop_reason[r]);

		if (i >= 0)
			n[i] += d[r];
	}
}

uint64_t
fastpath_dp_stats(int dp_ifindex, uint64_t drops[DROP_REASONS])
{
	struct fp_dp_stats *v;
	uint64_t n = 0;

	if (!fastpath_on() ||
	    !(v = counters_read(fp.dp_stats, dp_ifindex, sizeof(*v))))
		return 0;
	for (unsigned c = 0; c < fp.ncpu; c++) {
		n += v[c].n_hit;
		if (drops)
			drops_add(v[c].n_drop, drops);
	}
	free(v);
	return n;
}

void
fastpath_port_stats(int ifindex, struct ovs_vport_stats *st,
		    uint64_t drops[DROP_REASONS])
{
	struct fp_port_stats *v;

	if (!fastpath_on() ||
	    !(v = counters_read(fp.port_stats, ifindex, sizeof(*v))))
		return;
	for (unsigned c = 0; c < fp.ncpu; c++) {
		if (st) {
			st->rx_packets += v[c].rx_packets;
			st->rx_bytes += v[c].rx_bytes;
			st->tx_packets += v[c].tx_packets;
			st->tx_bytes += v[c].tx_bytes;
		}
		if (drops)
			drops_add(v[c].n_drop, drops);
	}
	free(v);
}

/* The programs' configuration, conf with its field set to on. */
static void
conf_set(size_t field, bool on)
{
	struct fp_conf conf;
	uint32_t zero = 0;

	if (!fastpath_on())
		return;
	pthread_mutex_lock(&fp.lock);
	conf = fp.conf;
	memcpy((uint8_t *)&conf + field, &(uint32_t){ on }, sizeof(uint32_t));
	if (fp.on && memcmp(&conf, &fp.conf, sizeof(conf)) &&
	    !bpf_map_update_elem(fp.conf_fd, &zero, &conf, BPF_ANY))
		fp.conf = conf;
	pthread_mutex_unlock(&fp.lock);
}

void
fastpath_set_bypass(bool on)
{
	conf_set(offsetof(struct fp_conf, bypass), on);
}

void
fastpath_set_drops_told(bool on)
{
	conf_set(offsetof(struct fp_conf, drops_told), on);
}

void
fastpath_want_probe(void)
{
	fp.probe = true;
}

int
fastpath_probe(const void *frame, size_t len, struct fastpath_probe *out)
{
	struct __sk_buff ctx = { .ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	struct fp_trace t = { 0 };
	uint32_t zero = 0;

	if (!fastpath_on() || !fp.probe)
		return -ENOTCONN;
	if (bpf_map_update_elem(fp.trace_n, &zero, &t, BPF_ANY) ||
	    bpf_prog_test_run_opts(fp.prog_probe, &opts) ||
	    bpf_map_lookup_elem(fp.trace_n, &zero, &t))
		return -errno;
	memset(out, 0, sizeof(*out));
	out->taken = opts.retval != TC_ACT_OK;
	out->drop = t.drop;
	out->n_out = t.n_out < FP_TRACE_MAX ? t.n_out : FP_TRACE_MAX;
	for (uint32_t i = 0; i < out->n_out; i++)
		if (bpf_map_lookup_elem(fp.trace_outs, &i, &out->out[i]))
			return -errno;
	return 0;
}

unsigned
fastpath_entries(void)
{
	return __atomic_load_n(&fp.entries, __ATOMIC_RELAXED);
}
