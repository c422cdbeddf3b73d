/* SPDX-License-Identifier: Apache-2.0 */
/* TAP devices: the host's end of a port the daemon serves itself
 * (internal ports, tunnel ports). Each call opens its own fd: thread-safe;
 * the device lives as long as an fd of it is open. The keeper holds a copy
 * of each queue (common/keep.h), so the device outlives the daemon; its
 * successor's tap_open of the same name takes the kept queue back. */
#ifndef TAPDP_VPORT_TAP_H
#define TAPDP_VPORT_TAP_H

#include <stdbool.h>

/* Opens a queue of the TAP device called name (an IFNAMSIZ buffer; a
 * name with "%d" is a pattern the kernel fills in, written back), or with
 * l3 of a TUN device (L3 packets, no Ethernet: the kernel's ARPHRD_NONE).
 * With excl, the device is created, or -EEXIST if the name is taken
 * (checked and created at once, so no other TAP of that name is joined
 * by mistake); without, the queue joins it. Packets carry a virtio-net
 * header. A non-blocking fd, or -errno. */
int tap_open(char *name, bool l3, bool multi_queue, bool excl);
/* Closes a queue tap_open gave; the keeper lets its copy go. */
void tap_close(int fd);

/* A TAP device for another namespace (an internal port's, a tunnel or
 * VLAN device's) is made here, under a name the kernel picks, so that
 * none of ours is taken, and moved there under its own. tap_move moves
 * the device of queue fd, made here as made, to the namespace of nsfd,
 * which ours calls netnsid, called name there (an IFNAMSIZ buffer: a
 * pattern is filled in there and written back), up if asked; -EEXIST
 * when the name is taken there. Then it tells the keeper that name and
 * netnsid, by which a successor claims the queue back (tap_claim_moved),
 * wherever the device went since; not by the name it was made under,
 * which ours may give again. tap_moved tells it for each further queue.
 * Control thread. */
int tap_move(int fd, const char *made, int nsfd, int netnsid, char *name,
	     bool up);
void tap_moved(int fd, const char *name, int netnsid);
/* A kept queue of port name of the datapath of namespace netnsid, whose
 * device is still there: the fd, the claimer's as tap_open's are;
 * -ENOENT when none. */
int tap_claim_moved(int netnsid, const char *name);
/* An fd of the namespace our namespace gives netnsid, found through the
 * device of a kept queue of a port of its datapath that is there (its
 * local port's, usually); -ENOENT when there is none: the devices went
 * with their namespace. */
int tap_kept_netns(int netnsid);

/* The largest MTU a TAP or TUN device takes (the tun driver's
 * MAX_MTU: 65535 less the Ethernet header's 14). */
#define TAP_MTU_MAX	65521

#endif
