/* SPDX-License-Identifier: Apache-2.0 */
/* Sockets in another network namespace, and whether anything but tapdp
 * still holds that namespace, asked of the namespace agent
 * (daemon/ns-agent.h): the one small process that keeps CAP_SYS_ADMIN
 * to setns() there, which the sandboxed daemon gives up.
 *
 * A socket a process opens holds its namespace, as the kernel's own
 * tunnel and packet sockets do not: a context of another namespace whose
 * ports have such sockets asks ns_held() now and then, and lets its
 * datapaths go, as the kernel's pernet exit would, once nothing but
 * tapdp holds it.
 *
 * With no agent (none attached: the daemon started without
 * CAP_SYS_ADMIN, unit tests), ns_socket() in another namespace fails with
 * -EAFNOSUPPORT, as a port type the kernel lacks.
 *
 * Threads: any; one mutex serialises the requests. The messages are the
 * keeper's (common/keep.h: struct keep_msg, keep_send, keep_recv). */
#ifndef TAPDP_COMMON_NS_SOCKET_H
#define TAPDP_COMMON_NS_SOCKET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The agent's requests (struct keep_msg's op), each with the namespace's
 * fd; the answer has the same op, the result in id (a negative errno, or
 * 0 with the socket; ns_held's 1 or 0) and a socket for NS_OP_SOCKET. */
enum ns_op {
	NS_OP_SOCKET = 100,	/* meta: struct ns_socket_req */
	NS_OP_HELD,		/* meta: struct ns_held_req */
};

struct ns_socket_req {
	int32_t domain, type, protocol;
};

#define NS_HELD_PIDS 4
struct ns_held_req {
	uint32_t n;
	int32_t pids[NS_HELD_PIDS];	/* tapdp's own, not holders */
};

/* The agent's end, or -1 for none. */
void ns_socket_attach(int fd);
/* Whether an agent serves: ports can be made in another namespace. */
bool ns_socket_available(void);
/* socket(domain, type, protocol) in the namespace nsfd refers to (-1:
 * ours, a plain socket()); its fd, or -errno. */
int ns_socket(int nsfd, int domain, int type, int protocol);
/* Whether a process other than ours (the daemon, its keeper, the agent)
 * holds the namespace of nsfd, or mounts it: 1 held, 0 not, -errno when
 * that cannot be told (to be taken as held). */
int ns_held(int nsfd, const pid_t *ours, unsigned n);

#endif
