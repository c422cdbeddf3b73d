/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/odp-actions.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tools/odp-key.h"
#include "include/tapdp/ovs-uapi.h"

static void
put_hex(FILE *f, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", ((const uint8_t *)p)[i]);
}

/* The attribute of type nested in nest, or NULL. */
static const struct nlattr *
child(const struct nlattr *nest, unsigned type)
{
	const struct nlattr *attr;

	mnl_attr_for_each_nested(attr, nest)
		if (mnl_attr_get_type(attr) == type)
			return attr;
	return NULL;
}

static uint16_t
u16_of(const struct nlattr *a)
{
	uint16_t v = 0;

	if (a && mnl_attr_get_payload_len(a) >= 2)
		memcpy(&v, mnl_attr_get_payload(a), 2);
	return v;
}

static uint32_t
u32_of(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a && mnl_attr_get_payload_len(a) >= 4)
		memcpy(&v, mnl_attr_get_payload(a), 4);
	return v;
}

static void
put_list(FILE *f, const struct nlattr *nest)
{
	if (nest)
		odp_actions_format(f, mnl_attr_get_payload(nest),
				   mnl_attr_get_payload_len(nest));
}

static void
put_ip(FILE *f, const struct nlattr *a)
{
	char s[INET6_ADDRSTRLEN];
	size_t n = mnl_attr_get_payload_len(a);

	if ((n == 4 || n == 16) &&
	    inet_ntop(n == 4 ? AF_INET : AF_INET6, mnl_attr_get_payload(a), s,
		      sizeof(s)))
		fprintf(f, n == 4 ? "%s" : "[%s]", s);
}

static void
put_nat(FILE *f, const struct nlattr *nat)
{
	const struct nlattr *lo = child(nat, OVS_NAT_ATTR_IP_MIN);
	const struct nlattr *hi = child(nat, OVS_NAT_ATTR_IP_MAX);
	const struct nlattr *plo = child(nat, OVS_NAT_ATTR_PROTO_MIN);
	const struct nlattr *phi = child(nat, OVS_NAT_ATTR_PROTO_MAX);
	bool src = child(nat, OVS_NAT_ATTR_SRC);

	if (!src && !child(nat, OVS_NAT_ATTR_DST)) {
		fputs("nat", f);
		return;
	}
	fprintf(f, "nat(%s", src ? "src" : "dst");
	if (lo) {
		fputc('=', f);
		put_ip(f, lo);
		if (hi && memcmp(mnl_attr_get_payload(lo),
				 mnl_attr_get_payload(hi),
				 mnl_attr_get_payload_len(lo))) {
			fputc('-', f);
			put_ip(f, hi);
		}
		if (plo) {
			fprintf(f, ":%u", u16_of(plo));
			if (phi && u16_of(phi) != u16_of(plo))
				fprintf(f, "-%u", u16_of(phi));
		}
	}
	if (child(nat, OVS_NAT_ATTR_PERSISTENT))
		fputs(",persistent", f);
	if (child(nat, OVS_NAT_ATTR_PROTO_HASH))
		fputs(",hash", f);
	if (child(nat, OVS_NAT_ATTR_PROTO_RANDOM))
		fputs(",random", f);
	fputc(')', f);
}

static void
put_ct(FILE *f, const struct nlattr *ct)
{
	/* ovs-dpctl's order, whatever the attributes' order. */
	static const unsigned order[] = {
		OVS_CT_ATTR_COMMIT, OVS_CT_ATTR_FORCE_COMMIT, OVS_CT_ATTR_ZONE,
		OVS_CT_ATTR_MARK, OVS_CT_ATTR_LABELS, OVS_CT_ATTR_HELPER,
		OVS_CT_ATTR_TIMEOUT, OVS_CT_ATTR_NAT,
	};
	const struct nlattr *a;
	bool any = false;

	fputs("ct", f);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const uint8_t *p;

		if (!(a = child(ct, order[i])))
			continue;
		p = mnl_attr_get_payload(a);
		if (order[i] == OVS_CT_ATTR_ZONE && !u16_of(a))
			continue;
		fputs(any ? "," : "(", f);
		any = true;
		switch (order[i]) {
		case OVS_CT_ATTR_COMMIT:
			fputs("commit", f);
			break;
		case OVS_CT_ATTR_FORCE_COMMIT:
			fputs("force_commit", f);
			break;
		case OVS_CT_ATTR_ZONE:
			fprintf(f, "zone=%u", u16_of(a));
			break;
		case OVS_CT_ATTR_MARK: {
			uint32_t m[2] = { 0 };

			memcpy(m, p, mnl_attr_get_payload_len(a) < 8
					     ? mnl_attr_get_payload_len(a)
					     : 8);
			fprintf(f, "mark=%#x/%#x", m[0], m[1]);
			break;
		}
		case OVS_CT_ATTR_LABELS:
			fputs("label=0x", f);
			put_hex(f, p, mnl_attr_get_payload_len(a));
			break;
		case OVS_CT_ATTR_HELPER:
			fprintf(f, "helper=%.*s", (int)strnlen((const char *)p,
						     mnl_attr_get_payload_len(a)),
				(const char *)p);
			break;
		case OVS_CT_ATTR_TIMEOUT:
			fprintf(f, "timeout=%.*s", (int)strnlen((const char *)p,
						      mnl_attr_get_payload_len(a)),
				(const char *)p);
			break;
		case OVS_CT_ATTR_NAT:
			put_nat(f, a);
			break;
		}
	}
	if (any)
		fputc(')', f);
}

/* set(KEY) or, masked, the key's payload then its mask. */
static void
put_set(FILE *f, const struct nlattr *a, bool masked)
{
	const struct nlattr *k = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a);
	uint8_t key[512], mask[512];
	size_t half;

	fputs("set(", f);
	if (n < sizeof(*k) || k->nla_len > n || k->nla_len < sizeof(*k)) {
		put_hex(f, k, n);
	} else if (!masked) {
		odp_key_format(f, k, k->nla_len, NULL, 0);
	} else if ((half = (k->nla_len - sizeof(*k)) / 2) + sizeof(*k) >
		   sizeof(key)) {
		put_hex(f, k, n);
	} else {
		struct nlattr *kk = (void *)key, *mm = (void *)mask;

		kk->nla_type = mm->nla_type = k->nla_type;
		kk->nla_len = mm->nla_len = sizeof(*k) + half;
		memcpy(kk + 1, k + 1, half);
		memcpy(mm + 1, (const uint8_t *)(k + 1) + half, half);
		odp_key_format(f, kk, kk->nla_len, mm, mm->nla_len);
	}
	fputc(')', f);
}

static void
put_action(FILE *f, const struct nlattr *a)
{
	const void *p = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case OVS_ACTION_ATTR_OUTPUT:
		fprintf(f, "%u", u32_of(a));
		return;
	case OVS_ACTION_ATTR_METER:
		fprintf(f, "meter(%u)", u32_of(a));
		return;
	case OVS_ACTION_ATTR_TRUNC:
		fprintf(f, "trunc(%u)", u32_of(a));
		return;
	case OVS_ACTION_ATTR_RECIRC:
		fprintf(f, "recirc(%#x)", u32_of(a));
		return;
	case OVS_ACTION_ATTR_USERSPACE: {
		const struct nlattr *ud = child(a,
						OVS_USERSPACE_ATTR_USERDATA);

		fprintf(f, "userspace(pid=%u",
			u32_of(child(a, OVS_USERSPACE_ATTR_PID)));
		if (ud) {
			fputs(",userdata(", f);
			put_hex(f, mnl_attr_get_payload(ud),
				mnl_attr_get_payload_len(ud));
			fputc(')', f);
		}
		fputc(')', f);
		return;
	}
	case OVS_ACTION_ATTR_HASH: {
		struct ovs_action_hash h;

		if (n < sizeof(h))
			break;
		memcpy(&h, p, sizeof(h));
		fprintf(f, h.hash_alg != OVS_HASH_ALG_L4 ? "hash(sym_l4(%u))"
							     : "hash(l4(%u))",
			h.hash_basis);
		return;
	}
	case OVS_ACTION_ATTR_SET:
	case OVS_ACTION_ATTR_SET_MASKED:
		put_set(f, a,
			mnl_attr_get_type(a) == OVS_ACTION_ATTR_SET_MASKED);
		return;
	case OVS_ACTION_ATTR_PUSH_VLAN: {
		struct ovs_action_push_vlan v;
		uint16_t tci;

		if (n < sizeof(v))
			break;
		memcpy(&v, p, sizeof(v));
		tci = ntohs(v.vlan_tci);
		fputs("push_vlan(", f);
		if (v.vlan_tpid != htons(0x8100))
			fprintf(f, "tpid=0x%04x,", ntohs(v.vlan_tpid));
		fprintf(f, "vid=%u,pcp=%u)", tci & 0xfffu,
			(unsigned)(tci >> 13));
		return;
	}
	case OVS_ACTION_ATTR_POP_VLAN:
		fputs("pop_vlan", f);
		return;
	case OVS_ACTION_ATTR_PUSH_MPLS: {
		struct ovs_action_push_mpls m;
		uint32_t lse;

		if (n < sizeof(m))
			break;
		memcpy(&m, p, sizeof(m));
		lse = ntohl(m.mpls_lse);
		fprintf(f, "push_mpls(label=%u,tc=%u,ttl=%u,bos=%u,"
			   "eth_type=0x%x)", lse >> 12, (lse >> 9) & 7,
			lse & 0xff, (lse >> 8) & 1, ntohs(m.mpls_ethertype));
		return;
	}
	case OVS_ACTION_ATTR_POP_MPLS:
		if (n < 2)
			break;
		fprintf(f, "pop_mpls(eth_type=0x%x)", ntohs(u16_of(a)));
		return;
	case OVS_ACTION_ATTR_SAMPLE:
		fprintf(f, "sample(sample=%.1f%%,actions(",
			100.0 * u32_of(child(a, OVS_SAMPLE_ATTR_PROBABILITY)) /
				UINT32_MAX);
		put_list(f, child(a, OVS_SAMPLE_ATTR_ACTIONS));
		fputs("))", f);
		return;
	case OVS_ACTION_ATTR_CLONE:
		fputs("clone(", f);
		odp_actions_format(f, p, n);
		fputc(')', f);
		return;
	case OVS_ACTION_ATTR_CHECK_PKT_LEN:
		fprintf(f, "check_pkt_len(size=%u,gt(",
			u16_of(child(a, OVS_CHECK_PKT_LEN_ATTR_PKT_LEN)));
		put_list(f, child(a,
				  OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER));
		fputs("),le(", f);
		put_list(f, child(a,
				  OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL));
		fputs("))", f);
		return;
	case OVS_ACTION_ATTR_DEC_TTL:
		fputs("dec_ttl(le_1(", f);
		put_list(f, child(a, OVS_DEC_TTL_ATTR_ACTION));
		fputs("))", f);
		return;
	case OVS_ACTION_ATTR_CT:
		put_ct(f, a);
		return;
	case OVS_ACTION_ATTR_CT_CLEAR:
		fputs("ct_clear", f);
		return;
	case OVS_ACTION_ATTR_POP_ETH:
		fputs("pop_eth", f);
		return;
	case OVS_ACTION_ATTR_POP_NSH:
		fputs("pop_nsh()", f);
		return;
	case TAPDP_ACTION_ATTR_DROP:
		fputs("drop", f);
		return;
	}
	fprintf(f, "action%u(", mnl_attr_get_type(a));
	put_hex(f, p, n);
	fputc(')', f);
}

void
odp_actions_format(FILE *f, const void *acts, size_t len)
{
	const struct nlattr *attr;

	if (!len) {
		fputs("drop", f);
		return;
	}
	mnl_attr_for_each_payload(acts, len) {
		if (attr != acts)
			fputc(',', f);
		put_action(f, attr);
	}
}
