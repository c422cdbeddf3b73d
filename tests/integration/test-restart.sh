#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Nothing lost: tapdpd killed with SIGKILL, or upgraded in place (SIGUSR2
# execs the binary at its path), under traffic and with clients connected.
# The keeper holds the devices, the clients' sockets and the journal; the
# new daemon takes them back. Checked with the kernel selftest's
# ovs-dpctl.py (an upcall listener that stays connected) and with
# ovs-vswitchd: the same ports, port numbers and flows before and after,
# tunnel ports and their devices included, traffic through within 1 s of
# the new daemon's start, the same client processes, and no WARN or ERR in
# ovs-vswitchd's log.
. "$(dirname "$0")/../lib.sh"

HOSTS="rsa$$ rsb$$"
ovs_env
LISTENER=
SERVER=
cleanup() {
	# Nothing of ours may outlive the script: a process left holding its
	# output would keep run-all.sh waiting for the end of it.
	for p in $LISTENER $SERVER $PINGER; do kill "$p" 2>/dev/null; done
	ovs_cleanup
}
trap cleanup EXIT

# A process gone, or a zombie nobody reaped yet.

# Lines the daemon logged that say it took over, so far; more than $1.
takeovers() { grep -c "took over" "$LOG"; }
more_takeovers() { [ "$(takeovers)" -gt "$1" ]; }

# Kills the daemon with SIGKILL and starts a new one; $STARTED is the time
# (ms) the new one said it serves.
crash_restart() {
	local pid
	pid=$(cat "$PIDF")
	kill -KILL "$pid"
	wait_until 5 dead "$pid" || return 1
	tapdpd_start || return 1
	STARTED=$(date +%s%3N)
}

# SIGUSR2: the daemon execs itself (same pid) and takes over.
upgrade() {
	local n
	n=$(takeovers)
	kill -USR2 "$(cat "$PIDF")"
	wait_until 10 more_takeovers "$n" || { tail -20 "$LOG"; return 1; }
	STARTED=$(date +%s%3N)
}

# Milliseconds from $STARTED until a ping from $1 to $2 is answered (one
# echo, 1 s to answer); 99999 when none is.
through_ms() {
	ip netns exec "$1" ping -c 1 -W 1 "$2" >/dev/null 2>&1 || {
		echo 99999
		return
	}
	echo $(($(date +%s%3N) - STARTED))
}

ports() { pyctl show rdp | grep -E '^ *port [0-9]+:'; }
# Flows without their counters (kept, but traffic moves them).
flows() {
	pyctl dump-flows rdp | sed -E 's/packets:[0-9]+, bytes:[0-9]+, used:[^,]+, //' |
		sort
}

tapdp_ns_up
check "daemon starts" tapdpd_start
set -- $HOSTS
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "r$i" "10.9.0.$i/24"
done

# ovs-dpctl.py: a datapath with per-port upcall pids (-V 2:1), whose port
# r1's upcall reader (add-if -u, as the kernel selftest's upcall test)
# stays connected throughout.
check "add-dp -V 2:1" pyctl add-dp -V 2:1 rdp
# Run without a shell function between, so that $! is the listener itself
# (tapdp-run execs it).
ip netns exec "$NS" env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
	"$BUILD/tapdp-run" -- /usr/bin/python3 -u "$SELFTEST/ovs-dpctl.py" \
	add-if -u rdp r1 >"$T/upcalls" 2>&1 </dev/null &
LISTENER=$!
check "add-if -u r1: the upcall listener runs" \
	wait_until 10 grep -q "listening on upcall" "$T/upcalls"
check "add-if r2" pyctl add-if rdp r2
check "add-if -t internal rint" pyctl add-if -t internal rdp rint
in_ns ip link add r3 type veth peer name r3p
in_ns ip link add r4 type veth peer name r4p
check "add-if r3" pyctl add-if rdp r3
check "add-if r4" pyctl add-if rdp r4
check "del-if r3: a gap in the port numbers" pyctl del-if rdp r3
in_ns ip addr add 10.9.0.100/24 dev rint
in_ns ip link set rint up
# A datagram from the first host: a miss (no flow for UDP).
miss() { ip netns exec "$1" bash -c 'echo x >/dev/udp/10.9.0.2/999'; }
for pair in "1 2" "2 1"; do
	set -- $pair
	pyctl add-flow rdp "in_port($1),eth(),eth_type(0x0806),arp()" "$2"
	pyctl add-flow rdp \
		"in_port($1),eth(),eth_type(0x0800),ipv4(proto=1),icmp()" "$2"
done
set -- $HOSTS
check "ping through the flows" ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.9.0.2
ports >"$T/ports.before"
flows >"$T/flows.before"
check_out "4 ports with a gap at 4" "port 5: r4" cat "$T/ports.before"
check_out "4 flows" "^4$" sh -c "wc -l <$T/flows.before"
ip netns exec "$1" ping -O -i 0.05 -W 1 10.9.0.2 >"$T/ping.bg" 2>&1 </dev/null &
PINGER=$!
misses() { grep -c "MISS upcall" "$T/upcalls"; }
more_misses() { [ "$(misses)" -gt "$1" ]; }

n=$(misses)
miss "$1"
check "before: a miss reaches the listener" wait_until 5 more_misses "$n"

for round in 1 2 3; do
	check "round $round: kill -9 and a new daemon" crash_restart
	ms=$(through_ms "$1" 10.9.0.2)
	check "round $round: traffic through $ms ms after the start (< 1000)" \
		test "$ms" -lt 1000
	check "round $round: the internal port's device stayed" \
		in_ns ip link show rint
	check "round $round: its address too" \
		sh -c "ip -n $NS addr show rint | grep -q 10.9.0.100"
	ports >"$T/ports.after"
	flows >"$T/flows.after"
	check "round $round: the same ports and numbers" \
		diff "$T/ports.before" "$T/ports.after"
	check "round $round: the same flows" \
		diff "$T/flows.before" "$T/flows.after"
	n=$(misses)
	miss "$1"
	check "round $round: a miss reaches the listener that stayed connected" \
		wait_until 5 more_misses "$n"
	check "round $round: the listener is the same process" \
		alive "$LISTENER"
done

check "upgrade (SIGUSR2): the same pid takes over" upgrade
ms=$(through_ms "$1" 10.9.0.2)
check "after the upgrade: traffic through $ms ms after the start (< 1000)" \
	test "$ms" -lt 1000
ports >"$T/ports.after"
flows >"$T/flows.after"
check "after the upgrade: the same ports" diff "$T/ports.before" "$T/ports.after"
check "after the upgrade: the same flows" diff "$T/flows.before" "$T/flows.after"

# The journal goes on after a takeover: a port and a flow changed now
# are there after the next one.
check "del-if r4 after the takeovers" pyctl del-if rdp r4
pyctl add-flow rdp "in_port(2),eth(),eth_type(0x0800),ipv4(proto=17),udp()" "1"
ports >"$T/ports.before"
flows >"$T/flows.before"
# That flow's counters, exact: datagrams only the test sends take it.
udp_count() {
	pyctl dump-flows rdp | grep "proto=17" | grep -oE "packets:[0-9]+" |
		cut -d: -f2
}
send_udp() {
	ip netns exec "$2" bash -c \
		"for i in \$(seq $1); do echo x >/dev/udp/10.9.0.1/7777; done"
}
is_count() { [ "$(udp_count)" = "$1" ]; }
send_udp 5 "$2"
check "the UDP flow counts 5 datagrams" wait_until 5 is_count 5
check "kill -9 once more" crash_restart
ports >"$T/ports.after"
flows >"$T/flows.after"
check "the port deleted since stays deleted" \
	diff "$T/ports.before" "$T/ports.after"
check "the flow added since is there" diff "$T/flows.before" "$T/flows.after"
check_out "its counters went on: still 5" "^5$" udp_count
send_udp 3 "$2"
check "... and count on: 8" wait_until 5 is_count 8
check "an upgrade" upgrade
check_out "its counters after the upgrade: still 8" "^8$" udp_count
send_udp 4 "$2"
check "... and on: 12" wait_until 5 is_count 12

# Ports the datapath let go as their devices went, no client asking, are
# forgotten too: an internal port whose TAP device is deleted from
# outside, one whose namespace is deleted with its device.
gone() { output_lacks "port [0-9]+: $1 " pyctl show rdp; }
check "add-if -t internal r5" pyctl add-if -t internal rdp r5
check "add-if -t internal r6" pyctl add-if -t internal rdp r6
in_ns ip link del r5
ip netns add rsm$$
in_ns ip link set r6 netns rsm$$
ip netns del rsm$$
check "r5, its device deleted, is detached" wait_until 10 gone r5
check "r6, deleted with its namespace, is detached" wait_until 10 gone r6
ports >"$T/ports.before"
check "kill -9 again" crash_restart
ports >"$T/ports.after"
check "ports detached as their devices went stay detached" \
	diff "$T/ports.before" "$T/ports.after"
check "r5's device is not made again" link_gone "$NS" r5

# Tunnel ports: on collect-metadata devices made over rtnetlink
# (ovs-dpctl.py's default, and how ovs-vswitchd makes them; one made by
# ip link), and of a compat type, which makes its own device. They come
# back, devices and ports, after a kill -9 and after an upgrade; a device
# deleted since stays deleted.
link_ns() { in_ns "$BUILD/tapdp-run" -- ip -d link show "$@"; }
check "add-if -t vxlan rvx (a device over rtnetlink)" \
	pyctl add-if -t vxlan rdp rvx
check "add-if -t geneve --lwt '' rgn (compat)" \
	pyctl add-if -t geneve --lwt '' rdp rgn
check "ip link add rvz mtu 9000 type vxlan external dstport 4800, add-if rvz" \
	eval "in_ns $BUILD/tapdp-run -- ip link add rvz mtu 9000 type vxlan \
	      external dstport 4800 && pyctl add-if rdp rvz"
# Changed since it was made: kept as it is, not as it was made.
in_ns ip link set rvz mtu 1400 up
ports >"$T/ports.before"
for how in crash_restart upgrade; do
	check "$how with tunnel ports" $how
	ports >"$T/ports.after"
	check "after $how: the same ports, tunnel ports included" \
		diff "$T/ports.before" "$T/ports.after"
	check_out "after $how: rvx is the collect-metadata vxlan device it was" \
		"vxlan external id 0 .*dstport 4789" link_ns rvx
	check_out "after $how: so is rvz, on its port" \
		"vxlan external id 0 .*dstport 4800" link_ns rvz
	check "after $how: rgn's device stayed" in_ns ip link show rgn
	check_out "after $how: rvz has the MTU and state set since" \
		"<.*UP.*> mtu 1400 " in_ns ip link show rvz
done
check "rvz's device deleted over rtnetlink" \
	in_ns "$BUILD/tapdp-run" -- ip link del rvz
check "...its port with it" wait_until 10 gone rvz
ports >"$T/ports.before"
check "kill -9 after the deletion" crash_restart
ports >"$T/ports.after"
check "rvz stays deleted, the other tunnel ports stay" \
	diff "$T/ports.before" "$T/ports.after"
check "rvz's device is not made again" link_gone "$NS" rvz
check_out "rvx still answers as a vxlan device" "vxlan external" link_ns rvx
# It would hold UDP port 4789, which ovs-vswitchd's vxlan port wants.
check "rvx's device deleted over rtnetlink" \
	in_ns "$BUILD/tapdp-run" -- ip link del rvx

kill -INT "$PINGER" 2>/dev/null
wait "$PINGER" 2>/dev/null
# The longest run of echoes without an answer, at 50 ms each: how long
# the worst of 5 takeovers interrupted traffic.
gap=$(grep -oE 'bytes from .*icmp_seq=[0-9]+' "$T/ping.bg" | grep -oE '[0-9]+$' |
	sort -n | awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 }
		       END { print (m ? m - 1 : 0) * 50 }')
got=$(grep -c 'bytes from' "$T/ping.bg")
check "background ping every 50 ms ($got answered): the longest interruption of 5 takeovers ${gap:-?} ms (< 1000)" \
	test "${gap:-99999}" -lt 1000 -a "$got" -gt 20
kill "$LISTENER"
LISTENER=
check "del-dp" pyctl del-dp rdp

# ovs-vswitchd: a NORMAL bridge; the daemon killed and upgraded under it.
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts on tapdp" vswitchd_start
VPID=$(cat "$T/vswitchd.pid")
$VSCTL add-br br0 && $VSCTL add-port br0 r1 && $VSCTL add-port br0 r2
check "NORMAL: ping" ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
vports() { dpctl show | grep -E '^ *port [0-9]+:'; }
vflows() { appctl dpctl/dump-flows | sed -E 's/packets:[0-9]+, bytes:[0-9]+, used:[^,]+, //' | sort; }
# Tunnel ports as OVN's chassis have them: ovs-vswitchd makes their
# devices over rtnetlink (genev_sys_6081, vxlan_sys_4789).
$VSCTL add-port br0 gnv0 -- set interface gnv0 type=geneve \
	options:remote_ip=10.9.9.9 options:key=flow
$VSCTL add-port br0 vx0 -- set interface vx0 type=vxlan \
	options:remote_ip=10.9.9.10
tunnel_ports() {
	dpctl show | grep -q 'genev_sys_6081' &&
		dpctl show | grep -q 'vxlan_sys_4789'
}
check "vswitchd: its tunnel ports, on devices over rtnetlink" \
	wait_until 10 tunnel_ports
vports >"$T/vports.before"
check_out "ovs-system has br0, r1, r2" "port 3: r2" cat "$T/vports.before"
for how in crash_restart upgrade crash_restart; do
	ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.9.0.2 >/dev/null
	vflows >"$T/vflows.before"
	check "vswitchd: $how" $how
	ms=$(through_ms "$1" 10.9.0.2)
	check "vswitchd: traffic through $ms ms after $how (< 1000)" \
		test "$ms" -lt 1000
	vports >"$T/vports.after"
	check "vswitchd: the same ports and numbers after $how" \
		diff "$T/vports.before" "$T/vports.after"
	vflows >"$T/vflows.after"
	check "vswitchd: the flows it had are there after $how" \
		sh -c "comm -23 $T/vflows.before $T/vflows.after | grep -c . | grep -qx 0"
done
# Connection tracking: new connections only from r1 and only by a SYN,
# marked 5 at commit, and only established ones of mark 5 pass otherwise.
# A TCP stream that crosses a kill -9 keeps flowing only if its connection
# came back with its state and mark (a lost one would be "new" mid-stream
# and dropped).
ovs-ofctl del-flows br0
ovs-ofctl add-flow br0 "table=0,priority=10,arp,actions=NORMAL"
ovs-ofctl add-flow br0 "table=0,priority=5,ip,ct_state=-trk,actions=ct(table=1)"
ovs-ofctl add-flow br0 "table=1,priority=10,in_port=r1,tcp,tcp_flags=+syn,ct_state=+trk+new,actions=ct(commit,exec(set_field:5->ct_mark)),NORMAL"
ovs-ofctl add-flow br0 "table=1,priority=10,ip,ct_state=+trk+est,ct_mark=5,actions=NORMAL"
ovs-ofctl add-flow br0 "table=1,priority=1,actions=drop"
ip netns exec "$2" timeout 30 nc -l -p 5002 >"$T/stream.out" 2>/dev/null \
	</dev/null &
SERVER=$!
wait_until 10 listens "$2" tcp 5002
ip netns exec "$1" sh -c "for i in \$(seq 1 40); do echo line\$i; sleep 0.1; done |
	timeout 30 nc -q 1 10.9.0.2 5002" >/dev/null 2>&1 </dev/null &
STREAM=$!
check "ct: the stream is flowing" wait_until 5 grep -q line3 "$T/stream.out"
check_out "ct: its connection is tracked, mark 5" "dport=5002.*mark=5" \
	dpctl dump-conntrack
check "ct: kill -9 mid-stream" crash_restart
check_out "ct: the connection came back, mark 5" "dport=5002.*mark=5" \
	dpctl dump-conntrack
wait "$STREAM"
check "ct: all 40 lines arrived across the takeover" \
	wait_until 10 grep -qx line40 "$T/stream.out"
check_out "ct: none lost" "^40$" sh -c "grep -c '^line' $T/stream.out"
ovs-ofctl del-flows br0
ovs-ofctl add-flow br0 actions=NORMAL

check "vswitchd: a new port after the takeovers" $VSCTL add-port br0 rint2 -- \
	set interface rint2 type=internal
check "vswitchd: its device exists" wait_until 5 in_ns ip link show rint2
check "vswitchd: the same ovs-vswitchd process" test "$(cat "$T/vswitchd.pid")" = "$VPID"
check_vswitchd_log
finish
