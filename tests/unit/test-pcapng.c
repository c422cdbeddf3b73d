/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl's pcapng writer, read back block by block: the section header,
 * interfaces with their link type, snap length and name, packets with
 * their interface, timestamp, lengths, padded bytes and comment; each
 * block's length written at both ends. (tcpdump reads a real capture in
 * test-tapdpctl.sh.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/pcapng.h"

struct block {
	uint32_t type, len;
	const uint8_t *body;	/* after type and length */
};

static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
u16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* The block at *off of buf (n bytes); moves *off past it. */
static struct block
next_block(const uint8_t *buf, size_t n, size_t *off)
{
	struct block b;

	assert_true(*off + 12 <= n);
	b.type = u32_at(buf + *off);
	b.len = u32_at(buf + *off + 4);
	b.body = buf + *off + 8;
	assert_int_equal(b.len % 4, 0);
	assert_true(*off + b.len <= n);
	assert_int_equal(u32_at(buf + *off + b.len - 4), b.len);
	*off += b.len;
	return b;
}

/* The string option code at opts (up to the block's trailing length). */
static void
assert_option(const uint8_t *opts, uint16_t code, const char *want)
{
	assert_int_equal(u16_at(opts), code);
	assert_int_equal(u16_at(opts + 2), strlen(want));
	assert_memory_equal(opts + 4, want, strlen(want));
}

static void
test_blocks(void **state)
{
	static const uint8_t pkt[7] = { 1, 2, 3, 4, 5, 6, 7 };
	char *buf = NULL;
	size_t n = 0, off = 0;
	struct pcapng p;
	struct block b;
	uint32_t a, e;

	assert_int_equal(pcapng_open(&p, open_memstream(&buf, &n)), 0);
	assert_int_equal(pcapng_iface(&p, PCAPNG_LINKTYPE_ETHERNET, 65535,
				      "port1", &a), 0);
	assert_int_equal(pcapng_iface(&p, PCAPNG_LINKTYPE_NETLINK, 4096, NULL,
				      &e), 0);
	assert_int_equal(a, 0);
	assert_int_equal(e, 1);
	assert_int_equal(pcapng_packet(&p, a, 0x123456789aULL, pkt, 7, 100,
				       "in 1"), 0);
	assert_int_equal(pcapng_packet(&p, e, 5, pkt, 4, 4, NULL), 0);
	assert_int_equal(pcapng_packet(&p, 2, 5, pkt, 4, 4, NULL), -EINVAL);
	fclose(p.f);

	b = next_block((const uint8_t *)buf, n, &off);
	assert_int_equal(b.type, 0x0a0d0d0a);
	assert_int_equal(b.len, 28);
	assert_int_equal(u32_at(b.body), 0x1a2b3c4d);
	assert_int_equal(u16_at(b.body + 4), 1);
	assert_int_equal(u16_at(b.body + 6), 0);

	b = next_block((const uint8_t *)buf, n, &off);
	assert_int_equal(b.type, 1);
	assert_int_equal(u16_at(b.body), PCAPNG_LINKTYPE_ETHERNET);
	assert_int_equal(u32_at(b.body + 4), 65535);
	assert_option(b.body + 8, 2, "port1");
	assert_int_equal(b.len, 20 + 4 + 8 + 4);	/* name padded, end */

	b = next_block((const uint8_t *)buf, n, &off);
	assert_int_equal(b.type, 1);
	assert_int_equal(u16_at(b.body), PCAPNG_LINKTYPE_NETLINK);
	assert_int_equal(b.len, 20);			/* no options */

	b = next_block((const uint8_t *)buf, n, &off);
	assert_int_equal(b.type, 6);
	assert_int_equal(u32_at(b.body), 0);
	assert_int_equal(u32_at(b.body + 4), 0x12);
	assert_int_equal(u32_at(b.body + 8), 0x3456789a);
	assert_int_equal(u32_at(b.body + 12), 7);
	assert_int_equal(u32_at(b.body + 16), 100);
	assert_memory_equal(b.body + 20, pkt, 7);
	assert_int_equal(b.body[27], 0);		/* padding */
	assert_option(b.body + 28, 1, "in 1");
	assert_int_equal(u32_at(b.body + 36), 0);	/* end of options */
	assert_int_equal(b.len, 32 + 8 + 8 + 4);

	b = next_block((const uint8_t *)buf, n, &off);
	assert_int_equal(b.type, 6);
	assert_int_equal(u32_at(b.body), 1);
	assert_int_equal(b.len, 32 + 4);
	assert_int_equal(off, n);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
