#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# OVN across three hosts on tapdp: Debian's OVN 23.03 (ovn-northd,
# ovn-controller) and Open vSwitch 3.1, unmodified, with tapdp serving the
# kernel datapath (datapath_type=system) of every chassis.
#
#   central     namespace: the NB and SB ovsdb-servers, ovn-northd
#   chassis 1-3 namespaces, each with its own tapdpd, ovsdb-server,
#               ovs-vswitchd (through tapdp-run) and ovn-controller; geneve
#               encapsulation over the underlay
#   fabric      namespace routing between the hosts' underlay links (no
#               bridge module needed)
#   vm1, vm2    on logical switch ls1 (10.0.1.0/24), chassis 1 and 2
#   vm3         on logical switch ls2 (10.0.2.0/24), chassis 3
#   lr          logical router joining ls1 and ls2
#
# ls2's ACLs are stateful: ls1 may open ICMP and TCP port 5201 to ls2 (the
# replies pass as established), other TCP from ls1 is rejected (a TCP
# reset made by ovn-controller), and ls2 may open nothing towards ls1.
#
#   scripts/ovn-demo.sh                  installs, builds, shows each step
#   scripts/ovn-demo.sh --check [--logs DIR]
#       prints only "ok - "/"FAIL - " lines and "N passed, N failed"
#       (status 1 on a failure), with the build in $BUILD (default build);
#       --logs copies every daemon's log to DIR before the cleanup.
# Everything (processes, namespaces, files) is removed on exit.
cd "$(dirname "$0")/.." || exit 1
CHECK=0 LOGS=
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=1 ;;
	--logs) LOGS=$2; shift ;;
	*) echo "usage: $0 [--check] [--logs DIR]" >&2; exit 2 ;;
	esac
	shift
done
if [ "$CHECK" -eq 0 ]; then
	sh scripts/install-deps.sh || exit 1
	make -j2 all >/dev/null || exit 1
fi
# The tests' helpers: $T, $BUILD, ok/nok, wait_until, finish.
. tests/lib.sh

CHASSIS="1 2 3"
FAB=ovnfab$$
hostns() { echo "ovn$1$$"; }   # central, c1, c2, c3
vmns() { echo "ovnvm$1$$"; }
# Host i's underlay: 172.31.21i.2/24, the fabric's end 172.31.21i.1.
underlay() { case $1 in c?) echo "172.31.21${1#c}.2" ;; central) echo 172.31.214.2 ;; esac; }
CENTRAL=$(underlay central)

on() { # HOST CMD...: in HOST's namespace, with its own run directory
	local h=$1 d=$T/$1
	shift
	ip netns exec "$(hostns "$h")" env OVS_RUNDIR="$d" OVS_LOGDIR="$d" \
		OVS_DBDIR="$d" OVS_SYSCONFDIR="$d" OVN_RUNDIR="$d" \
		OVN_LOGDIR="$d" OVN_DBDIR="$d" OVN_SYSCONFDIR="$d" \
		TAPDP_SOCKET="$d/tapdp.sock" "$@"
}
vsctl() { local h=$1; shift; ovs-vsctl --db=unix:"$T/$h/db.sock" --timeout=10 "$@"; }
nbctl() { ovn-nbctl --db=unix:"$T/central/nb.sock" --timeout=30 "$@"; }
sbctl() { ovn-sbctl --db=unix:"$T/central/sb.sock" --timeout=30 "$@"; }
in_vm() { local v=$1; shift; ip netns exec "$(vmns "$v")" "$@"; }

# Daemons stop in the reverse of their start: ovn-controller before the
# switch it programs, ovn-northd before its databases. Before the summary,
# so that the sanitizer build's reports at exit are counted; their logs are
# kept as they were before (a signal makes ovs-vswitchd log a warning).
PIDS="iperf-* ovn-controller ovn-northd ovs-vswitchd ovsdb-server nb sb tapdpd"
stop_all() {
	local p f pid
	if [ -n "$LOGS" ]; then
		mkdir -p "$LOGS"
		for f in "$T"/*/*.log; do
			[ -f "$f" ] && cp "$f" "$LOGS/$(basename "$(dirname "$f")")-$(basename "$f")"
		done
		LOGS=   # once: the exit trap stops nothing more
	fi
	for p in $PIDS; do
		for f in "$T"/*/$p.pid; do
			[ -f "$f" ] || continue
			pid=$(cat "$f")
			kill "$pid" 2>/dev/null && wait_until 5 test ! -e "/proc/$pid"
			rm -f "$f"
		done
	done
}
cleanup() {
	stop_all
	for h in central c1 c2 c3; do ip netns del "$(hostns $h)" 2>/dev/null; done
	for v in 1 2 3; do ip netns del "$(vmns $v)" 2>/dev/null; done
	ip netns del "$FAB" 2>/dev/null
	tapdp_cleanup
}
trap cleanup EXIT

# Demo mode shows each command and its output; both modes count checks.
say() { [ "$CHECK" -eq 1 ] || printf '\n\033[1m== %s\033[0m\n' "$*"; }
# check() keeps a command's output for its report: demo mode shows it on
# the terminal too (fd 3, the script's own stdout).
exec 3>&1
runs() { # CMD...: runs it, showing it and its output in demo mode
	if [ "$CHECK" -eq 1 ]; then "$@"; return; fi
	local out st
	out=$("$@" 2>&1)
	st=$?
	printf '$ %s\n%s\n' "$*" "$out" >&3
	printf '%s\n' "$out"
	return "$st"
}
show() { # CMD...: in demo mode only
	[ "$CHECK" -eq 1 ] || { printf '$ %s\n' "$*"; "$@" 2>&1; }
}
expect() { check "$1" runs "${@:2}"; }
expect_out() { check_out "$1" "$2" runs "${@:3}"; }
expect_fails() { check_fails "$1" runs "${@:2}"; }
# A setup step that must work: the scenario stops at the first that fails,
# showing what the daemons logged at ERR or EMER level.
need() {
	local before=$FAIL
	check "$@"
	[ "$FAIL" -eq "$before" ] && return
	grep -E '\|(ERR|EMER)\|' "$T"/*/*.log | sed "s|^$T/|    |" | head -20
	stop_all
	finish
	exit 1
}

underlay_up() {
	local h i=1 ns a
	ip netns add "$FAB" && ip -n "$FAB" link set lo up &&
		ip netns exec "$FAB" sysctl -qw net.ipv4.ip_forward=1 || return 1
	for h in c1 c2 c3 central; do
		ns=$(hostns $h) a=$(underlay $h)
		ip netns add "$ns" && ip -n "$ns" link set lo up &&
			ip link add "ul$i" netns "$FAB" type veth peer name ul0 netns "$ns" &&
			ip -n "$FAB" addr add "${a%.2}.1/24" dev "ul$i" &&
			ip -n "$FAB" link set "ul$i" up &&
			ip -n "$ns" addr add "$a/24" dev ul0 &&
			ip -n "$ns" link set ul0 up &&
			ip -n "$ns" route add default via "${a%.2}.1" || return 1
		mkdir -p "$T/$h"
		i=$((i + 1))
	done
	mkdir -p "$T/vm"
}

central_up() {
	local d=$T/central db
	for db in nb sb; do
		ovsdb-tool create "$d/$db.db" /usr/share/ovn/ovn-$db.ovsschema || return 1
	done
	on central ovsdb-server --detach --pidfile="$d/nb.pid" --log-file="$d/nb.log" \
		--unixctl="$d/nb.ctl" --remote=punix:"$d/nb.sock" \
		--remote=ptcp:6641:"$CENTRAL" "$d/nb.db" || return 1
	on central ovsdb-server --detach --pidfile="$d/sb.pid" --log-file="$d/sb.log" \
		--unixctl="$d/sb.ctl" --remote=punix:"$d/sb.sock" \
		--remote=ptcp:6642:"$CENTRAL" "$d/sb.db" || return 1
	on central ovn-northd --detach --pidfile --log-file \
		--ovnnb-db=unix:"$d/nb.sock" --ovnsb-db=unix:"$d/sb.sock" || return 1
	nbctl --wait=sb sync
}

chassis_up() { # c1|c2|c3
	local h=$1 d=$T/$1
	on "$h" "$BUILD/tapdpd" --socket "$d/tapdp.sock" --log-file "$d/tapdpd.log" \
		--pidfile "$d/tapdpd.pid" --detach || return 1
	ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema || return 1
	on "$h" ovsdb-server --detach --pidfile --log-file \
		--remote=punix:"$d/db.sock" "$d/conf.db" || return 1
	vsctl "$h" --no-wait init || return 1
	on "$h" "$BUILD/tapdp-run" -- ovs-vswitchd "unix:$d/db.sock" \
		--detach --pidfile --log-file || return 1
	vsctl "$h" set open_vswitch . external_ids:system-id="chassis-${h#c}" \
		external_ids:hostname="chassis-${h#c}" \
		external_ids:ovn-remote="tcp:$CENTRAL:6642" \
		external_ids:ovn-encap-type=geneve \
		external_ids:ovn-encap-ip="$(underlay "$h")" || return 1
	# ovn-controller asks the datapath about ports too (through OVS's
	# netdev-linux, as ovs-vswitchd): the shim's client as well.
	on "$h" "$BUILD/tapdp-run" -- ovn-controller --detach --pidfile \
		--log-file "unix:$d/db.sock"
}

# vm_up N CHASSIS MAC IP/LEN GATEWAY LSP: a namespace whose eth0 is a veth
# to br-int on CHASSIS, bound to logical port LSP.
vm_up() {
	local ns h=$2
	ns=$(vmns "$1")
	ip netns add "$ns" &&
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip link add "vm$1" netns "$(hostns "$h")" type veth peer name eth0 \
			netns "$ns" &&
		ip -n "$ns" link set eth0 address "$3" mtu 1400 &&
		ip -n "$ns" link set lo up && ip -n "$ns" link set eth0 up &&
		ip -n "$ns" addr add "$4" dev eth0 &&
		ip -n "$ns" route add default via "$5" &&
		ip -n "$(hostns "$h")" link set "vm$1" up &&
		vsctl "$h" add-port br-int "vm$1" -- \
			set interface "vm$1" external_ids:iface-id="$6"
}

chassis_registered() {
	[ "$(sbctl --bare --columns=name list chassis | grep -c .)" -eq 3 ]
}

geneve_encaps() { # the three chassis, each with a geneve encap at its address
	local out h
	out=$(sbctl show) || return 1
	for h in $CHASSIS; do
		grep -A3 "Chassis chassis-$h" <<<"$out" | grep -q "Encap geneve" &&
			grep -A4 "Chassis chassis-$h" <<<"$out" |
			grep -Fq "ip: \"$(underlay "c$h")\"" || return 1
	done
}

serve() { # VM PORT: a one-shot iperf3 server
	in_vm "$1" iperf3 -s -1 -D -p "$2" -I "$T/vm/iperf-$1-$2.pid" \
		>/dev/null 2>&1 &&
		wait_until 5 listens "$(vmns "$1")" tcp "$2"
}

tcp_transfer() { # FROM TO-VM TO-IP PORT: 4 MB with iperf3
	serve "$2" "$4" || return 1
	in_vm "$1" timeout 30 iperf3 -c "$3" -p "$4" -n 4M
}

say "underlay: a fabric namespace routing between four hosts"
need "underlay: fabric and hosts" underlay_up
say "central: NB and SB ovsdb-servers, ovn-northd"
need "central: ovsdb-servers (NB, SB) and ovn-northd" central_up
for h in $CHASSIS; do
	need "chassis $h: tapdpd, ovsdb-server, ovs-vswitchd (tapdp-run), ovn-controller" \
		chassis_up "c$h"
done
need "three chassis registered in the SB database" wait_until 30 chassis_registered
need "ovn-controller made br-int on every chassis" wait_until 30 \
	vsctl c1 br-exists br-int
for h in 2 3; do
	need "br-int on chassis $h" wait_until 30 vsctl "c$h" br-exists br-int
done
say "ovn-sbctl show: three chassis, each with its geneve encap"
show sbctl show
check "ovn-sbctl show: three chassis with geneve encaps at their underlay addresses" \
	geneve_encaps

say "logical topology: ls1 (vm1, vm2), ls2 (vm3), router lr"
need "logical switches, router and ports" nbctl \
	-- ls-add ls1 -- ls-add ls2 -- lr-add lr \
	-- lrp-add lr lr-ls1 00:00:00:00:01:01 10.0.1.1/24 \
	-- lrp-add lr lr-ls2 00:00:00:00:02:01 10.0.2.1/24 \
	-- lsp-add ls1 ls1-lr -- lsp-set-type ls1-lr router \
	-- lsp-set-addresses ls1-lr router \
	-- lsp-set-options ls1-lr router-port=lr-ls1 \
	-- lsp-add ls2 ls2-lr -- lsp-set-type ls2-lr router \
	-- lsp-set-addresses ls2-lr router \
	-- lsp-set-options ls2-lr router-port=lr-ls2 \
	-- lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:01:00:11 10.0.1.11" \
	-- lsp-add ls1 vm2 -- lsp-set-addresses vm2 "00:00:00:01:00:12 10.0.1.12" \
	-- lsp-add ls2 vm3 -- lsp-set-addresses vm3 "00:00:00:02:00:13 10.0.2.13"
say "ls2's stateful ACLs"
need "ACLs on ls2" nbctl \
	-- acl-add ls2 to-lport 1002 'ip4.src == 10.0.1.0/24 && (icmp4 || tcp.dst == 5201)' allow-related \
	-- acl-add ls2 to-lport 1001 'ip4.src == 10.0.1.0/24 && tcp' reject \
	-- acl-add ls2 to-lport 1000 'ip4.src == 10.0.1.0/24' drop \
	-- acl-add ls2 from-lport 1001 'ip4.dst == 10.0.1.0/24' drop
show nbctl acl-list ls2
need "vm1 on chassis 1" vm_up 1 c1 00:00:00:01:00:11 10.0.1.11/24 10.0.1.1 vm1
need "vm2 on chassis 2" vm_up 2 c2 00:00:00:01:00:12 10.0.1.12/24 10.0.1.1 vm2
need "vm3 on chassis 3" vm_up 3 c3 00:00:00:02:00:13 10.0.2.13/24 10.0.2.1 vm3
for v in vm1 vm2 vm3; do
	need "$v is up (bound by its chassis)" nbctl wait-until \
		logical_switch_port "$v" up=true
done
need "every chassis caught up with the logical flows" nbctl --wait=hv sync
show nbctl show
show sbctl show

say "ls1 across chassis: vm1 (chassis 1) and vm2 (chassis 2)"
expect "ls1: ping vm1 -> vm2 across chassis" \
	in_vm 1 ping -c 3 -i 0.2 -W 2 10.0.1.12
expect "ls1: ping vm2 -> vm1" in_vm 2 ping -c 2 -i 0.2 -W 2 10.0.1.11
expect_out "ls1: TCP vm1 -> vm2 (4 MB)" receiver tcp_transfer 1 2 10.0.1.12 5201

say "through the router, ACL allowing: vm1, vm2 (ls1) -> vm3 (ls2)"
expect "lr: ping vm1 -> vm3 (ICMP allowed)" in_vm 1 ping -c 3 -i 0.2 -W 2 10.0.2.13
expect "lr: ping vm2 -> vm3 (chassis 2 routes too)" \
	in_vm 2 ping -c 2 -i 0.2 -W 2 10.0.2.13
expect_out "lr: TCP vm1 -> vm3 port 5201 (allowed, 4 MB)" receiver \
	tcp_transfer 1 3 10.0.2.13 5201

say "through the router, ACL refusing (each port has a listener)"
need "vm3 listens on TCP 5202" serve 3 5202
expect_out "ACL: TCP vm1 -> vm3 port 5202 rejected (a reset)" "Connection refused" \
	in_vm 1 nc -z -v -w 3 10.0.2.13 5202
expect "ACL: ping vm3 -> vm1 not answered (ls2 opens nothing)" \
	unanswered "$(vmns 3)" -c 2 -i 0.2 -W 1 10.0.1.11
need "vm1 listens on TCP 5203" serve 1 5203
expect_out "ACL: TCP vm3 -> vm1 port 5203 dropped (no answer)" "timed out" \
	in_vm 3 nc -z -v -w 3 10.0.1.11 5203
expect "ACL: vm1 -> vm3 still allowed afterwards" \
	in_vm 1 ping -c 2 -i 0.2 -W 2 10.0.2.13
say "chassis 3's datapath: the connections ls2's ACLs let in, in vm3's zone"
show on c3 ovs-appctl dpctl/dump-conntrack
for h in $CHASSIS; do
	check "chassis $h: ovn-controller still running" \
		test -e "/proc/$(cat "$T/c$h/ovn-controller.pid")"
done
stop_all
finish
