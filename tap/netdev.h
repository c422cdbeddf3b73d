/* SPDX-License-Identifier: Apache-2.0 */
/* Facts about the host's network devices, asked of the kernel: index, kind,
 * statistics. Each call opens its own short-lived socket: thread-safe. */
#ifndef TAPDP_NETDEV_H
#define TAPDP_NETDEV_H

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the kernel would register a device of that name (its
 * dev_valid_name(): not empty, shorter than IFNAMSIZ, not "." or "..", no
 * '/', ':' or white space). */
bool netdev_valid_name(const char *name);
/* 0 if there is no such device. */
int netdev_ifindex(const char *name);
/* Whether the device called name in the namespace netnsid names (< 0:
 * ours) may be a netdev port: 0 with its index and MTU, or -ENODEV /
 * -EINVAL (loopback, not Ethernet-like) as the kernel's netdev vport
 * would answer; -EAFNOSUPPORT for a collect-metadata tunnel device, which
 * the daemon serves as a tunnel port of its own devices only. */
int netdev_check_attachable(int netnsid, const char *name, int *ifindex,
			    uint32_t *mtu);
/* Device facts in another namespace: netnsid is its id in ours
 * (NETNSA_NSID_NOT_ASSIGNED, -1: our own). */
int netdev_get_stats(int netnsid, int ifindex,
		     struct rtnl_link_stats64 *stats);
/* Asks the kernel a copy of the request req (its ACK and echo flags
 * dropped) in the namespace of nsfd (-1: ours; another through the
 * namespace agent, common/ns-socket.h) and copies the one message it
 * answers with into buf: its length, or the kernel's error, or -EMSGSIZE
 * when it does not fit. */
int netdev_rtnl_query(int nsfd, const struct nlmsghdr *req, void *buf,
		      size_t cap);
/* Hands the kernel the request req there, made acknowledged and not
 * echoed in place: 0 or the kernel's error. */
int netdev_rtnl_do(int nsfd, struct nlmsghdr *req);
/* Has the kernel tell link listeners of the device of index ifindex in
 * nsfd's namespace (-1: ours) again, changing nothing: its alias set to
 * what it is, which do_setlink announces with an RTM_NEWLINK whatever
 * the value. As the kernel tells them when it links a device to a
 * master or unlinks it. 0 or -errno. */
int netdev_announce(int nsfd, int ifindex);
/* The MTU an RTM_NEWLINK message carries (0: none). */
uint32_t netdev_link_mtu(const struct nlmsghdr *nlh);
/* The name it carries, into name (IFNAMSIZ bytes): false if none. */
bool netdev_link_name(const struct nlmsghdr *nlh, char *name);
/* The name the device of index ifindex has now, into name (IFNAMSIZ
 * bytes): 0 or -errno. */
int netdev_index_name(int netnsid, int ifindex, char *name);
/* The address and MTU of the device of index ifindex. */
int netdev_lookup_index(int netnsid, int ifindex, uint8_t mac[6],
			uint32_t *mtu);
/* The index and MTU of the device called name. */
int netdev_lookup(int netnsid, const char *name, int *ifindex, uint32_t *mtu);
/* The id our namespace has for the namespace nsfd refers to (one is
 * assigned if it has none, as the kernel does when it reports a peer), or
 * NETNSA_NSID_NOT_ASSIGNED if that is our own. 0 or -errno. */
int netdev_netnsid(int nsfd, int *netnsid);
/* The id namespace target has for namespace peer (both named by their
 * ids in ours, NETNSA_NSID_NOT_ASSIGNED for ours), as the kernel's
 * peernet2id() says it: NETNSA_NSID_NOT_ASSIGNED when it has none. Asks,
 * never assigns. 0 or -errno. */
int netdev_netnsid_from(int target, int peer, int *netnsid);
/* Moves the device ifindex (> 0) to the namespace nsfd refers to, called
 * name there, and up there if asked (one step: the kernel's
 * dev_change_net_namespace() with a name, then the flags; a move alone
 * leaves it down). -EEXIST when the name is taken there. */
int netdev_move(int ifindex, int nsfd, const char *name, bool up);
int netdev_set_promisc(const char *name, bool on);
int netdev_set_up(const char *name, bool up);
int netdev_set_mtu(const char *name, uint32_t mtu);
int netdev_set_mac(const char *name, const uint8_t mac[6]);
/* Whether the kernel has a driver for devices of kind: asked with a
 * creation it refuses either way (a name no device may have: a driver's
 * checks refuse it, EINVAL; without a driver, rtnetlink's EOPNOTSUPP). */
bool netdev_kind_known(const char *kind);
/* The namespace's ephemeral ports, as UDP tunnels pick source ports
 * from: min to max - 1 (net.ipv4.ip_local_port_range). */
void netdev_local_port_range(uint16_t *min, uint16_t *max);
/* The device's MTU, or -errno. */
int netdev_get_mtu(const char *name);

#endif
