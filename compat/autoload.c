/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "compat/autoload.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/real.h"
#include "include/tapdp/kinds.h"

/* Set by tapdp-run --module (tools/module.c). */
#define MODULE_DIR_ENV	"TAPDP_MODULE_DIR"

extern char **environ;

/* The kind a creating RTM_NEWLINK asks for, into kind; false if none. */
static bool
kind_of(const struct nlmsghdr *nlh, char *kind, size_t size)
{
	size_t hl = NLMSG_SPACE(sizeof(struct ifinfomsg));
	const struct rtattr *a;
	int rem;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    !(nlh->nlmsg_flags & NLM_F_CREATE) || nlh->nlmsg_len < hl)
		return false;
	rem = nlh->nlmsg_len - hl;
	for (a = (const void *)((const char *)nlh + hl); RTA_OK(a, rem);
	     a = RTA_NEXT(a, rem)) {
		const struct rtattr *i;
		int irem = RTA_PAYLOAD(a);

		if (a->rta_type != IFLA_LINKINFO)
			continue;
		for (i = RTA_DATA(a); RTA_OK(i, irem); i = RTA_NEXT(i, irem))
			if (i->rta_type == IFLA_INFO_KIND) {
				snprintf(kind, size, "%.*s",
					 (int)RTA_PAYLOAD(i),
					 (const char *)RTA_DATA(i));
				return true;
			}
	}
	return false;
}

/* Whether the kernel has a driver for kind (include/tapdp/kinds.h). */
static bool
kernel_has(const char *kind)
{
	struct tapdp_kind_probe req;
	char buf[1024];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct iovec iov = { &req, 0 };
	struct msghdr mh = { .msg_name = &kernel,
			     .msg_namelen = sizeof(kernel),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	const struct nlmsgerr *e;
	int fd, err = 0;
	ssize_t n;

	if (!tapdp_kind_probe(&req, kind))
		return true;
	iov.iov_len = req.nlh.nlmsg_len;
	fd = real_socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return true;
	if (real_sendmsg(fd, &mh, 0) < 0) {
		real_close(fd);
		return true;
	}
	iov = (struct iovec){ buf, sizeof(buf) };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	n = real_recvmsg(fd, &mh, 0);
	real_close(fd);
	e = NLMSG_DATA((const struct nlmsghdr *)buf);
	if (n >= (ssize_t)NLMSG_SPACE(sizeof(*e)) &&
	    ((const struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
		err = e->error;
	return err != -EOPNOTSUPP;
}

bool
autoload_module_mode(void)
{
	return getenv(MODULE_DIR_ENV) != NULL;
}

bool
autoload_for(const struct nlmsghdr *nlh)
{
	char kind[32], module[64];
	char *argv[] = { "modprobe", "-q", module, NULL };
	pid_t pid;
	int st;

	if (!autoload_module_mode() || !kind_of(nlh, kind, sizeof(kind)))
		return false;
	if (!tapdp_kind_served(kind) || kernel_has(kind))
		return false;
	snprintf(module, sizeof(module), "rtnl-link-%s", kind);
	if (posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ))
		return false;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return true;
}
