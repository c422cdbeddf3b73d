/* SPDX-License-Identifier: Apache-2.0 */
/* The generic netlink families tapdpd serves (their fixed ids in
 * family-ids.h), ctnetlink and cttimeout, and their registration with
 * the netlink server and the journal. */
#ifndef TAPDP_FAMILIES_H
#define TAPDP_FAMILIES_H

#include "datapath/datapath.h"
#include "datapath/family-ids.h"
#include "genl-server/msg.h"
#include "genl-server/nlsock.h"

/* Registers every family below and ctnetlink with the netlink server. They
 * serve the datapath context of the socket a request comes on
 * (nlsock_net). */
void families_register(void);

void dp_family_register(void);
void vport_family_register(void);
void flow_family_register(void);
void packet_family_register(void);
void meter_family_register(void);
void ct_limit_family_register(void);
void psample_family_register(void);
/* tapdp_drop, tapdpd's own (include/tapdp/drop-uapi.h). */
void drop_family_register(void);
/* tapdp_ctl, tapdpd's own (include/tapdp/ctl-uapi.h); its uptime counts
 * from this call. */
void ctl_family_register(void);
/* NETLINK_ROUTE's link requests about the daemon's tunnel devices
 * (rtnl-link.c). */
void rtnl_link_register(void);
/* Link requests about the daemon's tunnel devices (RTM_NEWLINK, GETLINK,
 * DELLINK) handled on sk, a NETLINK_ROUTE socket, without asking whether
 * they are the daemon's: the journal's records, replayed. */
void rtnl_link_rcv(struct nlsock *sk, const void *buf, size_t len);

/* Upcalls as ovs_packet messages to generic netlink portids: the sink of
 * the contexts the families serve. */
extern const struct dp_upcall_sink packet_family_upcalls;

/* psample (psample-family.c): sends a psample action's sample to the
 * "packets" group, from the packet's thread: the sink of the contexts the
 * families serve. */
void psample_family_sample(const struct dp_psample *sample);
/* The sample message, with timestamp now_ns, into mb: 0 or -EMSGSIZE
 * (psample_sample_size() bytes are enough). */
size_t psample_sample_size(const struct dp_psample *sample);
int psample_sample_msg(struct msgbuf *mb, const struct dp_psample *sample,
		       uint64_t now_ns);
/* What packets do, told to the families' listeners: drops as tapdp_drop
 * events, and every step to tapdp_ctl's capture group. The packet sink of
 * the contexts the families serve. */
extern const struct dp_packet_sink families_packet_sink;
/* Whether the tapdp_drop events group has a member; a drop as an event
 * to it. */
bool drop_family_listening(void);
void drop_family_send(const struct dp_packet_event *ev);
/* A tapdp_drop EVENT message for ev, a drop; 0 or -EMSGSIZE. */
int drop_family_event(struct msgbuf *mb, const struct dp_packet_event *ev);
/* Whether tapdp_ctl's capture group has a member; a packet as a PACKET
 * event to it. */
bool ctl_family_capturing(void);
void ctl_family_capture(const struct dp_packet_event *ev);
/* The PACKET message for ev with timestamp now_ns, its packet cut to
 * TAPDP_CTL_CAPTURE_SNAPLEN; 0 or -EMSGSIZE. */
int ctl_family_packet(struct msgbuf *mb, const struct dp_packet_event *ev,
		      uint64_t now_ns);

/* The NLMSG message for a datagram of len bytes on sk (to_client: the
 * daemon's), cut to TAPDP_CTL_NLMON_SNAPLEN, with comm the client's
 * command (NULL: unknown) and timestamp now_ns; 0 or -EMSGSIZE. */
int ctl_family_nlmsg(struct msgbuf *mb, const struct nlsock *sk,
		     const char *comm, const void *buf, size_t len,
		     bool to_client, uint64_t now_ns);

/* Each family's part of the journal's records (datapath/journal.h) of
 * the state now. */
void dp_family_journal(struct datapath *dp);
void vport_family_journal(struct datapath *dp);
void meter_family_journal(struct datapath *dp);
void flow_family_journal(struct datapath *dp);
void ct_limit_family_journal(struct dp_net *net);
/* The devices made over rtnetlink in net's namespace (tunnel devices,
 * userspace VLAN devices), and a tunnel device's deletion (one gone from
 * outside, whose port dp_notify detached). */
void rtnl_link_journal(const struct dp_net *net);
struct tnl_dev;
void rtnl_link_journal_del(const struct dp_net *net,
			   const struct tnl_dev *dev);

/* Tells the ovs_datapath group that dp is gone with its local device. */
void dp_family_notify_gone(struct datapath *dp);
/* port's device left the system and the datapath lets port go: the
 * journal forgets it and, if notify, the ovs_vport group is told (the
 * kernel tells it of a netdev port's device unregistered, not of ports
 * detached as their namespace exits). */
void vport_family_gone(struct dp_port *port, bool notify);

#endif
