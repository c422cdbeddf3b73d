/* SPDX-License-Identifier: Apache-2.0 */
/* The structure-aware netlink mutator (nl-mutator.h). */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/nl-mutator.h"

#define MAX_NODES	2048
#define MAX_DEPTH	8
#define MAX_LENS	512
#define ARENA_SIZE	(1 << 18)
#define NLA_HDR		4
#define NLMSG_HDR	16
#define NLA_F_FLAGS	0xc000	/* NLA_F_NESTED | NLA_F_NET_BYTEORDER */
#define ALIGN4(n)	(((n) + 3) & ~(size_t)3)

enum node_kind { N_ROOT, N_MSG, N_ATTR, N_RAW };

/* bytes: a leaf's payload, a message's nlmsghdr and fixed header, or
 * opaque bytes; in an input or in the arena. */
struct node {
	enum node_kind kind;
	uint16_t type;		/* an attribute's, flags included */
	bool nested;
	bool removed;		/* out of the tree (its subtree with it) */
	const uint8_t *bytes;
	size_t len;
	int parent, child, next;	/* -1: none */
};

struct tree {
	struct node n[MAX_NODES];
	int count;
	int root[2];
};

/* Where the lengths written sit, for the malformed mutation. */
struct out {
	uint8_t *buf;
	size_t len, cap;
	size_t lens[MAX_LENS];
	uint8_t lens_size[MAX_LENS];
	unsigned n_lens;
};

static struct tree trees[2];
static uint8_t arena[ARENA_SIZE];
static size_t arena_used;
static uint32_t rng;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return n ? rng % n : 0;
}

static uint8_t *
arena_alloc(size_t len)
{
	uint8_t *p;

	if (len > ARENA_SIZE - arena_used)
		return NULL;
	p = arena + arena_used;
	arena_used += len;
	return p;
}

static uint32_t
get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t
get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
put_le(uint8_t *p, uint64_t v, size_t size)
{
	for (size_t i = 0; i < size; i++)
		p[i] = v >> (8 * i);
}

static int
node_new(struct tree *t, enum node_kind kind, int parent)
{
	struct node *n;

	if (t->count == MAX_NODES)
		return -1;
	n = &t->n[t->count];
	*n = (struct node) { .kind = kind, .parent = parent, .child = -1,
			     .next = -1 };
	return t->count++;
}

/* Appends node i to parent's children. */
static void
link_last(struct tree *t, int parent, int i)
{
	int *p = &t->n[parent].child;

	while (*p >= 0)
		p = &t->n[*p].next;
	*p = i;
	t->n[i].parent = parent;
	t->n[i].next = -1;
}

/* A node of len bytes at p, parent's last child; -1 when full. */
static int
node_add(struct tree *t, enum node_kind kind, int parent, const uint8_t *p,
	 size_t len)
{
	int i = node_new(t, kind, parent);

	if (i >= 0) {
		t->n[i].bytes = p;
		t->n[i].len = len;
		link_last(t, parent, i);
	}
	return i;
}

static bool
raw_add(struct tree *t, int parent, const uint8_t *p, size_t len)
{
	return !len || node_add(t, N_RAW, parent, p, len) >= 0;
}

/* Past an attribute or message of length l (its padding, if there). */
static void
advance(const uint8_t **p, size_t *len, size_t l)
{
	l = ALIGN4(l) < *len ? ALIGN4(l) : *len;
	*p += l;
	*len -= l;
}

/* Whether len bytes are exactly attributes, none of type 0 (a u32 of
 * small value would otherwise read as a nest). */
static bool
looks_nested(const uint8_t *p, size_t len)
{
	if (len < NLA_HDR)
		return false;
	while (len) {
		size_t l;

		if (len < NLA_HDR)
			return false;
		l = get16(p);
		if (l < NLA_HDR || l > len || !(get16(p + 2) & ~NLA_F_FLAGS))
			return false;
		advance(&p, &len, l);
	}
	return true;
}

static bool
parse_attrs(struct tree *t, int parent, const uint8_t *p, size_t len,
	    int depth)
{
	while (len >= NLA_HDR) {
		size_t l = get16(p);
		int i;

		if (l < NLA_HDR || l > len)
			break;
		i = node_add(t, N_ATTR, parent, p + NLA_HDR, l - NLA_HDR);
		if (i < 0)
			return false;
		t->n[i].type = get16(p + 2);
		if (depth < MAX_DEPTH && looks_nested(p + NLA_HDR, l - NLA_HDR)) {
			t->n[i].nested = true;
			if (!parse_attrs(t, i, p + NLA_HDR, l - NLA_HDR,
					 depth + 1))
				return false;
		}
		advance(&p, &len, l);
	}
	return raw_add(t, parent, p, len);
}

static bool
parse_msgs(struct tree *t, int parent, const uint8_t *p, size_t len,
	   size_t hdr_len)
{
	while (len >= NLMSG_HDR) {
		size_t l = get32(p), head;
		int i;

		if (l < NLMSG_HDR || l > len)
			break;
		head = NLMSG_HDR + hdr_len < l ? NLMSG_HDR + hdr_len : l;
		i = node_add(t, N_MSG, parent, p, head);
		if (i < 0 || !parse_attrs(t, i, p + head, l - head, 0))
			return false;
		advance(&p, &len, l);
	}
	return raw_add(t, parent, p, len);
}

static bool
parse_region(struct tree *t, int r, enum nl_mut_region kind,
	     const struct nl_mut_layout *L, const uint8_t *p, size_t len)
{
	int root = node_new(t, N_ROOT, -1);

	if (root < 0)
		return false;
	t->root[r] = root;
	switch (kind) {
	case NL_MUT_ATTRS:
		return parse_attrs(t, root, p, len, 0);
	case NL_MUT_MSGS:
		return parse_msgs(t, root, p, len, L->hdr_len);
	default:
		return raw_add(t, root, p, len);
	}
}

/* The input's regions: [prefix][split][region 0][region 1]. */
struct regions {
	size_t head;		/* prefix and split bytes */
	const uint8_t *p[2];
	size_t len[2];
	int n;
};

static bool
regions_of(const struct nl_mut_layout *L, const uint8_t *d, size_t size,
	   struct regions *r)
{
	size_t rest;

	r->head = L->prefix + (L->split ? 2 : 0);
	if (size < r->head || (L->split && size == r->head))
		return false;
	rest = size - r->head;
	r->p[0] = d + r->head;
	r->len[0] = rest;
	r->n = 1;
	if (L->split) {
		r->len[0] = get16(d + L->prefix) % (rest + 1);
		r->p[1] = r->p[0] + r->len[0];
		r->len[1] = rest - r->len[0];
		r->n = 2;
	}
	return true;
}

static bool
parse(struct tree *t, const struct nl_mut_layout *L, const struct regions *r)
{
	t->count = 0;
	for (int i = 0; i < r->n; i++)
		if (!parse_region(t, i, L->region[i], L, r->p[i], r->len[i]))
			return false;
	return true;
}

static bool
out_put(struct out *o, const void *p, size_t len)
{
	if (len > o->cap - o->len)
		return false;
	if (p)
		memcpy(o->buf + o->len, p, len);
	else
		memset(o->buf + o->len, 0, len);
	o->len += len;
	return true;
}

static void
out_note_len(struct out *o, size_t at, uint8_t size)
{
	if (o->n_lens < MAX_LENS) {
		o->lens[o->n_lens] = at;
		o->lens_size[o->n_lens++] = size;
	}
}

static bool write_list(const struct tree *t, int first, struct out *o);

static bool
write_node(const struct tree *t, int i, struct out *o)
{
	const struct node *n = &t->n[i];
	size_t at = o->len;

	switch (n->kind) {
	case N_RAW:
		return out_put(o, n->bytes, n->len);
	case N_ATTR:
		if (!out_put(o, NULL, NLA_HDR) ||
		    !(n->nested ? write_list(t, n->child, o)
				: out_put(o, n->bytes, n->len)) ||
		    o->len - at > 0xffff)
			return false;
		put_le(o->buf + at, o->len - at, 2);
		put_le(o->buf + at + 2, n->type, 2);
		out_note_len(o, at, 2);
		break;
	case N_MSG:
		if (!out_put(o, n->bytes, n->len) ||
		    !write_list(t, n->child, o))
			return false;
		put_le(o->buf + at, o->len - at, 4);
		out_note_len(o, at, 4);
		break;
	default:
		return false;
	}
	return out_put(o, NULL, ALIGN4(o->len - at) - (o->len - at));
}

static bool
write_list(const struct tree *t, int first, struct out *o)
{
	for (int i = first; i >= 0; i = t->n[i].next)
		if (!write_node(t, i, o))
			return false;
	return true;
}

/* Writes the tree after the head bytes, the split offset fixed. */
static bool
write_tree(const struct tree *t, const struct nl_mut_layout *L,
	   const uint8_t *head, size_t head_len, int n_regions, struct out *o)
{
	size_t start;

	if (!out_put(o, head, head_len))
		return false;
	start = o->len;
	if (!write_list(t, t->n[t->root[0]].child, o))
		return false;
	if (n_regions == 2) {
		if (o->len - start > 0xffff)
			return false;
		put_le(o->buf + L->prefix, o->len - start, 2);
		if (!write_list(t, t->n[t->root[1]].child, o))
			return false;
	}
	return true;
}

/* A random node of kind (N_ROOT: any but the roots), -1 when none. */
static int
pick(const struct tree *t, enum node_kind kind)
{
	int seen = 0, chosen = -1;

	for (int i = 0; i < t->count; i++) {
		enum node_kind k = t->n[i].kind;

		if (k == N_ROOT || t->n[i].removed ||
		    (kind != N_ROOT && k != kind))
			continue;
		if (!rnd(++seen))
			chosen = i;
	}
	return chosen;
}

static void
unlink_node(struct tree *t, int i)
{
	int *p = &t->n[t->n[i].parent].child;

	while (*p != i)
		p = &t->n[*p].next;
	*p = t->n[i].next;
	t->n[i].next = -1;
}

static void
insert_after(struct tree *t, int at, int i)
{
	t->n[i].parent = t->n[at].parent;
	t->n[i].next = t->n[at].next;
	t->n[at].next = i;
}

/* Copies src's subtree i into dst (the bytes are shared); -1 when full. */
static int
copy_subtree(struct tree *dst, const struct tree *src, int i)
{
	int c = node_new(dst, src->n[i].kind, -1);

	if (c < 0)
		return -1;
	dst->n[c] = src->n[i];
	dst->n[c].parent = dst->n[c].child = dst->n[c].next = -1;
	for (int k = src->n[i].child; k >= 0; k = src->n[k].next) {
		int kc = copy_subtree(dst, src, k);

		if (kc < 0)
			return -1;
		link_last(dst, c, kc);
	}
	return c;
}

/* Where a copied node goes: after at, or into at when at is a nest and
 * the node an attribute. */
static void
place(struct tree *t, int at, int c)
{
	if (t->n[at].nested && t->n[c].kind == N_ATTR && rnd(2))
		link_last(t, at, c);
	else
		insert_after(t, at, c);
}

/* A writable copy of node i's bytes, with room for len bytes. */
static uint8_t *
own_bytes(struct node *n, size_t len)
{
	uint8_t *p = arena_alloc(len);

	if (!p)
		return NULL;
	memset(p, 0, len);
	memcpy(p, n->bytes, n->len < len ? n->len : len);
	n->bytes = p;
	return p;
}

static uint64_t
boundary(size_t size)
{
	uint64_t max = size >= 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;

	switch (rnd(7)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return max;
	case 3: return max - 1;
	case 4: return max >> 1;		/* the largest signed */
	case 5: return (max >> 1) + 1;		/* the smallest signed */
	default: return rnd(256);
	}
}

static bool
mutate_msg(struct tree *t, const struct nl_mut_layout *L, int i)
{
	struct node *n = &t->n[i];
	static const uint16_t flags[] = { 0x1, 0x4, 0x8, 0x100, 0x200,
					  0x300, 0x400, 0x800 };
	uint8_t *p = own_bytes(n, n->len);

	if (!p)
		return false;
	switch (rnd(3)) {
	case 0:
		put_le(p + 4, get16(p + 4) + (rnd(2) ? 1 : -1), 2);
		break;
	case 1:
		put_le(p + 6, get16(p + 6) ^
		       flags[rnd(sizeof(flags) / sizeof(flags[0]))], 2);
		break;
	default:
		if (n->len <= NLMSG_HDR)
			return false;
		p[NLMSG_HDR] = rnd(L->max_cmd + 1u);
		break;
	}
	return true;
}

static bool
mutate_leaf(struct tree *t, int i)
{
	struct node *n = &t->n[i];
	size_t len;
	uint8_t *p;

	switch (rnd(3)) {
	case 0:		/* its length, by a few bytes */
		len = n->len + rnd(9);
		len = len > 4 ? len - 4 : 0;
		if (len == n->len)
			len++;
		if (!own_bytes(n, len))
			return false;
		n->len = len;
		return true;
	case 1:		/* an integer at a boundary */
		if (!n->len)
			return false;
		len = n->len == 1 || n->len == 2 || n->len == 8 ? n->len : 4;
		if (len > n->len || !(p = own_bytes(n, n->len)))
			return false;
		put_le(p + 4 * rnd((n->len - len) / 4 + 1), boundary(len), len);
		return true;
	default:	/* its bytes, as libFuzzer would */
		len = n->len + 16;
		if (!(p = own_bytes(n, len)))
			return false;
		n->len = LLVMFuzzerMutate(p, n->len, len);
		return true;
	}
}

/* One structural change of the tree; false when it could not. */
static bool
mutate_tree(struct tree *t, const struct nl_mut_layout *L)
{
	int i = rnd(4) ? pick(t, N_ATTR) : -1, j, c;
	struct node *n;

	if (i < 0)
		i = pick(t, N_ROOT);
	if (i < 0)
		return false;
	n = &t->n[i];
	switch (rnd(8)) {
	case 0:		/* the type */
		if (n->kind == N_MSG)
			return mutate_msg(t, L, i);
		if (n->kind != N_ATTR)
			return false;
		n->type = rnd(8) ? (n->type & NLA_F_FLAGS) |
					   (1 + rnd(L->max_type))
				 : n->type ^ 0x8000;
		return true;
	case 1:		/* duplicated */
		c = copy_subtree(t, t, i);
		if (c < 0)
			return false;
		insert_after(t, i, c);
		return true;
	case 2:		/* removed */
		unlink_node(t, i);
		n->removed = true;
		return true;
	case 3:		/* swapped with its next sibling */
		j = n->next;
		if (j < 0)
			return false;
		unlink_node(t, i);
		insert_after(t, j, i);
		return true;
	case 4:		/* another node copied here */
		j = pick(t, t->n[i].kind);
		if (j < 0)
			return false;
		c = copy_subtree(t, t, j);
		if (c < 0)
			return false;
		place(t, i, c);
		return true;
	case 5:		/* a new attribute */
		if (n->kind != N_ATTR)
			return false;
		c = node_new(t, N_ATTR, -1);
		if (c < 0)
			return false;
		{
			static const uint8_t sizes[] = { 0, 1, 2, 4, 8, 16 };
			size_t len = sizes[rnd(sizeof(sizes))];
			uint8_t *p = arena_alloc(len);

			if (!p)
				return false;
			memset(p, 0, len);
			if (len && len <= 8)
				put_le(p, boundary(len), len);
			t->n[c].type = 1 + rnd(L->max_type);
			t->n[c].bytes = p;
			t->n[c].len = len;
		}
		place(t, i, c);
		return true;
	default:	/* a leaf's payload */
		if (n->kind == N_MSG)
			return mutate_msg(t, L, i);
		if (n->kind != N_ATTR || n->nested)
			return false;
		return mutate_leaf(t, i);
	}
}

/* Sets one length written to a wrong value. */
static void
break_a_length(struct out *o)
{
	unsigned k;
	size_t at;
	uint32_t v;

	if (!o->n_lens)
		return;
	k = rnd(o->n_lens);
	at = o->lens[k];
	v = o->lens_size[k] == 2 ? get16(o->buf + at) : get32(o->buf + at);
	switch (rnd(3)) {
	case 0: v += 1 + rnd(8); break;
	case 1: v -= 1 + rnd(8); break;
	default: v = boundary(o->lens_size[k]); break;
	}
	put_le(o->buf + at, v, o->lens_size[k]);
}

/* Writes t to out (max bytes) after head; 0 when it does not fit. */
static size_t
finish(const struct tree *t, const struct nl_mut_layout *L,
       const uint8_t *head, size_t head_len, int n_regions, uint8_t *out,
       size_t max)
{
	static struct out o;

	o.buf = out;
	o.len = 0;
	o.cap = max;
	o.n_lens = 0;
	if (!write_tree(t, L, head, head_len, n_regions, &o))
		return 0;
	if (L->malformed_one_in && !rnd(L->malformed_one_in))
		break_a_length(&o);
	return o.len;
}

size_t
nl_mutate(const struct nl_mut_layout *L, uint8_t *data, size_t size,
	  size_t max, unsigned seed)
{
	struct tree *t = &trees[0];
	struct regions r;
	uint8_t *copy;
	size_t n = 0;

	rng = seed | 1;
	arena_used = 0;
	if (!rnd(5) || !regions_of(L, data, size, &r))
		return LLVMFuzzerMutate(data, size, max);
	/* The tree points into the input, which the output overwrites. */
	copy = malloc(size);
	if (!copy)
		return LLVMFuzzerMutate(data, size, max);
	memcpy(copy, data, size);
	regions_of(L, copy, size, &r);
	if (parse(t, L, &r)) {
		bool changed = false;

		/* Mostly one change, sometimes a few. */
		for (int k = rnd(4) ? 1 : 2 + rnd(3); k > 0; k--)
			changed |= mutate_tree(t, L);
		if (changed)
			n = finish(t, L, copy, r.head, r.n, data, max);
	}
	if (!n) {
		memcpy(data, copy, size);
		n = LLVMFuzzerMutate(data, size, max);
	}
	free(copy);
	return n;
}

size_t
nl_crossover(const struct nl_mut_layout *L, const uint8_t *a, size_t a_size,
	     const uint8_t *b, size_t b_size, uint8_t *out, size_t max,
	     unsigned seed)
{
	struct tree *ta = &trees[0], *tb = &trees[1];
	struct regions ra, rb;
	int i, j, c;

	rng = seed | 1;
	arena_used = 0;
	if (!regions_of(L, a, a_size, &ra) || !regions_of(L, b, b_size, &rb) ||
	    !parse(ta, L, &ra) || !parse(tb, L, &rb))
		return 0;
	/* b's message or attribute, in place of or next to one of a's. */
	j = pick(tb, rnd(2) ? N_ATTR : N_ROOT);
	if (j < 0)
		return 0;
	i = pick(ta, tb->n[j].kind);
	c = copy_subtree(ta, tb, j);
	if (i < 0 || c < 0)
		return 0;
	place(ta, i, c);
	if (rnd(2))
		unlink_node(ta, i);	/* replaced */
	return finish(ta, L, a, ra.head, ra.n, out, max);
}
