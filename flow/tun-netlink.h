/* SPDX-License-Identifier: Apache-2.0 */
/* A tunnel (struct tun_key) <-> the OVS_TUNNEL_KEY_ATTR_* attributes of an
 * OVS_KEY_ATTR_TUNNEL nest, in flow keys, masks and set(tunnel(...)), as
 * the kernel's flow_netlink.c reads and writes them (ip_tun_from_nlattr,
 * the geneve, VXLAN and ERSPAN option parsers, __ip_tun_to_nlattr,
 * validate_and_copy_set_tun): the same lengths, rules, option layout and
 * errno (-EINVAL), with its OVS_NLERR lines (common/nlerr.h).
 *
 * Pure functions over caller memory: thread-safe, no allocation. */
#ifndef TAPDP_FLOW_TUN_NETLINK_H
#define TAPDP_FLOW_TUN_NETLINK_H

#include <linux/netlink.h>
#include <stdbool.h>

#include "genl-server/msg.h"
#include "packet/tun-key.h"

/* Parses attr, an OVS_KEY_ATTR_TUNNEL, into t. Only what the attributes
 * give is written, and the flags, the family and, with options, their
 * length. key NULL: t is a key, checked as one (a destination, a TTL, the
 * bridge mode bare). Otherwise t is a mask and key the tunnel of the key
 * it masks: its family, and its options' length when it has options, are
 * matched exactly, and geneve options must be as long as the key's.
 * Returns the options' attribute type (OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS,
 * _VXLAN_OPTS, _ERSPAN_OPTS), 0 without options, or -EINVAL. */
int tun_key_from_nlattr(struct tun_key *t, const struct nlattr *attr,
			const struct tun_key *key, bool log);

/* The tunnel a set(tunnel(...)) action gives: attr, its OVS_KEY_ATTR_TUNNEL,
 * parsed as a key into t (zeroed first), its geneve options checked as
 * whole options (TUN_F_CRIT_OPT when one is critical) and nothing kept
 * beyond the options' length. 0 or -EINVAL. */
int tun_key_from_set(struct tun_key *t, const struct nlattr *attr, bool log);

/* Makes the payload of a key's OVS_KEY_ATTR_TUNNEL (data, len bytes) the
 * exact-match mask of it, in place: every attribute all ones, through the
 * VXLAN options' nest. For keys given without a mask. */
void tun_nlattrs_mask_fill(void *data, int len);

/* Puts attr (OVS_KEY_ATTR_TUNNEL, OVS_PACKET_ATTR_EGRESS_TUN_KEY) holding
 * out's attributes, whose shape (the addresses' family, the options'
 * length) follows key; out is key or a mask of it. bridge: the kernel's
 * IP_TUNNEL_INFO_BRIDGE form, a key at most (set(tunnel) only). Overflow
 * is left to mb. */
void tun_key_put(struct msgbuf *mb, uint16_t attr, const struct tun_key *key,
		 const struct tun_key *out, bool bridge);

#endif
