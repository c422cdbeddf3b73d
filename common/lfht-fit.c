/* SPDX-License-Identifier: Apache-2.0 */
#include "common/lfht-fit.h"

void
lfht_fit(struct cds_lfht *ht, unsigned long nodes, unsigned long *asked,
	 unsigned long min)
{
	unsigned long want = *asked;

	/* Far below: liburcu shrinks it; ask again from nearer the count. */
	while (want > min && nodes < want / 4)
		want >>= 1;
	*asked = want;
	if (nodes <= want)
		return;
	while (want < nodes)
		want <<= 1;
	cds_lfht_resize(ht, want);
	*asked = want;
}
