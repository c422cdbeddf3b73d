/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's tunnel devices: those OVS creates with RTM_NEWLINK (kind
 * vxlan, geneve, gretap, ip6gretap, erspan or ip6erspan, in
 * collect-metadata mode) before it adds the device to a datapath as a
 * netdev port, and those the compat vport types (vxlan, geneve, gre)
 * create for themselves; and, where the kernel has no driver for the
 * kind, devices of one remote (not collect-metadata), each with a tunnel
 * port of its own that carries what the host sends on it and gives it
 * what comes from its remote. All in any namespace a context serves
 * (each has its own names and ports: the table is keyed by the
 * namespace's id in ours). Each is a TAP device of that name there,
 * which lives as long as its entry here; a netdev port added on one made
 * over rtnetlink becomes a tunnel port of its kind (vport-tunnel.c). The
 * L3 devices (kind gre, vxlan with GPE, geneve with inner_proto_inherit:
 * the kernel's ARPHRD_NONE ones) are TUN devices.
 *
 * The kind's IFLA_INFO_DATA is read as the kernel's driver reads it, and
 * given back as the driver's fill_info gives it for such a device, so that
 * RTM_GETLINK shows the device as the kernel's would.
 *
 * Control thread only. */
#ifndef TAPDP_VPORT_TNL_DEV_H
#define TAPDP_VPORT_TNL_DEV_H

#include <linux/openvswitch.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "genl-server/attr.h"
#include "genl-server/msg.h"
#include "packet/tun-key.h"
#include "tap/vport.h"

struct tnl_kind;

struct tnl_dev {
	char name[IFNAMSIZ];
	const struct tnl_kind *kind;
	int fd;				/* the TAP's: the device lives with it */
	int netnsid;			/* its namespace's id in ours (-1) */
	int ifindex;			/* there */
	struct vport_tunnel_config cfg;	/* cfg.dev is this device */
	bool learning;			/* vxlan: as created, for GETLINK */
	uint8_t erspan_ver;		/* erspan: as created */
	/* A device of one remote, not collect-metadata (what `ip link add
	 * NAME type geneve id N remote R` makes), served where the kernel
	 * has no driver for the kind: the tunnel every frame the host sends
	 * on it leaves by, the only one whose packets it takes (the kernel's
	 * lookup by remote address and key); remote.family 0 for a
	 * flow-based device. Its port moves them (vport-tunnel.c), its own
	 * rather than a datapath's. */
	struct tun_key remote;
	bool rx_keyed;			/* ...with a key: rx_id (be) */
	uint64_t rx_id;
	struct vport *port;
	/* Made over rtnetlink: the RTM_NEWLINK that would make it again
	 * (families/rtnl-link.c writes it, the journal keeps it); NULL for
	 * a compat port's device. Freed with the device. */
	void *made_by;
	uint32_t made_by_len;
};

/* The kind called name, if the daemon serves it. */
const struct tnl_kind *tnl_kind_find(const char *name);
const char *tnl_kind_name(const struct tnl_kind *kind);
/* Reads a kind's IFLA_INFO_DATA (NULL: none given) into dev's
 * configuration, and for a device that is not collect-metadata its
 * remote (none: remote.family 0). 0 and *collect_md; or the driver's
 * errno for data its policy or checks refuse. */
int tnl_kind_parse(const struct tnl_kind *kind, const struct nlattr *data,
		   struct tnl_dev *dev, bool *collect_md, struct extack *ack);

/* Creates the device dev describes (name, kind, configuration, netnsid)
 * in the namespace of nsfd (-1: ours), with mtu (0: the TAP's) and up or
 * not; a restarted daemon takes back the TAP its predecessor left with
 * the keeper under that name (tap/tap.h). Adds it to the table and
 * returns it, or NULL with -errno in *err: -EEXIST when another device
 * has the name there, and the kernel's errno for a second
 * collect-metadata device in that namespace on the same UDP port (vxlan:
 * -EEXIST, geneve: -EBUSY, another kind: -EADDRINUSE) or of the same GRE
 * kind (-EEXIST).
 * The compat vport types make their devices here too, so that both paths
 * see each other's. */
struct tnl_dev *tnl_dev_create(const struct tnl_dev *dev, int nsfd,
			       uint32_t mtu, bool up, int *err);
void tnl_dev_destroy(struct tnl_dev *dev);
/* By index (if ifindex > 0) or name (if not NULL) in the namespace ours
 * calls netnsid (-1: ours); NULL when the daemon serves no such device. */
struct tnl_dev *tnl_dev_find(int netnsid, int ifindex, const char *name);
/* The i-th device, NULL past the last (the order changes as they go). */
struct tnl_dev *tnl_dev_at(size_t i);
/* The device's ops, for the port a datapath adds on it. */
const struct vport_ops *tnl_dev_ops(const struct tnl_dev *dev);
/* IFLA_INFO_KIND and IFLA_INFO_DATA as the kernel's driver gives them,
 * in the caller's IFLA_LINKINFO. */
void tnl_dev_fill_info(const struct tnl_dev *dev, struct msgbuf *mb);
/* Whether that namespace has a device (holding: one of one remote, whose
 * port's sockets there hold the namespace). */
bool tnl_dev_any(int netnsid, bool holding);
/* Deletes every device of that namespace (it goes). */
void tnl_dev_destroy_in(int netnsid);
/* Forgets every device (the daemon's end). */
void tnl_dev_destroy_all(void);

#endif
