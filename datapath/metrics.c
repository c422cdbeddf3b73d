/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/metrics.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "ct/conntrack.h"
#include "datapath/drop.h"
#include "datapath/upcall-stats.h"
#include "include/tapdp/ovs-uapi.h"
#include "genl-server/nlsock.h"
#include "tap/vport.h"

/* A family's HELP and TYPE lines. */
static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, double quote and newline escaped. */
static void
value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* name{datapath="DP"[,KEY="VAL"]} N */
static void
sample(FILE *f, const char *name, const struct datapath *dp,
       const char *key, const char *val, uint64_t n)
{
	fprintf(f, "%s{datapath=", name);
	value(f, dp_name(dp));
	if (key && val) {
		fprintf(f, ",%s=", key);
		value(f, val);
	}
	fprintf(f, "} %" PRIu64 "\n", n);
}

static void
lookups(FILE *f, struct dp_net *net)
{
	const struct datapath *dp;
	struct dp_stats st;

	family(f, "tapdp_datapath_lookups_total", "counter",
	       "Packets looked up, by result (the kernel's hit, missed, lost).");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_get_stats(dp, &st);
		sample(f, "tapdp_datapath_lookups_total", dp, "result", "hit",
		       st.n_hit);
		sample(f, "tapdp_datapath_lookups_total", dp, "result",
		       "missed", st.n_missed);
		sample(f, "tapdp_datapath_lookups_total", dp, "result", "lost",
		       st.n_lost);
	}
	family(f, "tapdp_datapath_masks_probed_total", "counter",
	       "Masks probed by lookups.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_get_stats(dp, &st);
		sample(f, "tapdp_datapath_masks_probed_total", dp, NULL, NULL,
		       st.n_mask_hit);
	}
	family(f, "tapdp_datapath_mask_cache_hits_total", "counter",
	       "Lookups whose cached mask matched.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_get_stats(dp, &st);
		sample(f, "tapdp_datapath_mask_cache_hits_total", dp, NULL,
		       NULL, st.n_cache_hit);
	}
	family(f, "tapdp_datapath_flows", "gauge", "Megaflows installed.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++)
		sample(f, "tapdp_datapath_flows", dp, NULL, NULL,
		       dp_flow_count(dp));
	family(f, "tapdp_datapath_masks", "gauge", "Masks in use.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++)
		sample(f, "tapdp_datapath_masks", dp, NULL, NULL,
		       dp_mask_count(dp));
}

/* One counter of struct ovs_vport_stats for every port. */
static void
port_counter(FILE *f, struct dp_net *net, const char *name, const char *help,
	     size_t rx_off, size_t tx_off)
{
	const struct datapath *dp;

	family(f, name, "counter", help);
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		struct dp_port *port;
		uint32_t no = 0;

		for (; (port = dp_port_next(dp, &no)); no++) {
			struct ovs_vport_stats st;

			dp_port_get_stats(port, &st);
			for (unsigned d = 0; d < 2; d++) {
				uint64_t v;

				memcpy(&v, (const char *)&st +
						   (d ? tx_off : rx_off),
				       sizeof(v));
				fprintf(f, "%s{datapath=", name);
				value(f, dp_name(dp));
				fprintf(f, ",port=");
				value(f, dp_port_name(port));
				fprintf(f, ",direction=\"%s\"} %" PRIu64 "\n",
					d ? "tx" : "rx", v);
			}
		}
	}
}

static void
drops(FILE *f, struct dp_net *net)
{
	const struct datapath *dp;
	uint64_t n[DROP_REASONS];

	family(f, "tapdp_drops_total", "counter",
	       "Packets dropped, by the kernel's drop reason.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_get_drops(dp, n);
		for (unsigned r = 0; r < DROP_REASONS; r++)
			sample(f, "tapdp_drops_total", dp, "reason",
			       drop_reason_name(drop_reason_at(r)), n[r]);
	}
}

/* Each handler's sent (or lost) upcalls, by portid. */
static void
handler_counter(FILE *f, struct dp_net *net, const char *name,
		const char *help, bool lost)
{
	static struct upcall_figures u;	/* the control thread's */
	const struct datapath *dp;
	char portid[16];

	family(f, name, "counter", help);
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_upcall_figures(dp, &u);
		for (unsigned h = 0; h < u.n_handlers; h++) {
			snprintf(portid, sizeof(portid), "%" PRIu32,
				 u.handler[h].portid);
			sample(f, name, dp, "portid", portid,
			       lost ? u.handler[h].lost : u.handler[h].sent);
		}
	}
}

static void
upcalls(FILE *f, struct dp_net *net)
{
	static const char *const lost[UPCALL_LOST_REASONS] = {
		[UPCALL_LOST_FULL] = "socket_full",
		[UPCALL_LOST_NO_SOCKET] = "no_socket",
		[UPCALL_LOST_OTHER] = "other",
	};
	static struct upcall_figures u;	/* the control thread's */
	const struct datapath *dp;

	family(f, "tapdp_upcalls_total", "counter",
	       "Upcalls made, sent or lost, by command.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_upcall_figures(dp, &u);
		sample(f, "tapdp_upcalls_total", dp, "command", "miss", u.miss);
		sample(f, "tapdp_upcalls_total", dp, "command", "action",
		       u.action);
	}
	family(f, "tapdp_upcalls_lost_total", "counter",
	       "Upcalls lost, by reason.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_upcall_figures(dp, &u);
		for (unsigned r = 0; r < UPCALL_LOST_REASONS; r++)
			sample(f, "tapdp_upcalls_lost_total", dp, "reason",
			       lost[r], u.lost[r]);
	}
	handler_counter(f, net, "tapdp_upcall_handler_sent_total",
			"Upcalls sent to a handler, by the portid they went "
			"to.", false);
	handler_counter(f, net, "tapdp_upcall_handler_lost_total",
			"Upcalls lost on their way to a handler.", true);
	family(f, "tapdp_miss_to_flow_seconds", "histogram",
	       "How long a miss waited for the flow NEW with its key.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		static const char *const le[UPCALL_WAIT_BUCKETS - 1] = {
			"1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10",
		};
		uint64_t sum = 0;

		dp_upcall_figures(dp, &u);
		for (unsigned b = 0; b < UPCALL_WAIT_BUCKETS - 1; b++) {
			sum += u.wait[b];
			sample(f, "tapdp_miss_to_flow_seconds_bucket", dp, "le",
			       le[b], sum);
		}
		sample(f, "tapdp_miss_to_flow_seconds_bucket", dp, "le",
		       "+Inf", u.wait_n);
		fprintf(f, "tapdp_miss_to_flow_seconds_sum{datapath=");
		value(f, dp_name(dp));
		fprintf(f, "} %" PRIu64 ".%06" PRIu64 "\n",
			u.wait_sum_us / 1000000, u.wait_sum_us % 1000000);
		sample(f, "tapdp_miss_to_flow_seconds_count", dp, NULL, NULL,
		       u.wait_n);
	}
}

static void
process_figures(FILE *f, struct dp_net *net)
{
	struct conntrack *ct = dp_net_conntrack_made(net);
	struct conntrack_stats st = { 0 };
	unsigned n = 0;

	if (ct)
		conntrack_get_stats(ct, &st);
	family(f, "tapdp_conntrack_connections", "gauge",
	       "Connections tracked.");
	fprintf(f, "tapdp_conntrack_connections %" PRIu64 "\n", st.n_conns);
	family(f, "tapdp_conntrack_invalid_total", "counter",
	       "Packets the tracker found invalid.");
	fprintf(f, "tapdp_conntrack_invalid_total %" PRIu64 "\n",
		st.n_invalid);
	while (nlsock_at(n))
		n++;
	family(f, "tapdp_clients", "gauge", "Netlink sockets clients hold.");
	fprintf(f, "tapdp_clients %u\n", n);
}

static void
peer_bursts(FILE *f, struct dp_net *net)
{
	const struct datapath *dp;

	family(f, "tapdp_port_rx_peer_bursts_total", "counter",
	       "Bursts of a port's frames taken by the thread of a port that "
	       "had just sent to it.");
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		struct dp_port *port;
		uint32_t no = 0;

		for (; (port = dp_port_next(dp, &no)); no++)
			sample(f, "tapdp_port_rx_peer_bursts_total", dp, "port",
			       dp_port_name(port),
			       __atomic_load_n(&port->vport->rx_peer_bursts,
					       __ATOMIC_RELAXED));
	}
}

void
dp_metrics_write(FILE *f, struct dp_net *net)
{
	lookups(f, net);
	port_counter(f, net, "tapdp_port_packets_total",
		     "Packets a port received and sent.",
		     offsetof(struct ovs_vport_stats, rx_packets),
		     offsetof(struct ovs_vport_stats, tx_packets));
	port_counter(f, net, "tapdp_port_bytes_total",
		     "Bytes a port received and sent.",
		     offsetof(struct ovs_vport_stats, rx_bytes),
		     offsetof(struct ovs_vport_stats, tx_bytes));
	port_counter(f, net, "tapdp_port_errors_total",
		     "A port's receive and send errors.",
		     offsetof(struct ovs_vport_stats, rx_errors),
		     offsetof(struct ovs_vport_stats, tx_errors));
	port_counter(f, net, "tapdp_port_dropped_total",
		     "Packets a port dropped on receive and send.",
		     offsetof(struct ovs_vport_stats, rx_dropped),
		     offsetof(struct ovs_vport_stats, tx_dropped));
	peer_bursts(f, net);
	drops(f, net);
	upcalls(f, net);
	process_figures(f, net);
}
