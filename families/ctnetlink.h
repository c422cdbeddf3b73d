/* SPDX-License-Identifier: Apache-2.0 */
/* The conntrack part of NETLINK_NETFILTER (ctnetlink), as the kernel's
 * nf_conntrack_netlink answers it for the daemon's connection tracker: the
 * requests `ovs-dpctl dump-conntrack`, `flush-conntrack` (all, a zone, a
 * tuple) and `ct-stats-show` send, and those of the `conntrack` tool:
 * connections created (NAT and helpers included) and changed (CT_NEW),
 * the table's count and limit, the counters as one CPU's (the tracker
 * keeps no others; those it does not count are 0), and the expectation
 * subsystem (the helpers' expectations listed, got, deleted, added).
 * Connections are listed with the kernel's attributes in its order. The
 * tracker's events go to the sockets in the NFNLGRP_CONNTRACK_NEW, UPDATE
 * and DESTROY groups, as ctnetlink_conntrack_event() sends them, its
 * expectations' to NFNLGRP_CONNTRACK_EXP_NEW and EXP_DESTROY.
 *
 * Threads: the control thread; events from any thread. */
#ifndef TAPDP_CTNETLINK_H
#define TAPDP_CTNETLINK_H

#include <stddef.h>

struct conntrack;
struct dp_net;
struct nlsock;

/* Processes one datagram from a NETLINK_NETFILTER socket: its conntrack
 * and expectation messages here, its timeout-policy ones in families/cttimeout.c. */
void ctnetlink_rcv(struct nlsock *sk, const void *buf, size_t len);

/* Sends ct's events to the conntrack groups of net, the context ct
 * belongs to. */
void ctnetlink_attach(struct conntrack *ct, void *net);
/* The journal's records of every connection now (datapath/journal.h). */
void ctnetlink_journal(struct dp_net *net, struct conntrack *ct);

#endif
