/* SPDX-License-Identifier: Apache-2.0 */
/* tapdpctl's commands: each is a name, its usage line and a run function
 * given the command's own arguments (argv[0] is its name) and a netlink
 * client of the daemon; it prints to standard output, human or JSON as
 * ctx->json says, its errors to standard error, and returns the exit
 * status. Single-threaded. */
#ifndef TAPDP_CTL_CMD_H
#define TAPDP_CTL_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/genl-client.h"

struct ctl_ctx {
	bool json;
	struct gclient nl;
};

struct ctl_cmd {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(struct ctl_ctx *ctx, int argc, char **argv);
};

extern const struct ctl_cmd ctl_cmd_status;
extern const struct ctl_cmd ctl_cmd_drops;
extern const struct ctl_cmd ctl_cmd_flows;
extern const struct ctl_cmd ctl_cmd_capture;
extern const struct ctl_cmd ctl_cmd_nlmon;
extern const struct ctl_cmd ctl_cmd_trace;
extern const struct ctl_cmd ctl_cmd_upcalls;

/* "tapdpctl: WHAT: strerror(-err)" on standard error; returns 1, the exit
 * status of a failed command. */
int ctl_fail(const char *what, int err);
/* One more element at the end of *arr, an array of *n elements of size
 * bytes (a pointer to the array's pointer), zeroed; *n counts it. NULL
 * when memory runs out (the array is left as it was). */
void *ctl_grow(void *arr, unsigned *n, size_t size);

/* Appends to buf (len bytes, n of them used) as snprintf writes; the new
 * n, which may pass len when the words did not fit (they are cut). */
size_t ctl_addf(char *buf, size_t len, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The id of family (and of its group, when group is not NULL), or, when
 * that fails, the reason on standard error (no tapdpd serving the socket
 * when the family is unknown) and 1. */
int ctl_family(struct ctl_ctx *ctx, const char *family, uint16_t *id,
	       const char *group, uint32_t *group_id);

#endif
