/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tests/unit/fake-port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "genl-server/msg.h"
#include "packet/frame.h"
#include "packet/tun-key.h"
#include "tests/unit/builders.h"

#define MAX_DEVICES	32
#define IFINDEX_BASE	1000000

struct device {
	char name[IFNAMSIZ];		/* "": a free slot */
	int port_fd, wire_fd;
	int ifindex;
};

static struct device devices[MAX_DEVICES];
static int next_ifindex = IFINDEX_BASE;

static struct device *
device_find(const char *name)
{
	for (int i = 0; i < MAX_DEVICES; i++)
		if (devices[i].name[0] && !strcmp(devices[i].name, name))
			return &devices[i];
	return NULL;
}

int
fake_device_add(const char *name)
{
	struct device *d = NULL;
	int sv[2];

	if (device_find(name))
		return -EEXIST;
	for (int i = 0; i < MAX_DEVICES && !d; i++)
		if (!devices[i].name[0])
			d = &devices[i];
	if (!d)
		return -ENOSPC;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->port_fd = sv[0];
	d->wire_fd = sv[1];
	d->ifindex = next_ifindex++;
	return 0;
}

void
fake_device_del(const char *name)
{
	struct device *d = device_find(name);

	if (!d)
		return;
	close(d->port_fd);
	close(d->wire_fd);
	memset(d, 0, sizeof(*d));
}

static void
fake_close(struct vport *vport)
{
	for (unsigned i = 0; i < vport->n_rxq; i++)
		close(vport->rxq[i].fd);
}

/* Every receive queue reads the device's one socket. */
static int
fake_open(struct vport *vport)
{
	struct device *d = device_find(vport->name);
	unsigned i;

	if (!d)
		return -ENODEV;
	for (i = 0; i < vport->n_rxq; i++) {
		vport->rxq[i].state = NULL;
		vport->rxq[i].fd = fcntl(d->port_fd, F_DUPFD_CLOEXEC, 0);
		if (vport->rxq[i].fd < 0)
			break;
	}
	if (i < vport->n_rxq) {
		int err = -errno;

		vport->n_rxq = i;
		fake_close(vport);
		return err;
	}
	vport->fd = vport->rxq[0].fd;
	vport->ifindex = d->ifindex;
	return 0;
}

static int
internal_open(struct vport *vport)
{
	int err = fake_device_add(vport->name);

	if (!err) {
		err = fake_open(vport);
		if (err)
			fake_device_del(vport->name);
	}
	return err;
}

static void
internal_close(struct vport *vport)
{
	fake_close(vport);
	fake_device_del(vport->name);
}

static void
recv_burst(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
	   size_t size, unsigned max)
{
	for (unsigned n = 0; n < max; n++) {
		struct virtio_net_hdr vh;
		struct iovec iov[2] = {
			{ &vh, sizeof(vh) },
			{ scratch + FRAME_HEADROOM, size - FRAME_HEADROOM },
		};
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t r = recvmsg(q->fd, &mh, MSG_DONTWAIT);

		if (r <= (ssize_t)sizeof(vh))
			break;
		vport_rx_deliver(vport, scratch, size, r - sizeof(vh), &vh,
				 NULL, 0);
	}
}

/* A datagram on the wire: a virtio-net header, then the frame. */
static int
wire_send(int fd, const struct virtio_net_hdr *vh, const void *frame,
	  size_t len, int flags)
{
	static const struct virtio_net_hdr none;
	struct iovec iov[2] = { { (void *)(vh ? vh : &none), sizeof(*vh) },
				{ (void *)frame, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	return sendmsg(fd, &mh, flags) < 0 ? -errno : 0;
}

static int
fake_send(struct vport *vport, const void *frame, size_t len,
	  const struct virtio_net_hdr *vh, const struct tun_key *tun,
	  uint16_t l3_proto)
{
	return wire_send(vport->fd, vh, frame, len, MSG_DONTWAIT);
}

/* As a tunnel port completes its egress tunnel: a source address and the
 * UDP ports, fixed here (FAKE_EGRESS_*). */
static int
fake_egress_info(struct vport *vport, const void *frame, size_t len,
		 struct tun_key *tun)
{
	if (tun->family != AF_INET)
		return -EINVAL;
	tun->ipv4_src = htonl(FAKE_EGRESS_SRC);
	tun->tp_src = htons(FAKE_EGRESS_SPORT);
	tun->tp_dst = htons(FAKE_EGRESS_DPORT);
	return 0;
}

static const struct vport_ops internal_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.name = "internal",
	.open = internal_open,
	.close = internal_close,
	.recv_burst = recv_burst,
	.send = fake_send,
};

static const struct vport_ops netdev_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.name = "netdev",
	.open = fake_open,
	.close = fake_close,
	.recv_burst = recv_burst,
	.send = fake_send,
	.egress_info = fake_egress_info,
};

const struct vport_ops *
fake_port_ops(enum ovs_vport_type type)
{
	switch (type) {
	case OVS_VPORT_TYPE_INTERNAL:
		return &internal_ops;
	case OVS_VPORT_TYPE_NETDEV:
		return &netdev_ops;
	default:
		return NULL;
	}
}

void
fake_wire_send(const char *name, const void *frame, size_t len)
{
	fake_wire_send_vnet(name, NULL, frame, len);
}

void
fake_wire_send_vnet(const char *name, const struct virtio_net_hdr *vh,
		    const void *frame, size_t len)
{
	struct device *d = device_find(name);

	if (d)
		wire_send(d->wire_fd, vh, frame, len, 0);
}

ssize_t
fake_wire_recv(const char *name, void *buf, size_t size, int ms)
{
	struct device *d = device_find(name);
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) }, { buf, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct pollfd pfd;
	ssize_t r;

	if (!d)
		return -1;
	pfd = (struct pollfd){ .fd = d->wire_fd, .events = POLLIN };
	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	r = recvmsg(d->wire_fd, &mh, MSG_DONTWAIT);
	return r < (ssize_t)sizeof(vh) ? -1 : r - (ssize_t)sizeof(vh);
}

size_t
fake_frame(uint8_t *frame)
{
	struct fb b;

	fb_init(&b, frame, FAKE_FRAME_LEN);
	fb_eth(&b, FAKE_ETH_TYPE);
	fb_put(&b, NULL, FAKE_FRAME_LEN - ETH_HLEN);
	return fb_end(&b);
}

void
fake_frame_key_put(struct msgbuf *mb, uint32_t in_port, const uint8_t *src)
{
	struct ovs_key_ethernet eth;

	memcpy(eth.eth_src, src, ETH_ALEN);
	memcpy(eth.eth_dst, fb_mac_dst, ETH_ALEN);
	msgbuf_put_u32(mb, OVS_KEY_ATTR_IN_PORT, in_port);
	msgbuf_put(mb, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	msgbuf_put_u16(mb, OVS_KEY_ATTR_ETHERTYPE, htons(FAKE_ETH_TYPE));
}

struct nlattr *
fake_frame_key(struct msgbuf *mb, uint16_t type, uint32_t in_port,
	       const uint8_t *src)
{
	struct nlattr *key = msgbuf_nest_start(mb, type);

	fake_frame_key_put(mb, in_port, src);
	msgbuf_nest_end(mb, key);
	return key;
}
