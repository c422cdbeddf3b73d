/* SPDX-License-Identifier: Apache-2.0 */
/* Netdev ports: an existing interface, read and written through an AF_PACKET
 * socket bound to it, in promiscuous mode, blind to its own transmissions.
 * A datapath of another namespace has its sockets opened there
 * (common/ns-socket.h).
 *
 * Frames arrive in a receive ring shared with the kernel (TPACKET_V2): a
 * burst costs no system call per frame. Ring slots are sized for frames up
 * to the usual MTU; a larger frame (a 64 KiB GSO segment) leaves a cut copy
 * in its slot, marked TP_STATUS_COPY, and comes whole through the socket's
 * queue, in the same order. A port with several receive queues has a
 * socket (and ring) per queue, joined in a fanout group that spreads
 * frames by flow hash; sends go through the first. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_namespace.h>
#include <string.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/ns-socket.h"
#include "packet/headers.h"
#include "packet/offload.h"
#include "tap/netdev.h"
#include "tap/vport.h"

/* 4096 slots of 2 KiB per port: 8 MiB of ring, about 8 ms of 64-byte
 * frames at 0.5 Mpps before the kernel drops; split among the queues. */
#define RING_FRAME	2048
#define RING_BLOCK	(64 << 10)
#define RING_BLOCKS	128
#define RING_BLOCKS_MIN	32
/* Room in front of a frame in its slot, past the slot's header, so that
 * headers can be pushed in place (and a VLAN tag put back). */
#define RING_RESERVE	(FRAME_HEADROOM + VLAN_HLEN)
#ifndef PACKET_FANOUT_FLAG_IGNORE_OUTGOING
#define PACKET_FANOUT_FLAG_IGNORE_OUTGOING	0x4000
#endif
/* Frames spread over a port's queues by flow hash; the group's sockets
 * do not see what they send. */
#define FANOUT_MODE	(PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_IGNORE_OUTGOING)

struct netdev_ring {
	uint8_t *map;
	size_t map_len;
	unsigned frames;
	unsigned head;
};

static int
ring_setup(struct vport_rxq *q, unsigned blocks)
{
	struct tpacket_req req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = blocks,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = blocks * (RING_BLOCK / RING_FRAME),
	};
	int v2 = TPACKET_V2, reserve = RING_RESERVE, copy = 1;
	struct netdev_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (setsockopt(q->fd, SOL_PACKET, PACKET_VERSION, &v2,
		       sizeof(v2)) < 0 ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_RESERVE, &reserve,
		       sizeof(reserve)) < 0 ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_COPY_THRESH, &copy,
		       sizeof(copy)) < 0 ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_RX_RING, &req,
		       sizeof(req)) < 0) {
		free(r);
		return -errno;
	}
	r->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      q->fd, 0);
	if (r->map == MAP_FAILED) {
		free(r);
		return -errno;
	}
	r->frames = req.tp_frame_nr;
	q->state = r;
	return 0;
}

static void
queue_close(struct vport_rxq *q)
{
	struct netdev_ring *r = q->state;

	if (r) {
		munmap(r->map, r->map_len);
		free(r);
	}
	close(q->fd);
}

/* A filter that takes nothing. */
static struct sock_filter take_none = BPF_STMT(BPF_RET | BPF_K, 0);
static const struct sock_fprog deaf = { .len = 1, .filter = &take_none };

/* One socket of the port. It is deaf until its ring exists (created with
 * no protocol, bound to one after), so that every frame it ever takes
 * goes through the ring and the socket's queue holds only the whole
 * copies the ring's slots point to. *group: the fanout group of the
 * port's sockets (n > 1), which the first socket creates and the others
 * join: bound, they take frames before they are in the group, copies of
 * what the group takes, so they stay deaf (a filter) until they are. */
static int
queue_open(struct vport *vport, struct vport_rxq *q, unsigned n,
	   unsigned *group)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = vport->ifindex };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC,
				  .mr_ifindex = vport->ifindex };
	unsigned blocks = RING_BLOCKS / n;
	/* Bursts of large frames outrun a default-sized socket buffer. */
	int one = 1, rcvbuf = 8 << 20, err, fanout;
	bool joins = n > 1 && q != vport->rxq;
	socklen_t len = sizeof(fanout);

	q->state = NULL;
	q->fd = ns_socket(vport->make_nsfd, AF_PACKET,
			  SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (q->fd < 0)
		return q->fd;
	if ((joins && setsockopt(q->fd, SOL_SOCKET, SO_ATTACH_FILTER, &deaf,
				 sizeof(deaf)) < 0) ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_AUXDATA, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(q->fd, SOL_PACKET, PACKET_VNET_HDR, &one,
		       sizeof(one)) < 0) {
		err = -errno;
		goto fail;
	}
	vport_socket_buffer(q->fd, SO_RCVBUF, rcvbuf);
	err = ring_setup(q, blocks < RING_BLOCKS_MIN ? RING_BLOCKS_MIN
						     : blocks);
	if (err)
		goto fail;
	if (bind(q->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    (q == vport->rxq &&
	     setsockopt(q->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
			sizeof(mr)) < 0)) {
		err = -errno;
		goto fail;
	}
	if (n == 1)
		return 0;
	/* The first socket gets a group no other socket uses; the others
	 * join it. Its id may be 0 (the kernel hands out ids from 0 after
	 * boot, and wraps): which socket creates the group goes by the
	 * queue, not by the id. */
	fanout = joins ? (int)(*group | FANOUT_MODE << 16)
		       : (FANOUT_MODE | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
	if (setsockopt(q->fd, SOL_PACKET, PACKET_FANOUT, &fanout,
		       sizeof(fanout)) < 0 ||
	    (!joins && getsockopt(q->fd, SOL_PACKET, PACKET_FANOUT, &fanout,
				  &len) < 0) ||
	    (joins && setsockopt(q->fd, SOL_SOCKET, SO_DETACH_FILTER, &one,
				 sizeof(one)) < 0)) {
		err = -errno;
		goto fail;
	}
	*group = fanout & 0xffff;
	return 0;
fail:
	queue_close(q);
	return err;
}

/* Before Linux 6.2 a fanout group sees what its sockets send (the flag
 * that stops it is ignored), and the port would take its own frames back:
 * one queue there. */
static bool
fanout_ignores_outgoing(void)
{
	struct utsname u;
	unsigned major, minor;

	return uname(&u) == 0 &&
	       sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 2));
}

static int
netdev_open(struct vport *vport)
{
	int err, netnsid = NETNSA_NSID_NOT_ASSIGNED;
	unsigned group = 0, i;
	uint32_t mtu;

	/* Another namespace's device: asked about by its id in ours, its
	 * sockets opened there. */
	if (vport->make_nsfd >= 0 &&
	    (err = netdev_netnsid(vport->make_nsfd, &netnsid)))
		return err;
	err = netdev_check_attachable(netnsid, vport->name, &vport->ifindex,
				      &mtu);
	if (err)
		return err;
	vport->netnsid = netnsid;
	if (vport->make_nsfd >= 0)
		vport->mtu = mtu;
	if (vport->n_rxq > 1 && !fanout_ignores_outgoing())
		vport->n_rxq = 1;
	for (i = 0; i < vport->n_rxq; i++) {
		err = queue_open(vport, &vport->rxq[i], vport->n_rxq, &group);
		if (err) {
			while (i--)
				queue_close(&vport->rxq[i]);
			return err;
		}
	}
	vport->fd = vport->rxq[0].fd;
	return 0;
}

static void
netdev_close(struct vport *vport)
{
	for (unsigned i = 0; i < vport->n_rxq; i++)
		queue_close(&vport->rxq[i]);
}

/* Puts a VLAN tag the device stripped back in front of the frame's type,
 * moving the addresses into the headroom; returns the new start. */
static uint8_t *
vlan_restore(uint8_t *frame, uint16_t tpid, uint16_t tci,
	     struct virtio_net_hdr *vh)
{
	struct vlan_header *tag;

	memmove(frame - VLAN_HLEN, frame, ETH_ADDRS_LEN);
	frame -= VLAN_HLEN;
	tag = (struct vlan_header *)(frame + ETH_ADDRS_LEN);
	tag->tpid = htons(tpid);
	tag->tci = htons(tci);
	offload_shift(vh, ETH_ADDRS_LEN, VLAN_HLEN);
	return frame;
}

/* A frame the ring only holds cut: the whole of it from the socket's queue,
 * into scratch. Devices that strip VLAN tags hand them over beside the
 * frame; the datapath sees frames as they were on the wire. */
static void
recv_copy(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
	  size_t size)
{
	char cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct virtio_net_hdr vh;
	uint8_t *frame = scratch + FRAME_HEADROOM + VLAN_HLEN;
	struct iovec iov[2] = {
		{ &vh, sizeof(vh) },
		{ frame, size - FRAME_HEADROOM - VLAN_HLEN },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(q->fd, &mh, MSG_DONTWAIT);

	if (n < (ssize_t)sizeof(vh) + ETH_HLEN)
		return;
	n -= sizeof(vh);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		struct tpacket_auxdata aux;

		if (c->cmsg_level != SOL_PACKET ||
		    c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
			continue;
		frame = vlan_restore(frame,
				     (aux.tp_status & TP_STATUS_VLAN_TPID_VALID)
				     ? aux.tp_vlan_tpid : ETH_P_8021Q,
				     aux.tp_vlan_tci, &vh);
		n += VLAN_HLEN;
	}
	vport_rx_deliver(vport, frame - FRAME_HEADROOM,
			 size - (frame - FRAME_HEADROOM - scratch), n, &vh,
			 NULL, 0);
}

/* One ring slot the kernel handed over; the slot goes back after. */
static void
recv_slot(struct vport *vport, struct vport_rxq *q, struct tpacket2_hdr *h,
	  uint32_t status, uint8_t *scratch, size_t size)
{
	uint8_t *slot = (uint8_t *)h, *frame = slot + h->tp_mac;
	struct virtio_net_hdr vh;
	size_t len = h->tp_snaplen;

	if (status & TP_STATUS_COPY) {
		recv_copy(vport, q, scratch, size);
		return;
	}
	/* Cut without a copy (the socket's queue was full): lost. Slots the
	 * kernel laid out otherwise than asked are not trusted either. */
	if (len < h->tp_len || len < ETH_HLEN ||
	    h->tp_mac < TPACKET2_HDRLEN + RING_RESERVE ||
	    h->tp_mac + len > RING_FRAME)
		return;
	memcpy(&vh, frame - sizeof(vh), sizeof(vh));
	if (status & TP_STATUS_VLAN_VALID) {
		frame = vlan_restore(frame,
				     (status & TP_STATUS_VLAN_TPID_VALID)
				     ? h->tp_vlan_tpid : ETH_P_8021Q,
				     h->tp_vlan_tci, &vh);
		len += VLAN_HLEN;
	}
	vport_rx_deliver(vport, frame - FRAME_HEADROOM,
			 slot + RING_FRAME - (frame - FRAME_HEADROOM), len,
			 &vh, NULL, 0);
}

/* The slot the next frame comes in, and its status. */
static struct tpacket2_hdr *
ring_head(struct netdev_ring *r, uint32_t *status)
{
	struct tpacket2_hdr *h =
		(void *)(r->map + (size_t)r->head * RING_FRAME);

	*status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
	return h;
}

static void
netdev_recv_burst(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
		  size_t size, unsigned max)
{
	struct netdev_ring *r = q->state;

	for (unsigned n = 0; n < max; n++) {
		uint32_t status;
		struct tpacket2_hdr *h = ring_head(r, &status);

		if (!(status & TP_STATUS_USER))
			break;
		recv_slot(vport, q, h, status, scratch, size);
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		r->head = r->head + 1 == r->frames ? 0 : r->head + 1;
	}
}

static bool
netdev_rx_ready(struct vport_rxq *q)
{
	uint32_t status;

	ring_head(q->state, &status);
	return status & TP_STATUS_USER;
}

static int
netdev_send(struct vport *vport, const void *frame, size_t len,
	    const struct virtio_net_hdr *vh, const struct tun_key *tun,
	    uint16_t l3_proto)
{
	struct iovec iov[2] = { { (void *)vh, sizeof(*vh) },
				{ (void *)frame, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	return sendmsg(vport->fd, &mh, MSG_DONTWAIT) < 0 ? -errno : 0;
}

static int
netdev_send_many(struct vport *vport, struct mmsghdr *msgs, unsigned n)
{
	int r = sendmmsg(vport->fd, msgs, n, MSG_DONTWAIT);

	return r < 0 ? -errno : r;
}

/* The rings' drops (the kernel resets its count on each read). */
static uint64_t
netdev_rx_overruns(struct vport *vport)
{
	uint64_t drops = 0;

	for (unsigned i = 0; i < vport->n_rxq; i++) {
		struct tpacket_stats st;
		socklen_t len = sizeof(st);

		if (getsockopt(vport->rxq[i].fd, SOL_PACKET,
			       PACKET_STATISTICS, &st, &len) == 0)
			drops += st.tp_drops;
	}
	return drops;
}

const struct vport_ops vport_netdev_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.name = "netdev",
	.open = netdev_open,
	.close = netdev_close,
	.recv_burst = netdev_recv_burst,
	.send = netdev_send,
	.send_many = netdev_send_many,
	.rx_overruns = netdev_rx_overruns,
	.rx_ready = netdev_rx_ready,
};
