/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tap/netdev.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <net/if_arp.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
/* After <net/if.h>, whose definitions <linux/if.h> then leaves alone. */
#include <linux/if_tunnel.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/ns-socket.h"
#include "include/tapdp/kinds.h"

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

static int
set_flag(const char *name, short flag, bool on)
{
	struct ifreq ifr;
	int err = ifreq_ioctl(name, SIOCGIFFLAGS, &ifr);

	if (err)
		return err;
	if (on)
		ifr.ifr_flags |= flag;
	else
		ifr.ifr_flags &= ~flag;
	return ifreq_ioctl(name, SIOCSIFFLAGS, &ifr);
}

int
netdev_set_promisc(const char *name, bool on)
{
	return set_flag(name, IFF_PROMISC, on);
}

int
netdev_set_up(const char *name, bool up)
{
	return set_flag(name, IFF_UP, up);
}

int
netdev_set_mtu(const char *name, uint32_t mtu)
{
	struct ifreq ifr = { .ifr_mtu = (int)mtu };

	return ifreq_ioctl(name, SIOCSIFMTU, &ifr);
}

/* One request of the daemon's own (a client's copied one is made so
 * here) on a short-lived rtnetlink socket of the namespace of nsfd (-1:
 * ours); the reply (a single message, or the error it brings) goes to
 * cb. */
static int
rtnl_ask_in(int nsfd, struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 2];
	struct mnl_socket *nl;
	int n, err, fd;

	fd = ns_socket(nsfd, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
		       NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	nl = mnl_socket_fdopen(fd);
	if (!nl) {
		err = -errno;
		close(fd);
		return err;
	}
	req->nlmsg_flags |= NLM_F_REQUEST;
	req->nlmsg_seq = 1;
	req->nlmsg_pid = 0;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0) {
		err = -errno;
		goto out;
	}
	/* mnl_cb_run turns an NLMSG_ERROR into -1 and errno. */
	err = mnl_cb_run(buf, n, 1, mnl_socket_get_portid(nl), cb, data) < 0
		      ? -errno : 0;
out:
	mnl_socket_close(nl);
	return err;
}

static int
rtnl_ask(struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	return rtnl_ask_in(-1, req, cb, data);
}

struct raw_reply {
	void *buf;
	size_t cap;
	int len;
};

static int
raw_cb(const struct nlmsghdr *nlh, void *data)
{
	struct raw_reply *r = data;

	if (nlh->nlmsg_len > r->cap) {
		errno = EMSGSIZE;
		return MNL_CB_ERROR;
	}
	memcpy(r->buf, nlh, nlh->nlmsg_len);
	r->len = nlh->nlmsg_len;
	return MNL_CB_STOP;
}

int
netdev_rtnl_query(int nsfd, const struct nlmsghdr *req, void *buf,
		  size_t cap)
{
	char copy[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = (void *)copy;
	struct raw_reply r = { buf, cap, -EPROTO };
	int err;

	if (req->nlmsg_len > sizeof(copy))
		return -EMSGSIZE;
	memcpy(copy, req, req->nlmsg_len);
	nlh->nlmsg_flags &= ~(NLM_F_ACK | NLM_F_ECHO);
	err = rtnl_ask_in(nsfd, nlh, raw_cb, &r);
	return err ? err : r.len;
}

int
netdev_rtnl_do(int nsfd, struct nlmsghdr *req)
{
	req->nlmsg_flags = (req->nlmsg_flags & ~NLM_F_ECHO) | NLM_F_ACK;
	return rtnl_ask_in(nsfd, req, NULL, NULL);
}

struct link_info {
	int ifindex;
	uint8_t mac[6];
	unsigned flags;
	unsigned short type;
	bool collect_md;	/* a tunnel device that wants metadata */
	uint32_t mtu;
	char name[IFNAMSIZ];
	struct rtnl_link_stats64 *stats;
};

/* The attribute of IFLA_INFO_DATA that puts a device of kind in
 * collect-metadata mode (bareudp has no other), or 0 for a kind that has
 * none. */
static int
collect_md_attr(const char *kind)
{
	static const struct { const char *kind; int attr; } kinds[] = {
		{ "vxlan", IFLA_VXLAN_COLLECT_METADATA },
		{ "geneve", IFLA_GENEVE_COLLECT_METADATA },
		{ "gre", IFLA_GRE_COLLECT_METADATA },
		{ "gretap", IFLA_GRE_COLLECT_METADATA },
		{ "ip6gre", IFLA_GRE_COLLECT_METADATA },
		{ "ip6gretap", IFLA_GRE_COLLECT_METADATA },
		{ "erspan", IFLA_GRE_COLLECT_METADATA },
		{ "ip6erspan", IFLA_GRE_COLLECT_METADATA },
		{ "bareudp", -1 },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].attr;
	return 0;
}

/* IFLA_LINKINFO: whether the device is a tunnel that takes and gives
 * tunnel metadata only (vxlan's attribute a u8, the others' flags). */
static bool
link_collect_md(const struct nlattr *info)
{
	const struct nlattr *a, *kind = NULL, *data = NULL;
	int want;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND)
			kind = a;
		else if (mnl_attr_get_type(a) == IFLA_INFO_DATA)
			data = a;
	}
	if (!kind || mnl_attr_validate(kind, MNL_TYPE_NUL_STRING) < 0)
		return false;
	want = collect_md_attr(mnl_attr_get_str(kind));
	if (want <= 0 || !data)
		return want < 0;
	mnl_attr_for_each_nested(a, data)
		if (mnl_attr_get_type(a) == want)
			return want != IFLA_VXLAN_COLLECT_METADATA ||
			       (mnl_attr_get_payload_len(a) >= 1 &&
				mnl_attr_get_u8(a));
	return false;
}

static int
link_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(a) == IFLA_LINKINFO)
		li->collect_md = link_collect_md(a);
	else if (mnl_attr_get_type(a) == IFLA_ADDRESS &&
		 mnl_attr_get_payload_len(a) == sizeof(li->mac))
		memcpy(li->mac, mnl_attr_get_payload(a), sizeof(li->mac));
	else if (mnl_attr_get_type(a) == IFLA_STATS64 && li->stats &&
	    mnl_attr_get_payload_len(a) >= sizeof(*li->stats))
		memcpy(li->stats, mnl_attr_get_payload(a), sizeof(*li->stats));
	else if (mnl_attr_get_type(a) == IFLA_MTU &&
		 mnl_attr_get_payload_len(a) >= sizeof(uint32_t))
		li->mtu = mnl_attr_get_u32(a);
	else if (mnl_attr_get_type(a) == IFLA_IFNAME &&
		 mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 &&
		 mnl_attr_get_payload_len(a) <= sizeof(li->name))
		memcpy(li->name, mnl_attr_get_payload(a),
		       mnl_attr_get_payload_len(a));
	return MNL_CB_OK;
}

static int
link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_info *li = data;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi))) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	li->ifindex = ifi->ifi_index;
	li->flags = ifi->ifi_flags;
	li->type = ifi->ifi_type;
	return mnl_attr_parse(nlh, sizeof(*ifi), link_attr, li);
}

/* RTM_GETLINK by index or name, in the namespace netnsid names (< 0: our
 * own). */
static int
get_link(int netnsid, int ifindex, const char *name, struct link_info *li)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (netnsid >= 0)
		mnl_attr_put_u32(nlh, IFLA_TARGET_NETNSID, netnsid);
	return rtnl_ask(nlh, link_cb, li);
}

int
netdev_announce(int nsfd, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], got[16 << 10], alias[256] = "";
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	const struct nlmsghdr *k = (const void *)got;
	const struct nlattr *a;
	struct ifinfomsg *ifi;
	int n;

	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	n = netdev_rtnl_query(nsfd, nlh, got, sizeof(got));
	if (n < 0)
		return n;
	if (k->nlmsg_type != RTM_NEWLINK || k->nlmsg_len > (size_t)n ||
	    k->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EPROTO;
	mnl_attr_for_each(a, k, sizeof(*ifi))
		if (mnl_attr_get_type(a) == IFLA_IFALIAS &&
		    mnl_attr_get_payload_len(a) < sizeof(alias))
			memcpy(alias, mnl_attr_get_payload(a),
			       mnl_attr_get_payload_len(a));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_SETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	mnl_attr_put(nlh, IFLA_IFALIAS, strnlen(alias, sizeof(alias) - 1),
		     alias);
	return netdev_rtnl_do(nsfd, nlh);
}

uint32_t
netdev_link_mtu(const struct nlmsghdr *nlh)
{
	struct link_info li = { 0 };

	mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr, &li);
	return li.mtu;
}

int
netdev_index_name(int netnsid, int ifindex, char *name)
{
	struct link_info li = { 0 };
	int err = get_link(netnsid, ifindex, NULL, &li);

	if (err)
		return err;
	memcpy(name, li.name, IFNAMSIZ);
	return li.name[0] ? 0 : -EPROTO;
}

bool
netdev_link_name(const struct nlmsghdr *nlh, char *name)
{
	struct link_info li = { 0 };

	mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr, &li);
	memcpy(name, li.name, IFNAMSIZ);
	return li.name[0];
}

int
netdev_get_stats(int netnsid, int ifindex, struct rtnl_link_stats64 *stats)
{
	struct link_info li = { .stats = stats };

	memset(stats, 0, sizeof(*stats));
	return get_link(netnsid, ifindex, NULL, &li);
}

int
netdev_lookup(int netnsid, const char *name, int *ifindex, uint32_t *mtu)
{
	struct link_info li = { 0 };
	int err = get_link(netnsid, 0, name, &li);

	if (!err) {
		*ifindex = li.ifindex;
		*mtu = li.mtu;
	}
	return err;
}

int
netdev_check_attachable(int netnsid, const char *name, int *ifindex,
			uint32_t *mtu)
{
	struct link_info li = { 0 };
	int err = get_link(netnsid, 0, name, &li);

	if (err)
		return err;
	if ((li.flags & IFF_LOOPBACK) ||
	    (li.type != ARPHRD_ETHER && li.type != ARPHRD_NONE))
		return -EINVAL;
	/* Its packets carry tunnel metadata, which a packet socket neither
	 * gives nor takes: a tunnel port the daemon does not serve there. */
	if (li.collect_md)
		return -EAFNOSUPPORT;
	*ifindex = li.ifindex;
	*mtu = li.mtu;
	return 0;
}

int
netdev_lookup_index(int netnsid, int ifindex, uint8_t mac[6], uint32_t *mtu)
{
	struct link_info li = { 0 };
	int err;

	if (ifindex <= 0)
		return -ENODEV;
	err = get_link(netnsid, ifindex, NULL, &li);
	if (!err) {
		memcpy(mac, li.mac, sizeof(li.mac));
		*mtu = li.mtu;
	}
	return err;
}

bool
netdev_kind_known(const char *kind)
{
	struct tapdp_kind_probe req;

	return !tapdp_kind_probe(&req, kind) ||
	       rtnl_ask(&req.nlh, NULL, NULL) != -EOPNOTSUPP;
}

int
netdev_set_mac(const char *name, const uint8_t mac[6])
{
	struct ifreq ifr;

	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
	return ifreq_ioctl(name, SIOCSIFHWADDR, &ifr);
}

static int
nsid_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == NETNSA_NSID &&
	    mnl_attr_get_payload_len(a) >= sizeof(int32_t))
		*(int32_t *)data = (int32_t)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int
nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct rtgenmsg), nsid_attr, data);
}

/* RTM_GETNSID (or, with nsid NETNSA_NSID_NOT_ASSIGNED, RTM_NEWNSID: pick
 * one) for the namespace fd. */
static int
nsid_request(uint16_t type, int nsfd, int32_t *nsid)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = type;
	if (type == RTM_NEWNSID)
		nlh->nlmsg_flags = NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NETNSA_FD, nsfd);
	if (type == RTM_NEWNSID)
		mnl_attr_put_u32(nlh, NETNSA_NSID, (uint32_t)*nsid);
	return rtnl_ask(nlh, type == RTM_GETNSID ? nsid_cb : NULL, nsid);
}

static bool
is_own_netns(int nsfd)
{
	struct stat own, st;

	return stat("/proc/self/ns/net", &own) == 0 && fstat(nsfd, &st) == 0 &&
	       st.st_ino == own.st_ino && st.st_dev == own.st_dev;
}

int
netdev_netnsid(int nsfd, int *netnsid)
{
	int32_t nsid = NETNSA_NSID_NOT_ASSIGNED;
	int err;

	*netnsid = NETNSA_NSID_NOT_ASSIGNED;
	if (is_own_netns(nsfd))
		return 0;
	err = nsid_request(RTM_GETNSID, nsfd, &nsid);
	if (!err && nsid < 0) {
		/* None yet: the kernel's peernet2id_alloc() assigns one. */
		err = nsid_request(RTM_NEWNSID, nsfd, &nsid);
		if (!err || err == -EEXIST)
			err = nsid_request(RTM_GETNSID, nsfd, &nsid);
	}
	if (err)
		return err;
	if (nsid < 0)
		return -ENOENT;
	*netnsid = nsid;
	return 0;
}

int
netdev_netnsid_from(int target, int peer, int *netnsid)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int32_t nsid = NETNSA_NSID_NOT_ASSIGNED;
	struct rtgenmsg *g;
	int err;

	*netnsid = NETNSA_NSID_NOT_ASSIGNED;
	if (target < 0)
		return -EINVAL;
	nlh->nlmsg_type = RTM_GETNSID;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	/* Our own namespace has no id in ours: named by our pid. */
	if (peer < 0)
		mnl_attr_put_u32(nlh, NETNSA_PID, getpid());
	else
		mnl_attr_put_u32(nlh, NETNSA_NSID, (uint32_t)peer);
	mnl_attr_put_u32(nlh, NETNSA_TARGET_NSID, (uint32_t)target);
	err = rtnl_ask(nlh, nsid_cb, &nsid);
	if (!err)
		*netnsid = nsid;
	return err;
}

int
netdev_move(int ifindex, int nsfd, const char *name, bool up)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	if (ifindex <= 0)
		return -ENODEV;
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = ifi->ifi_flags;
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, nsfd);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return rtnl_ask(nlh, NULL, NULL);
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

void
netdev_local_port_range(uint16_t *min, uint16_t *max)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	unsigned lo = 32768, hi = 60999;	/* the kernel's default */

	if (f) {
		if (fscanf(f, "%u %u", &lo, &hi) != 2 || lo > hi || hi > 65534)
			lo = 32768, hi = 60999;
		fclose(f);
	}
	*min = lo;
	*max = hi + 1;
}
