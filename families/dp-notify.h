/* SPDX-License-Identifier: Apache-2.0 */
/* The datapath's side of the kernel's device events (dp_notify.c): a
 * netdev port whose device is deleted or moved away is detached, an
 * internal port's device may move and stays attached, a local port's
 * device gone takes its datapath, MTU changes are followed. Also runs the
 * datapaths' periodic work. Everything here runs on the control thread,
 * from the netlink server's loop. */
#ifndef TAPDP_DATAPATH_DP_NOTIFY_H
#define TAPDP_DATAPATH_DP_NOTIFY_H

struct dp_net;

/* Subscribes to link events (of every namespace with an id) and the ports'
 * error events, on the server's loop, for net's datapaths (the daemon's
 * namespace's context). gone(netnsid) is told when a namespace with an id
 * in ours goes (the id may have been given again since), and
 * gone(NETNSA_NSID_NOT_ASSIGNED) when events were lost: any may have. 0
 * or -errno. */
int dp_notify_open(struct dp_net *net, void (*gone)(int netnsid));
/* Another namespace's context, whose ports' devices it follows too until
 * removed. 0 or -ENOMEM. */
int dp_notify_add(struct dp_net *net);
void dp_notify_remove(struct dp_net *net);
void dp_notify_close(void);

#endif
