/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/ipv6-exthdr.h"

#include <errno.h>

#include "packet/headers.h"

int
ipv6_exthdr_start(const void *data, size_t len, size_t nh,
		  struct ipv6_exthdr_walk *w)
{
	const struct ipv6_header *ip6 = header_at(data, len, nh, IPV6_HLEN);

	if (!ip6)
		return -EINVAL;
	w->off = nh + IPV6_HLEN;
	w->nexthdr_at = nh + offsetof(struct ipv6_header, nexthdr);
	w->nexthdr = ip6->nexthdr;
	w->frag = false;
	w->frag_off = 0;
	return 0;
}

/* What ipv6_find_hdr() takes for an extension header ("no next header"
 * aside: nothing follows it). */
static bool
is_exthdr(uint8_t nexthdr)
{
	switch (nexthdr) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_DSTOPTS:
		return true;
	default:
		return false;
	}
}

/* The fragment header at w->off: the length to step over, 0 when the walk
 * ends at a later fragment, -EINVAL. */
static int
frag_len(const void *data, size_t len, struct ipv6_exthdr_walk *w)
{
	const struct ipv6_frag_header *fh;
	uint16_t off;

	w->frag = true;
	fh = header_at(data, len, w->off,
		       offsetof(struct ipv6_frag_header, id));
	if (!fh)
		return -EINVAL;
	off = ntohs(fh->frag_off) & IPV6_FRAG_OFFSET;
	if (off) {
		if (is_exthdr(fh->nexthdr))
			return -EINVAL;
		w->frag_off = off;
		return 0;
	}
	if (!header_at(data, len, w->off, sizeof(*fh)))
		return -EINVAL;
	return sizeof(*fh);
}

int
ipv6_exthdr_step(const void *data, size_t len, unsigned flags,
		 struct ipv6_exthdr_walk *w)
{
	const struct ipv6_opt_header *h;
	int hlen;

	switch (w->nexthdr) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
		break;
	case IPPROTO_AH:
		if (!(flags & (IPV6_EXTHDR_AH | IPV6_EXTHDR_OPTLEN)))
			return 0;
		break;
	case IPPROTO_FRAGMENT:
		if (!(flags & (IPV6_EXTHDR_FRAG | IPV6_EXTHDR_OPTLEN)))
			return 0;
		break;
	default:
		return 0;
	}
	h = header_at(data, len, w->off, sizeof(*h));
	if (!h)
		return -EINVAL;
	if (flags & IPV6_EXTHDR_OPTLEN) {
		hlen = ipv6_optlen(h);
	} else if (w->nexthdr == IPPROTO_FRAGMENT) {
		hlen = frag_len(data, len, w);
		if (hlen <= 0)
			return hlen;
	} else {
		if (!header_at(data, len, w->off, IPV6_EXTHDR_MIN))
			return -EINVAL;
		if ((flags & IPV6_EXTHDR_UNFRAG) &&
		    w->nexthdr == IPPROTO_DSTOPTS &&
		    h->nexthdr != IPPROTO_ROUTING)
			return 0;
		hlen = w->nexthdr == IPPROTO_AH ? ipv6_ahlen(h)
						: ipv6_optlen(h);
		if (!header_at(data, len, w->off, hlen))
			return -EINVAL;
	}
	w->nexthdr_at = w->off;
	w->nexthdr = h->nexthdr;
	w->off += hlen;
	return 1;
}

int
ipv6_exthdr_skip(const void *data, size_t len, size_t nh, unsigned flags,
		 struct ipv6_exthdr_walk *w)
{
	int err = ipv6_exthdr_start(data, len, nh, w);

	if (err)
		return err;
	while ((err = ipv6_exthdr_step(data, len, flags, w)) > 0)
		;
	return err;
}
