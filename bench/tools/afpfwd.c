/* SPDX-License-Identifier: Apache-2.0 */
/* afpfwd: the least a switch built on AF_PACKET does, as a floor for the
 * benchmarks: every frame from one interface goes out of the other, with
 * tapdp's I/O and nothing else (no parse, no lookup, no actions).
 *
 *   afpfwd IF1 IF2
 *
 * Per interface: a socket in promiscuous mode, blind to its own
 * transmissions, with virtio-net headers (offloads cross as they come) and
 * a TPACKET_V2 receive ring of 2 KiB slots; a thread that sleeps in poll(),
 * drains the ring and sends its frames to the other interface straight
 * from their slots, 64 to a sendmmsg(); a frame larger than a slot (a
 * 64 KiB GSO segment) comes whole through the socket's queue, one
 * recvmsg() and one sendmsg(). One receive queue per interface, where
 * tapdp has one per CPU. Runs until killed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define SLOT	2048
#define BLOCK	(64 << 10)
#define BLOCKS	128
#define SLOTS	(BLOCKS * (BLOCK / SLOT))
#define BATCH	64
#define BIG	(65536 + 256)

struct port {
	int fd;
	uint8_t *ring;
	unsigned head;
	struct port *peer;
};

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static void
port_open(struct port *p, const char *name)
{
	int one = 1, v2 = TPACKET_V2, rcvbuf = 8 << 20;
	struct tpacket_req req = { .tp_block_size = BLOCK,
				   .tp_block_nr = BLOCKS,
				   .tp_frame_size = SLOT,
				   .tp_frame_nr = SLOTS };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = (int)if_nametoindex(name) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC,
				  .mr_ifindex = sll.sll_ifindex };

	if (!sll.sll_ifindex)
		die(name);
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0);
	if (p->fd < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_VNET_HDR, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v2,
		       sizeof(v2)) < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_COPY_THRESH, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req,
		       sizeof(req)) < 0)
		die("socket");
	p->ring = mmap(NULL, (size_t)BLOCK * BLOCKS, PROT_READ | PROT_WRITE,
		       MAP_SHARED, p->fd, 0);
	if (p->ring == MAP_FAILED)
		die("mmap");
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0)
		die(name);
}

/* A frame the ring holds cut: the whole of it from the queue, out. */
static void
forward_big(struct port *p, uint8_t *buf)
{
	ssize_t n = recv(p->fd, buf, BIG, MSG_DONTWAIT);

	if (n > (ssize_t)sizeof(struct virtio_net_hdr))
		(void)!send(p->peer->fd, buf, (size_t)n, MSG_DONTWAIT);
}

static void *
port_main(void *arg)
{
	struct port *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	static __thread uint8_t big[BIG];
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct tpacket2_hdr *taken[BATCH];

	for (;;) {
		unsigned n = 0, i;

		if (poll(&pfd, 1, -1) < 0)
			continue;
		while (n < BATCH) {
			struct tpacket2_hdr *h =
				(void *)(p->ring + (size_t)p->head * SLOT);
			uint32_t st = __atomic_load_n(&h->tp_status,
						      __ATOMIC_ACQUIRE);

			if (!(st & TP_STATUS_USER))
				break;
			p->head = (p->head + 1) % SLOTS;
			if (st & TP_STATUS_COPY) {
				forward_big(p, big);
				__atomic_store_n(&h->tp_status,
						 TP_STATUS_KERNEL,
						 __ATOMIC_RELEASE);
				continue;
			}
			/* The virtio-net header sits right before the frame. */
			iov[n].iov_base = (uint8_t *)h + h->tp_mac -
					  sizeof(struct virtio_net_hdr);
			iov[n].iov_len = h->tp_snaplen +
					 sizeof(struct virtio_net_hdr);
			msg[n] = (struct mmsghdr){
				.msg_hdr = { .msg_iov = &iov[n],
					     .msg_iovlen = 1 } };
			taken[n++] = h;
		}
		for (i = 0; i < n;) {
			int r = sendmmsg(p->peer->fd, msg + i, n - i,
					 MSG_DONTWAIT);

			if (r <= 0)
				break;
			i += (unsigned)r;
		}
		for (i = 0; i < n; i++)
			__atomic_store_n(&taken[i]->tp_status,
					 TP_STATUS_KERNEL, __ATOMIC_RELEASE);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static struct port port[2];
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: afpfwd IF1 IF2\n");
		return 2;
	}
	port_open(&port[0], argv[1]);
	port_open(&port[1], argv[2]);
	port[0].peer = &port[1];
	port[1].peer = &port[0];
	if (pthread_create(&t, NULL, port_main, &port[0]))
		die("pthread_create");
	port_main(&port[1]);
	return 0;
}
