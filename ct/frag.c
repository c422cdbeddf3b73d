#include "ct/frag.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/unaligned.h"
#include "packet/csum.h"
#include "ct/tuple.h"

#define FRAG_BUCKETS	256
#define FRAG_TIMEOUT_MS	30000		/* ipfrag_time */
#define FRAG_MEM_MAX	(4u << 20)	/* ipfrag_high_thresh */
#define IP_MF		0x2000
#define IP_OFFMASK	0x1fff

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
	uint8_t hdr[60 + 512];
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

static void
ipv4_csum(uint8_t *ip, uint32_t ihl)
{
	uint16_t s;

	ip[10] = ip[11] = 0;
	s = ~csum_fold(csum_add(0, ip, ihl));
	memcpy(ip + 10, &s, 2);
}

/* The IPv6 extension headers before the fragment header (or, for
 * splitting, the unfragmentable part): its length and where the next
 * header byte that names what follows sits. frag: stop at a fragment
 * header (true if found); else stop where fragmentable headers begin. */
static bool
ipv6_walk(const uint8_t *ip, uint32_t len, bool frag, uint32_t *end,
	  uint32_t *nh_at)
{
	uint32_t off = 40, at = 6;
	uint8_t nh = ip[6];

	for (;;) {
		if (frag && nh == IPPROTO_FRAGMENT)
			break;
		if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
		    nh != IPPROTO_DSTOPTS)
			break;
		if (off + 8 > len)
			return false;
		/* Splitting: destination options count as unfragmentable
		 * only before a routing header. */
		if (!frag && nh == IPPROTO_DSTOPTS &&
		    ip[off] != IPPROTO_ROUTING)
			break;
		at = off;
		nh = ip[off];
		off += (ip[off + 1] + 1) * 8;
		if (off > len)
			return false;
	}
	*end = off;
	*nh_at = at;
	return !frag || nh == IPPROTO_FRAGMENT;
}

/* Reads the fragment at ip; false when it is malformed. whole: it is not
 * a fragment at all (or an IPv6 atomic one). */
static bool
parse(const uint8_t *ip, uint32_t len, int family, uint16_t zone,
      struct frag_info *f, bool *whole)
{
	memset(f, 0, sizeof(*f));
	*whole = false;
	f->key.family = family;
	f->key.zone = zone;
	if (family == AF_INET) {
		uint32_t ihl, tot, fo;

		if (len < 20 || ip[0] >> 4 != 4)
			return false;
		ihl = (ip[0] & 0xf) * 4;
		tot = get_be16(ip + 2);
		if (ihl < 20 || tot < ihl || tot > len)
			return false;
		fo = get_be16(ip + 6);
		f->off = (fo & IP_OFFMASK) * 8;
		f->more = fo & IP_MF;
		f->len = tot - ihl;
		f->payload = ihl;
		f->ip_len = tot;
		f->hdr_len = ihl;
		f->key.proto = ip[9];
		f->key.id = get_be16(ip + 4);
		memcpy(&f->key.src.ip, ip + 12, 4);
		memcpy(&f->key.dst.ip, ip + 16, 4);
		if (!f->off && !f->more) {
			*whole = true;
			return true;
		}
		return f->off + f->len + ihl <= 65535;
	}

	uint32_t end, at, tot, fo, id;

	if (len < 40 || ip[0] >> 4 != 6)
		return false;
	tot = 40 + get_be16(ip + 4);
	if (tot > len || !ipv6_walk(ip, tot, true, &end, &at))
		return false;
	if (end + 8 > tot)
		return false;
	fo = get_be16(ip + end + 2);
	memcpy(&id, ip + end + 4, 4);
	f->off = fo & ~7u;
	f->more = fo & 1;
	f->payload = end + 8;
	f->len = tot - f->payload;
	f->ip_len = tot;
	f->hdr_len = end;
	f->nexthdr_at = at;
	f->nexthdr = ip[end];
	f->key.id = id;
	memcpy(&f->key.src.ip6, ip + 8, 16);
	memcpy(&f->key.dst.ip6, ip + 24, 16);
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
 * it (a 2 KiB receive ring slot): the thread's own. A thread processes one
 * packet at a time and a whole datagram is never gathered again, so one
 * buffer per thread is enough. */
#define GATHER_SIZE	(PACKET_HEADROOM + 65536 + 512)
static __thread uint8_t gather_buf[GATHER_SIZE];

/* Writes q's datagram over pkt from l3 on, moving pkt to the thread's
 * buffer when its own is too small; false if the datagram is too long
 * for IP or does not fit at all. */
static bool
rebuild(struct frag_queue *q, struct packet *pkt, uint32_t l3, int family)
{
	uint32_t cap = pkt->len + pkt->tailroom, len = l3 + q->hdr_len + q->total;
	uint32_t ip_len = q->hdr_len + q->total - (family == AF_INET ? 0 : 40);
	uint8_t *ip, *p;

	/* The first fragment's header may be longer than the others'. */
	if (ip_len > 65535)
		return false;
	if (len > cap) {
		if (PACKET_HEADROOM + len > GATHER_SIZE)
			return false;
		memmove(gather_buf + PACKET_HEADROOM, pkt->data, l3);
		pkt->data = gather_buf + PACKET_HEADROOM;
		pkt->headroom = PACKET_HEADROOM;
		cap = GATHER_SIZE - PACKET_HEADROOM;
	}
	ip = pkt->data + l3;
	memcpy(ip, q->hdr, q->hdr_len);
	p = ip + q->hdr_len;
	for (struct frag *f = q->frags; f; f = f->next)
		memcpy(p + f->off, f->data, f->len);
	if (family == AF_INET) {
		put_be16(ip + 2, ip_len);
		put_be16(ip + 6, 0);
		ipv4_csum(ip, q->hdr_len);
	} else {
		ip[q->nexthdr_at] = q->nexthdr;
		put_be16(ip + 4, ip_len);
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
ipv4_options_later(uint8_t *ip, uint32_t ihl)
{
	for (uint32_t i = 20; i < ihl;) {
		uint8_t type = ip[i], olen;

		if (type == 0)
			break;
		if (type == 1) {
			i++;
			continue;
		}
		if (i + 1 >= ihl || (olen = ip[i + 1]) < 2 || i + olen > ihl)
			break;
		if (!(type & 0x80))
			memset(ip + i, 1, olen);
		i += olen;
	}
}

int
frag_split(const uint8_t *frame, uint32_t len, uint32_t l3, int family,
	   uint16_t mru,
	   void (*send)(void *arg, const uint8_t *frame, uint32_t len),
	   void *arg)
{
	static __thread uint8_t buf[65536 + 256];
	const uint8_t *ip = frame + l3;
	uint32_t hdr, tot, per, off, n = 0;

	if (l3 > len || l3 > 256)
		return -EINVAL;
	if (family == AF_INET) {
		uint16_t fo;

		if (len - l3 < 20 || ip[0] >> 4 != 4)
			return -EINVAL;
		hdr = (ip[0] & 0xf) * 4;
		tot = get_be16(ip + 2);
		if (hdr < 20 || tot < hdr || l3 + tot > len)
			return -EINVAL;
		if (tot <= mru) {
			send(arg, frame, l3 + tot);
			return 1;
		}
		per = mru > hdr ? (mru - hdr) & ~7u : 0;
		if (!per)
			return -EINVAL;
		fo = get_be16(ip + 6);
		for (off = 0; off < tot - hdr; off += per, n++) {
			uint32_t chunk = tot - hdr - off < per ? tot - hdr - off
							       : per;
			uint8_t *q = buf + l3;
			bool last = off + chunk == tot - hdr;

			memcpy(buf, frame, l3 + hdr);
			if (off)
				ipv4_options_later(q, hdr);
			memcpy(q + hdr, ip + hdr + off, chunk);
			put_be16(q + 2, hdr + chunk);
			put_be16(q + 6, (fo & ~(IP_MF | IP_OFFMASK)) |
					     ((fo & IP_OFFMASK) + off / 8) |
					     (last ? fo & IP_MF : IP_MF));
			ipv4_csum(q, hdr);
			send(arg, buf, l3 + hdr + chunk);
		}
		return n;
	}

	uint32_t at, id, payload;
	uint8_t nexthdr;

	if (len - l3 < 40 || ip[0] >> 4 != 6)
		return -EINVAL;
	tot = 40 + get_be16(ip + 4);
	if (l3 + tot > len || !ipv6_walk(ip, tot, false, &hdr, &at))
		return -EINVAL;
	if (tot <= mru) {
		send(arg, frame, l3 + tot);
		return 1;
	}
	per = mru > hdr + 8 ? (mru - hdr - 8) & ~7u : 0;
	if (!per)
		return -EINVAL;
	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != sizeof(id))
		id = (uint32_t)random();
	nexthdr = ip[at];
	payload = tot - hdr;
	for (off = 0; off < payload; off += per, n++) {
		uint32_t chunk = payload - off < per ? payload - off : per;
		uint8_t *q = buf + l3, *fh = q + hdr;

		memcpy(buf, frame, l3 + hdr);
		q[at] = IPPROTO_FRAGMENT;
		fh[0] = nexthdr;
		fh[1] = 0;
		put_be16(fh + 2, off | (off + chunk < payload));
		memcpy(fh + 4, &id, 4);
		memcpy(fh + 8, ip + hdr + off, chunk);
		put_be16(q + 4, hdr - 40 + 8 + chunk);
		send(arg, buf, l3 + hdr + 8 + chunk);
	}
	return n;
}
