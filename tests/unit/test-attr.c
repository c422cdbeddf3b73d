/* SPDX-License-Identifier: Apache-2.0 */
/* Attribute policies and message building against the kernel's answers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "genl-server/attr.h"
#include "genl-server/msg.h"
#include "tests/unit/builders.h"

enum { T_U32 = 1, T_NAME, T_FLAG, T_NEST, T_RANGE, T_BIN, T_MAX = T_BIN };

static const struct attr_policy pol[T_MAX + 1] = {
	[T_U32] = { .kind = ATTR_U32 },
	[T_NAME] = { .kind = ATTR_NUL_STRING, .len = 15 },
	[T_FLAG] = { .kind = ATTR_FLAG },
	[T_NEST] = { .kind = ATTR_NESTED },
	[T_RANGE] = { .kind = ATTR_U32, .range = true, .min = 0, .max = 4096 },
	[T_BIN] = { .kind = ATTR_BINARY, .len = 4 },
};

static int
parse(const struct attrs *b, const struct nlattr **tb, struct extack *ack)
{
	return attr_parse(attrs_data(b), attrs_len(b), pol, T_MAX, tb, ack);
}

static void
test_valid_and_last_duplicate_wins(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	static struct attrs b;
	uint32_t one = 1, two = 2;

	attrs_init(&b);
	attrs_put(&b, T_U32, &one, 4);
	attrs_put(&b, T_NAME, "dp0", 4);
	attrs_put(&b, T_U32, &two, 4);
	attrs_put(&b, 77, &one, 4); /* unknown: skipped */
	assert_int_equal(parse(&b, tb, NULL), 0);
	assert_int_equal(attr_get_u32(tb[T_U32]), 2);
	assert_string_equal(attr_data(tb[T_NAME]), "dp0");
}

static void
test_short_u32_is_erange(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	struct extack ack = { 0 };
	static struct attrs b;
	struct nlattr *bad;

	attrs_init(&b);
	bad = attrs_put(&b, T_U32, "ab", 2);
	assert_int_equal(parse(&b, tb, &ack), -ERANGE);
	assert_ptr_equal(ack.bad_attr, bad);
	assert_string_equal(ack.msg, "Attribute failed policy validation");
}

static void
test_long_u32_is_accepted(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	static struct attrs b;
	uint64_t v = 5;

	attrs_init(&b);
	attrs_put(&b, T_U32, &v, 8);
	assert_int_equal(parse(&b, tb, NULL), 0);
}

static void
test_string_rules(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	static struct attrs b;

	attrs_init(&b);
	attrs_put(&b, T_NAME, "abc", 3); /* no NUL */
	assert_int_equal(parse(&b, tb, NULL), -EINVAL);
	attrs_init(&b);
	/* 16 chars: no NUL within the first len + 1 bytes */
	attrs_put(&b, T_NAME, "0123456789abcdef", 17);
	assert_int_equal(parse(&b, tb, NULL), -EINVAL);
	attrs_init(&b);
	/* a NUL early, but the attribute is longer than len */
	attrs_put(&b, T_NAME, "abc\0xxxxxxxxxxxxxxxx", 20);
	assert_int_equal(parse(&b, tb, NULL), -ERANGE);
	attrs_init(&b);
	attrs_put(&b, T_NAME, "0123456789abcde", 16); /* 15 chars: fits */
	assert_int_equal(parse(&b, tb, NULL), 0);
	attrs_init(&b);
	attrs_put(&b, T_NAME, "", 0);
	assert_int_equal(parse(&b, tb, NULL), -EINVAL);
}

static void
test_flag_nested_binary(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	static struct attrs b;

	attrs_init(&b);
	attrs_put(&b, T_FLAG, "x", 1);
	assert_int_equal(parse(&b, tb, NULL), -ERANGE);
	attrs_init(&b);
	attrs_put(&b, T_NEST, "xy", 2);
	assert_int_equal(parse(&b, tb, NULL), -ERANGE);
	attrs_init(&b);
	attrs_put(&b, T_NEST, "", 0);
	attrs_put(&b, T_BIN, "1234", 4);
	assert_int_equal(parse(&b, tb, NULL), 0);
	attrs_init(&b);
	attrs_put(&b, T_BIN, "12345", 5);
	assert_int_equal(parse(&b, tb, NULL), -ERANGE);
}

static void
test_range(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	struct extack ack = { 0 };
	static struct attrs b;
	uint32_t v = 4097;

	attrs_init(&b);
	attrs_put(&b, T_RANGE, &v, 4);
	assert_int_equal(parse(&b, tb, &ack), -ERANGE);
	assert_string_equal(ack.msg, "integer out of range");
	attrs_init(&b);
	v = 4096;
	attrs_put(&b, T_RANGE, &v, 4);
	assert_int_equal(parse(&b, tb, NULL), 0);
}

static void
test_truncated_attribute_stops_parsing(void **state)
{
	const struct nlattr *tb[T_MAX + 1];
	static struct attrs b;
	uint32_t v = 1;
	struct nlattr *a;

	attrs_init(&b);
	a = attrs_put(&b, T_U32, &v, 4);
	a->nla_len = 200; /* claims more than there is */
	assert_int_equal(parse(&b, tb, NULL), 0);
	assert_null(tb[T_U32]);
}

static void
test_msgbuf_overflow_rolls_back(void **state)
{
	char mem[64];
	struct msgbuf mb;

	msgbuf_init(&mb, mem, sizeof(mem));
	assert_non_null(msgbuf_start(&mb, 0x20, 0, 1, 2, 4));
	msgbuf_put_u32(&mb, 1, 7);
	assert_int_equal(msgbuf_end(&mb), 0);
	size_t first = mb.len;

	assert_non_null(msgbuf_start(&mb, 0x20, 0, 1, 2, 4));
	msgbuf_put(&mb, 2, 40, mem);
	assert_int_equal(msgbuf_end(&mb), -EMSGSIZE);
	assert_int_equal(mb.len, first);
}

static void
test_msgbuf_nest_has_no_nested_flag(void **state)
{
	char mem[256];
	struct msgbuf mb;
	struct nlattr *nest;

	msgbuf_init(&mb, mem, sizeof(mem));
	msgbuf_start(&mb, 0x20, 0, 1, 2, 0);
	nest = msgbuf_nest_start(&mb, 9);
	msgbuf_put_u64(&mb, 0, 42);
	msgbuf_nest_end(&mb, nest);
	assert_int_equal(msgbuf_end(&mb), 0);
	assert_int_equal(nest->nla_type, 9);
	assert_int_equal(nest->nla_len, NLA_HDRLEN + NLA_HDRLEN + 8);
}

/* Attributes shorter than their padding: the pad bytes are zero, whatever
 * the buffer held (they go to clients). */
static void
test_msgbuf_padding_is_zeroed(void **state)
{
	char mem[256];
	struct msgbuf mb;
	const uint8_t *p;

	memset(mem, 0xa5, sizeof(mem));
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_non_null(msgbuf_start(&mb, 0x20, 0, 1, 2, 4));
	msgbuf_put_u8(&mb, 1, 7);
	msgbuf_put_u16(&mb, 2, 8);
	msgbuf_put_string(&mb, 3, "abcde");
	assert_int_equal(msgbuf_end(&mb), 0);
	p = (const uint8_t *)mem + NLMSG_HDRLEN + 4;
	assert_int_equal(p[NLA_HDRLEN + 1] | p[NLA_HDRLEN + 2] |
			 p[NLA_HDRLEN + 3], 0);
	p += NLA_HDRLEN + 4;
	assert_int_equal(p[NLA_HDRLEN + 2] | p[NLA_HDRLEN + 3], 0);
	p += NLA_HDRLEN + 4;
	assert_int_equal(p[NLA_HDRLEN + 6] | p[NLA_HDRLEN + 7], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_and_last_duplicate_wins),
		cmocka_unit_test(test_short_u32_is_erange),
		cmocka_unit_test(test_long_u32_is_accepted),
		cmocka_unit_test(test_string_rules),
		cmocka_unit_test(test_flag_nested_binary),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_truncated_attribute_stops_parsing),
		cmocka_unit_test(test_msgbuf_overflow_rolls_back),
		cmocka_unit_test(test_msgbuf_nest_has_no_nested_flag),
		cmocka_unit_test(test_msgbuf_padding_is_zeroed),
	};

	return cmocka_run_group_tests_name("attr", tests, NULL, NULL);
}
