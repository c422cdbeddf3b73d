/* SPDX-License-Identifier: Apache-2.0 */
/* Module autoloading under `tapdp-run --module` (tools/module.h). Asked
 * for a link of a kind it has no driver for, the kernel runs `modprobe
 * rtnl-link-KIND` first (rtnl_newlink's request_module()). The daemon
 * serves some such kinds (its tunnel and VLAN devices): with no daemon
 * running, a request for one loads it the same way, through the
 * modprobe first on the PATH (tapdp-run's, which starts the daemon),
 * before the request is offered. Internal to libtapdp.so; any thread
 * (the caller holds its socket's lock). */
#ifndef TAPDP_COMPAT_AUTOLOAD_H
#define TAPDP_COMPAT_AUTOLOAD_H

#include <linux/netlink.h>
#include <stdbool.h>

/* Whether nlh asks for a device of a kind the daemon serves and the
 * kernel lacks, in module mode, and modprobe was run for it: the daemon
 * may answer now. */
bool autoload_for(const struct nlmsghdr *nlh);
/* Whether the shim runs in module mode: no daemon is then the module not
 * loaded, which the kernel does not remark on. */
bool autoload_module_mode(void);

#endif
