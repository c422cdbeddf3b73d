#include "datapath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

#define MASKS_CACHE_DEFAULT 256

static struct datapath **dps;
static unsigned n_dps;

unsigned
dp_nr_cpu_ids(void)
{
	static unsigned n;
	long c;

	if (!n) {
		c = sysconf(_SC_NPROCESSORS_CONF);
		n = c > 0 ? c : 1;
	}
	return n;
}

static int
pids_new(const uint32_t *pids, unsigned n, unsigned max, struct dp_pids **out)
{
	struct dp_pids *p;

	if (!n || (max && n > max))
		return -EINVAL;
	p = malloc(sizeof(*p) + n * sizeof(uint32_t));
	if (!p)
		return -ENOMEM;
	p->n = n;
	memcpy(p->pid, pids, n * sizeof(uint32_t));
	*out = p;
	return 0;
}

static void
dp_receive(struct vport *vport, void *frame, size_t len, void *owner)
{
	struct dp_port *port = owner;

	(void)vport;
	(void)frame;
	(void)len;
	/* No flow table yet: every frame misses, and with no upcall path it
	 * is lost. */
	__atomic_fetch_add(&port->dp->n_missed, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&port->dp->n_lost, 1, __ATOMIC_RELAXED);
}

static int
ports_reserve(struct datapath *dp, uint32_t port_no)
{
	uint32_t n = dp->n_ports_alloc ? dp->n_ports_alloc : 16;
	struct dp_port **p;

	if (port_no < dp->n_ports_alloc)
		return 0;
	while (n <= port_no)
		n *= 2;
	if (n > TAPDP_DP_MAX_PORTS)
		n = TAPDP_DP_MAX_PORTS;
	p = realloc(dp->ports, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + dp->n_ports_alloc, 0,
	       (n - dp->n_ports_alloc) * sizeof(*p));
	dp->ports = p;
	dp->n_ports_alloc = n;
	return 0;
}

struct dp_port *
dp_port_get(const struct datapath *dp, uint32_t port_no)
{
	return port_no < dp->n_ports_alloc ? dp->ports[port_no] : NULL;
}

const char *
dp_port_name(const struct dp_port *port)
{
	return port->vport->name;
}

struct datapath *
dp_at(unsigned i)
{
	return i < n_dps ? dps[i] : NULL;
}

struct dp_port *
dp_port_locate(const char *name)
{
	for (unsigned i = 0; i < n_dps; i++)
		for (uint32_t p = 0; p < dps[i]->n_ports_alloc; p++)
			if (dps[i]->ports[p] &&
			    !strcmp(dp_port_name(dps[i]->ports[p]), name))
				return dps[i]->ports[p];
	return NULL;
}

struct dp_port *
dp_port_by_ifindex(int ifindex)
{
	for (unsigned i = 0; i < n_dps; i++)
		for (uint32_t p = 0; p < dps[i]->n_ports_alloc; p++)
			if (dps[i]->ports[p] &&
			    dps[i]->ports[p]->vport->ifindex == ifindex)
				return dps[i]->ports[p];
	return NULL;
}

const char *
dp_name(const struct datapath *dp)
{
	return dp_port_name(dp->ports[OVSP_LOCAL]);
}

int
dp_ifindex(const struct datapath *dp)
{
	return dp->ports[OVSP_LOCAL]->vport->ifindex;
}

struct datapath *
dp_by_ifindex(int ifindex)
{
	for (unsigned i = 0; i < n_dps; i++)
		if (dp_ifindex(dps[i]) == ifindex)
			return dps[i];
	return NULL;
}

struct datapath *
dp_by_name(const char *name)
{
	struct dp_port *port = dp_port_locate(name);

	return port && port->port_no == OVSP_LOCAL ? port->dp : NULL;
}

int
dp_port_set_pids(struct dp_port *port, const uint32_t *pids, unsigned n)
{
	struct dp_pids *p;
	int err = pids_new(pids, n, dp_nr_cpu_ids(), &p);

	if (err)
		return err;
	free(port->pids);
	port->pids = p;
	return 0;
}

static int
port_attach(struct datapath *dp, uint32_t port_no, enum ovs_vport_type type,
	    const char *name, const uint32_t *pids, unsigned n_pids,
	    struct dp_port **out)
{
	struct dp_port *port, *other;
	int err;

	port = calloc(1, sizeof(*port));
	if (!port)
		return -ENOMEM;
	port->dp = dp;
	port->port_no = port_no;
	port->type = type;
	err = pids_new(pids, n_pids, dp_nr_cpu_ids(), &port->pids);
	if (err)
		goto fail;
	other = dp_port_locate(name);
	if (other && type == OVS_VPORT_TYPE_NETDEV) {
		/* The kernel refuses its own internal devices as netdevs and
		 * a device that already has a datapath attached. */
		err = other->type == OVS_VPORT_TYPE_INTERNAL ? -EINVAL : -EBUSY;
		goto fail;
	}
	err = ports_reserve(dp, port_no);
	if (err)
		goto fail;
	err = vport_create(type, name, dp_receive, port, &port->vport);
	if (err)
		goto fail;
	dp->ports[port_no] = port;
	log_info("%s: added port %u %s (%s)", dp_name(dp), port_no, name,
		 type == OVS_VPORT_TYPE_INTERNAL ? "internal" : "netdev");
	if (out)
		*out = port;
	return 0;
fail:
	free(port->pids);
	free(port);
	return err;
}

int
dp_port_add(struct datapath *dp, uint32_t port_no, enum ovs_vport_type type,
	    const char *name, const uint32_t *pids, unsigned n_pids,
	    struct dp_port **out)
{
	if (port_no) {
		if (dp_port_get(dp, port_no))
			return -EBUSY;
	} else {
		for (port_no = 1; dp_port_get(dp, port_no); port_no++)
			;
	}
	if (port_no >= TAPDP_DP_MAX_PORTS)
		return -EFBIG;
	return port_attach(dp, port_no, type, name, pids, n_pids, out);
}

void
dp_port_del(struct dp_port *port)
{
	struct datapath *dp = port->dp;

	dp->ports[port->port_no] = NULL;
	vport_destroy(port->vport);
	free(port->pids);
	free(port);
}

int
dp_set_features(struct datapath *dp, uint32_t features)
{
	if (features & ~(OVS_DP_F_VPORT_PIDS | OVS_DP_F_UNALIGNED |
			 OVS_DP_F_TC_RECIRC_SHARING |
			 OVS_DP_F_DISPATCH_UPCALL_PER_CPU))
		return -EOPNOTSUPP;
	dp->user_features = features;
	return 0;
}

int
dp_set_masks_cache_size(struct datapath *dp, uint32_t size)
{
	if (size && (size & (size - 1)))
		return -EINVAL;
	dp->masks_cache_size = size;
	return 0;
}

int
dp_set_cpu_pids(struct datapath *dp, const uint32_t *pids, unsigned n)
{
	struct dp_pids *p;
	int err = pids_new(pids, n, 0, &p);

	if (err)
		return err;
	free(dp->cpu_pids);
	dp->cpu_pids = p;
	return 0;
}

int
dp_create(const char *name, const uint32_t *pids, unsigned n_pids,
	  struct datapath **out)
{
	struct datapath *dp, **grown;
	int err;

	dp = calloc(1, sizeof(*dp));
	grown = realloc(dps, (n_dps + 1) * sizeof(*dps));
	if (!dp || !grown) {
		free(dp);
		return -ENOMEM;
	}
	dps = grown;
	dp->masks_cache_size = MASKS_CACHE_DEFAULT;
	err = meter_table_init(&dp->meters);
	if (err) {
		free(dp);
		return err;
	}
	err = port_attach(dp, OVSP_LOCAL, OVS_VPORT_TYPE_INTERNAL, name, pids,
			  n_pids, NULL);
	if (err) {
		meter_table_destroy(&dp->meters);
		free(dp->ports);
		free(dp);
		return err == -EBUSY ? -EEXIST : err;
	}
	dps[n_dps++] = dp;
	*out = dp;
	return 0;
}

void
dp_destroy(struct datapath *dp)
{
	for (uint32_t p = dp->n_ports_alloc; p-- > 0;)
		if (dp->ports[p])
			dp_port_del(dp->ports[p]);
	for (unsigned i = 0; i < n_dps; i++) {
		if (dps[i] == dp) {
			memmove(dps + i, dps + i + 1,
				(n_dps - i - 1) * sizeof(*dps));
			n_dps--;
			break;
		}
	}
	meter_table_destroy(&dp->meters);
	free(dp->ports);
	free(dp->cpu_pids);
	free(dp);
}

void
dp_destroy_all(void)
{
	while (n_dps)
		dp_destroy(dps[n_dps - 1]);
	free(dps);
	dps = NULL;
}
