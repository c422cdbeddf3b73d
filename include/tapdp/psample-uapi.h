/* SPDX-License-Identifier: Apache-2.0 */
/* The psample generic netlink uapi as Linux 6.12 defines it.
 *
 * Debian 12's linux-libc-dev ships the 6.1 header; this adds the attributes
 * that appeared since (6.11: the user cookie and the rate read as a
 * probability), which are ABI. */
#ifndef TAPDP_PSAMPLE_UAPI_H
#define TAPDP_PSAMPLE_UAPI_H

#include <linux/psample.h>

#define TAPDP_PSAMPLE_ATTR_USER_COOKIE		(PSAMPLE_ATTR_PROTO + 1)
#define TAPDP_PSAMPLE_ATTR_SAMPLE_PROBABILITY	(PSAMPLE_ATTR_PROTO + 2)
#define TAPDP_PSAMPLE_ATTR_MAX	TAPDP_PSAMPLE_ATTR_SAMPLE_PROBABILITY

#endif
