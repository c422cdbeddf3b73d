/* SPDX-License-Identifier: Apache-2.0 */
/* Offload metadata that comes with received frames: what is trusted and
 * what is a lie (dropped and counted by the receive loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vport/vport.h"

static void
test_offload_valid(void **state)
{
	struct virtio_net_hdr vh = { 0 };

	assert_true(vport_offload_valid(&vh, 60));
	/* A partial checksum whose field lies past the frame. */
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.csum_start = 34;
	vh.csum_offset = 16;
	assert_true(vport_offload_valid(&vh, 54));
	assert_false(vport_offload_valid(&vh, 51));
	vh.csum_start = 0xffff;
	assert_false(vport_offload_valid(&vh, 1500));
	/* GSO: a segment size, a header length within the frame. */
	vh.csum_start = 34;
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.gso_size = 1448;
	vh.hdr_len = 66;
	assert_true(vport_offload_valid(&vh, 65000));
	vh.gso_size = 0;
	assert_false(vport_offload_valid(&vh, 65000));
	vh.gso_size = 1448;
	vh.hdr_len = 65001;
	assert_false(vport_offload_valid(&vh, 65000));
	vh.hdr_len = 66;
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN;
	assert_true(vport_offload_valid(&vh, 65000));
	vh.gso_type = 7;	/* no such type */
	assert_false(vport_offload_valid(&vh, 65000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offload_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
