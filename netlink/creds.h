/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a shim connection may change things: the kernel grants
 * CAP_NET_ADMIN's commands by the credentials of whoever opened the netlink
 * socket, fixed when it was opened (file_ns_capable on the socket's file),
 * not by what the process is later. The shim opens a real NETLINK_ROUTE
 * socket alongside each emulated one and hands it over; the daemon asks the
 * kernel, through that socket, to answer a request that needs
 * CAP_NET_ADMIN and changes nothing. So a process that execs a setuid
 * program after connecting, or hands its connection to another, keeps the
 * privilege it had when it opened the socket, as with the kernel.
 *
 * The kernel checks the sender of each message too (netlink_ns_capable:
 * file_ns_capable of the socket's opener and ns_capable of the current
 * task), so that a socket handed to another process grants it nothing it
 * lacks. The server learns each request's sender from the kernel
 * (SCM_CREDENTIALS) and asks creds_sender_net_admin().
 *
 * Any thread; the fd stays the caller's. */
#ifndef TAPDP_CREDS_H
#define TAPDP_CREDS_H

#include <stdbool.h>
#include <sys/types.h>

/* fd: a netlink socket the client opened. False for anything else, or
 * when the kernel refuses, or does not answer, the probe. */
bool creds_opener_net_admin(int fd);
/* Whether process pid, whose real uid the kernel gave as uid, holds
 * CAP_NET_ADMIN in the daemon's user namespace: its effective set, when
 * it lives in that namespace (its uid_map reads as the daemon's own) and
 * is still the process of that uid. False when /proc does not say. */
bool creds_sender_net_admin(pid_t pid, uid_t uid);

#endif
