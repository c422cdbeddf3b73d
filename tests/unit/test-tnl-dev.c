/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's tunnel devices (tap/tnl-dev.h): the kinds' IFLA_INFO_DATA
 * read as the drivers read it, given back as they give it, and the
 * kernel's answers to a second device where one is allowed. Devices are
 * real TAPs, made in a network namespace of the test's own. */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/net_namespace.h>
#include <net/if.h>		/* before the uapi headers */
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "genl-server/msg.h"
#include "include/tapdp/kinds.h"
#include "tap/netdev.h"
#include "tap/tap.h"
#include "tap/tnl-dev.h"

/* Real devices, away from the host's; without a namespace of our own
 * (no CAP_SYS_ADMIN), the tests that make devices skip. */
static bool netns_ok;

/* An IFLA_INFO_DATA nest to fill. */
struct data {
	char mem[512];
	struct msgbuf mb;
	struct nlattr *nest;
};

static void
data_start(struct data *d)
{
	msgbuf_init(&d->mb, d->mem, sizeof(d->mem));
	msgbuf_start(&d->mb, 16, 0, 0, 0, 0);
	d->nest = msgbuf_nest_start(&d->mb, IFLA_INFO_DATA);
}

static const struct nlattr *
data_end(struct data *d)
{
	msgbuf_nest_end(&d->mb, d->nest);
	assert_int_equal(msgbuf_end(&d->mb), 0);
	return d->nest;
}

static int
parse(const char *kind, const struct nlattr *data, struct tnl_dev *dev,
      bool *collect_md)
{
	struct extack ack = { 0 };

	memset(dev, 0, sizeof(*dev));
	return tnl_kind_parse(tnl_kind_find(kind), data, dev, collect_md,
			      &ack);
}

static void
test_kinds(void **state)
{
	static const char *const served[] = { "vxlan", "geneve", "gre",
					      "gretap", "ip6gretap", "erspan",
					      "ip6erspan", "bareudp" };

	size_t n = sizeof(tapdp_device_kinds) / sizeof(tapdp_device_kinds[0]);

	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
		assert_non_null(tnl_kind_find(served[i]));
		assert_string_equal(tnl_kind_name(tnl_kind_find(served[i])),
				    served[i]);
		assert_true(tapdp_kind_served(served[i]));
	}
	/* The shim's list (include/tapdp/kinds.h): these and vlan. */
	assert_int_equal(n, sizeof(served) / sizeof(served[0]) + 1);
	assert_true(tapdp_kind_served("vlan"));
	assert_false(tapdp_kind_served("ovs_geneve"));
	/* OVS's probe kind and the rest stay the kernel's. */
	assert_null(tnl_kind_find("ovs_geneve"));
	assert_null(tnl_kind_find("ip6gre"));
	assert_null(tnl_kind_find(""));
}

static void
test_parse_vxlan(void **state)
{
	struct tnl_dev dev;
	struct data d;
	bool md;

	/* The kernel's defaults: port 8472, learning on, no metadata. */
	assert_int_equal(parse("vxlan", NULL, &dev, &md), 0);
	assert_false(md);
	assert_int_equal(dev.cfg.dst_port, 8472);
	assert_true(dev.learning);
	/* What OVS sends. */
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_UDP_ZERO_CSUM6_RX, 1);
	msgbuf_put(&d.mb, IFLA_VXLAN_GBP, 0, NULL);
	msgbuf_put_u16(&d.mb, IFLA_VXLAN_PORT, htons(4789));
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_int_equal(dev.cfg.dst_port, 4789);
	assert_false(dev.learning);
	assert_true(dev.cfg.gbp);
	assert_true(dev.cfg.csum6_zero_rx);
	assert_int_equal(dev.cfg.family, 0);
	assert_false(dev.cfg.gpe);
	assert_false(dev.cfg.l3);
	/* COLLECT_METADATA 0 is no metadata. */
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 0);
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), 0);
	assert_false(md);
	/* A port of 0 is the default. */
	data_start(&d);
	msgbuf_put_u16(&d.mb, IFLA_VXLAN_PORT, 0);
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.cfg.dst_port, 8472);
}

/* A device of one remote: geneve_nl2info()'s checks and the key its
 * frames leave by; a device without a remote (or with metadata) has
 * none. */
static void
test_parse_geneve_remote(void **state)
{
	struct in6_addr r6 = { .s6_addr = { 0xfd, 9, [15] = 2 } };
	uint32_t r4 = htonl(0xac1f0902);
	struct tnl_dev dev;
	struct data d;
	bool md;

	data_start(&d);
	msgbuf_put_u32(&d.mb, IFLA_GENEVE_ID, 5);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE, 4, &r4);
	msgbuf_put_u8(&d.mb, IFLA_GENEVE_TOS, 0x10);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_false(md);
	assert_int_equal(dev.remote.family, AF_INET);
	assert_int_equal(dev.remote.ipv4_dst, r4);
	assert_int_equal(be64toh(dev.remote.id), 5);
	assert_true(dev.remote.flags & TUN_F_KEY);
	/* No UDP checksum over IPv4 unless asked; TTL 0 is 64 here. */
	assert_false(dev.remote.flags & TUN_F_CSUM);
	assert_int_equal(dev.remote.ttl, 64);
	assert_int_equal(dev.remote.tos, 0x10);
	assert_true(dev.rx_keyed);
	assert_int_equal(dev.rx_id, dev.remote.id);
	/* IPv6: a checksum unless refused. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE6, 16, &r6);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.remote.family, AF_INET6);
	assert_memory_equal(&dev.remote.ipv6_dst, &r6, 16);
	assert_true(dev.remote.flags & TUN_F_CSUM);
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE6, 16, &r6);
	msgbuf_put_u8(&d.mb, IFLA_GENEVE_UDP_ZERO_CSUM6_TX, 1);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_false(dev.remote.flags & TUN_F_CSUM);
	/* The driver's answers: a VNI of 2^24, both families, a short
	 * address. */
	data_start(&d);
	msgbuf_put_u32(&d.mb, IFLA_GENEVE_ID, 1u << 24);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), -ERANGE);
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE, 4, &r4);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE6, 16, &r6);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), -EINVAL);
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE6, 4, &r4);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), -ERANGE);
	/* Metadata, or no remote: no tunnel of its own. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE, 4, &r4);
	msgbuf_put(&d.mb, IFLA_GENEVE_COLLECT_METADATA, 0, NULL);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_int_equal(dev.remote.family, 0);
	assert_int_equal(parse("geneve", NULL, &dev, &md), 0);
	assert_int_equal(dev.remote.family, 0);
}

/* GRE and ERSPAN devices of one remote, as iproute2 asks for them: keys
 * and flags in the header's bits, ERSPAN's metadata; DF on IPv4 unless
 * path MTU discovery is off. */
static void
test_parse_gre_remote(void **state)
{
	struct in6_addr l6 = { .s6_addr = { 0xfd, 9, [15] = 1 } };
	struct in6_addr r6 = { .s6_addr = { 0xfd, 9, [15] = 2 } };
	uint32_t r4 = htonl(0xac1f0902);
	struct tun_erspan_opts o;
	struct tnl_dev dev;
	struct data d;
	bool md;

	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 4, &r4);
	msgbuf_put_u16(&d.mb, IFLA_GRE_IFLAGS, htons(0x2000));
	msgbuf_put_u16(&d.mb, IFLA_GRE_OFLAGS, htons(0xa000));
	msgbuf_put_u32(&d.mb, IFLA_GRE_IKEY, htonl(7));
	msgbuf_put_u32(&d.mb, IFLA_GRE_OKEY, htonl(8));
	assert_int_equal(parse("gretap", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.remote.family, AF_INET);
	assert_int_equal(dev.remote.ipv4_dst, r4);
	assert_int_equal(be64toh(dev.remote.id), 8);
	assert_int_equal(dev.remote.flags, TUN_F_KEY | TUN_F_CSUM | TUN_F_DF);
	assert_true(dev.rx_keyed);
	assert_int_equal(be64toh(dev.rx_id), 7);
	/* No key: it takes only packets without one. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 4, &r4);
	msgbuf_put_u8(&d.mb, IFLA_GRE_PMTUDISC, 0);
	assert_int_equal(parse("gre", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.remote.flags, 0);
	assert_false(dev.rx_keyed);
	assert_true(dev.cfg.l3);
	/* ERSPAN v2 over IPv6: always a key and sequence numbers, its
	 * direction and hardware id in the metadata, its local address. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 16, &r6);
	msgbuf_put(&d.mb, IFLA_GRE_LOCAL, 16, &l6);
	msgbuf_put_u32(&d.mb, IFLA_GRE_OKEY, htonl(3));
	msgbuf_put_u32(&d.mb, IFLA_GRE_IKEY, htonl(3));
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_VER, 2);
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_DIR, 1);
	msgbuf_put_u16(&d.mb, IFLA_GRE_ERSPAN_HWID, 5);
	assert_int_equal(parse("ip6erspan", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.remote.family, AF_INET6);
	assert_memory_equal(&dev.remote.ipv6_src, &l6, 16);
	assert_int_equal(dev.remote.flags, TUN_F_KEY | TUN_F_SEQ |
			 TUN_F_ERSPAN_OPT);
	assert_int_equal(dev.remote.opts_len, sizeof(o));
	memcpy(&o, tun_key_opts(&dev.remote), sizeof(o));
	assert_int_equal(o.version, 2);
	assert_int_equal(ntohs(o.u.md2.flags),
			 ERSPAN_MD2_DIR | 5 << ERSPAN_MD2_HWID_SHIFT);
	/* v1: its index. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 4, &r4);
	msgbuf_put_u32(&d.mb, IFLA_GRE_ERSPAN_INDEX, 7);
	assert_int_equal(parse("erspan", data_end(&d), &dev, &md), 0);
	memcpy(&o, tun_key_opts(&dev.remote), sizeof(o));
	assert_int_equal(o.version, 1);
	assert_int_equal(ntohl(o.u.index), 7);
	/* An IPv4 address to ip6erspan is too short. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 4, &r4);
	assert_int_equal(parse("ip6erspan", data_end(&d), &dev, &md), -ERANGE);
}

/* The IFLA_INFO_DATA in dev's link info, as GETLINK gives it. */
static const struct nlattr *
filled_data(const struct tnl_dev *dev, char *mem, size_t size)
{
	const struct nlattr *a, *data = NULL;
	struct nlattr *info;
	struct msgbuf mb;
	int rem;

	msgbuf_init(&mb, mem, size);
	msgbuf_start(&mb, 16, 0, 0, 0, 0);
	info = msgbuf_nest_start(&mb, IFLA_LINKINFO);
	tnl_dev_fill_info(dev, &mb);
	msgbuf_nest_end(&mb, info);
	assert_int_equal(msgbuf_end(&mb), 0);
	attr_for_each(a, attr_data(info), attr_len(info), rem)
		if (attr_type(a) == IFLA_INFO_DATA)
			data = a;
	assert_non_null(data);
	return data;
}

/* A device of one remote reads back from GETLINK as it was made: the
 * same tunnel, the same receive key, no metadata. */
static void
test_remote_round_trip(void **state)
{
	uint32_t r4 = htonl(0xac1f0902);
	struct in6_addr r6 = { .s6_addr = { 0xfd, 9, [15] = 2 } };
	struct tnl_dev dev, back;
	char mem[1024];
	struct data d;
	bool md;

	data_start(&d);
	msgbuf_put_u32(&d.mb, IFLA_GENEVE_ID, 77);
	msgbuf_put(&d.mb, IFLA_GENEVE_REMOTE6, 16, &r6);
	msgbuf_put_u8(&d.mb, IFLA_GENEVE_UDP_ZERO_CSUM6_TX, 1);
	msgbuf_put_u8(&d.mb, IFLA_GENEVE_TTL, 9);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_int_equal(parse("geneve", filled_data(&dev, mem, sizeof(mem)),
			       &back, &md), 0);
	assert_false(md);
	assert_memory_equal(&back.remote, &dev.remote, sizeof(dev.remote));
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_REMOTE, 4, &r4);
	msgbuf_put_u32(&d.mb, IFLA_GRE_OKEY, htonl(2));
	msgbuf_put_u32(&d.mb, IFLA_GRE_IKEY, htonl(2));
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_VER, 2);
	msgbuf_put_u16(&d.mb, IFLA_GRE_ERSPAN_HWID, 7);
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_DIR, 1);
	assert_int_equal(parse("erspan", data_end(&d), &dev, &md), 0);
	assert_int_equal(parse("erspan", filled_data(&dev, mem, sizeof(mem)),
			       &back, &md), 0);
	assert_false(md);
	assert_memory_equal(&back.remote, &dev.remote, sizeof(dev.remote));
	assert_true(back.rx_keyed);
	assert_int_equal(back.rx_id, dev.rx_id);
}

/* VXLAN-GPE as OVS and `ip link ... vxlan gpe external` ask for it: an
 * L3 device on 4790 unless told; vxlan_config_validate()'s EINVAL for
 * GPE without metadata or with a flag it does not allow. */
static void
test_parse_vxlan_gpe(void **state)
{
	static const int u8_flags[] = {
		IFLA_VXLAN_LEARNING, IFLA_VXLAN_PROXY, IFLA_VXLAN_RSC,
		IFLA_VXLAN_L2MISS, IFLA_VXLAN_L3MISS, IFLA_VXLAN_REMCSUM_TX,
		IFLA_VXLAN_REMCSUM_RX,
	};
	static const int flags[] = {
		IFLA_VXLAN_GBP, IFLA_VXLAN_REMCSUM_NOPARTIAL,
		IFLA_VXLAN_TTL_INHERIT,
	};
	struct tnl_dev dev;
	struct data d;
	bool md;

	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_UDP_ZERO_CSUM6_RX, 1);
	msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_true(dev.cfg.gpe);
	assert_true(dev.cfg.l3);
	assert_int_equal(dev.cfg.dst_port, 4790);
	/* OVS's: its port given; the flags GPE allows (checksums). */
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_UDP_CSUM, 1);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_UDP_ZERO_CSUM6_TX, 1);
	msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
	msgbuf_put_u16(&d.mb, IFLA_VXLAN_PORT, htons(4791));
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.cfg.dst_port, 4791);
	/* Without metadata, learning on by default or asked, or with
	 * another flag: EINVAL. */
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
	msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), -EINVAL);
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
	msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
	assert_int_equal(parse("vxlan", data_end(&d), &dev, &md), -EINVAL);
	for (size_t i = 0; i < sizeof(u8_flags) / sizeof(u8_flags[0]); i++) {
		for (int v = 0; v < 2; v++) {
			data_start(&d);
			msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
			msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
			if (u8_flags[i] != IFLA_VXLAN_LEARNING)
				msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
			msgbuf_put_u8(&d.mb, u8_flags[i], v);
			assert_int_equal(parse("vxlan", data_end(&d), &dev,
					       &md), v ? -EINVAL : 0);
		}
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		data_start(&d);
		msgbuf_put_u8(&d.mb, IFLA_VXLAN_COLLECT_METADATA, 1);
		msgbuf_put_u8(&d.mb, IFLA_VXLAN_LEARNING, 0);
		msgbuf_put(&d.mb, IFLA_VXLAN_GPE, 0, NULL);
		msgbuf_put(&d.mb, flags[i], 0, NULL);
		assert_int_equal(parse("vxlan", data_end(&d), &dev, &md),
				 -EINVAL);
	}
	/* A port shorter than its type: the policy's error. */
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_VXLAN_PORT, 1);
	assert_true(parse("vxlan", data_end(&d), &dev, &md) < 0);
}

static void
test_parse_geneve_gre(void **state)
{
	struct tnl_dev dev;
	struct data d;
	bool md;

	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_COLLECT_METADATA, 0, NULL);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_int_equal(dev.cfg.dst_port, 6081);
	assert_false(dev.cfg.csum6_zero_rx);
	assert_false(dev.cfg.l3);
	/* inner_proto_inherit: an L3 device; without metadata, the
	 * kernel's. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_COLLECT_METADATA, 0, NULL);
	msgbuf_put(&d.mb, IFLA_GENEVE_INNER_PROTO_INHERIT, 0, NULL);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_true(dev.cfg.l3);
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GENEVE_INNER_PROTO_INHERIT, 0, NULL);
	assert_int_equal(parse("geneve", data_end(&d), &dev, &md), 0);
	assert_false(md);

	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_COLLECT_METADATA, 0, NULL);
	assert_int_equal(parse("ip6gretap", data_end(&d), &dev, &md), 0);
	assert_true(md);
	assert_int_equal(dev.cfg.family, AF_INET6);
	assert_int_equal(parse("gretap", NULL, &dev, &md), 0);
	assert_false(md);
	assert_int_equal(dev.cfg.family, AF_INET);
	assert_false(dev.cfg.l3);
	/* gre: the L3 device (a TUN, ARPHRD_NONE). */
	assert_int_equal(parse("gre", NULL, &dev, &md), 0);
	assert_true(dev.cfg.l3);
	assert_int_equal(dev.cfg.family, AF_INET);
	/* erspan: version 1 unless told, at most 2. */
	data_start(&d);
	msgbuf_put(&d.mb, IFLA_GRE_COLLECT_METADATA, 0, NULL);
	assert_int_equal(parse("erspan", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.erspan_ver, 1);
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_VER, 2);
	assert_int_equal(parse("ip6erspan", data_end(&d), &dev, &md), 0);
	assert_int_equal(dev.erspan_ver, 2);
	data_start(&d);
	msgbuf_put_u8(&d.mb, IFLA_GRE_ERSPAN_VER, 3);
	assert_int_equal(parse("erspan", data_end(&d), &dev, &md), -EINVAL);
}

/* Whether the device has no Ethernet header (a TUN: ARPHRD_NONE). */
static bool
is_tun(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(fd, SIOCGIFHWADDR, &ifr), 0);
	close(fd);
	return ifr.ifr_hwaddr.sa_family == ARPHRD_NONE;
}

/* A device of kind on port, named name, in the namespace of nsfd (-1:
 * ours), which ours calls netnsid. */
static struct tnl_dev *
make_in(const char *kind, const char *name, uint16_t port, int netnsid,
	int nsfd, bool up, int *err)
{
	struct tnl_dev want;
	bool md;

	assert_int_equal(parse(kind, NULL, &want, &md), 0);
	snprintf(want.name, sizeof(want.name), "%s", name);
	want.netnsid = netnsid;
	if (port)
		want.cfg.dst_port = port;
	return tnl_dev_create(&want, nsfd, 0, up, err);
}

static struct tnl_dev *
make(const char *kind, const char *name, uint16_t port, int *err)
{
	return make_in(kind, name, port, NETNSA_NSID_NOT_ASSIGNED, -1, false,
		       err);
}

static void
test_create_and_conflicts(void **state)
{
	struct tnl_dev *vx, *gn, *gt, *g6, *er, *e6, *other;
	int err;

	if (!netns_ok)
		skip();
	vx = make("vxlan", "tvx0", 4789, &err);
	assert_non_null(vx);
	assert_int_equal(vx->ifindex, (int)if_nametoindex("tvx0"));
	assert_ptr_equal(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, "tvx0"), vx);
	assert_ptr_equal(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, vx->ifindex, NULL), vx);
	assert_ptr_equal(vx->cfg.dev, vx);
	/* The name is taken. */
	assert_null(make("vxlan", "tvx0", 4790, &err));
	assert_int_equal(err, -EEXIST);
	assert_null(make("vxlan", "lo", 4790, &err));
	assert_int_equal(err, -EEXIST);
	/* The port is taken: by the same kind, by another kind. */
	assert_null(make("vxlan", "tvx1", 4789, &err));
	assert_int_equal(err, -EEXIST);
	assert_null(make("geneve", "tgn1", 4789, &err));
	assert_int_equal(err, -EADDRINUSE);
	assert_int_equal(if_nametoindex("tvx1"), 0);
	other = make("vxlan", "tvx2", 4790, &err);
	assert_non_null(other);
	gn = make("geneve", "tgn0", 0, &err);
	assert_non_null(gn);
	assert_null(make("geneve", "tgn2", 0, &err));
	assert_int_equal(err, -EBUSY);
	/* VXLAN-GPE: a socket of its own, so a port of its own; a TUN. */
	{
		struct tnl_dev want;
		bool md;

		assert_int_equal(parse("vxlan", NULL, &want, &md), 0);
		want.cfg.gpe = want.cfg.l3 = true;
		want.cfg.dst_port = 4789;
		snprintf(want.name, sizeof(want.name), "tgp0");
		want.netnsid = NETNSA_NSID_NOT_ASSIGNED;
		assert_null(tnl_dev_create(&want, -1, 0, false, &err));
		assert_int_equal(err, -EADDRINUSE);
		want.cfg.dst_port = 4791;
		assert_non_null(tnl_dev_create(&want, -1, 0, false, &err));
		assert_true(is_tun("tgp0"));
		snprintf(want.name, sizeof(want.name), "tgp1");
		assert_null(tnl_dev_create(&want, -1, 0, false, &err));
		assert_int_equal(err, -EEXIST);
	}
	/* One device of each GRE kind, and no second. */
	gt = make("gretap", "tgt0", 0, &err);
	g6 = make("ip6gretap", "tg60", 0, &err);
	er = make("erspan", "ter0", 0, &err);
	e6 = make("ip6erspan", "te60", 0, &err);
	assert_non_null(gt);
	assert_non_null(g6);
	assert_non_null(er);
	assert_non_null(e6);
	assert_null(make("gretap", "tgt1", 0, &err));
	assert_int_equal(err, -EEXIST);
	/* The L3 kind is a kind of its own, its device a TUN. */
	assert_non_null(make("gre", "tl30", 0, &err));
	assert_null(make("gre", "tl31", 0, &err));
	assert_int_equal(err, -EEXIST);
	assert_true(is_tun("tl30"));
	assert_false(is_tun("tgt0"));
	assert_null(make("ip6erspan", "te61", 0, &err));
	assert_int_equal(err, -EEXIST);
	/* An MTU past a TAP's largest: the largest. */
	tnl_dev_destroy(gn);
	{
		struct tnl_dev want;
		bool md;

		assert_int_equal(parse("geneve", NULL, &want, &md), 0);
		snprintf(want.name, sizeof(want.name), "tgn3");
		want.netnsid = NETNSA_NSID_NOT_ASSIGNED;
		gn = tnl_dev_create(&want, -1, 65535, true, &err);
		assert_non_null(gn);
		assert_int_equal(netdev_get_mtu("tgn3"), TAP_MTU_MAX);
	}
	/* A pattern is the kernel's to fill. */
	tnl_dev_destroy(gt);
	gt = make("gretap", "gretap%d", 0, &err);
	assert_non_null(gt);
	assert_string_equal(gt->name, "gretap0");
	/* Deleted: gone from the table and the system, the port free. */
	tnl_dev_destroy(vx);
	assert_null(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, "tvx0"));
	assert_int_equal(if_nametoindex("tvx0"), 0);
	vx = make("vxlan", "tvx0", 4789, &err);
	assert_non_null(vx);
	tnl_dev_destroy_all();
	assert_null(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, "tvx2"));
	assert_int_equal(if_nametoindex("tvx2"), 0);
}

/* The flags of the device called name in the namespace of nsfd, back
 * in the namespace of here after. */
static short
flags_in(int nsfd, int here, const char *name)
{
	struct ifreq ifr = { 0 };
	int fd;

	assert_int_equal(setns(nsfd, CLONE_NEWNET), 0);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		ifr.ifr_flags = -1;
	close(fd);
	assert_int_equal(setns(here, CLONE_NEWNET), 0);
	return ifr.ifr_flags;
}

/* Another namespace's devices: made there (up when asked, though a move
 * takes a device down), with names and ports of their own beside ours,
 * found by its id, deleted with it. */
static void
test_other_namespace(void **state)
{
	struct tnl_dev *ours, *vx, *gn;
	int here, there, id, err;
	uint32_t mtu;
	int ifindex;

	if (!netns_ok)
		skip();
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(here >= 0);
	assert_int_equal(unshare(CLONE_NEWNET), 0);
	there = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(there >= 0);
	assert_int_equal(setns(here, CLONE_NEWNET), 0);
	assert_int_equal(netdev_netnsid(there, &id), 0);
	assert_true(id >= 0);

	ours = make("vxlan", "tvo0", 4789, &err);
	assert_non_null(ours);
	vx = make_in("vxlan", "tvo0", 4789, id, there, true, &err);
	assert_non_null(vx);
	assert_int_equal(vx->netnsid, id);
	assert_int_equal(netdev_lookup(id, "tvo0", &ifindex, &mtu), 0);
	assert_int_equal(vx->ifindex, ifindex);
	assert_true(flags_in(there, here, "tvo0") & IFF_UP);
	assert_true(flags_in(there, here, "tvo0") & IFF_PROMISC);
	assert_ptr_equal(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, "tvo0"),
			 ours);
	assert_ptr_equal(tnl_dev_find(id, 0, "tvo0"), vx);
	assert_ptr_equal(tnl_dev_find(id, vx->ifindex, NULL), vx);
	/* There, the port is taken now; the name too. */
	assert_null(make_in("vxlan", "tvo1", 4789, id, there, false, &err));
	assert_int_equal(err, -EEXIST);
	assert_null(make_in("geneve", "tvo0", 0, id, there, false, &err));
	assert_int_equal(err, -EEXIST);
	/* A pattern is filled in there; down unless asked. */
	gn = make_in("geneve", "gen%d", 0, id, there, false, &err);
	assert_non_null(gn);
	assert_string_equal(gn->name, "gen0");
	assert_false(flags_in(there, here, "gen0") & IFF_UP);
	/* Their namespace goes: its devices, not ours. */
	tnl_dev_destroy_in(id);
	assert_null(tnl_dev_find(id, 0, "tvo0"));
	assert_null(tnl_dev_find(id, 0, "gen0"));
	assert_int_equal(flags_in(there, here, "tvo0"), -1);
	assert_ptr_equal(tnl_dev_find(NETNSA_NSID_NOT_ASSIGNED, 0, "tvo0"),
			 ours);
	assert_true(if_nametoindex("tvo0") > 0);
	tnl_dev_destroy(ours);
	close(there);
	close(here);
}

/* What GETLINK gives back reads as what was created. */
static void
test_linkinfo_round_trip(void **state)
{
	static const char *const kinds[] = { "vxlan", "geneve", "gretap",
					     "ip6gretap", "erspan",
					     "ip6erspan", "gre", "vxlan",
					     "geneve" };

	if (!netns_ok)
		skip();
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct nlattr *a, *kind = NULL, *data = NULL;
		struct tnl_dev *dev, back;
		struct nlattr *info;
		char mem[1024];
		struct msgbuf mb;
		bool md;
		int err, rem;

		dev = make(kinds[i], "trt0", 5555, &err);
		assert_non_null(dev);
		dev->cfg.gbp = i == 0;
		/* The last two: VXLAN-GPE, geneve inner_proto_inherit. */
		dev->cfg.gpe = i == 7;
		dev->cfg.l3 = i >= 6;
		dev->cfg.csum6_zero_rx = true;
		dev->learning = false;
		dev->erspan_ver = 2;
		msgbuf_init(&mb, mem, sizeof(mem));
		msgbuf_start(&mb, 16, 0, 0, 0, 0);
		info = msgbuf_nest_start(&mb, IFLA_LINKINFO);
		tnl_dev_fill_info(dev, &mb);
		msgbuf_nest_end(&mb, info);
		assert_int_equal(msgbuf_end(&mb), 0);
		assert_int_equal(info->nla_type, IFLA_LINKINFO);
		attr_for_each(a, attr_data(info), attr_len(info), rem) {
			if (attr_type(a) == IFLA_INFO_KIND)
				kind = a;
			else if (attr_type(a) == IFLA_INFO_DATA)
				data = a;
		}
		assert_non_null(kind);
		assert_non_null(data);
		assert_string_equal(attr_data(kind), kinds[i]);
		/* GPE's data does not read back: the kernel's too gives
		 * TTL_INHERIT, which GPE refuses. Its flag is there. */
		if (i == 7) {
			const struct nlattr *gpe = NULL;

			attr_for_each(a, attr_data(data), attr_len(data), rem)
				if (attr_type(a) == IFLA_VXLAN_GPE)
					gpe = a;
			assert_non_null(gpe);
			assert_int_equal(attr_len(gpe), 0);
			tnl_dev_destroy(dev);
			continue;
		}
		assert_int_equal(parse(kinds[i], data, &back, &md), 0);
		assert_true(md);
		if (i < 2 || i > 6) {
			assert_int_equal(back.cfg.dst_port, 5555);
			assert_true(back.cfg.csum6_zero_rx);
		}
		assert_int_equal(back.cfg.gbp, i == 0);
		if (i == 0)
			assert_false(back.learning);
		if (i == 4 || i == 5)
			assert_int_equal(back.erspan_ver, 2);
		assert_false(back.cfg.gpe);
		assert_int_equal(back.cfg.l3, i >= 6);
		tnl_dev_destroy(dev);
	}
}

static int
own_netns(void **state)
{
	netns_ok = unshare(CLONE_NEWNET) == 0;
	if (!netns_ok)
		fprintf(stderr, "test-tnl-dev: unshare(CLONE_NEWNET): %s: the "
			"tests that create devices skip\n", strerror(errno));
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_other_namespace),
		cmocka_unit_test(test_parse_vxlan),
		cmocka_unit_test(test_parse_geneve_remote),
		cmocka_unit_test(test_parse_gre_remote),
		cmocka_unit_test(test_remote_round_trip),
		cmocka_unit_test(test_parse_vxlan_gpe),
		cmocka_unit_test(test_parse_geneve_gre),
		cmocka_unit_test(test_create_and_conflicts),
		cmocka_unit_test(test_linkinfo_round_trip),
	};

	return cmocka_run_group_tests(tests, own_netns, NULL);
}
