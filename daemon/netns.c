/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/netns.h"

#include <errno.h>
#include <linux/net_namespace.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/keep.h"
#include "common/log.h"
#include "common/ns-socket.h"
#include "datapath/datapath.h"
#include "families/dp-notify.h"
#include "datapath/journal.h"
#include "genl-server/server.h"
#include "tap/netdev.h"
#include "tap/tap.h"
#include "tap/vport.h"

struct netns_ctx {
	uint64_t cookie;		/* the namespace's (SO_NETNS_COOKIE) */
	int netnsid;			/* its id in ours, once its admin was
					 * a client (else NOT_ASSIGNED) */
	int nsfd;			/* while it has clients or holds
					 * the namespace, else -1 */
	unsigned clients;
	struct dp_net *net;
	uint64_t keep_id;		/* its journal's keeper entry, or 0 */
};

static struct netns_ctx **ctxs;
static size_t n_ctxs;
static struct dp_net_config ctx_cfg;

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
	/* After its journal closed: a successor finds nothing of it. */
	keep_drop(ctx->keep_id);
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

/* A context for namespace cookie, with no id and no fd yet. */
static struct netns_ctx *
ctx_new(uint64_t cookie)
{
	struct netns_ctx *ctx = calloc(1, sizeof(*ctx)), **grown;

	grown = realloc(ctxs, (n_ctxs + 1) * sizeof(*ctxs));
	if (grown)
		ctxs = grown;
	if (ctx && grown) {
		ctx->net = dp_net_new(&ctx_cfg);
		if (ctx->net && !dp_notify_add(ctx->net)) {
			dp_net_set_namespace(ctx->net,
					     NETNSA_NSID_NOT_ASSIGNED, -1);
			ctx->cookie = cookie;
			ctx->netnsid = NETNSA_NSID_NOT_ASSIGNED;
			ctx->nsfd = -1;
			ctxs[n_ctxs++] = ctx;
			return ctx;
		}
		dp_net_destroy(ctx->net);
	}
	free(ctx);
	return NULL;
}

/* ctx's state is journaled from now on, in a journal the keeper holds:
 * without one (no memory), it is not kept across a restart. */
static void
ctx_journal(struct netns_ctx *ctx)
{
	struct keep_netns meta = { .cookie = ctx->cookie,
				   .netnsid = ctx->netnsid };
	int err = journal_open(ctx->net, -1), fds[2];
	unsigned n;

	if (err) {
		log_warn("namespace %d: no journal (%s): its datapaths will "
			 "not outlive the daemon", ctx->netnsid, strerror(-err));
		return;
	}
	n = journal_keep_fds(ctx->net, fds);
	ctx->keep_id = keep_put(KEEP_JOURNAL, fds, n, &meta, sizeof(meta));
}

/* Our namespace's id for ctx's (one is given if it has none). Only a
 * namespace whose admin is a client gets one: with it come its link
 * events (NETLINK_LISTEN_ALL_NSID), which no user should pour into ours
 * from a namespace of its own that can hold nothing. */
static int
ctx_give_id(struct netns_ctx *ctx)
{
	int id, err = netdev_netnsid(ctx->nsfd, &id);

	if (!err && id < 0)
		err = -ENOENT;
	if (err) {
		log_warn("a client's namespace (cookie %llu) has no id here: "
			 "%s", (unsigned long long)ctx->cookie, strerror(-err));
		return err;
	}
	/* Ids are unique among the living: a context with this one is of a
	 * namespace that went, whose RTM_DELNSID we have not read yet (and
	 * which finds this one alive, netns_gone). */
	for (size_t i = 0; i < n_ctxs; i++) {
		if (ctxs[i] != ctx && ctxs[i]->netnsid == id) {
			ctx_free(ctxs[i]);
			break;
		}
	}
	ctx->netnsid = id;
	log_dbg("namespace %d: its admin is a client", id);
	ctx_journal(ctx);
	return 0;
}

/* With no client, the fd goes, so that the namespace can go: the kernel's
 * datapaths do not hold their namespace. Nor does a context that holds
 * nothing stay. One whose ports' sockets hold the namespace keeps it, to
 * see when nothing else does (netns_reap). */
static void
ctx_unused(struct netns_ctx *ctx)
{
	if (dp_net_holds_namespace(ctx->net))
		return;
	if (ctx->nsfd >= 0)
		close(ctx->nsfd);
	ctx->nsfd = -1;
	dp_net_set_namespace(ctx->net, ctx->netnsid, -1);
	if (dp_net_idle(ctx->net))
		ctx_free(ctx);
}

static void *
ctx_attach(int fd, uint64_t cookie, bool admin, int *err)
{
	struct netns_ctx *ctx = NULL;

	for (size_t i = 0; i < n_ctxs && !ctx; i++)
		if (ctxs[i]->cookie == cookie)
			ctx = ctxs[i];
	if (!ctx) {
		ctx = ctx_new(cookie);
		if (!ctx) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	if (ctx->nsfd < 0) {
		ctx->nsfd = netns_of(fd);
		*err = ctx->nsfd < 0 ? ctx->nsfd : 0;
	}
	if (!*err && admin && ctx->netnsid < 0)
		*err = ctx_give_id(ctx);
	if (*err) {
		if (!ctx->clients)
			ctx_unused(ctx);
		return NULL;
	}
	ctx->clients++;
	dp_net_set_namespace(ctx->net, ctx->netnsid, ctx->nsfd);
	return ctx->net;
}

static void
ctx_detach(void *net)
{
	struct netns_ctx *ctx = ctx_by_net(net);

	if (ctx && !--ctx->clients)
		ctx_unused(ctx);
}

static const struct server_netns hooks = {
	.attach = ctx_attach,
	.detach = ctx_detach,
};

const struct server_netns *
netns_hooks(const struct dp_net_config *cfg)
{
	ctx_cfg = *cfg;
	/* Every type, made there (tap/vport.h): internal ports always, the
	 * others while the namespace agent serves. */
	ctx_cfg.port_ops = cfg->port_ops ? cfg->port_ops : vport_ops_for;
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
netns_reap(void)
{
	pid_t ours = getpid();

	for (size_t i = 0; i < n_ctxs;) {
		struct netns_ctx *ctx = ctxs[i];

		if (ctx->clients || ctx->nsfd < 0) {
			i++;
			continue;
		}
		if (!dp_net_holds_namespace(ctx->net)) {
			/* Its last such port went since. */
			ctx_unused(ctx);
			i += i < n_ctxs && ctxs[i] == ctx;
			continue;
		}
		if (ns_held(ctx->nsfd, &ours, 1) == 0) {
			log_info("namespace %d: nothing but the daemon's own "
				 "sockets hold it: its datapaths and devices "
				 "go, as the kernel's do with it", ctx->netnsid);
			ctx_free(ctx);
			continue;
		}
		i++;
	}
}

static bool
is_netns_journal(const struct keep_entry *e, void *arg)
{
	return (e->n_fds == 1 || e->n_fds == 2) &&
	       e->meta_len == sizeof(struct keep_netns);
}

/* A context again from a journal e a predecessor kept, in the namespace
 * its ports' devices are in. */
static void
ctx_take_over(struct keep_entry *e)
{
	struct netns_ctx *ctx = NULL;
	bool stats_taken = false, renewed;
	struct keep_netns meta;
	int nsfd, failed;

	memcpy(&meta, e->meta, sizeof(meta));
	nsfd = tap_kept_netns(meta.netnsid);
	if (nsfd < 0) {
		log_info("namespace %d went while no daemon served it: its "
			 "datapaths went with it", meta.netnsid);
		goto drop;
	}
	ctx = ctx_new(meta.cookie);
	if (!ctx)
		goto drop;
	ctx->netnsid = meta.netnsid;
	ctx->nsfd = nsfd;
	nsfd = -1;
	dp_net_set_namespace(ctx->net, ctx->netnsid, ctx->nsfd);
	stats_taken = true;
	if (journal_open_kept(ctx->net, e->fds, e->n_fds, &renewed))
		goto drop;
	ctx->keep_id = e->id;
	if (renewed) {
		int fds[2];
		unsigned n = journal_keep_fds(ctx->net, fds);

		keep_update(e->id, fds, n, &meta, sizeof(meta));
	}
	failed = journal_replay(ctx->net);
	log_info("namespace %d: its journal replayed: %u records, %d failed",
		 ctx->netnsid, journal_records(ctx->net), failed);
	ctx_unused(ctx);
	return;
drop:
	if (ctx)
		ctx_free(ctx);
	if (nsfd >= 0)
		close(nsfd);
	close(e->fds[0]);
	if (e->n_fds > 1 && !stats_taken)
		close(e->fds[1]);
	keep_drop(e->id);
}

unsigned
netns_take_over(void)
{
	struct keep_entry *e;
	unsigned n = 0;

	while ((e = keep_claim(KEEP_JOURNAL, is_netns_journal, NULL))) {
		ctx_take_over(e);
		n++;
	}
	return n;
}

void
netns_destroy_all(void)
{
	while (n_ctxs)
		ctx_free(ctxs[0]);
	free(ctxs);
	ctxs = NULL;
}
