/* SPDX-License-Identifier: Apache-2.0 */
/* Tunnel ports: vxlan, geneve and gre, in the flow-based mode OVS uses
 * (the kernel's collect-metadata devices): every packet received carries
 * the outer header's facts as its tunnel metadata, every packet sent takes
 * them from the set(tunnel) that preceded its output.
 *
 * Nothing of the kernel's tunnel modules is used. The outer packets go
 * through the host's own IP stack, so routes and neighbours are the
 * kernel's: received on a UDP socket bound to the port's UDP port (vxlan,
 * geneve) or a raw IPPROTO_GRE socket (gre), in IPv4 and IPv6, and sent on
 * a raw socket with the outer IP header written here (IPPROTO_RAW: header
 * included). All of it needs only CAP_NET_RAW and CAP_NET_ADMIN in the
 * namespace's user namespace: it works in `unshare -rn`.
 *
 * Whether a datagram had a UDP checksum is part of its tunnel key (the
 * CSUM flag), and a UDP socket does not say: each family has two sockets
 * in one SO_REUSEPORT group, and a classic BPF program of the group steers
 * a datagram to the first when its checksum field is zero, to the second
 * otherwise. The kernel checked the checksum before either gets it. Where
 * the kernel answered as puts an IPv4 outer header's DF bit in the key
 * (kernel-profile.h), IPv4's group has two more, for datagrams with DF.
 *
 * The port's device, named as OVS asked, is a TAP device, so that the
 * host sees an interface (index, MTU, flags, counters) as it would see the
 * kernel's vxlan device; frames the host sends on it carry no tunnel
 * metadata and are dropped, as the kernel's device drops them.
 *
 * Receive queues: the TAP and the sockets, each served by its own thread
 * (vport.c). Sends come from any thread: the raw sockets are shared, the
 * IP identification and GRE sequence counters are atomics. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/kernel-profile.h"
#include "common/ns-socket.h"
#include "common/unaligned.h"
#include "packet/encap.h"
#include "packet/eth.h"
#include "packet/gro.h"
#include "packet/gso.h"
#include "packet/ip.h"
#include "packet/offload.h"
#include "tap/netdev.h"
#include "tap/tap.h"
#include "tap/tnl-dev.h"
#include "tap/vport.h"

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF	51
#endif
#ifndef UDP_NO_CHECK6_RX
#define UDP_NO_CHECK6_RX		102
#endif

union sockaddr_inx {
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/* What a receive queue is. */
enum tnl_queue {
	Q_TAP,				/* the device: the host's frames */
	Q_UDP4_NOCSUM, Q_UDP4_CSUM,	/* vxlan, geneve */
	Q_UDP6_NOCSUM, Q_UDP6_CSUM,
	Q_UDP4_NOCSUM_DF, Q_UDP4_CSUM_DF, /* the outer header with DF */
	Q_GRE4 = Q_UDP4_NOCSUM,		/* gre */
	Q_GRE6,
};

/* A queue's datagrams, read RX_SLOTS at a time (recvmmsg), each into a
 * slot as large as any datagram. The slots' memory is touched only as far
 * as datagrams fill it. */
#define RX_SLOTS	32
#define RX_SLOT		(FRAME_HEADROOM + 65536 + FRAME_TAILROOM)

struct rx_batch {
	uint8_t slot[RX_SLOTS][RX_SLOT];
	union sockaddr_inx from[RX_SLOTS];
	char cbuf[RX_SLOTS][256];
	struct iovec iov[RX_SLOTS];
	struct mmsghdr msg[RX_SLOTS];
	/* A train of inner TCP segments being merged (packet/gro.h): its
	 * first segment where it was received (in a slot) and the tunnel
	 * key all of its segments share; merged in merge + FRAME_HEADROOM.
	 * Delivered before the slots are read again. */
	struct gro gro;
	uint8_t *first;
	size_t first_len;
	struct tun_key key;
	uint8_t merge[FRAME_BUF_SIZE];
};

/* Room in each socket for the segments of a few 64 KiB frames at once
 * (some 45 packets each); the defaults (about 200 KiB) hold one or two. */
#define TNL_SOCKET_BUFFER	(4 << 20)

struct tnl {
	struct encap_port port;
	struct tnl_dev *own;		/* a compat port's device */
	/* A device of one remote: the tunnel the host's frames on it leave
	 * by (its struct tnl_dev's, which outlives the port); else NULL. */
	const struct tun_key *remote;
	/* Another namespace's port (its datapath's): an fd of it, for the
	 * sockets opened there, and its inode, which tells its sources
	 * apart in a thread's cache; -1 and 0 for the daemon's own. */
	int nsfd;
	uint64_t ns;
	uint8_t family;			/* the one underlay taken; 0: both */
	bool zero_csum6_rx;
	bool rx_df;			/* the DF queues: kernel_profile() */
	int raw4, raw6;			/* sends, header included */
	uint32_t ip_id;			/* atomic */
	uint32_t seq;			/* atomic: GRE sequence numbers */
	/* Counters, atomic: the port's traffic does not cross its device. */
	uint64_t rx_packets, rx_bytes;	/* decapsulated */
	uint64_t tx_packets, tx_bytes;	/* encapsulated (inner bytes) */
	uint64_t rx_dropped;		/* what decap refused */
	uint64_t tx_dropped;		/* no tunnel, no route... */
	uint64_t host_dropped;		/* the host's frames */
};

/* A = an IPv4 datagram's UDP checksum field, found past the IP header
 * (X = its length). */
#define LD_UDP4_CSUM							\
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF),	\
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x0f),			\
	BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 2),				\
	BPF_STMT(BPF_MISC | BPF_TAX, 0),				\
	BPF_STMT(BPF_LD | BPF_H | BPF_IND, (uint32_t)SKF_NET_OFF + 6)

/* Steers a datagram by its UDP checksum field: 0 to the group's first
 * socket, else the second; with df, one with the IPv4 DF bit set to the
 * third or the fourth likewise. The program sees the datagram from its
 * payload; the network header is at SKF_NET_OFF. */
static int
attach_csum_steering(int fd, int family, bool df)
{
	struct sock_filter v4[] = {
		LD_UDP4_CSUM,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_filter v4_df[] = {
		LD_UDP4_CSUM,
		/* M[0] = checksum != 0 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_NET_OFF + 6),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, IPV4_DF),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 2),
		BPF_STMT(BPF_RET | BPF_A, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	/* IPv6: the UDP header right after the fixed header (a datagram
	 * with extension headers counts as checksummed). */
	struct sock_filter v6[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_NET_OFF + 46),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_fprog prog = family == AF_INET6
		? (struct sock_fprog){ sizeof(v6) / sizeof(v6[0]), v6 }
		: df ? (struct sock_fprog){ sizeof(v4_df) / sizeof(v4_df[0]),
					    v4_df }
		: (struct sock_fprog){ sizeof(v4) / sizeof(v4[0]), v4 };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog)) < 0 ? -errno : 0;
}

/* A socket given up after a failed call: that call's -errno. */
static int
close_errno(int fd)
{
	int err = -errno;

	close(fd);
	return err;
}

/* Turns on each of the n options of level: 0 or -errno. */
static int
options_on(int fd, int level, const int *names, size_t n)
{
	int one = 1;

	for (size_t i = 0; i < n; i++)
		if (setsockopt(fd, level, names[i], &one, sizeof(one)) < 0)
			return -errno;
	return 0;
}

/* What a socket tells of the outer header beside each datagram. */
static const int recv_v4[] = { IP_PKTINFO, IP_RECVTOS, IP_RECVTTL };
static const int recv_v6[] = { IPV6_RECVPKTINFO, IPV6_RECVTCLASS,
			       IPV6_RECVHOPLIMIT };

/* One socket of a family's pair, bound to the port's UDP port. */
static int
udp_open(const struct tnl *t, int family, bool first)
{
	int one = 1, fd, err;
	union sockaddr_inx a = { 0 };
	socklen_t alen;

	fd = ns_socket(t->nsfd, family, SOCK_DGRAM | SOCK_CLOEXEC |
		       SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (family == AF_INET) {
		a.v4.sin_family = AF_INET;
		a.v4.sin_port = t->port.dst_port;
		alen = sizeof(a.v4);
		if (options_on(fd, IPPROTO_IP, recv_v4, 3) < 0)
			goto fail;
	} else {
		a.v6.sin6_family = AF_INET6;
		a.v6.sin6_port = t->port.dst_port;
		alen = sizeof(a.v6);
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			       sizeof(one)) < 0 ||
		    options_on(fd, IPPROTO_IPV6, recv_v6, 3) < 0)
			goto fail;
		/* Without the option, the kernel drops IPv6 datagrams
		 * that have no checksum, as a device without
		 * udp6zerocsumrx. */
		if (t->zero_csum6_rx &&
		    setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, &one,
			       sizeof(one)) < 0)
			goto fail;
	}
	if (bind(fd, (struct sockaddr *)&a, alen) < 0)
		goto fail;
	/* Datagrams with checksums (never the others) may come several of
	 * a flow in one read (a sender's UDP_SEGMENT train kept whole, or
	 * the kernel's GRO): fewer reads, and trains for merging. A kernel
	 * without the option gives them one by one. */
	if (!first)
		(void)setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one));
	vport_socket_buffer(fd, SO_RCVBUF, TNL_SOCKET_BUFFER);
	/* The group's program, attached once its first member is bound. */
	if (first && (err = attach_csum_steering(fd, family, t->rx_df)) < 0) {
		close(fd);
		return err;
	}
	return fd;
fail:
	return close_errno(fd);
}

/* The raw socket a family's outer packets leave by (the header is ours);
 * it receives nothing. */
static int
raw_open(const struct tnl *t, int family)
{
	int one = 1, fd;

	fd = ns_socket(t->nsfd, family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0)
		return fd;
	vport_socket_buffer(fd, SO_SNDBUF, TNL_SOCKET_BUFFER);
	if (family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &one, sizeof(one)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int
gre_open(const struct tnl *t, int family)
{
	int fd = ns_socket(t->nsfd, family, SOCK_RAW | SOCK_CLOEXEC |
			   SOCK_NONBLOCK, IPPROTO_GRE), err;

	if (fd < 0)
		return fd;
	vport_socket_buffer(fd, SO_RCVBUF, TNL_SOCKET_BUFFER);
	/* IPv4's raw sockets give the IP header itself. */
	if (family == AF_INET6 &&
	    (err = options_on(fd, IPPROTO_IPV6, recv_v6, 3)) < 0) {
		close(fd);
		return err;
	}
	return fd;
}

static void
tnl_close(struct vport *vport)
{
	struct tnl *t = vport->state;

	for (unsigned i = 0; i < vport->n_rxq; i++) {
		if (vport->rxq[i].fd >= 0)
			close(vport->rxq[i].fd);
		free(vport->rxq[i].state);
		vport->rxq[i].state = NULL;
	}
	if (t) {
		if (t->raw4 >= 0)
			close(t->raw4);
		if (t->raw6 >= 0)
			close(t->raw6);
		if (t->own)
			tnl_dev_destroy(t->own);
		if (t->nsfd >= 0)
			close(t->nsfd);
		free(t);
	}
	vport->state = NULL;
}

/* The MTU the kernel's compat vports give their devices: as large as the
 * device takes (vxlan 65535, geneve 65535 less its headers, gre 65535
 * less its own, K:vport-vxlan.c, geneve.c, ip_gre.c), at most a TAP's
 * 65521. */
static uint32_t
compat_mtu(enum encap_kind kind)
{
	switch (kind) {
	case ENCAP_GENEVE:
		return 65465;
	case ENCAP_GRE:
		return 65497;
	default:
		return TAP_MTU_MAX;
	}
}

static int
dup_fd(int fd)
{
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

static int
tnl_open(struct vport *vport, enum encap_kind kind)
{
	struct tnl *t = calloc(1, sizeof(*t));
	const struct tnl_dev *dev;
	struct rx_batch *b;
	unsigned i;
	bool gre;
	int fd;

	if (!t)
		return -ENOMEM;
	if (!netdev_valid_name(vport->name)) {
		free(t);
		return -EINVAL;
	}
	t->raw4 = t->raw6 = -1;
	t->nsfd = -1;
	t->port.kind = kind;
	vport->state = t;
	gre = !encap_udp(kind);
	t->rx_df = !gre && kernel_profile()->tunnel_rx_df;
	vport->n_rxq = gre ? Q_GRE6 + 1
		     : t->rx_df ? Q_UDP4_CSUM_DF + 1 : Q_UDP6_CSUM + 1;
	for (i = 0; i < vport->n_rxq; i++) {
		vport->rxq[i].fd = -1;
		vport->rxq[i].state = NULL;
	}
	/* Another namespace's datapath: its sockets there, its device
	 * moved there. */
	if (vport->make_nsfd >= 0) {
		struct stat st;

		t->nsfd = dup_fd(vport->make_nsfd);
		if (t->nsfd < 0 || fstat(t->nsfd, &st) < 0 ||
		    netdev_netnsid(t->nsfd, &vport->netnsid)) {
			fd = t->nsfd < 0 ? t->nsfd : -EINVAL;
			goto fail;
		}
		t->ns = st.st_ino;
	}

	/* A compat port makes its device, and deletes it when it goes; one
	 * made over rtnetlink stays. The port reads and writes the device
	 * through a copy of its fd. */
	if (!vport->tnl.dev) {
		struct tnl_dev want = { .cfg = vport->tnl };

		want.kind = tnl_kind_find(kind == ENCAP_VXLAN ? "vxlan"
					  : kind == ENCAP_GENEVE ? "geneve"
					  : "gretap");
		want.cfg.family = kind == ENCAP_GRE ? AF_INET : 0;
		memcpy(want.name, vport->name, sizeof(want.name));
		want.netnsid = vport->netnsid;
		t->own = tnl_dev_create(&want, t->nsfd, compat_mtu(kind),
					false, &fd);
		if (!t->own)
			goto fail;
	}
	dev = t->own ? t->own : vport->tnl.dev;
	t->remote = dev->remote.family ? &dev->remote : NULL;
	t->port.dst_port = htons(dev->cfg.dst_port);
	t->port.gbp = dev->cfg.gbp;
	t->port.gpe = dev->cfg.gpe;
	t->port.l3 = dev->cfg.l3;
	vport->l3 = dev->cfg.l3;
	t->family = dev->cfg.family;
	t->zero_csum6_rx = dev->cfg.csum6_zero_rx;
	netdev_local_port_range(&t->port.port_min, &t->port.port_max);
	if (kind == ENCAP_BAREUDP)
		t->port.port_min = dev->cfg.port_min;
	t->port.ethertype = htons(dev->cfg.ethertype);
	t->port.multiproto = dev->cfg.multiproto;
	fd = dup_fd(dev->fd);
	if (fd < 0)
		goto fail;
	vport->rxq[Q_TAP].fd = fd;
	vport->fd = fd;
	/* In this order: a group's sockets are its program's choices in
	 * the order they were bound. */
	for (i = Q_TAP + 1; i < vport->n_rxq; i++) {
		int family = i == Q_UDP6_NOCSUM || i == Q_UDP6_CSUM
			     ? AF_INET6 : AF_INET;

		if (gre)
			fd = gre_open(t, i == Q_GRE4 ? AF_INET : AF_INET6);
		else
			fd = udp_open(t, family,
				      i == Q_UDP4_NOCSUM || i == Q_UDP6_NOCSUM);
		if (fd < 0)
			goto fail;
		vport->rxq[i].fd = fd;
		b = malloc(sizeof(*b));
		vport->rxq[i].state = b;
		if (!b) {
			fd = -ENOMEM;
			goto fail;
		}
		/* No train yet (the rest is written before it is read; a
		 * reused allocation holds another port's bytes). */
		b->gro.segs = 0;
	}
	if ((fd = raw_open(t, AF_INET)) < 0)
		goto fail;
	t->raw4 = fd;
	if ((fd = raw_open(t, AF_INET6)) < 0)
		goto fail;
	t->raw6 = fd;
	if (t->nsfd >= 0) {
		vport->ifindex = dev->ifindex;
		vport->mtu = compat_mtu(kind);
		return 0;
	}
	vport->ifindex = netdev_ifindex(vport->name);
	netdev_set_promisc(vport->name, true);
	return 0;
fail:
	tnl_close(vport);
	return fd;
}

static int
vxlan_open(struct vport *vport)
{
	return tnl_open(vport, ENCAP_VXLAN);
}

static int
geneve_open(struct vport *vport)
{
	return tnl_open(vport, ENCAP_GENEVE);
}

static int
gre_port_open(struct vport *vport)
{
	return tnl_open(vport, ENCAP_GRE);
}

static int
erspan_open(struct vport *vport)
{
	return tnl_open(vport, ENCAP_ERSPAN);
}

static int
bareudp_open(struct vport *vport)
{
	return tnl_open(vport, ENCAP_BAREUDP);
}

/* The outer header's facts the socket gave beside a datagram, and the
 * size of the datagrams a coalesced read holds (0: one datagram). */
static void
outer_from_cmsgs(struct msghdr *m, struct encap_outer *o, size_t *gro_size)
{
	*gro_size = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			*gro_size = v > 0 ? (size_t)v : 0;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			o->ipv4_dst = pi.ipi_addr.s_addr;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TOS) {
			o->tos = *CMSG_DATA(c);
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TTL) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			o->ttl = v;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			o->ipv6_dst = pi.ipi6_addr;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			o->tos = v;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_HOPLIMIT) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			o->ttl = v;
		}
	}
}

static int tnl_send(struct vport *vport, const void *frame, size_t len,
		    const struct virtio_net_hdr *vh, const struct tun_key *tun,
		    uint16_t l3_proto);

/* Frames the host sends on the device: a device of one remote sends them
 * by its tunnel (an L3 device's packets of the protocol their version
 * says); a flow-based one has no tunnel to send them by. */
static void
tap_drain(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
	  size_t size, unsigned max)
{
	struct tnl *t = vport->state;
	const size_t vhl = sizeof(struct virtio_net_hdr);

	for (unsigned n = 0; n < max; n++) {
		ssize_t got = read(q->fd, scratch, size);
		uint16_t l3_proto = 0;

		if (got < 0)
			break;
		if (!t->remote || (size_t)got <= vhl) {
			__atomic_fetch_add(&t->host_dropped, 1,
					   __ATOMIC_RELAXED);
			continue;
		}
		if (t->port.l3)
			l3_proto = htons(scratch[vhl] >> 4 == 6 ? ETH_P_IPV6
							       : ETH_P_IP);
		tnl_send(vport, scratch + vhl, got - vhl, (const void *)scratch,
			 t->remote, l3_proto);
	}
}

/* The train being merged, handed over: merged, or its first segment
 * alone where it was received. */
static void
rx_flush(struct vport *vport, struct rx_batch *b)
{
	struct tnl *t = vport->state;
	struct virtio_net_hdr vh;
	uint8_t *buf;
	size_t len, size;

	if (!b->gro.segs)
		return;
	len = gro_finish(&b->gro, &vh);
	if (len) {
		buf = b->merge;
		size = sizeof(b->merge);
	} else {
		len = b->first_len;
		buf = b->first - FRAME_HEADROOM;
		size = FRAME_HEADROOM + len;
	}
	__atomic_fetch_add(&t->rx_packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->rx_bytes, len, __ATOMIC_RELAXED);
	vport_rx_deliver(vport, buf, size, len, &vh, &b->key, 0);
}

/* One inner frame decapsulated (len bytes at f, FRAME_HEADROOM bytes of
 * room in front of it that nothing pending holds): joined to the train,
 * starting one, or handed over. The kernel's GRO would have merged it on
 * the device; the key of the merged frame is each segment's. */
static void
rx_frame(struct vport *vport, struct rx_batch *b, uint8_t *f, size_t len,
	 const struct tun_key *key, uint16_t l3_proto)
{
	struct tnl *t = vport->state;
	struct virtio_net_hdr vh = { 0 };

	/* An L3 packet (an L3 port) goes as it came, after what is
	 * pending; its checksum as for a frame (below). */
	if (l3_proto) {
		rx_flush(vport, b);
		offload_csum_partial_guess(f, len, l3_proto, &vh);
		__atomic_fetch_add(&t->rx_packets, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->rx_bytes, len, __ATOMIC_RELAXED);
		vport_rx_deliver(vport, f - FRAME_HEADROOM,
				 FRAME_HEADROOM + len, len, &vh, key, l3_proto);
		return;
	}

	if (b->gro.segs && !memcmp(&b->key, key, sizeof(*key)) &&
	    gro_add(&b->gro, f, len))
		return;
	rx_flush(vport, b);
	if (gro_start(&b->gro, b->merge + FRAME_HEADROOM, f, len)) {
		b->first = f;
		b->first_len = len;
		b->key = *key;
		return;
	}
	/* A sender on this host (a kernel vxlan device over a veth) leaves
	 * the inner checksum partial: ask whoever sends the frame on to
	 * finish it, as the kernel's skb would. */
	offload_csum_partial_guess(f, len, 0, &vh);
	__atomic_fetch_add(&t->rx_packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->rx_bytes, len, __ATOMIC_RELAXED);
	vport_rx_deliver(vport, f - FRAME_HEADROOM, FRAME_HEADROOM + len, len,
			 &vh, key, 0);
}

/* The inner packet of a vxlan or geneve datagram, of protocol proto (be):
 * an Ethernet frame goes as it is, but to a geneve L3 port without its
 * Ethernet header, of the protocol eth_type_trans() reads (the kernel's
 * ARPHRD_NONE geneve device pulls the header and gives the packet to OVS
 * as L3); VXLAN-GPE keeps the frame. */
static void
rx_udp_inner(struct vport *vport, struct rx_batch *b, uint8_t *f, size_t len,
	     const struct tun_key *key, uint16_t proto)
{
	struct tnl *t = vport->state;

	if (proto == htons(ETH_P_TEB) && t->port.l3 &&
	    t->port.kind == ENCAP_GENEVE) {
		/* decap made sure of the header */
		proto = get_unaligned16(f + ETH_ADDRS_LEN);
		if (ntohs(proto) < ETH_P_802_3_MIN)
			proto = len >= ETH_HLEN + 2 &&
				get_unaligned16(f + ETH_HLEN) == 0xffff
				? htons(ETH_P_802_3) : htons(ETH_P_802_2);
		f += ETH_HLEN;
		len -= ETH_HLEN;
	}
	rx_frame(vport, b, f, len, key, proto == htons(ETH_P_TEB) ? 0 : proto);
}

/* What a socket gave (a UDP payload, or a GRE packet; for UDP, several
 * datagrams' payloads of gro_size bytes each but the last, back to back):
 * len bytes at data, which has FRAME_HEADROOM bytes of room in front. Each
 * datagram decapsulated in place and handed over. The UDP header the
 * socket took off is written back in front of the payload for the decap,
 * over the previous datagram's last bytes, which are put back after. */
static void
rx_datagram(struct vport *vport, struct rx_batch *b, unsigned which,
	    uint8_t *data, size_t len, struct msghdr *m)
{
	struct tnl *t = vport->state;
	bool gre = !encap_udp(t->port.kind);
	bool v4 = gre ? which == Q_GRE4
		      : which != Q_UDP6_NOCSUM && which != Q_UDP6_CSUM;
	const union sockaddr_inx *from = m->msg_name;
	struct encap_outer o = { .family = v4 ? AF_INET : AF_INET6 };
	struct encap_inner in;
	struct tun_key key;
	size_t gro_size;
	int err;

	/* Every raw GRE socket gets a copy of every GRE packet: another
	 * family's (gretap and ip6gretap) is another device's. */
	if (t->family && t->family != o.family)
		return;
	if (m->msg_flags & MSG_TRUNC) {
		__atomic_fetch_add(&t->rx_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	outer_from_cmsgs(m, &o, &gro_size);
	if (v4)
		o.ipv4_src = from->v4.sin_addr.s_addr;
	else
		o.ipv6_src = from->v6.sin6_addr;
	if (gre) {
		uint8_t *p = data;

		o.proto = IPPROTO_GRE;
		if (v4) {
			/* An IPv4 raw socket gives the IP header. */
			const struct ipv4_header *ip =
				ipv4_header_at(p, len, 0, IP_CHECK_LENGTH);
			size_t hl;

			if (!ip)
				goto drop;
			hl = ipv4_hlen(ip);
			o.ipv4_dst = ip->daddr;
			o.tos = ip->tos;
			o.ttl = ip->ttl;
			o.df = kernel_profile()->tunnel_rx_df &&
			       (ip->frag_off & htons(IPV4_DF));
			len = ntohs(ip->tot_len) - hl;
			p += hl;
		}
		err = encap_decap(&t->port, &o, p, len, &key, &in);
		/* ...and a GRE payload of another protocol (gretap,
		 * erspan) is another device's too; so is TEB to an L3 gre
		 * device (the kernel gives it to its gretap device). */
		if (err == -EPROTONOSUPPORT ||
		    (!err && t->port.l3 && in.proto == htons(ETH_P_TEB)))
			return;
		if (err < 0 || (!t->port.l3 && in.proto != htons(ETH_P_TEB)))
			goto drop;
		rx_frame(vport, b, p + in.off, in.len, &key,
			 in.proto == htons(ETH_P_TEB) ? 0 : in.proto);
		return;
	}
	o.proto = IPPROTO_UDP;
	o.l4_checked = true;
	o.df = which == Q_UDP4_NOCSUM_DF || which == Q_UDP4_CSUM_DF;
	/* At least once: an empty datagram is decap's to refuse. */
	if (!gro_size || gro_size > len)
		gro_size = len ? len : 1;
	for (size_t off = 0; off < len || !off; off += gro_size) {
		uint8_t *p = data + off - UDP_HLEN, saved[UDP_HLEN];
		size_t n = len - off < gro_size ? len - off : gro_size;
		struct udp_header uh = {
			.src = v4 ? from->v4.sin_port : from->v6.sin6_port,
			.dst = t->port.dst_port,
			.len = htons(n + UDP_HLEN <= 0xffff ? n + UDP_HLEN : 0),
			.csum = which == Q_UDP4_CSUM || which == Q_UDP6_CSUM ||
				which == Q_UDP4_CSUM_DF ? 0xffff : 0,
		};

		memcpy(saved, p, UDP_HLEN);
		memcpy(p, &uh, UDP_HLEN);
		err = encap_decap(&t->port, &o, p, n + UDP_HLEN, &key, &in);
		memcpy(p, saved, UDP_HLEN);
		if (err < 0 || (!t->port.l3 && in.proto != htons(ETH_P_TEB)))
			__atomic_fetch_add(&t->rx_dropped, 1, __ATOMIC_RELAXED);
		else
			rx_udp_inner(vport, b, p + in.off, in.len, &key,
				     in.proto);
	}
	return;
drop:
	__atomic_fetch_add(&t->rx_dropped, 1, __ATOMIC_RELAXED);
}

static void
tnl_recv_burst(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
	       size_t size, unsigned max)
{
	struct rx_batch *b = q->state;
	unsigned which = q - vport->rxq;

	if (which == Q_TAP) {
		tap_drain(vport, q, scratch, size, max);
		return;
	}
	while (max) {
		unsigned want = max < RX_SLOTS ? max : RX_SLOTS;
		int n;

		for (unsigned i = 0; i < want; i++) {
			b->iov[i] = (struct iovec){ b->slot[i] + FRAME_HEADROOM,
						    RX_SLOT - FRAME_HEADROOM };
			b->msg[i] = (struct mmsghdr){ .msg_hdr = {
				.msg_name = &b->from[i],
				.msg_namelen = sizeof(b->from[i]),
				.msg_iov = &b->iov[i], .msg_iovlen = 1,
				.msg_control = b->cbuf[i],
				.msg_controllen = sizeof(b->cbuf[i]) } };
		}
		n = recvmmsg(q->fd, b->msg, want, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++)
			rx_datagram(vport, b, which,
				    b->slot[i] + FRAME_HEADROOM,
				    b->msg[i].msg_len, &b->msg[i].msg_hdr);
		rx_flush(vport, b);
		if ((unsigned)n < want)
			return;
		max -= n;
	}
}

/* The inner flow's hash, as the kernel's skb_get_hash() picks a UDP
 * source port by: addresses, protocol and ports, so that a flow keeps its
 * outer 5-tuple (and its path through ECMP and RSS). l3_proto: an L3
 * packet's protocol, 0 for an Ethernet frame. */
static uint32_t
flow_hash(const uint8_t *f, size_t len, uint16_t l3_proto)
{
	uint64_t w[6] = { 0 };
	struct eth_walk ew = { .type = l3_proto, .l3 = 0 };

	if (!l3_proto && eth_walk(f, len, 2, 0, &ew) < 0)
		return 0;
	if (ew.type == htons(ETH_P_IP)) {
		const struct ipv4_header *ip =
			ipv4_header_at(f, len, ew.l3, 0);

		if (ip) {
			size_t l4 = ew.l3 + ipv4_hlen(ip);

			memcpy(w, &ip->saddr, 8);
			w[1] = ip->protocol;
			if (!(ntohs(ip->frag_off) & (IPV4_MF | IPV4_OFFSET)) &&
			    l4 + 4 <= len)
				memcpy(&w[2], f + l4, 4);
		}
	} else if (ew.type == htons(ETH_P_IPV6)) {
		const struct ipv6_header *ip6 = ipv6_header_at(f, len, ew.l3, 0);

		if (ip6) {
			size_t l4 = ew.l3 + IPV6_HLEN;

			memcpy(w, ip6->saddr, 16);
			memcpy(&w[2], ip6->daddr, 16);
			w[4] = ip6->nexthdr;
			if (l4 + 4 <= len)
				memcpy(&w[5], f + l4, 4);
		}
	} else {
		memcpy(w, f, len < 12 ? len : 12);
	}
	return hash_words(w, 6, 0);
}

/* The source address the host would give a packet to dst: what a
 * connected UDP socket is bound to. The kernel's routes, asked through
 * the socket; no packet leaves. */
static int
source_for(const struct tnl *t, const struct tun_key *k, struct tun_key *out)
{
	union sockaddr_inx a = { 0 };
	socklen_t alen;
	int fd = ns_socket(t->nsfd, k->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return fd;
	if (k->family == AF_INET) {
		a.v4.sin_family = AF_INET;
		a.v4.sin_port = htons(9);
		a.v4.sin_addr.s_addr = k->ipv4_dst;
		alen = sizeof(a.v4);
	} else {
		a.v6.sin6_family = AF_INET6;
		a.v6.sin6_port = htons(9);
		a.v6.sin6_addr = k->ipv6_dst;
		alen = sizeof(a.v6);
	}
	if (connect(fd, (struct sockaddr *)&a, alen) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
		err = -errno;
	else if (k->family == AF_INET)
		out->ipv4_src = a.v4.sin_addr.s_addr;
	else
		out->ipv6_src = a.v6.sin6_addr;
	close(fd);
	return err;
}

/* The last source looked up, per sending thread: a tunnel sends to few
 * peers, and a lookup is three system calls (and the namespace agent's
 * answer, for another namespace's port). */
static __thread struct {
	uint64_t ns;			/* the namespace: struct tnl's */
	struct tun_key dst;		/* family and destination */
	struct tun_key src;
	bool valid;
} src_cache;

static int
resolve_source(const struct tnl *t, struct tun_key *k)
{
	bool v4 = k->family == AF_INET;
	int err;

	if (v4 ? k->ipv4_src != 0 : !IN6_IS_ADDR_UNSPECIFIED(&k->ipv6_src))
		return 0;
	if (src_cache.valid && src_cache.ns == t->ns &&
	    src_cache.dst.family == k->family &&
	    (v4 ? src_cache.dst.ipv4_dst == k->ipv4_dst
		: !memcmp(&src_cache.dst.ipv6_dst, &k->ipv6_dst, 16))) {
		k->ipv4_src = src_cache.src.ipv4_src;
		k->ipv6_src = src_cache.src.ipv6_src;
		return 0;
	}
	err = source_for(t, k, k);
	if (err)
		return err;
	src_cache.ns = t->ns;
	src_cache.dst.family = k->family;
	src_cache.dst.ipv4_dst = k->ipv4_dst;
	src_cache.dst.ipv6_dst = k->ipv6_dst;
	src_cache.src.ipv4_src = k->ipv4_src;
	src_cache.src.ipv6_src = k->ipv6_src;
	src_cache.valid = true;
	return 0;
}

/* A UDP socket a flow's outer packets leave by when the kernel is to cut
 * them (UDP_SEGMENT): bound to the outer source address and port,
 * connected to the destination, the outer TOS, TTL and DF its own. It
 * receives nothing (a drop-all filter). fd -1: such a socket could not be
 * made (the port taken, the source not local): the raw path serves. */
struct gso_sock {
	int fd;
	uint8_t family, tos, ttl;
	bool df;
	union sockaddr_inx src, dst;
};

#define GSO_SOCKS	8

/* What a sending thread keeps: a buffer the segments of a frame are
 * written into one after the other, each behind room for its headers,
 * and the batch that sends them with one sendmmsg(); the UDP sockets of
 * the flows it sent with UDP_SEGMENT last. Freed when the thread ends
 * (receive threads come and go with their ports). */
#define TX_SEGS		64
#define TX_BUF_SIZE	(2 * (ENCAP_HLEN_MAX + FRAME_BUF_SIZE))

struct tx_state {
	uint8_t buf[TX_BUF_SIZE];
	size_t used;
	unsigned n;
	size_t inner_bytes;		/* of the queued packets */
	struct iovec iov[TX_SEGS];
	struct mmsghdr msg[TX_SEGS];
	union sockaddr_inx to;		/* every queued packet's */
	int fd;
	char cbuf[TX_SEGS][CMSG_SPACE(sizeof(uint16_t))];
	struct gso_sock socks[GSO_SOCKS];
	unsigned next_sock;		/* the one replaced next */
};

static __thread struct tx_state *tx;
static pthread_key_t tx_key;
static pthread_once_t tx_once = PTHREAD_ONCE_INIT;

static void
tx_free(void *p)
{
	struct tx_state *s = p;

	for (unsigned i = 0; i < GSO_SOCKS; i++)
		if (s->socks[i].fd >= 0)
			close(s->socks[i].fd);
	free(s);
}

static void
tx_key_make(void)
{
	(void)pthread_key_create(&tx_key, tx_free);
}

static struct tx_state *
tx_get(void)
{
	if (!tx) {
		pthread_once(&tx_once, tx_key_make);
		tx = calloc(1, sizeof(*tx));
		if (tx) {
			for (unsigned i = 0; i < GSO_SOCKS; i++)
				tx->socks[i].fd = -1;
			pthread_setspecific(tx_key, tx);
		}
	}
	return tx;
}

/* Sends what is queued; 0, or the error of the first packet not sent
 * (those after it are not retried, as single sends are not). */
/* The queued messages sent until one fails: how many were, and 0 or the
 * error of the first not sent. */
static int
tx_send_queued(struct tx_state *s, unsigned *done)
{
	*done = 0;
	while (*done < s->n) {
		int r = sendmmsg(s->fd, s->msg + *done, s->n - *done,
				 MSG_DONTWAIT);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		*done += r;
	}
	return 0;
}

static int
tx_flush(struct tnl *t, struct tx_state *s)
{
	unsigned done;
	int err = tx_send_queued(s, &done);

	__atomic_fetch_add(&t->tx_packets, done, __ATOMIC_RELAXED);
	if (done == s->n)
		__atomic_fetch_add(&t->tx_bytes, s->inner_bytes,
				   __ATOMIC_RELAXED);
	s->used = s->n = s->inner_bytes = 0;
	return err;
}

/* The complete frame at s->buf + s->used + head (len bytes, no offload
 * left) encapsulated in place and queued; hash is its flow's. */
static int
tx_queue(struct tnl *t, struct tx_state *s, const struct tun_key *k,
	 uint16_t proto,
	 uint32_t hash, size_t head, size_t len)
{
	uint8_t *slot = s->buf + s->used;
	struct encap_buf b = { slot, head, len };
	struct encap_tx etx = { .proto = proto, .hash = hash };
	struct encap_outer o;
	socklen_t alen;
	int err;

	if ((t->port.kind == ENCAP_GRE && (k->flags & TUN_F_SEQ)) ||
	    t->port.kind == ENCAP_ERSPAN)
		etx.seq = __atomic_fetch_add(&t->seq, 1, __ATOMIC_RELAXED);
	if (t->port.kind == ENCAP_ERSPAN)
		etx.timestamp = clock_real_100us();
	err = encap_push(&t->port, k, &etx, &b, &o);
	if (!err)
		err = encap_push_ip(&o, __atomic_fetch_add(&t->ip_id, 1,
							   __ATOMIC_RELAXED),
				    &b);
	if (err)
		return err;
	/* One frame's packets share their destination. */
	if (!s->n) {
		memset(&s->to, 0, sizeof(s->to));
		if (o.family == AF_INET) {
			s->to.v4.sin_family = AF_INET;
			s->to.v4.sin_addr.s_addr = o.ipv4_dst;
		} else {
			s->to.v6.sin6_family = AF_INET6;
			s->to.v6.sin6_addr = o.ipv6_dst;
		}
		s->fd = o.family == AF_INET ? t->raw4 : t->raw6;
	}
	alen = o.family == AF_INET ? sizeof(s->to.v4) : sizeof(s->to.v6);
	s->iov[s->n] = (struct iovec){ b.data + b.head, b.len };
	s->msg[s->n] = (struct mmsghdr){ .msg_hdr = {
		.msg_name = &s->to, .msg_namelen = alen,
		.msg_iov = &s->iov[s->n], .msg_iovlen = 1 } };
	s->n++;
	s->used += head + len;
	s->inner_bytes += len;
	return 0;
}

/* Whether a frame's segments may leave as one UDP_SEGMENT send: a TCP
 * GSO frame to a UDP tunnel whose key asks for checksums (the kernel
 * checksums each datagram; it refuses GSO without). */
static bool
udp_gso_fits(const struct tnl *t, const struct tun_key *k,
	     const struct virtio_net_hdr *vh)
{
	uint8_t type = vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

	/* A thread's UDP sockets are the daemon's namespace's. */
	return t->nsfd < 0 && (k->flags & TUN_F_CSUM) &&
	       (t->port.kind == ENCAP_VXLAN || t->port.kind == ENCAP_GENEVE) &&
	       (type == VIRTIO_NET_HDR_GSO_TCPV4 ||
		type == VIRTIO_NET_HDR_GSO_TCPV6);
}

static bool
gso_sock_is(const struct gso_sock *g, const struct gso_sock *want)
{
	socklen_t alen = want->family == AF_INET ? sizeof(want->src.v4)
						 : sizeof(want->src.v6);

	return g->family == want->family && g->tos == want->tos &&
	       g->ttl == want->ttl && g->df == want->df &&
	       !memcmp(&g->src, &want->src, alen) &&
	       !memcmp(&g->dst, &want->dst, alen);
}

/* A socket as want describes it, or -errno. */
static int
gso_sock_open(const struct gso_sock *want)
{
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { 1, none };
	bool v4 = want->family == AF_INET;
	socklen_t alen = v4 ? sizeof(want->src.v4) : sizeof(want->src.v6);
	int one = 1, zero = 0, tos = want->tos, ttl = want->ttl, fd;
	int pmtu = want->df ? IP_PMTUDISC_DO : IP_PMTUDISC_DONT;

	fd = socket(want->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Another thread may send the same flow by a socket of its own. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		goto fail;
	if (v4 ? setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0 ||
		 setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) < 0 ||
		 setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
			    sizeof(pmtu)) < 0
	       : setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			    sizeof(one)) < 0 ||
		 setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos,
			    sizeof(tos)) < 0 ||
		 setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl,
			    sizeof(ttl)) < 0 ||
		 /* The devices send the key's label, 0. */
		 setsockopt(fd, IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, &zero,
			    sizeof(zero)) < 0)
		goto fail;
	vport_socket_buffer(fd, SO_SNDBUF, TNL_SOCKET_BUFFER);
	if (bind(fd, (const struct sockaddr *)&want->src, alen) < 0 ||
	    connect(fd, (const struct sockaddr *)&want->dst, alen) < 0)
		goto fail;
	return fd;
fail:
	return close_errno(fd);
}

/* The thread's socket for the outer header o describes with the UDP
 * ports of uh; -1 if there is none to be had. */
static int
gso_sock_get(struct tx_state *s, const struct encap_outer *o,
	     const struct udp_header *uh)
{
	struct gso_sock want = { .family = o->family, .tos = o->tos,
				 .ttl = o->ttl, .df = o->df };
	struct gso_sock *g;

	if (o->family == AF_INET) {
		want.src.v4 = (struct sockaddr_in){ AF_INET, uh->src,
						    { o->ipv4_src }, { 0 } };
		want.dst.v4 = (struct sockaddr_in){ AF_INET, uh->dst,
						    { o->ipv4_dst }, { 0 } };
	} else {
		want.src.v6 = (struct sockaddr_in6){ .sin6_family = AF_INET6,
			.sin6_port = uh->src, .sin6_addr = o->ipv6_src };
		want.dst.v6 = (struct sockaddr_in6){ .sin6_family = AF_INET6,
			.sin6_port = uh->dst, .sin6_addr = o->ipv6_dst };
	}
	for (unsigned i = 0; i < GSO_SOCKS; i++)
		if (s->socks[i].family && gso_sock_is(&s->socks[i], &want))
			return s->socks[i].fd;
	g = &s->socks[s->next_sock++ % GSO_SOCKS];
	if (g->fd >= 0)
		close(g->fd);
	*g = want;
	g->fd = gso_sock_open(&want);
	return g->fd;
}

/* A datagram of n segments of gso_size bytes (the last may be shorter)
 * at p, bytes long, queued for the UDP socket. */
static void
tx_queue_train(struct tx_state *s, uint8_t *p, size_t bytes, size_t gso_size)
{
	struct cmsghdr *c = (struct cmsghdr *)s->cbuf[s->n];
	uint16_t size = gso_size;

	c->cmsg_level = IPPROTO_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(size));
	memcpy(CMSG_DATA(c), &size, sizeof(size));
	s->iov[s->n] = (struct iovec){ p, bytes };
	s->msg[s->n] = (struct mmsghdr){ .msg_hdr = {
		.msg_iov = &s->iov[s->n], .msg_iovlen = 1,
		.msg_control = c, .msg_controllen = sizeof(s->cbuf[0]) } };
	s->n++;
}

/* Sends the queued datagrams (each segment tnl_hlen bytes of tunnel
 * header and an inner frame), and counts the segments of those sent. 0,
 * or the error of the first not sent: -EAGAIN when it was the frame's
 * first (nothing of it left: the raw path may take it whole). */
static int
tx_flush_trains(struct tnl *t, struct tx_state *s, size_t gso_size,
		size_t tnl_hlen, bool frame_started)
{
	uint64_t segs = 0, bytes = 0;
	unsigned done;
	int err = tx_send_queued(s, &done);

	if (err && !done && !frame_started)
		err = -EAGAIN;
	for (unsigned i = 0; i < done; i++) {
		size_t len = s->iov[i].iov_len;

		segs += (len + gso_size - 1) / gso_size;
		bytes += len;
	}
	__atomic_fetch_add(&t->tx_packets, segs, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->tx_bytes, bytes - segs * tnl_hlen,
			   __ATOMIC_RELAXED);
	s->n = 0;
	return err;
}

/* The frame g walks, its segments encapsulated and sent as UDP datagrams
 * of a few dozen segments each by a UDP socket with UDP_SEGMENT: the
 * kernel cuts them, writes each one's UDP and IP headers and checksum (or
 * keeps them whole to a device that takes UDP GSO). The UDP payloads are
 * the raw path's; the outer IP identification is the kernel's own (its
 * socket's counter with DF, else its hashed one), as a tunnel device
 * picks it too. -EAGAIN when nothing was sent and the raw path should
 * send the frame. */
static int
tx_udp_gso(struct tnl *t, struct tx_state *s, const struct tun_key *k,
	   uint32_t hash, struct gso *g)
{
	struct encap_tx etx = { .proto = htons(ETH_P_TEB), .hash = hash };
	struct encap_buf b = { s->buf, ENCAP_HLEN_MAX, 0 };
	uint8_t hdr[GENEVE_HLEN + GENEVE_OPTS_MAX], *w;
	uint8_t *end = s->buf + TX_BUF_SIZE;
	size_t tnl_hlen, gso_size, limit, bytes;
	struct tun_key kc = *k;
	bool started = false;
	struct encap_outer o;
	int fd, err;

	/* The checksums are the kernel's to write. */
	kc.flags &= ~TUN_F_CSUM;
	b.len = gso_next(g, s->buf + ENCAP_HLEN_MAX);
	if (!b.len || encap_push(&t->port, &kc, &etx, &b, &o) || !o.ttl)
		return -EAGAIN;
	tnl_hlen = ENCAP_HLEN_MAX - b.head - UDP_HLEN;
	if (tnl_hlen > sizeof(hdr) ||
	    (fd = gso_sock_get(s, &o, (void *)(b.data + b.head))) < 0)
		return -EAGAIN;
	memcpy(hdr, b.data + b.head + UDP_HLEN, tnl_hlen);
	gso_size = b.len - UDP_HLEN;
	/* What one UDP datagram may hold. */
	limit = 0xffff - UDP_HLEN - (o.family == AF_INET ? IPV4_HLEN : 0);
	limit -= limit % gso_size;
	if (limit > TX_SEGS * gso_size)
		limit = TX_SEGS * gso_size;
	s->fd = fd;
	w = b.data + b.head + b.len;
	bytes = gso_size;
	for (;;) {
		bool no_room = (size_t)(end - w) < tnl_hlen + gso_max(g);
		uint32_t n;

		if (bytes && (no_room || bytes + gso_size > limit)) {
			tx_queue_train(s, w - bytes, bytes, gso_size);
			bytes = 0;
		}
		if (no_room || s->n == TX_SEGS) {
			err = tx_flush_trains(t, s, gso_size, tnl_hlen,
					      started);
			if (err)
				return err;
			started = true;
			w = s->buf;
		}
		memcpy(w, hdr, tnl_hlen);
		n = gso_next(g, w + tnl_hlen);
		if (!n)
			break;
		w += tnl_hlen + n;
		bytes += tnl_hlen + n;
	}
	if (bytes)
		tx_queue_train(s, w - bytes, bytes, gso_size);
	return tx_flush_trains(t, s, gso_size, tnl_hlen, started);
}

static int
tnl_send(struct vport *vport, const void *frame, size_t len,
	 const struct virtio_net_hdr *vh, const struct tun_key *tun,
	 uint16_t l3_proto)
{
	struct tnl *t = vport->state;
	/* An Ethernet frame on an L3 port goes as TEB, as the kernel's
	 * ARPHRD_NONE devices send it (VXLAN-GPE: next protocol
	 * Ethernet). */
	uint16_t proto = l3_proto ? l3_proto : htons(ETH_P_TEB);
	struct tx_state *s;
	struct tun_key k;
	uint32_t hash;
	int err;

	/* The kernel's flow-based devices drop what has no tunnel, or one
	 * of a family they do not carry. */
	if (!tun || !tun->family || (t->family && t->family != tun->family) ||
	    (l3_proto && !t->port.l3)) {
		err = -EINVAL;
		goto drop;
	}
	if (!(s = tx_get())) {
		err = -ENOMEM;
		goto drop;
	}
	k = *tun;
	err = resolve_source(t, &k);
	if (err)
		goto drop;
	if (len > FRAME_BUF_SIZE) {
		err = -EMSGSIZE;
		goto drop;
	}
	/* One hash for all of a frame's segments: the same flow. */
	hash = flow_hash(frame, len, l3_proto);
	if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE ||
	    (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		/* Nothing below takes offload requests: each segment
		 * complete, encapsulated on its own, all of them sent
		 * together. */
		struct gso g;
		uint32_t n;
		size_t room;

		err = gso_init(&g, frame, len, l3_proto != 0, vh, 0);
		if (!err && !l3_proto && udp_gso_fits(t, &k, vh)) {
			err = tx_udp_gso(t, s, &k, hash, &g);
			if (err != -EAGAIN)
				goto sent;
			/* Not for the kernel to cut after all: from the
			 * start, by the raw socket. */
			err = gso_init(&g, frame, len, false, vh, 0);
		}
		room = err ? 0 : ENCAP_HLEN_MAX + gso_max(&g);
		while (!err) {
			if (s->n == TX_SEGS || TX_BUF_SIZE - s->used < room)
				err = tx_flush(t, s);
			if (err || !(n = gso_next(&g, s->buf + s->used +
							  ENCAP_HLEN_MAX)))
				break;
			err = tx_queue(t, s, &k, proto, hash, ENCAP_HLEN_MAX,
				       n);
		}
	} else {
		memcpy(s->buf + ENCAP_HLEN_MAX, frame, len);
		err = tx_queue(t, s, &k, proto, hash, ENCAP_HLEN_MAX, len);
	}
	if (s->n) {
		int e = tx_flush(t, s);

		err = err ? err : e;
	}
sent:
	if (!err)
		return 0;
drop:
	__atomic_fetch_add(&t->tx_dropped, 1, __ATOMIC_RELAXED);
	return err;
}

static int
tnl_egress_info(struct vport *vport, const void *frame, size_t len,
		struct tun_key *tun)
{
	struct tnl *t = vport->state;
	int err;

	if (!tun->family || (t->family && t->family != tun->family))
		return -EINVAL;
	err = resolve_source(t, tun);
	if (err)
		return err;
	if (encap_udp(t->port.kind))
		encap_udp_ports(&t->port, tun, flow_hash(frame, len, 0),
				&tun->tp_src, &tun->tp_dst);
	return 0;
}

static void
tnl_get_stats(struct vport *vport, struct ovs_vport_stats *st)
{
	struct tnl *t = vport->state;

	*st = (struct ovs_vport_stats){
		.rx_packets = __atomic_load_n(&t->rx_packets, __ATOMIC_RELAXED),
		.rx_bytes = __atomic_load_n(&t->rx_bytes, __ATOMIC_RELAXED),
		.tx_packets = __atomic_load_n(&t->tx_packets, __ATOMIC_RELAXED),
		.tx_bytes = __atomic_load_n(&t->tx_bytes, __ATOMIC_RELAXED),
		.rx_dropped = __atomic_load_n(&t->rx_dropped, __ATOMIC_RELAXED),
		.tx_dropped = __atomic_load_n(&t->tx_dropped,
					      __ATOMIC_RELAXED) +
			      __atomic_load_n(&t->host_dropped,
					      __ATOMIC_RELAXED),
	};
}

#define TUNNEL_OPS(t, n, open_fn)				\
	{							\
		.type = (t),					\
		.name = (n),					\
		.open = (open_fn),				\
		.close = tnl_close,				\
		.recv_burst = tnl_recv_burst,			\
		.send = tnl_send,				\
		.get_stats = tnl_get_stats,			\
		.egress_info = tnl_egress_info,			\
	}

const struct vport_ops vport_vxlan_ops = TUNNEL_OPS(OVS_VPORT_TYPE_VXLAN,
						    "vxlan", vxlan_open);
const struct vport_ops vport_geneve_ops = TUNNEL_OPS(OVS_VPORT_TYPE_GENEVE,
						     "geneve", geneve_open);
const struct vport_ops vport_gre_ops = TUNNEL_OPS(OVS_VPORT_TYPE_GRE,
						  "gre", gre_port_open);
/* No vport type of the kernel's: served only on devices made over
 * rtnetlink, which are netdev ports (OVS_VPORT_TYPE_BAREUDP names the
 * device's kind to OVS; the kernel has no vport of it). */
const struct vport_ops vport_erspan_ops = TUNNEL_OPS(OVS_VPORT_TYPE_NETDEV,
						     "erspan", erspan_open);
const struct vport_ops vport_bareudp_ops = TUNNEL_OPS(OVS_VPORT_TYPE_NETDEV,
						      "bareudp", bareudp_open);
