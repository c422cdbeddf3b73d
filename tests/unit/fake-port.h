/* SPDX-License-Identifier: Apache-2.0 */
/* Ports without devices, for unit tests: a port type whose device is a
 * datagram socketpair. One end is the port's (its receive queues and its
 * sends), the other the test's wire: a frame written to the wire is
 * received by the port, a frame the port sends is read from the wire.
 *
 * As with real devices, an internal port creates its device (-EEXIST when
 * the name is taken) and removes it when it goes; a netdev port opens a
 * device fake_device_add() made (-ENODEV otherwise). Device indexes are
 * far above any the host uses. Frames cross the wire with a virtio-net
 * header in front, as on a TAP device with IFF_VNET_HDR: what a port
 * receives may ask for offloads.
 *
 * Threads: devices are made, opened and closed by the test's thread (the
 * datapath's control thread); the ports' threads receive and send. */
#ifndef TAPDP_TESTS_FAKE_PORT_H
#define TAPDP_TESTS_FAKE_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tap/vport.h"

struct msgbuf;
struct nlattr;

/* For struct dp_net_config's port_ops. */
const struct vport_ops *fake_port_ops(enum ovs_vport_type type);

/* A device netdev ports can open: 0 or -EEXIST. */
int fake_device_add(const char *name);
void fake_device_del(const char *name);

/* Writes a frame to the device's wire, as if it came from outside. */
void fake_wire_send(const char *name, const void *frame, size_t len);
/* The same with the offloads vh asks for (partial checksum, GSO). */
void fake_wire_send_vnet(const char *name, const struct virtio_net_hdr *vh,
			 const void *frame, size_t len);
/* A frame the port on the device sent, waiting up to ms milliseconds for
 * it: its length, or -1 when none came. */
ssize_t fake_wire_recv(const char *name, void *buf, size_t size, int ms);

/* The frame tests send: FAKE_FRAME_LEN bytes from fb_mac_src to fb_mac_dst
 * (tests/unit/builders.h), of a local experimental EtherType (nothing past
 * Ethernet to parse). Returns its length. */
#define FAKE_FRAME_LEN	60

/* What a fake netdev port completes an egress tunnel with (host order):
 * its ops have egress_info, as a tunnel port's, for IPv4 tunnels. */
#define FAKE_EGRESS_SRC		0x0a000001
#define FAKE_EGRESS_SPORT	4242
#define FAKE_EGRESS_DPORT	4789
#define FAKE_ETH_TYPE	0x88b5
size_t fake_frame(uint8_t *frame);
/* The flow key of such a frame from src received on in_port, as a nest of
 * type (OVS_FLOW_ATTR_KEY, OVS_PACKET_ATTR_KEY) added to mb; returns the
 * nest. */
struct nlattr *fake_frame_key(struct msgbuf *mb, uint16_t type,
			      uint32_t in_port, const uint8_t *src);
/* The attributes of that key, for a nest the caller adds more to. */
void fake_frame_key_put(struct msgbuf *mb, uint32_t in_port,
			const uint8_t *src);

#endif
