/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/frag.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ct/tuple.h"
#include "packet/frame.h"
#include "packet/headers.h"
#include "packet/ip.h"
#include "packet/ipv6-exthdr.h"
#include "packet/options.h"

#define FRAG_BUCKETS	256
#define FRAG_TIMEOUT_MS	30000		/* ipfrag_time */
#define FRAG_MEM_MAX	(4u << 20)	/* ipfrag_high_thresh */
#define FRAG_V6_HDR_MAX	512		/* IPv6's unfragmentable part */

struct frag {
	struct frag *next;		/* by offset */
	uint32_t off, len;
	uint8_t data[];
};

struct frag_key {
	union ct_addr src, dst;
	uint32_t id;
	uint16_t zone;
	uint8_t proto;			/* IPv4 only */
	uint8_t family;
};

struct frag_queue {
	struct frag_queue *next;	/* hash chain */
	struct frag_key key;
	uint64_t created;
	struct frag *frags;
	uint32_t total;			/* datagram's payload; 0: unknown */
	uint32_t end;			/* the furthest any fragment reaches */
	uint32_t have;			/* payload bytes held */
	uint32_t mem;
	uint16_t max_size;		/* largest fragment's IP length */
	/* The first fragment's header: IPv4's with its options, IPv6's
	 * unfragmentable part; 0 bytes until it comes. */
	uint16_t hdr_len;
	uint16_t nexthdr_at;		/* IPv6: where the 44 to replace is */
	uint8_t nexthdr;		/* IPv6: the fragment header's */
	uint8_t hdr[IPV4_HLEN_MAX + FRAG_V6_HDR_MAX];
};

struct frag_table {
	pthread_mutex_t lock;
	struct frag_queue *bucket[FRAG_BUCKETS];
	uint32_t mem;
	struct frag_stats stats;
};

/* What one fragment says of itself. */
struct frag_info {
	struct frag_key key;
	uint32_t off, len;		/* payload offset and length */
	uint32_t payload;		/* payload start, from l3 */
	uint32_t ip_len;		/* the fragment's IP length */
	uint16_t hdr_len, nexthdr_at;
	uint8_t nexthdr;
	bool more;
};

/* Reads the fragment at ip; false when it is malformed. whole: it is not
 * a fragment at all (or an IPv6 atomic one). */
static bool
parse(const uint8_t *ip, uint32_t len, int family, uint16_t zone,
      struct frag_info *f, bool *whole)
{
	const unsigned checks = IP_CHECK_VERSION | IP_CHECK_LENGTH;

	memset(f, 0, sizeof(*f));
	*whole = false;
	f->key.family = family;
	f->key.zone = zone;
	if (family == AF_INET) {
		const struct ipv4_header *ip4 = ipv4_header_at(ip, len, 0,
							       checks);
		uint32_t ihl, tot;
		uint16_t fo;

		if (!ip4)
			return false;
		ihl = ipv4_hlen(ip4);
		tot = ntohs(ip4->tot_len);
		fo = ntohs(ip4->frag_off);
		f->off = (fo & IPV4_OFFSET) * 8;
		f->more = fo & IPV4_MF;
		f->len = tot - ihl;
		f->payload = ihl;
		f->ip_len = tot;
		f->hdr_len = ihl;
		f->key.proto = ip4->protocol;
		f->key.id = ntohs(ip4->id);
		f->key.src.ip = ip4->saddr;
		f->key.dst.ip = ip4->daddr;
		if (!f->off && !f->more) {
			*whole = true;
			return true;
		}
		return f->off + f->len + ihl <= 65535;
	}

	const struct ipv6_header *ip6 = ipv6_header_at(ip, len, 0, checks);
	const struct ipv6_frag_header *fh;
	struct ipv6_exthdr_walk w;
	uint32_t tot;
	uint16_t fo;

	if (!ip6)
		return false;
	/* The unfragmentable part ends at the fragment header. */
	tot = ipv6_tot_len(ip6);
	if (ipv6_exthdr_skip(ip, tot, 0, 0, &w) ||
	    w.nexthdr != IPPROTO_FRAGMENT)
		return false;
	fh = header_at(ip, tot, w.off, sizeof(*fh));
	if (!fh)
		return false;
	fo = ntohs(fh->frag_off);
	f->off = fo & IPV6_FRAG_OFFSET;
	f->more = fo & IPV6_FRAG_MF;
	f->payload = w.off + sizeof(*fh);
	f->len = tot - f->payload;
	f->ip_len = tot;
	f->hdr_len = w.off;
	f->nexthdr_at = w.nexthdr_at;
	f->nexthdr = fh->nexthdr;
	f->key.id = fh->id;
	memcpy(&f->key.src.ip6, ip6->saddr, sizeof(f->key.src.ip6));
	memcpy(&f->key.dst.ip6, ip6->daddr, sizeof(f->key.dst.ip6));
	if (!f->off && !f->more) {
		*whole = true;
		return true;
	}
	return f->off + f->len <= 65535;
}

static unsigned
bucket_of(const struct frag_key *k)
{
	struct ct_tuple t = { .src = k->src, .dst = k->dst, .sport = k->id,
			      .dport = k->id >> 16, .zone = k->zone,
			      .proto = k->proto, .family = k->family };

	return ct_tuple_hash(&t, 0) % FRAG_BUCKETS;
}

static void
queue_free(struct frag_table *t, struct frag_queue *q)
{
	struct frag_queue **pp = &t->bucket[bucket_of(&q->key)];

	while (*pp != q)
		pp = &(*pp)->next;
	*pp = q->next;
	while (q->frags) {
		struct frag *f = q->frags;

		q->frags = f->next;
		free(f);
	}
	t->mem -= q->mem;
	free(q);
}

static struct frag_queue *
queue_find(struct frag_table *t, const struct frag_key *k, uint64_t now)
{
	struct frag_queue **b = &t->bucket[bucket_of(k)], *q;

	for (q = *b; q; q = q->next)
		if (!memcmp(&q->key, k, sizeof(*k)))
			break;
	if (q && now - q->created > FRAG_TIMEOUT_MS) {
		queue_free(t, q);
		t->stats.expired++;
		q = NULL;
	}
	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->key = *k;
	q->created = now;
	q->mem = sizeof(*q);
	t->mem += q->mem;
	q->next = *b;
	*b = q;
	return q;
}

/* Adds fragment fi (its payload at data) to q. Returns 1 when added, 0
 * for an exact duplicate, -1 when the queue must go (an overlap, an end
 * that contradicts another fragment's). */
static int
queue_add(struct frag_table *t, struct frag_queue *q,
	  const struct frag_info *fi, const uint8_t *ip)
{
	uint32_t end = fi->off + fi->len;
	struct frag **pp = &q->frags, *f;

	/* The last fragment fixes the length: nothing may reach past it,
	 * before or after it comes. */
	if ((!fi->more && q->total && q->total != end) ||
	    (!fi->more && q->end > end) ||
	    (q->total && end > q->total))
		return -1;
	for (; *pp && (*pp)->off < fi->off; pp = &(*pp)->next)
		;
	if (*pp && (*pp)->off == fi->off && (*pp)->len == fi->len)
		return 0;
	if (*pp && (*pp)->off < end)
		return -1;
	for (f = q->frags; f && f != *pp; f = f->next)
		if (f->off + f->len > fi->off)
			return -1;
	f = malloc(sizeof(*f) + fi->len);
	if (!f)
		return -1;
	f->off = fi->off;
	f->len = fi->len;
	memcpy(f->data, ip + fi->payload, fi->len);
	f->next = *pp;
	*pp = f;
	if (!fi->more)
		q->total = end;
	if (end > q->end)
		q->end = end;
	q->have += fi->len;
	q->mem += sizeof(*f) + fi->len;
	t->mem += sizeof(*f) + fi->len;
	if (fi->ip_len > q->max_size)
		q->max_size = fi->ip_len;
	if (!fi->off) {
		if (fi->hdr_len > sizeof(q->hdr))
			return -1;
		memcpy(q->hdr, ip, fi->hdr_len);
		q->hdr_len = fi->hdr_len;
		q->nexthdr_at = fi->nexthdr_at;
		q->nexthdr = fi->nexthdr;
	}
	return 1;
}

/* The whole datagram when the completing fragment's buffer cannot hold
 * it (a 2 KiB receive ring slot). A thread processes one packet at a time
 * and a whole datagram is never gathered again, so one buffer per thread
 * is enough: taken from the frame pool at its first use and held until
 * frag_release(), so that threads that meet no fragment hold none, and
 * those that did give it back after their burst. */
static __thread uint8_t *gather_buf;
/* Each fragment frag_split() sends, likewise. */
static __thread uint8_t *split_buf;

/* Writes q's datagram over pkt from l3 on, moving pkt to the thread's
 * buffer when its own is too small; false if the datagram is too long
 * for IP or does not fit at all. */
static bool
rebuild(struct frag_queue *q, struct packet *pkt, uint32_t l3, int family)
{
	uint32_t cap = pkt->len + pkt->tailroom, len = l3 + q->hdr_len + q->total;
	uint32_t ip_len = q->hdr_len + q->total -
			  (family == AF_INET ? 0 : IPV6_HLEN);
	uint8_t *ip, *p;

	/* The first fragment's header may be longer than the others'. */
	if (ip_len > 65535)
		return false;
	if (len > cap) {
		if (FRAME_HEADROOM + len > FRAME_BUF_SIZE)
			return false;
		if (!gather_buf && !(gather_buf = buf_pool_get(&frame_pool)))
			return false;
		memmove(gather_buf + FRAME_HEADROOM, pkt->data, l3);
		pkt->data = gather_buf + FRAME_HEADROOM;
		pkt->headroom = FRAME_HEADROOM;
		cap = FRAME_BUF_SIZE - FRAME_HEADROOM;
	}
	ip = pkt->data + l3;
	memcpy(ip, q->hdr, q->hdr_len);
	p = ip + q->hdr_len;
	for (struct frag *f = q->frags; f; f = f->next)
		memcpy(p + f->off, f->data, f->len);
	if (family == AF_INET) {
		struct ipv4_header *ip4 = (struct ipv4_header *)ip;

		ip4->tot_len = htons(ip_len);
		ip4->frag_off = 0;
		ipv4_set_csum(ip4);
	} else {
		ip[q->nexthdr_at] = q->nexthdr;
		((struct ipv6_header *)ip)->payload_len = htons(ip_len);
	}
	pkt->tailroom = cap - len;
	pkt->len = len;
	pkt->mru = q->max_size;
	pkt->key_valid = false;
	memset(&pkt->vnet, 0, sizeof(pkt->vnet));
	return true;
}

enum frag_result
frag_gather(struct frag_table *t, struct packet *pkt, uint32_t l3,
	    int family, uint16_t zone, uint64_t now)
{
	struct frag_info fi;
	struct frag_queue *q;
	enum frag_result r = FRAG_QUEUED;
	bool whole;
	int added;

	if (l3 > pkt->len ||
	    !parse(pkt->data + l3, pkt->len - l3, family, zone, &fi, &whole))
		goto bad;
	if (whole)
		return FRAG_DONE;
	/* Every fragment but the last carries a multiple of 8 bytes. */
	if (!fi.len || (fi.more && (fi.len & 7)))
		goto bad;
	pthread_mutex_lock(&t->lock);
	if (t->mem + fi.len > FRAG_MEM_MAX) {
		pthread_mutex_unlock(&t->lock);
		goto bad;
	}
	q = queue_find(t, &fi.key, now);
	if (!q) {
		pthread_mutex_unlock(&t->lock);
		goto bad;
	}
	added = queue_add(t, q, &fi, pkt->data + l3);
	if (added < 0) {
		queue_free(t, q);
		r = FRAG_DROP;
	} else if (!added) {
		r = FRAG_DROP;
	} else if (q->total && q->have == q->total && q->hdr_len) {
		r = rebuild(q, pkt, l3, family) ? FRAG_DONE : FRAG_DROP;
		if (r == FRAG_DONE)
			t->stats.reassembled++;
		queue_free(t, q);
	}
	if (r == FRAG_DROP)
		t->stats.dropped++;
	pthread_mutex_unlock(&t->lock);
	return r;
bad:
	pthread_mutex_lock(&t->lock);
	t->stats.dropped++;
	pthread_mutex_unlock(&t->lock);
	return FRAG_DROP;
}

void
frag_expire(struct frag_table *t, uint64_t now)
{
	pthread_mutex_lock(&t->lock);
	for (unsigned i = 0; i < FRAG_BUCKETS; i++) {
		struct frag_queue *q = t->bucket[i], *next;

		for (; q; q = next) {
			next = q->next;
			if (now - q->created > FRAG_TIMEOUT_MS) {
				queue_free(t, q);
				t->stats.expired++;
			}
		}
	}
	pthread_mutex_unlock(&t->lock);
}

void
frag_get_stats(struct frag_table *t, struct frag_stats *s)
{
	pthread_mutex_lock(&t->lock);
	*s = t->stats;
	pthread_mutex_unlock(&t->lock);
}

struct frag_table *
frag_table_create(void)
{
	struct frag_table *t = calloc(1, sizeof(*t));

	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

void
frag_table_destroy(struct frag_table *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < FRAG_BUCKETS; i++)
		while (t->bucket[i])
			queue_free(t, t->bucket[i]);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* IPv4 options a later fragment keeps: those with the "copied" bit; the
 * others become no-ops (RFC 791). */
static void
ipv4_options_later(struct ipv4_header *ip)
{
	const struct ip_option *o;
	size_t at = IPV4_HLEN;
	uint8_t olen;

	while ((o = option_next(ip, ipv4_hlen(ip), &at))) {
		olen = o->len;
		if (!(o->kind & IPV4_OPT_COPIED))
			memset((uint8_t *)ip + at, OPT_NOP, olen);
		at += olen;
	}
}

int
frag_split(const uint8_t *frame, uint32_t len, uint32_t l3, int family,
	   uint16_t mru,
	   void (*send)(void *arg, const uint8_t *frame, uint32_t len),
	   void *arg)
{
	const unsigned checks = IP_CHECK_VERSION | IP_CHECK_LENGTH;
	const uint8_t *ip = frame + l3;
	uint32_t hdr, tot, per, off, n = 0;
	uint8_t *buf;

	if (l3 > len || l3 > FRAME_L2_MAX)
		return -EINVAL;
	if (!split_buf && !(split_buf = buf_pool_get(&frame_pool)))
		return -ENOMEM;
	buf = split_buf;
	if (family == AF_INET) {
		const struct ipv4_header *ip4 = ipv4_header_at(frame, len, l3,
							       checks);
		uint16_t fo;

		if (!ip4)
			return -EINVAL;
		hdr = ipv4_hlen(ip4);
		tot = ntohs(ip4->tot_len);
		if (tot <= mru) {
			send(arg, frame, l3 + tot);
			return 1;
		}
		per = mru > hdr ? (mru - hdr) & ~7u : 0;
		if (!per)
			return -EINVAL;
		fo = ntohs(ip4->frag_off);
		for (off = 0; off < tot - hdr; off += per, n++) {
			uint32_t chunk = tot - hdr - off < per ? tot - hdr - off
							       : per;
			struct ipv4_header *q = (struct ipv4_header *)(buf + l3);
			bool last = off + chunk == tot - hdr;

			memcpy(buf, frame, l3 + hdr);
			if (off)
				ipv4_options_later(q);
			memcpy((uint8_t *)q + hdr, ip + hdr + off, chunk);
			q->tot_len = htons(hdr + chunk);
			q->frag_off = htons((fo & ~(IPV4_MF | IPV4_OFFSET)) |
					    ((fo & IPV4_OFFSET) + off / 8) |
					    (last ? fo & IPV4_MF : IPV4_MF));
			ipv4_set_csum(q);
			send(arg, buf, l3 + hdr + chunk);
		}
		return n;
	}

	const struct ipv6_header *ip6 = ipv6_header_at(frame, len, l3, checks);
	struct ipv6_exthdr_walk w;
	uint32_t id, payload;

	if (!ip6)
		return -EINVAL;
	tot = ipv6_tot_len(ip6);
	if (ipv6_exthdr_skip(ip, tot, 0, IPV6_EXTHDR_UNFRAG, &w))
		return -EINVAL;
	if (tot <= mru) {
		send(arg, frame, l3 + tot);
		return 1;
	}
	hdr = w.off;
	per = mru > hdr + sizeof(struct ipv6_frag_header)
		      ? (mru - hdr - sizeof(struct ipv6_frag_header)) & ~7u
		      : 0;
	if (!per)
		return -EINVAL;
	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != sizeof(id))
		id = (uint32_t)random();
	payload = tot - hdr;
	for (off = 0; off < payload; off += per, n++) {
		uint32_t chunk = payload - off < per ? payload - off : per;
		uint8_t *q = buf + l3;
		struct ipv6_frag_header *fh = (void *)(q + hdr);

		memcpy(buf, frame, l3 + hdr);
		q[w.nexthdr_at] = IPPROTO_FRAGMENT;
		fh->nexthdr = w.nexthdr;
		fh->reserved = 0;
		fh->frag_off = htons(off | (off + chunk < payload
					    ? IPV6_FRAG_MF : 0));
		fh->id = id;
		memcpy(fh + 1, ip + hdr + off, chunk);
		((struct ipv6_header *)q)->payload_len =
			htons(hdr - IPV6_HLEN + sizeof(*fh) + chunk);
		send(arg, buf, l3 + hdr + sizeof(*fh) + chunk);
	}
	return n;
}

void
frag_release(void)
{
	buf_pool_put(&frame_pool, gather_buf);
	gather_buf = NULL;
	buf_pool_put(&frame_pool, split_buf);
	split_buf = NULL;
}
