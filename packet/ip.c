/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/ip.h"

#include "packet/csum.h"

const struct ipv4_header *
ipv4_header_at(const void *data, size_t len, size_t off, unsigned checks)
{
	const struct ipv4_header *ip = header_at(data, len, off, IPV4_HLEN);
	uint32_t hlen;

	if (!ip)
		return NULL;
	hlen = ipv4_hlen(ip);
	if (hlen < IPV4_HLEN || len - off < hlen)
		return NULL;
	if ((checks & IP_CHECK_VERSION) && ipv4_version(ip) != 4)
		return NULL;
	if ((checks & IP_CHECK_LENGTH) &&
	    (ntohs(ip->tot_len) < hlen || ntohs(ip->tot_len) > len - off))
		return NULL;
	return ip;
}

const struct ipv6_header *
ipv6_header_at(const void *data, size_t len, size_t off, unsigned checks)
{
	const struct ipv6_header *ip6 = header_at(data, len, off, IPV6_HLEN);

	if (!ip6)
		return NULL;
	if ((checks & IP_CHECK_VERSION) && ipv6_version(ip6) != 6)
		return NULL;
	if ((checks & IP_CHECK_LENGTH) && ipv6_tot_len(ip6) > len - off)
		return NULL;
	return ip6;
}

void
ipv4_set_csum(struct ipv4_header *ip)
{
	ip->csum = 0;
	ip->csum = ~csum_fold(csum_add(0, ip, ipv4_hlen(ip)));
}
