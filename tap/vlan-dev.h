/* SPDX-License-Identifier: Apache-2.0 */
/* VLAN devices made in userspace, for a kernel without the 8021q driver:
 * what `ip link add link LOWER name NAME type vlan [proto 802.1ad] id ID`
 * makes there (families/rtnl-link.c), in the namespace it was asked in.
 *
 * The device is a TAP with the lower device's address, made in the
 * daemon's namespace and moved there under its name, as an internal
 * port's (its fd keeps working wherever it is, and holds nothing there).
 * A thread of its own moves frames: what the device sends gets the tag
 * and leaves by the lower device; what the lower device receives with
 * that tag (the kernel gives it aside, in the packet's auxiliary data,
 * whether the frame came tagged or the device's offload took the tag)
 * comes in through the device untagged, as the driver's vlan_do_receive
 * gives it. Its packet socket on the lower device is opened there by the
 * namespace agent (common/ns-socket.h) and holds that namespace: the
 * device's owner counts it (datapath/datapath.h,
 * dp_net_holds_namespace). The lower device gone, the device goes, as
 * the kernel's.
 *
 * Kept across a restart: the keeper holds its TAP (by its name there
 * and its namespace's id, tap/tap.h), and the journal the request that
 * made it, which a successor replays: vlan_dev_create then takes the
 * TAP back, as it is, and opens a new packet socket.
 *
 * The table is the control thread's; each device's thread touches only
 * its own fds. */
#ifndef TAPDP_TAP_VLAN_DEV_H
#define TAPDP_TAP_VLAN_DEV_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

struct vlan_dev;

struct vlan_dev_config {
	char name[IFNAMSIZ];	/* "" or a pattern: "vlan%d" filled in */
	int lower;		/* the lower device's index there */
	uint16_t proto;		/* ETH_P_8021Q or ETH_P_8021AD */
	uint16_t id;		/* 0 to 4094 */
	uint32_t mtu;		/* 0: the lower device's */
	bool has_mac;
	uint8_t mac[6];		/* else the lower device's */
};

/* Reads the vlan driver's IFLA_INFO_DATA (NULL: none given) into cfg's
 * proto and id, with its checks and answers: -EINVAL (no data, no id),
 * -ERANGE (an id past 4094), -EPROTONOSUPPORT (a protocol but 802.1Q's
 * and 802.1ad's), or its policy's errno. */
struct extack;
struct nlattr;
int vlan_dev_parse(const struct nlattr *data, struct vlan_dev_config *cfg,
		   struct extack *ack);
/* Makes the device cfg describes in the namespace of nsfd (-1: ours),
 * which ours calls netnsid, for owner (the context asking): *out, and 0;
 * or the
 * errno the kernel's vlan driver gives: -ENODEV (no lower device),
 * -EEXIST (the name, or that id and protocol on that lower device). */
int vlan_dev_create(const void *owner, int nsfd, int netnsid,
		    struct vlan_dev_config *cfg, struct vlan_dev **out);
/* The device called name, or of index ifindex, of owner's namespace;
 * NULL when none of them is. */
struct vlan_dev *vlan_dev_find(const void *owner, int ifindex,
			       const char *name);
const char *vlan_dev_name(const struct vlan_dev *dev);
/* The lower device's index (the kernel's IFLA_LINK of a vlan device). */
int vlan_dev_lower(const struct vlan_dev *dev);
/* IFLA_INFO_KIND and IFLA_INFO_DATA as the vlan driver gives them, in
 * the caller's IFLA_LINKINFO. */
struct msgbuf;
void vlan_dev_fill_info(const struct vlan_dev *dev, struct msgbuf *mb);
/* The journal's record that makes dev again (its creator's: a malloc()ed
 * buffer, freed with dev), and owner's records, one a call from *i on:
 * NULL after the last. */
void vlan_dev_set_record(struct vlan_dev *dev, void *record, size_t len);
const void *vlan_dev_record(const void *owner, size_t *i, size_t *len);
void vlan_dev_destroy(struct vlan_dev *dev);
/* Every device of owner (its namespace goes). */
void vlan_dev_destroy_all(const void *owner);
/* Whether owner has one: their sockets hold its namespace. */
bool vlan_dev_any(const void *owner);

#endif
