/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/pcapng.h"

#include <errno.h>
#include <string.h>

#define BT_SHB		0x0a0d0d0a
#define BT_IDB		0x00000001
#define BT_EPB		0x00000006
#define BYTE_ORDER_MAGIC 0x1a2b3c4d
#define OPT_END		0
#define OPT_COMMENT	1
#define IF_NAME		2

static uint32_t
pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* An option's value is at most 65535 bytes: longer strings are cut. */
static uint16_t
opt_len(const char *s)
{
	size_t n = strlen(s);

	return n > 0xffff ? 0xffff : n;
}

static uint32_t
opt_size(const char *s)
{
	return s ? 4 + pad4(opt_len(s)) : 0;
}

static void
put_u32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

static void
put_u16(FILE *f, uint16_t v)
{
	fwrite(&v, 2, 1, f);
}

/* len bytes and their padding to 4. */
static void
put_padded(FILE *f, const void *data, uint32_t len)
{
	static const char zero[4];

	fwrite(data, 1, len, f);
	fwrite(zero, 1, pad4(len) - len, f);
}

/* A string option, when s is not NULL. */
static void
put_opt(FILE *f, uint16_t code, const char *s)
{
	if (!s)
		return;
	put_u16(f, code);
	put_u16(f, opt_len(s));
	put_padded(f, s, opt_len(s));
}

static int
done(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

int
pcapng_open(struct pcapng *p, FILE *f)
{
	uint32_t len = 28;

	p->f = f;
	p->n_ifaces = 0;
	put_u32(f, BT_SHB);
	put_u32(f, len);
	put_u32(f, BYTE_ORDER_MAGIC);
	put_u16(f, 1);			/* version 1.0 */
	put_u16(f, 0);
	put_u32(f, 0xffffffff);		/* section length: unknown */
	put_u32(f, 0xffffffff);
	put_u32(f, len);
	return done(f);
}

int
pcapng_iface(struct pcapng *p, uint16_t linktype, uint32_t snaplen,
	     const char *name, uint32_t *id)
{
	uint32_t opts = opt_size(name), len = 20 + opts + (opts ? 4 : 0);

	put_u32(p->f, BT_IDB);
	put_u32(p->f, len);
	put_u16(p->f, linktype);
	put_u16(p->f, 0);
	put_u32(p->f, snaplen);
	if (opts) {
		put_opt(p->f, IF_NAME, name);
		put_u32(p->f, OPT_END);
	}
	put_u32(p->f, len);
	*id = p->n_ifaces++;
	return done(p->f);
}

int
pcapng_packet(struct pcapng *p, uint32_t id, uint64_t ts_us,
	      const void *data, uint32_t caplen, uint32_t len,
	      const char *comment)
{
	uint32_t opts = opt_size(comment);
	uint32_t blen = 32 + pad4(caplen) + opts + (opts ? 4 : 0);

	if (id >= p->n_ifaces)
		return -EINVAL;
	put_u32(p->f, BT_EPB);
	put_u32(p->f, blen);
	put_u32(p->f, id);
	put_u32(p->f, ts_us >> 32);
	put_u32(p->f, ts_us);
	put_u32(p->f, caplen);
	put_u32(p->f, len);
	put_padded(p->f, data, caplen);
	if (opts) {
		put_opt(p->f, OPT_COMMENT, comment);
		put_u32(p->f, OPT_END);
	}
	put_u32(p->f, blen);
	return done(p->f);
}
