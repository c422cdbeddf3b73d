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
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", vport->name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = errno == EBUSY ? -EEXIST : -errno;
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

static ssize_t
internal_recv(struct vport *vport, void *buf, size_t len)
{
	return read(vport->fd, buf, len);
}

static int
internal_send(struct vport *vport, const void *frame, size_t len)
{
	return write(vport->fd, frame, len) < 0 ? -errno : 0;
}

const struct vport_ops vport_internal_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.open = internal_open,
	.close = internal_close,
	.recv = internal_recv,
	.send = internal_send,
};
