/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpd --metrics ADDR: an HTTP endpoint for Prometheus, GET /metrics
 * answered with the text of datapath/metrics.h. Off unless asked.
 *
 * A thread of its own accepts and answers one connection at a time, each
 * read and write bounded by a timeout, so that a slow or hostile client
 * delays other scrapers only, never the datapath or its netlink clients.
 * The figures are gathered on the control thread, which alone walks the
 * datapaths: the thread wakes it through an eventfd the server loop
 * watches, and waits for the text (at most a second: then 503). Nothing
 * runs while nobody scrapes.
 *
 * ADDR: PORT, HOST:PORT or [HOST]:PORT, numeric; HOST 127.0.0.1 when
 * left out. */
#ifndef TAPDP_DAEMON_METRICS_SERVER_H
#define TAPDP_DAEMON_METRICS_SERVER_H

#include "datapath/datapath.h"

/* Binds and listens at addr, before the sandbox; 0 or -errno (-EINVAL: not
 * an address). */
int metrics_server_open(const char *addr, struct dp_net *net);
/* Starts the thread, once the sandbox is on (threads inherit it). */
int metrics_server_start(void);
/* Stops the thread (if started) and closes what open made. */
void metrics_server_close(void);

#endif
