#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One daemon, four network namespaces as the kernel keeps them apart: the
# daemon's, two containers (ip netns) and a user's own (nobody's, in
# unshare -rn: a rootless container), each with its own ovsdb-server and
# ovs-vswitchd (the shim's sockets made in that namespace). Each makes a
# bridge of the same name, with internal ports of the same names moved on
# into two namespaces of their own with the same addresses; pings flow in
# each, through upcalls and megaflows; each sees its own datapath, ports,
# flows and connections only; the daemon killed and started again, then
# upgraded in place, keeps every namespace's state, and each ovs-vswitchd
# goes on; a container deleted, and the user's namespace gone, take their
# state along (tapdpctl status counts the namespaces served), and the
# others go on.
. "$(dirname "$0")/../lib.sh"

C1=tapdpc1$$ C2=tapdpc2$$ U=tapdpu$$
ALL="$NS $C1 $C2 $U"
# Where each namespace's ports go: two namespaces of their own.
HOSTS=
for c in $ALL; do HOSTS="$HOSTS ${c}a ${c}b ${c}c"; done
UPID=
user_gone() {
	[ -n "$UPID" ] && kill "$UPID" 2>/dev/null
	umount "/run/netns/$U" 2>/dev/null && rm -f "/run/netns/$U"
}
stop_all() {
	for c in $ALL; do ovs_of "$c" stop; done
	user_gone
	for n in $C1 $C2 $HOSTS; do ip netns del "$n" 2>/dev/null; done
	tapdp_cleanup
}
trap stop_all EXIT

# The user's namespace runs its commands as its root (nobody outside), the
# others as root; the clients are copied where the user reaches them.
as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }
exec_in() {
	local c=$1
	shift
	if [ "$c" = "$U" ]; then
		as_user nsenter -t "$UPID" -U -n -m --preserve-credentials "$@"
	else
		ip netns exec "$c" "$@"
	fi
}
B=$T/bin
mkdir -p "$B"
cp "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$BUILD/tapdpctl" "$B/"
chmod -R a+rX "$B"

# The OVS of namespace $1, in $T/$1: ovs_of NS start|stop, or a command
# with that OVS's environment (ovs-ofctl br0 finds its bridge there).
ovs_of() {
	local c=$1 d=$T/$1 p
	shift
	local env="env OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d"
	case $1 in
	start)
		mkdir -p -m 777 "$d"
		exec_in "$c" ovsdb-tool create "$d/conf.db" \
			"$OVS_SCHEMA" &&
		exec_in "$c" $env ovsdb-server --remote="punix:$d/db.sock" \
			--pidfile="$d/ovsdb.pid" --detach \
			--log-file="$d/ovsdb.log" "$d/conf.db" &&
		vsctl "$c" --no-wait init &&
		exec_in "$c" $env "$B/tapdp-run" -- ovs-vswitchd \
			"unix:$d/db.sock" --pidfile="$d/vswitchd.pid" --detach \
			--log-file="$d/vswitchd.log"
		;;
	stop)
		for p in vswitchd ovsdb; do
			[ -f "$d/$p.pid" ] || continue
			p=$(cat "$d/$p.pid")
			kill "$p" 2>/dev/null && wait_until 5 dead "$p"
		done
		rm -f "$d"/*.pid
		;;
	*)
		$env "$@"
		;;
	esac
}
vsctl() { local c=$1; shift; ovs-vsctl --db="unix:$T/$c/db.sock" --timeout=10 "$@"; }
dpctl_in() { local c=$1; shift; exec_in "$c" "$B/tapdp-run" -- ovs-dpctl "$@"; }
appctl_in() {
	local c=$1
	shift
	ovs-appctl -t "$T/$c/ovs-vswitchd.$(cat "$T/$c/vswitchd.pid").ctl" "$@"
}

tapdp_ns_up
check "daemon starts" tapdpd_start
for c in $C1 $C2; do
	ip netns add "$c"
	ip netns exec "$c" ip link set lo up
done
# The user's namespaces, held by a process of its own (not a function: $!
# must be that process); named for ip -n.
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	unshare -rnm --propagation private sh -c \
	'mount -t sysfs sysfs /sys && ip link set lo up && exec sleep 3600' &
UPID=$!
check "a user's namespaces of its own (unshare -rn)" wait_until 10 eval \
	'[ "$(readlink /proc/$UPID/exe)" = "$(readlink -f "$(command -v sleep)")" ]'
mkdir -p /run/netns
touch "/run/netns/$U"
mount --bind "/proc/$UPID/ns/net" "/run/netns/$U"
for c in $ALL; do
	ip netns exec "$c" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	check "$c: ovsdb-server and ovs-vswitchd start" ovs_of "$c" start
	# Megaflows idle for minutes stay: the restart's checks compare
	# them.
	check "$c: a bridge br0 with internal ports p1 and p2" \
		vsctl "$c" set Open_vSwitch . other_config:max-idle=600000 -- \
		add-br br0 -- \
		add-port br0 p1 -- set interface p1 type=internal -- \
		add-port br0 p2 -- set interface p2 type=internal
	check "$c: their devices are in $c" \
		wait_until 10 ip -n "$c" link show p2
done
for c in $ALL; do
	check_out "$c: its datapath has its own four ports" \
		"^4$" eval "dpctl_in $c show | grep -c '^  port'"
	check_out "... ovs-vswitchd's view" "br0 65534/[0-9]+: \(internal\)" \
		appctl_in "$c" dpif/show
done
for c in $C1 $U; do
	check_out "$c: one datapath, none of the others'" "^system@ovs-system$" \
		dpctl_in "$c" dump-dps
done

# Every namespace's ports moved on into two of their own, with the same
# addresses everywhere.
for c in $ALL; do
	for i in 1 2; do
		h=${c}$([ $i = 1 ] && echo a || echo b)
		ip netns add "$h"
		ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "$c" link set "p$i" netns "$h"
		ip -n "$h" addr add "10.9.0.$i/24" dev "p$i"
		ip -n "$h" link set "p$i" up
	done
	# Neighbours fixed: no ARP probe of a stale entry puts a flow in
	# the datapath between a snapshot of its flows and their
	# comparison below.
	mac1=$(ip netns exec "${c}a" cat /sys/class/net/p1/address)
	mac2=$(ip netns exec "${c}b" cat /sys/class/net/p2/address)
	ip -n "${c}a" neigh replace 10.9.0.2 lladdr "$mac2" dev p1 nud permanent
	ip -n "${c}b" neigh replace 10.9.0.1 lladdr "$mac1" dev p2 nud permanent
done
# Connections tracked in the first container only.
check "$C1: ovs-ofctl add-flows: ct(commit) then NORMAL" \
	ovs_of "$C1" ovs-ofctl add-flows br0 - <<'OF'
table=0,priority=10,ip,ct_state=-trk,actions=ct(table=1)
table=1,priority=10,ip,ct_state=+trk+new,actions=ct(commit),NORMAL
table=1,priority=10,ip,ct_state=+trk+est,actions=NORMAL
table=0,priority=0,actions=NORMAL
OF
for c in $ALL; do
	check "$c: ping between its ports" \
		ip netns exec "${c}a" ping -c 3 -i 0.2 -W 2 10.9.0.2
	check_out "... by megaflows ovs-vswitchd installed in its datapath" \
		"eth_type\(0x0800\).*packets:[1-9]" dpctl_in "$c" dump-flows
done
check_out "$C1: its connection tracked" "icmp,orig=\(src=10.9.0.1,dst=10.9.0.2" \
	appctl_in "$C1" dpctl/dump-conntrack
for c in $NS $C2 $U; do
	check_absent "$c: none of $C1's connections" "10.9.0" \
		appctl_in "$c" dpctl/dump-conntrack
	check_absent "$c: none of $C1's ct flows" "ct\(" dpctl_in "$c" dump-flows
done
check_out "$C1: its ct flows" "ct\(" dpctl_in "$C1" dump-flows

# The daemon killed and started again, then upgraded in place (SIGUSR2):
# each namespace's datapath comes back with its ports (their devices where
# they were), megaflows and connections, and its ovs-vswitchd goes on
# installing flows through its socket, which the keeper held.
crash_restart() {
	local pid
	pid=$(cat "$PIDF")
	kill -KILL "$pid"
	wait_until 5 dead "$pid" && tapdpd_start
}
upgrade() {
	local n
	n=$(grep -c "took over" "$LOG")
	kill -USR2 "$(cat "$PIDF")"
	wait_until 10 eval '[ "$(grep -c "took over" "$LOG")" -gt '"$n"' ]'
}
# Flows without their counters (not kept: docs/RELIABILITY.md).
flows_of() {
	dpctl_in "$1" dump-flows |
		sed -E 's/packets:[0-9]+, bytes:[0-9]+, used:[^,]+, //' | sort
}
# revalidator/purge skips a flow whose ukey a revalidator thread holds
# at that moment (OVS's revalidator_sweep__), and a skipped ukey keeps a
# handler from installing its flow again: the revalidators are paused
# around the purge, as OVS's own tests do. Then the pings' IPv4 flows
# are gone.
purged() {
	appctl_in "$1" revalidator/pause &&
		appctl_in "$1" revalidator/purge &&
		appctl_in "$1" revalidator/resume &&
		! dpctl_in "$1" dump-flows | grep -q "eth_type(0x0800)"
}
# Pings, and their flow is in the datapath with the packets counted.
pinged_through() {
	ip netns exec "${1}a" ping -c 2 -i 0.2 -W 2 10.9.0.2 &&
		dpctl_in "$1" dump-flows |
		grep -Eq "eth_type\(0x0800\).*packets:[1-9]"
}
for how in crash_restart upgrade; do
	for c in $ALL; do
		ip netns exec "${c}a" ping -c 1 -W 2 10.9.0.2 >/dev/null
		flows_of "$c" > "$T/$c.flows"
	done
	check "$how" $how
	check_out "... every namespace made again" \
		"made again 3 other namespaces' datapaths" tail -20 "$LOG"
	for c in $ALL; do
		check_out "$c after $how: its four ports" "^4$" \
			eval "dpctl_in $c show | grep -c '^  port'"
		check "... its megaflows as they were" \
			eval "flows_of $c | diff -u $T/$c.flows -"
		check "... pings between its ports' devices where they were" \
			ip netns exec "${c}a" ping -c 2 -i 0.2 -W 2 10.9.0.2
		check_out "... through those megaflows" \
			"eth_type\(0x0800\).*packets:[1-9]" dpctl_in "$c" dump-flows
	done
	check_out "$C1: its connection kept" \
		"icmp,orig=\(src=10.9.0.1,dst=10.9.0.2" appctl_in "$C1" \
		dpctl/dump-conntrack
	check_absent "$C2: none of $C1's connections" "10.9.0" \
		appctl_in "$C2" dpctl/dump-conntrack
	for c in $ALL; do
		check "$c: ovs-vswitchd purges its megaflows, and they go" \
			wait_until 10 purged "$c"
		check "... and it installs them again" \
			wait_until 10 pinged_through "$c"
	done
done

# A request the user's ovs-vswitchd sends while no daemon runs is judged
# by the proofs of CAP_NET_ADMIN the dead daemon read (its shim proved
# itself once, /proc cannot judge a process of another user namespace):
# the keeper holds them. The request waits in its connection's socket,
# which the keeper holds too, until the successor reads it.
upid=$(cat "$T/$U/vswitchd.pid")
pid=$(cat "$PIDF")
kill -KILL "$pid"
check "$U's request while no daemon runs: the daemon is dead" \
	wait_until 5 dead "$pid"
keeper=$(pgrep -f "tapdpd --socket $SOCK" | head -1)
appctl_in "$U" dpctl/add-flow "in_port(1),eth(),eth_type(0x88b5)" 2 \
	>"$T/add-flow.out" 2>&1 &
adder=$!
# Queued: one of the keeper's sockets whose peer is ovs-vswitchd's holds
# bytes (unix sockets are listed in their own network namespace).
queued() {
	nsenter -t "$UPID" -n ss -xpH | awk -v v="pid=$upid," -v k="pid=$keeper," '
		$0 ~ v { peer[$8] = 1 }
		$0 ~ k && $3 > 0 { held[$6] = 1 }
		END { for (i in held) if (i in peer) found = 1; exit !found }'
}
check "... it waits in the keeper's socket" wait_until 10 queued
check "... a daemon takes over" tapdpd_start
wait "$adder"
check_absent "... and the flow is put, not refused" "failed|ermitted" \
	cat "$T/add-flow.out"
check_out "... it is in the datapath" "eth_type\(0x88b5\).*actions:2" \
	dpctl_in "$U" dump-flows

# A veth of each namespace's own as a netdev port of its bridge (in the
# containers and the user's, its packet sockets opened there by the
# namespace agent): traffic through it to a third namespace of its own.
for c in $ALL; do
	h=${c}c
	ip netns add "$h"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$c" link add v3 type veth peer name p3 netns "$h"
	ip -n "$h" addr add 10.9.0.3/24 dev p3
	ip -n "$h" link set p3 up
	ip -n "$c" link set v3 up
	check "$c: its own veth v3 as a netdev port of br0" \
		vsctl "$c" add-port br0 v3
	check_out "... in its datapath" "port [0-9]+: v3$" dpctl_in "$c" show
	n=$(dpctl_in "$c" show | sed -n 's/^  port \([0-9]*\): v3$/\1/p')
	mac1=$(ip netns exec "${c}a" cat /sys/class/net/p1/address)
	mac3=$(ip netns exec "$h" cat /sys/class/net/p3/address)
	ip -n "${c}a" neigh replace 10.9.0.3 lladdr "$mac3" dev p1 nud permanent
	ip -n "$h" neigh replace 10.9.0.1 lladdr "$mac1" dev p3 nud permanent
	check "$c: ping through it" \
		ip netns exec "${c}a" ping -c 3 -i 0.2 -W 2 10.9.0.3
	check_out "... by megaflows in its datapath" \
		"in_port\((v3|$n)\).*packets:[1-9]" dpctl_in "$c" dump-flows
done

check_out "tapdpctl status in the daemon's namespace: four served" \
	"^namespaces: 4 served" in_ns "$BUILD/tapdpctl" status
check_absent "... a container's is not told of the others" "^namespaces" \
	ip netns exec "$C1" "$BUILD/tapdpctl" status

# The second container goes, and the user's namespace: their state with
# them; the others go on.
ovs_of "$C2" stop
ip netns del "$C2"
# Its netdev port's sockets hold it until the daemon sees nothing else
# does (daemon/netns.h): either way its datapaths go with it.
gone_re="is gone, and its datapaths with it|nothing but the daemon's own sockets hold it"
check "$C2 deleted: the daemon frees its datapaths" \
	wait_until 10 grep -Eq "$gone_re" "$LOG"
check_out "... tapdpctl status: three served" "^namespaces: 3 served" \
	in_ns "$BUILD/tapdpctl" status
check "... and their ports' devices" wait_until 10 link_gone "${C2}a" p1
ovs_of "$U" stop
user_gone
check "the user's namespace gone: the daemon frees its datapaths" \
	wait_until 10 eval '[ "$(grep -Ec "$gone_re" "$LOG")" = 2 ]'
check_out "... tapdpctl status: two served" "^namespaces: 2 served" \
	in_ns "$BUILD/tapdpctl" status
check "... and their ports' devices" wait_until 10 link_gone "${U}a" p1
for c in $NS $C1; do
	check "$c: still pings" ip netns exec "${c}a" ping -c 2 -i 0.2 -W 2 10.9.0.2
	check "$c: ... through its netdev port too" \
		ip netns exec "${c}a" ping -c 2 -i 0.2 -W 2 10.9.0.3
	check_out "$c: its datapath is whole" "port [0-9]+: p2" dpctl_in "$c" show
done
finish
