/* SPDX-License-Identifier: Apache-2.0 */
/* The builders' failure in the unit tests (tests/unit/builders.h): the
 * running cmocka test fails, with what went wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/unit/builders.h"

void
builders_fail(const char *what)
{
	fail_msg("%s", what);
	/* fail_msg() has left the test (or, outside one, the program). */
	abort();
}
