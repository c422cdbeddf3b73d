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
	/* Bursts at line rate outrun a default-sized socket buffer. */
	int one = 1, rcvbuf = 8 << 20, fd, err;

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
		       sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one,
		       sizeof(one)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	vport->fd = fd;
	return 0;
}

static void
netdev_close(struct vport *vport)
{
	close(vport->fd);
}

/* Devices that strip VLAN tags on receive hand them over beside the
 * frame; the datapath sees frames as they were on the wire, so the tag goes
 * back in. */
static ssize_t
netdev_recv(struct vport *vport, void *buf, size_t len,
	    struct virtio_net_hdr *vh)
{
	char cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct iovec iov[2] = { { vh, sizeof(*vh) }, { buf, len - 4 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	uint8_t *frame = buf;
	ssize_t n = recvmsg(vport->fd, &mh, MSG_DONTWAIT);

	if (n < (ssize_t)sizeof(*vh) + 12)
		return -1;
	n -= sizeof(*vh);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		struct tpacket_auxdata aux;
		uint16_t tpid, tci;

		if (c->cmsg_level != SOL_PACKET ||
		    c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
			continue;
		tpid = htons((aux.tp_status & TP_STATUS_VLAN_TPID_VALID)
			     ? aux.tp_vlan_tpid : ETH_P_8021Q);
		tci = htons(aux.tp_vlan_tci);
		memmove(frame + 16, frame + 12, n - 12);
		memcpy(frame + 12, &tpid, 2);
		memcpy(frame + 14, &tci, 2);
		n += 4;
		/* Offsets into the frame move with the tag. */
		if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			vh->csum_start += 4;
		if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE)
			vh->hdr_len += 4;
	}
	return n;
}

static int
netdev_send(struct vport *vport, const void *frame, size_t len,
	    const struct virtio_net_hdr *vh)
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

const struct vport_ops vport_netdev_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.open = netdev_open,
	.close = netdev_close,
	.recv = netdev_recv,
	.send = netdev_send,
	.send_many = netdev_send_many,
};
