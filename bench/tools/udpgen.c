/* SPDX-License-Identifier: Apache-2.0 */
/* udpgen: sends 64-byte UDP frames out of an interface through AF_PACKET,
 * in batches of sendmmsg, and prints how many it sent. A packet generator
 * for the benchmarks: iperf3 stops near 200 kpps, far below what the paths
 * under test forward.
 *
 *   udpgen [-s SRC-MAC] [-r RATE -n COUNT] [-c] [-l LEN] IFNAME DST-MAC
 *          SRC-IP DST-IP SECONDS
 *
 * Without -r: as fast as it can for SECONDS (0: a single frame, to teach
 * switches where SRC-MAC is). With -r: COUNT frames paced at RATE frames per
 * second (SECONDS ignored); prints the count and the seconds it took.
 * -c: every frame a new connection (source and destination ports count up
 * through 60,000 x 60,000 pairs), for flow-setup benchmarks. -l: frames of
 * LEN bytes (60 to 1514) instead of 60, for meters in kbit/s. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/clock.h"

#define BATCH 64
#define FRAME 60	/* 64 on the wire with the FCS */
#define FRAME_MAX 1514
#define PORTS 60000

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

static bool
parse_mac(const char *s, unsigned char mac[6])
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6;
}

static void
usage(void)
{
	fprintf(stderr, "usage: udpgen [-s SRC-MAC] [-r RATE -n COUNT] [-c] "
			"[-l LEN] IFNAME DST-MAC SRC-IP DST-IP SECONDS\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	static unsigned char frame[BATCH][FRAME_MAX];
	unsigned char mac[6], src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	unsigned long long sent = 0, count = 0, flow = 0;
	double rate = 0, start, end;
	bool conns = false;
	int fd, opt, len = FRAME;

	while ((opt = getopt(argc, argv, "s:r:n:cl:")) != -1) {
		switch (opt) {
		case 's':
			if (!parse_mac(optarg, src))
				usage();
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			conns = true;
			break;
		case 'l':
			len = atoi(optarg);
			if (len < FRAME || len > FRAME_MAX)
				usage();
			break;
		default:
			usage();
		}
	}
	argv += optind;
	argc -= optind;
	if (argc != 5 || !parse_mac(argv[1], mac) || (rate > 0) != (count > 0))
		usage();
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = if_nametoindex(argv[0]);
	if (fd < 0 || !sll.sll_ifindex ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("udpgen");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		struct ether_header *eth = (void *)frame[i];
		struct iphdr *ip = (void *)(frame[i] + 14);
		struct udphdr *udp = (void *)(frame[i] + 34);

		memcpy(eth->ether_dhost, mac, 6);
		memcpy(eth->ether_shost, src, 6);
		eth->ether_type = htons(ETHERTYPE_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(len - 14);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->saddr = inet_addr(argv[2]);
		ip->daddr = inet_addr(argv[3]);
		ip->check = ip_csum(ip, 20);
		udp->source = htons(9);
		udp->dest = htons(9);
		udp->len = htons(len - 34);
		iov[i] = (struct iovec){ frame[i], len };
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	if (!rate && atoi(argv[4]) == 0) {
		printf("%d\n", sendmmsg(fd, msgs, 1, 0));
		return 0;
	}
	start = now_s();
	end = start + atoi(argv[4]);
	while (rate ? sent < count : now_s() < end) {
		unsigned n = BATCH;
		int r;

		if (rate) {
			/* Paced: never ahead of RATE since the start, in
			 * bursts of a millisecond's worth (sleeping between,
			 * not spinning on the CPUs under test). */
			double tick = rate / 1000 < 1 ? 1 : rate / 1000;
			double owed = (now_s() - start) * rate - sent;

			if (owed < tick) {
				double wait = (tick - owed) / rate;
				struct timespec ts = {
					(time_t)wait,
					(long)((wait - (time_t)wait) * 1e9),
				};

				nanosleep(&ts, NULL);
				owed = (now_s() - start) * rate - sent;
			}
			n = owed < 1 ? 1 : owed > BATCH ? BATCH : owed;
			if (n > count - sent)
				n = count - sent;
		}
		if (conns) {
			for (unsigned i = 0; i < n; i++, flow++) {
				struct udphdr *udp = (void *)(frame[i] + 34);

				udp->source = htons(1 + flow % PORTS);
				udp->dest = htons(1 + flow / PORTS % PORTS);
			}
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r > 0)
			sent += r;
		/* A frame not taken is sent again as the same connection. */
		if (conns && r < (int)n)
			flow -= n - (r > 0 ? r : 0);
	}
	if (rate)
		printf("%llu %.3f\n", sent, now_s() - start);
	else
		printf("%llu\n", sent);
	return 0;
}
