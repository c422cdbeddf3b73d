/* SPDX-License-Identifier: Apache-2.0 */
/* The OVS generic netlink families' commands, answered from a datapath
 * context of the test's with ports that need no device: what each command
 * does and the errno the kernel's net/openvswitch gives when it cannot
 * (datapath, vport, flow, packet, meter, ct_limit), multi-part dumps, and
 * upcalls reaching a client's socket; tapdp_drop's counts and events. */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <urcu.h>

#include "common/clock.h"
#include "common/kernel-profile.h"
#include "datapath/datapath.h"
#include "datapath/drop.h"
#include "include/tapdp/ctl-uapi.h"
#include "families/families.h"
#include "genl-server/genl.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define HDR		sizeof(struct ovs_header)
#define WAIT_MS		2000

static struct dp_net *net;

static int
setup(void **state)
{
	*state = fx_new(net, NETLINK_GENERIC, true);
	return 0;
}

static int
teardown(void **state)
{
	struct datapath *dp;

	fx_free(*state);
	while ((dp = dp_at(net, 0)))
		dp_destroy(dp);
	rcu_barrier();
	fake_device_del("tdp-nd");
	return 0;
}

static struct ovs_header *
rep_hdr(struct fx *f)
{
	return (void *)(f->rep + NLMSG_HDRLEN + GENL_HDRLEN);
}

static uint8_t
rep_cmd(struct fx *f)
{
	return ((struct genlmsghdr *)(f->rep + NLMSG_HDRLEN))->cmd;
}

/* Sends the request and reads one answer: 0 and the reply in f->rep (of
 * family type), or the error. */
static int
transact(struct fx *f, uint16_t type)
{
	ssize_t n;

	send_req(f);
	n = recv_rep(f);
	assert_true(n > 0);
	if (((struct nlmsghdr *)f->rep)->nlmsg_type == NLMSG_ERROR)
		return rep_error(f, n);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_type, type);
	return 0;
}

/* Starts a request of an OVS family on the datapath ifindex. */
static void
ovs_req(struct fx *f, uint16_t family, uint16_t flags, uint8_t cmd,
	int ifindex)
{
	struct ovs_header *hdr = req_start(f, family, flags, cmd, HDR);

	hdr->dp_ifindex = ifindex;
}

static uint32_t
portid(struct fx *f)
{
	return nlsock_portid(f->sk);
}

/* OVS_DP_CMD_NEW, echoed; returns the new datapath's ifindex. */
static int
dp_new(struct fx *f, const char *name)
{
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_NEW, HDR);
	msgbuf_put(&f->req, OVS_DP_ATTR_NAME, strlen(name) + 1, name);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_UPCALL_PID, portid(f));
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
	assert_int_equal(rep_cmd(f), OVS_DP_CMD_NEW);
	return rep_hdr(f)->dp_ifindex;
}

/* OVS_VPORT_CMD_NEW of name (port_no 0: any), echoed when it works. */
static int
vport_new(struct fx *f, int ifindex, const char *name, uint32_t type,
	  uint32_t port_no)
{
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_NEW, ifindex);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, strlen(name) + 1, name);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE, type);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_UPCALL_PID, portid(f));
	if (port_no)
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, port_no);
	req_end(f);
	return transact(f, FAMILY_ID_VPORT);
}

static uint32_t
rep_u32(struct fx *f, uint16_t type)
{
	const struct nlattr *a = rep_attr(f, HDR, type);

	assert_non_null(a);
	return attr_get_u32(a);
}

/* Attributes of a genl message with an ovs_header. */
static const struct nlattr *
msg_attr(const struct nlmsghdr *m, uint16_t type)
{
	size_t off = NLMSG_LENGTH(GENL_HDRLEN + HDR);

	return attrs_find((const char *)m + off, m->nlmsg_len - off, type);
}

/* seen[0]: how many; then each one's ifindex. */
static void
collect_dp(const struct nlmsghdr *m, void *arg)
{
	const struct ovs_header *hdr = (const void *)((const char *)
		NLMSG_DATA(m) + GENL_HDRLEN);
	int *seen = arg;

	assert_int_equal(m->nlmsg_type, FAMILY_ID_DATAPATH);
	assert_true(seen[0] < 2);
	seen[++seen[0]] = hdr->dp_ifindex;
}

static void
test_datapath(void **state)
{
	struct fx *f = *state;
	struct fx *l = fx_new(net, NETLINK_GENERIC, false);
	int ifindex, ifindex1, seen[3] = { 0 };

	/* A listener of the group hears of the new datapath. */
	assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP,
					   GROUP_DATAPATH), 0);
	ifindex = dp_new(f, "tdp0");
	assert_true(ifindex > 0);
	assert_string_equal(attr_data(rep_attr(f, HDR, OVS_DP_ATTR_NAME)),
			    "tdp0");
	assert_non_null(rep_attr(f, HDR, OVS_DP_ATTR_STATS));
	assert_non_null(rep_attr(f, HDR, OVS_DP_ATTR_MEGAFLOW_STATS));
	assert_true(recv_rep(l) > 0);
	assert_int_equal(rep_cmd(l), OVS_DP_CMD_NEW);
	assert_int_equal(rep_hdr(l)->dp_ifindex, ifindex);
	/* GET by name and by index; SET features. */
	req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, HDR);
	msgbuf_put(&f->req, OVS_DP_ATTR_NAME, 5, "tdp0");
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
	assert_int_equal(rep_hdr(f)->dp_ifindex, ifindex);
	ovs_req(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES, OVS_DP_F_VPORT_PIDS | OVS_DP_F_UNALIGNED);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
	assert_int_equal(rep_cmd(f), OVS_DP_CMD_SET);
	assert_int_equal(rep_u32(f, OVS_DP_ATTR_USER_FEATURES),
			 OVS_DP_F_VPORT_PIDS | OVS_DP_F_UNALIGNED);
	ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, ifindex);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
	assert_int_equal(rep_u32(f, OVS_DP_ATTR_USER_FEATURES),
			 OVS_DP_F_VPORT_PIDS | OVS_DP_F_UNALIGNED);
	ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES, 1u << 30);
	req_end(f);
	assert_int_equal(transact(f, 0), -EOPNOTSUPP);
	/* The name is taken; a client of the version before features that
	 * tries to create it again will reuse it: its features are
	 * dropped. */
	for (uint8_t v = OVS_DATAPATH_VERSION; v >= OVS_DP_VER_FEATURES - 1;
	     v--) {
		req_start(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_NEW, HDR);
		((struct genlmsghdr *)NLMSG_DATA(req_cur(f)))->version = v;
		msgbuf_put(&f->req, OVS_DP_ATTR_NAME, 5, "tdp0");
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_UPCALL_PID, 0);
		req_end(f);
		assert_int_equal(transact(f, 0), -EEXIST);
		assert_int_equal(dp_features(dp_at(net, 0)),
				 v < OVS_DP_VER_FEATURES
					 ? 0 : OVS_DP_F_VPORT_PIDS |
						       OVS_DP_F_UNALIGNED);
	}
	/* Unknown datapaths. */
	ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_SET, ifindex + 1000);
	req_end(f);
	assert_int_equal(transact(f, 0), -ENODEV);
	/* The dump lists both, in creation order. */
	ifindex1 = dp_new(f, "tdp1");
	req_start(f, FAMILY_ID_DATAPATH, NLM_F_DUMP, OVS_DP_CMD_GET, HDR);
	req_end(f);
	dump_all(f, collect_dp, seen);
	assert_int_equal(seen[0], 2);
	assert_int_equal(seen[1], ifindex);
	assert_int_equal(seen[2], ifindex1);
	/* DEL, then it is gone. */
	ovs_req(f, FAMILY_ID_DATAPATH, NLM_F_ACK, OVS_DP_CMD_DEL, ifindex);
	req_end(f);
	assert_int_equal(transact(f, 0), 0);
	ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_DEL, ifindex);
	req_end(f);
	assert_int_equal(transact(f, 0), -ENODEV);
	assert_null(dp_by_name(net, "tdp0"));
	fx_free(l);
}

static void
test_vport(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	uint32_t pids[2] = { 11, 12 };

	assert_int_equal(vport_new(f, ifindex, "tdp-p1",
				   OVS_VPORT_TYPE_INTERNAL, 0), 0);
	assert_int_equal(rep_cmd(f), OVS_VPORT_CMD_NEW);
	assert_int_equal(rep_hdr(f)->dp_ifindex, ifindex);
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_PORT_NO), 1);
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_TYPE),
			 OVS_VPORT_TYPE_INTERNAL);
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_UPCALL_PID), portid(f));
	assert_string_equal(attr_data(rep_attr(f, HDR, OVS_VPORT_ATTR_NAME)),
			    "tdp-p1");
	/* What the kernel refuses. */
	assert_int_equal(vport_new(f, ifindex, "tdp-p1",
				   OVS_VPORT_TYPE_INTERNAL, 0), -EEXIST);
	assert_int_equal(vport_new(f, ifindex, "tdp-p2",
				   OVS_VPORT_TYPE_INTERNAL, 1), -EBUSY);
	assert_int_equal(vport_new(f, ifindex, "tdp-p2",
				   OVS_VPORT_TYPE_INTERNAL,
				   TAPDP_DP_MAX_PORTS), -EFBIG);
	assert_int_equal(vport_new(f, ifindex, "tdp-p2", 99, 0),
			 -EAFNOSUPPORT);
	assert_int_equal(vport_new(f, ifindex + 1000, "tdp-p2",
				   OVS_VPORT_TYPE_INTERNAL, 0), -ENODEV);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 0), -ENODEV);
	assert_int_equal(vport_new(f, ifindex, "tdp-p1",
				   OVS_VPORT_TYPE_NETDEV, 0), -EINVAL);
	assert_int_equal(fake_device_add("tdp-nd"), 0);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 7), 0);
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_PORT_NO), 7);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 0), -EBUSY);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_NEW, ifindex);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 7, "tdp-p2");
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE, OVS_VPORT_TYPE_INTERNAL);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);	/* no upcall pid */
	/* GET by name (in its datapath only) and by number. */
	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, HDR);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 7, "tdp-nd");
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_VPORT), 0);
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_PORT_NO), 7);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, ifindex + 1000);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 7, "tdp-nd");
	req_end(f);
	assert_int_equal(transact(f, 0), -ENODEV);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, OVSP_LOCAL);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_VPORT), 0);
	assert_string_equal(attr_data(rep_attr(f, HDR, OVS_VPORT_ATTR_NAME)),
			    "tdp0");
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 2);
	req_end(f);
	assert_int_equal(transact(f, 0), -ENODEV);
	/* SET: the pids; not the type, nor options. */
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 1);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_UPCALL_PID, sizeof(pids), pids);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_VPORT), 0);
	assert_int_equal(rep_cmd(f), OVS_VPORT_CMD_SET);
	/* Without OVS_DP_F_VPORT_PIDS only the first is shown. */
	assert_int_equal(rep_u32(f, OVS_VPORT_ATTR_UPCALL_PID), 11);
	assert_int_equal(dp_port_locate(net, "tdp-p1")->pids->n, 2);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 1);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE, OVS_VPORT_TYPE_NETDEV);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 1);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_OPTIONS, 0, NULL);	/* empty nest */
	req_end(f);
	assert_int_equal(transact(f, 0), -EOPNOTSUPP);
	/* DEL: not the local port. */
	ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_DEL, ifindex);
	msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, OVSP_LOCAL);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_DEL, ifindex);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 7, "tdp-nd");
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_VPORT), 0);
	assert_int_equal(rep_cmd(f), OVS_VPORT_CMD_DEL);
	assert_null(dp_port_locate(net, "tdp-nd"));
	req_start(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_DEL, HDR);
	msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 7, "tdp-nd");
	req_end(f);
	assert_int_equal(transact(f, 0), -ENODEV);
}

/* seen[0]: how many; then each one's number. */
static void
collect_port(const struct nlmsghdr *m, void *arg)
{
	uint32_t *seen = arg;

	assert_int_equal(m->nlmsg_type, FAMILY_ID_VPORT);
	assert_true(seen[0] < 31);
	seen[++seen[0]] = attr_get_u32(msg_attr(m, OVS_VPORT_ATTR_PORT_NO));
}

/* Ports enough for more than one dump part: each comes once, in order. */
static void
test_vport_dump_parts(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	uint32_t seen[32] = { 0 };
	char name[16];
	int n_ports = 24;

	for (int i = 1; i < n_ports; i++) {
		snprintf(name, sizeof(name), "tdp-p%d", i);
		assert_int_equal(vport_new(f, ifindex, name,
					   OVS_VPORT_TYPE_INTERNAL, 0), 0);
	}
	ovs_req(f, FAMILY_ID_VPORT, NLM_F_DUMP, OVS_VPORT_CMD_GET, ifindex);
	req_end(f);
	assert_true(dump_all(f, collect_port, seen) >= 2);
	assert_int_equal(seen[0], n_ports);
	for (int i = 0; i < n_ports; i++)
		assert_int_equal(seen[i + 1], i);
}

static void
put_output(struct msgbuf *mb, uint32_t port)
{
	struct nlattr *acts = msgbuf_nest_start(mb, OVS_FLOW_ATTR_ACTIONS);

	msgbuf_put_u32(mb, OVS_ACTION_ATTR_OUTPUT, port);
	msgbuf_nest_end(mb, acts);
}

/* A flow request on the datapath ifindex, of key (in_port 1, from src)
 * and, unless port is 0, output to port. */
static void
flow_req(struct fx *f, int ifindex, uint16_t flags, uint8_t cmd,
	 const uint8_t *src, uint32_t port)
{
	ovs_req(f, FAMILY_ID_FLOW, flags, cmd, ifindex);
	fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1, src);
	if (port)
		put_output(&f->req, port);
	req_end(f);
}

static void
test_flow(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	const struct nlattr *a, *out;
	uint8_t ufid[16] = "0123456789abcdef";
	struct nlattr *nest;

	flow_req(f, ifindex, NLM_F_ECHO, OVS_FLOW_CMD_NEW, fb_mac_src, 2);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	assert_int_equal(rep_cmd(f), OVS_FLOW_CMD_NEW);
	assert_int_equal(rep_hdr(f)->dp_ifindex, ifindex);
	assert_non_null(rep_attr(f, HDR, OVS_FLOW_ATTR_KEY));
	assert_non_null(rep_attr(f, HDR, OVS_FLOW_ATTR_MASK));
	a = rep_attr(f, HDR, OVS_FLOW_ATTR_ACTIONS);
	assert_non_null(a);
	out = attrs_find(attr_data(a), attr_len(a), OVS_ACTION_ATTR_OUTPUT);
	assert_non_null(out);
	assert_int_equal(attr_get_u32(out), 2);
	/* An existing flow: NLM_F_EXCL (or CREATE) refuses, else the
	 * actions change. */
	flow_req(f, ifindex, NLM_F_EXCL, OVS_FLOW_CMD_NEW, fb_mac_src, 2);
	assert_int_equal(transact(f, 0), -EEXIST);
	flow_req(f, ifindex, NLM_F_CREATE, OVS_FLOW_CMD_NEW, fb_mac_src, 2);
	assert_int_equal(transact(f, 0), -EEXIST);
	flow_req(f, ifindex, NLM_F_ECHO, OVS_FLOW_CMD_NEW, fb_mac_src, 3);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	a = rep_attr(f, HDR, OVS_FLOW_ATTR_ACTIONS);
	out = attrs_find(attr_data(a), attr_len(a), OVS_ACTION_ATTR_OUTPUT);
	assert_int_equal(attr_get_u32(out), 3);
	/* GET and SET by key; SET of another key: ENOENT. */
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_GET, fb_mac_src, 0);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	assert_int_equal(rep_cmd(f), OVS_FLOW_CMD_GET);
	flow_req(f, ifindex, NLM_F_ECHO, OVS_FLOW_CMD_SET, fb_mac_src, 4);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	assert_int_equal(rep_cmd(f), OVS_FLOW_CMD_SET);
	a = rep_attr(f, HDR, OVS_FLOW_ATTR_ACTIONS);
	out = attrs_find(attr_data(a), attr_len(a), OVS_ACTION_ATTR_OUTPUT);
	assert_int_equal(attr_get_u32(out), 4);
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_SET, fb_mac_dst, 4);
	assert_int_equal(transact(f, 0), -ENOENT);
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_GET, fb_mac_dst, 0);
	assert_int_equal(transact(f, 0), -ENOENT);
	flow_req(f, ifindex + 1000, 0, OVS_FLOW_CMD_NEW, fb_mac_dst, 2);
	assert_int_equal(transact(f, 0), -ENODEV);
	/* Bad keys, masks and actions: EINVAL. */
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_NEW, ifindex);
	nest = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_KEY);
	msgbuf_put_u16(&f->req, OVS_KEY_ATTR_IN_PORT, 1);	/* short */
	msgbuf_nest_end(&f->req, nest);
	put_output(&f->req, 2);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_NEW, ifindex);
	fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1, fb_mac_dst);
	nest = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_MASK);
	msgbuf_put_u32(&f->req, OVS_KEY_ATTR_IN_PORT, 0xffffffff);
	msgbuf_put(&f->req, OVS_KEY_ATTR_IPV4, 12, (uint8_t[12]){ 0xff });
	msgbuf_nest_end(&f->req, nest);
	put_output(&f->req, 2);
	req_end(f);
	/* A mask of IPv4 fields on a key that is not IPv4. */
	assert_int_equal(transact(f, 0), -EINVAL);
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_NEW, ifindex);
	fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1, fb_mac_dst);
	nest = msgbuf_nest_start(&f->req, OVS_FLOW_ATTR_ACTIONS);
	msgbuf_put_u16(&f->req, OVS_ACTION_ATTR_OUTPUT, 2);	/* short */
	msgbuf_nest_end(&f->req, nest);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	/* No actions. */
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_NEW, fb_mac_dst, 0);
	assert_int_equal(transact(f, 0), -EINVAL);
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_NEW, ifindex);
	put_output(&f->req, 2);				/* no key */
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	/* A flow with a UFID is found by it. */
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_NEW, ifindex);
	msgbuf_put(&f->req, OVS_FLOW_ATTR_UFID, sizeof(ufid), ufid);
	fake_frame_key(&f->req, OVS_FLOW_ATTR_KEY, 1, fb_mac_dst);
	put_output(&f->req, 2);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) < 0);		/* no echo, no ACK asked */
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_GET, ifindex);
	msgbuf_put(&f->req, OVS_FLOW_ATTR_UFID, sizeof(ufid), ufid);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	a = rep_attr(f, HDR, OVS_FLOW_ATTR_UFID);
	assert_non_null(a);
	assert_memory_equal(attr_data(a), ufid, sizeof(ufid));
	assert_int_equal(dp_flow_count(dp_by_ifindex(net, ifindex)), 2);
	/* DEL by key, again: ENOENT; DEL without key: flush. */
	flow_req(f, ifindex, NLM_F_ACK, OVS_FLOW_CMD_DEL, fb_mac_src, 0);
	assert_int_equal(transact(f, 0), 0);
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_DEL, fb_mac_src, 0);
	assert_int_equal(transact(f, 0), -ENOENT);
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_ACK, OVS_FLOW_CMD_DEL, ifindex);
	req_end(f);
	assert_int_equal(transact(f, 0), 0);
	assert_int_equal(dp_flow_count(dp_by_ifindex(net, ifindex)), 0);
}

static void
count_flow(const struct nlmsghdr *m, void *arg)
{
	const struct nlattr *k = msg_attr(m, OVS_FLOW_ATTR_KEY);
	unsigned *seen = arg;
	const struct nlattr *eth;

	assert_int_equal(m->nlmsg_type, FAMILY_ID_FLOW);
	assert_non_null(k);
	eth = attrs_find(attr_data(k), attr_len(k), OVS_KEY_ATTR_ETHERNET);
	assert_non_null(eth);
	/* Each flow once: the last byte of its source is its number. */
	seen[((const struct ovs_key_ethernet *)attr_data(eth))->eth_src[5]]++;
}

static void
test_flow_dump_parts(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	unsigned seen[256] = { 0 };
	uint8_t src[6] = { 2, 0, 0, 0, 1, 0 };
	int n_flows = 100;

	for (int i = 0; i < n_flows; i++) {
		src[5] = i;
		flow_req(f, ifindex, NLM_F_ACK, OVS_FLOW_CMD_NEW, src, 2);
		assert_int_equal(transact(f, 0), 0);
	}
	ovs_req(f, FAMILY_ID_FLOW, NLM_F_DUMP, OVS_FLOW_CMD_GET, ifindex);
	req_end(f);
	assert_true(dump_all(f, count_flow, seen) >= 2);
	for (int i = 0; i < 256; i++)
		assert_int_equal(seen[i], i < n_flows);
}

/* OVS_PACKET_CMD_EXECUTE of a frame from port 1 with actions. */
static void
execute_req(struct fx *f, int ifindex, const struct attrs *acts)
{
	uint8_t frame[FAKE_FRAME_LEN];
	size_t len = fake_frame(frame);

	ovs_req(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE,
		ifindex);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, len, frame);
	fake_frame_key(&f->req, OVS_PACKET_ATTR_KEY, 1, fb_mac_src);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_ACTIONS, attrs_len(acts),
		   attrs_data(acts));
	req_end(f);
}

/* The datapath's drops for reason. */
static uint64_t
dp_drops(int ifindex, uint32_t reason)
{
	uint64_t n[DROP_REASONS];

	dp_get_drops(dp_by_ifindex(net, ifindex), n);
	return n[drop_reason_index(reason)];
}

/* Executed packets, and the refused ones the kernel drops (once it has
 * built the packet: a bad key or actions; not without a datapath, where
 * there is nothing to count on, nor a request without a packet). */
static void
test_packet_execute(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	static struct attrs acts;
	uint8_t out[128];

	assert_int_equal(fake_device_add("tdp-nd"), 0);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 2), 0);
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	execute_req(f, ifindex, &acts);
	assert_int_equal(transact(f, 0), 0);
	assert_int_equal(fake_wire_recv("tdp-nd", out, sizeof(out), WAIT_MS),
			 FAKE_FRAME_LEN);
	assert_memory_equal(out, fb_mac_dst, ETH_ALEN);
	assert_int_equal(dp_drops(ifindex, TAPDP_DROP_NOT_SPECIFIED), 0);
	execute_req(f, ifindex + 1000, &acts);
	assert_int_equal(transact(f, 0), -ENODEV);
	/* Actions the kernel would not run: EINVAL, the packet dropped
	 * (NOT_SPECIFIED, on the local port, port 1 being none). */
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_MAX + 1, 2);
	execute_req(f, ifindex, &acts);
	assert_int_equal(transact(f, 0), -EINVAL);
	assert_int_equal(dp_drops(ifindex, TAPDP_DROP_NOT_SPECIFIED), 1);
	attrs_init(&acts);
	msgbuf_put_u16(&acts.mb, OVS_ACTION_ATTR_OUTPUT, 2);
	execute_req(f, ifindex, &acts);
	assert_int_equal(transact(f, 0), -EINVAL);
	assert_int_equal(dp_drops(ifindex, TAPDP_DROP_NOT_SPECIFIED), 2);
	/* No packet: EINVAL, before there is one to drop. */
	req_start(f, FAMILY_ID_PACKET, 0, OVS_PACKET_CMD_EXECUTE, HDR);
	fake_frame_key(&f->req, OVS_PACKET_ATTR_KEY, 1, fb_mac_src);
	req_end(f);
	assert_int_equal(transact(f, 0), -EINVAL);
	assert_int_equal(dp_drops(ifindex, TAPDP_DROP_NOT_SPECIFIED), 2);
	assert_true(fake_wire_recv("tdp-nd", out, sizeof(out), 0) < 0);
}

/* Misses reach the port's pid, a client's socket, as ovs_packet MISS
 * messages; one the socket has no room for is lost. */
static void
test_upcall_to_socket(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	struct datapath *dp = dp_by_ifindex(net, ifindex);
	struct pollfd pfd = { .fd = f->peer, .events = POLLIN };
	uint8_t frame[FAKE_FRAME_LEN];
	const struct nlattr *a;
	struct dp_stats st;
	ssize_t n;

	assert_int_equal(fake_device_add("tdp-nd"), 0);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 1), 0);
	fake_wire_send("tdp-nd", frame, fake_frame(frame));
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	n = recv_rep(f);
	assert_true(n > 0);
	assert_int_equal(((struct nlmsghdr *)f->rep)->nlmsg_type,
			 FAMILY_ID_PACKET);
	assert_int_equal(rep_cmd(f), OVS_PACKET_CMD_MISS);
	assert_int_equal(rep_hdr(f)->dp_ifindex, ifindex);
	a = rep_attr(f, HDR, OVS_PACKET_ATTR_PACKET);
	assert_non_null(a);
	assert_memory_equal(attr_data(a), frame, sizeof(frame));
	assert_non_null(rep_attr(f, HDR, OVS_PACKET_ATTR_KEY));
	/* A receive buffer of one byte takes one datagram, then is full. */
	assert_int_equal(nlsock_setsockopt(f->sk, SOL_SOCKET, SO_RCVBUF, 1),
			 0);
	fake_wire_send("tdp-nd", frame, sizeof(frame));
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	fake_wire_send("tdp-nd", frame, sizeof(frame));
	for (int ms = 0; ms < WAIT_MS; ms++) {
		dp_get_stats(dp, &st);
		if (st.n_lost)
			break;
		poll(NULL, 0, 1);
	}
	assert_int_equal(st.n_lost, 1);
	assert_int_equal(st.n_missed, 3);
	assert_true(recv_rep(f) > 0);
	assert_true(recv_rep(f) < 0);
}

/* The tunnel of the tests' tunnel keys (10.0.0.2, TTL 64, key 7), in the
 * order the kernel writes its attributes. */
static void
put_tunnel(struct msgbuf *mb)
{
	struct nlattr *t = msgbuf_nest_start(mb, OVS_KEY_ATTR_TUNNEL);

	msgbuf_put_u64(mb, OVS_TUNNEL_KEY_ATTR_ID, htobe64(7));
	msgbuf_put_u32(mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST, htonl(0x0a000002));
	msgbuf_put_u8(mb, OVS_TUNNEL_KEY_ATTR_TTL, 64);
	msgbuf_nest_end(mb, t);
}

/* fake_frame_key()'s key from port 1, come by that tunnel. */
static void
tunnel_frame_key(struct msgbuf *mb, uint16_t type)
{
	struct nlattr *k = msgbuf_nest_start(mb, type);

	put_tunnel(mb);
	fake_frame_key_put(mb, 1, fb_mac_src);
	msgbuf_nest_end(mb, k);
}

/* Whether the key attribute k holds put_tunnel()'s tunnel. */
static bool
has_tunnel(const struct nlattr *k)
{
	static struct attrs want;
	const struct nlattr *t;

	attrs_init(&want);
	put_tunnel(&want.mb);
	assert_non_null(k);
	t = attrs_find(attr_data(k), attr_len(k), OVS_KEY_ATTR_TUNNEL);
	return t && t->nla_len == attrs_len(&want) &&
	       !memcmp(t, attrs_data(&want), attrs_len(&want));
}

/* Flows keyed on a tunnel, found again by it; a packet executed with one
 * carries it into its upcall. */
static void
test_tunnel_key(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	uint8_t frame[FAKE_FRAME_LEN];
	const struct nlattr *a;
	struct nlattr *acts, *u;
	size_t len = fake_frame(frame);

	ovs_req(f, FAMILY_ID_FLOW, NLM_F_ECHO, OVS_FLOW_CMD_NEW, ifindex);
	tunnel_frame_key(&f->req, OVS_FLOW_ATTR_KEY);
	put_output(&f->req, 2);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	assert_true(has_tunnel(rep_attr(f, HDR, OVS_FLOW_ATTR_KEY)));
	a = rep_attr(f, HDR, OVS_FLOW_ATTR_MASK);
	assert_non_null(attrs_find(attr_data(a), attr_len(a),
				   OVS_KEY_ATTR_TUNNEL));
	ovs_req(f, FAMILY_ID_FLOW, 0, OVS_FLOW_CMD_GET, ifindex);
	tunnel_frame_key(&f->req, OVS_FLOW_ATTR_KEY);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_FLOW), 0);
	assert_true(has_tunnel(rep_attr(f, HDR, OVS_FLOW_ATTR_KEY)));
	/* The same key without the tunnel is another flow. */
	flow_req(f, ifindex, 0, OVS_FLOW_CMD_GET, fb_mac_src, 0);
	assert_int_equal(transact(f, 0), -ENOENT);

	ovs_req(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE,
		ifindex);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, len, frame);
	tunnel_frame_key(&f->req, OVS_PACKET_ATTR_KEY);
	acts = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_ACTIONS);
	u = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&f->req, OVS_USERSPACE_ATTR_PID, portid(f));
	msgbuf_nest_end(&f->req, u);
	msgbuf_nest_end(&f->req, acts);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_PACKET), 0);
	assert_int_equal(rep_cmd(f), OVS_PACKET_CMD_ACTION);
	assert_true(has_tunnel(rep_attr(f, HDR, OVS_PACKET_ATTR_KEY)));
	assert_int_equal(rep_error(f, recv_rep(f)), 0);
}

static void
put_band(struct msgbuf *mb, uint32_t rate)
{
	struct nlattr *bands = msgbuf_nest_start(mb, OVS_METER_ATTR_BANDS);
	struct nlattr *band = msgbuf_nest_start(mb, OVS_BAND_ATTR_UNSPEC);

	msgbuf_put_u32(mb, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP);
	msgbuf_put_u32(mb, OVS_BAND_ATTR_RATE, rate);
	msgbuf_put_u32(mb, OVS_BAND_ATTR_BURST, rate);
	msgbuf_nest_end(mb, band);
	msgbuf_nest_end(mb, bands);
}

static void
meter_req(struct fx *f, int ifindex, uint8_t cmd, uint32_t id)
{
	ovs_req(f, FAMILY_ID_METER, 0, cmd, ifindex);
	msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, id);
	if (cmd == OVS_METER_CMD_SET)
		put_band(&f->req, 1000);
	req_end(f);
}

static void
test_meter(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");

	ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_FEATURES, ifindex);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	assert_int_equal(rep_cmd(f), OVS_METER_CMD_FEATURES);
	assert_true(rep_u32(f, OVS_METER_ATTR_MAX_METERS) > 0);
	assert_int_equal(rep_u32(f, OVS_METER_ATTR_MAX_BANDS), 1);
	assert_non_null(rep_attr(f, HDR, OVS_METER_ATTR_BANDS));
	meter_req(f, ifindex, OVS_METER_CMD_SET, 5);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	assert_int_equal(rep_cmd(f), OVS_METER_CMD_SET);
	assert_int_equal(rep_u32(f, OVS_METER_ATTR_ID), 5);
	meter_req(f, ifindex, OVS_METER_CMD_GET, 5);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	assert_int_equal(rep_u32(f, OVS_METER_ATTR_ID), 5);
	assert_non_null(rep_attr(f, HDR, OVS_METER_ATTR_STATS));
	assert_non_null(rep_attr(f, HDR, OVS_METER_ATTR_BANDS));
	meter_req(f, ifindex, OVS_METER_CMD_GET, 6);
	assert_int_equal(transact(f, 0), -ENOENT);
	/* Two ids on one slot of the table collide. */
	meter_req(f, ifindex, OVS_METER_CMD_SET, 5 + METER_SLOTS_MIN);
	assert_int_equal(transact(f, 0), -EBUSY);
	/* DEL answers with the meter's stats; a missing one, without. */
	meter_req(f, ifindex, OVS_METER_CMD_DEL, 5);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	assert_int_equal(rep_cmd(f), OVS_METER_CMD_DEL);
	assert_non_null(rep_attr(f, HDR, OVS_METER_ATTR_STATS));
	meter_req(f, ifindex, OVS_METER_CMD_DEL, 5);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	assert_null(rep_attr(f, HDR, OVS_METER_ATTR_STATS));
	meter_req(f, ifindex, OVS_METER_CMD_GET, 5);
	assert_int_equal(transact(f, 0), -ENOENT);
	meter_req(f, ifindex + 1000, OVS_METER_CMD_GET, 5);
	assert_int_equal(transact(f, 0), -ENODEV);
}

/* The reply's meter stats, and its first band's. */
static struct ovs_flow_stats
rep_meter_stats(struct fx *f, struct ovs_flow_stats *band)
{
	const struct nlattr *a = rep_attr(f, HDR, OVS_METER_ATTR_STATS);
	const struct nlattr *bands = rep_attr(f, HDR, OVS_METER_ATTR_BANDS);
	const struct nlattr *tb[OVS_BAND_ATTR_MAX + 1];
	struct ovs_flow_stats s;

	assert_non_null(a);
	assert_non_null(bands);
	assert_int_equal(attr_len(a), sizeof(s));
	memcpy(&s, attr_data(a), sizeof(s));
	assert_int_equal(attr_parse_nested(attr_data(bands), NULL,
					   OVS_BAND_ATTR_MAX, tb, NULL), 0);
	assert_non_null(tb[OVS_BAND_ATTR_STATS]);
	memcpy(band, attr_data(tb[OVS_BAND_ATTR_STATS]), sizeof(*band));
	return s;
}

/* SET of meter 7 (1000 packets/s, a bucket of 2), with CLEAR or with
 * STATS of n_packets packets when asked. */
static void
meter_set(struct fx *f, int ifindex, bool clear, uint64_t n_packets)
{
	struct ovs_flow_stats s = { .n_packets = n_packets };
	struct nlattr *bands, *band;

	ovs_req(f, FAMILY_ID_METER, 0, OVS_METER_CMD_SET, ifindex);
	msgbuf_put_u32(&f->req, OVS_METER_ATTR_ID, 7);
	if (clear)
		msgbuf_put(&f->req, OVS_METER_ATTR_CLEAR, 0, NULL);
	if (n_packets)
		msgbuf_put(&f->req, OVS_METER_ATTR_STATS, sizeof(s), &s);
	bands = msgbuf_nest_start(&f->req, OVS_METER_ATTR_BANDS);
	band = msgbuf_nest_start(&f->req, OVS_BAND_ATTR_UNSPEC);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_RATE, 1000);
	msgbuf_put_u32(&f->req, OVS_BAND_ATTR_BURST, 2);
	msgbuf_nest_end(&f->req, band);
	msgbuf_nest_end(&f->req, bands);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
}

/* What packets did to a meter, as GET shows it (the time of the last,
 * the drops its band counted); SET of a meter that exists answers with
 * the old one's stats unless the old one was set with CLEAR, and the new
 * one starts from the STATS it is given, its band from zero. */
static void
test_meter_stats(void **state)
{
	struct fx *f = *state;
	int ifindex = dp_new(f, "tdp0");
	struct meter_table *t = dp_meters(dp_at(net, 0));
	struct ovs_flow_stats s, band;

	clock_fake_set(5000);
	meter_set(f, ifindex, false, 0);
	clock_fake_set(6000);
	rcu_read_lock();
	assert_false(meter_execute(t, 7, 100));
	assert_false(meter_execute(t, 7, 100));
	assert_true(meter_execute(t, 7, 100));
	rcu_read_unlock();
	meter_req(f, ifindex, OVS_METER_CMD_GET, 7);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	s = rep_meter_stats(f, &band);
	assert_int_equal(s.n_packets, 3);
	assert_int_equal(s.n_bytes, 300);
	assert_int_equal(band.n_packets, 1);
	assert_int_equal(band.n_bytes, 100);
	assert_int_equal(attr_get_u64(rep_attr(f, HDR, OVS_METER_ATTR_USED)),
			 6000);

	/* Replaced with CLEAR: the answer has the old stats. */
	meter_set(f, ifindex, true, 0);
	s = rep_meter_stats(f, &band);
	assert_int_equal(s.n_packets, 3);
	assert_int_equal(band.n_packets, 1);
	meter_req(f, ifindex, OVS_METER_CMD_GET, 7);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	s = rep_meter_stats(f, &band);
	assert_int_equal(s.n_packets, 0);
	assert_int_equal(band.n_packets, 0);
	/* Replacing a meter set with CLEAR: the answer has only the id. The
	 * new one starts from the STATS given. */
	meter_set(f, ifindex, false, 40);
	assert_int_equal(rep_u32(f, OVS_METER_ATTR_ID), 7);
	assert_null(rep_attr(f, HDR, OVS_METER_ATTR_STATS));
	meter_req(f, ifindex, OVS_METER_CMD_GET, 7);
	assert_int_equal(transact(f, FAMILY_ID_METER), 0);
	s = rep_meter_stats(f, &band);
	assert_int_equal(s.n_packets, 40);
	assert_int_equal(band.n_packets, 0);
	clock_fake_set(0);
}

static void
ct_limit_req(struct fx *f, uint8_t cmd, const struct ovs_zone_limit *zl,
	     size_t n)
{
	req_start(f, FAMILY_ID_CT_LIMIT, 0, cmd, HDR);
	if (n)
		msgbuf_put(&f->req, OVS_CT_LIMIT_ATTR_ZONE_LIMIT, n * sizeof(*zl), zl);
	req_end(f);
}

/* The zone limits of the reply, n of them. */
static const struct ovs_zone_limit *
rep_limits(struct fx *f, size_t n)
{
	const struct nlattr *a = rep_attr(f, HDR,
					  OVS_CT_LIMIT_ATTR_ZONE_LIMIT);

	assert_non_null(a);
	assert_int_equal(attr_len(a), n * sizeof(struct ovs_zone_limit));
	return attr_data(a);
}

static void
test_ct_limit(void **state)
{
	struct fx *f = *state;
	struct ovs_zone_limit set[2] = {
		{ .zone_id = OVS_ZONE_LIMIT_DEFAULT_ZONE, .limit = 10 },
		{ .zone_id = 5, .limit = 3 },
	};
	struct ovs_zone_limit ask = { .zone_id = 6 };
	const struct ovs_zone_limit *got;

	/* Before any tracker: no limit, no connection, and reading makes
	 * none (anyone may read; a tracker has a thread). */
	ct_limit_req(f, OVS_CT_LIMIT_CMD_GET, &ask, 1);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	got = rep_limits(f, 1);
	assert_int_equal(got[0].zone_id, 6);
	assert_int_equal(got[0].limit, 0);
	assert_int_equal(got[0].count, 0);
	assert_null(dp_net_conntrack_made(net));
	ct_limit_req(f, OVS_CT_LIMIT_CMD_SET, set, 2);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	assert_int_equal(rep_cmd(f), OVS_CT_LIMIT_CMD_SET);
	/* All: the default, then each zone with its own. */
	ct_limit_req(f, OVS_CT_LIMIT_CMD_GET, NULL, 0);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	got = rep_limits(f, 2);
	assert_int_equal(got[0].zone_id, OVS_ZONE_LIMIT_DEFAULT_ZONE);
	assert_int_equal(got[0].limit, 10);
	assert_int_equal(got[1].zone_id, 5);
	assert_int_equal(got[1].limit, 3);
	assert_int_equal(got[1].count, 0);
	/* A zone without its own limit has the default. */
	ct_limit_req(f, OVS_CT_LIMIT_CMD_GET, &ask, 1);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	got = rep_limits(f, 1);
	assert_int_equal(got[0].zone_id, 6);
	assert_int_equal(got[0].limit, 10);
	/* DEL: zone 5 back to the default, the default to none. */
	ct_limit_req(f, OVS_CT_LIMIT_CMD_DEL, set, 2);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	ct_limit_req(f, OVS_CT_LIMIT_CMD_GET, NULL, 0);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	got = rep_limits(f, 1);
	assert_int_equal(got[0].limit, 0);
	/* SET and DEL need the nest. */
	ct_limit_req(f, OVS_CT_LIMIT_CMD_SET, NULL, 0);
	assert_int_equal(transact(f, 0), -EINVAL);
	ct_limit_req(f, OVS_CT_LIMIT_CMD_DEL, NULL, 0);
	assert_int_equal(transact(f, 0), -EINVAL);
}

/* A message nlh of one of tapdpd's own families (no family header):
 * checks its type, cmd and version, and parses it into tb. */
static void
own_msg_parse(const struct nlmsghdr *nlh, uint16_t type, uint8_t cmd,
	      uint8_t version, uint16_t maxattr, const struct nlattr **tb)
{
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);

	assert_int_equal(nlh->nlmsg_type, type);
	assert_int_equal(gh->cmd, cmd);
	assert_int_equal(gh->version, version);
	assert_int_equal(attr_parse((const char *)gh + GENL_HDRLEN,
				    nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				    NULL, maxattr, tb, NULL), 0);
}

/* The tapdp_drop message nlh, parsed into tb. */
static void
drop_msg_parse(const struct nlmsghdr *nlh, uint8_t cmd,
	       const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1])
{
	own_msg_parse(nlh, FAMILY_ID_DROP, cmd, TAPDP_DROP_VERSION,
		      TAPDP_DROP_ATTR_MAX, tb);
}

/* The packets of reason in a TAPDP_DROP_ATTR_COUNTS nest (0: not
 * listed); every entry's name is its reason's. */
static uint64_t
drop_count_of(const struct nlattr *counts, uint32_t reason)
{
	const struct nlattr *c, *tb[TAPDP_DROP_ATTR_MAX + 1];
	uint64_t n = 0;
	int rem;

	attr_for_each(c, attr_data(counts), attr_len(counts), rem) {
		assert_int_equal(attr_type(c), TAPDP_DROP_ATTR_COUNT);
		assert_int_equal(attr_parse_nested(c, NULL, TAPDP_DROP_ATTR_MAX,
						   tb, NULL), 0);
		assert_string_equal(
			attr_data(tb[TAPDP_DROP_ATTR_REASON_NAME]),
			drop_reason_name(attr_get_u32(
				tb[TAPDP_DROP_ATTR_REASON])));
		assert_true(attr_get_u64(tb[TAPDP_DROP_ATTR_PACKETS]) > 0);
		if (attr_get_u32(tb[TAPDP_DROP_ATTR_REASON]) == reason)
			n = attr_get_u64(tb[TAPDP_DROP_ATTR_PACKETS]);
	}
	return n;
}

struct drop_dump {
	int n_dp, n_port;
	uint64_t dp_explicit, port1_explicit, local_counts_len;
};

static void
on_drop_msg(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1], *counts;
	struct drop_dump *d = arg;

	drop_msg_parse(nlh, TAPDP_DROP_CMD_GET, tb);
	assert_string_equal(attr_data(tb[TAPDP_DROP_ATTR_DP_NAME]), "tdp0");
	counts = tb[TAPDP_DROP_ATTR_COUNTS];
	assert_non_null(counts);
	if (!tb[TAPDP_DROP_ATTR_PORT_NO]) {
		d->n_dp++;
		d->dp_explicit = drop_count_of(counts, TAPDP_DROP_OVS_EXPLICIT);
		return;
	}
	d->n_port++;
	if (attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]) == 1) {
		assert_string_equal(attr_data(tb[TAPDP_DROP_ATTR_PORT_NAME]),
				    "tdp-nd");
		d->port1_explicit = drop_count_of(counts,
						  TAPDP_DROP_OVS_EXPLICIT);
	} else {
		d->local_counts_len = attr_len(counts);
	}
}

/* The event of a drop: the first bytes of the packet only. */
static void
test_drop_event(void **state)
{
	static const uint8_t ufid[16] = { 1, 2, 3, [15] = 16 };
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	uint8_t pkt[300], mem[512];
	struct dp_packet_event ev = {
		.kind = DP_PACKET_DROP,
		.dp_ifindex = 12, .port_no = 3,
		.reason = TAPDP_DROP_OVS_CONNTRACK,
		.ufid = ufid, .ufid_len = 16, .data = pkt, .len = sizeof(pkt),
	};
	struct msgbuf mb;

	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_int_equal(drop_family_event(&mb, &ev), 0);
	drop_msg_parse((const void *)mb.buf, TAPDP_DROP_CMD_EVENT, tb);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_DP_IFINDEX]), 12);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]), 3);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_REASON]), 0x3000a);
	assert_string_equal(attr_data(tb[TAPDP_DROP_ATTR_REASON_NAME]),
			    "OVS_DROP_CONNTRACK");
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_UFID]), 16);
	assert_memory_equal(attr_data(tb[TAPDP_DROP_ATTR_UFID]), ufid, 16);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PACKET_LEN]), 300);
	/* The first bytes only. */
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_PACKET]),
			 TAPDP_DROP_EVENT_SNAPLEN);
	assert_memory_equal(attr_data(tb[TAPDP_DROP_ATTR_PACKET]), pkt,
			    TAPDP_DROP_EVENT_SNAPLEN);
	/* No flow, a short packet: no UFID, the whole packet. */
	ev.ufid = NULL;
	ev.len = 20;
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_int_equal(drop_family_event(&mb, &ev), 0);
	drop_msg_parse((const void *)mb.buf, TAPDP_DROP_CMD_EVENT, tb);
	assert_null(tb[TAPDP_DROP_ATTR_UFID]);
	assert_int_equal(attr_len(tb[TAPDP_DROP_ATTR_PACKET]), 20);
	/* No room: nothing left behind. */
	msgbuf_init(&mb, mem, 64);
	assert_int_equal(drop_family_event(&mb, &ev), -EMSGSIZE);
	assert_int_equal(mb.len, 0);
}

/* tapdp_drop: anyone dumps the counts (per datapath, then per port: the
 * one a packet came in by); only CAP_NET_ADMIN joins the events, which a
 * member gets for each drop, before the ACK of the request that caused
 * it. */
static void
test_drop_family(void **state)
{
	struct fx *f = *state;
	struct fx *user = fx_new(net, NETLINK_GENERIC, false);
	struct fx *admin2 = fx_new(net, NETLINK_GENERIC, true);
	int ifindex = dp_new(f, "tdp0");
	const struct nlattr *tb[TAPDP_DROP_ATTR_MAX + 1];
	uint8_t frame[FAKE_FRAME_LEN];
	struct drop_dump d = { 0 };
	static struct attrs acts;
	ssize_t n;

	assert_int_equal(fake_device_add("tdp-nd"), 0);
	assert_int_equal(vport_new(f, ifindex, "tdp-nd",
				   OVS_VPORT_TYPE_NETDEV, 1), 0);
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_DROP, 0);
	for (int i = 0; i < 3; i++) {
		execute_req(f, ifindex, &acts);
		assert_int_equal(transact(f, 0), 0);
	}
	req_start(user, FAMILY_ID_DROP, NLM_F_DUMP, TAPDP_DROP_CMD_GET, 0);
	req_end(user);
	assert_true(dump_all(user, on_drop_msg, &d) >= 1);
	assert_int_equal(d.n_dp, 1);
	assert_int_equal(d.n_port, 2);		/* local and 1 */
	assert_int_equal(d.dp_explicit, 3);
	assert_int_equal(d.port1_explicit, 3);
	assert_int_equal(d.local_counts_len, 0);

	/* The events. */
	assert_int_equal(genl_join_check(user->sk, GROUP_DROP), -EPERM);
	assert_int_equal(genl_join_check(f->sk, GROUP_DROP), 0);
	assert_int_equal(genl_join_check(user->sk, GROUP_DATAPATH), 0);
	assert_false(nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP));
	assert_int_equal(nlsock_setsockopt(f->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP, GROUP_DROP),
			 0);
	assert_true(nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP));
	attrs_init(&acts);
	msgbuf_put_u32(&acts.mb, TAPDP_ACTION_ATTR_DROP, 42);
	execute_req(f, ifindex, &acts);
	send_req(f);
	n = recv_rep(f);
	assert_true(n > 0);
	drop_msg_parse((const void *)f->rep, TAPDP_DROP_CMD_EVENT, tb);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_DP_IFINDEX]),
			 ifindex);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PORT_NO]), 1);
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_REASON]),
			 TAPDP_DROP_OVS_EXPLICIT_WITH_ERROR);
	assert_null(tb[TAPDP_DROP_ATTR_UFID]);	/* executed: no flow */
	assert_int_equal(attr_get_u32(tb[TAPDP_DROP_ATTR_PACKET_LEN]),
			 FAKE_FRAME_LEN);
	assert_memory_equal(attr_data(tb[TAPDP_DROP_ATTR_PACKET]), frame,
			    fake_frame(frame));
	assert_int_equal(rep_error(f, recv_rep(f)), 0);
	/* One membership however often joined; it goes with the socket. */
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DROP);
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
			  GROUP_DROP);
	assert_false(nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP));
	nlsock_setsockopt(admin2->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DROP);
	assert_true(nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP));
	fx_free(admin2);
	assert_false(nlsock_has_listeners(NETLINK_GENERIC, GROUP_DROP));
	fx_free(user);
}

/* Every changing command needs CAP_NET_ADMIN; reads do not. */
static void
test_changes_need_net_admin(void **state)
{
	static const struct {
		uint16_t family;
		uint8_t cmd;
	} changes[] = {
		{ FAMILY_ID_DATAPATH, OVS_DP_CMD_SET },
		{ FAMILY_ID_DATAPATH, OVS_DP_CMD_DEL },
		{ FAMILY_ID_VPORT, OVS_VPORT_CMD_NEW },
		{ FAMILY_ID_VPORT, OVS_VPORT_CMD_SET },
		{ FAMILY_ID_VPORT, OVS_VPORT_CMD_DEL },
		{ FAMILY_ID_FLOW, OVS_FLOW_CMD_NEW },
		{ FAMILY_ID_FLOW, OVS_FLOW_CMD_SET },
		{ FAMILY_ID_FLOW, OVS_FLOW_CMD_DEL },
		{ FAMILY_ID_PACKET, OVS_PACKET_CMD_EXECUTE },
		{ FAMILY_ID_METER, OVS_METER_CMD_SET },
		{ FAMILY_ID_METER, OVS_METER_CMD_DEL },
		{ FAMILY_ID_CT_LIMIT, OVS_CT_LIMIT_CMD_SET },
		{ FAMILY_ID_CT_LIMIT, OVS_CT_LIMIT_CMD_DEL },
	};
	struct fx *admin = *state;
	struct fx *f = fx_new(net, NETLINK_GENERIC, false);
	int ifindex = dp_new(admin, "tdp0");

	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		ovs_req(f, changes[i].family, 0, changes[i].cmd, ifindex);
		req_end(f);
		assert_int_equal(transact(f, 0), -EPERM);
	}
	ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, ifindex);
	req_end(f);
	assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
	ct_limit_req(f, OVS_CT_LIMIT_CMD_GET, NULL, 0);
	assert_int_equal(transact(f, FAMILY_ID_CT_LIMIT), 0);
	fx_free(f);
}

/* The families registered again as profile p (NULL: the default) serves
 * them. */
static void
serve_as(const struct kernel_profile *p)
{
	nl_serve_end();
	kernel_profile_use(p);
	nl_serve();
}

/* OVS_PACKET_CMD_EXECUTE (ACKed) of a frame with userspace(pid=f's),
 * its nest carrying an attribute of type extra too when not 0, and
 * OVS_PACKET_ATTR_UPCALL_PID naming g's portid. */
static void
execute_to(struct fx *f, int ifindex, struct fx *g, uint16_t extra)
{
	uint8_t frame[FAKE_FRAME_LEN];
	size_t len = fake_frame(frame);
	struct nlattr *acts, *u;

	ovs_req(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE,
		ifindex);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, len, frame);
	fake_frame_key(&f->req, OVS_PACKET_ATTR_KEY, 0, fb_mac_src);
	acts = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_ACTIONS);
	u = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_USERSPACE);
	msgbuf_put_u32(&f->req, OVS_USERSPACE_ATTR_PID, portid(f));
	if (extra)
		msgbuf_put_u32(&f->req, extra, 1);
	msgbuf_nest_end(&f->req, u);
	msgbuf_nest_end(&f->req, acts);
	msgbuf_put_u32(&f->req, TAPDP_PACKET_ATTR_UPCALL_PID, portid(g));
	req_end(f);
}

/* What the datapath, vport and packet families accept and answer under
 * each kernel profile, as each release did (docs/COMPATIBILITY.md,
 * "Kernel profiles"). Per profile, oldest first (5.4 5.10 5.15 6.1 6.6
 * 6.12 6.18 7.2): 1 where that release knew the item. */
static void
test_kernel_profiles(void **state)
{
	static const char masks_cache[] = "01111111";	/* 5.9 */
	static const char per_cpu[] = "00111111";	/* 5.15 */
	static const char per_cpu_reply[] = "00011111";	/* 6.1 */
	static const char upcall_stats[] = "00001111";	/* 6.2 */
	static const char chosen_ifindex[] = "00011111";	/* 6.1 */
	static const char exec_upcall_pid[] = "00000011";	/* 6.16 */
	static const char userspace_strict[] = "00000011";	/* 6.18 */
	const struct kernel_profile *p;
	uint32_t pid;

	for (unsigned i = 0; (p = kernel_profile_at(i)); i++) {
		struct fx *f, *g;
		int ifindex, err;
		ssize_t n;

		assert_true(i < sizeof(masks_cache) - 1);
		serve_as(p);
		f = fx_new(net, NETLINK_GENERIC, true);
		pid = portid(f);
		ifindex = dp_new(f, "kp0");
		/* An invalid size (not a power of two): refused where the
		 * attribute is known, ignored past 5.4's maxattr. */
		ovs_req(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_SET,
			ifindex);
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_MASKS_CACHE_SIZE, 3);
		req_end(f);
		assert_int_equal(transact(f, FAMILY_ID_DATAPATH),
				 masks_cache[i] == '1' ? -EINVAL : 0);
		ovs_req(f, FAMILY_ID_DATAPATH, 0, OVS_DP_CMD_GET, ifindex);
		req_end(f);
		assert_int_equal(transact(f, FAMILY_ID_DATAPATH), 0);
		assert_int_equal(!!rep_attr(f, HDR, OVS_DP_ATTR_MASKS_CACHE_SIZE),
				 masks_cache[i] == '1');
		ovs_req(f, FAMILY_ID_DATAPATH, NLM_F_ECHO, OVS_DP_CMD_SET,
			ifindex);
		msgbuf_put_u32(&f->req, OVS_DP_ATTR_USER_FEATURES,
			       OVS_DP_F_DISPATCH_UPCALL_PER_CPU);
		msgbuf_put(&f->req, OVS_DP_ATTR_PER_CPU_PIDS, sizeof(pid),
			   &pid);
		req_end(f);
		err = transact(f, FAMILY_ID_DATAPATH);
		assert_int_equal(err, per_cpu[i] == '1' ? 0 : -EOPNOTSUPP);
		if (!err)
			assert_int_equal(
				!!rep_attr(f, HDR, OVS_DP_ATTR_PER_CPU_PIDS),
				per_cpu_reply[i] == '1');
		ovs_req(f, FAMILY_ID_VPORT, 0, OVS_VPORT_CMD_GET, ifindex);
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_PORT_NO, 0);
		req_end(f);
		assert_int_equal(transact(f, FAMILY_ID_VPORT), 0);
		assert_int_equal(
			!!rep_attr(f, HDR, TAPDP_VPORT_ATTR_UPCALL_STATS),
			upcall_stats[i] == '1');
		ovs_req(f, FAMILY_ID_VPORT, NLM_F_ECHO, OVS_VPORT_CMD_NEW,
			ifindex);
		msgbuf_put(&f->req, OVS_VPORT_ATTR_NAME, 4, "kpi");
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_TYPE,
			       OVS_VPORT_TYPE_INTERNAL);
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_UPCALL_PID, portid(f));
		msgbuf_put_u32(&f->req, OVS_VPORT_ATTR_IFINDEX, 0x7ffffff0);
		req_end(f);
		assert_int_equal(transact(f, FAMILY_ID_VPORT),
				 chosen_ifindex[i] == '1' ? 0 : -EOPNOTSUPP);

		/* An execute's upcall: to OVS_PACKET_ATTR_UPCALL_PID where
		 * the release knew it, else to the action's pid. */
		g = fx_new(net, NETLINK_GENERIC, true);
		execute_to(f, ifindex, g, 0);
		send_req(f);
		n = recv_rep(exec_upcall_pid[i] == '1' ? g : f);
		assert_true(n > 0);
		assert_int_equal(rep_cmd(exec_upcall_pid[i] == '1' ? g : f),
				 OVS_PACKET_CMD_ACTION);
		assert_int_equal(rep_error(f, recv_rep(f)), 0);
		assert_int_equal(recv_rep(g), -1);
		assert_int_equal(recv_rep(f), -1);
		/* A userspace action's unknown attribute: ignored, then
		 * refused. */
		execute_to(f, ifindex, g, OVS_USERSPACE_ATTR_MAX + 1);
		send_req(f);
		if (userspace_strict[i] == '1') {
			assert_int_equal(rep_error(f, recv_rep(f)), -EINVAL);
		} else {
			n = recv_rep(exec_upcall_pid[i] == '1' ? g : f);
			assert_true(n > 0);
			assert_int_equal(rep_error(f, recv_rep(f)), 0);
		}
		assert_int_equal(recv_rep(g), -1);
		fx_free(g);
		fx_free(f);
		dp_destroy(dp_at(net, 0));
		rcu_barrier();
	}
	serve_as(NULL);
}

/* The tapdp_ctl message nlh (cmd), parsed into tb. */
static void
ctl_msg_parse(const struct nlmsghdr *nlh, uint8_t cmd,
	      const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1])
{
	own_msg_parse(nlh, FAMILY_ID_CTL, cmd, TAPDP_CTL_VERSION,
		      TAPDP_CTL_ATTR_MAX, tb);
}

/* The entries of table name (of datapath dp, NULL: of none) in a
 * TAPDP_CTL_ATTR_TABLES nest; -1 when it is not listed. */
static int64_t
ctl_table_entries(const struct nlattr *tables, const char *name,
		  const char *dp)
{
	const struct nlattr *t, *tb[TAPDP_CTL_ATTR_MAX + 1];
	int rem;

	attr_for_each(t, attr_data(tables), attr_len(tables), rem) {
		assert_int_equal(attr_type(t), TAPDP_CTL_ATTR_TABLE);
		assert_int_equal(attr_parse_nested(t, NULL, TAPDP_CTL_ATTR_MAX,
						   tb, NULL), 0);
		if (strcmp(attr_data(tb[TAPDP_CTL_ATTR_NAME]), name) ||
		    !dp != !tb[TAPDP_CTL_ATTR_DP_NAME] ||
		    (dp && strcmp(attr_data(tb[TAPDP_CTL_ATTR_DP_NAME]), dp)))
			continue;
		return attr_get_u64(tb[TAPDP_CTL_ATTR_ENTRIES]);
	}
	return -1;
}

/* The pools the BUFFERS list names, in order, each with every buffer it
 * made free (nothing is being handled), the frames' of their size. */
static void
ctl_buffers_check(const struct nlattr *list)
{
	static const char *const names[] = { "frame", "transmit", "upcall" };
	const struct nlattr *b, *tb[TAPDP_CTL_ATTR_MAX + 1];
	unsigned n = 0;
	int rem;

	assert_non_null(list);
	attr_for_each(b, attr_data(list), attr_len(list), rem) {
		assert_int_equal(attr_type(b), TAPDP_CTL_ATTR_BUFFER);
		assert_true(n < 3);
		assert_int_equal(attr_parse_nested(b, NULL, TAPDP_CTL_ATTR_MAX,
						   tb, NULL), 0);
		assert_string_equal(attr_data(tb[TAPDP_CTL_ATTR_NAME]),
				    names[n]);
		if (n == 0)
			assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_SIZE]),
					 FRAME_BUF_SIZE);
		else
			assert_true(attr_get_u32(tb[TAPDP_CTL_ATTR_SIZE]) > 0);
		assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_FREE]),
				 attr_get_u32(tb[TAPDP_CTL_ATTR_MADE]));
		n++;
	}
	assert_int_equal(n, 3);
}

struct ctl_clients {
	int n;
	uint32_t admin_portid, user_portid;
	bool admin_seen, user_seen;
};

static void
on_ctl_client(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];
	struct ctl_clients *c = arg;
	uint32_t portid;

	ctl_msg_parse(nlh, TAPDP_CTL_CMD_CLIENTS, tb);
	c->n++;
	/* The fixtures' sockets say pid 4242 opened them: no such comm. */
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_CLIENT_PID]), 4242);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PROTOCOL]),
			 NETLINK_GENERIC);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_RCVBUF]), 212992);
	portid = attr_get_u32(tb[TAPDP_CTL_ATTR_PORTID]);
	if (portid == c->admin_portid) {
		c->admin_seen = true;
		assert_int_equal(attr_len(tb[TAPDP_CTL_ATTR_GROUPS]), 8);
		assert_int_equal(((const uint32_t *)attr_data(
					 tb[TAPDP_CTL_ATTR_GROUPS]))[0],
				 GROUP_DATAPATH);
		assert_int_equal(((const uint32_t *)attr_data(
					 tb[TAPDP_CTL_ATTR_GROUPS]))[1],
				 GROUP_DROP);
	} else if (portid == c->user_portid) {
		c->user_seen = true;
		assert_int_equal(attr_len(tb[TAPDP_CTL_ATTR_GROUPS]), 0);
	}
}

struct ctl_threads {
	int n;
	bool self_seen;
};

static void
on_ctl_thread(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];
	struct ctl_threads *t = arg;
	char name[16];

	ctl_msg_parse(nlh, TAPDP_CTL_CMD_THREADS, tb);
	t->n++;
	assert_non_null(tb[TAPDP_CTL_ATTR_CPU_MS]);
	if (attr_get_u32(tb[TAPDP_CTL_ATTR_TID]) == (uint32_t)gettid()) {
		pthread_getname_np(pthread_self(), name, sizeof(name));
		assert_string_equal(attr_data(tb[TAPDP_CTL_ATTR_NAME]), name);
		t->self_seen = true;
	}
}

/* tapdp_ctl: STATUS tells the daemon's figures and each table's entries,
 * to anyone; THREADS lists the threads; CLIENTS lists every socket with
 * its portid and groups, one message each, and forgets a socket once it
 * is closed. */
static void
test_ctl_family(void **state)
{
	struct fx *f = *state;
	struct fx *user = fx_new(net, NETLINK_GENERIC, false);
	struct fx *gone = fx_new(net, NETLINK_GENERIC, false);
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];
	struct ctl_threads threads = { 0 };
	struct ctl_clients c = { 0 };

	dp_new(f, "tctl0");
	req_start(user, FAMILY_ID_CTL, 0, TAPDP_CTL_CMD_STATUS, 0);
	req_end(user);
	assert_int_equal(transact(user, FAMILY_ID_CTL), 0);
	ctl_msg_parse((const void *)user->rep, TAPDP_CTL_CMD_STATUS, tb);
	assert_string_equal(attr_data(tb[TAPDP_CTL_ATTR_VERSION]),
			    TAPDP_VERSION);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PID]), getpid());
	assert_string_equal(attr_data(tb[TAPDP_CTL_ATTR_KERNEL]), "7.2");
	assert_true(attr_get_u64(tb[TAPDP_CTL_ATTR_RSS]) > 0);
	assert_true(attr_get_u64(tb[TAPDP_CTL_ATTR_HEAP]) > 0);
	assert_non_null(tb[TAPDP_CTL_ATTR_UPTIME_MS]);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_CLIENTS]), 3);
	assert_int_equal(ctl_table_entries(tb[TAPDP_CTL_ATTR_TABLES], "flows",
					   "tctl0"), 0);
	assert_int_equal(ctl_table_entries(tb[TAPDP_CTL_ATTR_TABLES], "masks",
					   "tctl0"), 0);
	assert_int_equal(ctl_table_entries(tb[TAPDP_CTL_ATTR_TABLES], "flows",
					   "nosuchdp"), -1);
	ctl_buffers_check(tb[TAPDP_CTL_ATTR_BUFFERS]);

	/* The threads: this one at least, under its own name. */
	req_start(user, FAMILY_ID_CTL, NLM_F_DUMP, TAPDP_CTL_CMD_THREADS, 0);
	req_end(user);
	assert_true(dump_all(user, on_ctl_thread, &threads) >= 1);
	assert_true(threads.n >= 1);
	assert_true(threads.self_seen);

	/* The clients: the closed one gone, the others with their groups. */
	fx_free(gone);
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DROP);
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			  GROUP_DATAPATH);
	c.admin_portid = portid(f);
	c.user_portid = portid(user);
	req_start(user, FAMILY_ID_CTL, NLM_F_DUMP, TAPDP_CTL_CMD_CLIENTS, 0);
	req_end(user);
	assert_true(dump_all(user, on_ctl_client, &c) >= 1);
	assert_int_equal(c.n, 2);
	assert_true(c.admin_seen);
	assert_true(c.user_seen);
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
			  GROUP_DROP);
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
			  GROUP_DATAPATH);
	fx_free(user);
}

/* The NLMSG event in f's next datagram, parsed into tb; the datagram it
 * carries must be len bytes at buf, to the daemon or to the client. */
static void
ctl_nlmsg_expect(struct fx *f, const struct nlattr **tb, uint32_t portid,
		 const void *buf, size_t len, bool to_client)
{
	assert_true(recv_rep(f) > 0);
	ctl_msg_parse((const void *)f->rep, TAPDP_CTL_CMD_NLMSG, tb);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_CLIENT_PID]), 4242);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PORTID]), portid);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PROTOCOL]),
			 NETLINK_GENERIC);
	assert_int_equal(tb[TAPDP_CTL_ATTR_TO_CLIENT] != NULL, to_client);
	assert_non_null(tb[TAPDP_CTL_ATTR_TIMESTAMP_NS]);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PACKET_LEN]), len);
	assert_int_equal(attr_len(tb[TAPDP_CTL_ATTR_PACKET]), len);
	assert_memory_equal(attr_data(tb[TAPDP_CTL_ATTR_PACKET]), buf, len);
}

/* tapdp_ctl's nlmon group: a client's request and the daemon's answer,
 * each an NLMSG event with the client's pid, portid and protocol, in
 * that order; the members' own datagrams are not told; joining needs
 * CAP_NET_ADMIN; a datagram is cut to the snap length, its length told
 * whole. */
static void
test_ctl_nlmon(void **state)
{
	struct fx *f = *state;
	struct fx *user = fx_new(net, NETLINK_GENERIC, false);
	const struct nlattr *tb[TAPDP_CTL_ATTR_MAX + 1];
	static char req[4096], rep[65536], big[TAPDP_CTL_NLMON_SNAPLEN + 100];
	static char mem[TAPDP_CTL_NLMON_SNAPLEN + 512];
	struct msgbuf mb;
	size_t req_len;
	ssize_t rep_len;

	assert_int_equal(genl_join_check(user->sk, GROUP_NLMON), -EPERM);
	assert_int_equal(nlsock_setsockopt(f->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP, GROUP_NLMON),
			 0);
	req_start(user, FAMILY_ID_CTL, 0, TAPDP_CTL_CMD_STATUS, 0);
	req_end(user);
	req_len = user->req.len;
	memcpy(req, user->req.buf, req_len);
	send_req(user);
	rep_len = recv_rep(user);
	assert_true(rep_len > 0);
	memcpy(rep, user->rep, rep_len);
	ctl_nlmsg_expect(f, tb, portid(user), req, req_len, false);
	ctl_nlmsg_expect(f, tb, portid(user), rep, rep_len, true);
	assert_true(recv_rep(f) < 0);

	/* The member's own request: its answer, and no event. */
	req_start(f, FAMILY_ID_CTL, 0, TAPDP_CTL_CMD_STATUS, 0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	ctl_msg_parse((const void *)f->rep, TAPDP_CTL_CMD_STATUS, tb);
	assert_true(recv_rep(f) < 0);

	/* Left: nothing told. */
	nlsock_setsockopt(f->sk, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
			  GROUP_NLMON);
	req_start(user, FAMILY_ID_CTL, 0, TAPDP_CTL_CMD_STATUS, 0);
	req_end(user);
	send_req(user);
	assert_true(recv_rep(user) > 0);
	assert_true(recv_rep(f) < 0);

	/* Cut to the snap length. */
	memset(big, 0x5a, sizeof(big));
	msgbuf_init(&mb, mem, sizeof(mem));
	assert_int_equal(ctl_family_nlmsg(&mb, user->sk, "ovs-vswitchd", big,
					  sizeof(big), false, 7),
			 0);
	ctl_msg_parse((const void *)mem, TAPDP_CTL_CMD_NLMSG, tb);
	assert_int_equal(attr_get_u32(tb[TAPDP_CTL_ATTR_PACKET_LEN]),
			 sizeof(big));
	assert_int_equal(attr_len(tb[TAPDP_CTL_ATTR_PACKET]),
			 TAPDP_CTL_NLMON_SNAPLEN);
	assert_string_equal(attr_data(tb[TAPDP_CTL_ATTR_COMM]),
			    "ovs-vswitchd");
	assert_int_equal(attr_get_u64(tb[TAPDP_CTL_ATTR_TIMESTAMP_NS]), 7);
	fx_free(user);
}

static int
group_setup(void **state)
{
	net = nl_serve_net();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_net_end(net);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_datapath, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vport, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vport_dump_parts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_dump_parts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_packet_execute, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tunnel_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_upcall_to_socket, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_meter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meter_stats, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ct_limit, setup, teardown),
		cmocka_unit_test(test_drop_event),
		cmocka_unit_test_setup_teardown(test_drop_family, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ctl_nlmon, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ctl_family, setup,
						teardown),
		cmocka_unit_test(test_kernel_profiles),
		cmocka_unit_test_setup_teardown(test_changes_need_net_admin,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("families", tests, group_setup,
					   group_teardown);
}
