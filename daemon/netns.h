/* SPDX-License-Identifier: Apache-2.0 */
/* The contexts of the network namespaces other than the daemon's, as the
 * kernel keeps a datapath's state per namespace (its pernet init and
 * exit): one per namespace a client's socket was opened in, made at its
 * first client, its datapaths' ports made in it. It goes when the
 * namespace goes (the kernel's RTM_DELNSID for the id our namespace gave
 * it), or as soon as its last client closes while it holds nothing.
 *
 * Such a context holds internal ports only: a TAP device made here and
 * moved there. Its netdev and tunnel ports would need sockets opened in
 * that namespace (docs/ARCHITECTURE.md, "Namespaces"); they are refused
 * as a type the kernel lacks (EAFNOSUPPORT), never served by the
 * daemon's namespace's devices.
 *
 * Its state is journaled (datapath/journal.h) from the first time its
 * admin is a client (when it gets an id), in a journal of its own the
 * keeper holds with the id, as its ports' TAP queues. A successor makes
 * it again at start (netns_take_over) in the namespace where those
 * devices are, claiming them back; one whose devices went, went with
 * its namespace, and its journal is let go.
 *
 * Everything here runs on the server's loop under the control lock. */
#ifndef TAPDP_DAEMON_NETNS_H
#define TAPDP_DAEMON_NETNS_H

struct dp_net_config;
struct server_netns;

/* The server's hooks (genl-server/server.h) making contexts like cfg (whose
 * port_ops is replaced). */
const struct server_netns *netns_hooks(const struct dp_net_config *cfg);
/* Makes again the contexts a dead predecessor left journals of, before
 * its clients are taken back (families registered). How many. */
unsigned netns_take_over(void);
/* For dp_notify_open(): the namespace with id netnsid in ours is gone. */
void netns_gone(int netnsid);
/* Destroys every context (the daemon stops). */
void netns_destroy_all(void);

#endif
