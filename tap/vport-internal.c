/* SPDX-License-Identifier: Apache-2.0 */
/* Internal ports: a TAP device per port, named as the port, with a queue
 * per receive queue of the port (IFF_MULTI_QUEUE: the kernel spreads the
 * host's frames over them by flow). The device lives as long as the daemon
 * or its keeper hold its fds, so a port deleted or a daemon stopped leaves
 * no device behind, and one that died leaves it to its successor. Sends go
 * through the first queue. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/net_namespace.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tap/netdev.h"
#include "tap/tap.h"
#include "tap/vport.h"

/* The first queue creates the device called name, the others join it. */
static int
queue_open(struct vport *vport, struct vport_rxq *q, char *name)
{
	q->state = NULL;
	q->fd = tap_open(name, false, vport->n_rxq > 1, q == vport->rxq);
	return q->fd < 0 ? q->fd : 0;
}

static int internal_locate(struct vport *vport);

/* A port of another namespace's datapath: its device is made here under
 * a name the kernel picks, so that none of ours is taken, then moved
 * there and named as the port in one step (-EEXIST when the name is
 * taken there). The TAP's fds keep working wherever the device is. */
#define MADE_HERE	"tapdpns%d"

static int
internal_move(struct vport *vport, const char *made, int home)
{
	int err = tap_move(vport->rxq[0].fd, made, vport->make_nsfd, home,
			   vport->name, false);

	if (err)
		return err;
	for (unsigned i = 1; i < vport->n_rxq; i++)
		tap_moved(vport->rxq[i].fd, vport->name, home);
	return internal_locate(vport);
}

static void
internal_close(struct vport *vport)
{
	for (unsigned i = 0; i < vport->n_rxq; i++)
		tap_close(vport->rxq[i].fd);
}

/* A port of the datapath of namespace home a dead daemon served: its
 * queues are with the keeper, its device wherever it went. */
static int
internal_reclaim(struct vport *vport, int home)
{
	unsigned i;
	int err = -ENOENT;

	for (i = 0; i < vport->n_rxq; i++) {
		vport->rxq[i].state = NULL;
		vport->rxq[i].fd = tap_claim_moved(home, vport->name);
		if (vport->rxq[i].fd < 0)
			break;
	}
	if (i == vport->n_rxq) {
		vport->fd = vport->rxq[0].fd;
		err = internal_locate(vport);
		if (!err)
			return 0;
	}
	/* A device with fewer queues than the port, or gone since: made
	 * again. */
	while (i--)
		tap_close(vport->rxq[i].fd);
	return err;
}

static int
internal_open(struct vport *vport)
{
	char made[IFNAMSIZ] = MADE_HERE;
	bool elsewhere = vport->make_nsfd >= 0;
	/* A name with "%d" here is filled in by the kernel, written back. */
	char *name = elsewhere ? made : vport->name;
	unsigned i;
	int err, home = NETNSA_NSID_NOT_ASSIGNED;

	/* TUNSETIFF would make up a name for an empty one. */
	if (!netdev_valid_name(vport->name))
		return -EINVAL;
	if (elsewhere) {
		err = netdev_netnsid(vport->make_nsfd, &home);
		if (err)
			return err;
		if (!internal_reclaim(vport, home))
			return 0;
	}
	for (i = 0; i < vport->n_rxq; i++) {
		err = queue_open(vport, &vport->rxq[i], name);
		if (err)
			goto fail;
	}
	/* The host may hand over partial checksums and TCP segments of up
	 * to 64 KiB, as to the kernel's internal device. */
	if (ioctl(vport->rxq[0].fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 |
		  TUN_F_TSO6 | TUN_F_TSO_ECN) < 0) {
		err = -errno;
		goto fail;
	}
	vport->fd = vport->rxq[0].fd;
	/* The kernel's internal device is promiscuous from birth. */
	netdev_set_promisc(name, true);
	if (elsewhere) {
		err = internal_move(vport, name, home);
		if (err)
			goto fail;
	} else {
		vport->ifindex = netdev_ifindex(name);
	}
	return 0;
fail:
	while (i--)
		tap_close(vport->rxq[i].fd);
	return err;
}

/* The device may have been moved to another namespace (and renamed
 * there): the TAP fd knows where it is. */
static int
internal_locate(struct vport *vport)
{
	struct ifreq ifr = { 0 };
	int nsfd, netnsid, ifindex, err;
	uint32_t mtu;

	/* Destroyed with the namespace it was in: the queues are left
	 * detached. */
	if (ioctl(vport->fd, TUNGETIFF, &ifr) < 0)
		return errno == EBADFD ? -ENODEV : -errno;
	nsfd = ioctl(vport->fd, TUNGETDEVNETNS);
	if (nsfd < 0)
		return -errno;
	err = netdev_netnsid(nsfd, &netnsid);
	close(nsfd);
	if (!err)
		err = netdev_lookup(netnsid, ifr.ifr_name, &ifindex, &mtu);
	if (err)
		return err;
	vport->netnsid = netnsid;
	vport->ifindex = ifindex;
	if (mtu)
		vport_set_mtu(vport, mtu);
	return 0;
}

/* A TAP device gives one frame per read. */
static void
internal_recv_burst(struct vport *vport, struct vport_rxq *q,
		    uint8_t *scratch, size_t size, unsigned max)
{
	uint8_t *frame = scratch + FRAME_HEADROOM;
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) },
				{ frame, size - FRAME_HEADROOM } };

	for (unsigned n = 0; n < max; n++) {
		ssize_t r = readv(q->fd, iov, 2);

		if (r < (ssize_t)sizeof(vh))
			break;
		vport_rx_deliver(vport, scratch, size, r - sizeof(vh), &vh,
				 NULL, 0);
	}
}

static int
internal_send(struct vport *vport, const void *frame, size_t len,
	      const struct virtio_net_hdr *vh, const struct tun_key *tun,
	      uint16_t l3_proto)
{
	struct iovec iov[2] = { { (void *)vh, sizeof(*vh) },
				{ (void *)frame, len } };

	return writev(vport->fd, iov, 2) < 0 ? -errno : 0;
}

const struct vport_ops vport_internal_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.name = "internal",
	.open = internal_open,
	.close = internal_close,
	.recv_burst = internal_recv_burst,
	.send = internal_send,
	.locate = internal_locate,
};
