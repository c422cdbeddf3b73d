/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the FTP and TFTP helpers and their NAT on an
 * arbitrary payload. The first byte chooses the helper (bit 0: TFTP), the
 * direction (bit 1), IPv6 (bit 2), NAT (bit 3: SNAT, bit 4: DNAT) and the
 * room after the frame (bits 5-7, in 8-byte steps); the rest is the
 * payload of a segment of an established control connection, at a line
 * start. Beyond the sanitizers' bounds checks (the frame's buffer ends
 * where its room does), it holds the rewrite to its contract: the IP
 * length and checksum, the TCP checksum all verify afterwards, the frame
 * ends with its datagram, and what the helper expects is a TCP or UDP
 * tuple of the connection's family and zone. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ct/conn.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "ct/nat-helper.h"
#include "ct/seqadj.h"
#include "packet/csum.h"
#include "packet/headers.h"
#include "packet/ip.h"

#define SEQ	1000u
#define ZONE	3

static bool
sums_ok(const uint8_t *l3, const struct ct_packet *p, bool v6)
{
	uint32_t s;

	if (v6) {
		const struct ipv6_header *ip6 = (const void *)l3;

		if (ntohs(ip6->payload_len) != p->l3_len - IPV6_HLEN)
			return false;
		s = csum_pseudo(ip6->saddr, ip6->daddr, 16, p->tuple.proto,
				p->l4_len);
	} else {
		const struct ipv4_header *ip = (const void *)l3;

		if (ntohs(ip->tot_len) != p->l3_len ||
		    csum_fold(csum_add(0, l3, IPV4_HLEN)) != 0xffff)
			return false;
		s = csum_pseudo(&ip->saddr, &ip->daddr, 4, p->tuple.proto,
				p->l4_len);
	}
	return csum_fold(csum_add(s, l3 + p->l4_off, p->l4_len)) == 0xffff;
}

/* The IP packet carrying the payload, from a to b, at l3 (room for it). */
static uint32_t
build(uint8_t *l3, bool v6, bool tftp, int dir, const union ct_addr *a,
      const union ct_addr *b, const uint8_t *data, uint32_t n)
{
	uint32_t hl = v6 ? IPV6_HLEN : IPV4_HLEN;
	uint32_t l4hl = tftp ? UDP_HLEN : TCP_HLEN, len = hl + l4hl + n, s;
	uint8_t *l4 = l3 + hl;
	uint16_t sport = htons(dir ? 21 : 40000), dport = htons(dir ? 40000 : 21);

	memset(l3, 0, hl + l4hl);
	if (v6) {
		struct ipv6_header *ip6 = (void *)l3;

		ip6->ver_tc_flow = htonl(6u << 28);
		ip6->payload_len = htons(len - hl);
		ip6->nexthdr = tftp ? IPPROTO_UDP : IPPROTO_TCP;
		ip6->hop_limit = 64;
		memcpy(ip6->saddr, a, 16);
		memcpy(ip6->daddr, b, 16);
		s = csum_pseudo(ip6->saddr, ip6->daddr, 16, ip6->nexthdr,
				len - hl);
	} else {
		struct ipv4_header *ip = (void *)l3;

		ip->ver_ihl = 0x45;
		ip->tot_len = htons(len);
		ip->ttl = 64;
		ip->protocol = tftp ? IPPROTO_UDP : IPPROTO_TCP;
		ip->saddr = a->ip;
		ip->daddr = b->ip;
		ipv4_set_csum(ip);
		s = csum_pseudo(&ip->saddr, &ip->daddr, 4, ip->protocol,
				len - hl);
	}
	memcpy(l4 + l4hl, data, n);
	if (tftp) {
		struct udp_header *udp = (void *)l4;

		udp->src = sport;
		udp->dst = dport;
		udp->len = htons(l4hl + n);
		udp->csum = ~csum_fold(csum_add(s, l4, l4hl + n));
	} else {
		struct tcp_header *tcp = (void *)l4;

		tcp->src = sport;
		tcp->dst = dport;
		tcp->seq = htonl(SEQ);
		tcp->ack = htonl(1);
		tcp->doff_flags = htons(5 << 12 | TCP_ACK | TCP_PSH);
		tcp->window = htons(1000);
		tcp->csum = ~csum_fold(csum_add(s, l4, l4hl + n));
	}
	return len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct expect_table expects;
	static bool init;
	bool tftp, v6, snat, dnat;
	union ct_addr a = { 0 }, b = { 0 }, n = { 0 };
	struct ct_helper_found f;
	struct conn_help help = { 0 };
	struct conn c = { 0 };
	struct ct_packet p;
	struct packet pkt = { 0 };
	uint32_t room, len, l3off = 14;
	int dir, family;
	uint8_t *buf;

	if (!init) {
		expect_table_init(&expects);
		init = true;
	}
	if (size < 2 || size > 9000)
		return 0;
	tftp = data[0] & 1;
	dir = tftp ? 0 : (data[0] >> 1) & 1;
	v6 = data[0] & 4;
	snat = data[0] & 8;
	dnat = data[0] & 16;
	room = (data[0] >> 5) * 8;
	family = v6 ? AF_INET6 : AF_INET;
	if (v6) {
		a.ip6.s6_addr[0] = b.ip6.s6_addr[0] = n.ip6.s6_addr[0] = 0xfd;
		a.ip6.s6_addr[15] = 1;
		b.ip6.s6_addr[15] = 2;
		n.ip6.s6_addr[15] = 0xf0;
	} else {
		a.ip = htonl(0x0a000001);
		b.ip = htonl(0x0a000002);
		n.ip = htonl(0x0a0000f0);
	}

	/* A:40000 -> B:21 (69), seen by B from n under SNAT; A reaches B
	 * as n under DNAT. */
	c.tuple[0].family = c.tuple[1].family = family;
	c.tuple[0].zone = c.tuple[1].zone = ZONE;
	c.tuple[0].proto = c.tuple[1].proto = tftp ? IPPROTO_UDP : IPPROTO_TCP;
	c.tuple[0].src = a;
	c.tuple[0].dst = dnat ? n : b;
	c.tuple[0].sport = htons(40000);
	c.tuple[0].dport = htons(tftp ? 69 : 21);
	c.tuple[1].src = b;
	c.tuple[1].dst = snat ? n : a;
	c.tuple[1].sport = c.tuple[0].dport;
	c.tuple[1].dport = c.tuple[0].sport;
	c.status = (snat ? CT_S_SRC_NAT : 0) | (dnat ? CT_S_DST_NAT : 0);
	c.helper = tftp ? CT_HELPER_TFTP : CT_HELPER_FTP;
	c.id = 1;
	c.help = &help;
	help.ftp.seq[dir][0] = SEQ;
	help.ftp.n[dir] = 1;

	/* The packet as it leaves NAT: from the translated source in the
	 * original direction, to the translated destination in the reply. */
	buf = malloc(l3off + 40 + 20 + size - 1 + room);
	if (!buf)
		return 0;
	memset(buf, 0, l3off);
	if (dir == 0)
		len = build(buf + l3off, v6, tftp, 0, snat ? &n : &a, &b,
			    data + 1, size - 1);
	else
		len = build(buf + l3off, v6, tftp, 1, dnat ? &n : &b, &a,
			    data + 1, size - 1);
	pkt.data = buf;
	pkt.len = l3off + len;
	pkt.tailroom = room;
	if (ct_packet_parse(buf + l3off, len, family, ZONE, true, &p) !=
	    CT_PARSE_OK) {
		free(buf);
		return 0;
	}
	if (ct_helper_run(c.helper, c.tuple, dir, true, buf + l3off, &p,
			  &help.ftp, &f) == CT_HELPER_EXPECT) {
		struct ct_expect e = { .master = c.tuple[0], .master_id = 1,
				       .t = f.expect, .expires = 1 };
		struct nat_tcp_packet tp = { .pkt = &pkt, .l3off = l3off,
					     .p = &p };

		if (f.expect.family != family || f.expect.zone != ZONE ||
		    f.expect.proto != c.tuple[0].proto)
			abort();
		if (!(c.status & CT_S_NAT_MASK))
			expect_add(&expects, &e, 0, 0);
		else if (!tftp)
			nat_ftp(&expects, &c, dir, &e, &f, &tp, &help.seqadj,
				0);
		else
			nat_tftp(&expects, &c, &e, 0);
		expect_forget(&expects, 1, 0);
	}
	if (help.seqadj.on &&
	    !ct_seqadj_packet(&help.seqadj, dir, buf + l3off + p.l4_off,
			      p.l4_len, false))
		abort();
	if (pkt.len != l3off + p.l3_len || !sums_ok(buf + l3off, &p, v6))
		abort();
	free(buf);
	return 0;
}
