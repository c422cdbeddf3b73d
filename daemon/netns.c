/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/netns.h"

#include <errno.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/log.h"
#include "datapath/datapath.h"
#include "datapath/dp-notify.h"
#include "netlink/server.h"
#include "vport/netdev.h"
#include "vport/vport.h"

struct netns_ctx {
	uint64_t cookie;		/* the namespace's (SO_NETNS_COOKIE) */
	int netnsid;			/* its id in ours */
	int nsfd;			/* while it has clients, else -1 */
	unsigned clients;
	struct dp_net *net;
};

static struct netns_ctx **ctxs;
static size_t n_ctxs;
static struct dp_net_config ctx_cfg;
static const struct vport_ops *(*base_ops)(enum ovs_vport_type type);

static const struct vport_ops *
internal_only(enum ovs_vport_type type)
{
	return type == OVS_VPORT_TYPE_INTERNAL ? base_ops(type) : NULL;
}

static struct netns_ctx *
ctx_by_net(const void *net)
{
	for (size_t i = 0; i < n_ctxs; i++)
		if (ctxs[i]->net == net)
			return ctxs[i];
	return NULL;
}

static void
ctx_free(struct netns_ctx *ctx)
{
	for (size_t i = 0; i < n_ctxs; i++) {
		if (ctxs[i] == ctx) {
			ctxs[i] = ctxs[--n_ctxs];
			break;
		}
	}
	dp_notify_remove(ctx->net);
	dp_net_destroy(ctx->net);
	if (ctx->nsfd >= 0)
		close(ctx->nsfd);
	free(ctx);
}

/* The namespace fd's socket was opened in: the kernel's SIOCGSKNS, which
 * asks CAP_NET_ADMIN over it, as a datapath of its own would. */
static int
netns_of(int fd)
{
	int nsfd = ioctl(fd, SIOCGSKNS);

	return nsfd < 0 ? -errno : nsfd;
}

static struct netns_ctx *
ctx_new(int fd, uint64_t cookie, int *errp)
{
	struct netns_ctx *ctx, **grown;
	int nsfd = netns_of(fd), err;

	if (nsfd < 0) {
		log_warn("a client's namespace (cookie %llu) cannot be had: "
			 "%s", (unsigned long long)cookie, strerror(-nsfd));
		*errp = nsfd;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	grown = realloc(ctxs, (n_ctxs + 1) * sizeof(*ctxs));
	if (grown)
		ctxs = grown;
	err = ctx && grown ? netdev_netnsid(nsfd, &ctx->netnsid) : -ENOMEM;
	if (!err && ctx->netnsid < 0)
		err = -ENOENT;
	if (!err) {
		ctx->net = dp_net_new(&ctx_cfg);
		err = ctx->net ? dp_notify_add(ctx->net) : -ENOMEM;
	}
	if (err) {
		log_warn("a client's namespace (cookie %llu) cannot be "
			 "served: %s", (unsigned long long)cookie,
			 strerror(-err));
		if (ctx)
			dp_net_destroy(ctx->net);
		free(ctx);
		close(nsfd);
		*errp = err;
		return NULL;
	}
	/* Ids are unique among the living: a context with this one is of a
	 * namespace that went, whose RTM_DELNSID we have not read yet (and
	 * which finds this one alive, netns_gone). */
	for (size_t i = 0; i < n_ctxs; i++) {
		if (ctxs[i]->netnsid == ctx->netnsid) {
			ctx_free(ctxs[i]);
			break;
		}
	}
	ctx->cookie = cookie;
	ctx->nsfd = nsfd;
	dp_net_set_namespace(ctx->net, ctx->netnsid, nsfd);
	ctxs[n_ctxs++] = ctx;
	log_dbg("namespace %d: a context made for its clients", ctx->netnsid);
	return ctx;
}

static void *
ctx_attach(int fd, uint64_t cookie, int *err)
{
	struct netns_ctx *ctx = NULL;

	for (size_t i = 0; i < n_ctxs && !ctx; i++)
		if (ctxs[i]->cookie == cookie)
			ctx = ctxs[i];
	if (!ctx) {
		ctx = ctx_new(fd, cookie, err);
		if (!ctx)
			return NULL;
	} else if (!ctx->clients) {
		int nsfd = netns_of(fd);

		if (nsfd < 0) {
			*err = nsfd;
			return NULL;
		}
		ctx->nsfd = nsfd;
		dp_net_set_namespace(ctx->net, ctx->netnsid, nsfd);
	}
	ctx->clients++;
	return ctx->net;
}

/* With no client, the fd goes, so that the namespace can go: the kernel's
 * datapaths do not hold their namespace. */
static void
ctx_detach(void *net)
{
	struct netns_ctx *ctx = ctx_by_net(net);

	if (!ctx || --ctx->clients)
		return;
	close(ctx->nsfd);
	ctx->nsfd = -1;
	dp_net_set_namespace(ctx->net, ctx->netnsid, -1);
	if (dp_net_idle(ctx->net)) {
		log_dbg("namespace %d: no client left, nothing kept",
			ctx->netnsid);
		ctx_free(ctx);
	}
}

static const struct server_netns hooks = {
	.attach = ctx_attach,
	.detach = ctx_detach,
};

const struct server_netns *
netns_hooks(const struct dp_net_config *cfg)
{
	ctx_cfg = *cfg;
	base_ops = cfg->port_ops ? cfg->port_ops : vport_ops_for;
	ctx_cfg.port_ops = internal_only;
	return &hooks;
}

/* An id's RTM_DELNSID may come after the id was given again, to a
 * namespace with a context: each is asked whether its namespace is still
 * there. With events lost (netnsid < 0), those holding datapaths are. */
void
netns_gone(int netnsid)
{
	for (size_t i = 0; i < n_ctxs;) {
		struct netns_ctx *ctx = ctxs[i];
		bool asked = netnsid < 0 ? dp_at(ctx->net, 0) != NULL
					 : ctx->netnsid == netnsid;

		/* Its clients' sockets hold it: it cannot go before them. */
		if (asked && !ctx->clients && !dp_net_home_alive(ctx->net)) {
			log_info("namespace %d is gone, and its datapaths "
				 "with it", ctx->netnsid);
			ctx_free(ctx);
			continue;
		}
		i++;
	}
}

void
netns_destroy_all(void)
{
	while (n_ctxs)
		ctx_free(ctxs[0]);
	free(ctxs);
	ctxs = NULL;
}
