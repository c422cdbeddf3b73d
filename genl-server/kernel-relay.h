/* SPDX-License-Identifier: Apache-2.0 */
/* Relaying nlctrl requests about families the daemon does not serve to the
 * running kernel, so that a preloaded client still finds them (the shim then
 * sends their own requests straight to the kernel).
 *
 * The request goes out on the daemon's own kernel socket; every datagram of
 * the answer (reply, dump parts, ACK or error) is handed to the client with
 * its sequence number and portid, as if the kernel had answered it.
 * Control thread only. */
#ifndef TAPDP_KERNEL_RELAY_H
#define TAPDP_KERNEL_RELAY_H

#include <linux/netlink.h>
#include <stdbool.h>

struct nlsock;

/* Return false to leave a message of the answer out. */
typedef bool kernel_relay_filter(const struct nlmsghdr *nlh);

/* 0 once the whole answer was relayed (ACK or error included), or a
 * negative errno if the kernel could not be asked. */
int kernel_relay(struct nlsock *sk, const struct nlmsghdr *req,
		 kernel_relay_filter *keep);
void kernel_relay_close(void);

#endif
