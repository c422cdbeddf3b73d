/* SPDX-License-Identifier: Apache-2.0 */
/* IP fragments around connection tracking, as the kernel datapath does
 * with nf_defrag_ipv4/ipv6 and ovs_fragment(): fragments are held until
 * their datagram is whole, conntrack sees the datagram, and on output a
 * datagram larger than the largest fragment it came in (its MRU) is cut
 * again into fragments of at most that size.
 *
 * Reassembly follows Linux's rules: queues per zone, addresses, protocol
 * and id; an overlapping fragment discards its whole queue (RFC 5722, and
 * Linux's IPv4 since 2018), an exact duplicate only itself; a queue lives
 * 30 s; all queues together hold at most 4 MiB (ipfrag_high_thresh), past
 * which new fragments are dropped. Every drop is counted.
 *
 * Thread-safety: a frag_table takes its own lock (fragments are the slow
 * path); frag_split() changes nothing but its thread's buffer. Each
 * thread's buffers (frag_gather()'s for a datagram its packet cannot
 * hold, frag_split()'s) are taken from the frame pool at their first use
 * and given back by frag_release(). */
#ifndef TAPDP_CT_FRAG_H
#define TAPDP_CT_FRAG_H

#include <stdbool.h>
#include <stdint.h>

#include "flow/packet.h"

struct frag_table;

struct frag_stats {
	uint64_t reassembled;		/* datagrams made whole */
	uint64_t dropped;		/* fragments dropped (bad, overlaps,
					 * memory) */
	uint64_t expired;		/* queues timed out */
};

struct frag_table *frag_table_create(void);
void frag_table_destroy(struct frag_table *t);

enum frag_result {
	FRAG_QUEUED,			/* held; the packet goes no further */
	FRAG_DONE,			/* pkt is now the whole datagram */
	FRAG_DROP,			/* invalid or refused: drop it */
};

/* pkt holds an IPv4 or IPv6 fragment at l3 (family AF_INET or AF_INET6).
 * Queues a copy; the fragment that completes the datagram is rewritten
 * into the whole datagram (the link-layer header kept, pkt->mru set to
 * the largest fragment's IP length): in place when pkt's buffer holds it,
 * else pkt moves to a buffer of the calling thread's, valid until the
 * thread's next frag_gather(). An IPv6 atomic fragment is whole already.
 * now: clock_now_ms(). */
enum frag_result frag_gather(struct frag_table *t, struct packet *pkt,
			     uint32_t l3, int family, uint16_t zone,
			     uint64_t now);

/* Drops queues older than their lifetime. now: as for frag_gather(). */
void frag_expire(struct frag_table *t, uint64_t now);
void frag_get_stats(struct frag_table *t, struct frag_stats *s);

/* Cuts the datagram at l3 in frame (len bytes, an l3-byte link-layer
 * header in front) into fragments whose IP part is at most mru bytes, and
 * gives each whole frame to send. Returns the number of frames sent, or
 * -EINVAL when it cannot be cut (a malformed header, an mru too small for
 * eight bytes of data), -ENOMEM without its thread's buffer. */
int frag_split(const uint8_t *frame, uint32_t len, uint32_t l3, int family,
	       uint16_t mru,
	       void (*send)(void *arg, const uint8_t *frame, uint32_t len),
	       void *arg);

/* Gives back the calling thread's buffers once the packets in them are
 * done (the end of a receive burst or an execute, a thread's end). */
void frag_release(void);

#endif
