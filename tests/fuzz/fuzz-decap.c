/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: tunnel decapsulation. The first byte picks the port
 * (kind, GBP, L3, the GRE input checksum flag, GPE; bareudp and its
 * protocol and multiproto mode) and the outer family, the
 * second is the outer TOS; the rest is what followed the outer IP header,
 * a heap copy of its exact size so the sanitizers see any read past it.
 * Beyond them it holds encap_decap() to its contract: only its errnos, the
 * inner packet inside the input, no flag the kind cannot give; and what it
 * accepts, sent back with the key it gave, comes back as the same inner
 * packet with the same id. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "packet/encap.h"

/* What each kind's receive path may set. */
static const uint16_t kind_flags[] = {
	[ENCAP_VXLAN] = TUN_F_KEY | TUN_F_CSUM | TUN_F_VXLAN_OPT,
	[ENCAP_GENEVE] = TUN_F_KEY | TUN_F_CSUM | TUN_F_OAM | TUN_F_CRIT_OPT |
			 TUN_F_GENEVE_OPT,
	[ENCAP_GRE] = TUN_F_KEY | TUN_F_CSUM | TUN_F_SEQ,
	[ENCAP_ERSPAN] = TUN_F_KEY | TUN_F_CSUM | TUN_F_SEQ | TUN_F_ERSPAN_OPT,
	[ENCAP_BAREUDP] = TUN_F_CSUM,
};

static void
outer_init(struct encap_outer *o, uint8_t sel, uint8_t tos)
{
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t b6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	memset(o, 0, sizeof(*o));
	o->family = sel & 0x04 ? AF_INET6 : AF_INET;
	o->ipv4_src = htonl(0xc0000201);
	o->ipv4_dst = htonl(0xc0000202);
	memcpy(&o->ipv6_src, a6, 16);
	memcpy(&o->ipv6_dst, b6, 16);
	o->tos = tos;
	o->ttl = 64;
}

/* Sends the inner packet back with the key received and receives it
 * again. */
static void
resend(const struct encap_port *port, const struct tun_key *key,
       const uint8_t *inner, const struct encap_inner *in)
{
	struct encap_port rport = *port;
	struct encap_tx tx = { .proto = in->proto, .hash = 0x5eed };
	struct encap_outer o;
	struct encap_inner in2;
	struct encap_buf b;
	struct tun_key key2;
	uint8_t *buf = malloc(ENCAP_HLEN_MAX + in->len + 1);
	uint8_t *copy;
	size_t len;
	int err;

	if (!buf)
		abort();
	/* Sent in a GRE header without flags, a packet of WCCP's type is
	 * WCCP to the receiver, and the receiver takes 4 bytes of it for
	 * WCCP's header. */
	if (in->proto == htons(ETH_P_WCCP)) {
		free(buf);
		return;
	}
	memcpy(buf + ENCAP_HLEN_MAX, inner, in->len);
	b = (struct encap_buf){ buf, ENCAP_HLEN_MAX, in->len };
	err = encap_push(port, key, &tx, &b, &o);
	if (err == -EINVAL) {
		/* Keys the devices drop (ERSPAN versions but 1 and 2), IP
		 * headers past VLAN tags too short to send. */
		free(buf);
		return;
	}
	if (err || b.head + b.len != ENCAP_HLEN_MAX + in->len)
		abort();
	/* IPv4's GRE demultiplexer drops anything below 12 bytes: the
	 * resent header may be shorter than the received one. */
	if (!encap_udp(port->kind) && o.family == AF_INET && b.len < 12) {
		free(buf);
		return;
	}
	rport.gre_csum_in = port->kind == ENCAP_GRE &&
			    (key->flags & TUN_F_CSUM);
	len = b.len;
	copy = malloc(len);
	if (!copy)
		abort();
	memcpy(copy, buf + b.head, len);
	err = encap_decap(&rport, &o, copy, len, &key2, &in2);
	if (err || in2.len != in->len || in2.proto != in->proto ||
	    memcmp(copy + in2.off, inner, in->len) || key2.id != key->id)
		abort();
	free(copy);
	free(buf);
}

static void
run(uint8_t sel, uint8_t tos, const uint8_t *data, size_t size)
{
	struct encap_port port = {
		.kind = sel & 0x80 ? ENCAP_BAREUDP : sel & 0x03,
		.dst_port = htons(4789),
		.port_min = 32768,
		.port_max = 61000,
		.gbp = sel & 0x08,
		.l3 = sel & 0x50,
		.gre_csum_in = sel & 0x20,
		/* As a device is made: VXLAN-GPE is L3. */
		.gpe = sel & 0x40,
		/* bareudp: IPv4 or unicast MPLS, multiproto or not. */
		.ethertype = sel & 0x08 ? htons(ETH_P_MPLS_UC) : htons(ETH_P_IP),
		.multiproto = sel & 0x20,
	};
	struct encap_outer o;
	struct encap_inner in;
	struct tun_key key;
	uint8_t *p = malloc(size ? size : 1);
	int err;

	if (!p)
		abort();
	memcpy(p, data, size);
	outer_init(&o, sel, tos);
	err = encap_decap(&port, &o, p, size, &key, &in);
	if (err) {
		if (err != -EINVAL && err != -EBADMSG &&
		    err != -EPROTONOSUPPORT && err != -EPROTO)
			abort();
	} else {
		if (in.off > size || in.len > size - in.off)
			abort();
		if (in.proto == htons(ETH_P_TEB) && in.len < ETH_HLEN)
			abort();
		if (key.flags & ~kind_flags[port.kind])
			abort();
		if (!!key.opts_len != !!(key.flags & TUN_F_OPTS))
			abort();
		if (key.family != o.family || key.tos != tos)
			abort();
		if (!encap_udp(port.kind) && (key.tp_src || key.tp_dst))
			abort();
		resend(&port, &key, p + in.off, &in);
	}
	free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	run(data[0], data[1], data + 2, size - 2);
	return 0;
}
