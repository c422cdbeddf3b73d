/* SPDX-License-Identifier: Apache-2.0 */
/* The contexts of the network namespaces other than the daemon's, as the
 * kernel keeps a datapath's state per namespace (its pernet init and
 * exit): one per namespace a client's socket was opened in, made at its
 * first client, its datapaths' ports made in it. It goes when the
 * namespace goes (the kernel's RTM_DELNSID for the id our namespace gave
 * it), or as soon as its last client closes while it holds nothing.
 *
 * Such a context's internal ports are TAP devices made here and moved
 * there. Its netdev ports' packet sockets are opened there by the
 * namespace agent (common/ns-socket.h), and hold the namespace, as the
 * kernel's do not: while it has no client, such a context asks the agent
 * now and then whether anything else still holds it, and lets its
 * datapaths go when nothing does, as the kernel's pernet exit would
 * (netns_reap). Tunnel ports are refused as a type the kernel lacks
 * (EAFNOSUPPORT), never served by the daemon's namespace's devices.
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
/* Once a second: the contexts without clients whose ports' sockets hold
 * their namespace, each gone with its datapaths if nothing else holds it
 * (the agent's answer); a context whose last such port went lets the
 * namespace go. */
void netns_reap(void);
/* Destroys every context (the daemon stops). */
void netns_destroy_all(void);

#endif
