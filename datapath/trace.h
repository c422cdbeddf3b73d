/* SPDX-License-Identifier: Apache-2.0 */
/* A dry run of a frame through a datapath, for tapdpctl trace: the steps
 * of TAPDP_CTL_CMD_TRACE (include/tapdp/ctl-uapi.h) as the packet path
 * would take them: the key extracted, the megaflow found (with the masks
 * probed) or the upcall a miss makes, each action of its list, the
 * tracker's answer, recirculations and their lookups, the ports it would
 * leave by and the drops with their reasons. The real action engine runs
 * it with callbacks that tell instead of doing: no packet leaves, no
 * upcall is sent, flow statistics, meters and connections stay as they
 * were (conntrack_peek()).
 *
 * Runs on the control thread, which alone changes the flow table. */
#ifndef TAPDP_DATAPATH_TRACE_H
#define TAPDP_DATAPATH_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "ct/conntrack.h"
#include "datapath/datapath.h"
#include "genl-server/msg.h"

/* Puts the steps of the frame's run, in by port in, into mb's open message
 * as a TAPDP_CTL_ATTR_TRACE nest (TRUNCATED when the rest did not fit).
 * ct: the tracker to look connections up in. */
void dp_trace(struct datapath *dp, struct dp_port *in, struct conntrack *ct,
	      const void *frame, size_t len, struct msgbuf *mb);

#endif
