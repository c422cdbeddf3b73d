#define _GNU_SOURCE
#include "vport.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "netdev.h"

/* The largest frame a port delivers: a 64 KiB GSO frame and its headers. */
#define VPORT_FRAME_MAX (65536 + 256)
#define RX_BURST 64

struct vport_rx {
	pthread_t thread;
	int stop_fd;
	const struct vport_rx_ops *ops;
	void *owner;
};

static const struct vport_ops *
ops_for(enum ovs_vport_type type)
{
	switch (type) {
	case OVS_VPORT_TYPE_INTERNAL:
		return &vport_internal_ops;
	case OVS_VPORT_TYPE_NETDEV:
		return &vport_netdev_ops;
	default:
		return NULL;
	}
}

static void *
rx_main(void *arg)
{
	struct vport *vport = arg;
	struct vport_rx *rx = vport->priv;
	size_t size = VPORT_RX_HEADROOM + VPORT_FRAME_MAX;
	uint8_t *buf = malloc(size);
	struct pollfd pfd[2] = {
		{ .fd = vport->fd, .events = POLLIN },
		{ .fd = rx->stop_fd, .events = POLLIN },
	};

	if (rx->ops->start)
		rx->ops->start(rx->owner);
	while (buf) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			/* The device went away; the control thread will see
			 * its deletion and detach the port. */
			pfd[0].fd = -1;
			continue;
		}
		/* Drain what is queued before sleeping again: one poll per
		 * burst, not per frame (bounded, to notice a stop). */
		for (int i = 0; i < RX_BURST; i++) {
			struct virtio_net_hdr vh;
			ssize_t n = vport->ops->recv(vport,
						     buf + VPORT_RX_HEADROOM,
						     VPORT_FRAME_MAX, &vh);

			if (n <= 0)
				break;
			rx->ops->frame(vport, buf, size, n, &vh, rx->owner);
		}
	}
	if (rx->ops->stop)
		rx->ops->stop(rx->owner);
	free(buf);
	return NULL;
}

int
vport_create(enum ovs_vport_type type, const char *name,
	     const struct vport_rx_ops *rx_ops, void *owner,
	     struct vport **out)
{
	const struct vport_ops *ops = ops_for(type);
	struct vport_rx *rx;
	struct vport *vport;
	int err;

	if (!ops)
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
	snprintf(vport->name, sizeof(vport->name), "%s", name);
	err = ops->open(vport);
	if (err) {
		free(vport);
		free(rx);
		return err;
	}
	rx->ops = rx_ops;
	rx->owner = owner;
	rx->stop_fd = eventfd(0, EFD_CLOEXEC);
	vport->priv = rx;
	if (rx->stop_fd < 0 ||
	    (err = pthread_create(&rx->thread, NULL, rx_main, vport)) != 0) {
		err = rx->stop_fd < 0 ? -errno : -err;
		if (rx->stop_fd >= 0)
			close(rx->stop_fd);
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
	struct vport_rx *rx;

	if (!vport)
		return;
	rx = vport->priv;
	(void)!write(rx->stop_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	pthread_join(rx->thread, NULL);
	close(rx->stop_fd);
	vport->ops->close(vport);
	free(rx);
	free(vport);
}

int
vport_send(struct vport *vport, const void *frame, size_t len,
	   const struct virtio_net_hdr *vh)
{
	static const struct virtio_net_hdr none;

	return vport->ops->send(vport, frame, len, vh ? vh : &none);
}

int
vport_get_stats(const struct vport *vport, struct ovs_vport_stats *st)
{
	struct rtnl_link_stats64 s;
	int err = netdev_get_stats(vport->ifindex, &s);

	*st = (struct ovs_vport_stats) {
		.rx_packets = s.rx_packets,
		.tx_packets = s.tx_packets,
		.rx_bytes = s.rx_bytes,
		.tx_bytes = s.tx_bytes,
		.rx_errors = s.rx_errors,
		.tx_errors = s.tx_errors,
		.rx_dropped = s.rx_dropped,
		.tx_dropped = s.tx_dropped,
	};
	return err;
}
