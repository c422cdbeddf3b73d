/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/vlan-dev.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/if_vlan.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/ns-socket.h"
#include "genl-server/attr.h"
#include "genl-server/msg.h"
#include "packet/headers.h"
#include "tap/netdev.h"
#include "tap/tap.h"

/* Made here under a name the kernel picks, then moved (vport-internal.c's
 * way). */
#define MADE_HERE	"tapdpvl%d"
/* A frame as large as the TAP's MTU, its tag and the virtio-net header. */
#define FRAME_MAX	(TAP_MTU_MAX + ETH_HLEN + VLAN_HLEN)
#define VNET_HLEN	sizeof(struct virtio_net_hdr)
#define VLAN_VID_MASK	0x0fff

struct vlan_dev {
	const void *owner;
	char name[IFNAMSIZ];
	int ifindex;
	int netnsid;		/* its namespace's id in ours */
	int lower;
	uint16_t proto, id;
	int tap;		/* the device's queue */
	int pkt;		/* the packet socket on the lower device */
	int stop;		/* eventfd: the thread ends */
	pthread_t thread;
	void *record;		/* the request that makes it again */
	size_t record_len;
	bool gone;		/* atomic: the thread closed both and
				 * ended, the lower device gone */
};

static struct vlan_dev **devs;
static size_t n_devs;

/* The vlan driver's (8021q's vlan_policy). */
static const struct attr_policy vlan_policy[IFLA_VLAN_MAX + 1] = {
	[IFLA_VLAN_ID] = { .kind = ATTR_U16 },
	[IFLA_VLAN_FLAGS] = { .kind = ATTR_BINARY,
			      .len = sizeof(struct ifla_vlan_flags) },
	[IFLA_VLAN_EGRESS_QOS] = { .kind = ATTR_NESTED },
	[IFLA_VLAN_INGRESS_QOS] = { .kind = ATTR_NESTED },
	[IFLA_VLAN_PROTOCOL] = { .kind = ATTR_BE16 },
};

int
vlan_dev_parse(const struct nlattr *data, struct vlan_dev_config *cfg,
	       struct extack *ack)
{
	const struct nlattr *tb[IFLA_VLAN_MAX + 1] = { 0 };
	int err;

	cfg->proto = ETH_P_8021Q;
	if (!data) {
		ack->msg = "8021q: VLAN properties not specified";
		return -EINVAL;
	}
	err = attr_parse_nested(data, vlan_policy, IFLA_VLAN_MAX, tb, ack);
	if (err)
		return err;
	if (tb[IFLA_VLAN_PROTOCOL]) {
		cfg->proto = ntohs(attr_get_u16(tb[IFLA_VLAN_PROTOCOL]));
		if (cfg->proto != ETH_P_8021Q && cfg->proto != ETH_P_8021AD) {
			ack->msg = "8021q: Invalid VLAN protocol";
			return -EPROTONOSUPPORT;
		}
	}
	if (!tb[IFLA_VLAN_ID]) {
		ack->msg = "8021q: VLAN id not specified";
		return -EINVAL;
	}
	cfg->id = attr_get_u16(tb[IFLA_VLAN_ID]);
	if (cfg->id >= VLAN_VID_MASK) {
		ack->msg = "8021q: Invalid VLAN id";
		return -ERANGE;
	}
	return 0;
}

/* What the device sends: tagged, out of the lower device. */
static void
from_device(struct vlan_dev *d, uint8_t *buf, ssize_t n)
{
	struct vlan_header tag = { htons(d->proto), htons(d->id) };
	uint8_t *f = buf + VNET_HLEN;
	size_t len;

	if (n < (ssize_t)(VNET_HLEN + ETH_HLEN))
		return;
	len = n - VNET_HLEN;
	/* The tag goes after the addresses: those move back into the room
	 * before the frame (the caller's, or the virtio-net header's). */
	memmove(f - VLAN_HLEN, f, ETH_ADDRS_LEN);
	f -= VLAN_HLEN;
	memcpy(f + ETH_ADDRS_LEN, &tag, VLAN_HLEN);
	(void)!send(d->pkt, f, len + VLAN_HLEN, MSG_DONTWAIT);
}

/* What the lower device received: ours if its tag (given aside) is. */
static void
from_lower(struct vlan_dev *d, uint8_t *buf)
{
	char cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct iovec iov = { buf + VNET_HLEN, FRAME_MAX };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	const struct tpacket_auxdata *aux = NULL;
	ssize_t n = recvmsg(d->pkt, &m, MSG_DONTWAIT);

	if (n < ETH_HLEN || (m.msg_flags & MSG_TRUNC))
		return;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_PACKET &&
		    c->cmsg_type == PACKET_AUXDATA)
			aux = (const void *)CMSG_DATA(c);
	if (!aux || !(aux->tp_status & TP_STATUS_VLAN_VALID) ||
	    (aux->tp_vlan_tci & VLAN_VID_MASK) != d->id)
		return;
	/* Without a TPID given, the kernel's is 802.1Q. */
	if (((aux->tp_status & TP_STATUS_VLAN_TPID_VALID)
	     ? aux->tp_vlan_tpid : ETH_P_8021Q) != d->proto)
		return;
	memset(buf, 0, VNET_HLEN);
	(void)!write(d->tap, buf, VNET_HLEN + n);
}

static bool
lower_gone(const struct vlan_dev *d)
{
	uint8_t mac[ETH_ALEN];
	uint32_t mtu;

	return netdev_lookup_index(d->netnsid, d->lower, mac, &mtu) == -ENODEV;
}

static void *
dev_main(void *arg)
{
	struct vlan_dev *d = arg;
	uint8_t *buf = malloc(VLAN_HLEN + VNET_HLEN + FRAME_MAX);

	while (buf) {
		struct pollfd p[3] = { { d->tap, POLLIN, 0 },
				       { d->pkt, POLLIN, 0 },
				       { d->stop, POLLIN, 0 } };
		ssize_t n;

		if (poll(p, 3, -1) < 0 && errno != EINTR)
			break;
		if (p[2].revents)
			break;
		if (p[0].revents & POLLIN) {
			n = read(d->tap, buf + VLAN_HLEN,
				 VNET_HLEN + FRAME_MAX);
			if (n > 0)
				from_device(d, buf + VLAN_HLEN, n);
		}
		/* The lower device down, or gone: the socket says
		 * ENETDOWN either way. Gone, the device goes with it, as
		 * the kernel's vlan device does. */
		if (p[1].revents & POLLERR) {
			int err = 0;
			socklen_t len = sizeof(err);

			getsockopt(d->pkt, SOL_SOCKET, SO_ERROR, &err, &len);
			if (err == ENETDOWN && lower_gone(d)) {
				log_info("vlan device %s: its lower device "
					 "went, and it with it", d->name);
				tap_close(d->tap);
				close(d->pkt);
				__atomic_store_n(&d->gone, true,
						 __ATOMIC_RELEASE);
				break;
			}
		}
		if (p[1].revents & POLLIN)
			from_lower(d, buf);
	}
	free(buf);
	return NULL;
}

/* The devices whose lower device went let go of. */
static void
prune(void)
{
	for (size_t i = 0; i < n_devs;) {
		struct vlan_dev *d = devs[i];

		if (!__atomic_load_n(&d->gone, __ATOMIC_ACQUIRE)) {
			i++;
			continue;
		}
		pthread_join(d->thread, NULL);
		close(d->stop);
		free(d->record);
		free(d);
		devs[i] = devs[--n_devs];
	}
}

/* The packet socket on the lower device: what it receives only, each
 * frame with its tag aside. */
static int
lower_open(int nsfd, int lower)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = lower };
	int one = 1, fd = ns_socket(nsfd, AF_PACKET, SOCK_RAW | SOCK_NONBLOCK,
				    0);

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* The TAP, made with the lower device's address and MTU, moved where
 * the device belongs under its name; or the one a predecessor made,
 * which the keeper held, as it is. */
static int
device_make(struct vlan_dev *d, int nsfd, const struct vlan_dev_config *cfg,
	    const uint8_t *mac, uint32_t mtu)
{
	char made[IFNAMSIZ];
	bool kept = false;
	int err;

	snprintf(d->name, sizeof(d->name), "%s",
		 cfg->name[0] ? cfg->name : "vlan%d");
	if (nsfd >= 0 && !strchr(d->name, '%')) {
		d->tap = tap_claim_moved(d->netnsid, d->name);
		if (d->tap >= 0)
			return 0;
	} else if (nsfd < 0) {
		/* tap_open takes back a kept one of that name. */
		kept = !strchr(d->name, '%') && netdev_ifindex(d->name);
	}
	snprintf(made, sizeof(made), "%s", nsfd >= 0 ? MADE_HERE : d->name);
	d->tap = tap_open(made, false, false, true);
	if (d->tap < 0)
		return d->tap;
	if (nsfd < 0)
		snprintf(d->name, sizeof(d->name), "%s", made);
	if (kept)
		return 0;
	err = netdev_set_mac(made, mac);
	if (!err)
		err = netdev_set_mtu(made, mtu);
	if (!err && nsfd >= 0)
		err = tap_move(d->tap, made, nsfd, d->netnsid, d->name, false);
	return err;
}

int
vlan_dev_create(const void *owner, int nsfd, int netnsid,
		struct vlan_dev_config *cfg, struct vlan_dev **out)
{
	struct vlan_dev *d, **grown;
	uint8_t mac[ETH_ALEN];
	uint32_t mtu, lower_mtu;
	int err;

	err = netdev_lookup_index(netnsid, cfg->lower, mac, &lower_mtu);
	if (err)
		return err;
	prune();
	for (size_t i = 0; i < n_devs; i++)
		if (devs[i]->owner == owner && devs[i]->lower == cfg->lower &&
		    devs[i]->proto == cfg->proto && devs[i]->id == cfg->id)
			return -EEXIST;
	mtu = cfg->mtu ? cfg->mtu : lower_mtu;
	if (mtu > lower_mtu)
		return -EINVAL;
	grown = realloc(devs, (n_devs + 1) * sizeof(*devs));
	if (!grown)
		return -ENOMEM;
	devs = grown;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*d = (struct vlan_dev){ .owner = owner, .lower = cfg->lower,
				.netnsid = netnsid,
				.proto = cfg->proto, .id = cfg->id,
				.tap = -1, .pkt = -1, .stop = -1 };
	err = device_make(d, nsfd, cfg, cfg->has_mac ? cfg->mac : mac, mtu);
	if (!err) {
		d->pkt = lower_open(nsfd, cfg->lower);
		err = d->pkt < 0 ? d->pkt : 0;
	}
	if (!err) {
		d->stop = eventfd(0, EFD_CLOEXEC);
		err = d->stop < 0 ? -errno
				  : -pthread_create(&d->thread, NULL, dev_main, d);
	}
	if (err) {
		if (d->stop >= 0)
			close(d->stop);
		if (d->pkt >= 0)
			close(d->pkt);
		if (d->tap >= 0)
			tap_close(d->tap);
		free(d);
		return err;
	}
	netdev_lookup(netnsid, d->name, &d->ifindex, &mtu);
	snprintf(cfg->name, sizeof(cfg->name), "%s", d->name);
	devs[n_devs++] = d;
	*out = d;
	return 0;
}

struct vlan_dev *
vlan_dev_find(const void *owner, int ifindex, const char *name)
{
	prune();
	for (size_t i = 0; i < n_devs; i++) {
		struct vlan_dev *d = devs[i];

		if (d->owner == owner &&
		    ((name && !strcmp(d->name, name)) ||
		     (ifindex && d->ifindex == ifindex)))
			return d;
	}
	return NULL;
}

const char *
vlan_dev_name(const struct vlan_dev *d)
{
	return d->name;
}

int
vlan_dev_lower(const struct vlan_dev *d)
{
	return d->lower;
}

void
vlan_dev_fill_info(const struct vlan_dev *d, struct msgbuf *mb)
{
	/* The driver's default flags, which these devices keep. */
	struct ifla_vlan_flags f = { .flags = VLAN_FLAG_REORDER_HDR,
				     .mask = ~0U };
	struct nlattr *data;

	msgbuf_put_string(mb, IFLA_INFO_KIND, "vlan");
	data = msgbuf_nest_start(mb, IFLA_INFO_DATA);
	msgbuf_put_u16(mb, IFLA_VLAN_PROTOCOL, htons(d->proto));
	msgbuf_put_u16(mb, IFLA_VLAN_ID, d->id);
	msgbuf_put(mb, IFLA_VLAN_FLAGS, sizeof(f), &f);
	msgbuf_nest_end(mb, data);
}

void
vlan_dev_set_record(struct vlan_dev *d, void *record, size_t len)
{
	free(d->record);
	d->record = record;
	d->record_len = len;
}

const void *
vlan_dev_record(const void *owner, size_t *i, size_t *len)
{
	prune();
	for (; *i < n_devs; (*i)++) {
		const struct vlan_dev *d = devs[*i];

		if (d->owner == owner && d->record) {
			*len = d->record_len;
			return devs[(*i)++]->record;
		}
	}
	return NULL;
}

void
vlan_dev_destroy(struct vlan_dev *d)
{
	uint64_t one = 1;

	for (size_t i = 0; i < n_devs; i++) {
		if (devs[i] == d) {
			devs[i] = devs[--n_devs];
			break;
		}
	}
	(void)!write(d->stop, &one, sizeof(one));
	pthread_join(d->thread, NULL);
	close(d->stop);
	/* Unless the thread closed them, the lower device gone. */
	if (!d->gone) {
		close(d->pkt);
		tap_close(d->tap);
	}
	free(d->record);
	free(d);
}

void
vlan_dev_destroy_all(const void *owner)
{
	prune();
	for (size_t i = 0; i < n_devs;) {
		if (devs[i]->owner == owner)
			vlan_dev_destroy(devs[i]);
		else
			i++;
	}
}

bool
vlan_dev_any(const void *owner)
{
	prune();
	for (size_t i = 0; i < n_devs; i++)
		if (devs[i]->owner == owner)
			return true;
	return false;
}
