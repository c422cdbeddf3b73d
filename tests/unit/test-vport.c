/* SPDX-License-Identifier: Apache-2.0 */
/* Offload metadata that comes with received frames: what is trusted and
 * what is a lie (dropped and counted by the receive loop); what each of
 * a port's threads costs before it does anything. */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tap/vport.h"

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

static int
program_tls(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*(size_t *)arg = info->dlpi_phdr[i].p_memsz;
	return 1;	/* the program is listed first */
}

/* Every port runs receive threads (1,000 ports: 2,000 on two CPUs), and
 * glibc gives each new thread the program's per-thread variables, zeroed
 * beside its stack, so resident whether the thread uses them or not: a
 * large per-thread buffer is allocated at its first use instead. */
static void
test_thread_variables_small(void **state)
{
	size_t tls = 0;

	dl_iterate_phdr(program_tls, &tls);
	assert_in_range(tls, 0, 16384);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offload_valid),
		cmocka_unit_test(test_thread_variables_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
