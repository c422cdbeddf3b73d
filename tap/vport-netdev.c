/* Netdev ports: an existing interface, read and written through an AF_PACKET
 * socket bound to it, in promiscuous mode, blind to its own transmissions. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netdev.h"
#include "vport.h"

static int
netdev_open(struct vport *vport)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int one = 1, fd, err;

	err = netdev_check_attachable(vport->name);
	if (err)
		return err;
	vport->ifindex = netdev_ifindex(vport->name);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    htons(ETH_P_ALL));
	if (fd < 0)
		return -errno;
	sll.sll_ifindex = vport->ifindex;
	mr.mr_ifindex = vport->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	vport->fd = fd;
	return 0;
}

static void
netdev_close(struct vport *vport)
{
	close(vport->fd);
}

static ssize_t
netdev_recv(struct vport *vport, void *buf, size_t len)
{
	return recv(vport->fd, buf, len, MSG_DONTWAIT);
}

static int
netdev_send(struct vport *vport, const void *frame, size_t len)
{
	return send(vport->fd, frame, len, MSG_DONTWAIT) < 0 ? -errno : 0;
}

const struct vport_ops vport_netdev_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.open = netdev_open,
	.close = netdev_close,
	.recv = netdev_recv,
	.send = netdev_send,
};
