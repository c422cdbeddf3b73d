/* SPDX-License-Identifier: Apache-2.0 */
/* Vports: where frames enter and leave a datapath.
 *
 * A vport is a host network device the daemon reads and writes: an internal
 * port is a TAP device it creates (and removes), a netdev port an existing
 * interface (a veth...) it opens through AF_PACKET. Each vport has receive
 * queues, as many as vport_set_rx_queues() says (a multiqueue TAP device;
 * AF_PACKET sockets in a fanout group), which the kernel fills by flow
 * hash, so a flow's frames stay in order on one queue. Each queue has its
 * own thread that takes frames in bursts (from a ring shared with the
 * kernel, for netdev ports) and hands every frame to the owner's rx
 * callback; vport_send() may be called from any thread.
 *
 * A queue is also drained by other ports' threads: after a burst, the
 * thread looks at the queue of the same index of each ring port it sent
 * to, and takes what waits there. The kernel spreads frames over a
 * port's queues by a symmetric flow hash, so an answer comes back on that
 * queue; when the other side's stack answered in the send's own context
 * (ARP, ICMP echo, a TCP handshake or ACK), the answer is there when the
 * send returns, and goes on without waiting for a thread to wake. A
 * queue's lock keeps one thread on it at a time, and its frames in order.
 *
 * Frames keep their offload metadata across the datapath, as the kernel's
 * skbs do: a virtio-net header (partial checksum, GSO) comes with every
 * frame received and goes with every frame sent, so a 64 KiB TCP segment
 * with a partial checksum crosses as one unit and the kernel finishes it on
 * the way out.
 *
 * This is the only interface between ports and the datapath: the datapath
 * includes this header, the port code includes nothing of the datapath. */
#ifndef TAPDP_VPORT_H
#define TAPDP_VPORT_H

#include <linux/openvswitch.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet/frame.h"

struct vport;
struct tun_key;
struct rtnl_link_stats64;
struct mmsghdr;

/* What a receive thread calls: start and stop once, in the thread, around
 * its frames (per-thread state of the owner); begin and end around each
 * burst of frames (after end, no port the burst sent to is touched again:
 * the owner may protect them with RCU in between); frame for each frame,
 * at buf + FRAME_HEADROOM (room to push headers in place), len bytes, in a
 * buffer of size bytes. */
struct vport_rx_ops {
	void (*start)(void *owner);
	void (*begin)(void *owner);
	void (*frame)(struct vport *vport, uint8_t *buf, size_t size,
		      size_t len, const struct virtio_net_hdr *vh,
		      const struct tun_key *tun, uint16_t l3_proto,
		      void *owner);
	void (*end)(void *owner);
	void (*stop)(void *owner);
};

/* At most this many receive queues per port. */
#define VPORT_RXQ_MAX	8

/* A receive queue: a file descriptor and the port type's state for it.
 * lock: held by the thread taking frames from it, its own or that of a
 * port whose burst just sent to this one (see vport_ops.rx_ready). */
struct vport_rxq {
	int fd;
	void *state;
	pthread_mutex_t lock;
};

struct vport_ops {
	enum ovs_vport_type type;
	const char *name;		/* for the log: "internal", "vxlan"... */
	/* Opens the device with vport->n_rxq receive queues (setting
	 * vport->rxq[], vport->fd and ifindex); 0 or -errno, with nothing
	 * left open. */
	int (*open)(struct vport *vport);
	void (*close)(struct vport *vport);
	/* Takes what is waiting on q, at most max frames, and hands each to
	 * vport_rx_deliver(). Frames read by copy go to scratch (size bytes,
	 * the frame at scratch + FRAME_HEADROOM), one at a time. */
	void (*recv_burst)(struct vport *vport, struct vport_rxq *q,
			   uint8_t *scratch, size_t size, unsigned max);
	/* tun: the tunnel to send by (tunnel ports; others ignore it);
	 * l3_proto: see vport_send(). */
	int (*send)(struct vport *vport, const void *frame, size_t len,
		    const struct virtio_net_hdr *vh, const struct tun_key *tun,
		    uint16_t l3_proto);
	/* Optional: sends n messages (each a virtio-net header and a
	 * frame) at once; returns how many went, or -errno. */
	int (*send_many)(struct vport *vport, struct mmsghdr *msgs,
			 unsigned n);
	/* Optional: frames the kernel dropped for want of room in the
	 * receive queues since the last call. */
	uint64_t (*rx_overruns)(struct vport *vport);
	/* Optional: whether frames wait in q, without a system call. A
	 * port that has it is looked at right after a burst that sent to
	 * it, by the thread that sent: what came back is taken at once. */
	bool (*rx_ready)(struct vport_rxq *q);
	/* Optional, for devices that may change namespace and stay the
	 * port's: sets netnsid, ifindex and mtu from where the device is
	 * now; -ENODEV when it is gone. */
	int (*locate)(struct vport *vport);
	/* Optional, for ports whose traffic does not cross their device
	 * (tunnels): the counters, instead of the device's. */
	void (*get_stats)(struct vport *vport, struct ovs_vport_stats *st);
	/* Optional (tunnels): completes tun, the tunnel a frame is to be
	 * sent by, as the port would send it; see vport_egress_info(). */
	int (*egress_info)(struct vport *vport, const void *frame, size_t len,
			   struct tun_key *tun);
};

struct tnl_dev;

/* A tunnel port's configuration: the vport's OVS_VPORT_ATTR_OPTIONS, or
 * what its device was created with over rtnetlink (tap/tnl-dev.h). */
struct vport_tunnel_config {
	uint16_t dst_port;		/* UDP port, host order (vxlan, geneve) */
	bool gbp;			/* vxlan: the GBP extension */
	bool gpe;			/* vxlan: the GPE extension */
	bool csum6_zero_rx;		/* IPv6 UDP without checksum taken */
	uint8_t family;			/* the one underlay it takes; 0: both */
	/* An L3 device (ARPHRD_NONE): gre of kind gre, vxlan with GPE,
	 * geneve with inner_proto_inherit. */
	bool l3;
	/* bareudp: the inner protocol (host order), multiproto mode, the
	 * least source port. */
	uint16_t ethertype;
	bool multiproto;
	uint16_t port_min;
	/* The device to serve; NULL: the port creates its own. */
	const struct tnl_dev *dev;
};

struct vport {
	const struct vport_ops *ops;
	char name[IFNAMSIZ];
	/* The device's namespace (its id in ours, or
	 * NETNSA_NSID_NOT_ASSIGNED: ours) and index there; the control
	 * thread's. */
	int netnsid;
	int ifindex;
	/* While open() runs: the namespace to make the device in, by an fd
	 * (-1: ours). */
	int make_nsfd;
	int fd;				/* sends: the first queue's */
	unsigned n_rxq;
	struct vport_rxq rxq[VPORT_RXQ_MAX];
	void *priv;			/* the receive threads' */
	void *state;			/* the port type's */
	struct vport_tunnel_config tnl;	/* tunnel ports' */
	uint32_t mtu;			/* atomic: the device's */
	uint64_t rx_bad_offload;	/* atomic: frames whose virtio-net
					 * header lied, dropped */
	uint64_t tx_too_big;		/* atomic: over the MTU, not GSO */
	uint64_t rx_overruns;		/* atomic: receive queues full */
	uint64_t rx_peer_bursts;	/* atomic: bursts taken by a thread of
					 * a port that had sent to this one */
	bool rx_error;			/* atomic: a queue's fd failed */
	/* Takes L3 packets as well as Ethernet frames (an L3 tunnel port,
	 * the kernel's ARPHRD_NONE devices); its frames may be L3. */
	bool l3;
};

/* Receive queues (and threads) per port created from now on: 1 to
 * VPORT_RXQ_MAX; 0 restores the default, one per CPU the process may
 * run on. */
void vport_set_rx_queues(unsigned n);
/* The ops of a port type on this system (TAP for internal ports,
 * AF_PACKET for netdev ports); NULL for a type this build has no support
 * for, as a kernel without the module. */
const struct vport_ops *vport_ops_for(enum ovs_vport_type type);
/* Creates the device (or opens it) with ops and starts receiving. nsfd:
 * the network namespace to make it in, an fd of it (-1: ours); a port
 * but an internal one needs the namespace agent there (-EAFNOSUPPORT
 * without it: common/ns-socket.h). */
int vport_create(const struct vport_ops *ops, const char *name, int nsfd,
		 const struct vport_tunnel_config *tnl,
		 const struct vport_rx_ops *rx, void *owner,
		 struct vport **out);
void vport_destroy(struct vport *vport);
/* vh NULL: a frame with no offload (complete checksums, no GSO). A frame
 * larger than the MTU that is not GSO is dropped and counted (-EMSGSIZE),
 * as the kernel's ovs_vport_send() does. Inside a receive burst, small
 * frames to ports that can send many at once are copied and queued, and
 * go out together at the end of the burst (or when a queue fills). */
/* l3_proto (be): the protocol of an L3 packet (no Ethernet header), for
 * a port that takes them (vport->l3); 0 for an Ethernet frame. */
int vport_send(struct vport *vport, const void *frame, size_t len,
	       const struct virtio_net_hdr *vh, const struct tun_key *tun,
	       uint16_t l3_proto);
/* vport_send() for a segment the datapath cut from a GSO frame: held to
 * no MTU, as the kernel holds the GSO frame to none and its device's
 * segments to what the device takes. */
int vport_send_segment(struct vport *vport, const void *frame, size_t len,
		       const struct tun_key *tun, uint16_t l3_proto);
/* For a port's recv_burst: one received frame, at buf + FRAME_HEADROOM,
 * len bytes, in a buffer of size bytes the owner may change in place until
 * it returns. Frames whose offload metadata lies are dropped and counted.
 * l3_proto (be): an L3 packet's protocol, 0 for an Ethernet frame. */
void vport_rx_deliver(struct vport *vport, uint8_t *buf, size_t size,
		      size_t len, const struct virtio_net_hdr *vh,
		      const struct tun_key *tun, uint16_t l3_proto);
/* The tunnel a frame is to be sent by (from its set(tunnel)), completed
 * as the port would send it: the source address the host's routes give,
 * the UDP ports (the kernel's dev_fill_metadata_dst(), for the userspace
 * action's egress_tun_port). 0, -EINVAL for a port that is no tunnel or
 * does not carry tun's family, or the route lookup's error. */
int vport_egress_info(struct vport *vport, const void *frame, size_t len,
		      struct tun_key *tun);
/* Where the port's device is now: an internal port's device may move to
 * another namespace (and on, and back) and stays the port's, as the
 * kernel's does. Updates netnsid, ifindex and the MTU; -ENODEV when the
 * device is gone (destroyed with the namespace it was in). A netdev port's
 * device never moves while attached (leaving detaches it): 0. */
int vport_locate(struct vport *vport);
/* An eventfd, readable after a receive queue's fd reported an error (a
 * device destroyed under the daemon); vport_take_error() then says which
 * ports. Created by the first call: the control thread's, before any
 * port. */
int vport_error_fd(void);
bool vport_take_error(struct vport *vport);
/* For the port types: a socket's buffer of bytes (SO_RCVBUF or SO_SNDBUF,
 * which) past net.core's maximum when the daemon may (the FORCE option),
 * else as large as that maximum lets it be. */
void vport_socket_buffer(int fd, int which, int bytes);
/* The device's MTU changed (the control thread follows link events). */
void vport_set_mtu(struct vport *vport, uint32_t mtu);
/* Whether a received frame's offload metadata can be trusted: a known GSO
 * type with a nonzero segment size and a header length within the frame,
 * a partial checksum whose field lies within it. */
bool vport_offload_valid(const struct virtio_net_hdr *vh, size_t len);
/* Device counters in the order of struct ovs_vport_stats, with the
 * frames the port itself dropped (lying offload metadata: rx_errors;
 * receive queues full: rx_dropped; over the MTU: tx_errors). */
int vport_get_stats(struct vport *vport, struct ovs_vport_stats *st);

/* The receive threads' transmit queues, taken for a burst. */
extern struct buf_pool vport_txq_pool;

extern const struct vport_ops vport_internal_ops;
extern const struct vport_ops vport_netdev_ops;
extern const struct vport_ops vport_vxlan_ops;
extern const struct vport_ops vport_geneve_ops;
extern const struct vport_ops vport_gre_ops;
extern const struct vport_ops vport_erspan_ops;
extern const struct vport_ops vport_bareudp_ops;

#endif
