/* SPDX-License-Identifier: Apache-2.0 */
/* The datapaths' counters in Prometheus's text exposition format (0.0.4),
 * for tapdpd --metrics: lookups, flows and masks per datapath, packets and
 * bytes per port, drops by reason, upcalls by command, lost ones by
 * reason, each handler's, the wait of misses for their flows as a
 * histogram, the tracker's connections, the clients. Names start with
 * tapdp_; label values are escaped as the format asks.
 *
 * Control thread: it walks the datapaths and their ports. */
#ifndef TAPDP_DATAPATH_METRICS_H
#define TAPDP_DATAPATH_METRICS_H

#include <stdio.h>

#include "datapath/datapath.h"

void dp_metrics_write(FILE *f, struct dp_net *net);

#endif
