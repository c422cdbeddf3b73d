/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/action-netlink.h"

#include <errno.h>
#include <linux/openvswitch.h>
#include <string.h>
#include <sys/socket.h>

#include "common/nlerr.h"
#include "genl-server/attr.h"
#include "genl-server/msg.h"

/* Payload bounds of each OVS_CT_ATTR_*; NAT is checked attribute by
 * attribute inside its nest. */
static const struct {
	int min, max;
} ct_lens[OVS_CT_ATTR_MAX + 1] = {
	[OVS_CT_ATTR_COMMIT] = { 0, 0 },
	[OVS_CT_ATTR_FORCE_COMMIT] = { 0, 0 },
	[OVS_CT_ATTR_ZONE] = { 2, 2 },
	[OVS_CT_ATTR_MARK] = { 8, 8 },
	[OVS_CT_ATTR_LABELS] = { 32, 32 },
	[OVS_CT_ATTR_HELPER] = { 1, CT_HELPER_NAME_LEN },
	[OVS_CT_ATTR_NAT] = { 0, 0x7fffffff },
	[OVS_CT_ATTR_EVENTMASK] = { 4, 4 },
	[OVS_CT_ATTR_TIMEOUT] = { 1, CT_TIMEOUT_NAME_LEN },
};

static bool
nonzero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return true;
	return false;
}

static bool
terminated(const char *s, int len)
{
	return memchr(s, '\0', len) != NULL;
}

static int
parse_nat(const struct nlattr *nest, struct ct_action *ct, bool log)
{
	/* Address lengths depend on the family: [v4, v6]. */
	static const int lens[OVS_NAT_ATTR_MAX + 1][2] = {
		[OVS_NAT_ATTR_IP_MIN] = { 4, 16 },
		[OVS_NAT_ATTR_IP_MAX] = { 4, 16 },
		[OVS_NAT_ATTR_PROTO_MIN] = { 2, 2 },
		[OVS_NAT_ATTR_PROTO_MAX] = { 2, 2 },
	};
	struct ct_nat_range *r = &ct->range;
	bool v6 = ct->family == AF_INET6, ip_max = false, port_max = false;
	const struct nlattr *a;
	int rem;

	attr_for_each(a, attr_data(nest), attr_len(nest), rem) {
		int type = attr_type(a);

		if (type > OVS_NAT_ATTR_MAX) {
			ovs_nlerr(log, "Unknown NAT attribute (type=%d, max=%d)",
				  type, OVS_NAT_ATTR_MAX);
			return -EINVAL;
		}
		if (attr_len(a) != lens[type][v6]) {
			ovs_nlerr(log, "NAT attribute type %d has unexpected length (%d != %d)",
				  type, attr_len(a), lens[type][v6]);
			return -EINVAL;
		}
		switch (type) {
		case OVS_NAT_ATTR_SRC:
		case OVS_NAT_ATTR_DST:
			if (ct->nat) {
				ovs_nlerr(log, "Only one type of NAT may be specified");
				return -ERANGE;
			}
			ct->nat = CT_ACTION_NAT | (type == OVS_NAT_ATTR_SRC
							   ? CT_ACTION_SNAT
							   : CT_ACTION_DNAT);
			break;
		case OVS_NAT_ATTR_IP_MIN:
			memcpy(&r->min_addr, attr_data(a), attr_len(a));
			r->flags |= CT_RANGE_MAP_IPS;
			break;
		case OVS_NAT_ATTR_IP_MAX:
			memcpy(&r->max_addr, attr_data(a), attr_len(a));
			r->flags |= CT_RANGE_MAP_IPS;
			ip_max = true;
			break;
		case OVS_NAT_ATTR_PROTO_MIN:
			r->min_port = attr_get_u16(a);
			r->flags |= CT_RANGE_PROTO;
			break;
		case OVS_NAT_ATTR_PROTO_MAX:
			r->max_port = attr_get_u16(a);
			r->flags |= CT_RANGE_PROTO;
			port_max = true;
			break;
		case OVS_NAT_ATTR_PERSISTENT:
			r->flags |= CT_RANGE_PERSISTENT;
			break;
		case OVS_NAT_ATTR_PROTO_HASH:
			r->flags |= CT_RANGE_PROTO_HASH;
			break;
		case OVS_NAT_ATTR_PROTO_RANDOM:
			r->flags |= CT_RANGE_PROTO_RANDOM;
			break;
		default:
			ovs_nlerr(log, "Unknown nat attribute (%d)", type);
			return -EINVAL;
		}
	}
	if (rem > 0) {
		ovs_nlerr(log, "NAT attribute has %d unknown bytes", rem);
		return -EINVAL;
	}
	if (!ct->nat) {
		if (r->flags) {
			ovs_nlerr(log, "NAT flags may be given only when NAT range (SRC or DST) is also specified.");
			return -EINVAL;
		}
		ct->nat = CT_ACTION_NAT;
	} else if (!ct->commit) {
		ovs_nlerr(log, "NAT attributes may be specified only when CT COMMIT flag is also specified.");
		return -EINVAL;
	}
	if ((r->flags & CT_RANGE_MAP_IPS) && !ip_max)
		r->max_addr = r->min_addr;
	if ((r->flags & CT_RANGE_PROTO) && !port_max)
		r->max_port = r->min_port;
	return 0;
}

static int
parse_one(const struct nlattr *a, struct ct_action *ct, const char **helper,
	  bool log)
{
	int type = attr_type(a);

	switch (type) {
	case OVS_CT_ATTR_FORCE_COMMIT:
		ct->force = true;
		/* fall through */
	case OVS_CT_ATTR_COMMIT:
		ct->commit = true;
		return 0;
	case OVS_CT_ATTR_ZONE:
		ct->zone = attr_get_u16(a);
		return 0;
	case OVS_CT_ATTR_MARK: {
		uint32_t m[2];

		memcpy(m, attr_data(a), sizeof(m));
		if (!m[1]) {
			ovs_nlerr(log, "ct_mark mask cannot be 0");
			return -EINVAL;
		}
		ct->mark = m[0];
		ct->mark_mask = m[1];
		return 0;
	}
	case OVS_CT_ATTR_LABELS: {
		const uint8_t *l = attr_data(a);

		if (!nonzero(l + 16, 16)) {
			ovs_nlerr(log, "ct_labels mask cannot be 0");
			return -EINVAL;
		}
		memcpy(ct->labels, l, 16);
		memcpy(ct->labels_mask, l + 16, 16);
		ct->set_labels = true;
		return 0;
	}
	case OVS_CT_ATTR_HELPER:
		if (!terminated(attr_data(a), attr_len(a))) {
			ovs_nlerr(log, "Invalid conntrack helper");
			return -EINVAL;
		}
		*helper = attr_data(a);
		return 0;
	case OVS_CT_ATTR_NAT:
		return parse_nat(a, ct, log);
	case OVS_CT_ATTR_EVENTMASK:
		ct->have_eventmask = true;
		ct->eventmask = attr_get_u32(a);
		return 0;
	case OVS_CT_ATTR_TIMEOUT:
		if (!terminated(attr_data(a), attr_len(a))) {
			ovs_nlerr(log, "Invalid conntrack timeout");
			return -EINVAL;
		}
		memcpy(ct->timeout, attr_data(a), attr_len(a));
		return 0;
	default:
		ovs_nlerr(log, "Unknown conntrack attr (%d)", type);
		return -EINVAL;
	}
}

int
ct_action_parse(const struct nlattr *nest, const struct flow_key *key,
		struct ct_action *ct, bool log)
{
	const char *helper = NULL;
	const struct nlattr *a;
	int rem, err;

	memset(ct, 0, sizeof(*ct));
	ct->family = flow_key_family(key);
	if (!ct->family) {
		ovs_nlerr(log, "ct family unspecified");
		return -EINVAL;
	}
	attr_for_each(a, attr_data(nest), attr_len(nest), rem) {
		int type = attr_type(a);

		if (type > OVS_CT_ATTR_MAX) {
			ovs_nlerr(log, "Unknown conntrack attr (type=%d, max=%d)",
				  type, OVS_CT_ATTR_MAX);
			return -EINVAL;
		}
		if (attr_len(a) < ct_lens[type].min ||
		    attr_len(a) > ct_lens[type].max) {
			ovs_nlerr(log, "Conntrack attr type has unexpected length (type=%d, length=%d, expected=%d)",
				  type, attr_len(a), ct_lens[type].max);
			return -EINVAL;
		}
		err = parse_one(a, ct, &helper, log);
		if (err)
			return err;
	}
	if (!ct->commit && ct->mark_mask) {
		ovs_nlerr(log, "Setting conntrack mark requires 'commit' flag.");
		return -EINVAL;
	}
	if (!ct->commit && ct->set_labels) {
		ovs_nlerr(log, "Setting conntrack labels requires 'commit' flag.");
		return -EINVAL;
	}
	if (rem > 0) {
		ovs_nlerr(log, "Conntrack attr has %d unknown bytes", rem);
		return -EINVAL;
	}
	if (helper) {
		ct->helper = ct_helper_find(helper, key->ip_proto);
		if (!ct->helper) {
			ovs_nlerr(log, "Failed to add %s helper %d", helper,
				  -EINVAL);
			return -EINVAL;
		}
	}
	return 0;
}

uint8_t
ct_helper_find(const char *name, uint8_t proto)
{
	/* Helpers are registered for one protocol each. */
	if (!strcmp(name, "ftp") && proto == IPPROTO_TCP)
		return CT_HELPER_FTP;
	if (!strcmp(name, "tftp") && proto == IPPROTO_UDP)
		return CT_HELPER_TFTP;
	return CT_HELPER_NONE;
}

const char *
ct_helper_name(uint8_t helper)
{
	switch (helper) {
	case CT_HELPER_FTP:
		return "ftp";
	case CT_HELPER_TFTP:
		return "tftp";
	default:
		return NULL;
	}
}

static void
put_nat(struct msgbuf *mb, const struct ct_action *a)
{
	const struct ct_nat_range *r = &a->range;
	size_t alen = a->family == AF_INET ? 4 : 16;
	struct nlattr *nest = msgbuf_nest_start(mb, OVS_CT_ATTR_NAT);

	if (a->nat & (CT_ACTION_SNAT | CT_ACTION_DNAT)) {
		msgbuf_put(mb, a->nat & CT_ACTION_SNAT ? OVS_NAT_ATTR_SRC
						       : OVS_NAT_ATTR_DST,
			   0, NULL);
		if (r->flags & CT_RANGE_MAP_IPS) {
			msgbuf_put(mb, OVS_NAT_ATTR_IP_MIN, alen, &r->min_addr);
			if (memcmp(&r->min_addr, &r->max_addr, alen))
				msgbuf_put(mb, OVS_NAT_ATTR_IP_MAX, alen,
					   &r->max_addr);
		}
		if (r->flags & CT_RANGE_PROTO) {
			msgbuf_put_u16(mb, OVS_NAT_ATTR_PROTO_MIN, r->min_port);
			if (r->max_port != r->min_port)
				msgbuf_put_u16(mb, OVS_NAT_ATTR_PROTO_MAX,
					       r->max_port);
		}
		if (r->flags & CT_RANGE_PERSISTENT)
			msgbuf_put(mb, OVS_NAT_ATTR_PERSISTENT, 0, NULL);
		if (r->flags & CT_RANGE_PROTO_HASH)
			msgbuf_put(mb, OVS_NAT_ATTR_PROTO_HASH, 0, NULL);
		if (r->flags & CT_RANGE_PROTO_RANDOM)
			msgbuf_put(mb, OVS_NAT_ATTR_PROTO_RANDOM, 0, NULL);
	}
	msgbuf_nest_end(mb, nest);
}

void
ct_action_put(struct msgbuf *mb, const struct ct_action *a)
{
	struct nlattr *nest = msgbuf_nest_start(mb, OVS_ACTION_ATTR_CT);

	if (a->commit)
		msgbuf_put(mb, a->force ? OVS_CT_ATTR_FORCE_COMMIT
					: OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put_u16(mb, OVS_CT_ATTR_ZONE, a->zone);
	if (a->mark_mask) {
		uint32_t m[2] = { a->mark, a->mark_mask };

		msgbuf_put(mb, OVS_CT_ATTR_MARK, sizeof(m), m);
	}
	if (a->set_labels) {
		uint8_t l[32];

		memcpy(l, a->labels, 16);
		memcpy(l + 16, a->labels_mask, 16);
		msgbuf_put(mb, OVS_CT_ATTR_LABELS, sizeof(l), l);
	}
	if (a->helper)
		msgbuf_put_string(mb, OVS_CT_ATTR_HELPER,
				  ct_helper_name(a->helper));
	if (a->have_eventmask)
		msgbuf_put_u32(mb, OVS_CT_ATTR_EVENTMASK, a->eventmask);
	if (a->timeout[0])
		msgbuf_put_string(mb, OVS_CT_ATTR_TIMEOUT, a->timeout);
	if (a->nat)
		put_nat(mb, a);
	msgbuf_nest_end(mb, nest);
}
