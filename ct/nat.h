/* SPDX-License-Identifier: Apache-2.0 */
/* Network address translation of tracked connections, as nf_nat does for
 * the kernel datapath: a new connection gets its mapping once (an address
 * and port in the action's range that no other connection uses, or the
 * identity), and every later packet of it, in either direction, and every
 * ICMP error about it, is rewritten to match, checksums included.
 *
 * Mappings are set on connections not yet in the table (owned by one
 * thread); packet rewriting only reads the connection. The tracker calls
 * NAT; NAT knows of the tracker's table only struct nat_table. */
#ifndef TAPDP_CT_NAT_H
#define TAPDP_CT_NAT_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/conn.h"
#include "ct/ct-types.h"

/* What NAT asks of the table that holds the connections, so that each
 * mapping stays unique: whether some connection (either direction) has
 * tuple t already. Inside an RCU read-side section. */
struct nat_table {
	bool (*taken)(const struct nat_table *table, const struct ct_tuple *t);
};

/* Maps connection c for manip within range r (NULL or no address range:
 * the identity, kept unique in table). Returns false when the range is
 * exhausted. */
bool nat_setup(const struct nat_table *table, struct conn *c,
	       const struct ct_nat_range *r, enum ct_manip manip);

/* Rewrites the IP packet at l3 (a packet of c in direction dir) for manip,
 * if c's mapping changes that side. partial: the L4 checksum is offloaded
 * (holds the pseudo-header sum). */
void nat_packet(const struct conn *c, int dir, enum ct_manip manip,
		uint8_t *l3, const struct ct_packet *p, bool partial);

/* The same for an ICMP or ICMPv6 error related to c, quoting one of its
 * packets: the quote is mapped back, the outer header forward. */
void nat_icmp_error(const struct conn *c, int dir, enum ct_manip manip,
		    uint8_t *l3, const struct ct_packet *p, bool partial);

#endif
