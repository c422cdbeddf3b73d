/* SPDX-License-Identifier: Apache-2.0 */
/* Flow keys and masks <-> OVS_KEY_ATTR_* netlink attributes, validated as
 * the kernel's flow_netlink.c does (ovs_nla_get_match, __ovs_nla_put_key):
 * the same accepted attribute sets, lengths, VLAN encapsulation rules, mask
 * rules and errno (-EINVAL), with its OVS_NLERR lines (common/nlerr.h). The
 * tunnel's attributes are flow/tun-netlink.h's.
 *
 * Pure functions over caller memory: thread-safe, no allocation. */
#ifndef TAPDP_FLOW_KEY_NETLINK_H
#define TAPDP_FLOW_KEY_NETLINK_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/key.h"
#include "genl-server/msg.h"

/* Parses nla_key (the contents of OVS_FLOW_ATTR_KEY) into key and, when mask
 * is not NULL, nla_mask into mask (no nla_mask: an exact-match mask of the
 * key's attributes). log false silences the error lines (probes). Returns 0
 * or -EINVAL. */
int flow_match_from_nlattrs(struct flow_key *key, struct flow_key *mask,
			    const struct nlattr *nla_key,
			    const struct nlattr *nla_mask, bool log);

/* Only the metadata a packet cannot carry (in_port, priority, mark, recirc,
 * dp_hash, tunnel, conntrack), for OVS_PACKET_CMD_EXECUTE. key is zeroed
 * first. */
int flow_metadata_from_nlattrs(struct flow_key *key,
			       const struct nlattr *nla_key, bool log);

/* Writes attr (OVS_FLOW_ATTR_KEY, _MASK, OVS_PACKET_ATTR_KEY) as a nest of
 * key attributes describing 'output', whose shape (which attributes) follows
 * 'key'; is_mask selects the mask conventions. Overflow is left to mb. */
void flow_key_put(struct msgbuf *mb, uint16_t attr, const struct flow_key *key,
		  const struct flow_key *output, bool is_mask);

/* Whether push (an OVS_ACTION_ATTR_PUSH_NSH) holds one NSH key the kernel
 * would push: a base header and an MD type 1 or 2 context of its type. */
bool flow_nsh_push_valid(const struct nlattr *push, bool log);

/* The header a valid push builds, written to hdr (NSH_HLEN_MAX bytes);
 * returns its length from its length field. The next protocol is left as
 * the key gives it: the push sets it from the packet. */
size_t flow_nsh_push_header(const struct nlattr *push, uint8_t *hdr);

#endif
