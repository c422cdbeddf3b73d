/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/vport.h"

#include <errno.h>
#include <linux/net_namespace.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/ns-socket.h"
#include "packet/eth.h"
#include "packet/offload.h"
#include "tap/netdev.h"

#define RX_BURST 64

/* Transmit batching: per receive burst, a few queues of small frames,
 * taken from a pool as the burst first sends to a port and given back
 * when it is flushed, so that a thread holds none between bursts. */
#define TX_BATCH	32
#define TX_SLOT		2048
#define TX_QUEUES	4

struct tx_queue {
	struct vport *vport;		/* NULL: free */
	unsigned n;
	struct virtio_net_hdr vh[TX_BATCH];
	struct iovec iov[TX_BATCH][2];
	struct mmsghdr msg[TX_BATCH];
	uint8_t frame[TX_BATCH][TX_SLOT];
};

struct buf_pool vport_txq_pool = BUF_POOL_INIT(sizeof(struct tx_queue));
static __thread struct tx_queue *txq[TX_QUEUES];
static __thread bool tx_deferred;	/* inside a receive burst */
/* Ports with rx_ready a burst sent to, whose answers it takes after, in a
 * few rounds (an answer to the answer). */
#define TX_PEERS	4
#define PEER_ROUNDS	4
static __thread struct vport *tx_peers[TX_PEERS];
static __thread unsigned n_tx_peers;

/* A receive thread: the queue it serves. */
struct rx_thread {
	pthread_t thread;
	struct vport *vport;
	struct vport_rxq *q;
};

struct vport_rx {
	struct rx_thread threads[VPORT_RXQ_MAX];
	unsigned n_started;
	int stop_fd;			/* readable: all threads stop */
	const struct vport_rx_ops *ops;
	void *owner;
};

static unsigned rx_queues;		/* 0: one per usable CPU */
static int error_fd = -1;		/* vport_error_fd() */

static void
txq_flush(struct tx_queue *q)
{
	unsigned done = 0;

	while (done < q->n) {
		int r = q->vport->ops->send_many(q->vport, q->msg + done,
						 q->n - done);

		/* As single sends, a refused frame is not retried. */
		if (r <= 0)
			break;
		done += r;
	}
	q->n = 0;
}

static void
tx_flush_all(void)
{
	for (int i = 0; i < TX_QUEUES && txq[i]; i++) {
		if (txq[i]->n)
			txq_flush(txq[i]);
		buf_pool_put(&vport_txq_pool, txq[i]);
		txq[i] = NULL;
	}
}

/* The queue of this thread for vport: its own, a free one, or (all taken)
 * the first, emptied. NULL without memory. */
static struct tx_queue *
txq_for(struct vport *vport)
{
	int i;

	for (i = 0; i < TX_QUEUES && txq[i]; i++)
		if (txq[i]->vport == vport || !txq[i]->vport)
			break;
	if (i == TX_QUEUES) {
		txq_flush(txq[0]);
		i = 0;
	} else if (!txq[i]) {
		txq[i] = buf_pool_get(&vport_txq_pool);
		if (!txq[i])
			return NULL;
		txq[i]->n = 0;
	}
	txq[i]->vport = vport;
	return txq[i];
}

static bool
tx_enqueue(struct vport *vport, const void *frame, size_t len,
	   const struct virtio_net_hdr *vh)
{
	struct tx_queue *q = txq_for(vport);
	unsigned k;

	if (!q)
		return false;
	k = q->n++;
	memcpy(q->frame[k], frame, len);
	if (vh)
		q->vh[k] = *vh;
	else
		memset(&q->vh[k], 0, sizeof(q->vh[k]));
	q->iov[k][0] = (struct iovec){ &q->vh[k], sizeof(q->vh[k]) };
	q->iov[k][1] = (struct iovec){ q->frame[k], len };
	q->msg[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = q->iov[k],
						   .msg_iovlen = 2 } };
	if (q->n == TX_BATCH)
		txq_flush(q);
	return true;
}

int
vport_egress_info(struct vport *vport, const void *frame, size_t len,
		  struct tun_key *tun)
{
	if (!vport->ops->egress_info)
		return -EINVAL;
	return vport->ops->egress_info(vport, frame, len, tun);
}

const struct vport_ops *
vport_ops_for(enum ovs_vport_type type)
{
	switch (type) {
	case OVS_VPORT_TYPE_INTERNAL:
		return &vport_internal_ops;
	case OVS_VPORT_TYPE_NETDEV:
		return &vport_netdev_ops;
	case OVS_VPORT_TYPE_VXLAN:
		return &vport_vxlan_ops;
	case OVS_VPORT_TYPE_GENEVE:
		return &vport_geneve_ops;
	case OVS_VPORT_TYPE_GRE:
		return &vport_gre_ops;
	default:
		return NULL;
	}
}

/* A burst from q, whose lock the caller took; gives the lock back and
 * sends what the burst queued. */
static void
rxq_drain(struct vport *vport, struct vport_rxq *q, uint8_t *buf)
{
	vport->ops->recv_burst(vport, q, buf, FRAME_HEADROOM + FRAME_MAX,
			       RX_BURST);
	pthread_mutex_unlock(&q->lock);
	tx_flush_all();
}

/* After a burst from queue qi of vport: what waits in queue qi of the
 * ports it sent to, unless a thread is on that queue already (it takes
 * it). Inside the burst's begin and end, which keep those ports. */
static void
rx_take_answers(struct vport *vport, unsigned qi, uint8_t *buf)
{
	for (unsigned round = 0; round < PEER_ROUNDS && n_tx_peers; round++) {
		struct vport *peers[TX_PEERS];
		unsigned n = n_tx_peers;

		memcpy(peers, tx_peers, n * sizeof(peers[0]));
		n_tx_peers = 0;
		for (unsigned i = 0; i < n; i++) {
			struct vport *v = peers[i];
			struct vport_rxq *q = &v->rxq[qi];

			if (v == vport || qi >= v->n_rxq ||
			    !v->ops->rx_ready(q) ||
			    pthread_mutex_trylock(&q->lock))
				continue;
			__atomic_fetch_add(&v->rx_peer_bursts, 1,
					   __ATOMIC_RELAXED);
			rxq_drain(v, q, buf);
		}
	}
	n_tx_peers = 0;
}

static void *
rx_main(void *arg)
{
	struct rx_thread *t = arg;
	struct vport *vport = t->vport;
	struct vport_rx *rx = vport->priv;
	uint8_t *buf;
	struct pollfd pfd[2] = {
		{ .fd = t->q->fd, .events = POLLIN },
		{ .fd = rx->stop_fd, .events = POLLIN },
	};
	char name[16];

	/* top -H and perf show which port and queue a thread serves. */
	snprintf(name, sizeof(name), "rx%d:%.10s", (int)(t->q - vport->rxq),
		 vport->name);
	pthread_setname_np(pthread_self(), name);

	if (rx->ops->start)
		rx->ops->start(rx->owner);
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			int e;
			socklen_t l = sizeof(e);

			/* A socket reports its link going down once, as an
			 * error that reading it clears: frames come again
			 * when the link is back up. Otherwise the device
			 * went away: a deletion the control thread sees as a
			 * link event, or (in another namespace, a TAP fd
			 * failing) one it learns of here. */
			if (!(pfd[0].revents & (POLLHUP | POLLNVAL)) &&
			    getsockopt(pfd[0].fd, SOL_SOCKET, SO_ERROR, &e,
				       &l) == 0)
				continue;
			pfd[0].fd = -1;
			__atomic_store_n(&vport->rx_error, true,
					 __ATOMIC_RELAXED);
			if (error_fd >= 0)
				(void)!write(error_fd, &(uint64_t){ 1 },
					     sizeof(uint64_t));
			continue;
		}
		/* Drain what is queued before sleeping again: one poll per
		 * burst, not per frame (bounded, to notice a stop), in a
		 * buffer held for the burst only: a sleeping thread holds
		 * none. Without one, the frames wait in the queue while
		 * the thread waits a millisecond for memory. */
		buf = buf_pool_get(&frame_pool);
		if (!buf) {
			poll(NULL, 0, 1);
			continue;
		}
		if (rx->ops->begin)
			rx->ops->begin(rx->owner);
		tx_deferred = true;
		clock_burst_start();
		pthread_mutex_lock(&t->q->lock);
		rxq_drain(vport, t->q, buf);
		rx_take_answers(vport, (unsigned)(t->q - vport->rxq), buf);
		clock_burst_end();
		tx_deferred = false;
		if (rx->ops->end)
			rx->ops->end(rx->owner);
		buf_pool_put(&frame_pool, buf);
	}
	if (rx->ops->stop)
		rx->ops->stop(rx->owner);
	return NULL;
}

void
vport_rx_deliver(struct vport *vport, uint8_t *buf, size_t size, size_t len,
		 const struct virtio_net_hdr *vh, const struct tun_key *tun,
		 uint16_t l3_proto)
{
	struct vport_rx *rx = vport->priv;

	if (!vport_offload_valid(vh, len)) {
		__atomic_fetch_add(&vport->rx_bad_offload, 1, __ATOMIC_RELAXED);
		return;
	}
	rx->ops->frame(vport, buf, size, len, vh, tun, l3_proto, rx->owner);
}

void
vport_set_rx_queues(unsigned n)
{
	rx_queues = n > VPORT_RXQ_MAX ? VPORT_RXQ_MAX : n;
}

/* One queue per CPU the daemon may run on (a container's cpuset, not the
 * whole machine). */
static unsigned
rx_queue_count(void)
{
	cpu_set_t set;
	long cpus;

	if (rx_queues)
		return rx_queues;
	cpus = sched_getaffinity(0, sizeof(set), &set) == 0
		       ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > VPORT_RXQ_MAX ? VPORT_RXQ_MAX : cpus;
}

static void
rx_stop_all(struct vport *vport)
{
	struct vport_rx *rx = vport->priv;

	(void)!write(rx->stop_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	for (unsigned i = 0; i < rx->n_started; i++)
		pthread_join(rx->threads[i].thread, NULL);
	close(rx->stop_fd);
}

int
vport_create(const struct vport_ops *ops, const char *name, int nsfd,
	     const struct vport_tunnel_config *tnl,
	     const struct vport_rx_ops *rx_ops, void *owner,
	     struct vport **out)
{
	struct vport_rx *rx;
	struct vport *vport;
	int err;

	if (nsfd >= 0 && ops->type != OVS_VPORT_TYPE_INTERNAL &&
	    !ns_socket_available())
		return -EAFNOSUPPORT;
	vport = calloc(1, sizeof(*vport));
	rx = calloc(1, sizeof(*rx));
	if (!vport || !rx) {
		free(vport);
		free(rx);
		return -ENOMEM;
	}
	vport->ops = ops;
	vport->fd = -1;
	vport->netnsid = NETNSA_NSID_NOT_ASSIGNED;
	vport->make_nsfd = nsfd;
	vport->n_rxq = rx_queue_count();
	/* What the threads of all ports use at once, per CPU: a burst's
	 * frame, a copy of one and the frame of a thread preempted mid-burst;
	 * a queue for each port a burst sends to. */
	buf_pool_reserve(&frame_pool, 3 * vport->n_rxq);
	buf_pool_reserve(&vport_txq_pool, TX_QUEUES * vport->n_rxq);
	snprintf(vport->name, sizeof(vport->name), "%s", name);
	if (tnl)
		vport->tnl = *tnl;
	for (unsigned i = 0; i < VPORT_RXQ_MAX; i++)
		pthread_mutex_init(&vport->rxq[i].lock, NULL);
	err = ops->open(vport);
	if (err) {
		free(vport);
		free(rx);
		return err;
	}
	vport->make_nsfd = -1;
	/* Made elsewhere, open() found its MTU there. */
	if (nsfd < 0) {
		err = netdev_get_mtu(vport->name);
		vport->mtu = err > 0 ? (uint32_t)err : 1500;
	} else if (!vport->mtu) {
		vport->mtu = 1500;
	}
	rx->ops = rx_ops;
	rx->owner = owner;
	rx->stop_fd = eventfd(0, EFD_CLOEXEC);
	vport->priv = rx;
	err = rx->stop_fd < 0 ? -errno : 0;
	for (unsigned i = 0; !err && i < vport->n_rxq; i++) {
		struct rx_thread *t = &rx->threads[i];

		t->vport = vport;
		t->q = &vport->rxq[i];
		err = -pthread_create(&t->thread, NULL, rx_main, t);
		if (!err)
			rx->n_started++;
	}
	if (err) {
		if (rx->stop_fd >= 0)
			rx_stop_all(vport);
		ops->close(vport);
		free(rx);
		free(vport);
		return err;
	}
	*out = vport;
	return 0;
}

void
vport_destroy(struct vport *vport)
{
	if (!vport)
		return;
	rx_stop_all(vport);
	vport->ops->close(vport);
	free(vport->priv);
	free(vport);
}

/* The L3 length the MTU bounds: past the Ethernet header and one VLAN
 * tag (the kernel's packet_length()). */
static size_t
packet_length(const uint8_t *f, size_t len)
{
	struct eth_walk w;

	return eth_walk(f, len, 1, 0, &w) ? 0 : len - w.l3;
}

static void
tx_peer_note(struct vport *vport)
{
	unsigned i;

	for (i = 0; i < n_tx_peers; i++)
		if (tx_peers[i] == vport)
			return;
	if (i < TX_PEERS)
		tx_peers[n_tx_peers++] = vport;
}

static int
send_frame(struct vport *vport, const void *frame, size_t len,
	   const struct virtio_net_hdr *vh, const struct tun_key *tun,
	   uint16_t l3_proto)
{
	static const struct virtio_net_hdr none;

	if (tx_deferred && vport->ops->rx_ready)
		tx_peer_note(vport);
	if (tx_deferred && vport->ops->send_many && !l3_proto) {
		if (len <= TX_SLOT && tx_enqueue(vport, frame, len, vh))
			return 0;
		/* Frames to one port leave in order. */
		for (int i = 0; i < TX_QUEUES && txq[i]; i++)
			if (txq[i]->vport == vport && txq[i]->n)
				txq_flush(txq[i]);
	}
	return vport->ops->send(vport, frame, len, vh ? vh : &none, tun,
				l3_proto);
}

int
vport_send(struct vport *vport, const void *frame, size_t len,
	   const struct virtio_net_hdr *vh, const struct tun_key *tun,
	   uint16_t l3_proto)
{
	if ((!vh || vh->gso_type == VIRTIO_NET_HDR_GSO_NONE) &&
	    (l3_proto ? len : packet_length(frame, len)) >
		    __atomic_load_n(&vport->mtu, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&vport->tx_too_big, 1, __ATOMIC_RELAXED);
		return -EMSGSIZE;
	}
	return send_frame(vport, frame, len, vh, tun, l3_proto);
}

int
vport_send_segment(struct vport *vport, const void *frame, size_t len,
		   const struct tun_key *tun, uint16_t l3_proto)
{
	return send_frame(vport, frame, len, NULL, tun, l3_proto);
}

int
vport_locate(struct vport *vport)
{
	return vport->ops->locate ? vport->ops->locate(vport) : 0;
}

int
vport_error_fd(void)
{
	if (error_fd < 0)
		error_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return error_fd < 0 ? -errno : error_fd;
}

bool
vport_take_error(struct vport *vport)
{
	return __atomic_exchange_n(&vport->rx_error, false, __ATOMIC_RELAXED);
}

void
vport_socket_buffer(int fd, int which, int bytes)
{
	int force = which == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;

	if (setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, which, &bytes, sizeof(bytes));
}

void
vport_set_mtu(struct vport *vport, uint32_t mtu)
{
	__atomic_store_n(&vport->mtu, mtu, __ATOMIC_RELAXED);
}

bool
vport_offload_valid(const struct virtio_net_hdr *vh, size_t len)
{
	uint8_t gso = vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

	/* The 16-bit checksum field must be inside the frame. */
	if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    (size_t)vh->csum_start + vh->csum_offset + sizeof(uint16_t) > len)
		return false;
	switch (gso) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		return vh->gso_size && vh->hdr_len <= len;
	default:
		return false;
	}
}

int
vport_get_stats(struct vport *vport, struct ovs_vport_stats *st)
{
	struct rtnl_link_stats64 s;
	int err;

	if (vport->ops->get_stats) {
		vport->ops->get_stats(vport, st);
		return 0;
	}
	err = netdev_get_stats(vport->netnsid, vport->ifindex, &s);

	if (vport->ops->rx_overruns)
		__atomic_fetch_add(&vport->rx_overruns,
				   vport->ops->rx_overruns(vport),
				   __ATOMIC_RELAXED);

	*st = (struct ovs_vport_stats) {
		.rx_packets = s.rx_packets,
		.tx_packets = s.tx_packets,
		.rx_bytes = s.rx_bytes,
		.tx_bytes = s.tx_bytes,
		.rx_errors = s.rx_errors +
			     __atomic_load_n(&vport->rx_bad_offload,
					     __ATOMIC_RELAXED),
		.tx_errors = s.tx_errors +
			     __atomic_load_n(&vport->tx_too_big,
					     __ATOMIC_RELAXED),
		.rx_dropped = s.rx_dropped +
			      __atomic_load_n(&vport->rx_overruns,
					      __ATOMIC_RELAXED),
		.tx_dropped = s.tx_dropped,
	};
	return err;
}
