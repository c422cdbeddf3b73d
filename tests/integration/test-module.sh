#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdp-run --module: a command sees tapdpd as the openvswitch module, as
# a project's own kernel test suite does (OVS's `make check-kernel`).
# modprobe openvswitch starts a private daemon (lsmod lists it, ovs-dpctl
# works), unloading stops it and its datapaths go with it, a second load
# is a fresh daemon; vport-* modules load it too, and so does a request
# for a device of a kind it serves that the kernel lacks (as the kernel
# loads a driver's module: the shim runs modprobe rtnl-link-KIND), the
# nf_* ones the
# datapath's conntrack stands for load as no-ops; other modules and
# options are the system's; rmmod of what is not loaded fails as
# kmod's; the command's exit status is tapdp-run's, and nothing is left
# behind after it: no daemon, no directory.
. "$(dirname "$0")/../lib.sh"

trap tapdp_cleanup EXIT
tapdp_ns_up
T_TMP=$T/tmp
mkdir -p "$T_TMP"
export TMPDIR=$T_TMP
mod() { in_ns "$BUILD/tapdp-run" --module -- sh -c "$1"; }

check_out "modprobe is tapdp-run's" "^$T_TMP/tapdp-module\.[A-Za-z0-9]+/modprobe$" \
	mod 'command -v modprobe'
check_absent "lsmod: openvswitch not loaded at first" "^openvswitch " \
	mod lsmod
check_fails "ovs-dpctl: no datapath family before the load" \
	mod 'ovs-dpctl show'
check_absent "ip link before the load: no word from the shim (as no module)" \
	"." mod 'ip -o link show >/dev/null && ip link show lo >/dev/null'
check_out "modprobe openvswitch: a datapath can be made" "port 0: mdp \(internal\)" \
	mod 'modprobe openvswitch && ovs-dpctl add-dp mdp && ovs-dpctl show'
check_out "lsmod lists it while loaded" "^openvswitch +[0-9]+ +0$" \
	mod 'modprobe openvswitch && lsmod'
check_out "modprobe -r: its datapaths go with it" "^unloaded, 1$" \
	mod 'modprobe openvswitch && ovs-dpctl add-dp mdp &&
	     modprobe -r openvswitch && ! lsmod | grep -q openvswitch &&
	     { ovs-dpctl show >/dev/null 2>&1; echo "unloaded, $?"; }'
check_out "rmmod, then a fresh load: nothing of the first daemon" \
	"^fresh: no datapath$" \
	mod 'modprobe openvswitch && ovs-dpctl add-dp mdp && rmmod openvswitch &&
	     modprobe openvswitch &&
	     { ovs-dpctl show mdp >/dev/null 2>&1 || echo "fresh: no datapath"; }'
check_out "the device of the first daemon's datapath went with it" \
	"^gone$" mod 'modprobe openvswitch && ovs-dpctl add-dp mdp &&
	     modprobe -r openvswitch && { ip link show mdp 2>/dev/null || echo gone; }'
check_out "modprobe vport-geneve loads openvswitch" "^openvswitch " \
	mod 'modprobe vport-geneve && lsmod'
check "modprobe vport_vxlan (underscore) too" \
	mod 'modprobe vport_vxlan && lsmod | grep -q ^openvswitch'
for m in nf_conntrack nf_conntrack_ipv4 nf_nat_ftp nf_nat_tftp \
	 nf_conntrack_netlink nfnetlink_cttimeout; do
	check "modprobe $m, and -r: no-ops that succeed" \
		mod "modprobe $m && modprobe -r $m"
done
check_absent "...and load no datapath" "^openvswitch " \
	mod 'modprobe nf_conntrack && lsmod'
# A device of a kind the kernel has no driver for: the kernel would
# load the driver's module; the shim loads tapdpd, which makes it.
if in_ns ip link add tapdpprobe type bareudp dstport 6635 \
	ethertype mpls_uc 2>/dev/null; then
	in_ns ip link del tapdpprobe
	echo "# this kernel has the bareudp driver: no autoload to check"
else
	check_out "ip link add of a kind the kernel lacks loads tapdpd" \
		"^openvswitch " mod 'ip link add bu0 type bareudp dstport 6635 \
		ethertype mpls_uc && lsmod'
	check_out "... which made the device, as its driver would" \
		"bareudp dstport 6635 ethertype mpls_uc" \
		mod 'ip link add bu0 type bareudp dstport 6635 \
		ethertype mpls_uc && ip -d link show bu0'
	check_out "... a VLAN device too" "^openvswitch " \
		mod 'ip link add tmv0 type veth peer name tmv1 &&
		ip link add link tmv0 name tmv0.7 type vlan id 7 && lsmod;
		ip link del tmv0'
	check_out "... and unloading takes the device along" "^gone$" \
		mod 'ip link add bu0 type bareudp dstport 6635 \
		ethertype mpls_uc && rmmod openvswitch &&
		{ ip link show bu0 2>/dev/null || echo gone; }'
fi
check_absent "a kind the kernel has (vxlan) loads nothing" "^openvswitch " \
	mod 'ip link add vxm type vxlan id 5 dstport 4789 && lsmod'
check_absent "... nor a kind nobody serves" "^openvswitch " \
	mod 'ip link add xm type tapdpnosuchkind 2>/dev/null; lsmod'
check_out "rmmod openvswitch when not loaded fails as kmod's" \
	"^1 rmmod: ERROR: Module openvswitch is not currently loaded$" \
	mod 'msg=$(rmmod openvswitch 2>&1); echo "$? $msg"'
check_out "modprobe -r when not loaded succeeds" "^0$" \
	mod 'modprobe -r openvswitch; echo $?'
check_out "another module is the system's modprobe's" \
	"^system's: [1-9]" mod 'modprobe tapdp_no_such_module 2>/dev/null;
				 echo "system'"'"'s: $?"'
check_out "the command's exit status is tapdp-run's" "^status 7$" \
	bash -c "ip netns exec '$NS' '$BUILD/tapdp-run' --module -- sh -c 'exit 7';
		 echo status \$?"
check "a daemon left loaded stops when the command ends" bash -c "
	ip netns exec '$NS' '$BUILD/tapdp-run' --module -- sh -c \
		'modprobe openvswitch && cat \$TAPDP_MODULE_DIR/tapdpd.pid' > '$T/pid'
	pid=\$(cat '$T/pid'); [ -n \"\$pid\" ] &&
	for i in \$(seq 100); do
		[ ! -e /proc/\$pid ] || grep -q '^State:.*Z' /proc/\$pid/status &&
			exit 0
		sleep 0.05
	done; exit 1"
check_absent "...and its directory is gone" "tapdp-module" \
	bash -c "ls '$T_TMP'"
finish
