/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a journal a dead daemon left (datapath/journal.h),
 * adopted and replayed. The input is the header's first bytes (JHDR_LEN),
 * then the records, which go where the journal keeps them (after the
 * header page). Replay runs with CAP_NET_ADMIN, so datapaths and ports are
 * made, on a port type whose devices are eventfds that never have a
 * frame, in a context of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <urcu.h>

#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/fuzz/nl-mutator.h"

/* magic, version, live slot, two slots {start, used}. */
#define JHDR_LEN	48
#define JPAGE		4096

static void
stub_close(struct vport *vport)
{
	for (unsigned i = 0; i < vport->n_rxq; i++)
		close(vport->rxq[i].fd);
}

static int
stub_open(struct vport *vport)
{
	static int ifindex = 1000000;

	for (unsigned i = 0; i < vport->n_rxq; i++) {
		vport->rxq[i].state = NULL;
		vport->rxq[i].fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (vport->rxq[i].fd < 0) {
			vport->n_rxq = i;
			stub_close(vport);
			return -ENOMEM;
		}
	}
	vport->fd = vport->rxq[0].fd;
	vport->ifindex = ifindex++;
	return 0;
}

static void
stub_recv(struct vport *vport, struct vport_rxq *q, uint8_t *scratch,
	  size_t size, unsigned max)
{
}

static int
stub_send(struct vport *vport, const void *frame, size_t len,
	  const struct virtio_net_hdr *vh, const struct tun_key *tun,
	  uint16_t l3_proto)
{
	return 0;
}

static const struct vport_ops stub_ops[] = {
	{ .type = OVS_VPORT_TYPE_INTERNAL, .name = "internal",
	  .open = stub_open, .close = stub_close, .recv_burst = stub_recv,
	  .send = stub_send },
	{ .type = OVS_VPORT_TYPE_NETDEV, .name = "netdev",
	  .open = stub_open, .close = stub_close, .recv_burst = stub_recv,
	  .send = stub_send },
};

static const struct vport_ops *
port_ops(enum ovs_vport_type type)
{
	return type == OVS_VPORT_TYPE_INTERNAL ? &stub_ops[0]
	       : type == OVS_VPORT_TYPE_NETDEV ? &stub_ops[1] : NULL;
}

static void
setup(void)
{
	rcu_register_thread();
	vport_set_rx_queues(1);
	nlsock_registry_init();
	nlctrl_register();
	families_register();
}

/* The header's bytes, then records: requests of the OVS families
 * (genlmsghdr and ovs_header, then attributes). */
static const struct nl_mut_layout layout = {
	.prefix = JHDR_LEN, .region = { NL_MUT_MSGS }, .hdr_len = 8,
	.max_type = 32, .max_cmd = 4, .malformed_one_in = 16,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t head = size < JHDR_LEN ? size : JHDR_LEN;
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.port_ops = port_ops,
		.conntrack_max = 1024,
	};
	size_t len = JPAGE + size - head;
	static bool ready;
	struct dp_net *net;
	int fd;

	if (!ready) {
		setup();
		ready = true;
	}
	fd = memfd_create("fuzz-journal", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, len) ||
	    pwrite(fd, data, head, 0) != (ssize_t)head ||
	    pwrite(fd, data + head, size - head, JPAGE) !=
		    (ssize_t)(size - head))
		abort();
	net = dp_net_new(&cfg);
	if (!net)
		abort();
	if (journal_open(net, fd))
		close(fd);
	else
		journal_replay(net);
	dp_net_destroy(net);
	rcu_barrier();
	return 0;
}
