/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: any bytes as an Ethernet frame, then the same bytes
 * less the first with the ethertype that byte picks, so every parser is
 * reached without waiting for the fuzzer to guess its type. Beyond the
 * sanitizers' out-of-bounds checks (each frame is a heap copy of its exact
 * size), it holds flow_extract() to its contract: only short frames and
 * NSH fail, offsets stay inside the frame, the padding and the caller's
 * metadata are left as they must be. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/openvswitch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow/extract.h"

static void
check_ofs(uint16_t ofs, size_t size)
{
	if (ofs != FLOW_OFS_NONE && ofs > size)
		abort();
}

static const uint16_t types[] = {
	ETH_P_IP, ETH_P_IPV6, ETH_P_ARP, ETH_P_MPLS_UC, ETH_P_8021Q,
	ETH_P_8021AD, ETH_P_NSH, 0x0030 /* an 802.3 length: LLC/SNAP */
};

static void
run(const uint8_t *data, size_t size)
{
	struct flow_layers l;
	struct flow_key key;
	int err;

	memset(&key, 0x5a, sizeof(key));
	err = flow_extract(data, size, &key, &l);
	if (err && (err != -EINVAL ||
	    (size >= 14 && key.eth_type != htons(ETH_P_NSH))))
		abort();
	if (key.priority != 0x5a5a5a5a || key.ct_labels[15] != 0x5a ||
	    key.mac_proto != FLOW_MAC_ETHERNET)
		abort();
	if (key.pad2 || key.pad3 || key.pad4)
		abort();
	if (key.mpls_labels_mask & ~7u || key.ip_frag > OVS_FRAG_TYPE_LATER)
		abort();
	check_ofs(l.l2_5, size);
	check_ofs(l.l3, size);
	check_ofs(l.l4, size);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t type;
	uint8_t *f;

	run(data, size);
	if (size < 1 + ETH_HLEN)
		return 0;
	f = malloc(size - 1);
	if (!f)
		abort();
	memcpy(f, data + 1, size - 1);
	type = htons(types[data[0] % (sizeof(types) / sizeof(types[0]))]);
	memcpy(f + 2 * ETH_ALEN, &type, sizeof(type));
	run(f, size - 1);
	free(f);
	return 0;
}
