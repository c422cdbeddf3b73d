/* Internal ports: a TAP device per port, named as the port. The device lives
 * as long as the daemon holds its fd, so a port deleted or a daemon gone
 * leaves no device behind. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "netdev.h"
#include "vport.h"

static int
internal_open(struct vport *vport)
{
	struct ifreq ifr = { 0 };
	int fd, err;

	/* register_netdevice refuses a taken name with EEXIST. */
	if (netdev_ifindex(vport->name))
		return -EEXIST;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", vport->name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = errno == EBUSY ? -EEXIST : -errno;
		close(fd);
		return err;
	}
	/* The host may hand over partial checksums and TCP segments of up
	 * to 64 KiB, as to the kernel's internal device. */
	if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
		  TUN_F_TSO_ECN) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	vport->fd = fd;
	vport->ifindex = netdev_ifindex(vport->name);
	/* The kernel's internal device is promiscuous from birth. */
	netdev_set_promisc(vport->name, true);
	return 0;
}

static void
internal_close(struct vport *vport)
{
	close(vport->fd);
}

/* A TAP device gives one frame per read. */
static unsigned
internal_recv_burst(struct vport *vport, uint8_t *scratch, size_t size,
		    unsigned max)
{
	uint8_t *frame = scratch + VPORT_RX_HEADROOM;
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) },
				{ frame, size - VPORT_RX_HEADROOM } };
	unsigned n;

	for (n = 0; n < max; n++) {
		ssize_t r = readv(vport->fd, iov, 2);

		if (r < (ssize_t)sizeof(vh))
			break;
		vport_rx_deliver(vport, scratch, size, r - sizeof(vh), &vh);
	}
	return n;
}

static int
internal_send(struct vport *vport, const void *frame, size_t len,
	      const struct virtio_net_hdr *vh)
{
	struct iovec iov[2] = { { (void *)vh, sizeof(*vh) },
				{ (void *)frame, len } };

	return writev(vport->fd, iov, 2) < 0 ? -errno : 0;
}

const struct vport_ops vport_internal_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.open = internal_open,
	.close = internal_close,
	.recv_burst = internal_recv_burst,
	.send = internal_send,
};
