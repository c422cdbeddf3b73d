/* SPDX-License-Identifier: Apache-2.0 */
/* The datapaths and their ports as tapdpctl's commands read them: the
 * dumps of ovs_datapath and ovs_vport, with what each command prints of
 * them. Single-threaded. */
#ifndef TAPDP_CTL_DP_H
#define TAPDP_CTL_DP_H

#include <linux/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/ctl-cmd.h"
#include "include/tapdp/ovs-uapi.h"

struct ctl_port {
	uint32_t port_no;
	uint32_t type;			/* OVS_VPORT_TYPE_* */
	char name[IFNAMSIZ];
	struct ovs_vport_stats stats;
	unsigned n_pids;		/* upcall portids */
};

struct ctl_dp {
	int ifindex;
	char name[IFNAMSIZ];
	struct ovs_dp_stats stats;
	struct ovs_dp_megaflow_stats mf;
	struct ctl_port *ports;		/* with_ports only */
	unsigned n_ports;
};

struct ctl_dps {
	struct ctl_dp *dp;
	unsigned n;
};

/* Every datapath, with its ports when with_ports (a datapath deleted
 * between the dumps has none): 0, or 1 with the reason on standard
 * error. */
int ctl_dps_read(struct ctl_ctx *ctx, bool with_ports, struct ctl_dps *d);
void ctl_dps_free(struct ctl_dps *d);
/* A port type's name as ovs-dpctl writes it. */
const char *ctl_port_type(uint32_t type);

#endif
