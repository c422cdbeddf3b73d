/* SPDX-License-Identifier: Apache-2.0 */
/* A packet in the datapath: a frame inside a buffer with room in front of
 * it for the headers actions push, plus the metadata the kernel keeps in
 * the skb (hash, truncation, sampling probability, header offsets, the
 * tunnel to leave by).
 *
 * Owned by the thread that processes it; never shared. */
#ifndef TAPDP_FLOW_PACKET_H
#define TAPDP_FLOW_PACKET_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "flow/extract.h"
#include "packet/frame.h"
#include "packet/offload.h"
#include "packet/tun-key.h"

struct packet {
	uint8_t *data;			/* the frame */
	uint32_t len;
	uint32_t headroom;		/* free bytes before data */
	uint32_t tailroom;		/* free bytes after data + len */
	uint32_t hash;			/* 0: not computed yet */
	/* What the last trunc() keeps at output, 0: all. A length, not
	 * the bytes to cut, as the kernel's cutlen: actions after trunc()
	 * that change the packet's length do not move it. */
	uint32_t trunc;
	uint32_t probability;		/* of the sample() running the
					 * actions, 0: none (a psample's
					 * rate) */
	uint16_t mru;			/* reassembled: largest fragment's IP
					 * length, to cut again at output */
	struct flow_layers layers;	/* valid while key_valid */
	bool key_valid;			/* the key describes the frame */
	bool l3;			/* no Ethernet header (popped) */
	struct virtio_net_hdr vnet;	/* offload: partial csum, GSO */
	/* The tunnel to leave by, from the last set(tunnel) (NULL: none),
	 * for a tunnel port at output; other ports ignore it. As the
	 * kernel's skb dst: copies and recirculations keep it, the flow
	 * key's tun (the way in) is another thing. It points into the
	 * stored actions that set it, which stay while the packet is
	 * processed (one RCU read-side section). */
	const struct tun_key *egress_tun;
};

static inline bool
packet_csum_partial(const struct packet *p)
{
	return p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
}

/* Whether trunc() cuts the packet at output, and the bytes output gives
 * of it (the kernel's min(skb->len, cutlen)). */
static inline bool
packet_truncated(const struct packet *p)
{
	return p->trunc && p->trunc < p->len;
}

static inline uint32_t
packet_out_len(const struct packet *p)
{
	return packet_truncated(p) ? p->trunc : p->len;
}

static inline void
packet_init(struct packet *p, uint8_t *buf, uint32_t size, uint32_t len)
{
	p->data = buf + FRAME_HEADROOM;
	p->len = len;
	p->headroom = FRAME_HEADROOM;
	p->tailroom = size - FRAME_HEADROOM - len;
	p->hash = 0;
	p->trunc = 0;
	p->probability = 0;
	p->mru = 0;
	p->key_valid = false;
	p->l3 = false;
	memset(&p->vnet, 0, sizeof(p->vnet));
	p->egress_tun = NULL;
}

/* The key's packet fields and the header offsets, from the packet as it
 * is now; an L3 packet's protocol is the key's eth_type (the kernel's
 * skb->protocol), which the actions that change it keep up to date. */
static inline int
packet_extract(struct packet *p, struct flow_key *key)
{
	int err = flow_extract_packet(p->data, p->len, p->l3, key,
				      &p->layers);

	p->key_valid = true;
	return err;
}

/* Opens n bytes at offset off (moving what precedes it forward); false
 * when the headroom and tailroom together are too small. Headroom short
 * of n is made by moving the frame back into the tailroom, as the kernel
 * reallocates the head. */
static inline bool
packet_insert(struct packet *p, uint32_t off, uint32_t n)
{
	if (off > p->len)
		return false;
	if (p->headroom < n) {
		uint32_t shift = n - p->headroom;

		if (p->tailroom < shift)
			return false;
		memmove(p->data + shift, p->data, p->len);
		p->data += shift;
		p->headroom += shift;
		p->tailroom -= shift;
	}
	memmove(p->data - n, p->data, off);
	p->data -= n;
	p->len += n;
	p->headroom -= n;
	offload_shift(&p->vnet, off, n);
	return true;
}

/* Removes n bytes at offset off. */
static inline void
packet_remove(struct packet *p, uint32_t off, uint32_t n)
{
	memmove(p->data + n, p->data, off);
	p->data += n;
	p->len -= n;
	p->headroom += n;
	offload_shift(&p->vnet, off, -(int)n);
}

/* Finishes a partial checksum in software, for those who get the frame
 * without its offload metadata (userspace). */
static inline void
packet_csum_finish(struct packet *p)
{
	offload_csum_finish(p->data, p->len, &p->vnet);
}

#endif
