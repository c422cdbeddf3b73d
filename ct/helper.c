/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/helper.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "ct/ct-types.h"
#include "ct/tcp.h"
#include "packet/headers.h"

/* One message FTP looks for at the start of a line: its leading text, the
 * character after which its numbers start (0: right after the text) and
 * the one that must end them (0: any). */
struct ftp_pattern {
	const char *text;
	uint8_t text_len;
	char skip, term;
	uint8_t type;			/* enum ct_ftp_type */
};

/* By direction: commands from the client, replies from the server. */
static const struct ftp_pattern patterns[2][2] = {
	{ { "PORT", 4, ' ', '\r', CT_FTP_PORT },
	  { "EPRT", 4, ' ', '\r', CT_FTP_EPRT } },
	{ { "227 ", 4, 0, 0, CT_FTP_PASV },
	  { "229 ", 4, '(', ')', CT_FTP_EPSV } },
};


/* n decimal numbers separated by sep, the last followed by term (by
 * anything but a digit or sep when term is 0). Returns the length of the
 * list, 0 when malformed. The values are not bounded (nor are they in
 * nf_conntrack_ftp: an address out of range is simply not the sender's). */
static uint32_t
numbers(const char *s, uint32_t len, uint32_t *v, int n, char sep, char term)
{
	int i = 0;

	memset(v, 0, n * sizeof(*v));
	for (uint32_t k = 0; k < len; k++) {
		if (isdigit((unsigned char)s[k])) {
			v[i] = v[i] * 10 + (s[k] - '0');
		} else if (s[k] == sep) {
			if (++i == n)
				return 0;
		} else {
			return (!term || s[k] == term) && i == n - 1 ? k : 0;
		}
	}
	return 0;
}

/* "h1,h2,h3,h4,p1,p2" (RFC 959): an IPv4 address and a port. */
static uint32_t
comma_list(const char *s, uint32_t len, char term, union ct_addr *addr,
	   uint16_t *port)
{
	uint32_t v[6], n = numbers(s, len, v, 6, ',', term);

	if (n) {
		addr->ip = htonl(v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]);
		*port = htons((uint16_t)(v[4] << 8 | v[5]));
	}
	return n;
}

/* A port between delimiters d, from s[start] on: the length up to and
 * including the closing delimiter, 0 when malformed or 0. */
static uint32_t
delimited_port(const char *s, uint32_t start, uint32_t len, char d,
	       uint16_t *port)
{
	uint16_t v = 0;

	for (uint32_t i = start; i < len; i++) {
		if (s[i] == d) {
			if (!v)
				return 0;
			*port = htons(v);
			return i + 1;
		}
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return 0;
}

/* An IPv6 address ending at delimiter d: the length of its text. */
static uint32_t
ipv6_text(const char *s, uint32_t len, char d, struct in6_addr *a)
{
	char buf[INET6_ADDRSTRLEN];
	const char *end = memchr(s, d, len < sizeof(buf) ? len : sizeof(buf));

	if (!end)
		return 0;
	memcpy(buf, s, end - s);
	buf[end - s] = '\0';
	return inet_pton(AF_INET6, buf, a) == 1 ? end - s : 0;
}

/* A printable delimiter that is no digit (RFC 2428). */
static bool
delimiter(char d)
{
	return !isdigit((unsigned char)d) && d >= 33 && d <= 126;
}

/* "|af|address|port|" (RFC 2428 EPRT), af the connection's family. */
static uint32_t
eprt(const char *s, uint32_t len, int family, union ct_addr *addr,
     uint16_t *port)
{
	uint32_t v[4], n;
	char d;

	if (len <= 3)
		return 0;
	d = s[0];
	if (!delimiter(d) || s[2] != d ||
	    s[1] != (family == AF_INET ? '1' : '2'))
		return 0;
	if (family == AF_INET) {
		n = numbers(s + 3, len - 3, v, 4, '.', d);
		if (n)
			addr->ip = htonl(v[0] << 24 | v[1] << 16 | v[2] << 8 |
					 v[3]);
	} else {
		n = ipv6_text(s + 3, len - 3, d, &addr->ip6);
	}
	return n ? delimited_port(s, 3 + n + 1, len, d, port) : 0;
}

/* "|||port|" (RFC 2428 229 reply): a port only. */
static uint32_t
epsv(const char *s, uint32_t len, uint16_t *port)
{
	char d;

	if (len <= 3)
		return 0;
	d = s[0];
	if (!delimiter(d) || s[1] != d || s[2] != d)
		return 0;
	return delimited_port(s, 3, len, d, port);
}

/* Whether the line s (len bytes) is pt's message: 1, with its numbers'
 * text at *off (*mlen bytes); 0 when it is not; -1 when it is but cut
 * short or malformed. */
static int
ftp_match(const struct ftp_pattern *pt, const char *s, uint32_t len,
	  int family, union ct_addr *addr, uint16_t *port, uint32_t *off,
	  uint32_t *mlen)
{
	uint32_t i = pt->text_len, n = 0;

	if (len <= pt->text_len)
		return strncasecmp(s, pt->text, len) ? 0 : -1;
	if (strncasecmp(s, pt->text, pt->text_len))
		return 0;
	if (pt->skip) {
		while (s[i] != pt->skip)
			if (i++ == len - 1)
				return -1;
		i++;
	}
	switch (pt->type) {
	case CT_FTP_PORT:
		if (family == AF_INET)
			n = comma_list(s + i, len - i, pt->term, addr, port);
		break;
	case CT_FTP_EPRT:
		n = eprt(s + i, len - i, family, addr, port);
		break;
	case CT_FTP_PASV:
		/* The numbers follow whatever text the server chose. */
		while (i < len && !isdigit((unsigned char)s[i]))
			i++;
		if (family == AF_INET)
			n = comma_list(s + i, len - i, pt->term, addr, port);
		break;
	case CT_FTP_EPSV:
		n = epsv(s + i, len - i, port);
		break;
	}
	if (!n)
		return family == AF_INET || pt->type == CT_FTP_EPRT ||
		       pt->type == CT_FTP_EPSV ? -1 : 0;
	*off = i;
	*mlen = n;
	return 1;
}

static bool
line_start(const struct ct_ftp_lines *l, int dir, uint32_t seq)
{
	for (int i = 0; i < l->n[dir]; i++)
		if (l->seq[dir][i] == seq)
			return true;
	return false;
}

/* A segment of dir ended with a newline just before seq: keep it, in
 * place of the older of two (never going back). */
static void
line_end(struct ct_ftp_lines *l, int dir, uint32_t seq)
{
	uint32_t *s = l->seq[dir];
	int oldest;

	if (line_start(l, dir, seq))
		return;
	if (l->n[dir] < 2) {
		s[l->n[dir]++] = seq;
		return;
	}
	oldest = ct_seq_after(s[1], s[0]) ? 0 : 1;
	if (ct_seq_after(seq, s[oldest]))
		s[oldest] = seq;
}

static enum ct_helper_verdict
ftp(const struct ct_tuple tuple[2], int dir, const char *s, uint32_t len,
    uint32_t seq, struct ct_ftp_lines *lines, struct ct_helper_found *f)
{
	const struct ct_tuple *from = &tuple[dir], *peer = &tuple[!dir];
	enum ct_helper_verdict v = CT_HELPER_PASS;
	union ct_addr addr = from->src;
	uint16_t port = 0;
	int found = 0;

	if (line_start(lines, dir, seq)) {
		for (int i = 0; i < 2 && !found; i++) {
			found = ftp_match(&patterns[dir][i], s, len,
					  from->family, &addr, &port, &f->off,
					  &f->len);
			f->ftp_type = patterns[dir][i].type;
		}
		if (found < 0)
			return CT_HELPER_DROP;
	}
	/* A message naming another host than its sender opens nothing
	 * (nf_conntrack_ftp without "loose"). */
	if (found > 0 && !memcmp(&addr, &from->src, sizeof(addr))) {
		memset(&f->expect, 0, sizeof(f->expect));
		f->expect.family = from->family;
		f->expect.zone = from->zone;
		f->expect.proto = IPPROTO_TCP;
		f->expect.src = peer->src;
		f->expect.dst = peer->dst;
		f->expect.dport = port;
		v = CT_HELPER_EXPECT;
	}
	if (s[len - 1] == '\n')
		line_end(lines, dir, seq + len);
	return v;
}

/* A read or write request opens the transfer: from the server, any port,
 * to the client's port. */
static enum ct_helper_verdict
tftp(const struct ct_tuple tuple[2], const uint8_t *d, uint32_t len,
     struct ct_tuple *exp)
{
	const struct ct_tuple *rep = &tuple[1];

	if (len < 2 || d[0] != 0 || (d[1] != 1 && d[1] != 2))
		return CT_HELPER_PASS;
	memset(exp, 0, sizeof(*exp));
	exp->family = rep->family;
	exp->zone = rep->zone;
	exp->proto = IPPROTO_UDP;
	exp->src = rep->src;
	exp->dst = rep->dst;
	exp->dport = rep->dport;
	return CT_HELPER_EXPECT;
}

enum ct_helper_verdict
ct_helper_run(uint8_t helper, const struct ct_tuple tuple[2], int dir,
	      bool established, const uint8_t *l3, const struct ct_packet *p,
	      struct ct_ftp_lines *lines, struct ct_helper_found *found)
{
	const uint8_t *l4 = l3 + p->l4_off;
	const struct tcp_header *tcp;
	uint32_t off;

	switch (helper) {
	case CT_HELPER_FTP:
		/* Nothing is read before the server has answered. */
		if (!established)
			return CT_HELPER_PASS;
		tcp = header_at(l4, p->l4_len, 0, TCP_HLEN);
		if (!tcp)
			return CT_HELPER_PASS;
		off = tcp_hlen(tcp);
		if (off >= p->l4_len)
			return CT_HELPER_PASS;
		return ftp(tuple, dir, (const char *)l4 + off,
			   p->l4_len - off, ntohl(tcp->seq), lines, found);
	case CT_HELPER_TFTP:
		if (!header_at(l4, p->l4_len, 0, UDP_HLEN))
			return CT_HELPER_PASS;
		return tftp(tuple, l4 + UDP_HLEN, p->l4_len - UDP_HLEN,
			    &found->expect);
	default:
		return CT_HELPER_PASS;
	}
}
