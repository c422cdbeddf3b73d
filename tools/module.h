/* SPDX-License-Identifier: Apache-2.0 */
/* tapdp-run --module: a command sees tapdpd as a loadable openvswitch
 * module. In a private directory put first on its PATH, `modprobe`,
 * `rmmod` and `lsmod` are tapdp-run under those names: loading
 * openvswitch (or a vport-* module, which needs it, or rtnl-link-KIND,
 * which the shim asks for a device kind tapdpd serves, as the kernel
 * asks for one it lacks: compat/autoload.h) starts a fresh tapdpd on a
 * private socket, unloading it stops the daemon and all its state
 * goes, lsmod lists it while it runs. The nf_* and nfnetlink modules the
 * datapath's conntrack stands for load and unload as no-ops. Any other
 * module goes to the system's command.
 *
 * The directory is the state: the daemon's socket, pidfile and log are
 * in it, named by TAPDP_MODULE_DIR. One process at a time loads or
 * unloads (as modprobe's callers do). */
#ifndef TAPDP_TOOLS_MODULE_H
#define TAPDP_TOOLS_MODULE_H

#include <stdbool.h>
#include <stddef.h>

/* Makes the directory (its path into dir) and sets the environment a
 * command run after it needs: PATH, TAPDP_SOCKET, TAPDP_MODULE_*. 0 or
 * -1 with errno. */
int module_env_setup(char *dir, size_t len);
/* Unloads what is loaded and removes the directory. */
void module_env_cleanup(const char *dir);
/* Whether argv0 names one of the module commands. */
bool module_command(const char *argv0);
/* Runs that command; its exit status. */
int module_main(int argc, char **argv);

#endif
