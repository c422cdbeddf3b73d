/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/metrics-server.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "datapath/metrics.h"
#include "genl-server/server.h"

#define REQUEST_MAX	4096
#define IO_TIMEOUT_S	2
#define RENDER_WAIT_S	1

static int listen_fd = -1;
static int wake_fd = -1;	/* the thread asks the control thread */
static int stop_fd = -1;	/* the control thread stops the thread */
static struct dp_net *served;
static pthread_t thread;
static bool started;

/* The text the control thread made for the thread's request number
 * 'done'; under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t made = PTHREAD_COND_INITIALIZER;
static uint64_t asked, done;
static char *text;
static size_t text_len;

/* On the control thread, when the thread asks. */
static void
render(void *arg)
{
	uint64_t n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (read(wake_fd, &n, sizeof(n)) != sizeof(n))
		return;
	f = open_memstream(&buf, &len);
	if (f) {
		dp_metrics_write(f, served);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	pthread_mutex_lock(&lock);
	free(text);
	text = buf;
	text_len = buf ? len : 0;
	done = asked;
	pthread_cond_broadcast(&made);
	pthread_mutex_unlock(&lock);
}

/* The text, taken from the control thread; NULL when it did not come in
 * time or could not be made. */
static char *
fetch(size_t *len)
{
	uint64_t one = 1, mine;
	struct timespec until;
	char *t = NULL;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RENDER_WAIT_S;
	pthread_mutex_lock(&lock);
	mine = ++asked;
	pthread_mutex_unlock(&lock);
	if (write(wake_fd, &one, sizeof(one)) != sizeof(one))
		return NULL;
	pthread_mutex_lock(&lock);
	while (done < mine &&
	       pthread_cond_timedwait(&made, &lock, &until) != ETIMEDOUT)
		;
	if (done >= mine) {
		t = text;
		*len = text_len;
		text = NULL;
	}
	pthread_mutex_unlock(&lock);
	return t;
}

static void
send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return;
		p += n;
		len -= n;
	}
}

static void
reply(int fd, const char *status, const char *type, const char *body,
      size_t len, bool head)
{
	char hdr[256];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			 status, type, len);

	send_all(fd, hdr, n);
	if (!head)
		send_all(fd, body, len);
}

static void
error_reply(int fd, const char *status)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%s\n", status);

	reply(fd, status, "text/plain; charset=utf-8", body, n, false);
}

/* Reads the request's head (up to its blank line, REQUEST_MAX bytes) and
 * answers it. */
static void
serve(int fd)
{
	char req[REQUEST_MAX + 1], method[8], path[256];
	size_t got = 0;
	bool head;
	char *body;
	size_t len;

	while (got < REQUEST_MAX) {
		ssize_t n = recv(fd, req + got, REQUEST_MAX - got, 0);

		if (n <= 0)
			return;
		got += n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	if (got >= REQUEST_MAX) {
		error_reply(fd, "431 Request Header Fields Too Large");
		return;
	}
	if (sscanf(req, "%7s %255s HTTP/1.%*c", method, path) != 2) {
		error_reply(fd, "400 Bad Request");
		return;
	}
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		error_reply(fd, "405 Method Not Allowed");
		return;
	}
	path[strcspn(path, "?")] = '\0';
	if (strcmp(path, "/metrics")) {
		error_reply(fd, "404 Not Found");
		return;
	}
	body = fetch(&len);
	if (!body) {
		error_reply(fd, "503 Service Unavailable");
		return;
	}
	reply(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body,
	      len, head);
	free(body);
}

static void *
run(void *arg)
{
	const struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = listen_fd, .events = POLLIN },
			{ .fd = stop_fd, .events = POLLIN },
		};
		int fd;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		serve(fd);
		close(fd);
	}
	return NULL;
}

/* HOST:PORT, [HOST]:PORT or PORT into host and port. */
static int
split(const char *addr, char *host, size_t hlen, const char **port)
{
	const char *colon = strrchr(addr, ':');
	size_t n;

	if (!colon) {
		snprintf(host, hlen, "127.0.0.1");
		*port = addr;
		return 0;
	}
	n = colon - addr;
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr++;
		n -= 2;
	}
	if (!n || n >= hlen)
		return -EINVAL;
	memcpy(host, addr, n);
	host[n] = '\0';
	*port = colon + 1;
	return 0;
}

int
metrics_server_open(const char *addr, struct dp_net *net)
{
	const struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai;
	const char *port;
	char host[256];
	int one = 1, err;

	if (split(addr, host, sizeof(host), &port) || !*port ||
	    getaddrinfo(host, port, &hints, &ai))
		return -EINVAL;
	listen_fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	err = listen_fd < 0 ? -errno : 0;
	if (!err)
		setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
			   sizeof(one));
	if (!err && (bind(listen_fd, ai->ai_addr, ai->ai_addrlen) ||
		     listen(listen_fd, 16)))
		err = -errno;
	freeaddrinfo(ai);
	if (!err) {
		wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		stop_fd = eventfd(0, EFD_CLOEXEC);
		if (wake_fd < 0 || stop_fd < 0)
			err = -errno;
	}
	if (!err)
		err = server_watch(wake_fd, render, NULL);
	if (err) {
		metrics_server_close();
		return err;
	}
	served = net;
	log_info("metrics at http://%s/metrics", addr);
	return 0;
}

int
metrics_server_start(void)
{
	int err;

	if (listen_fd < 0)
		return 0;
	err = -pthread_create(&thread, NULL, run, NULL);
	started = !err;
	return err;
}

void
metrics_server_close(void)
{
	uint64_t one = 1;

	if (started && write(stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(thread, NULL);
	started = false;
	if (listen_fd >= 0)
		close(listen_fd);
	if (wake_fd >= 0)
		close(wake_fd);
	if (stop_fd >= 0)
		close(stop_fd);
	listen_fd = wake_fd = stop_fd = -1;
	free(text);
	text = NULL;
}
