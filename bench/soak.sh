#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A soak of the sanitizer build: ovs-vswitchd on tapdpd (build-asan) with
# four hosts on one bridge, for SOAK_SECONDS running all at once
#   - mixed traffic: TCP (iperf3 A->B, and C->D through an OpenFlow ct()
#     firewall), UDP (udpgen, each frame a new connection, C->D through
#     conntrack), ping C->D (through conntrack) and ping6 B->D;
#   - flow churn: OpenFlow rules added and deleted in a loop, the datapath's
#     flows deleted (dpctl/del-flows) and expired by the revalidators (a
#     short max-idle);
#   - client restarts, every SOAK_RESTART seconds: ovs-vswitchd exits and
#     starts again, ovs-dpctl.py's upcall listener and psample listener are
#     started and killed, ovs-dpctl.py and ovs-dpctl dump;
# and samples the daemon's VmRSS, threads, fds and resident memory
# (RssAnon + RssShmem less the journal's pages) every 10 s into
# DIR/rss.csv, and once a minute the bytes its heap holds (on the
# sanitizer build ASan's count of what is allocated and not freed, read
# with gdb: the daemon stops for a fraction of a second; on the normal
# build the allocator's, from tapdpctl status) and the connections the
# tracker holds.
# It prints the figures and
# checks: the daemon alive throughout, traffic at the end, no sanitizer
# report (LeakSanitizer's at the daemon's exit included), no system call
# refused by the sandbox, and the daemon's memory growth under 1%: its
# mean over the window after the warm-up (the first 10% or 5 min,
# whichever is shorter) against its mean over the last window as long.
# That memory is the resident memory on the normal build and the heap's
# bytes on the sanitizer build, whose resident memory is mostly ASan's own
# (its quarantine of freed blocks, its shadow, its size classes' free
# blocks), five times the daemon's heap; that growth is printed. VmRSS's
# growth is printed too; it counts the code paged in as paths first run.
#
#   bash bench/soak.sh                   (as root)
#   SOAK_BUILD=build    the normal build (default build-asan)
#   SOAK_SECONDS=N      duration (default 3600)
#   SOAK_RESTART=N      seconds between client restarts (default 60)
#   SOAK_DIR=DIR        results (default build-asan/soak-<UTC time>):
#                       rss.csv, tapdpd.log, vswitchd.log, sanitizer reports
#   SOAK_QUARANTINE_MB  ASan's quarantine of freed memory (default 16, ASan's
#                       own default is 256): freed blocks are held there
#                       before reuse, so the RSS climbs until it is full; a
#                       small one fills during the warm-up, and what grows
#                       after it is the daemon's
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${SOAK_BUILD:-build-asan}
case $BUILD in
build-asan) SAN=1; make -s -j2 asan || exit 1 ;;
build) SAN=; make -s -j2 || exit 1 ;;
*) echo "SOAK_BUILD: build-asan or build"; exit 1 ;;
esac
make -s BUILD="$BUILD" SAN=$SAN "$BUILD/udpgen" selftest || exit 1
. tests/lib.sh
export ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=${SOAK_QUARANTINE_MB:-16}

DUR=${SOAK_SECONDS:-3600}
RESTART=${SOAK_RESTART:-60}
WARM=$((DUR / 10 < 300 ? DUR / 10 : 300))
OUT=${SOAK_DIR:-$TOP/$BUILD/soak-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT" || exit 1
HOSTS="ska$$ skb$$ skc$$ skd$$"
set -- $HOSTS
A=$1 B=$2 C=$3 D=$4
OFCTL="ovs-ofctl -O OpenFlow13"
STOP=$T/stop
IPERFS=""

# Every process a PID started, deepest first, then the PID itself.
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}

# Every process the script started: its children's trees (the loads,
# whatever a client round was running) and the iperf3 servers (detached).
stop_all() {
	local c
	touch "$STOP" 2>/dev/null
	for c in $(ps -o pid= --ppid $$); do kill_tree "$c"; done
	for c in $IPERFS; do kill "$c" 2>/dev/null; done
	IPERFS=""
	wait 2>/dev/null
}

soak_cleanup() {
	stop_all
	ovs_cleanup
}
trap soak_cleanup EXIT
trap 'exit 130' INT TERM

stopping() { [ -e "$STOP" ]; }
# add NAME N: adds N to the counter NAME.
add() { echo "$2" >>"$T/count.$1"; }
total() { cat "$T/count.$1" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

tapdp_ns_up
tapdpd_start || { echo "tapdpd does not start"; exit 1; }
DPID=$(cat "$PIDF")
ovs_env
ovsdb_start >/dev/null || { echo "ovsdb-server does not start"; exit 1; }
# Datapath flows idle for 1.5 s are expired by the revalidators.
$VSCTL --no-wait set Open_vSwitch . other_config:max-idle=1500
vswitchd_start >/dev/null 2>&1 || { echo "ovs-vswitchd does not start"; exit 1; }
$VSCTL add-br br0
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "s$i" "10.13.0.$i/24"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	ip netns exec "$h" ip addr add "fd00:13::$i/64" dev eth0 nodad
	$VSCTL add-port br0 "s$i" -- set interface "s$i" ofport_request=$i
done
# C (port 3) and D (port 4) talk through conntrack: new connections from
# C only, established ones both ways; the rest is a learning switch.
# OpenFlow rules do not outlive ovs-vswitchd: every start puts them back,
# as a controller would.
firewall() {
	$OFCTL add-flows br0 - <<'OF'
table=0,priority=0,actions=NORMAL
table=0,priority=10,ip,in_port=3,actions=ct(table=1)
table=0,priority=10,ip,in_port=4,actions=ct(table=1)
table=1,priority=10,ip,ct_state=+trk+new,in_port=3,actions=ct(commit),NORMAL
table=1,priority=10,ct_state=+trk+est,actions=NORMAL
table=1,priority=10,ct_state=+trk+rel,actions=NORMAL
table=1,priority=0,actions=drop
OF
}
firewall || exit 1
ping_ok() { ip netns exec "$1" ping -c 1 -W 1 "$2" >/dev/null 2>&1; }
wait_until 20 ping_ok "$A" 10.13.0.2 && wait_until 20 ping_ok "$C" 10.13.0.4 ||
	{ echo "no traffic through the bridge"; exit 1; }
wait_until 20 ping_ok "$B" fd00:13::4 || { echo "no IPv6 traffic"; exit 1; }

# A spare datapath for ovs-dpctl.py's upcall listener, on a veth pair.
in_ns ip link add sku type veth peer name skup
in_ns ip link set sku up
pyctl add-dp -V 2:1 soak >/dev/null || { echo "ovs-dpctl.py add-dp"; exit 1; }

for h in $B $D; do
	ip netns exec "$h" iperf3 -s -D -I "$T/iperf.$h.pid" >/dev/null &&
		wait_until 10 test -s "$T/iperf.$h.pid" ||
		{ echo "iperf3 -s does not start"; exit 1; }
	IPERFS="$IPERFS $(cat "$T/iperf.$h.pid")"
done
wait_until 10 listens "$B" tcp 5201 && wait_until 10 listens "$D" tcp 5201

# tcp NS DST LABEL: 10 s transfers at 20 Mbit/s, alternately each way.
tcp() {
	local rev="" n=0 bytes
	while ! stopping; do
		bytes=$(ip netns exec "$1" timeout 30 iperf3 -c "$2" -t 10 \
			-b 20M $rev -J 2>/dev/null | /usr/bin/python3 -c '
import json, sys
print(json.load(sys.stdin)["end"]["sum_received"]["bytes"])' 2>/dev/null)
		if [ -n "$bytes" ]; then add tcp_bytes "$bytes"
		else add tcp_failed 1; sleep 1; fi
		n=$((n + 1))
		rev=$([ $((n % 2)) -eq 1 ] && echo -R)
	done
}
# UDP, each frame a new connection through conntrack, 300 frames/s.
udp() {
	local mac sent
	mac=$(ip netns exec "$D" cat /sys/class/net/eth0/address)
	while ! stopping; do
		read -r sent _ < <(ip netns exec "$C" "$BUILD/udpgen" -c -r 300 \
			-n 3000 eth0 "$mac" 10.13.0.3 10.13.0.4 0)
		add udp_frames "${sent:-0}"
	done
}
# pings NAME NS ARGS: 25 echo requests at a time, the requests and
# replies counted under NAME.
pings() {
	local name=$1 ns=$2 out
	shift 2
	while ! stopping; do
		out=$(ip netns exec "$ns" ping -c 25 -i 0.2 -W 1 "$@" 2>&1)
		add "$name.sent" "$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$out")"
		add "$name.recv" "$(sed -n 's/.*, \([0-9]*\) received.*/\1/p' <<<"$out")"
	done
}
# OpenFlow rules added and deleted, 50 at a time, on UDP ports nothing
# sends to; and now and then every datapath flow deleted.
churn() {
	local n=0 p
	while ! stopping; do
		for p in $(seq 7000 7049); do
			echo "table=0,cookie=0x50a,priority=20,udp,tp_dst=$p,actions=NORMAL"
		done | $OFCTL add-flows br0 - 2>/dev/null && add of_rules 50
		sleep 0.5
		$OFCTL del-flows br0 "cookie=0x50a/-1" 2>/dev/null
		sleep 0.5
		n=$((n + 1))
		if [ $((n % 10)) -eq 0 ] && appctl dpctl/del-flows >/dev/null 2>&1
		then add dp_flush 1; fi
	done
}
# RSS (KiB), threads and open files of the daemon every 10 s; a line
# "dead" if it is gone.
# heap_kib: what the daemon holds resident (tests/lib.sh), without the
# code it pages in as new paths run (VmRSS counts that) or the journal's
# pages. live_kib, every sixth sample: what its heap holds, as ASan counts
# it on the sanitizer build (gdb), as the allocator counts it (mallinfo2,
# tapdpctl status) on the normal one; then the connections the tracker
# holds (tapdpctl status).
live_kib() {
	local asan=
	[ -z "$SAN" ] || asan=$(timeout 30 gdb -p "$1" -batch -ex \
		'print (unsigned long)__sanitizer_get_current_allocated_bytes()' \
		2>/dev/null | awk '/^\$1 = / { print int($3 / 1024) }')
	in_ns "$BUILD/tapdpctl" --json status 2>/dev/null |
		/usr/bin/python3 -c 'import json, sys
m = json.load(sys.stdin)["memory"]
c = [t["entries"] for t in m["tables"] if t["name"] == "connections"]
print("%s,%d" % (sys.argv[1] or m["heap"] // 1024, c[0] if c else 0))' \
		"$asan" 2>/dev/null
}

sample() {
	local t0=$SECONDS rss thr fds heap live n=0
	echo "elapsed_s,rss_kib,threads,fds,heap_kib,live_kib,conns" \
		>"$OUT/rss.csv"
	while ! stopping; do
		if [ ! -e "/proc/$DPID" ]; then echo dead >"$T/dead"; return; fi
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status")
		thr=$(awk '/^Threads:/ { print $2 }' "/proc/$DPID/status")
		fds=$(ls "/proc/$DPID/fd" | wc -l)
		heap=$(heap_kib "$DPID")
		live=,
		[ $((n++ % 6)) -ne 0 ] || live=$(live_kib "$DPID")
		[ -n "$live" ] || live=,
		echo "$((SECONDS - t0)),$rss,$thr,$fds,$heap,$live" \
			>>"$OUT/rss.csv"
		sleep 10
	done
}

# The clients' round: ovs-vswitchd restarted, ovs-dpctl.py's listeners
# started and killed, every client's dump.
restart_clients() {
	local pid lst ps
	pid=$(cat "$T/vswitchd.pid")
	appctl exit >/dev/null 2>&1
	wait_until 20 test ! -e "/proc/$pid"
	vswitchd_start >/dev/null 2>&1 ||
		{ echo "ovs-vswitchd did not start" >>"$OUT/restart-errors"; return 1; }
	wait_until 10 firewall 2>/dev/null ||
		echo "the firewall's rules not put back" >>"$OUT/restart-errors"
	# ovs-vswitchd deletes every datapath of its type but its own when it
	# starts (the kernel's alike): the listener's comes back each time.
	pyctl add-dp -V 2:1 soak >/dev/null 2>&1 ||
		echo "ovs-dpctl.py add-dp soak failed" >>"$OUT/restart-errors"
	# Run without a shell function between, so that $! is the listener.
	ip netns exec "$NS" env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 -u "$SELFTEST/ovs-dpctl.py" \
		add-if -u soak sku >"$T/upcalls" 2>&1 </dev/null &
	lst=$!
	ip netns exec "$NS" env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 -u "$SELFTEST/ovs-dpctl.py" \
		psample-events >"$T/psample" 2>&1 </dev/null &
	ps=$!
	wait_until 10 grep -q "listening on upcall" "$T/upcalls" ||
		cat "$T/upcalls" >>"$OUT/restart-errors"
	# A miss for the listener: a frame into its port.
	in_ns "$BUILD/udpgen" skup ff:ff:ff:ff:ff:ff 10.14.0.1 10.14.0.2 0 \
		>/dev/null 2>&1
	pyctl show >/dev/null 2>&1
	pyctl dump-flows ovs-system >/dev/null 2>&1
	dpctl show >/dev/null 2>&1
	dpctl dump-flows system@ovs-system >/dev/null 2>&1
	kill "$lst" "$ps" 2>/dev/null
	wait "$lst" "$ps" 2>/dev/null
	pyctl del-if soak sku >/dev/null 2>&1
	add restarts 1
}

tcp "$A" 10.13.0.2 &
tcp "$C" 10.13.0.4 &
udp &
pings ping "$C" 10.13.0.4 &
pings ping6 "$B" -6 fd00:13::4 &
churn &
sample &
start=$SECONDS
# ovs-vswitchd's restart lifts the daemon's RSS by 10-15 MB for some 30 s
# (its new handlers, the flows set up again): the restarts come 5 s into
# each period, so that the samples at the end of the warm-up (300 s) and at
# the end of an hour are read 45-55 s after one, not in the middle of one.
next=$((start + RESTART / 12))
while [ $((SECONDS - start)) -lt "$DUR" ] && [ ! -e "$T/dead" ]; do
	if [ "$SECONDS" -ge "$next" ]; then
		restart_clients
		next=$((next + RESTART))
	fi
	sleep 1
done
elapsed=$((SECONDS - start))
alive=yes
[ -e "/proc/$DPID" ] || alive=no
stop_all

# Traffic at the end, once the load is off.
end_ping() { ping_ok "$A" 10.13.0.2 && ping_ok "$C" 10.13.0.4 &&
	ping_ok "$B" fd00:13::4; }
wait_until 20 end_ping && end_traffic=yes || end_traffic=no
dpctl show system@ovs-system >"$T/show" 2>&1
lost=$(sed -n 's/.*lost:\([0-9]*\).*/\1/p' "$T/show")
missed=$(sed -n 's/.*missed:\([0-9]*\).*/\1/p' "$T/show")

# A clean stop of everything, so that LeakSanitizer checks the daemon.
pid=$(cat "$T/vswitchd.pid")
appctl exit >/dev/null 2>&1
wait_until 20 test ! -e "/proc/$pid"
stopped=no
tapdpd_stop && stopped=yes
cp "$LOG" "$T/vswitchd.log" "$OUT/" 2>/dev/null
reports=$(sanitizer_reports)
[ -z "$reports" ] || cp $reports "$OUT/"
nreports=$(printf '%s' "$reports" | grep -c .)
refused=$(seccomp_refusals | grep -c .)

awk -F, -v warm="$WARM" -v out="$T/rss" 'NR > 1 && $2 != "" {
	n++; last = $2; if ($2 > max) max = $2
	if (w == "" && $1 >= warm) w = $2 }
	END { if (w == "") w = last
	      printf "%d %d %d %d %.2f\n", n, w, last, max,
		     w ? (last - w) * 100 / w : 0 >out }' "$OUT/rss.csv"
read -r samples rss_warm rss_end rss_max growth <"$T/rss"
# Memory swings by some percent from one sample to the next (what is in
# flight; under ASan its quarantine): compared as the mean of the
# warm-up's next window against the mean of the last, a window being the
# warm-up's length. window_growth COLUMN: the two means and the growth
# from one to the other (%).
window_growth() {
	awk -F, -v c="$1" -v warm="$WARM" -v end="$elapsed" 'NR > 1 && $c != "" {
	if ($1 >= warm && $1 < 2 * warm) { a += $c; na++ }
	if ($1 >= end - warm) { b += $c; nb++ } }
	END { a = na ? a / na : 0; b = nb ? b / nb : 0
	      printf "%d %d %.2f\n", a, b, a ? (b - a) * 100 / a : 0 }' \
		"$OUT/rss.csv"
}
read -r heap_first heap_last heap_growth < <(window_growth 5)
read -r live_first live_last live_growth < <(window_growth 6)
read -r conns_first conns_last conns_growth < <(window_growth 7)
fds_first=$(awk -F, 'NR == 2 { print $4 }' "$OUT/rss.csv")
fds_last=$(awk -F, 'NR > 1 { v = $4 } END { print v }' "$OUT/rss.csv")

echo "soak: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, ${BUILD##*/}" \
	"${SAN:+(quarantine ${SOAK_QUARANTINE_MB:-16} MB)}, results in $OUT"
echo "duration: ${elapsed} s (asked ${DUR} s), warm-up ${WARM} s"
echo "RSS samples: $samples"
echo "RSS at the end of the warm-up: $rss_warm KiB"
echo "RSS at the end: $rss_end KiB"
echo "RSS growth: $growth %"
echo "RSS max: $rss_max KiB"
echo "resident (RssAnon + RssShmem less the journal), mean of a ${WARM} s" \
	"window: $heap_first KiB after the warm-up, $heap_last KiB at the end," \
	"growth $heap_growth %"
counter="the allocator's"
[ -z "$SAN" ] || counter="ASan's"
echo "heap ($counter allocated bytes), mean of a" \
	"${WARM} s window: $live_first KiB after the warm-up, $live_last KiB" \
	"at the end, growth $live_growth %"
echo "connections tracked, mean of a ${WARM} s window: $conns_first after" \
	"the warm-up, $conns_last at the end"
echo "open files: $fds_first at the start, $fds_last at the end"
echo "TCP transferred: $(awk -v b="$(total tcp_bytes)" 'BEGIN { printf "%.1f MB\n", b / 1e6 }')" \
	"($(total tcp_failed) transfers failed)"
echo "UDP frames (new connections through conntrack): $(total udp_frames)"
echo "pings C-D (conntrack): $(total ping.recv) replies to $(total ping.sent) requests"
echo "ping6 B-D: $(total ping6.recv) replies to $(total ping6.sent) requests"
echo "OpenFlow rules churned: $(total of_rules) added and deleted"
echo "datapath flushes (dpctl/del-flows): $(total dp_flush)"
echo "datapath misses (upcalls): ${missed:-?}, lost: ${lost:-?}"
echo "client restarts: $(total restarts)"
echo "sanitizer reports: $nreports"
echo "seccomp refusals: $refused"
[ -z "$reports" ] || cat $reports | head -60

check "the daemon stayed alive throughout" test "$alive" = yes
check "traffic works at the end (ping A-B, C-D through ct, ping6 B-D)" \
	test "$end_traffic" = yes
check "the daemon stops cleanly${SAN:+ (LeakSanitizer ran)}" test "$stopped" = yes
check "conntrack carried C-D to the end ($conns_last connections tracked)" \
	test "$conns_last" -ge 100
check "every client round completed" test ! -s "$OUT/restart-errors"
check "no sanitizer report" test "$nreports" -eq 0
check "no seccomp refusal" test "$refused" -eq 0
if [ -n "$SAN" ]; then
	check "the heap's growth after the warm-up under 1% ($live_growth %)" \
		awk -v g="$live_growth" -v n="$live_first" \
		'BEGIN { exit !(n > 0 && g < 1) }'
else
	check "resident memory's growth after the warm-up under 1% ($heap_growth %)" \
		awk -v g="$heap_growth" 'BEGIN { exit !(g < 1) }'
fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
