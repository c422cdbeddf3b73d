/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's link messages as they would read if the daemon's devices
 * were the kernel's own (server_set_route's view, and the daemon's own
 * GETLINK answers).
 *
 * The kernel knows the daemon's devices as TAPs, and knows nothing of
 * its datapaths. openvswitch.ko's answers differ: an internal port is of
 * kind "openvswitch"; the device of any other port has the datapath's
 * local port as its master (IFLA_MASTER, and IFLA_INFO_SLAVE_KIND
 * "openvswitch" in its link info), set by netdev_master_upper_dev_link()
 * when the port is added; a tunnel or VLAN device has its driver's link
 * info (and a VLAN device its lower device as IFLA_LINK). RTM_DELLINK
 * names no master: the kernel detaches the port before it builds it.
 *
 * Every message is read with its length checked against what is left;
 * one that is not a link message, or names no device of the daemon's,
 * is copied as it is (its length aligned). Control thread only. */
#ifndef TAPDP_FAMILIES_LINK_VIEW_H
#define TAPDP_FAMILIES_LINK_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "genl-server/msg.h"

struct dp_net;
struct tnl_dev;
struct vlan_dev;

/* What the kernel would say of one device. */
struct link_as {
	const struct tnl_dev *tdev;	/* its driver's link info */
	const struct vlan_dev *vdev;	/* the vlan driver's, IFLA_LINK */
	bool internal;			/* an internal port: kind openvswitch */
	int master;			/* a port's datapath's local port */
};

/* The link messages (RTM_NEWLINK, RTM_DELLINK) of a datagram the kernel
 * gave a client of net's namespace as they would be, every other message
 * as it is, into mb: 1 when one changed, 0 when none did, -EMSGSIZE when
 * mb is too small. */
int link_view(const struct dp_net *net, const void *buf, size_t len,
	      struct msgbuf *mb);
/* One link message nlh (its ifinfomsg there: the caller checked) as as
 * says, into mb; msgbuf_end() is the caller's. */
void link_view_msg(struct msgbuf *mb, const struct nlmsghdr *nlh,
		   const struct link_as *as);

#endif
