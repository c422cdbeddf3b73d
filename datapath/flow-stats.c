/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "datapath/flow-stats.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "flow/table.h"

#define STATS_MAGIC	0x5354534c46504454ull	/* "TDPFLSTS" */
#define STATS_VERSION	1
#define PAGE		4096u
/* The file grows by this many slots at least. */
#define GROW		4096u

struct stats_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t slot_size;
	uint64_t n_slots;		/* the slots the file has */
};

enum slot_state {
	SLOT_FREE,			/* on the free stack */
	SLOT_USED,			/* a flow's */
	SLOT_HELD,			/* a predecessor's flow's, unclaimed */
	SLOT_LIMBO,			/* given back, waiting for a compaction */
};

struct flow_stats_file {
	pthread_mutex_t lock;
	int fd;
	void *base;
	size_t map_len;
	size_t max;			/* slots the mapping holds */
	struct stats_hdr *hdr;
	struct flow_stats *slots;
	uint8_t *state;			/* max of them */
	uint32_t *free;			/* a stack */
	size_t n_free, used;
	bool kept;
};

static size_t
file_size(size_t n_slots)
{
	return PAGE + n_slots * sizeof(struct flow_stats);
}

static void
file_free(struct flow_stats_file *f)
{
	if (f->base)
		munmap(f->base, f->map_len);
	if (f->fd >= 0)
		close(f->fd);
	free(f->state);
	free(f->free);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* Maps the whole extent f may reach, the file as big as it is now. */
static int
map(struct flow_stats_file *f)
{
	f->map_len = file_size(f->max);
	f->base = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_NORESERVE, f->fd, 0);
	if (f->base == MAP_FAILED) {
		f->base = NULL;
		return -errno;
	}
	f->hdr = f->base;
	f->slots = (struct flow_stats *)((char *)f->base + PAGE);
	return 0;
}

/* A predecessor's file: its header, and as many slots as it says. */
static int
adopt(struct flow_stats_file *f)
{
	struct stat st;
	int err;

	if (fstat(f->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < PAGE) {
		log_err("flow stats: %lld bytes, too short for the file",
			(long long)st.st_size);
		return -EINVAL;
	}
	err = map(f);
	if (err)
		return err;
	if (f->hdr->magic != STATS_MAGIC || f->hdr->version != STATS_VERSION ||
	    f->hdr->slot_size != sizeof(struct flow_stats) ||
	    f->hdr->n_slots > f->max ||
	    file_size(f->hdr->n_slots) > (uint64_t)st.st_size) {
		log_err("flow stats: not a flow stats file (or not this "
			"version's)");
		return -EINVAL;
	}
	memset(f->state, SLOT_HELD, f->hdr->n_slots);
	return 0;
}

struct flow_stats_file *
flow_stats_open(int fd, size_t max_slots, int *err)
{
	struct flow_stats_file *f = calloc(1, sizeof(*f));

	*err = -ENOMEM;
	if (!f)
		return NULL;
	pthread_mutex_init(&f->lock, NULL);
	f->fd = -1;
	f->max = max_slots;
	f->state = calloc(max_slots, 1);
	f->free = malloc(max_slots * sizeof(*f->free));
	if (!f->state || !f->free)
		goto fail;
	if (fd >= 0) {
		f->fd = fd;
		*err = adopt(f);
		if (*err) {
			f->fd = -1;
			goto fail;
		}
		return f;
	}
	f->fd = memfd_create("tapdp-flow-stats", MFD_CLOEXEC);
	if (f->fd < 0 || ftruncate(f->fd, PAGE)) {
		*err = -errno;
		goto fail;
	}
	*err = map(f);
	if (*err)
		goto fail;
	f->hdr->magic = STATS_MAGIC;
	f->hdr->version = STATS_VERSION;
	f->hdr->slot_size = sizeof(struct flow_stats);
	return f;
fail:
	file_free(f);
	return NULL;
}

void
flow_stats_close(struct flow_stats_file *f)
{
	if (f)
		file_free(f);
}

int
flow_stats_fd(const struct flow_stats_file *f)
{
	return f->fd;
}

void
flow_stats_set_kept(struct flow_stats_file *f, bool kept)
{
	pthread_mutex_lock(&f->lock);
	f->kept = kept;
	pthread_mutex_unlock(&f->lock);
	if (!kept)
		flow_stats_recycle(f);
}

/* Makes the file GROW slots longer; the new ones are free. */
static int
grow(struct flow_stats_file *f)
{
	uint64_t n = f->hdr->n_slots, add = f->max - n < GROW ? f->max - n
							       : GROW;

	if (!add)
		return -ENOSPC;
	if (ftruncate(f->fd, file_size(n + add)))
		return -errno;
	/* Highest first, so that the lowest go out first. */
	for (uint64_t i = n + add; i-- > n;)
		f->free[f->n_free++] = i;
	__atomic_store_n(&f->hdr->n_slots, n + add, __ATOMIC_RELEASE);
	return 0;
}

struct flow_stats *
flow_stats_alloc(struct flow_stats_file *f)
{
	struct flow_stats *s = NULL;
	uint32_t i;

	pthread_mutex_lock(&f->lock);
	if (f->n_free || !grow(f)) {
		i = f->free[--f->n_free];
		f->state[i] = SLOT_USED;
		f->used++;
		s = &f->slots[i];
		memset(s, 0, sizeof(*s));
	}
	pthread_mutex_unlock(&f->lock);
	return s;
}

struct flow_stats *
flow_stats_claim(struct flow_stats_file *f, uint32_t slot)
{
	struct flow_stats *s = NULL;

	pthread_mutex_lock(&f->lock);
	if (slot < f->hdr->n_slots && f->state[slot] == SLOT_HELD) {
		f->state[slot] = SLOT_USED;
		f->used++;
		s = &f->slots[slot];
	}
	pthread_mutex_unlock(&f->lock);
	return s;
}

/* Every slot in state from to the free stack. */
static void
free_all(struct flow_stats_file *f, enum slot_state from)
{
	pthread_mutex_lock(&f->lock);
	for (uint64_t i = f->hdr->n_slots; i-- > 0;)
		if (f->state[i] == from) {
			f->state[i] = SLOT_FREE;
			f->free[f->n_free++] = i;
		}
	pthread_mutex_unlock(&f->lock);
}

void
flow_stats_claims_done(struct flow_stats_file *f)
{
	free_all(f, SLOT_HELD);
}

void
flow_stats_free(struct flow_stats_file *f, struct flow_stats *s)
{
	uint32_t i = s - f->slots;

	pthread_mutex_lock(&f->lock);
	f->used--;
	if (f->kept) {
		f->state[i] = SLOT_LIMBO;
	} else {
		f->state[i] = SLOT_FREE;
		f->free[f->n_free++] = i;
	}
	pthread_mutex_unlock(&f->lock);
}

uint32_t
flow_stats_slot(const struct flow_stats_file *f, const struct flow_stats *s)
{
	return s - f->slots;
}

void
flow_stats_recycle(struct flow_stats_file *f)
{
	free_all(f, SLOT_LIMBO);
}

size_t
flow_stats_used(const struct flow_stats_file *f)
{
	return __atomic_load_n(&f->used, __ATOMIC_RELAXED);
}
