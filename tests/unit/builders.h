/* SPDX-License-Identifier: Apache-2.0 */
/* What the unit tests build their inputs with: frames, netlink attribute
 * lists, and a flow's stored actions from such a list.
 *
 * A frame is written front to back into the caller's buffer: fb_eth(),
 * VLAN tags, an IP header, a TCP, UDP or ICMP header, payload; fb_end()
 * then fills in the lengths (IPv4 total, IPv6 payload, UDP) and the
 * checksums (IPv4 header, TCP, UDP, ICMP, ICMPv6) of the last IP packet
 * begun. The IP and L4 headers are returned so that a test may set their
 * fields: such a header is kept apart, aligned (in the frame it would not
 * be), until the next call on the frame writes it in. The checksums are
 * computed here, apart from the datapath's packet/csum.c, so that the tests
 * of its checksum updates are not checked against it.
 *
 * An attribute list is a msgbuf (genl-server/msg.h) holding one message whose
 * payload is the list: msgbuf_put*() and msgbuf_nest_*() on its 'mb' add
 * to it; attrs_put() returns the attribute it adds.
 *
 * For one thread; no allocation but the stored actions'. */
#ifndef TAPDP_TESTS_UNIT_BUILDERS_H
#define TAPDP_TESTS_UNIT_BUILDERS_H

#include <linux/icmp.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "genl-server/msg.h"

struct actions_stored;
struct flow_key;

/* A frame or a list longer than its buffer, an L4 header without an IP
 * header before it, an action list that does not validate: the caller's
 * mistake, which the builders hand to builders_fail() with what it was.
 * The program supplies it, and it does not return: in the unit tests
 * (builders-fail.c) it fails the running cmocka test; the benchmarks,
 * which do without cmocka, exit. */
void builders_fail(const char *what) __attribute__((noreturn));

/* The addresses fb_eth() writes: to 02:00:00:00:00:02 from ...:01. */
extern const uint8_t fb_mac_dst[ETH_ALEN];
extern const uint8_t fb_mac_src[ETH_ALEN];

/* TCP flags, for fb_tcp(). */
#define FB_FIN	0x01
#define FB_SYN	0x02
#define FB_RST	0x04
#define FB_PSH	0x08
#define FB_ACK	0x10

struct fb {
	uint8_t *buf;
	size_t cap, len;
	size_t l3;		/* offset of the last IP header, or FB_NONE */
	size_t l4;		/* offset of its TCP/UDP/ICMP header, or FB_NONE */
	uint8_t l4_proto;
	/* The header last returned, to be written at hdr_at (hdr_len 0:
	 * none). */
	union {
		struct iphdr ip;
		struct ipv6hdr ip6;
		struct tcphdr tcp;
		struct udphdr udp;
		struct icmphdr icmp;
	} hdr;
	size_t hdr_at, hdr_len;
};

#define FB_NONE	SIZE_MAX

void fb_init(struct fb *b, void *buf, size_t cap);
/* Ethernet from fb_mac_src to fb_mac_dst; 'type' (host order) is the next
 * header's, or an 802.3 length. */
void fb_eth(struct fb *b, uint16_t type);
/* A VLAN tag's TCI, then the type after it (the tag's TPID is the type
 * the previous header gave). */
void fb_vlan(struct fb *b, uint16_t tci, uint16_t type);
/* IPv4 from 'src' to 'dst' (host order), header length 20, TTL 64, the
 * rest 0. Options go in with fb_put() and ihl set by the caller. */
struct iphdr *fb_ipv4(struct fb *b, uint32_t src, uint32_t dst,
		      uint8_t proto);
/* IPv6 from 'src' to 'dst' (16 bytes each), hop limit 64, the rest 0.
 * Extension headers go in with fb_put(). */
struct ipv6hdr *fb_ipv6(struct fb *b, const void *src, const void *dst,
			uint8_t next);
/* TCP, data offset 5 (options: fb_put() and doff), window 65535. */
struct tcphdr *fb_tcp(struct fb *b, uint16_t sport, uint16_t dport,
		      uint32_t seq, uint32_t ack, uint8_t flags);
struct udphdr *fb_udp(struct fb *b, uint16_t sport, uint16_t dport);
/* The other port-carrying transports: UDP-Lite (full coverage), DCCP (a
 * 12-byte generic header, full coverage) or SCTP (a common header, the
 * chunks to fb_put()); their checksums are filled in by fb_end(). */
void fb_ports(struct fb *b, uint8_t proto, uint16_t sport, uint16_t dport);
/* ICMP, or ICMPv6 in an IPv6 packet: type, code and 4 zero bytes. */
struct icmphdr *fb_icmp(struct fb *b, uint8_t type, uint8_t code);
/* Appends 'len' bytes of 'data' (zeros if NULL); returns them, in the
 * frame. */
void *fb_put(struct fb *b, const void *data, size_t len);
/* Fills in the lengths and checksums; returns the frame's length. */
size_t fb_end(struct fb *b);

/* The ones' complement sum of 'len' bytes, folded: 0xffff over a header
 * with its checksum right. */
uint16_t fb_sum(const void *p, size_t len);
/* Recomputes the checksum of the IPv4 header at 'ip'. */
void fb_ipv4_csum(void *ip);
/* Whether the checksums of the IP packet at 'l3' (within 'len' bytes)
 * verify: IPv4's header, and the TCP, UDP (unless absent), ICMP or
 * ICMPv6 checksum right after the IP header. Lengths that do not fit in
 * 'len' verify nothing. */
bool fb_csums_ok(const void *l3, size_t len);
/* A heap copy of 'len' bytes of 'src' (a byte allocated for none), so
 * that the sanitizers catch a read past its end. Freed with free(). */
uint8_t *fb_copy(const void *src, size_t len);

struct attrs {
	struct msgbuf mb;
	char mem[65536];
};

void attrs_init(struct attrs *a);
struct nlattr *attrs_put(struct attrs *a, uint16_t type, const void *data,
			 size_t len);
/* The list as built so far, and its length. */
const struct nlattr *attrs_data(const struct attrs *a);
size_t attrs_len(const struct attrs *a);

/* The action list 'acts' as the flow family keeps a flow's: validated
 * against the flow's key and stored (actions/actions-netlink.h), the list
 * nested in OVS_FLOW_ATTR_ACTIONS as a request carries it. Freed with
 * free(). */
struct actions_stored *attrs_store_actions(const struct attrs *acts,
					   const struct flow_key *key);

#endif
