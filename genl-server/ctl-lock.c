/* SPDX-License-Identifier: Apache-2.0 */
#include "genl-server/ctl-lock.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned depth;

void
ctl_lock(void)
{
	if (!depth++)
		pthread_mutex_lock(&lock);
}

void
ctl_unlock(void)
{
	if (!--depth)
		pthread_mutex_unlock(&lock);
}
