/* SPDX-License-Identifier: Apache-2.0 */
/* NAT of what the helpers announce, as nf_nat_helper, nf_nat_ftp and
 * nf_nat_tftp do it for a connection under NAT:
 *
 *  - an expectation takes its master's mapping (nf_nat_follow_master):
 *    the expected connection is translated as its master's packets are,
 *    its destination going to the address and port the application named;
 *  - an FTP message's address and port are rewritten to the ones the peer
 *    sees (the port changed when another connection expects it already),
 *    the TCP payload growing or shrinking: the IP length and the
 *    checksums follow, and the change is recorded for sequence
 *    adjustment (ct/seqadj.h).
 *
 * Runs on packet threads, on a packet the thread owns; the caller holds
 * the master connection's lock. */
#ifndef TAPDP_CT_NAT_HELPER_H
#define TAPDP_CT_NAT_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/conn.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "ct/nat.h"
#include "ct/seqadj.h"
#include "flow/packet.h"

/* A TCP packet of the tracker's, in its frame. */
struct nat_tcp_packet {
	struct packet *pkt;
	uint32_t l3off;			/* the IP header, in pkt */
	struct ct_packet *p;		/* lengths updated when it changes */
	bool partial;			/* L4 checksum offloaded */
};

/* nf_nat_ftp: adds e (f's expectation, found in a packet of master c
 * travelling in dir, e->t filled in) with c's mapping, rewrites the
 * message in the packet to the address and port the peer must use and
 * records the length change in sa. 0, or a negative errno: drop. */
int nat_ftp(struct expect_table *t, const struct conn *c, int dir,
	    struct ct_expect *e, const struct ct_helper_found *f,
	    struct nat_tcp_packet *tp, struct ct_seqadj *sa, uint64_t now);

/* nf_nat_tftp: adds e, found in a request of master c, with c's mapping
 * for the answer. 0 or a negative errno. */
int nat_tftp(struct expect_table *t, const struct conn *c,
	     struct ct_expect *e, uint64_t now);

/* Maps new connection c, which meets expectation e, as e says (when it
 * asks to follow its master's mapping). */
void nat_follow_master(const struct nat_table *table, struct conn *c,
		       const struct ct_expect *e);

/* Replaces len bytes at off in the TCP payload of tp by rlen bytes at rep.
 * false when the packet cannot grow that much (nothing changed). */
bool nat_mangle_tcp(struct nat_tcp_packet *tp, uint32_t off, uint32_t len,
		    const char *rep, uint32_t rlen);

#endif
