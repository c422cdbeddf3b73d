/* SPDX-License-Identifier: Apache-2.0 */
/* A pcapng writer (draft-ietf-opsawg-pcapng) for tapdpctl's captures: one
 * section, interfaces each with a link type and a name, and packets on
 * them with a timestamp in microseconds, the bytes captured, the length
 * on the wire and a comment. tcpdump, tshark and Wireshark read it.
 * Blocks are written in host byte order, as the format allows. Not
 * thread-safe: one writer per stream. */
#ifndef TAPDP_PCAPNG_H
#define TAPDP_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

/* Link types (LINKTYPE_*, tcpdump.org's list). */
#define PCAPNG_LINKTYPE_ETHERNET	1
#define PCAPNG_LINKTYPE_NETLINK		253

struct pcapng {
	FILE *f;
	uint32_t n_ifaces;
};

/* Writes the section header: 0 or -errno. */
int pcapng_open(struct pcapng *p, FILE *f);
/* Describes an interface; its id (0, 1...) into *id. 0 or -errno. */
int pcapng_iface(struct pcapng *p, uint16_t linktype, uint32_t snaplen,
		 const char *name, uint32_t *id);
/* A packet on interface id at ts_us (since the epoch): caplen bytes of a
 * packet len long, with comment (NULL: none). 0 or -errno. */
int pcapng_packet(struct pcapng *p, uint32_t id, uint64_t ts_us,
		  const void *data, uint32_t caplen, uint32_t len,
		  const char *comment);

#endif
