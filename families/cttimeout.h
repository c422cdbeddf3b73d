/* SPDX-License-Identifier: Apache-2.0 */
/* The timeout-policy part of NETLINK_NETFILTER (cttimeout), as the
 * kernel's nfnetlink_cttimeout answers it, for the daemon's connection
 * tracker: IPCTNL_MSG_TIMEOUT_NEW (create; replace with NLM_F_REPLACE),
 * GET (by name, or a dump) and DELETE (by name, or all), with the
 * kernel's attributes and errnos. The per-protocol defaults
 * (TIMEOUT_DEFAULT_SET/GET) are not served (-EOPNOTSUPP).
 *
 * Threads: the control thread. */
#ifndef TAPDP_CTTIMEOUT_H
#define TAPDP_CTTIMEOUT_H

struct ct_timeout_table;
struct dp_net;
struct extack;
struct nlmsghdr;
struct nlsock;

/* Answers one NFNL_SUBSYS_CTNETLINK_TIMEOUT request from sk (whose
 * CAP_NET_ADMIN and nfgenmsg the caller checked) from the policies of
 * sk's tracker, t. */
int cttimeout_msg(struct nlsock *sk, const struct nlmsghdr *nlh,
		  struct ct_timeout_table *t, struct extack *ack);
/* The journal's records (datapath/journal.h) of t's policies, net's. */
void cttimeout_journal(const struct dp_net *net, struct ct_timeout_table *t);

#endif
