/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "datapath/datapath.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/net_namespace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "ct/conntrack.h"
#include "ct/frag.h"
#include "actions/actions.h"
#include "bpf/fastpath-abi.h"
#include "datapath/fastpath.h"
#include "datapath/fastpath-actions.h"
#include "datapath/flow-stats.h"
#include "datapath/upcall-stats.h"
#include "flow/emc.h"
#include "flow/extract.h"
#include "flow/key-netlink.h"
#include "flow/packet.h"
#include "flow/tun-netlink.h"
#include "genl-server/attr.h"
#include "genl-server/msg.h"
#include "packet/eth.h"
#include "packet/frame.h"
#include "packet/gso.h"
#include "tap/netdev.h"
#include "tap/tnl-dev.h"
#include "tap/vlan-dev.h"

/* Room for an upcall: headers, key, userdata, actions and a 64 KiB frame. */
#define UPCALL_BUF	(FRAME_MAX + 8192 + 32768)
#define HASH_SW_BIT	(1ULL << 32)	/* OVS_PACKET_ATTR_HASH flags */
#define HASH_L4_BIT	(1ULL << 33)

struct buf_pool dp_upcall_pool = BUF_POOL_INIT(UPCALL_BUF);

/* Packet counters: each packet thread adds to its own slot (atomically,
 * since threads past DP_STATS_SLOTS share slots) and readers sum them. */
#define DP_STATS_SLOTS	16

struct dp_port_array {
	uint32_t n;
	struct dp_port *port[];		/* RCU entries */
};

struct datapath {
	struct dp_stats stats[DP_STATS_SLOTS];
	struct dp_net *net;
	struct drop_counters *drops;
	uint32_t user_features;
	struct dp_pids *cpu_pids;	/* RCU: per-CPU upcall pids, or NULL */
	struct upcall_stats *upcalls;
	struct dp_port_array *ports;	/* RCU, indexed by port number */
	struct meter_table meters;
	struct flow_table table;
};

/* The datapaths in creation order, published whole: a packet execute
 * finds its datapath under RCU, without the control lock. A destroyed one
 * leaves a hole (NULL) until the next creation copies the list. */
struct dp_list {
	struct rcu_head rcu;
	unsigned n;
	struct datapath *dp[];
};

struct dp_net {
	struct dp_list *dps;		/* RCU; never NULL */
	struct dp_upcall_sink upcall;
	struct dp_packet_sink packets;
	const struct vport_ops *(*port_ops)(enum ovs_vport_type type);
	void (*psample)(const struct dp_psample *sample);
	/* The tracker, created on first use (by any thread) and kept;
	 * tried again at each use while it cannot be made. */
	pthread_mutex_t conntrack_lock;
	struct conntrack *conntrack;	/* atomic */
	bool conntrack_failed;		/* the last try: said once */
	uint32_t conntrack_max;
	/* Another namespace than the daemon's (elsewhere): its id in ours
	 * (NETNSA_NSID_NOT_ASSIGNED: ours, or none given yet) and, while a
	 * client of it is connected, an fd of it, where ports are made
	 * (else -1). */
	bool elsewhere;
	int netnsid;
	int nsfd;
	struct journal *journal;	/* datapath/journal.h's, or NULL */
	void (*journal_free)(struct journal *);
	struct flow_stats_file *flow_stats;	/* never NULL */
};

/* The receive (or executing) thread's state. */
static __thread struct flow_mask_cache *mask_cache;
static __thread struct flow_emc *emc;
static __thread uint8_t *exec_buf;	/* dp_execute's packet buffer */
static __thread size_t exec_size;
/* This thread's slot of the datapaths' counters (the control thread: 0). */
static __thread unsigned stats_slot;
static unsigned stats_slot_next;

struct dp_ctx {
	struct datapath *dp;
	struct dp_port *in;		/* the input port (executed packets:
					 * the local port when it is gone) */
	/* The tunnel a received packet came in by (NULL: none; executed
	 * packets have none, as the kernel gives them no tunnel dst). */
	const struct tun_key *in_tun;
	const struct flow *flow;	/* the flow it hit, NULL: none */
	/* Where an executed packet's upcalls go (OVS_PACKET_ATTR_UPCALL_PID);
	 * 0: where the datapath's own would. */
	uint32_t upcall_pid;
};

unsigned
dp_nr_cpu_ids(void)
{
	static unsigned n;
	long c;

	if (!n) {
		c = sysconf(_SC_NPROCESSORS_CONF);
		n = c > 0 ? c : 1;
	}
	return n;
}

static int
pids_new(const uint32_t *pids, unsigned n, unsigned max, struct dp_pids **out)
{
	struct dp_pids *p;

	if (!n || (max && n > max))
		return -EINVAL;
	p = malloc(sizeof(*p) + n * sizeof(uint32_t));
	if (!p)
		return -ENOMEM;
	p->n = n;
	memcpy(p->pid, pids, n * sizeof(uint32_t));
	*out = p;
	return 0;
}

/* Upcalls. */

uint32_t
dp_upcall_portid(struct datapath *dp, struct dp_port *in, uint32_t hash)
{
	if (dp->user_features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) {
		struct dp_pids *p = rcu_dereference(dp->cpu_pids);

		/* The kernel answers from the CPU receive-side scaling
		 * steered the packet to; a port here has one receive thread,
		 * so the packet's hash plays the steering: each flow keeps
		 * one handler, and a busy port's new flows spread over all. */
		return p ? p->pid[hash % p->n] : 0;
	} else {
		struct dp_pids *p = in ? rcu_dereference(in->pids) : NULL;

		if (!p || (p->n == 1 && !p->pid[0]))
			return 0;
		return p->pid[hash % p->n];
	}
}

static int upcall_segments(const struct dp_ctx *ctx, uint8_t cmd,
			   uint32_t portid, struct packet *pkt,
			   const struct flow_key *key,
			   const struct nlattr *userdata,
			   const struct tun_key *egress, const void *acts,
			   int acts_len);
static void dp_drop(const struct dp_ctx *ctx, const struct packet *pkt,
		    uint32_t reason);
static void dp_tell(const struct dp_ctx *ctx, const struct packet *pkt,
		    enum dp_packet_kind kind, uint32_t port_no, uint32_t len,
		    uint32_t reason);
static void dp_tell_upcall(const struct dp_ctx *ctx, const struct packet *pkt,
			   uint8_t cmd, uint32_t portid, uint32_t len,
			   int err);

/* Builds in buf (UPCALL_BUF) and sends an ovs_packet upcall of the
 * packet, not a GSO one, on ctx's datapath; 0 when delivered. */
static int
upcall_send(const struct dp_ctx *ctx, uint8_t cmd, uint32_t portid,
	    struct packet *pkt, const struct flow_key *key,
	    const struct nlattr *userdata, const struct tun_key *egress,
	    const void *acts, int acts_len, char *buf)
{
	struct datapath *dp = ctx->dp;
	const struct dp_upcall_sink *sink = &dp->net->upcall;
	uint32_t plen = packet_out_len(pkt);
	struct ovs_header *hdr;
	struct genlmsghdr *gh;
	struct nlattr *nest;
	struct msgbuf mb;
	uint64_t hash;
	int err;

	packet_csum_finish(pkt);
	msgbuf_init(&mb, buf, UPCALL_BUF);
	gh = msgbuf_start(&mb, sink->family_id, 0, 0, 0,
			  GENL_HDRLEN + sizeof(*hdr));
	if (!gh)
		return -EMSGSIZE;
	gh->cmd = cmd;
	gh->version = sink->version;
	hdr = (void *)((char *)gh + GENL_HDRLEN);
	hdr->dp_ifindex = dp_ifindex(dp);
	flow_key_put(&mb, OVS_PACKET_ATTR_KEY, key, key, false);
	if (userdata)
		msgbuf_put(&mb, OVS_PACKET_ATTR_USERDATA, attr_len(userdata),
			   attr_data(userdata));
	if (egress)
		tun_key_put(&mb, OVS_PACKET_ATTR_EGRESS_TUN_KEY, egress, egress,
			    false);
	if (acts) {
		nest = msgbuf_nest_start(&mb, OVS_PACKET_ATTR_ACTIONS);
		if (nest && acts_len)
			msgbuf_put_raw(&mb, acts, acts_len);
		msgbuf_nest_end(&mb, nest);
	}
	if (pkt->mru)
		msgbuf_put_u16(&mb, OVS_PACKET_ATTR_MRU, pkt->mru);
	if (packet_truncated(pkt))
		msgbuf_put_u32(&mb, OVS_PACKET_ATTR_LEN, pkt->len);
	hash = packet_hash(pkt, key) | HASH_SW_BIT;
	if (key->ip_proto == IPPROTO_TCP || key->ip_proto == IPPROTO_UDP)
		hash |= HASH_L4_BIT;
	msgbuf_put_u64(&mb, OVS_PACKET_ATTR_HASH, hash);
	msgbuf_put(&mb, OVS_PACKET_ATTR_PACKET, plen, pkt->data);
	/* OVS_DP_F_UNALIGNED: the packet attribute is not padded. */
	if ((dp->user_features & OVS_DP_F_UNALIGNED) && mb.cur &&
	    !mb.overflow)
		mb.cur->nlmsg_len -= NLA_ALIGN(plen) - plen;
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	err = sink->send(dp->net, portid, mb.buf, mb.len);
	if (!err)
		dp_tell_upcall(ctx, pkt, cmd, portid, plen, 0);
	return err;
}

/* An ovs_packet upcall of the packet on ctx's datapath, in a buffer taken
 * for it; 0 when delivered. */
static int
upcall(const struct dp_ctx *ctx, uint8_t cmd, uint32_t portid,
       struct packet *pkt, const struct flow_key *key,
       const struct nlattr *userdata, const struct tun_key *egress,
       const void *acts, int acts_len)
{
	char *buf;
	int err;

	if (!portid || !ctx->dp->net->upcall.send)
		return -ENOTCONN;
	/* Userspace gets frames without offload metadata: a GSO frame goes
	 * as the segments it stands for, a partial checksum finished, as the
	 * kernel does before an upcall. */
	if (pkt->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		return upcall_segments(ctx, cmd, portid, pkt, key, userdata,
				       egress, acts, acts_len);
	buf = buf_pool_get(&dp_upcall_pool);
	if (!buf)
		return -ENOMEM;
	err = upcall_send(ctx, cmd, portid, pkt, key, userdata, egress, acts,
			  acts_len, buf);
	buf_pool_put(&dp_upcall_pool, buf);
	return err;
}

/* Each segment of a GSO frame its own upcall, with the frame's key and
 * hash, cut to the length the frame was to be cut to, as the kernel's
 * queue_gso_packets(); the first that fails ends them, and then every
 * segment, sent or not, is dropped (NOT_SPECIFIED), as the kernel frees
 * the whole list it made. */
static int
upcall_segments(const struct dp_ctx *ctx, uint8_t cmd, uint32_t portid,
		struct packet *pkt, const struct flow_key *key,
		const struct nlattr *userdata, const struct tun_key *egress,
		const void *acts, int acts_len)
{
	uint8_t *segment_buf;
	struct packet seg;
	struct gso g;
	int err;

	err = gso_init(&g, pkt->data, pkt->len, pkt->l3, &pkt->vnet, 0);
	if (err)
		return err;
	segment_buf = buf_pool_get(&frame_pool);
	if (!segment_buf)
		return -ENOMEM;
	packet_hash(pkt, key);
	seg = *pkt;
	seg.data = segment_buf;
	seg.headroom = seg.tailroom = 0;
	memset(&seg.vnet, 0, sizeof(seg.vnet));
	/* Each keeps the frame's trunc(): cut to it when longer. */
	while (!err && (seg.len = gso_next(&g, segment_buf)))
		err = upcall(ctx, cmd, portid, &seg, key, userdata, egress,
			     acts, acts_len);
	/* Made again, failure being rare, for each drop to show its own. */
	if (err && !gso_init(&g, pkt->data, pkt->len, pkt->l3, &pkt->vnet, 0))
		while ((seg.len = gso_next(&g, segment_buf)))
			dp_drop(ctx, &seg, TAPDP_DROP_NOT_SPECIFIED);
	buf_pool_put(&frame_pool, segment_buf);
	return err;
}

/* An upcall of cmd to portid was made, err its outcome; key: a miss's,
 * whose flow's install is timed. */
static void
count_upcall(const struct dp_ctx *ctx, const struct packet *pkt, uint8_t cmd,
	     uint32_t portid, int err, const struct flow_key *key)
{
	struct datapath *dp = ctx->dp;

	if (err) {
		__atomic_fetch_add(&dp->stats[stats_slot].n_lost, 1,
				   __ATOMIC_RELAXED);
		dp_tell_upcall(ctx, pkt, cmd, portid, pkt->len, err);
	}
	if (ctx->in)
		__atomic_fetch_add(err ? &ctx->in->upcall_fail
				       : &ctx->in->upcall_success, 1,
				   __ATOMIC_RELAXED);
	upcall_stats_count(dp->upcalls, cmd, portid, err, key);
}

/* The packet path. */

static void dp_process(struct dp_ctx *ctx, struct packet *pkt,
		       struct flow_key *key);

/* Tells whoever listens what happened to pkt (kind) at port_no, len of
 * its bytes, with the flow it hit (a drop's reason). */
static void
dp_tell(const struct dp_ctx *ctx, const struct packet *pkt,
	enum dp_packet_kind kind, uint32_t port_no, uint32_t len,
	uint32_t reason)
{
	const struct dp_packet_sink *sink = &ctx->dp->net->packets;
	struct dp_packet_event ev;

	if (!sink->listening || !sink->listening(kind))
		return;
	ev = (struct dp_packet_event){
		.kind = kind,
		.net = ctx->dp->net,
		.dp_ifindex = dp_ifindex(ctx->dp),
		.port_no = port_no,
		.reason = reason,
		.data = pkt->data,
		.len = len,
	};
	if (ctx->flow && ctx->flow->ufid_len) {
		ev.ufid = ctx->flow->ufid;
		ev.ufid_len = ctx->flow->ufid_len;
	}
	sink->send(&ev);
}

/* An upcall of pkt (len of its bytes) to portid, sent (err 0) or lost. */
static void
dp_tell_upcall(const struct dp_ctx *ctx, const struct packet *pkt,
	       uint8_t cmd, uint32_t portid, uint32_t len, int err)
{
	const struct dp_packet_sink *sink = &ctx->dp->net->packets;
	enum dp_packet_kind kind = err ? DP_PACKET_UPCALL_LOST
				       : DP_PACKET_UPCALL;
	struct dp_packet_event ev;

	if (!ctx->in || !sink->listening || !sink->listening(kind))
		return;
	ev = (struct dp_packet_event){
		.kind = kind,
		.net = ctx->dp->net,
		.dp_ifindex = dp_ifindex(ctx->dp),
		.port_no = ctx->in->port_no,
		.reason = -err,
		.portid = portid,
		.upcall_cmd = cmd,
		.data = pkt->data,
		.len = len,
	};
	sink->send(&ev);
}

/* pkt is dropped for reason (enum tapdp_drop_reason): counted on the
 * datapath and on the port it came in by, and told to whoever listens. */
static void
dp_drop(const struct dp_ctx *ctx, const struct packet *pkt, uint32_t reason)
{
	drop_count(ctx->dp->drops, stats_slot, reason);
	drop_count(ctx->in->drops, stats_slot, reason);
	dp_tell(ctx, pkt, DP_PACKET_DROP, ctx->in->port_no, pkt->len, reason);
}

struct frag_out {
	struct dp_port *port;
	const struct tun_key *tun;
};

static void
send_fragment(void *arg, const uint8_t *frame, uint32_t len)
{
	struct frag_out *o = arg;

	vport_send(o->port->vport, frame, len, NULL, o->tun, 0);
}

/* The kernel's MAX_L2_LEN: the longest link-layer header it fragments
 * behind (a tag besides the one the device took off, three labels). */
#define FRAG_L2_MAX	(ETH_HLEN + VLAN_HLEN + 3 * 4)

/* A datagram conntrack reassembled, out as fragments again, none larger
 * than the largest that came in, as the kernel's ovs_fragment(); 0, or
 * why it cannot be. The link-layer header is what lies before the
 * packet's network header (past an MPLS stack, its bottom). */
static uint32_t
output_fragments(struct dp_port *port, const struct packet *pkt,
		 const struct flow_key *key, uint32_t len)
{
	const struct eth_header *eh = header_at(pkt->data, len, 0, sizeof(*eh));
	struct frag_out o = { .port = port, .tun = pkt->egress_tun };
	uint32_t l3 = pkt->layers.l3, l2;

	if (pkt->mru > __atomic_load_n(&port->vport->mtu, __ATOMIC_RELAXED))
		return TAPDP_DROP_PKT_TOO_BIG;
	if (!eh || l3 == FLOW_OFS_NONE)
		return TAPDP_DROP_OVS_FRAG_INVALID_PROTO;
	/* The kernel's device takes the outer tag off before it counts. */
	l2 = eth_type_vlan(eh->eth_type) ? l3 - VLAN_HLEN : l3;
	if (l2 > FRAG_L2_MAX)
		return TAPDP_DROP_OVS_FRAG_L2_TOO_LONG;
	if (key->eth_type != htons(ETH_P_IP) &&
	    key->eth_type != htons(ETH_P_IPV6))
		return TAPDP_DROP_OVS_FRAG_INVALID_PROTO;
	frag_split(pkt->data, len, l3,
		   key->eth_type == htons(ETH_P_IP) ? AF_INET : AF_INET6,
		   pkt->mru, send_fragment, &o);
	return 0;
}

/* Why the kernel drops a frame a port's send refused: over the MTU
 * (ovs_vport_send), or the device down (a TAP's EIO, a packet socket's
 * ENETDOWN: do_output finds it not running). 0: the failure is the
 * device's own, past the datapath. */
static uint32_t
send_drop_reason(int err)
{
	switch (err) {
	case -EMSGSIZE:
		return TAPDP_DROP_NOT_SPECIFIED;
	case -EIO:
	case -ENETDOWN:
		return TAPDP_DROP_DEV_READY;
	default:
		return 0;
	}
}

/* A GSO frame the kernel may not cut (gso_kernel_can), out of port as
 * its segments, each its own frame, as openvswitch.ko's companions
 * (nsh, mpls_gso) would cut it on the device. A request that does not
 * fit the frame is dropped, as the kernel's segmentation fails. */
static uint32_t
output_segments(struct dp_port *port, const struct packet *pkt,
		uint16_t l3_proto)
{
	uint32_t reason = 0, len;
	uint8_t *segment_buf;
	struct gso g;

	if (gso_init(&g, pkt->data, pkt->len, pkt->l3, &pkt->vnet, 0))
		return TAPDP_DROP_NOT_SPECIFIED;
	segment_buf = buf_pool_get(&frame_pool);
	if (!segment_buf)
		return TAPDP_DROP_NOT_SPECIFIED;
	while (!reason && (len = gso_next(&g, segment_buf)))
		reason = send_drop_reason(vport_send_segment(port->vport,
							     segment_buf, len,
							     pkt->egress_tun,
							     l3_proto));
	buf_pool_put(&frame_pool, segment_buf);
	return reason;
}

/* The packet out of port_no. pkt->egress_tun, from a set(tunnel), is the
 * tunnel a tunnel port sends it by; the other ports ignore it, as the
 * kernel's other devices ignore the skb's tunnel dst. */
static void
env_output(void *c, const struct packet *pkt, const struct flow_key *key,
	   uint32_t port_no)
{
	struct dp_ctx *ctx = c;
	struct dp_port *port = dp_port_get(ctx->dp, port_no);
	uint16_t l3_proto = pkt->l3 ? key->eth_type : 0;
	uint32_t len = pkt->len, reason;

	if (!port) {
		dp_drop(ctx, pkt, TAPDP_DROP_DEV_READY);
		return;
	}
	/* An Ethernet port takes Ethernet frames only, as the kernel's;
	 * an L3 port (ARPHRD_NONE) both. */
	if (pkt->l3 && !port->vport->l3) {
		dp_drop(ctx, pkt, TAPDP_DROP_NOT_SPECIFIED);
		return;
	}
	if (packet_truncated(pkt)) {
		uint32_t min = pkt->l3 ? 0 : ETH_HLEN;

		len = packet_out_len(pkt) > min ? packet_out_len(pkt) : min;
		/* A cut frame is no longer one GSO unit. */
		reason = send_drop_reason(vport_send(port->vport, pkt->data,
						     len, NULL, pkt->egress_tun,
						     l3_proto));
	} else if (pkt->mru && !pkt->l3 &&
		   len > (uint32_t)pkt->mru + ETH_HLEN) {
		/* (An L3 packet conntrack reassembled leaves whole.) */
		reason = output_fragments(port, pkt, key, len);
	} else if (pkt->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE &&
		   !gso_kernel_can(pkt->data, len, pkt->l3)) {
		reason = output_segments(port, pkt, l3_proto);
	} else {
		reason = send_drop_reason(vport_send(port->vport, pkt->data,
						     len, &pkt->vnet,
						     pkt->egress_tun,
						     l3_proto));
	}
	if (reason)
		dp_drop(ctx, pkt, reason);
	else
		dp_tell(ctx, pkt, DP_PACKET_TX, port->port_no, len, 0);
}

static void
env_userspace(void *c, const struct packet *pkt, const struct flow_key *key,
	      const struct nlattr *ua, const void *acts, int acts_len)
{
	const struct nlattr *tb[OVS_USERSPACE_ATTR_MAX + 1];
	struct dp_ctx *ctx = c;
	struct datapath *dp = ctx->dp;
	struct tun_key egress;
	bool has_egress = false;
	uint32_t portid;
	int err;

	attr_parse_nested(ua, NULL, OVS_USERSPACE_ATTR_MAX, tb, NULL);
	if (ctx->upcall_pid)
		portid = ctx->upcall_pid;
	else if (dp->user_features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
		portid = dp_upcall_portid(dp, NULL,
				     packet_hash((struct packet *)pkt, key));
	else
		portid = attr_get_u32(tb[OVS_USERSPACE_ATTR_PID]);
	/* The tunnel the packet would leave by through that port, as the
	 * port would complete it (sampling on tunnel ports). */
	if (tb[OVS_USERSPACE_ATTR_EGRESS_TUN_PORT] && pkt->egress_tun) {
		struct dp_port *out = dp_port_get(
			dp, attr_get_u32(tb[OVS_USERSPACE_ATTR_EGRESS_TUN_PORT]));

		egress = *pkt->egress_tun;
		if (out && !vport_egress_info(out->vport, pkt->data,
					      packet_out_len(pkt), &egress))
			has_egress = true;
	}
	err = upcall(ctx, OVS_PACKET_CMD_ACTION, portid, (struct packet *)pkt,
		     key, tb[OVS_USERSPACE_ATTR_USERDATA],
		     has_egress ? &egress : NULL,
		     tb[OVS_USERSPACE_ATTR_ACTIONS] ? acts : NULL, acts_len);
	count_upcall(ctx, pkt, OVS_PACKET_CMD_ACTION, portid, err, NULL);
}

static void
env_recirc(void *c, struct packet *pkt, struct flow_key *key)
{
	dp_process(c, pkt, key);
}

static bool
env_meter(void *c, const struct packet *pkt, uint32_t meter_id)
{
	struct dp_ctx *ctx = c;

	return meter_execute(&ctx->dp->meters, meter_id, pkt->len);
}

static int
env_ct(void *c, struct packet *pkt, struct flow_key *key,
       const struct ct_action *a)
{
	struct dp_ctx *ctx = c;
	struct conntrack *ct = dp_net_conntrack(ctx->dp->net);
	int err = ct ? conntrack_execute(ct, pkt, key, a) : -ENOMEM;

	/* A fragment held for its datagram is no drop. */
	if (err && err != -EINPROGRESS)
		dp_drop(ctx, pkt, TAPDP_DROP_OVS_CONNTRACK);
	return err;
}

static void
env_drop(void *c, const struct packet *pkt, uint32_t reason)
{
	dp_drop(c, pkt, reason);
}

/* The sample comes from the port the packet came in by (the local port
 * for an executed packet whose port is gone). */
static void
env_psample(void *c, const struct packet *pkt, const struct flow_key *key,
	    uint32_t group, const struct nlattr *cookie, uint32_t rate)
{
	struct dp_ctx *ctx = c;
	struct dp_psample s = {
		.net = ctx->dp->net,
		.group = group,
		.rate = rate,
		.in_ifindex = ctx->in->vport->ifindex,
		.proto = ntohs(key->eth_type),
		.cookie = cookie ? attr_data(cookie) : NULL,
		.cookie_len = cookie ? attr_len(cookie) : 0,
		.data = pkt->data,
		.len = pkt->len,
		.trunc_size = packet_out_len(pkt),
		.tun = pkt->egress_tun ? pkt->egress_tun : ctx->in_tun,
	};

	if (ctx->dp->net->psample)
		ctx->dp->net->psample(&s);
}

static const struct actions_env env_ops = {
	.output = env_output,
	.userspace = env_userspace,
	.recirc = env_recirc,
	.meter = env_meter,
	.ct = env_ct,
	.psample = env_psample,
	.drop = env_drop,
};

static void
flow_count_packet(struct flow *flow, const struct packet *pkt,
		  const struct flow_key *key)
{
	struct flow_stats *st = flow->stats;

	__atomic_fetch_add(&st->packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->bytes, pkt->len, __ATOMIC_RELAXED);
	__atomic_store_n(&st->used_ms, clock_now_ms(), __ATOMIC_RELAXED);
	if (key->ip_proto == IPPROTO_TCP && key->tcp_flags)
		__atomic_fetch_or(&st->tcp_flags, key->tcp_flags,
				  __ATOMIC_RELAXED);
}

/* Inside rcu_read_lock(). */
static void
dp_process(struct dp_ctx *ctx, struct packet *pkt, struct flow_key *key)
{
	struct datapath *dp = ctx->dp;
	struct actions_env env = env_ops;
	uint32_t n_mask_hit = 0, n_cache_hit = 0, hash;
	const struct flow *outer = ctx->flow;	/* a recirculation's */
	const struct actions_stored *acts;
	struct dp_stats *st;
	struct flow *flow;
	int err;

	hash = packet_hash(pkt, key);
	flow = flow_emc_lookup(emc, &dp->table, mask_cache, key, hash,
			       &n_mask_hit, &n_cache_hit);
	st = &dp->stats[stats_slot];
	__atomic_fetch_add(&st->n_mask_hit, n_mask_hit, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->n_cache_hit, n_cache_hit, __ATOMIC_RELAXED);
	if (!flow) {
		__atomic_fetch_add(&st->n_missed, 1, __ATOMIC_RELAXED);
		ctx->flow = NULL;
		uint32_t portid = ctx->upcall_pid
					  ? ctx->upcall_pid
					  : dp_upcall_portid(dp, ctx->in, hash);

		err = upcall(ctx, OVS_PACKET_CMD_MISS, portid, pkt, key, NULL,
			     NULL, NULL, 0);
		count_upcall(ctx, pkt, OVS_PACKET_CMD_MISS, portid, err, key);
		/* A full socket is no drop for the kernel (EAGAIN: the
		 * packet is consumed), only a lost upcall; no pid, no socket
		 * at the pid, no memory are. */
		if (err && err != -ENOBUFS)
			dp_drop(ctx, pkt, TAPDP_DROP_NOT_SPECIFIED);
		ctx->flow = outer;
		return;
	}
	__atomic_fetch_add(&st->n_hit, 1, __ATOMIC_RELAXED);
	flow_count_packet(flow, pkt, key);
	acts = rcu_dereference(flow->actions);
	env.ctx = ctx;
	/* A recirculated packet's drops are its new flow's. */
	ctx->flow = flow;
	actions_execute(&env, pkt, key, acts);
	ctx->flow = outer;
}

static void
rx_start(void *owner)
{
	rcu_register_thread();
	mask_cache = flow_mask_cache_new();
	emc = flow_emc_new();
	stats_slot = __atomic_fetch_add(&stats_slot_next, 1,
					__ATOMIC_RELAXED) % DP_STATS_SLOTS;
}

static void
rx_stop(void *owner)
{
	flow_mask_cache_free(mask_cache);
	mask_cache = NULL;
	flow_emc_free(emc);
	emc = NULL;
	actions_thread_free();
	frag_release();
	rcu_unregister_thread();
}

static void
rx_frame(struct vport *vport, uint8_t *buf, size_t size, size_t len,
	 const struct virtio_net_hdr *vh, const struct tun_key *tun,
	 uint16_t l3_proto, void *owner)
{
	struct dp_port *port = owner;
	struct dp_ctx ctx = { .dp = port->dp, .in = port, .in_tun = tun };
	struct flow_key key;
	struct packet pkt;

	packet_init(&pkt, buf, size, len);
	pkt.vnet = *vh;
	dp_tell(&ctx, &pkt, DP_PACKET_RX, port->port_no, len, 0);
	memset(&key, 0, sizeof(key));
	if (tun)
		key.tun = *tun;
	key.in_port = port->port_no;
	/* An L3 packet's protocol is its key's eth_type, as the kernel's
	 * skb->protocol. */
	key.eth_type = l3_proto;
	pkt.l3 = l3_proto != 0;
	/* A frame whose key the kernel cannot extract (too short) is
	 * dropped, with no reason given. */
	if (packet_extract(&pkt, &key) < 0) {
		dp_drop(&ctx, &pkt, TAPDP_DROP_NOT_SPECIFIED);
		return;
	}
	pkt.key_valid = true;
	dp_process(&ctx, &pkt, &key);
}

/* Gives back the pooled buffers the thread's packets took (copies,
 * reassembly), once they are done: after a burst or an execute. */
static void
release_buffers(void)
{
	actions_release();
	frag_release();
}

/* A thread that executed packets gives back what it kept for them when
 * it ends (serving threads end before the daemon does). */
static pthread_key_t exec_key;
static pthread_once_t exec_key_once = PTHREAD_ONCE_INIT;

static void
exec_thread_end(void *unused)
{
	free(exec_buf);
	exec_buf = NULL;
	exec_size = 0;
	actions_thread_free();
	frag_release();
}

static void
exec_key_make(void)
{
	pthread_key_create(&exec_key, exec_thread_end);
}

static void
exec_thread_begin(void)
{
	pthread_once(&exec_key_once, exec_key_make);
	/* Any value but NULL has the destructor run. */
	pthread_setspecific(exec_key, &exec_key);
}

/* A burst of frames is one RCU read-side section: the ports its frames
 * were queued for stay until the queues are flushed. After it, the
 * buffers its packets' copies took go back to the pool. */
static void
rx_begin(void *owner)
{
	rcu_read_lock();
}

static void
rx_end(void *owner)
{
	rcu_read_unlock();
	release_buffers();
}

static const struct vport_rx_ops rx_ops = {
	.start = rx_start,
	.begin = rx_begin,
	.frame = rx_frame,
	.end = rx_end,
	.stop = rx_stop,
};

int
dp_execute(struct datapath *dp, const void *frame, size_t len,
	   const struct flow_key *metadata, uint64_t hash, uint16_t mru,
	   uint32_t upcall_pid, const struct actions_stored *acts)
{
	struct dp_ctx ctx = { .dp = dp, .upcall_pid = upcall_pid };
	struct actions_env env = env_ops;
	struct flow_key key = *metadata;
	/* Room for a whole datagram, should conntrack reassemble one. */
	size_t size = FRAME_HEADROOM +
		      (len > FRAME_IP_MAX ? len : FRAME_IP_MAX) + FRAME_L2_MAX;
	struct packet pkt;
	int err = 0;

	/* The thread's buffer, kept: no allocation per executed packet. */
	if (size > exec_size) {
		uint8_t *grown = realloc(exec_buf, size);

		if (!grown)
			return -ENOMEM;
		if (!exec_buf)
			exec_thread_begin();
		exec_buf = grown;
		exec_size = size;
	}
	packet_init(&pkt, exec_buf, size, len);
	memcpy(pkt.data, frame, len);
	pkt.hash = hash & 0xffffffff;
	pkt.mru = mru;
	/* The metadata tells an L3 packet (an EtherType, no Ethernet). */
	pkt.l3 = key.mac_proto == FLOW_MAC_NONE;
	if (packet_extract(&pkt, &key) < 0) {
		dp_execute_refused(dp, frame, len, key.in_port);
		return -EINVAL;
	}
	rcu_read_lock();
	ctx.in = dp_port_get(dp, key.in_port);
	if (!ctx.in)
		ctx.in = dp_port_get(dp, OVSP_LOCAL);
	if (!ctx.in) {
		err = -ENODEV;
	} else {
		env.ctx = &ctx;
		err = actions_execute(&env, &pkt, &key, acts);
	}
	rcu_read_unlock();
	release_buffers();
	return err;
}

void
dp_execute_refused(struct datapath *dp, const void *frame, size_t len,
		   uint32_t in_port)
{
	struct dp_ctx ctx = { .dp = dp };
	struct packet pkt = { .data = (uint8_t *)frame, .len = len };

	rcu_read_lock();
	ctx.in = dp_port_get(dp, in_port);
	if (!ctx.in)
		ctx.in = dp_port_get(dp, OVSP_LOCAL);
	if (ctx.in)
		dp_drop(&ctx, &pkt, TAPDP_DROP_NOT_SPECIFIED);
	rcu_read_unlock();
}

/* Ports. */

struct dp_port *
dp_port_get(const struct datapath *dp, uint32_t port_no)
{
	struct dp_port_array *a = rcu_dereference(dp->ports);

	return port_no < a->n ? rcu_dereference(a->port[port_no]) : NULL;
}

static int
ports_reserve(struct datapath *dp, uint32_t port_no)
{
	struct dp_port_array *old = dp->ports, *a;
	uint32_t n = old ? old->n : 16;

	if (old && port_no < old->n)
		return 0;
	while (n <= port_no)
		n *= 2;
	if (n > TAPDP_DP_MAX_PORTS)
		n = TAPDP_DP_MAX_PORTS;
	a = calloc(1, sizeof(*a) + n * sizeof(a->port[0]));
	if (!a)
		return -ENOMEM;
	a->n = n;
	if (old)
		memcpy(a->port, old->port, old->n * sizeof(a->port[0]));
	rcu_assign_pointer(dp->ports, a);
	if (old) {
		synchronize_rcu();
		free(old);
	}
	return 0;
}

struct dp_port *
dp_port_next(const struct datapath *dp, uint32_t *port_no)
{
	for (uint32_t p = *port_no; p < dp->ports->n; p++) {
		if (dp->ports->port[p]) {
			*port_no = p;
			return dp->ports->port[p];
		}
	}
	return NULL;
}

const char *
dp_port_name(const struct dp_port *port)
{
	return port->vport->name;
}

bool
dp_port_has_master(const struct dp_port *port)
{
	return port->type != OVS_VPORT_TYPE_INTERNAL &&
	       dp_port_netnsid(port) == NETNSA_NSID_NOT_ASSIGNED;
}

void
dp_port_rename(struct dp_port *port, const char *name)
{
	log_info("%s: port %u %s: device renamed %s", dp_name(port->dp),
		 port->port_no, dp_port_name(port), name);
	snprintf(port->vport->name, sizeof(port->vport->name), "%s", name);
}

/* The next datapath at or after *i in the list, *i moved past it; NULL at
 * the end. Under the control lock or RCU. */
static struct datapath *
dp_list_next(const struct dp_net *net, unsigned *i)
{
	const struct dp_list *l = rcu_dereference(net->dps);

	while (*i < l->n) {
		struct datapath *dp = rcu_dereference(l->dp[(*i)++]);

		if (dp)
			return dp;
	}
	return NULL;
}

static void
dp_list_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct dp_list, rcu));
}

struct datapath *
dp_at(const struct dp_net *net, unsigned i)
{
	struct datapath *dp;

	for (unsigned k = 0; (dp = dp_list_next(net, &k));)
		if (!i--)
			return dp;
	return NULL;
}

static struct dp_port *
find_port(const struct dp_net *net,
	  bool (*match)(const struct dp_port *, const void *),
	  const void *arg)
{
	struct datapath *dp;

	for (unsigned i = 0; (dp = dp_list_next(net, &i));) {
		struct dp_port_array *a = dp->ports;

		for (uint32_t p = 0; p < a->n; p++)
			if (a->port[p] && match(a->port[p], arg))
				return a->port[p];
	}
	return NULL;
}

static bool
name_is(const struct dp_port *port, const void *name)
{
	return !strcmp(dp_port_name(port), name);
}

struct where {
	int netnsid, ifindex;
};

static bool
where_is(const struct dp_port *port, const void *arg)
{
	const struct where *w = arg;

	return port->vport->netnsid == w->netnsid &&
	       port->vport->ifindex == w->ifindex;
}

struct dp_port *
dp_port_locate(const struct dp_net *net, const char *name)
{
	return find_port(net, name_is, name);
}

bool
dp_port_fast(const struct dp_port *port)
{
	return port->fast != FASTPATH_PORT_NONE;
}

int
dp_port_netnsid(const struct dp_port *port)
{
	const struct dp_net *net = port->dp->net;
	int dev = port->vport->netnsid, id;

	if (dev == net->netnsid)
		return NETNSA_NSID_NOT_ASSIGNED;
	/* The daemon's namespace: ids are ours. */
	if (!net->elsewhere)
		return dev;
	/* Another's: asked of the kernel in its name. */
	if (netdev_netnsid_from(net->netnsid, dev, &id))
		return NETNSA_NSID_NOT_ASSIGNED;
	return id;
}

struct dp_port *
dp_port_by_ifindex(const struct dp_net *net, int netnsid, int ifindex)
{
	struct where w = { netnsid, ifindex };

	return find_port(net, where_is, &w);
}

const char *
dp_name(const struct datapath *dp)
{
	return dp_port_name(dp->ports->port[OVSP_LOCAL]);
}

int
dp_ifindex(const struct datapath *dp)
{
	return dp_port_get(dp, OVSP_LOCAL)->vport->ifindex;
}

struct dp_net *
dp_get_net(const struct datapath *dp)
{
	return dp->net;
}

struct datapath *
dp_by_ifindex(const struct dp_net *net, int ifindex)
{
	struct datapath *dp;

	for (unsigned i = 0; (dp = dp_list_next(net, &i));)
		if (dp_ifindex(dp) == ifindex)
			return dp;
	return NULL;
}

struct datapath *
dp_by_name(const struct dp_net *net, const char *name)
{
	struct dp_port *port = dp_port_locate(net, name);

	return port && port->port_no == OVSP_LOCAL ? port->dp : NULL;
}

int
dp_port_set_pids(struct dp_port *port, const uint32_t *pids, unsigned n)
{
	struct dp_pids *p, *old = port->pids;
	int err = pids_new(pids, n, dp_nr_cpu_ids(), &p);

	if (err)
		return err;
	rcu_assign_pointer(port->pids, p);
	synchronize_rcu();
	free(old);
	return 0;
}

/* The errno the kernel gives a second collect-metadata device of a kind
 * in a namespace on the same port. */
/* A port's device was linked to its datapath or unlinked: link
 * listeners hear of it, as of the kernel's
 * netdev_master_upper_dev_link() (and link messages under the shim show
 * the master: families/link-view.h). Not a device that has none; not
 * one gone (the attempt fails). */
static void
port_announce(const struct dp_port *port)
{
	const struct dp_net *net = port->dp->net;

	if (!dp_port_has_master(port) || (net->elsewhere && net->nsfd < 0))
		return;
	netdev_announce(net->nsfd, port->vport->ifindex);
}

static void fast_sync(struct datapath *dp);

static int
port_attach(struct datapath *dp, uint32_t port_no, enum ovs_vport_type type,
	    const char *name, const struct vport_tunnel_config *tnl,
	    const uint32_t *pids, unsigned n_pids, struct dp_port **out)
{
	const struct vport_ops *ops;
	struct dp_port *port, *other;
	struct tnl_dev *td;
	int err;

	port = calloc(1, sizeof(*port));
	if (!port)
		return -ENOMEM;
	port->dp = dp;
	port->port_no = port_no;
	port->type = type;
	port->drops = drop_counters_new();
	err = port->drops ? pids_new(pids, n_pids, dp_nr_cpu_ids(), &port->pids)
			  : -ENOMEM;
	if (err)
		goto fail;
	other = dp_port_locate(dp->net, name);
	if (other && type == OVS_VPORT_TYPE_NETDEV) {
		/* The kernel refuses its own internal devices as netdevs and
		 * a device that already has a datapath attached. */
		err = other->type == OVS_VPORT_TYPE_INTERNAL ? -EINVAL : -EBUSY;
		goto fail;
	}
	err = ports_reserve(dp, port_no);
	if (err)
		goto fail;
	/* A tunnel device made over rtnetlink, added as a netdev: its
	 * port is a tunnel port, as the kernel's vport-netdev on a
	 * collect-metadata device is. */
	td = type == OVS_VPORT_TYPE_NETDEV
	     ? tnl_dev_find(dp->net->netnsid, 0, name) : NULL;
	if (td && td->port) {
		/* A device of one remote: its port is its own. */
		err = -EBUSY;
		goto fail;
	} else if (td) {
		ops = tnl_dev_ops(td);
		tnl = &td->cfg;
	} else {
		ops = dp->net->port_ops(type);
	}
	err = ops ? vport_create(ops, name, dp->net->nsfd, tnl, &rx_ops, port,
			       &port->vport)
		  : -EAFNOSUPPORT;
	if (err)
		goto fail;
	/* Upcalls built at once, per CPU: a running thread's and a
	 * preempted one's. */
	buf_pool_reserve(&dp_upcall_pool, 2 * port->vport->n_rxq);
	rcu_assign_pointer(dp->ports->port[port_no], port);
	port->fast = fastpath_port_attach(port->vport, type,
					  port_no == OVSP_LOCAL);
	if (port->fast)
		fast_sync(dp);
	log_info("%s: added port %u %s (%s%s)", dp_name(dp), port_no, name,
		 ops->name, port->fast ? ", fast path" : "");
	port_announce(port);
	if (out)
		*out = port;
	return 0;
fail:
	free(port->pids);
	free(port->drops);
	free(port);
	return err;
}

int
dp_port_add(struct datapath *dp, uint32_t port_no, enum ovs_vport_type type,
	    const char *name, const struct vport_tunnel_config *tnl,
	    const uint32_t *pids, unsigned n_pids, struct dp_port **out)
{
	if (port_no) {
		if (dp_port_get(dp, port_no))
			return -EBUSY;
	} else {
		for (port_no = 1; dp_port_get(dp, port_no); port_no++)
			;
	}
	if (port_no >= TAPDP_DP_MAX_PORTS)
		return -EFBIG;
	return port_attach(dp, port_no, type, name, tnl, pids, n_pids, out);
}

void
dp_port_del(struct dp_port *port)
{
	struct datapath *dp = port->dp;

	rcu_assign_pointer(dp->ports->port[port->port_no], NULL);
	/* Other ports' threads may still be sending to it. */
	synchronize_rcu();
	if (port->fast)
		fast_sync(dp);
	fastpath_port_detach(port->vport, port->type,
			     port->port_no == OVSP_LOCAL, port->fast);
	port_announce(port);
	vport_destroy(port->vport);
	free(port->pids);
	free(port->drops);
	free(port);
}

/* Datapath settings. */

int
dp_set_features(struct datapath *dp, uint32_t features)
{
	if (features & ~(OVS_DP_F_VPORT_PIDS | OVS_DP_F_UNALIGNED |
			 OVS_DP_F_TC_RECIRC_SHARING |
			 OVS_DP_F_DISPATCH_UPCALL_PER_CPU))
		return -EOPNOTSUPP;
	dp->user_features = features;
	return 0;
}

uint32_t
dp_features(const struct datapath *dp)
{
	return dp->user_features;
}

int
dp_set_masks_cache_size(struct datapath *dp, uint32_t size)
{
	return flow_table_set_cache_size(&dp->table, size);
}

uint32_t
dp_masks_cache_size(const struct datapath *dp)
{
	return flow_table_cache_size(&dp->table);
}

int
dp_set_cpu_pids(struct datapath *dp, const uint32_t *pids, unsigned n)
{
	struct dp_pids *p, *old = dp->cpu_pids;
	int err = pids_new(pids, n, 0, &p);

	if (err)
		return err;
	rcu_assign_pointer(dp->cpu_pids, p);
	synchronize_rcu();
	free(old);
	return 0;
}

const struct dp_pids *
dp_cpu_pids(const struct datapath *dp)
{
	return dp->cpu_pids;
}

struct meter_table *
dp_meters(struct datapath *dp)
{
	return &dp->meters;
}

/* Flows. */

/* An output's port as the fast path sends to it (fastpath_port_fn). */
static bool
fast_port(void *dp, uint32_t port_no, struct fp_op *op)
{
	const struct dp_port *p = dp_port_get(dp, port_no);

	if (!p || !p->fast)
		return false;
	op->ifindex = p->vport->ifindex;
	op->mtu = __atomic_load_n(&p->vport->mtu, __ATOMIC_RELAXED);
	if (p->type == OVS_VPORT_TYPE_INTERNAL) {
		/* Into the host, counted as the TAP's receipt. */
		op->flags = FP_OUT_INGRESS;
		op->counted = 1;
	}
	return true;
}

/* The fast path's entry of a flow made or given new actions. Control
 * thread. */
static void
fast_install(const struct datapath *dp, struct flow *flow)
{
	const struct flow_key *mask = flow_table_mask_key(flow);
	const struct dp_port *local = dp_port_get(dp, OVSP_LOCAL), *in = NULL;
	const struct actions_stored *acts = flow->actions;
	struct fp_actions a = { 0 };

	/* (None while the datapath is being destroyed.) */
	if (!fastpath_on() || !local)
		return;
	a.dp_ifindex = local->vport->ifindex;
	/* A flow of any input port serves every one the fast path does. */
	if (mask->in_port && (!(in = dp_port_get(dp, flow->key.in_port)) ||
			      !in->fast))
		return;
	if (acts && fastpath_actions_make(&flow->key, mask, acts->data,
					  acts->len, fast_port, (void *)dp,
					  &a))
		fastpath_flow_install(flow, mask, in ? in->vport->ifindex : 0,
				      &a);
}

/* A datapath's ports changed: its flows' entries are made again. */
static void
fast_sync(struct datapath *dp)
{
	uint64_t cursor = 0;
	struct flow *flow;

	if (!fastpath_on())
		return;
	while ((flow = dp_flow_dump_next(dp, &cursor))) {
		fastpath_flow_forget(flow, false);
		fast_install(dp, flow);
	}
}


static void
actions_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct actions_stored, rcu));
}

void
dp_flow_set_actions(struct datapath *dp, struct flow *flow,
		    struct actions_stored *acts)
{
	struct actions_stored *old = flow->actions;

	rcu_assign_pointer(flow->actions, acts);
	fastpath_flow_forget(flow, false);
	fast_install(dp, flow);
	if (old)
		call_rcu(&old->rcu, actions_free_rcu);
}

struct flow *
dp_flow_lookup(struct datapath *dp, const struct flow_key *key,
	       uint32_t *n_mask_hit)
{
	uint32_t n_masks, n_cache_hit;

	return flow_table_lookup(&dp->table, NULL, key, 0,
				 n_mask_hit ? n_mask_hit : &n_masks,
				 &n_cache_hit);
}

struct flow *
dp_flow_lookup_exact(struct datapath *dp, const struct flow_key *key)
{
	return flow_table_lookup_exact(&dp->table, key);
}

struct flow *
dp_flow_lookup_ufid(struct datapath *dp, const uint8_t *ufid, size_t len)
{
	return flow_table_lookup_ufid(&dp->table, ufid, len);
}

struct flow *
dp_flow_dump_next(struct datapath *dp, uint64_t *cursor)
{
	return flow_table_dump_next(&dp->table, cursor);
}

unsigned
dp_flow_count(const struct datapath *dp)
{
	return flow_table_count(&dp->table);
}

unsigned
dp_mask_count(const struct datapath *dp)
{
	return flow_table_n_masks(&dp->table);
}

int
dp_flow_insert(struct datapath *dp, struct flow *flow,
	       const struct flow_key *key, const struct flow_key *mask)
{
	int err;

	if (!flow->stats) {
		flow->stats = flow_stats_alloc(dp->net->flow_stats);
		if (!flow->stats)
			return -ENOMEM;
	}
	flow->stats_file = dp->net->flow_stats;
	err = flow_table_insert(&dp->table, flow, key, mask);
	if (err) {
		flow_stats_free(flow->stats_file, flow->stats);
		flow->stats = NULL;
	} else {
		fast_install(dp, flow);
	}
	return err;
}

bool
dp_flow_claim_stats(struct datapath *dp, struct flow *flow, uint32_t slot)
{
	flow->stats = flow_stats_claim(dp->net->flow_stats, slot);
	return flow->stats != NULL;
}

uint32_t
dp_flow_stats_slot(const struct flow *flow)
{
	return flow_stats_slot(flow->stats_file, flow->stats);
}

static void
flow_free(struct flow *flow)
{
	fastpath_flow_forget(flow, true);
	flow_stats_free(flow->stats_file, flow->stats);
	free(flow->actions);
	free(flow);
}

static void
flow_free_rcu(struct rcu_head *head)
{
	flow_free(caa_container_of(head, struct flow, rcu));
}

void
dp_flow_remove(struct datapath *dp, struct flow *flow)
{
	fastpath_flow_forget(flow, true);
	flow_table_remove(&dp->table, flow);
	call_rcu(&flow->rcu, flow_free_rcu);
}

void
dp_flow_flush(struct datapath *dp)
{
	flow_table_flush(&dp->table, flow_free);
}

void
dp_flow_clear_stats(struct flow *flow)
{
	struct flow_stats *st = flow->stats;

	__atomic_store_n(&st->packets, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->used_ms, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->tcp_flags, 0, __ATOMIC_RELAXED);
	fastpath_flow_clear_stats(flow);
}

void
dp_flow_get_stats(const struct flow *flow, struct flow_stats *out)
{
	const struct flow_stats *st = flow->stats;

	fastpath_flow_fold(flow);
	*out = (struct flow_stats) {
		.packets = __atomic_load_n(&st->packets, __ATOMIC_RELAXED),
		.bytes = __atomic_load_n(&st->bytes, __ATOMIC_RELAXED),
		.used_ms = __atomic_load_n(&st->used_ms, __ATOMIC_RELAXED),
		.tcp_flags = __atomic_load_n(&st->tcp_flags,
					     __ATOMIC_RELAXED),
	};
}

void
dp_net_run_periodic(struct dp_net *net)
{
	struct datapath *dp;

	for (unsigned i = 0; (dp = dp_list_next(net, &i));)
		flow_table_rebalance(&dp->table);
}

/* Datapaths. */

void
dp_get_stats(const struct datapath *dp, struct dp_stats *sum)
{
	uint64_t hits;

	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < DP_STATS_SLOTS; i++) {
		const struct dp_stats *s = &dp->stats[i];

		sum->n_hit += __atomic_load_n(&s->n_hit, __ATOMIC_RELAXED);
		sum->n_missed += __atomic_load_n(&s->n_missed,
						 __ATOMIC_RELAXED);
		sum->n_lost += __atomic_load_n(&s->n_lost, __ATOMIC_RELAXED);
		sum->n_mask_hit += __atomic_load_n(&s->n_mask_hit,
						   __ATOMIC_RELAXED);
		sum->n_cache_hit += __atomic_load_n(&s->n_cache_hit,
						    __ATOMIC_RELAXED);
	}
	/* Each fast path hit as the exact-match stage's: one mask probed,
	 * a cache hit. */
	hits = fastpath_dp_stats(dp_ifindex(dp), NULL);
	sum->n_hit += hits;
	sum->n_mask_hit += hits;
	sum->n_cache_hit += hits;
}

void
dp_get_drops(const struct datapath *dp, uint64_t n[DROP_REASONS])
{
	drop_sum(dp->drops, n);
	fastpath_dp_stats(dp_ifindex(dp), n);
}

void
dp_port_changed(struct dp_port *port)
{
	if (port->fast)
		fast_sync(port->dp);
}

int
dp_port_get_stats(const struct dp_port *port, struct ovs_vport_stats *st)
{
	int err = vport_get_stats(port->vport, st);

	if (port->type == OVS_VPORT_TYPE_INTERNAL && port->fast)
		fastpath_port_stats(port->vport->ifindex, st, NULL);
	return err;
}

void
dp_port_get_drops(const struct dp_port *port, uint64_t n[DROP_REASONS])
{
	drop_sum(port->drops, n);
	if (port->fast)
		fastpath_port_stats(port->vport->ifindex, NULL, n);
}

int
dp_create(struct dp_net *net, const char *name, const uint32_t *pids,
	  unsigned n_pids, struct datapath **out)
{
	struct dp_list *old = net->dps, *grown;
	struct datapath *dp, *d;
	unsigned n = 0;
	int err;

	/* The new list first: nothing can fail once the datapath is made. */
	grown = malloc(sizeof(*grown) + (old->n + 1) * sizeof(grown->dp[0]));
	if (!grown)
		return -ENOMEM;
	dp = aligned_alloc(_Alignof(struct datapath), sizeof(*dp));
	if (!dp) {
		free(grown);
		return -ENOMEM;
	}
	memset(dp, 0, sizeof(*dp));
	dp->net = net;
	dp->drops = drop_counters_new();
	dp->upcalls = upcall_stats_new();
	err = dp->drops && dp->upcalls ? flow_table_init(&dp->table)
				       : -ENOMEM;
	if (err) {
		upcall_stats_free(dp->upcalls);
		free(dp->drops);
		free(dp);
		free(grown);
		return err;
	}
	err = meter_table_init(&dp->meters);
	if (err)
		goto out_table;
	err = port_attach(dp, OVSP_LOCAL, OVS_VPORT_TYPE_INTERNAL, name, NULL,
			  pids, n_pids, NULL);
	if (err)
		goto out_meters;
	for (unsigned i = 0; (d = dp_list_next(net, &i));)
		grown->dp[n++] = d;
	grown->dp[n++] = dp;
	grown->n = n;
	rcu_assign_pointer(net->dps, grown);
	call_rcu(&old->rcu, dp_list_free_rcu);
	*out = dp;
	return 0;

out_meters:
	meter_table_destroy(&dp->meters);
out_table:
	flow_table_destroy(&dp->table, flow_free);
	free(dp->ports);
	upcall_stats_free(dp->upcalls);
	free(dp->drops);
	free(dp);
	free(grown);
	return err == -EBUSY ? -EEXIST : err;
}

void
dp_destroy(struct datapath *dp)
{
	struct dp_net *net = dp->net;
	struct flow *flow;

	/* Out of the list first: an execute that finds it (under RCU, not
	 * the control lock) then finds its ports too, until it is done. */
	for (unsigned i = 0; i < net->dps->n; i++)
		if (net->dps->dp[i] == dp)
			rcu_assign_pointer(net->dps->dp[i], NULL);
	synchronize_rcu();
	/* The flows' entries first, not made again as each port goes. */
	for (uint64_t cursor = 0; (flow = dp_flow_dump_next(dp, &cursor));)
		fastpath_flow_forget(flow, true);
	for (uint32_t p = dp->ports->n; p-- > 0;)
		if (dp->ports->port[p])
			dp_port_del(dp->ports->port[p]);
	flow_table_destroy(&dp->table, flow_free);
	meter_table_destroy(&dp->meters);
	free(dp->ports);
	free(dp->cpu_pids);
	upcall_stats_free(dp->upcalls);
	free(dp->drops);
	free(dp);
}

void
dp_upcall_figures(const struct datapath *dp, struct upcall_figures *f)
{
	upcall_stats_read(dp->upcalls, f);
}

void
dp_upcall_answered(struct datapath *dp, const struct flow_key *key)
{
	upcall_stats_installed(dp->upcalls, key);
}

/* The context. */

/* Contexts alive: one per namespace served. */
static unsigned n_nets;

unsigned
dp_net_count(void)
{
	return __atomic_load_n(&n_nets, __ATOMIC_RELAXED);
}

struct dp_net *
dp_net_new(const struct dp_net_config *cfg)
{
	struct dp_net *net = calloc(1, sizeof(*net));
	int err;

	if (!net)
		return NULL;
	net->dps = calloc(1, sizeof(*net->dps));
	if (!net->dps) {
		free(net);
		return NULL;
	}
	net->upcall = cfg->upcall;
	net->packets = cfg->packets;
	net->port_ops = cfg->port_ops ? cfg->port_ops : vport_ops_for;
	net->psample = cfg->psample;
	net->conntrack_max = cfg->conntrack_max ? cfg->conntrack_max
						: DP_CONNTRACK_MAX_DEFAULT;
	pthread_mutex_init(&net->conntrack_lock, NULL);
	net->netnsid = NETNSA_NSID_NOT_ASSIGNED;
	net->nsfd = -1;
	net->flow_stats = flow_stats_open(-1, DP_FLOWS_MAX, &err);
	if (!net->flow_stats) {
		log_err("no file for flow counters: %s", strerror(-err));
		pthread_mutex_destroy(&net->conntrack_lock);
		free(net->dps);
		free(net);
		return NULL;
	}
	__atomic_add_fetch(&n_nets, 1, __ATOMIC_RELAXED);
	return net;
}

int
dp_net_take_flow_stats(struct dp_net *net, int fd)
{
	struct flow_stats_file *f;
	int err;

	f = flow_stats_open(fd, DP_FLOWS_MAX, &err);
	if (!f)
		return err;
	flow_stats_close(net->flow_stats);
	net->flow_stats = f;
	return 0;
}

struct flow_stats_file *
dp_net_flow_stats(const struct dp_net *net)
{
	return net->flow_stats;
}

void
dp_net_set_namespace(struct dp_net *net, int netnsid, int nsfd)
{
	net->elsewhere = true;
	net->netnsid = netnsid;
	net->nsfd = nsfd;
}

struct journal *
dp_net_journal(const struct dp_net *net)
{
	return net->journal;
}

void
dp_net_set_journal(struct dp_net *net, struct journal *journal,
		   void (*free_fn)(struct journal *))
{
	net->journal = journal;
	net->journal_free = free_fn;
}

bool
dp_net_elsewhere(const struct dp_net *net)
{
	return net->elsewhere;
}

int
dp_net_netnsid(const struct dp_net *net)
{
	return net->netnsid;
}

int
dp_net_nsfd(const struct dp_net *net)
{
	return net->elsewhere ? net->nsfd : -1;
}

bool
dp_net_home_alive(const struct dp_net *net)
{
	struct datapath *dp;

	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		struct dp_port *local = dp_port_get(dp, OVSP_LOCAL);

		if (local && !vport_locate(local->vport) &&
		    local->vport->netnsid == net->netnsid)
			return true;
	}
	return false;
}

bool
dp_net_holds_namespace(const struct dp_net *net)
{
	struct datapath *dp;

	if (!net->elsewhere)
		return false;
	if (vlan_dev_any(net) || tnl_dev_any(net->netnsid, true))
		return true;
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		struct dp_port *port;

		for (uint32_t p = 0; (port = dp_port_next(dp, &p)); p++)
			if (port->vport->ops->type != OVS_VPORT_TYPE_INTERNAL)
				return true;
	}
	return false;
}

bool
dp_net_idle(const struct dp_net *net)
{
	return !dp_at(net, 0) && !dp_net_conntrack_made(net) &&
	       !tnl_dev_any(net->netnsid, false);
}

void
dp_net_destroy(struct dp_net *net)
{
	if (!net)
		return;
	vlan_dev_destroy_all(net);
	for (unsigned i = net->dps->n; i-- > 0;)
		if (net->dps->dp[i])
			dp_destroy(net->dps->dp[i]);
	free(net->dps);
	/* The tunnel devices made there, once no port serves them. */
	if (net->elsewhere)
		tnl_dev_destroy_in(net->netnsid);
	conntrack_destroy(net->conntrack);
	/* Nothing writes to it any more. */
	if (net->journal)
		net->journal_free(net->journal);
	/* Flows removed before give their counters back after their grace
	 * period. */
	rcu_barrier();
	flow_stats_close(net->flow_stats);
	pthread_mutex_destroy(&net->conntrack_lock);
	free(net);
	__atomic_sub_fetch(&n_nets, 1, __ATOMIC_RELAXED);
}

struct conntrack *
dp_net_conntrack_made(const struct dp_net *net)
{
	return __atomic_load_n(&net->conntrack, __ATOMIC_ACQUIRE);
}

static void (*conntrack_attach)(struct conntrack *, void *);

void
dp_set_conntrack_attach(void (*fn)(struct conntrack *ct, void *net))
{
	conntrack_attach = fn;
}

struct conntrack *
dp_net_conntrack(struct dp_net *net)
{
	struct conntrack *ct = __atomic_load_n(&net->conntrack,
					       __ATOMIC_ACQUIRE);

	if (ct)
		return ct;
	pthread_mutex_lock(&net->conntrack_lock);
	ct = net->conntrack;
	if (!ct) {
		ct = conntrack_create(net->conntrack_max);
		if (ct) {
			if (conntrack_attach)
				conntrack_attach(ct, net);
			__atomic_store_n(&net->conntrack, ct,
					 __ATOMIC_RELEASE);
		} else if (!net->conntrack_failed) {
			log_err("conntrack: cannot create the connection "
				"table");
		}
		net->conntrack_failed = !ct;
	}
	pthread_mutex_unlock(&net->conntrack_lock);
	return ct;
}
