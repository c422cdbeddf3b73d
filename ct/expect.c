/* SPDX-License-Identifier: Apache-2.0 */
#include "ct/expect.h"

#include <errno.h>
#include <stdlib.h>

#define EXPECT_MAX	4096

struct expect_node {
	struct expect_node *next;
	struct ct_expect e;
};

static bool
any(struct expect_table *t)
{
	return __atomic_load_n(&t->n, __ATOMIC_RELAXED) != 0;
}

static void
unlink_node(struct expect_table *t, struct expect_node **pp, uint32_t portid)
{
	struct expect_node *n = *pp;

	if (t->event)
		t->event(&n->e, true, portid, t->event_arg);
	*pp = n->next;
	free(n);
	__atomic_fetch_sub(&t->n, 1, __ATOMIC_RELAXED);
	t->n_delete++;
}

void
expect_table_init(struct expect_table *t)
{
	pthread_mutex_init(&t->lock, NULL);
	t->list = NULL;
	t->n = 0;
	t->n_create = t->n_new = t->n_delete = 0;
	t->next_id = 0;
	t->event = NULL;
	t->event_arg = NULL;
}

void
expect_table_destroy(struct expect_table *t)
{
	while (t->list)
		unlink_node(t, &t->list, 0);
	pthread_mutex_destroy(&t->lock);
}

void
expect_forget(struct expect_table *t, uint32_t master_id, uint64_t now)
{
	struct expect_node **pp;

	if (!any(t))
		return;
	pthread_mutex_lock(&t->lock);
	for (pp = &t->list; *pp;) {
		if ((master_id && (*pp)->e.master_id == master_id) ||
		    (!master_id && (*pp)->e.expires < now))
			unlink_node(t, pp, 0);
		else
			pp = &(*pp)->next;
	}
	pthread_mutex_unlock(&t->lock);
}

int
expect_add(struct expect_table *t, const struct ct_expect *e, uint64_t now,
	   uint32_t portid)
{
	struct expect_node *n = malloc(sizeof(*n)), **pp;
	int err = 0;

	if (!n)
		return -ENOMEM;
	n->e = *e;
	n->e.t.sport = 0;
	pthread_mutex_lock(&t->lock);
	for (pp = &t->list; *pp;) {
		if ((*pp)->e.master_id == e->master_id ||
		    (*pp)->e.expires < now) {
			unlink_node(t, pp, 0);
			continue;
		}
		if (ct_tuple_equal(&(*pp)->e.t, &n->e.t)) {
			err = -EBUSY;
			break;
		}
		pp = &(*pp)->next;
	}
	if (!err && __atomic_load_n(&t->n, __ATOMIC_RELAXED) >= EXPECT_MAX)
		err = -EMFILE;
	if (!err) {
		n->next = t->list;
		n->e.id = ++t->next_id;
		t->list = n;
		__atomic_fetch_add(&t->n, 1, __ATOMIC_RELAXED);
		t->n_create++;
		if (t->event)
			t->event(&n->e, false, portid, t->event_arg);
	}
	pthread_mutex_unlock(&t->lock);
	if (err)
		free(n);
	return err;
}

bool
expect_find(struct expect_table *t, const struct ct_tuple *tp, uint64_t now,
	    bool consume, struct ct_expect *out)
{
	struct ct_tuple k = *tp;
	struct expect_node **pp;
	bool found = false;

	if (!any(t))
		return false;
	k.sport = 0;
	pthread_mutex_lock(&t->lock);
	for (pp = &t->list; *pp; pp = &(*pp)->next) {
		if ((*pp)->e.expires >= now && ct_tuple_equal(&(*pp)->e.t, &k)) {
			*out = (*pp)->e;
			found = true;
			if (consume) {
				unlink_node(t, pp, 0);
				t->n_new++;
			}
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

void
expect_get_counts(struct expect_table *t, uint64_t *create, uint64_t *new,
		  uint64_t *delete)
{
	pthread_mutex_lock(&t->lock);
	*create = t->n_create;
	*new = t->n_new;
	*delete = t->n_delete;
	pthread_mutex_unlock(&t->lock);
}

int
expect_visit(struct expect_table *t, uint64_t now,
	     int (*visit)(const struct ct_expect *, void *), void *arg)
{
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	for (struct expect_node *n = t->list; n && !ret; n = n->next)
		if (n->e.expires >= now)
			ret = visit(&n->e, arg);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int
expect_remove(struct expect_table *t,
	      bool (*match)(const struct ct_expect *, void *), void *arg,
	      uint32_t portid)
{
	struct expect_node **pp;
	int removed = 0;

	pthread_mutex_lock(&t->lock);
	for (pp = &t->list; *pp;) {
		if (match(&(*pp)->e, arg)) {
			unlink_node(t, pp, portid);
			removed++;
		} else {
			pp = &(*pp)->next;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return removed;
}

bool
expect_set_expires(struct expect_table *t, const struct ct_tuple *tp,
		   uint64_t now, uint64_t expires)
{
	struct ct_tuple k = *tp;
	bool found = false;

	k.sport = 0;
	pthread_mutex_lock(&t->lock);
	for (struct expect_node *n = t->list; n && !found; n = n->next) {
		if (n->e.expires >= now && ct_tuple_equal(&n->e.t, &k)) {
			n->e.expires = expires;
			found = true;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}
