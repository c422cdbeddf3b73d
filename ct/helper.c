/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/helper.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ct/ct-types.h"
#include "packet/headers.h"

/* Parses a decimal number of at most max at *p; advances *p. */
static bool
number(const char **p, const char *end, unsigned long max, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	if (s == end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s)) {
		*v = *v * 10 + (*s++ - '0');
		if (*v > max)
			return false;
	}
	*p = s;
	return true;
}

/* "h1,h2,h3,h4,p1,p2" (RFC 959): an IPv4 address and a port. */
static bool
comma_list(const char *s, const char *end, uint32_t *addr, uint16_t *port)
{
	unsigned long v[6];

	for (int i = 0; i < 6; i++) {
		if (!number(&s, end, 255, &v[i]))
			return false;
		if (i < 5) {
			if (s == end || *s != ',')
				return false;
			s++;
		}
	}
	*addr = htonl(v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]);
	*port = htons(v[4] << 8 | v[5]);
	return true;
}

/* "|proto|address|port|" (RFC 2428 EPRT), the delimiter being the first
 * character; the address family must be the connection's. */
static bool
eprt(const char *s, const char *end, int family, union ct_addr *addr,
     uint16_t *port)
{
	char d, buf[64];
	const char *a, *b;
	unsigned long af, v;

	if (end - s < 7)
		return false;
	d = *s++;
	if (!number(&s, end, 2, &af) || s == end || *s++ != d ||
	    af != (family == AF_INET ? 1u : 2u))
		return false;
	a = s;
	b = memchr(a, d, end - a);
	if (!b || b - a >= (long)sizeof(buf))
		return false;
	memcpy(buf, a, b - a);
	buf[b - a] = '\0';
	if (inet_pton(family, buf, addr) != 1)
		return false;
	s = b + 1;
	if (!number(&s, end, 65535, &v) || s == end || *s != d)
		return false;
	*port = htons(v);
	return true;
}

/* "(|||port|)" (RFC 2428 229 reply): a port only. */
static bool
epsv(const char *s, const char *end, uint16_t *port)
{
	const char *open = memchr(s, '(', end - s);
	unsigned long v;
	char d;

	if (!open || end - open < 6)
		return false;
	s = open + 1;
	d = *s;
	if (s[1] != d || s[2] != d)
		return false;
	s += 3;
	if (!number(&s, end, 65535, &v) || s == end || *s != d)
		return false;
	*port = htons(v);
	return true;
}

static bool
ftp(const struct ct_tuple tuple[2], int dir, const char *s, const char *end,
    struct ct_tuple *exp)
{
	const struct ct_tuple *from = &tuple[dir], *peer = &tuple[!dir];
	union ct_addr addr = from->src;
	uint16_t port;
	bool ok;

	if (dir == 0 && end - s > 5 && !strncasecmp(s, "PORT ", 5)) {
		memset(&addr, 0, sizeof(addr));
		ok = from->family == AF_INET &&
		     comma_list(s + 5, end, &addr.ip, &port);
	} else if (dir == 0 && end - s > 5 && !strncasecmp(s, "EPRT ", 5)) {
		memset(&addr, 0, sizeof(addr));
		ok = eprt(s + 5, end, from->family, &addr, &port);
	} else if (dir == 1 && end - s > 4 && !strncmp(s, "227 ", 4)) {
		const char *d = s + 4;

		/* The numbers follow whatever text the server chose. */
		while (d < end && !isdigit((unsigned char)*d))
			d++;
		memset(&addr, 0, sizeof(addr));
		ok = from->family == AF_INET &&
		     comma_list(d, end, &addr.ip, &port);
	} else if (dir == 1 && end - s > 4 && !strncmp(s, "229 ", 4)) {
		ok = epsv(s + 4, end, &port);
	} else {
		return false;
	}
	/* A command naming another host than its sender opens nothing
	 * (nf_conntrack_ftp without "loose"). */
	if (!ok || memcmp(&addr, &from->src, sizeof(addr)) || !port)
		return false;
	memset(exp, 0, sizeof(*exp));
	exp->family = from->family;
	exp->zone = from->zone;
	exp->proto = IPPROTO_TCP;
	exp->src = peer->src;
	exp->dst = peer->dst;
	exp->dport = port;
	return true;
}

/* A read or write request opens the transfer: from the server, any port,
 * to the client's port. */
static bool
tftp(const struct ct_tuple tuple[2], int dir, const uint8_t *d, uint32_t len,
     struct ct_tuple *exp)
{
	const struct ct_tuple *rep = &tuple[1];

	if (len < 2 || d[0] != 0 || (d[1] != 1 && d[1] != 2))
		return false;
	memset(exp, 0, sizeof(*exp));
	exp->family = rep->family;
	exp->zone = rep->zone;
	exp->proto = IPPROTO_UDP;
	exp->src = rep->src;
	exp->dst = rep->dst;
	exp->dport = rep->dport;
	return true;
}

bool
ct_helper_expect(uint8_t helper, const struct ct_tuple tuple[2], int dir,
		 const uint8_t *l3, const struct ct_packet *p,
		 struct ct_tuple *exp)
{
	const uint8_t *l4 = l3 + p->l4_off;
	const struct tcp_header *tcp;
	uint32_t off;

	switch (helper) {
	case CT_HELPER_FTP:
		tcp = header_at(l4, p->l4_len, 0, TCP_HLEN);
		if (!tcp)
			return false;
		off = tcp_hlen(tcp);
		if (off >= p->l4_len)
			return false;
		return ftp(tuple, dir, (const char *)l4 + off,
			   (const char *)l4 + p->l4_len, exp);
	case CT_HELPER_TFTP:
		if (!header_at(l4, p->l4_len, 0, UDP_HLEN))
			return false;
		return tftp(tuple, dir, l4 + UDP_HLEN, p->l4_len - UDP_HLEN,
			    exp);
	default:
		return false;
	}
}
