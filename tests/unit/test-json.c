/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl's JSON writer: commas and keys in objects and arrays, nesting,
 * strings escaped as RFC 8259 asks, one document per line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tools/json.h"

/* What the writer wrote into the memory stream buf, as a string. */
static char *
written(struct json *j, char **buf)
{
	fclose(j->f);
	return *buf;
}

static void
test_nesting(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct json j;

	json_init(&j, open_memstream(&buf, &len));
	json_object_begin(&j, NULL);
	json_string(&j, "a", "x");
	json_uint(&j, "n", 18446744073709551615ULL);
	json_array_begin(&j, "l");
	json_uint(&j, NULL, 1);
	json_object_begin(&j, NULL);
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_object_end(&j);
	json_array_begin(&j, NULL);
	json_array_end(&j);
	json_array_end(&j);
	json_object_begin(&j, "o");
	json_object_end(&j);
	json_object_end(&j);
	/* A second document on its own line. */
	json_array_begin(&j, NULL);
	json_array_end(&j);
	assert_string_equal(written(&j, &buf),
			    "{\"a\":\"x\",\"n\":18446744073709551615,"
			    "\"l\":[1,{\"t\":true,\"f\":false},[]],\"o\":{}}\n"
			    "[]\n");
	free(buf);
}

static void
test_escapes(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct json j;

	json_init(&j, open_memstream(&buf, &len));
	json_object_begin(&j, NULL);
	json_string(&j, "q\"k", "a\"b\\c\n\t\x01\x1f/\x7f\xc3\xa9");
	json_object_end(&j);
	/* Quotes, backslashes and controls escaped; UTF-8 and DEL as they
	 * are (JSON allows both). */
	assert_string_equal(written(&j, &buf),
			    "{\"q\\\"k\":\"a\\\"b\\\\c\\u000a\\u0009\\u0001"
			    "\\u001f/\x7f\xc3\xa9\"}\n");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
