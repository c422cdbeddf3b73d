/* Facts about the host's network devices, asked of the kernel: index, kind,
 * statistics. Each call opens its own short-lived socket: thread-safe. */
#ifndef TAPDP_NETDEV_H
#define TAPDP_NETDEV_H

#include <linux/if_link.h>
#include <stdbool.h>

/* Whether the kernel would register a device of that name (its
 * dev_valid_name(): not empty, shorter than IFNAMSIZ, not "." or "..", no
 * '/', ':' or white space). */
bool netdev_valid_name(const char *name);
/* 0 if there is no such device. */
int netdev_ifindex(const char *name);
/* 0, or -ENODEV / -EINVAL (loopback, not Ethernet-like) as the kernel's
 * netdev vport would answer. */
int netdev_check_attachable(const char *name);
int netdev_get_stats(int ifindex, struct rtnl_link_stats64 *stats);
int netdev_set_promisc(const char *name, bool on);
/* The device's MTU, or -errno. */
int netdev_get_mtu(const char *name);

#endif
