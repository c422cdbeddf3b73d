/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/netns-holders.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /proc/PID, and a file under it. */
#define DIR_LEN		128
#define FILE_LEN	(DIR_LEN + 16 + 256)

/* The mount namespaces whose mounts were read, by inode. */
struct seen {
	ino_t *ino;
	size_t n, cap;
};

static bool
seen_add(struct seen *s, ino_t ino)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		ino_t *p = realloc(s->ino, cap * sizeof(*p));

		if (!p)
			return true;	/* read it again: harmless */
		s->ino = p;
		s->cap = cap;
	}
	s->ino[s->n++] = ino;
	return true;
}

/* A process gone meanwhile, or one ptrace's rules hide from us (another
 * uid's without CAP_SYS_PTRACE; a VM's init here even from root): taken
 * not to hold the namespace, else one such process would keep every
 * namespace forever. */
static bool
gone_or_hidden(int err)
{
	return err == ENOENT || err == ESRCH || err == EACCES || err == EPERM;
}

static bool
same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* 1: path (a link /proc resolves) is the namespace; 0: not, or gone, or
 * a process /proc does not show us (below); -1: /proc failed otherwise. */
static int
is_ns(const char *path, const struct stat *ns)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return same(&st, ns);
	return gone_or_hidden(errno) ? 0 : -1;
}

/* Whether a descriptor of process dir (/proc/PID) is the namespace. */
static int
fds_hold(const char *dir, const struct stat *ns)
{
	char path[FILE_LEN];
	struct dirent *d;
	int held = 0;
	DIR *fds;

	snprintf(path, sizeof(path), "%s/fd", dir);
	fds = opendir(path);
	if (!fds)
		return gone_or_hidden(errno) ? 0 : -1;
	while (held != 1 && (d = readdir(fds))) {
		int r;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/fd/%s", dir, d->d_name);
		r = is_ns(path, ns);
		if (r)
			held = r;
	}
	closedir(fds);
	return held;
}

/* Whether the mount table process dir sees has an nsfs mount of the
 * namespace ("net:[INODE]" as its root). */
static int
mounts_hold(const char *dir, const struct stat *ns)
{
	char path[FILE_LEN], want[64], *line = NULL;
	size_t cap = 0;
	int held = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/mountinfo", dir);
	f = fopen(path, "re");
	if (!f)
		return gone_or_hidden(errno) ? 0 : -1;
	snprintf(want, sizeof(want), " net:[%llu] ",
		 (unsigned long long)ns->st_ino);
	while (!held && getline(&line, &cap, f) > 0)
		held = strstr(line, want) && strstr(line, " - nsfs ");
	free(line);
	fclose(f);
	return held;
}

int
netns_holders_find(const char *proc, const struct stat *ns,
		   const pid_t *ours, size_t n)
{
	struct seen mnts = { 0 };
	struct dirent *d;
	int held = 0;
	DIR *dir;

	if (strlen(proc) > DIR_LEN / 2 || !(dir = opendir(proc)))
		return -1;
	while (held != 1 && (d = readdir(dir))) {
		char path[DIR_LEN], link[FILE_LEN];
		struct stat mnt;
		bool mine = false;
		char *end;
		long pid;
		int r;

		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		for (size_t i = 0; i < n; i++)
			mine |= ours[i] == pid;
		snprintf(path, sizeof(path), "%s/%ld", proc, pid);
		snprintf(link, sizeof(link), "%s/ns/net", path);
		/* Our own descriptors and threads do not count; a mount in
		 * our mount namespace does (ip netns add's). */
		r = mine ? 0 : is_ns(link, ns);
		if (r == 0 && !mine)
			r = fds_hold(path, ns);
		snprintf(link, sizeof(link), "%s/ns/mnt", path);
		if (r == 0 && stat(link, &mnt) == 0 &&
		    seen_add(&mnts, mnt.st_ino))
			r = mounts_hold(path, ns);
		if (r)
			held = r;
	}
	closedir(dir);
	free(mnts.ino);
	return held;
}
