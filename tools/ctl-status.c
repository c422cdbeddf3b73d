/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl status: the daemon (tapdp_ctl STATUS), its datapaths and ports
 * (the OVS families' dumps), its threads and clients (tapdp_ctl THREADS
 * and CLIENTS), read
 * first and printed after, so that one document describes one moment. The
 * JSON form is described by docs/tapdpctl-status.schema.json. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ctl-dp.h"
#include "tools/json.h"
#include "include/tapdp/ctl-uapi.h"
#include "include/tapdp/ovs-uapi.h"
#include "include/tapdp/proto.h"

struct thread {
	uint32_t tid;
	char name[64];
	uint64_t cpu_ms;
};

struct table {
	char name[32], dp[IFNAMSIZ];
	uint64_t entries;
};

struct buffer {
	char name[16];
	uint32_t size, made, free;
};

struct client {
	uint32_t pid, uid, protocol, portid, queued, rcvbuf;
	char comm[64];
	uint32_t groups[TAPDP_GROUP_COUNT];
	unsigned n_groups;
};

/* A port the fast path serves. */
struct fast_port {
	char dp[IFNAMSIZ];
	uint32_t port_no;
};

struct status {
	char version[32], kernel[16], fast_path[160];
	uint32_t pid, n_clients;
	uint32_t n_namespaces;		/* 0: not told (another namespace) */
	uint64_t uptime_ms, rss, heap;
	struct thread *threads;
	struct table *tables;
	struct ctl_dps dps;
	struct client *clients;
	struct buffer *buffers;
	struct fast_port *fast_ports;
	unsigned n_threads, n_tables, n_clients_seen, n_buffers, n_fast_ports;
	bool fast_ports_told;		/* no list: the fast path is off (or
					 * the daemon is older than lists) */
};

static void
copy_str(char *dst, size_t len, const struct nlattr *a)
{
	snprintf(dst, len, "%s", gclient_str(a, ""));
}

static int
thread_cb(const struct nlmsghdr *h, void *data)
{
	struct status *st = data;
	struct thread *t = ctl_grow(&st->threads, &st->n_threads, sizeof(*t));
	const struct nlattr *a;

	if (!t)
		return -ENOMEM;
	mnl_attr_for_each(a, h, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case TAPDP_CTL_ATTR_TID:
			t->tid = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_NAME:
			copy_str(t->name, sizeof(t->name), a);
			break;
		case TAPDP_CTL_ATTR_CPU_MS:
			t->cpu_ms = gclient_uint(a);
			break;
		}
	}
	return MNL_CB_OK;
}

/* The TAPDP_CTL_ATTR_TABLE nests of a TABLES list. */
static int
tables_parse(const struct nlattr *list, struct status *st)
{
	const struct nlattr *nest, *a;

	mnl_attr_for_each_nested(nest, list) {
		struct table *t = ctl_grow(&st->tables, &st->n_tables,
					   sizeof(*t));

		if (!t)
			return -ENOMEM;
		mnl_attr_for_each_nested(a, nest) {
			switch (mnl_attr_get_type(a)) {
			case TAPDP_CTL_ATTR_NAME:
				copy_str(t->name, sizeof(t->name), a);
				break;
			case TAPDP_CTL_ATTR_DP_NAME:
				copy_str(t->dp, sizeof(t->dp), a);
				break;
			case TAPDP_CTL_ATTR_ENTRIES:
				t->entries = gclient_uint(a);
				break;
			}
		}
	}
	return 0;
}

/* The TAPDP_CTL_ATTR_BUFFER nests of a BUFFERS list. */
static int
buffers_parse(const struct nlattr *list, struct status *st)
{
	const struct nlattr *nest, *a;

	mnl_attr_for_each_nested(nest, list) {
		struct buffer *b = ctl_grow(&st->buffers, &st->n_buffers,
					    sizeof(*b));

		if (!b)
			return -ENOMEM;
		mnl_attr_for_each_nested(a, nest) {
			switch (mnl_attr_get_type(a)) {
			case TAPDP_CTL_ATTR_NAME:
				copy_str(b->name, sizeof(b->name), a);
				break;
			case TAPDP_CTL_ATTR_SIZE:
				b->size = gclient_uint(a);
				break;
			case TAPDP_CTL_ATTR_MADE:
				b->made = gclient_uint(a);
				break;
			case TAPDP_CTL_ATTR_FREE:
				b->free = gclient_uint(a);
				break;
			}
		}
	}
	return 0;
}

/* The TAPDP_CTL_ATTR_FAST_PORT nests of a FAST_PORTS list. */
static int
fast_ports_parse(const struct nlattr *list, struct status *st)
{
	const struct nlattr *nest, *a;

	st->fast_ports_told = true;
	mnl_attr_for_each_nested(nest, list) {
		struct fast_port *f = ctl_grow(&st->fast_ports,
					       &st->n_fast_ports, sizeof(*f));

		if (!f)
			return -ENOMEM;
		mnl_attr_for_each_nested(a, nest) {
			switch (mnl_attr_get_type(a)) {
			case TAPDP_CTL_ATTR_DP_NAME:
				copy_str(f->dp, sizeof(f->dp), a);
				break;
			case TAPDP_CTL_ATTR_PORT_NO:
				f->port_no = gclient_uint(a);
				break;
			}
		}
	}
	return 0;
}

/* Whether the fast path serves port_no of datapath dp. */
static bool
port_fast(const struct status *st, const char *dp, uint32_t port_no)
{
	for (unsigned i = 0; i < st->n_fast_ports; i++)
		if (st->fast_ports[i].port_no == port_no &&
		    !strcmp(st->fast_ports[i].dp, dp))
			return true;
	return false;
}

static int
status_cb(const struct nlmsghdr *h, void *data)
{
	struct status *st = data;
	const struct nlattr *a;
	int err = 0;

	mnl_attr_for_each(a, h, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case TAPDP_CTL_ATTR_VERSION:
			copy_str(st->version, sizeof(st->version), a);
			break;
		case TAPDP_CTL_ATTR_KERNEL:
			copy_str(st->kernel, sizeof(st->kernel), a);
			break;
		case TAPDP_CTL_ATTR_FAST_PATH:
			copy_str(st->fast_path, sizeof(st->fast_path), a);
			break;
		case TAPDP_CTL_ATTR_PID:
			st->pid = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_UPTIME_MS:
			st->uptime_ms = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_RSS:
			st->rss = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_HEAP:
			st->heap = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_CLIENTS:
			st->n_clients = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_NAMESPACES:
			st->n_namespaces = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_TABLES:
			err = tables_parse(a, st);
			break;
		case TAPDP_CTL_ATTR_BUFFERS:
			err = buffers_parse(a, st);
			break;
		case TAPDP_CTL_ATTR_FAST_PORTS:
			err = fast_ports_parse(a, st);
			break;
		}
		if (err)
			return err;
	}
	return MNL_CB_OK;
}

static int
client_cb(const struct nlmsghdr *h, void *data)
{
	struct status *st = data;
	struct client *c = ctl_grow(&st->clients, &st->n_clients_seen,
				sizeof(*c));
	const struct nlattr *a;

	if (!c)
		return -ENOMEM;
	mnl_attr_for_each(a, h, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case TAPDP_CTL_ATTR_CLIENT_PID:
			c->pid = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_CLIENT_UID:
			c->uid = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_COMM:
			copy_str(c->comm, sizeof(c->comm), a);
			break;
		case TAPDP_CTL_ATTR_PROTOCOL:
			c->protocol = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_PORTID:
			c->portid = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_GROUPS:
			c->n_groups = mnl_attr_get_payload_len(a) /
				      sizeof(uint32_t);
			if (c->n_groups > TAPDP_GROUP_COUNT)
				c->n_groups = TAPDP_GROUP_COUNT;
			memcpy(c->groups, mnl_attr_get_payload(a),
			       c->n_groups * sizeof(uint32_t));
			break;
		case TAPDP_CTL_ATTR_QUEUED:
			c->queued = gclient_uint(a);
			break;
		case TAPDP_CTL_ATTR_RCVBUF:
			c->rcvbuf = gclient_uint(a);
			break;
		}
	}
	return MNL_CB_OK;
}

static const char *
protocol_name(uint32_t protocol)
{
	switch (protocol) {
	case NETLINK_ROUTE:
		return "route";
	case NETLINK_NETFILTER:
		return "netfilter";
	case NETLINK_GENERIC:
		return "generic";
	default:
		return "other";
	}
}

/* Everything, in the order printed. */
static int
status_read(struct ctl_ctx *ctx, struct status *st)
{
	struct gclient *nl = &ctx->nl;
	uint16_t ctl;
	int err;

	if (ctl_family(ctx, TAPDP_CTL_FAMILY, &ctl, NULL, NULL))
		return 1;
	err = gclient_request(nl, ctl, TAPDP_CTL_CMD_STATUS,
			      TAPDP_CTL_VERSION, 0, NULL, 0, status_cb, st);
	if (err)
		return ctl_fail("status", err);
	if (ctl_dps_read(ctx, true, &st->dps))
		return 1;
	err = gclient_request(nl, ctl, TAPDP_CTL_CMD_THREADS,
			      TAPDP_CTL_VERSION, NLM_F_DUMP, NULL, 0,
			      thread_cb, st);
	if (err)
		return ctl_fail("threads", err);
	err = gclient_request(nl, ctl, TAPDP_CTL_CMD_CLIENTS,
			      TAPDP_CTL_VERSION, NLM_F_DUMP, NULL, 0,
			      client_cb, st);
	if (err)
		return ctl_fail("clients", err);
	return 0;
}

static void
print_json(const struct status *st)
{
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_string(&j, "version", st->version);
	json_uint(&j, "pid", st->pid);
	json_uint(&j, "uptime_ms", st->uptime_ms);
	json_string(&j, "kernel", st->kernel);
	if (st->fast_path[0])
		json_string(&j, "fast_path", st->fast_path);
	if (st->n_namespaces)
		json_uint(&j, "namespaces", st->n_namespaces);
	json_object_begin(&j, "memory");
	json_uint(&j, "resident", st->rss);
	json_uint(&j, "heap", st->heap);
	json_array_begin(&j, "tables");
	for (unsigned i = 0; i < st->n_tables; i++) {
		const struct table *t = &st->tables[i];

		json_object_begin(&j, NULL);
		json_string(&j, "name", t->name);
		if (t->dp[0])
			json_string(&j, "datapath", t->dp);
		json_uint(&j, "entries", t->entries);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "buffers");
	for (unsigned i = 0; i < st->n_buffers; i++) {
		const struct buffer *b = &st->buffers[i];

		json_object_begin(&j, NULL);
		json_string(&j, "name", b->name);
		json_uint(&j, "size", b->size);
		json_uint(&j, "made", b->made);
		json_uint(&j, "free", b->free);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_array_begin(&j, "threads");
	for (unsigned i = 0; i < st->n_threads; i++) {
		json_object_begin(&j, NULL);
		json_uint(&j, "tid", st->threads[i].tid);
		json_string(&j, "name", st->threads[i].name);
		json_uint(&j, "cpu_ms", st->threads[i].cpu_ms);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "datapaths");
	for (unsigned i = 0; i < st->dps.n; i++) {
		const struct ctl_dp *dp = &st->dps.dp[i];

		json_object_begin(&j, NULL);
		json_string(&j, "name", dp->name);
		json_uint(&j, "ifindex", dp->ifindex);
		json_uint(&j, "hit", dp->stats.n_hit);
		json_uint(&j, "missed", dp->stats.n_missed);
		json_uint(&j, "lost", dp->stats.n_lost);
		json_uint(&j, "flows", dp->stats.n_flows);
		json_uint(&j, "masks", dp->mf.n_masks);
		json_uint(&j, "mask_hit", dp->mf.n_mask_hit);
		json_uint(&j, "cache_hit", dp->mf.n_cache_hit);
		json_array_begin(&j, "ports");
		for (unsigned k = 0; k < dp->n_ports; k++) {
			const struct ctl_port *p = &dp->ports[k];

			json_object_begin(&j, NULL);
			json_uint(&j, "port_no", p->port_no);
			json_string(&j, "name", p->name);
			json_string(&j, "type", ctl_port_type(p->type));
			json_uint(&j, "rx_packets", p->stats.rx_packets);
			json_uint(&j, "tx_packets", p->stats.tx_packets);
			json_uint(&j, "rx_dropped", p->stats.rx_dropped);
			json_uint(&j, "tx_dropped", p->stats.tx_dropped);
			json_uint(&j, "upcall_pids", p->n_pids);
			if (st->fast_ports_told)
				json_bool(&j, "fast_path",
					  port_fast(st, dp->name, p->port_no));
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "clients");
	for (unsigned i = 0; i < st->n_clients_seen; i++) {
		const struct client *c = &st->clients[i];

		json_object_begin(&j, NULL);
		json_uint(&j, "pid", c->pid);
		json_uint(&j, "uid", c->uid);
		json_string(&j, "command", c->comm);
		json_string(&j, "protocol", protocol_name(c->protocol));
		json_uint(&j, "portid", c->portid);
		json_array_begin(&j, "groups");
		for (unsigned k = 0; k < c->n_groups; k++)
			json_uint(&j, NULL, c->groups[k]);
		json_array_end(&j);
		json_uint(&j, "queued", c->queued);
		json_uint(&j, "rcvbuf", c->rcvbuf);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
}

static void
print_human(const struct status *st)
{
	uint64_t s = st->uptime_ms / 1000;

	printf("tapdpd %s, pid %u, up %llu:%02llu:%02llu, answering as "
	       "Linux %s\n", st->version, st->pid,
	       (unsigned long long)(s / 3600),
	       (unsigned long long)(s / 60 % 60),
	       (unsigned long long)(s % 60), st->kernel);
	printf("memory: %.1f MiB resident, %.1f MiB heap in use\n",
	       st->rss / 1048576.0, st->heap / 1048576.0);
	if (st->fast_path[0])
		printf("fast path: %s\n", st->fast_path);
	if (st->n_namespaces)
		printf("namespaces: %u served (this one and %u others)\n",
		       st->n_namespaces, st->n_namespaces - 1);
	for (unsigned i = 0; i < st->dps.n; i++) {
		const struct ctl_dp *dp = &st->dps.dp[i];

		printf("datapath %s: hit %llu missed %llu lost %llu, "
		       "%llu flows, %u masks\n", dp->name,
		       (unsigned long long)dp->stats.n_hit,
		       (unsigned long long)dp->stats.n_missed,
		       (unsigned long long)dp->stats.n_lost,
		       (unsigned long long)dp->stats.n_flows, dp->mf.n_masks);
		for (unsigned k = 0; k < dp->n_ports; k++) {
			const struct ctl_port *p = &dp->ports[k];

			printf("  port %u: %s (%s) rx %llu tx %llu "
			       "dropped %llu/%llu%s\n", p->port_no, p->name,
			       ctl_port_type(p->type),
			       (unsigned long long)p->stats.rx_packets,
			       (unsigned long long)p->stats.tx_packets,
			       (unsigned long long)p->stats.rx_dropped,
			       (unsigned long long)p->stats.tx_dropped,
			       !st->fast_ports_told ? ""
			       : port_fast(st, dp->name, p->port_no)
				       ? ", fast path"
				       : ", rings only");
		}
	}
	printf("buffers:\n  %-14s %-8s %-6s %s\n", "NAME", "SIZE", "MADE",
	       "FREE");
	for (unsigned i = 0; i < st->n_buffers; i++)
		printf("  %-14s %-8u %-6u %u\n", st->buffers[i].name,
		       st->buffers[i].size, st->buffers[i].made,
		       st->buffers[i].free);
	printf("tables:\n");
	for (unsigned i = 0; i < st->n_tables; i++)
		printf("  %-14s %-16s %llu\n", st->tables[i].name,
		       st->tables[i].dp[0] ? st->tables[i].dp : "-",
		       (unsigned long long)st->tables[i].entries);
	printf("threads:\n  %-8s %-16s %s\n", "TID", "NAME", "CPU_MS");
	for (unsigned i = 0; i < st->n_threads; i++)
		printf("  %-8u %-16s %llu\n", st->threads[i].tid,
		       st->threads[i].name,
		       (unsigned long long)st->threads[i].cpu_ms);
	printf("clients: %u sockets\n  %-8s %-6s %-16s %-9s %-10s %-14s %s\n",
	       st->n_clients, "PID", "UID", "COMMAND", "PROTOCOL", "PORTID",
	       "QUEUED/RCVBUF", "GROUPS");
	for (unsigned i = 0; i < st->n_clients_seen; i++) {
		const struct client *c = &st->clients[i];
		char q[32];

		snprintf(q, sizeof(q), "%u/%u", c->queued, c->rcvbuf);
		printf("  %-8u %-6u %-16s %-9s %-10u %-14s", c->pid, c->uid,
		       c->comm[0] ? c->comm : "-", protocol_name(c->protocol),
		       c->portid, q);
		for (unsigned k = 0; k < c->n_groups; k++)
			printf("%s%u", k ? "," : "", c->groups[k]);
		printf("%s\n", c->n_groups ? "" : "-");
	}
}

static void
status_free(struct status *st)
{
	ctl_dps_free(&st->dps);
	free(st->threads);
	free(st->tables);
	free(st->buffers);
	free(st->fast_ports);
	free(st->clients);
}

static int
status_run(struct ctl_ctx *ctx, int argc, char **argv)
{
	struct status st = { .n_threads = 0 };
	int err;

	if (argc != 1) {
		fprintf(stderr, "usage: tapdpctl status\n");
		return 2;
	}
	err = status_read(ctx, &st);
	if (!err) {
		if (ctx->json)
			print_json(&st);
		else
			print_human(&st);
	}
	status_free(&st);
	return err;
}

const struct ctl_cmd ctl_cmd_status = {
	.name = "status",
	.usage = "status",
	.help = "the daemon, its datapaths, ports, tables, threads, clients",
	.run = status_run,
};
