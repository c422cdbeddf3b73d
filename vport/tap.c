/* SPDX-License-Identifier: Apache-2.0 */
#include "vport/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int
tap_open(char *name, bool l3, bool multi_queue, bool excl)
{
	struct ifreq ifr = { 0 };
	int fd, err;

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
	return fd;
}
