/* SPDX-License-Identifier: Apache-2.0 */
/* A flow key and its mask (the OVS_KEY_ATTR_* attributes of an ovs_flow
 * message's OVS_FLOW_ATTR_KEY and OVS_FLOW_ATTR_MASK) written as
 * ovs-dpctl dump-flows writes them: "in_port(1),eth(src=...),eth_type(...),
 * ipv4(src=10.0.0.1,proto=6,frag=no),tcp(dst=80)". Fields the mask
 * wildcards are left out, partly masked ones are written value/mask, and a
 * key without a mask is exact. Attributes of a wrong size are written as
 * hex, as are ones it does not know and, so far, NSH keys and ERSPAN
 * options (ovs-dpctl spells their fields out). Stateless; safe from any
 * thread. */
#ifndef TAPDP_ODP_KEY_H
#define TAPDP_ODP_KEY_H

#include <stddef.h>
#include <stdio.h>

/* mask NULL (or mask_len 0): the key is exact. */
void odp_key_format(FILE *f, const void *key, size_t key_len,
		    const void *mask, size_t mask_len);
/* What a mask (OVS_FLOW_ATTR_MASK's attributes) matches on: the
 * attributes and, in their parentheses, the fields its bits are not all
 * zeros for: "in_port,eth_type,ipv4(src,proto,frag),tcp(dst)". */
void odp_mask_fields(FILE *f, const void *mask, size_t mask_len);
/* A UFID (1 to 16 bytes) as OVS writes it: "ufid:" and four 32-bit words
 * in host order as a UUID. */
void odp_ufid_format(FILE *f, const void *ufid, size_t len);

#endif
