/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/ctl-dp.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The struct an attribute carries, when it has its size. */
static void
copy_struct(void *dst, size_t len, const struct nlattr *a)
{
	if (a && mnl_attr_get_payload_len(a) >= len)
		memcpy(dst, mnl_attr_get_payload(a), len);
}

/* The attributes of an OVS family's message, after its ovs_header, into
 * tb; the header, or NULL for a message too short to hold it. */
static const struct ovs_header *
ovs_attrs(const struct nlmsghdr *h, const struct nlattr **tb,
	  unsigned maxattr)
{
	const struct ovs_header *oh = mnl_nlmsg_get_payload_offset(h,
								    GENL_HDRLEN);

	if (h->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN + sizeof(*oh)))
		return NULL;
	gclient_attrs(oh + 1, mnl_nlmsg_get_payload_len(h) - GENL_HDRLEN -
				      sizeof(*oh), tb, maxattr);
	return oh;
}

static int
dp_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[OVS_DP_ATTR_MAX + 1];
	const struct ovs_header *oh = ovs_attrs(h, tb, OVS_DP_ATTR_MAX);
	struct ctl_dps *d = data;
	struct ctl_dp *dp;

	if (!oh)
		return -EBADMSG;
	dp = ctl_grow(&d->dp, &d->n, sizeof(*dp));
	if (!dp)
		return -ENOMEM;
	dp->ifindex = oh->dp_ifindex;
	snprintf(dp->name, sizeof(dp->name), "%s",
		 gclient_str(tb[OVS_DP_ATTR_NAME], ""));
	copy_struct(&dp->stats, sizeof(dp->stats), tb[OVS_DP_ATTR_STATS]);
	copy_struct(&dp->mf, sizeof(dp->mf), tb[OVS_DP_ATTR_MEGAFLOW_STATS]);
	return MNL_CB_OK;
}

static int
port_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlattr *tb[OVS_VPORT_ATTR_MAX + 1];
	struct ctl_dp *dp = data;
	struct ctl_port *p;

	if (!ovs_attrs(h, tb, OVS_VPORT_ATTR_MAX))
		return -EBADMSG;
	p = ctl_grow(&dp->ports, &dp->n_ports, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->port_no = gclient_uint(tb[OVS_VPORT_ATTR_PORT_NO]);
	p->type = gclient_uint(tb[OVS_VPORT_ATTR_TYPE]);
	snprintf(p->name, sizeof(p->name), "%s",
		 gclient_str(tb[OVS_VPORT_ATTR_NAME], "?"));
	copy_struct(&p->stats, sizeof(p->stats), tb[OVS_VPORT_ATTR_STATS]);
	if (tb[OVS_VPORT_ATTR_UPCALL_PID])
		p->n_pids = mnl_attr_get_payload_len(
				    tb[OVS_VPORT_ATTR_UPCALL_PID]) /
			    sizeof(uint32_t);
	return MNL_CB_OK;
}

int
ctl_dps_read(struct ctl_ctx *ctx, bool with_ports, struct ctl_dps *d)
{
	struct ovs_header oh = { 0 };
	uint16_t dpf, vportf;
	int err;

	*d = (struct ctl_dps){ 0 };
	if (ctl_family(ctx, OVS_DATAPATH_FAMILY, &dpf, NULL, NULL) ||
	    (with_ports &&
	     ctl_family(ctx, OVS_VPORT_FAMILY, &vportf, NULL, NULL)))
		return 1;
	err = gclient_request(&ctx->nl, dpf, OVS_DP_CMD_GET,
			      OVS_DATAPATH_VERSION, NLM_F_DUMP, &oh, sizeof(oh),
			      dp_cb, d);
	if (err)
		return ctl_fail("datapaths", err);
	for (unsigned i = 0; with_ports && i < d->n; i++) {
		oh.dp_ifindex = d->dp[i].ifindex;
		err = gclient_request(&ctx->nl, vportf, OVS_VPORT_CMD_GET,
				      OVS_VPORT_VERSION, NLM_F_DUMP, &oh,
				      sizeof(oh), port_cb, &d->dp[i]);
		if (err && err != -ENODEV)
			return ctl_fail("ports", err);
	}
	return 0;
}

void
ctl_dps_free(struct ctl_dps *d)
{
	for (unsigned i = 0; i < d->n; i++)
		free(d->dp[i].ports);
	free(d->dp);
	*d = (struct ctl_dps){ 0 };
}

const char *
ctl_port_type(uint32_t type)
{
	static const char *const names[] = {
		[OVS_VPORT_TYPE_NETDEV] = "netdev",
		[OVS_VPORT_TYPE_INTERNAL] = "internal",
		[OVS_VPORT_TYPE_GRE] = "gre",
		[OVS_VPORT_TYPE_VXLAN] = "vxlan",
		[OVS_VPORT_TYPE_GENEVE] = "geneve",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type]
		       ? names[type] : "unknown";
}
