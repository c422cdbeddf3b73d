/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the connection tracker on arbitrary frames. The first
 * two bytes split the input into a frame and a ct action's attributes;
 * each frame goes through the action, then through a plain lookup and a
 * NAT of existing connections. The table lives across inputs (small, so
 * it fills), so hostile packets meet the connections earlier ones made. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

#include "ct/action-netlink.h"
#include "ct/conntrack.h"
#include "flow/extract.h"

static struct conntrack *tracker;

static void
run(const uint8_t *frame, size_t flen, const struct ct_action *a,
    struct flow_key *key)
{
	uint8_t *buf = malloc(FRAME_HEADROOM + flen);
	struct packet pkt;

	/* The frame sits at the end of its buffer: any overread shows. */
	packet_init(&pkt, buf, FRAME_HEADROOM + flen, flen);
	memcpy(pkt.data, frame, flen);
	if (flow_extract(pkt.data, pkt.len, key, &pkt.layers) == 0) {
		pkt.key_valid = true;
		rcu_read_lock();
		conntrack_execute(tracker, &pkt, key, a);
		rcu_read_unlock();
		if (key->ct_state & ~0xff)
			abort();
	}
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t abuf[65536] __attribute__((aligned(4)));
	struct nlattr *attr = (struct nlattr *)abuf;
	struct ct_action a, lookup = { 0 };
	struct flow_key key;
	size_t split;

	if (!tracker) {
		rcu_register_thread();
		tracker = conntrack_create(256);
		conntrack_limit_set(tracker, 7, 3);
	}
	if (size < 2 || size > 60000)
		return 0;
	split = (data[0] | data[1] << 8) % (size - 1);
	attr->nla_type = 1;
	attr->nla_len = NLA_HDRLEN + size - 2 - split;
	memcpy(abuf + NLA_HDRLEN, data + 2 + split, size - 2 - split);

	memset(&key, 0, sizeof(key));
	if (flow_extract(data + 2, split, &key, &(struct flow_layers){ 0 }))
		return 0;
	if (ct_action_parse(attr, &key, &a, false) == 0) {
		memset(&key, 0, sizeof(key));
		run(data + 2, split, &a, &key);
		/* Recirculated: the same packet meets a second ct action. */
		lookup.family = a.family;
		lookup.zone = a.zone;
		lookup.nat = CT_ACTION_NAT;
		run(data + 2, split, &lookup, &key);
	}
	return 0;
}
