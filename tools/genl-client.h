/* SPDX-License-Identifier: Apache-2.0 */
/* A generic netlink client for tapdpctl, on libmnl: a socket (tapdpd's
 * when the shim is loaded), family ids and groups from nlctrl, requests
 * whose answers go to a callback one message at a time. Blocking; one
 * request at a time per client; not thread-safe. */
#ifndef TAPDP_GENL_CLIENT_H
#define TAPDP_GENL_CLIENT_H

#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

struct gclient {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
};

/* 0 or -errno. */
int gclient_open(struct gclient *c);
void gclient_close(struct gclient *c);
/* The id of family name, and of its multicast group (when group is not
 * NULL) into *group_id; 0 or -errno (-ENOENT: no such family or group). */
int gclient_family(struct gclient *c, const char *name, uint16_t *id,
		   const char *group, uint32_t *group_id);
/* Sends family's cmd (version, flags beyond NLM_F_REQUEST|NLM_F_ACK, the
 * family header hdr of hdrlen bytes) and runs cb(message, data) on each
 * message of the answer; 0 when the answer ended well, the first negative
 * value cb returned, or -errno. */
int gclient_request(struct gclient *c, uint16_t family, uint8_t cmd,
		    uint8_t version, uint16_t flags, const void *hdr,
		    size_t hdrlen, mnl_cb_t cb, void *data);
/* The attributes in the len bytes at first, by type into tb[0..maxattr]
 * (the others NULL). */
void gclient_attrs(const void *first, size_t len, const struct nlattr **tb,
		   unsigned maxattr);
/* An unsigned attribute of 4 or 8 bytes; 0 for NULL or another size. */
uint64_t gclient_uint(const struct nlattr *a);
/* A NUL-terminated string attribute, dflt for NULL or a bad one. */
const char *gclient_str(const struct nlattr *a, const char *dflt);

/* Joins a multicast group: 0 or -errno (-EPERM: the group is
 * CAP_NET_ADMIN's). */
int gclient_join(struct gclient *c, uint32_t group);
/* Waits up to timeout_ms (-1: for ever) for a datagram, and runs cb on each
 * of its messages: 1 when one came, 0 on timeout, -errno (-ENOBUFS: some
 * were lost), or the first negative value cb returned. */
int gclient_listen(struct gclient *c, int timeout_ms, mnl_cb_t cb,
		   void *data);

#endif
