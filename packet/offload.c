/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/offload.h"

#include <errno.h>
#include <string.h>

#include "packet/csum.h"

int
offload_csum_finish(void *frame, size_t len, struct virtio_net_hdr *vh)
{
	size_t start = vh->csum_start, at = start + vh->csum_offset;
	uint8_t *f = frame;
	uint16_t v;

	if (!(vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return 0;
	if (at > len || len - at < sizeof(v))
		return -EINVAL;
	v = ~csum_fold(csum_add(0, f + start, len - start));
	/* A UDP checksum of 0 is sent as all ones; TCP's 0 is fine too. */
	if (!v)
		v = 0xffff;
	memcpy(f + at, &v, sizeof(v));
	vh->flags &= ~VIRTIO_NET_HDR_F_NEEDS_CSUM;
	return 0;
}
