/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/keep.h"
#include "tap/netdev.h"

/* Which keeper entry holds a copy of each queue's fd. */
struct kept_queue {
	int fd;
	uint64_t id;
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_queue *kept;
static size_t n_kept;

static void
kept_add(int fd, uint64_t id)
{
	struct kept_queue *grown;

	if (!id)
		return;
	pthread_mutex_lock(&kept_lock);
	grown = realloc(kept, (n_kept + 1) * sizeof(*kept));
	if (grown) {
		kept = grown;
		kept[n_kept++] = (struct kept_queue) { fd, id };
	}
	pthread_mutex_unlock(&kept_lock);
	if (!grown)
		keep_drop(id);
}

static bool
same_tap(const struct keep_entry *e, void *arg)
{
	const struct keep_tap *want = arg;
	struct keep_tap have;

	if (e->meta_len != sizeof(have) || e->n_fds != 1)
		return false;
	memcpy(&have, e->meta, sizeof(have));
	return !strncmp(have.name, want->name, sizeof(have.name)) &&
	       have.l3 == want->l3;
}

/* A queue a dead daemon left with the keeper, for which match says yes:
 * its fd, ours now (the keeper keeps its copy), or -ENOENT. */
static int
claim(bool (*match)(const struct keep_entry *, void *), void *arg)
{
	struct keep_entry *e = keep_claim(KEEP_TAP, match, arg);

	if (!e)
		return -ENOENT;
	kept_add(e->fds[0], e->id);
	return e->fds[0];
}

int
tap_open(char *name, bool l3, bool multi_queue, bool excl)
{
	struct keep_tap kt = { .l3 = l3 };
	struct ifreq ifr = { 0 };
	int fd, err;

	snprintf(kt.name, sizeof(kt.name), "%s", name);
	/* The device stayed, wherever it is now. */
	fd = claim(same_tap, &kt);
	if (fd >= 0)
		return fd;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ifr.ifr_flags = (l3 ? IFF_TUN : IFF_TAP) | IFF_NO_PI | IFF_VNET_HDR;
	if (multi_queue)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	if (excl)
		ifr.ifr_flags |= IFF_TUN_EXCL;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = errno == EBUSY ? -EEXIST : -errno;
		close(fd);
		return err;
	}
	snprintf(name, IFNAMSIZ, "%s", ifr.ifr_name);
	snprintf(kt.name, sizeof(kt.name), "%s", name);
	kept_add(fd, keep_put(KEEP_TAP, &fd, 1, &kt, sizeof(kt)));
	return fd;
}

/* The keeper entry holding fd's copy, 0 when none. */
static uint64_t
kept_id(int fd, bool forget)
{
	uint64_t id = 0;

	pthread_mutex_lock(&kept_lock);
	for (size_t i = 0; i < n_kept; i++) {
		if (kept[i].fd == fd) {
			id = kept[i].id;
			if (forget)
				kept[i] = kept[--n_kept];
			break;
		}
	}
	pthread_mutex_unlock(&kept_lock);
	return id;
}

void
tap_moved(int fd, const char *name, int netnsid)
{
	struct keep_tap_moved kt = { .netnsid = netnsid };
	uint64_t id = kept_id(fd, false);

	snprintf(kt.name, sizeof(kt.name), "%s", name);
	if (id)
		keep_meta(id, &kt, sizeof(kt));
}

int
tap_move(int fd, const char *made, int nsfd, int netnsid, char *name,
	 bool up)
{
	struct ifreq ifr = { 0 };
	int ifindex = netdev_ifindex(made), err;

	/* Index 0 would have the kernel find a device by the new name,
	 * here: never. */
	if (ifindex <= 0)
		return -ENODEV;
	err = netdev_move(ifindex, nsfd, name, up);
	if (err)
		return err;
	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	snprintf(name, IFNAMSIZ, "%s", ifr.ifr_name);
	tap_moved(fd, name, netnsid);
	return 0;
}

/* A kept queue of a moved device, still attached to it, of a port of
 * namespace netnsid's datapath: its meta. */
static bool
moved_of(const struct keep_entry *e, int netnsid, struct keep_tap_moved *kt)
{
	struct ifreq ifr = { 0 };

	if (e->meta_len != sizeof(*kt) || e->n_fds != 1)
		return false;
	memcpy(kt, e->meta, sizeof(*kt));
	return kt->netnsid == netnsid && ioctl(e->fds[0], TUNGETIFF, &ifr) == 0;
}

struct port_of {
	int netnsid;
	const char *name;
};

static bool
is_port(const struct keep_entry *e, void *arg)
{
	const struct port_of *p = arg;
	struct keep_tap_moved kt;

	return moved_of(e, p->netnsid, &kt) &&
	       !strncmp(kt.name, p->name, sizeof(kt.name));
}

int
tap_claim_moved(int netnsid, const char *name)
{
	struct port_of p = { netnsid, name };

	return claim(is_port, &p);
}

struct home {
	int netnsid;
	int nsfd;			/* found */
};

static bool
is_home(const struct keep_entry *e, void *arg)
{
	struct home *h = arg;
	struct keep_tap_moved kt;
	int nsfd, id;

	if (!moved_of(e, h->netnsid, &kt))
		return false;
	nsfd = ioctl(e->fds[0], TUNGETDEVNETNS);
	if (nsfd < 0)
		return false;
	if (!netdev_netnsid(nsfd, &id) && id == h->netnsid) {
		h->nsfd = nsfd;
		return true;
	}
	close(nsfd);
	return false;
}

int
tap_kept_netns(int netnsid)
{
	struct home h = { netnsid, -1 };

	return keep_find(KEEP_TAP, is_home, &h) ? h.nsfd : -ENOENT;
}

void
tap_close(int fd)
{
	keep_drop(kept_id(fd, true));
	close(fd);
}
