/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: frames, each behind its length (2 bytes, little-
 * endian), merged by packet/gro.h as a tunnel port merges what it
 * receives: each frame joins the train or ends it and starts the next.
 * Beyond the sanitizers' bounds checks (every frame is a heap copy of its
 * exact length), it holds the module to its contract: a merged frame is
 * its segments' headers and payloads, and its offload request is one the
 * software segmentation (packet/gso.h) takes, giving back as much payload
 * as was merged, no segment larger than the first. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "packet/frame.h"
#include "packet/gro.h"
#include "packet/gso.h"

static uint8_t merged[FRAME_MAX];
static uint8_t seg[FRAME_MAX];

/* The train ends: its merged frame checked. payload: what joined. */
static void
finish(struct gro *g, size_t payload)
{
	struct virtio_net_hdr vh;
	size_t len = gro_finish(g, &vh), got = 0;
	struct gso gs;
	uint32_t n;

	if (!len)
		return;
	if (gso_init(&gs, merged, len, false, &vh, 0))
		abort();
	while ((n = gso_next(&gs, seg))) {
		if (n - gs.hlen > vh.gso_size)
			abort();
		got += n - gs.hlen;
	}
	if (got != payload || len - vh.hdr_len != payload)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gro g = { 0 };
	uint8_t *first = NULL;	/* read by the module until the train ends */
	size_t payload = 0;

	while (size >= 2) {
		size_t len = data[0] | data[1] << 8;
		uint8_t *f;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		f = malloc(len ? len : 1);
		if (!f)
			abort();
		memcpy(f, data, len);
		data += len;
		size -= len;
		if (g.segs && gro_add(&g, f, len)) {
			payload += len - g.hlen;
			free(f);
			continue;
		}
		finish(&g, payload);
		free(first);
		first = NULL;
		if (gro_start(&g, merged, f, len)) {
			payload = len - g.hlen;
			first = f;
		} else {
			free(f);
		}
	}
	finish(&g, payload);
	free(first);
	return 0;
}
