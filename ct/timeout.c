/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/timeout.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <urcu/rculist.h>

struct ct_timeout {
	struct cds_list_head node;	/* in the table while it exists */
	char name[CT_TIMEOUT_NAME_LEN];
	uint16_t l3num;
	uint8_t l4num;
	bool dead;			/* deleted; atomic */
	uint32_t refcnt;		/* atomic */
	uint32_t values[CT_TIMEOUT_N];	/* each atomic */
	struct rcu_head rcu;
};

/* nf_conntrack's defaults, seconds. TCP's attributes are its states (enum
 * ct_tcp_state); UNSPEC stands for NONE, which a policy sets to SYN_SENT's. */
static const uint32_t tcp_defaults[CT_TIMEOUT_N] = {
	[CTA_TIMEOUT_TCP_UNSPEC] = 10,
	[CTA_TIMEOUT_TCP_SYN_SENT] = 120,
	[CTA_TIMEOUT_TCP_SYN_RECV] = 60,
	[CTA_TIMEOUT_TCP_ESTABLISHED] = 5 * 24 * 3600,
	[CTA_TIMEOUT_TCP_FIN_WAIT] = 120,
	[CTA_TIMEOUT_TCP_CLOSE_WAIT] = 60,
	[CTA_TIMEOUT_TCP_LAST_ACK] = 30,
	[CTA_TIMEOUT_TCP_TIME_WAIT] = 120,
	[CTA_TIMEOUT_TCP_CLOSE] = 10,
	[CTA_TIMEOUT_TCP_SYN_SENT2] = 120,
	[CTA_TIMEOUT_TCP_RETRANS] = 300,
	[CTA_TIMEOUT_TCP_UNACK] = 300,
};
static const uint32_t udp_defaults[CT_TIMEOUT_N] = {
	[CTA_TIMEOUT_UDP_UNREPLIED] = 30,
	[CTA_TIMEOUT_UDP_REPLIED] = 120,
};
static const uint32_t icmp_defaults[CT_TIMEOUT_N] = {
	[CTA_TIMEOUT_ICMP_TIMEOUT] = 30,
};
static const uint32_t generic_defaults[CT_TIMEOUT_N] = {
	[CTA_TIMEOUT_GENERIC_TIMEOUT] = 600,
};

static const uint32_t *
defaults(uint8_t l4num)
{
	switch (l4num) {
	case IPPROTO_TCP:
		return tcp_defaults;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return udp_defaults;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return icmp_defaults;
	default:
		return generic_defaults;
	}
}

int
ct_timeout_max_attr(uint8_t l4num)
{
	switch (l4num) {
	case IPPROTO_TCP:
		return CTA_TIMEOUT_TCP_MAX;
	case IPPROTO_UDP:
		return CTA_TIMEOUT_UDP_MAX;
	case IPPROTO_UDPLITE:
		return CTA_TIMEOUT_UDPLITE_MAX;
	case IPPROTO_ICMP:
		return CTA_TIMEOUT_ICMP_MAX;
	case IPPROTO_ICMPV6:
		return CTA_TIMEOUT_ICMPV6_MAX;
	case CT_TIMEOUT_GENERIC:
		return CTA_TIMEOUT_GENERIC_MAX;
	default:
		return 0;
	}
}

void
ct_timeout_table_init(struct ct_timeout_table *t)
{
	pthread_mutex_init(&t->lock, NULL);
	CDS_INIT_LIST_HEAD(&t->list);
}

void
ct_timeout_table_destroy(struct ct_timeout_table *t)
{
	ct_timeout_del(t, NULL);
	pthread_mutex_destroy(&t->lock);
}

/* Sets tp's values: the defaults, then those present (the kernel's
 * nlattr_to_obj). */
static void
store_values(struct ct_timeout *tp, const uint32_t *values, uint32_t present)
{
	const uint32_t *def = defaults(tp->l4num);
	int max = ct_timeout_max_attr(tp->l4num);
	uint32_t v[CT_TIMEOUT_N] = { 0 };

	for (int i = 1; i <= max; i++)
		v[i] = present & (1u << i) ? values[i] : def[i];
	if (tp->l4num == IPPROTO_TCP)
		v[CTA_TIMEOUT_TCP_UNSPEC] = v[CTA_TIMEOUT_TCP_SYN_SENT];
	for (int i = 0; i < CT_TIMEOUT_N; i++)
		__atomic_store_n(&tp->values[i], v[i], __ATOMIC_RELAXED);
}

static struct ct_timeout *
lookup(struct ct_timeout_table *t, const char *name)
{
	struct ct_timeout *tp;

	cds_list_for_each_entry(tp, &t->list, node)
		if (!strncmp(tp->name, name, CT_TIMEOUT_NAME_LEN))
			return tp;
	return NULL;
}

int
ct_timeout_set(struct ct_timeout_table *t, const char *name, uint16_t l3num,
	       uint8_t l4num, const uint32_t *values, uint32_t present,
	       bool excl, bool replace)
{
	struct ct_timeout *tp;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	tp = lookup(t, name);
	if (tp) {
		if (excl)
			err = -EEXIST;
		else if (!replace)
			err = -EBUSY;
		else if (tp->l3num != l3num || tp->l4num != l4num)
			err = -EINVAL;
		else
			store_values(tp, values, present);
	} else if (!ct_timeout_max_attr(l4num)) {
		err = -EOPNOTSUPP;
	} else if (!(tp = calloc(1, sizeof(*tp)))) {
		err = -ENOMEM;
	} else {
		strncpy(tp->name, name, CT_TIMEOUT_NAME_LEN - 1);
		tp->l3num = l3num;
		tp->l4num = l4num;
		tp->refcnt = 1;
		store_values(tp, values, present);
		cds_list_add_tail_rcu(&tp->node, &t->list);
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

static void
fill_info(const struct ct_timeout *tp, struct ct_timeout_info *info)
{
	memset(info, 0, sizeof(*info));
	memcpy(info->name, tp->name, sizeof(info->name));
	info->l3num = tp->l3num;
	info->l4num = tp->l4num;
	info->use = __atomic_load_n(&tp->refcnt, __ATOMIC_RELAXED);
	for (int i = 0; i < CT_TIMEOUT_N; i++)
		info->values[i] = __atomic_load_n(&tp->values[i],
						  __ATOMIC_RELAXED);
}

int
ct_timeout_get(struct ct_timeout_table *t, const char *name,
	       struct ct_timeout_info *info)
{
	struct ct_timeout *tp;

	pthread_mutex_lock(&t->lock);
	tp = lookup(t, name);
	if (tp)
		fill_info(tp, info);
	pthread_mutex_unlock(&t->lock);
	return tp ? 0 : -ENOENT;
}

static void
put_rcu(struct rcu_head *h)
{
	ct_timeout_put(caa_container_of(h, struct ct_timeout, rcu));
}

/* The list's reference goes after a grace period, so that whoever found
 * the policy under RCU can still hold it. */
static void
unlink_policy(struct ct_timeout *tp)
{
	cds_list_del_rcu(&tp->node);
	__atomic_store_n(&tp->dead, true, __ATOMIC_RELEASE);
	call_rcu(&tp->rcu, put_rcu);
}

int
ct_timeout_del(struct ct_timeout_table *t, const char *name)
{
	struct ct_timeout *tp, *next;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	if (!name) {
		cds_list_for_each_entry_safe(tp, next, &t->list, node)
			unlink_policy(tp);
	} else if ((tp = lookup(t, name))) {
		unlink_policy(tp);
	} else {
		err = -ENOENT;
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

int
ct_timeout_at(struct ct_timeout_table *t, size_t i,
	      struct ct_timeout_info *info)
{
	struct ct_timeout *tp;
	int err = -ENOENT;

	pthread_mutex_lock(&t->lock);
	cds_list_for_each_entry(tp, &t->list, node) {
		if (!i--) {
			fill_info(tp, info);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

struct ct_timeout *
ct_timeout_find(struct ct_timeout_table *t, const char *name, uint16_t l3num,
		uint8_t l4num)
{
	struct ct_timeout *tp;

	cds_list_for_each_entry_rcu(tp, &t->list, node)
		if (!strncmp(tp->name, name, CT_TIMEOUT_NAME_LEN))
			return tp->l3num == l3num && tp->l4num == l4num ? tp
									: NULL;
	return NULL;
}

void
ct_timeout_hold(struct ct_timeout *tp)
{
	__atomic_fetch_add(&tp->refcnt, 1, __ATOMIC_RELAXED);
}

void
ct_timeout_put(struct ct_timeout *tp)
{
	if (tp && __atomic_sub_fetch(&tp->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		free(tp);
}

uint32_t
ct_timeout_value(const struct ct_timeout *tp, uint8_t l4num, int attr)
{
	if (attr < 0 || attr >= CT_TIMEOUT_N)
		return 0;
	if (tp && !__atomic_load_n(&tp->dead, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&tp->values[attr], __ATOMIC_RELAXED);
	return defaults(l4num)[attr];
}
