/* SPDX-License-Identifier: Apache-2.0 */
/* tcpcrr: new TCP connections per second, as netperf's TCP_CRR measures
 * them: each transaction connects, sends a byte, reads the byte back and
 * closes. For the benchmarks' connection-rate case, where every
 * connection is a new conntrack entry on the way.
 *
 *   tcpcrr -s PORT PROCS            serves until killed, PROCS processes
 *                                   accepting on one socket
 *   tcpcrr ADDR PORT SECONDS PROCS  PROCS clients for SECONDS; prints the
 *                                   transactions done and the failures
 *
 * The client closes first, so its ports wait in TIME_WAIT: give its
 * namespace net.ipv4.tcp_tw_reuse=1 and a wide ip_local_port_range. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/clock.h"

static int
serve(int port, int procs)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1, c, i;
	char b;

	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s, 4096)) {
		perror("tcpcrr: listen");
		return 1;
	}
	for (i = 1; i < procs && fork() > 0; i++)
		;
	for (;;) {
		if ((c = accept(s, NULL, NULL)) < 0)
			continue;
		if (read(c, &b, 1) == 1 && write(c, &b, 1) != 1)
			perror("tcpcrr: write");
		close(c);
	}
}

/* Transactions until the deadline, written to fd as two counts. */
static void
client(const struct sockaddr_in *a, double end, int fd)
{
	unsigned long n[2] = { 0, 0 };	/* done, failed */
	char b = 'x';
	int s;

	while (now_s() < end) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s >= 0 && !connect(s, (const struct sockaddr *)a,
		    sizeof(*a)) && write(s, &b, 1) == 1 && read(s, &b, 1) == 1)
			n[0]++;
		else
			n[1]++;
		if (s >= 0)
			close(s);
	}
	if (write(fd, n, sizeof(n)) != sizeof(n))
		perror("tcpcrr: pipe");
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long n[2], done = 0, failed = 0;
	int p[2], procs, i;
	double end;

	if (argc == 4 && !strcmp(argv[1], "-s"))
		return serve(atoi(argv[2]), atoi(argv[3]));
	if (argc != 5 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fprintf(stderr, "usage: tcpcrr -s PORT PROCS | "
		    "tcpcrr ADDR PORT SECONDS PROCS\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	procs = atoi(argv[4]);
	if (pipe(p)) {
		perror("tcpcrr: pipe");
		return 1;
	}
	end = now_s() + atof(argv[3]);
	for (i = 0; i < procs; i++)
		if (fork() == 0) {
			client(&a, end, p[1]);
			_exit(0);
		}
	close(p[1]);
	while (read(p[0], n, sizeof(n)) == sizeof(n)) {
		done += n[0];
		failed += n[1];
	}
	while (wait(NULL) > 0)
		;
	printf("%lu %lu\n", done, failed);
	return 0;
}
