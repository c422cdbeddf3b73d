/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/nat-helper.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet/csum.h"
#include "packet/headers.h"
#include "packet/ip.h"

/* Other ports tried when another connection expects the one named. */
#define PORT_ATTEMPTS	128
#define IP_MAX_LEN	65535

/* The expectation follows the master's mapping: the connection it
 * announces, coming in direction exp_dir of the master, comes from where
 * the master's packets in the other direction go, and goes to their
 * source at port (network order). */
static void
follow(const struct conn *c, int exp_dir, uint16_t port, struct ct_expect *e)
{
	e->follow_nat = true;
	e->nat_src = c->tuple[!exp_dir].dst;
	e->nat_dst = c->tuple[!exp_dir].src;
	e->nat_dport = port;
}

void
nat_follow_master(const struct nat_table *table, struct conn *c,
		  const struct ct_expect *e)
{
	struct ct_nat_range r = {
		.flags = CT_RANGE_MAP_IPS,
		.min_addr = e->nat_src,
		.max_addr = e->nat_src,
	};

	if (!e->follow_nat)
		return;
	/* As nf_nat_follow_master, a mapping impossible is left undone. */
	nat_setup(table, c, &r, CT_MANIP_SRC);
	r.flags |= CT_RANGE_PROTO;
	r.min_addr = r.max_addr = e->nat_dst;
	r.min_port = r.max_port = ntohs(e->nat_dport);
	nat_setup(table, c, &r, CT_MANIP_DST);
}

/* The text of an FTP message of type for addr and port (host order). */
static int
ftp_format(uint8_t type, int family, const union ct_addr *addr, uint16_t port,
	   char *buf, size_t size)
{
	const uint8_t *a = (const uint8_t *)addr;
	const uint16_t *w = addr->ip6.s6_addr16;

	switch (type) {
	case CT_FTP_PORT:
	case CT_FTP_PASV:
		return snprintf(buf, size, "%u,%u,%u,%u,%u,%u", a[0], a[1],
				a[2], a[3], (unsigned)(port >> 8), port & 0xffu);
	case CT_FTP_EPRT:
		if (family == AF_INET)
			return snprintf(buf, size, "|1|%u.%u.%u.%u|%u|", a[0],
					a[1], a[2], a[3], port);
		/* Uncompressed, as the kernel's %pI6. */
		return snprintf(buf, size,
				"|2|%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x|%u|",
				ntohs(w[0]), ntohs(w[1]), ntohs(w[2]),
				ntohs(w[3]), ntohs(w[4]), ntohs(w[5]),
				ntohs(w[6]), ntohs(w[7]), port);
	case CT_FTP_EPSV:
		return snprintf(buf, size, "|||%u|", port);
	default:
		return 0;
	}
}

/* Adds e at its port or, when another master expects that one, at one of
 * the ports above it (nf_nat_exp_find_port). Its port, 0 when none. */
static uint16_t
expect_port(struct expect_table *t, struct ct_expect *e, uint64_t now)
{
	uint16_t min = ntohs(e->t.dport), port = min;
	uint32_t range = 65535 - min;

	for (int left = range < PORT_ATTEMPTS ? range : PORT_ATTEMPTS;;
	     left--) {
		int err;

		e->t.dport = htons(port);
		err = expect_add(t, e, now, 0);
		if (!err)
			return port;
		if (err != -EBUSY || left <= 0)
			return 0;
		port = min + (uint32_t)random() % range;
	}
}

int
nat_ftp(struct expect_table *t, const struct conn *c, int dir,
	struct ct_expect *e, const struct ct_helper_found *f,
	struct nat_tcp_packet *tp, struct ct_seqadj *sa, uint64_t now)
{
	/* The data connection comes from where this packet goes. */
	const union ct_addr *addr = &c->tuple[!dir].dst;
	const struct tcp_header *tcp;
	char buf[sizeof("|2||65535|") + 40];
	uint16_t port;
	int n;

	follow(c, !dir, e->t.dport, e);
	port = expect_port(t, e, now);
	if (!port)
		return -EBUSY;
	n = ftp_format(f->ftp_type, c->tuple[0].family, addr, port, buf,
		       sizeof(buf));
	tcp = (const struct tcp_header *)(tp->pkt->data + tp->l3off +
					  tp->p->l4_off);
	if (n <= 0 || (size_t)n >= sizeof(buf) ||
	    !nat_mangle_tcp(tp, f->off, f->len, buf, n)) {
		expect_forget(t, e->master_id, 0);
		return -EINVAL;
	}
	ct_seqadj_set(sa, dir, ntohl(tcp->seq), n - (int32_t)f->len);
	return 0;
}

int
nat_tftp(struct expect_table *t, const struct conn *c, struct ct_expect *e,
	 uint64_t now)
{
	follow(c, CT_DIR_REPLY, c->tuple[CT_DIR_ORIG].sport, e);
	return expect_add(t, e, now, 0);
}

bool
nat_mangle_tcp(struct nat_tcp_packet *tp, uint32_t off, uint32_t len,
	       const char *rep, uint32_t rlen)
{
	struct packet *pkt = tp->pkt;
	struct ct_packet *p = tp->p;
	uint8_t *l3 = pkt->data + tp->l3off, *l4 = l3 + p->l4_off;
	struct tcp_header *tcp = (struct tcp_header *)l4;
	uint32_t at = p->l4_off + tcp_hlen(tcp) + off, end = tp->l3off + p->l3_len;
	int32_t grow = (int32_t)rlen - (int32_t)len;
	uint16_t old_len = htons(p->l4_len), new_len;

	if (at + len > p->l3_len ||
	    (grow > 0 && (p->l3_len + grow > IP_MAX_LEN ||
			  pkt->tailroom + (pkt->len - end) < (uint32_t)grow)))
		return false;
	/* What follows the datagram (Ethernet padding) goes. */
	pkt->tailroom += pkt->len - end;
	pkt->len = end;
	memmove(l3 + at + rlen, l3 + at + len, p->l3_len - at - len);
	memcpy(l3 + at, rep, rlen);
	pkt->len += grow;
	pkt->tailroom -= grow;
	p->l3_len += grow;
	p->l4_len += grow;
	new_len = htons(p->l4_len);
	if (p->tuple.family == AF_INET) {
		struct ipv4_header *ip = (struct ipv4_header *)l3;

		ip->tot_len = htons(p->l3_len);
		ipv4_set_csum(ip);
	} else {
		struct ipv6_header *ip6 = (struct ipv6_header *)l3;

		ip6->payload_len = htons(p->l3_len - sizeof(*ip6));
	}
	if (tp->partial) {
		/* The pseudo-header's length only. */
		csum_update_partial(&tcp->csum, &old_len, &new_len, 2);
	} else {
		const struct ipv4_header *ip = (const struct ipv4_header *)l3;
		const struct ipv6_header *ip6 = (const struct ipv6_header *)l3;
		uint32_t s = p->tuple.family == AF_INET
			? csum_pseudo(&ip->saddr, &ip->daddr, 4, IPPROTO_TCP,
				      p->l4_len)
			: csum_pseudo(ip6->saddr, ip6->daddr, 16, IPPROTO_TCP,
				      p->l4_len);

		tcp->csum = 0;
		tcp->csum = ~csum_fold(csum_add(s, l4, p->l4_len));
	}
	return true;
}
