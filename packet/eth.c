/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/eth.h"

#include <errno.h>

#include "common/unaligned.h"

/* What an 802.3 length at w->l3 - 2 stands for; steps over SNAP. */
static void
llc(const void *frame, size_t len, struct eth_walk *w)
{
	const struct llc_snap_header *snap =
		header_at(frame, len, w->l3, sizeof(*snap));

	w->type = htons(ETH_P_802_2);
	if (!snap || snap->dsap != LLC_SAP_SNAP ||
	    snap->ssap != LLC_SAP_SNAP ||
	    (snap->oui[0] | snap->oui[1] | snap->oui[2]))
		return;
	/* Stepped over even when it carries a length, as the kernel does. */
	w->type_at = w->l3 + offsetof(struct llc_snap_header, snap_type);
	w->l3 += sizeof(*snap);
	if (ntohs(snap->snap_type) >= ETH_P_802_3_MIN)
		w->type = snap->snap_type;
}

int
eth_walk(const void *frame, size_t len, unsigned max_tags, unsigned flags,
	 struct eth_walk *w)
{
	const struct vlan_header *tag;
	size_t at = ETH_ADDRS_LEN;

	if (len < sizeof(struct eth_header))
		return -EINVAL;
	w->n_tags = 0;
	while (w->n_tags < max_tags &&
	       (tag = header_at(frame, len, at, VLAN_HLEN + sizeof(w->type))) &&
	       eth_type_vlan(tag->tpid)) {
		if (w->n_tags < ETH_TAGS_KEPT)
			w->tag[w->n_tags] = *tag;
		w->n_tags++;
		at += VLAN_HLEN;
	}
	w->type_at = at;
	w->type = get_unaligned16((const uint8_t *)frame + at);
	w->l3 = at + sizeof(w->type);
	if ((flags & ETH_WALK_LLC) && ntohs(w->type) < ETH_P_802_3_MIN)
		llc(frame, len, w);
	return 0;
}
