/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: validated actions executed on an arbitrary frame (the
 * first two bytes split the input into a frame and an actions nest), with
 * callbacks that check what leaves the engine stays inside the buffer, and
 * that a psample action's message builds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actions/actions-netlink.h"
#include "actions/actions.h"
#include "families/families.h"
#include "genl-server/attr.h"
#include "tests/fuzz/nl-mutator.h"

static uint8_t sink;

static void
touch(const struct packet *pkt)
{
	for (uint32_t i = 0; i < packet_out_len(pkt); i++)
		sink ^= pkt->data[i];
}

static void
output(void *ctx, const struct packet *pkt, const struct flow_key *key,
       uint32_t port)
{
	touch(pkt);
}

static void
userspace(void *ctx, const struct packet *pkt, const struct flow_key *key,
	  const struct nlattr *ua, const void *acts, int len)
{
	touch(pkt);
}

static void
recirc(void *ctx, struct packet *pkt, struct flow_key *key)
{
	touch(pkt);
}

static bool
meter(void *ctx, const struct packet *pkt, uint32_t id)
{
	return id & 1;
}

static void
drop(void *ctx, const struct packet *pkt, uint32_t reason)
{
	touch(pkt);
}

/* The tracker has its own target (fuzz-conntrack.c); this one refuses
 * some packets, as a full zone would, so that the error paths run too. */
static int
ct(void *ctx, struct packet *pkt, struct flow_key *key,
   const struct ct_action *a)
{
	touch(pkt);
	return pkt->len % 3 ? 0 : -ENOMEM;
}

/* The sample message psample would send of it must build. */
static void
psample(void *ctx, const struct packet *pkt, const struct flow_key *key,
	uint32_t group, const struct nlattr *cookie, uint32_t rate)
{
	const struct dp_psample s = {
		.group = group,
		.rate = rate,
		.in_ifindex = 1,
		.proto = key->eth_type,
		.cookie = cookie ? attr_data(cookie) : NULL,
		.cookie_len = cookie ? attr_len(cookie) : 0,
		.data = pkt->data,
		.len = pkt->len,
		.trunc_size = packet_out_len(pkt),
		.tun = pkt->egress_tun,
	};
	size_t size = psample_sample_size(&s);
	struct msgbuf mb;
	void *mem = malloc(size);

	msgbuf_init(&mb, mem, size);
	if (psample_sample_msg(&mb, &s, 0))
		abort();
	touch(pkt);
	free(mem);
}

/* A frame, then actions (OVS_ACTION_ATTR_MAX is under 40). */
static const struct nl_mut_layout layout = {
	.split = true, .region = { NL_MUT_RAW, NL_MUT_ATTRS },
	.max_type = 40, .malformed_one_in = 8,
};
NL_MUTATOR(layout)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct actions_env env = {
		.output = output, .userspace = userspace,
		.recirc = recirc, .meter = meter, .ct = ct, .drop = drop,
		.psample = psample,
	};
	static uint8_t abuf[65536];
	struct nlattr *acts = (struct nlattr *)abuf;
	struct actions_stored *stored;
	struct flow_key key;
	struct packet pkt;
	size_t split, flen;
	uint8_t *buf;

	if (size < 2 || size > 60000)
		return 0;
	split = (data[0] | data[1] << 8) % (size - 1);
	flen = split;
	acts->nla_type = 1;
	acts->nla_len = NLA_HDRLEN + size - 2 - split;
	memcpy(abuf + NLA_HDRLEN, data + 2 + split, size - 2 - split);
	/* The frame sits at the end of its buffer: any overread shows. */
	buf = malloc(FRAME_HEADROOM + flen);
	packet_init(&pkt, buf, FRAME_HEADROOM + flen, flen);
	memcpy(pkt.data, data + 2, flen);
	memset(&key, 0, sizeof(key));
	if (flow_extract(pkt.data, pkt.len, &key, &pkt.layers) == 0) {
		pkt.key_valid = true;
		if (actions_validate(acts, &key, false) == 0 &&
		    (stored = actions_store(acts, &key))) {
			actions_execute(&env, &pkt, &key, stored);
			free(stored);
		}
	}
	free(buf);
	return 0;
}
