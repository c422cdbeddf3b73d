/* SPDX-License-Identifier: Apache-2.0 */
/* The tracker's vocabulary, shared by its modules and by the code that
 * talks to it: addresses, NAT ranges, application helpers, and the ct
 * action as the tracker runs it (what the kernel keeps as struct
 * ovs_conntrack_info). The netlink form of the action is
 * ct/action-netlink.h's business.
 *
 * Plain data. */
#ifndef TAPDP_CT_TYPES_H
#define TAPDP_CT_TYPES_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

/* ct_action.nat bits, as the kernel's OVS_CT_NAT flags. */
#define CT_ACTION_NAT		0x1	/* NAT existing connections */
#define CT_ACTION_SNAT		0x2
#define CT_ACTION_DNAT		0x4

/* ct_nat_range.flags. */
#define CT_RANGE_MAP_IPS	0x01
#define CT_RANGE_PROTO		0x02	/* ports given */
#define CT_RANGE_PERSISTENT	0x04
#define CT_RANGE_PROTO_HASH	0x08
#define CT_RANGE_PROTO_RANDOM	0x10

/* ct_action.helper: the application helpers there are. */
enum ct_helper_kind {
	CT_HELPER_NONE,
	CT_HELPER_FTP,			/* "ftp", TCP */
	CT_HELPER_TFTP,			/* "tftp", UDP */
};

/* The names the kernel bounds strings with. */
#define CT_HELPER_NAME_LEN	16	/* NF_CT_HELPER_NAME_LEN */
#define CT_TIMEOUT_NAME_LEN	32	/* CTNL_TIMEOUT_NAME_MAX */

union ct_addr {
	uint32_t ip;			/* be */
	struct in6_addr ip6;
};

struct ct_nat_range {
	uint32_t flags;			/* CT_RANGE_* */
	union ct_addr min_addr, max_addr;
	uint16_t min_port, max_port;	/* host order */
};

struct ct_action {
	uint8_t family;			/* AF_INET or AF_INET6 */
	bool commit;
	bool force;			/* force_commit */
	bool have_eventmask;
	uint16_t zone;
	uint8_t nat;			/* CT_ACTION_* */
	uint32_t eventmask;
	uint32_t mark, mark_mask;
	bool set_labels;		/* labels given (their mask is never 0) */
	uint8_t labels[16], labels_mask[16];
	uint8_t helper;			/* enum ct_helper_kind */
	char timeout[CT_TIMEOUT_NAME_LEN];	/* "" when none */
	struct ct_nat_range range;
};

#endif
