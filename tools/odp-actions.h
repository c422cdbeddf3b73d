/* SPDX-License-Identifier: Apache-2.0 */
/* A flow's actions (the OVS_ACTION_ATTR_* of OVS_FLOW_ATTR_ACTIONS)
 * written as ovs-dpctl dump-flows writes them: "ct(commit,zone=5),
 * recirc(0x1),2", "drop" for none. Ports are numbers; set() and
 * set_masked() write their key as odp_key_format() does; the userspace
 * action's cookie, NSH and tunnel pushes are written as hex (ovs-dpctl
 * decodes them), as is an action it does not know. Stateless; safe from
 * any thread. */
#ifndef TAPDP_ODP_ACTIONS_H
#define TAPDP_ODP_ACTIONS_H

#include <stddef.h>
#include <stdio.h>

void odp_actions_format(FILE *f, const void *acts, size_t len);

#endif
