/* SPDX-License-Identifier: Apache-2.0 */
/* Application helpers: FTP and TFTP, as nf_conntrack_ftp and _tftp see
 * them. A helper reads the packets of the connection it is attached to and
 * announces the connection the application will open next (an FTP data
 * connection from a PORT, EPRT, 227 or 229 message; a TFTP transfer from a
 * read or write request) as an expectation; the connection that meets it
 * is related to its master. Under NAT, ct/nat-helper.h rewrites what the
 * FTP message says.
 *
 * FTP reads a message only at the start of a line: in a segment whose
 * sequence number follows one of the last two segments of that direction
 * that ended with a newline (the first line of each direction is thus
 * never read; retransmissions are read again).
 *
 * Runs on packet threads; the caller serializes the runs of one
 * connection (its lock guards struct ct_ftp_lines). */
#ifndef TAPDP_CT_HELPER_H
#define TAPDP_CT_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/tuple.h"

/* Where the lines of an FTP control connection start, per direction: the
 * sequence numbers just past the last two segments ending in "\n". */
struct ct_ftp_lines {
	uint32_t seq[2][2];
	uint8_t n[2];
};

/* The FTP messages that announce a data connection. */
enum ct_ftp_type {
	CT_FTP_PORT,			/* PORT h1,h2,h3,h4,p1,p2 */
	CT_FTP_EPRT,			/* EPRT |af|addr|port| */
	CT_FTP_PASV,			/* 227 ... h1,h2,h3,h4,p1,p2 */
	CT_FTP_EPSV,			/* 229 ... (|||port|) */
};

/* What a helper found in a packet. */
struct ct_helper_found {
	struct ct_tuple expect;		/* its first packet's; sport 0: any */
	uint8_t ftp_type;		/* FTP: enum ct_ftp_type */
	uint32_t off, len;		/* FTP: the address and port text,
					 * in the TCP payload */
};

enum ct_helper_verdict {
	CT_HELPER_PASS,			/* nothing announced */
	CT_HELPER_EXPECT,		/* found: expect found->expect */
	CT_HELPER_DROP,			/* a message cut short or malformed */
};

/* Runs helper on a packet of its connection travelling in dir (tuple: the
 * connection's tuples by direction; established: the packet is part of an
 * answered connection, which FTP waits for; lines: FTP's state). */
enum ct_helper_verdict ct_helper_run(uint8_t helper,
				     const struct ct_tuple tuple[2], int dir,
				     bool established, const uint8_t *l3,
				     const struct ct_packet *p,
				     struct ct_ftp_lines *lines,
				     struct ct_helper_found *found);

#endif
