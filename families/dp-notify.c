/* SPDX-License-Identifier: Apache-2.0 */
/* Device events: what the datapath does when a port's device is deleted,
 * moved to another namespace, or changes its MTU (the kernel's dp_notify.c),
 * and the periodic work of the datapaths. */
#define _GNU_SOURCE
#include "families/dp-notify.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/server.h"
#include "tap/netdev.h"
#include "tap/tnl-dev.h"

/* The kernel rebalances its mask arrays every 4 s. */
#define PERIODIC_MS 4000

static struct mnl_socket *rtnl;
/* The contexts whose ports' devices it follows: the daemon's namespace's
 * first, then those of other namespaces (dp_notify_add). */
static struct dp_net **nets;
static size_t n_nets;
static void (*netns_gone)(int netnsid);

/* Lets port go, its device gone (why): the journal forgets it; the vport
 * group is told if notify. */
static void
port_detach(struct dp_port *port, const char *why, bool notify)
{
	log_info("%s: port %u %s: %s, detaching", dp_name(port->dp),
		 port->port_no, dp_port_name(port), why);
	vport_family_gone(port, notify);
	dp_port_del(port);
}

/* RTM_DELLINK: a port's device was deleted, or moved to another namespace.
 * The kernel detaches a netdev port either way; an internal port's device
 * may move and stays attached (only the local port's may not: the kernel
 * refuses to move it). */
static void
port_gone(struct dp_net *net, int netnsid, int ifindex)
{
	struct dp_port *port = dp_port_by_ifindex(net, netnsid, ifindex);
	struct datapath *dp;
	int err;

	if (!port)
		return;
	dp = port->dp;
	if (port->port_no == OVSP_LOCAL) {
		log_warn("%s: local port device deleted or moved away, "
			 "deleting the datapath", dp_name(dp));
		dp_family_notify_gone(dp);
		dp_destroy(dp);
		return;
	}
	if (port->type == OVS_VPORT_TYPE_INTERNAL) {
		err = vport_locate(port->vport);
		if (!err) {
			dp_port_changed(port);
			log_info("%s: port %u %s: device moved (netns id %d, "
				 "index %d), still attached", dp_name(dp),
				 port->port_no, dp_port_name(port),
				 port->vport->netnsid, port->vport->ifindex);
			return;
		}
		if (err != -ENODEV) {
			log_warn("%s: port %u %s: device moved, cannot tell "
				 "where: %s", dp_name(dp), port->port_no,
				 dp_port_name(port), strerror(-err));
			return;
		}
	}
	port_detach(port, "device deleted or moved away", true);
}

/* Internal ports whose TAP device reports an error and is nowhere: destroyed
 * with the namespace it had been moved to, where the daemon sees no link
 * event (the kernel detaches those ports as the namespace exits, with no
 * notification), or deleted (ip link del, which the kernel refuses for its
 * internal devices and a TAP device cannot) in the daemon's namespace,
 * whose RTM_DELLINK may come after: detached as a netdev port whose device
 * is deleted, with the notification. Either way the journal forgets the
 * port, or a restarted daemon would make it again. */
static void
ports_lost_in(struct dp_net *net)
{
	for (unsigned i = 0; dp_at(net, i); i++) {
		struct datapath *dp = dp_at(net, i);
		uint32_t p = OVSP_LOCAL + 1;
		struct dp_port *port;

		for (; (port = dp_port_next(dp, &p)); p++) {
			bool home = port->vport->netnsid ==
				    dp_net_netnsid(net);

			if (!vport_take_error(port->vport) ||
			    vport_locate(port->vport) != -ENODEV)
				continue;
			if (home)
				port_detach(port, "device deleted or moved "
					    "away", true);
			else
				port_detach(port, "device destroyed with its "
					    "namespace", false);
		}
	}
}

static void
ports_lost(void *arg)
{
	uint64_t n;

	if (read(vport_error_fd(), &n, sizeof(n)) < 0)
		return;
	for (size_t i = 0; i < n_nets; i++)
		ports_lost_in(nets[i]);
}

/* A tunnel device made over rtnetlink deleted (or moved away) without
 * the shim: its entry goes too, so that the name may be made again.
 * (port_gone has detached a port on it; a compat port's device went with
 * its port.) */
static void
tunnel_dev_gone(int ifindex)
{
	struct tnl_dev *dev = tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, ifindex,
					   NULL);

	if (dev && !netdev_ifindex(dev->name)) {
		log_info("tunnel device %s deleted or moved away", dev->name);
		rtnl_link_journal_del(n_nets ? nets[0] : NULL, dev);
		tnl_dev_destroy(dev);
	}
}

/* A port's device changed: its sends follow its MTU; it goes by the
 * device's new name (the journal's records, by name, are made again).
 * The name is the one the device has now: the event may be older than
 * the port (an internal port's device is made under another name). */
static void
port_changed(struct dp_net *net, const struct nlmsghdr *nlh, int netnsid,
	     int ifindex)
{
	struct dp_port *port = dp_port_by_ifindex(net, netnsid, ifindex);
	char name[IFNAMSIZ];
	uint32_t mtu;

	if (!port)
		return;
	mtu = netdev_link_mtu(nlh);
	if (mtu && mtu != __atomic_load_n(&port->vport->mtu,
					  __ATOMIC_RELAXED)) {
		vport_set_mtu(port->vport, mtu);
		/* Entries hold the MTUs of their outputs. */
		dp_port_changed(port);
	}
	if (netdev_link_name(nlh, name) && strcmp(name, dp_port_name(port)) &&
	    !netdev_index_name(netnsid, ifindex, name) &&
	    strcmp(name, dp_port_name(port))) {
		dp_port_rename(port, name);
		journal_compact(net);
	}
}

static int
nsid_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == NETNSA_NSID &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*(int *)data = (int)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* RTM_DELNSID: a namespace our namespace had an id for is gone, and the
 * datapaths of its context with it (the kernel's pernet exit). Only our
 * namespace's: another's ids (NETLINK_LISTEN_ALL_NSID brings its
 * RTM_DELNSID too) are not ours. */
static void
nsid_gone(const struct nlmsghdr *nlh)
{
	int nsid = NETNSA_NSID_NOT_ASSIGNED;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtgenmsg)))
		return;
	mnl_attr_parse(nlh, sizeof(struct rtgenmsg), nsid_attr, &nsid);
	if (nsid >= 0 && netns_gone)
		netns_gone(nsid);
}

/* data: the id of the namespace the datagram came from. */
static int
link_event(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int netnsid = *(const int *)data;

	if (nlh->nlmsg_type == RTM_DELNSID) {
		if (netnsid == NETNSA_NSID_NOT_ASSIGNED)
			nsid_gone(nlh);
		return MNL_CB_OK;
	}
	/* A bridge's messages about its ports (AF_BRIDGE: a port leaving
	 * the bridge is an RTM_DELLINK of it) say nothing of the device. */
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    ifi->ifi_family == AF_BRIDGE)
		return MNL_CB_OK;
	for (size_t i = 0; i < n_nets; i++) {
		if (nlh->nlmsg_type == RTM_DELLINK)
			port_gone(nets[i], netnsid, ifi->ifi_index);
		else if (nlh->nlmsg_type == RTM_NEWLINK)
			port_changed(nets[i], nlh, netnsid, ifi->ifi_index);
	}
	if (nlh->nlmsg_type == RTM_DELLINK &&
	    netnsid == NETNSA_NSID_NOT_ASSIGNED)
		tunnel_dev_gone(ifi->ifi_index);
	return MNL_CB_OK;
}

/* Link events of our namespace and (NETLINK_LISTEN_ALL_NSID) of those our
 * namespace has an id for, where moved internal ports may be: each
 * datagram says which. */
static void
rtnl_read(void *arg)
{
	char buf[16384], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		int netnsid = NETNSA_NSID_NOT_ASSIGNED;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(mnl_socket_get_fd(rtnl), &mh, 0);
		if (n <= 0) {
			/* Events lost to a full queue: those that follow
			 * still count, and any namespace may have gone. */
			if (n < 0 && errno == ENOBUFS) {
				if (netns_gone)
					netns_gone(NETNSA_NSID_NOT_ASSIGNED);
				continue;
			}
			break;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
		     cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_NETLINK &&
			    cm->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&netnsid, CMSG_DATA(cm), sizeof(int));
		mnl_cb_run(buf, n, 0, 0, link_event, &netnsid);
	}
}

static void
periodic(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n_nets; i++) {
		dp_net_run_periodic(nets[i]);
		journal_maybe_compact(nets[i]);
	}
}

int
dp_notify_add(struct dp_net *net)
{
	struct dp_net **grown = realloc(nets, (n_nets + 1) * sizeof(*nets));

	if (!grown)
		return -ENOMEM;
	nets = grown;
	nets[n_nets++] = net;
	return 0;
}

void
dp_notify_remove(struct dp_net *net)
{
	for (size_t i = 0; i < n_nets; i++) {
		if (nets[i] == net) {
			memmove(&nets[i], &nets[i + 1],
				(n_nets - i - 1) * sizeof(*nets));
			n_nets--;
			return;
		}
	}
}

int
dp_notify_open(struct dp_net *net, void (*gone)(int netnsid))
{
	int err;

	netns_gone = gone;
	err = dp_notify_add(net);
	if (err)
		return err;

	rtnl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!rtnl)
		return -errno;
	/* The events of devices in other namespaces too (a port's device
	 * moved away) need CAP_NET_BROADCAST, which a container's default
	 * set lacks: without it, those of our namespace only. */
	if (mnl_socket_setsockopt(rtnl, NETLINK_LISTEN_ALL_NSID, &(int){ 1 },
				  sizeof(int)) < 0) {
		if (errno != EPERM)
			return -errno;
		log_warn("no CAP_NET_BROADCAST: the link events of other "
			 "namespaces go unheard");
	}
	if (mnl_socket_bind(rtnl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(rtnl, NETLINK_ADD_MEMBERSHIP,
				  &(int){ RTNLGRP_NSID }, sizeof(int)) < 0)
		return -errno;
	err = server_watch(mnl_socket_get_fd(rtnl), rtnl_read, net);
	if (!err)
		err = vport_error_fd();
	if (err >= 0)
		err = server_watch(err, ports_lost, net);
	return err < 0 ? err : server_every(PERIODIC_MS, periodic, NULL);
}

void
dp_notify_close(void)
{
	if (rtnl)
		mnl_socket_close(rtnl);
	rtnl = NULL;
	free(nets);
	nets = NULL;
	n_nets = 0;
}
