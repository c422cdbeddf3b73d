/* SPDX-License-Identifier: Apache-2.0 */
/* The device kinds the daemon makes where the kernel has no driver, and
 * how either side asks the kernel whether it has one: shared by the shim
 * (compat/autoload.c), which links nothing of the daemon's, and the
 * daemon (tap/tnl-dev.c's kinds and tap/vlan-dev.c's; test-tnl-dev
 * checks that the list names exactly those). No state. */
#ifndef TAPDP_KINDS_H
#define TAPDP_KINDS_H

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static const char *const tapdp_device_kinds[] = {
	"vxlan", "geneve", "gre", "gretap", "ip6gretap", "erspan",
	"ip6erspan", "bareudp", "vlan",
};

static inline bool
tapdp_kind_served(const char *kind)
{
	for (size_t i = 0;
	     i < sizeof(tapdp_device_kinds) / sizeof(tapdp_device_kinds[0]); i++)
		if (!strcmp(kind, tapdp_device_kinds[i]))
			return true;
	return false;
}

/* The probe: a creation the kernel refuses either way, under a name no
 * device may have. A driver's checks refuse it (EINVAL); rtnetlink
 * without the driver says EOPNOTSUPP. */
struct tapdp_kind_probe {
	struct nlmsghdr nlh;
	struct ifinfomsg ifi;
	char attrs[64];
};

/* The probe for kind into p (acknowledged); false if kind is too long
 * for one. */
static inline bool
tapdp_kind_probe(struct tapdp_kind_probe *p, const char *kind)
{
	static const char name[] = "tapdp/probe";
	size_t klen = strlen(kind) + 1;
	struct rtattr *a, *info, *k;

	if (klen > 16)
		return false;
	memset(p, 0, sizeof(*p));
	a = (struct rtattr *)p->attrs;
	a->rta_type = IFLA_IFNAME;
	a->rta_len = RTA_LENGTH(sizeof(name));
	memcpy(RTA_DATA(a), name, sizeof(name));
	info = (struct rtattr *)(p->attrs + RTA_ALIGN(a->rta_len));
	info->rta_type = IFLA_LINKINFO;
	k = (struct rtattr *)RTA_DATA(info);
	k->rta_type = IFLA_INFO_KIND;
	k->rta_len = RTA_LENGTH(klen);
	memcpy(RTA_DATA(k), kind, klen);
	info->rta_len = RTA_LENGTH(RTA_ALIGN(k->rta_len));
	p->nlh.nlmsg_len = NLMSG_SPACE(sizeof(p->ifi)) +
			   RTA_ALIGN(a->rta_len) + info->rta_len;
	p->nlh.nlmsg_type = RTM_NEWLINK;
	p->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
			     NLM_F_EXCL;
	return true;
}

#endif
