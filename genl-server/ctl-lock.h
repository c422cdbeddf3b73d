/* SPDX-License-Identifier: Apache-2.0 */
/* The control lock: what the other headers call "the control thread" is
 * whichever thread holds it. It guards the state requests change and walk
 * (datapaths, ports, the flow table's writers, meters, dumps, the
 * sockets' registry, the journal, the keeper), as the kernel's ovs_mutex
 * and genl_mutex do. The server's threads take it for every request and
 * event, except the generic netlink operations marked unlocked
 * (genl.h), which run under RCU alone, as the kernel runs a packet
 * execute; packet threads never take it.
 *
 * Recursive: code that holds it may call what takes it. Threads: any. */
#ifndef TAPDP_NETLINK_CTL_LOCK_H
#define TAPDP_NETLINK_CTL_LOCK_H

void ctl_lock(void);
void ctl_unlock(void);

#endif
