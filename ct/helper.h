/* SPDX-License-Identifier: Apache-2.0 */
/* Application helpers: FTP and TFTP, as nf_conntrack_ftp and _tftp see
 * them. A helper reads the packets of the connection it is attached to and
 * announces the connection the application will open next (an FTP data
 * connection from a PORT, EPRT, 227 or 229 message; a TFTP transfer from a
 * read or write request) as an expectation; the connection that meets it
 * is related to its master.
 *
 * Runs on packet threads; reads only the packet and the connection's
 * tuples. */
#ifndef TAPDP_CT_HELPER_H
#define TAPDP_CT_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/tuple.h"

/* What a helper found in a packet of its connection, travelling in dir
 * (tuple: the connection's tuples by direction): the tuple the expected
 * connection's first packet will have, its source port left 0 (any).
 * false when the packet announces nothing. */
bool ct_helper_expect(uint8_t helper, const struct ct_tuple tuple[2], int dir,
		      const uint8_t *l3, const struct ct_packet *p,
		      struct ct_tuple *expect);

#endif
