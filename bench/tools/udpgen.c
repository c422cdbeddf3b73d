/* udpgen: sends 64-byte UDP frames out of an interface as fast as it can
 * for a number of seconds (AF_PACKET, batches of sendmmsg), then prints
 * how many it sent. A packet generator for bench/e2e.sh: iperf3 stops near
 * 200 kpps, far below what the paths under test forward.
 *
 *   udpgen IFNAME DST-MAC SRC-IP DST-IP SECONDS [SRC-MAC]
 *
 * SECONDS 0 sends a single frame (to teach switches where SRC-MAC is). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define FRAME 60	/* 64 on the wire with the FCS */

static uint16_t
ip_csum(const void *p, size_t n)
{
	const uint16_t *w = p;
	uint32_t s = 0;

	for (size_t i = 0; i < n / 2; i++)
		s += w[i];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	unsigned char frame[FRAME] = { 0 }, mac[6];
	unsigned char src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct mmsghdr msgs[BATCH];
	struct iovec iov = { frame, FRAME };
	struct ether_header *eth = (void *)frame;
	struct iphdr *ip = (void *)(frame + 14);
	struct udphdr *udp = (void *)(frame + 34);
	unsigned long long sent = 0;
	double end;
	int fd;

	if ((argc != 6 && argc != 7) ||
	    sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		   &mac[2], &mac[3], &mac[4], &mac[5]) != 6 ||
	    (argc == 7 &&
	     sscanf(argv[6], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &src[0], &src[1],
		    &src[2], &src[3], &src[4], &src[5]) != 6)) {
		fprintf(stderr, "usage: udpgen IFNAME DST-MAC SRC-IP DST-IP "
				"SECONDS [SRC-MAC]\n");
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (fd < 0 || !sll.sll_ifindex ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("udpgen");
		return 1;
	}
	memcpy(eth->ether_dhost, mac, 6);
	memcpy(eth->ether_shost, src, 6);
	eth->ether_type = htons(ETHERTYPE_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(FRAME - 14);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = inet_addr(argv[3]);
	ip->daddr = inet_addr(argv[4]);
	ip->check = ip_csum(ip, 20);
	udp->source = htons(9);
	udp->dest = htons(9);
	udp->len = htons(FRAME - 34);
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	if (atoi(argv[5]) == 0) {
		printf("%d\n", sendmmsg(fd, msgs, 1, 0));
		return 0;
	}
	end = now_s() + atoi(argv[5]);
	while (now_s() < end) {
		int n = sendmmsg(fd, msgs, BATCH, 0);

		if (n > 0)
			sent += n;
	}
	printf("%llu\n", sent);
	return 0;
}
