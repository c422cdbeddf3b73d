#define _GNU_SOURCE
#include "netdev.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <net/if_arp.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int
netdev_ifindex(const char *name)
{
	return if_nametoindex(name);
}

static int
ifreq_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return -errno;
	memset(ifr->ifr_name, 0, sizeof(ifr->ifr_name));
	strncpy(ifr->ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, req, ifr) < 0)
		err = -errno;
	close(fd);
	return err;
}

int
netdev_check_attachable(const char *name)
{
	struct ifreq ifr;
	int err;

	if (!netdev_ifindex(name))
		return -ENODEV;
	err = ifreq_ioctl(name, SIOCGIFFLAGS, &ifr);
	if (err)
		return err == -ENXIO ? -ENODEV : err;
	if (ifr.ifr_flags & IFF_LOOPBACK)
		return -EINVAL;
	err = ifreq_ioctl(name, SIOCGIFHWADDR, &ifr);
	if (err)
		return err;
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER &&
	    ifr.ifr_hwaddr.sa_family != ARPHRD_NONE)
		return -EINVAL;
	return 0;
}

int
netdev_set_promisc(const char *name, bool on)
{
	struct ifreq ifr;
	int err = ifreq_ioctl(name, SIOCGIFFLAGS, &ifr);

	if (err)
		return err;
	if (on)
		ifr.ifr_flags |= IFF_PROMISC;
	else
		ifr.ifr_flags &= ~IFF_PROMISC;
	return ifreq_ioctl(name, SIOCSIFFLAGS, &ifr);
}

static int
stats_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_STATS64 &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct rtnl_link_stats64))
		memcpy(data, mnl_attr_get_payload(a),
		       sizeof(struct rtnl_link_stats64));
	return MNL_CB_OK;
}

int
netdev_get_stats(int ifindex, struct rtnl_link_stats64 *stats)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 2];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	int n, err = -ENODEV;

	memset(stats, 0, sizeof(*stats));
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0) {
		err = -errno;
		goto out;
	}
	nlh = (struct nlmsghdr *)buf;
	if (mnl_nlmsg_ok(nlh, n) && nlh->nlmsg_type == RTM_NEWLINK) {
		mnl_attr_parse(nlh, sizeof(*ifi), stats_cb, stats);
		err = 0;
	}
out:
	mnl_socket_close(nl);
	return err;
}

int
netdev_get_mtu(const char *name)
{
	struct ifreq ifr;
	int err = ifreq_ioctl(name, SIOCGIFMTU, &ifr);

	return err ? err : ifr.ifr_mtu;
}

/* The kernel's isspace(): C's six, and the Latin-1 no-break space. */
static bool
kernel_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

bool
netdev_valid_name(const char *name)
{
	if (!*name || strnlen(name, IFNAMSIZ) == IFNAMSIZ ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || kernel_isspace(*name))
			return false;
	return true;
}
