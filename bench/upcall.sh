#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# New megaflows per second that ovs-vswitchd sets up through tapdp. Host A
# opens new UDP connections to host B at a paced rate (build/udpgen -c: each
# frame its own source port); an OpenFlow rule per source port (then
# NORMAL) makes each connection its own megaflow, as per-connection
# pipelines do. For each offered rate: the connections sent, the megaflows
# set up, how long the datapath took to hold them all (from the first frame
# to the last flow), and the upcalls lost (the datapath's own counter). The
# offered rate is the baseline printed beside each result.
#
#   bash bench/upcall.sh [RATE...]   (default 10000 25000 50000 75000 100000;
#                                     as root)
#   UPCALL_CONNS=N                   connections per rate (default 60000,
#                                     at most 60000)
#   UPCALL_PERF=DIR                  records the whole machine with perf
#                                     during each rate's connections:
#                                     DIR/<rate>.data and DIR/<rate>.txt
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all build/udpgen || exit 1
. tests/lib.sh
RATES=${*:-10000 25000 50000 75000 100000}
N=${UPCALL_CONNS:-60000}
HOSTS="upa$$ upb$$"
ovs_env
trap ovs_cleanup EXIT

tapdp_ns_up
tapdpd_start >/dev/null 2>&1
ovsdb_start >/dev/null 2>&1
$VSCTL --no-wait set Open_vSwitch . other_config:max-idle=60000 \
	other_config:flow-limit=200000
vswitchd_start 2>/dev/null
$VSCTL add-br br0
set -- $HOSTS
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "u$i" "10.11.0.$i/24"
	$VSCTL add-port br0 "u$i"
done
seq 1 "$N" | awk '{ printf "priority=10,udp,tp_src=%d,actions=NORMAL\n", $1 }' \
	>"$T/rules"
echo "priority=0,actions=NORMAL" >>"$T/rules"
ovs-ofctl --timeout=60 replace-flows br0 "$T/rules" || exit 1
A=$1
ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.11.0.2 >/dev/null
# The connections go to a MAC address B's side announces but B's device
# does not have: NORMAL learns it and sends them to B alone, and B's stack
# drops them at its first check instead of answering each closed port with
# an ICMP error, work that would run in the datapath's executing thread.
DST=02:00:00:e2:e0:02
ip netns exec "$2" "$BUILD/udpgen" -s $DST eth0 ff:ff:ff:ff:ff:ff \
	10.11.0.2 10.11.0.1 0 >/dev/null
sleep 0.5
field() { # flows | lost | missed | hit: the datapath's counter
	in_ns "$BUILD/tapdp-run" -- ovs-dpctl show 2>/dev/null | awk -v f="$1" '
		/lookups:/ { for (i = 2; i <= NF; i++) {
			split($i, kv, ":"); v[kv[1]] = kv[2] } }
		/flows:/ { v["flows"] = $2 }
		END { print v[f] + 0 }'
}

echo "upcall: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $N new connections per rate"
echo
echo "| offered conn/s | sent | in s | megaflows | set up in s | new flows/s | upcalls lost |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for rate in $RATES; do
	vswitchd_flush_flows >/dev/null
	# ovs-vswitchd admits new flows up to a limit it starts at 10,000 and
	# raises by 1,000 per revalidation round; the datapath's capacity is
	# what is measured here, so the limit starts at its maximum (it still
	# lowers it if dumping the flows gets slow).
	appctl upcall/set-flow-limit 200000 >/dev/null
	sleep 1
	base=$(field flows)
	lost0=$(field lost)
	t0=$(date +%s.%N)
	if [ -n "${UPCALL_PERF:-}" ]; then
		mkdir -p "$UPCALL_PERF"
		perf record -a -g -q -o "$UPCALL_PERF/$rate.data" -- \
			sleep "$(awk -v n="$N" -v r="$rate" 'BEGIN { print n / r }')" \
			>/dev/null 2>&1 &
	fi
	read -r sent secs < <(ip netns exec "$A" "$BUILD/udpgen" -c \
		-r "$rate" -n "$N" eth0 "$DST" 10.11.0.1 10.11.0.2 0)
	# Until the flow count stops growing; the time of its last growth.
	prev=-1 tlast=$t0
	for _ in $(seq 400); do
		cur=$(field flows)
		[ "$cur" -ge $((N + base)) ] && { tlast=$(date +%s.%N); break; }
		if [ "$cur" -eq "$prev" ]; then
			break
		fi
		[ "$cur" -gt "$prev" ] && tlast=$(date +%s.%N)
		prev=$cur
		sleep 0.1
	done
	lost=$(( $(field lost) - lost0 ))
	if [ -n "${UPCALL_PERF:-}" ]; then
		wait
		perf report -i "$UPCALL_PERF/$rate.data" --no-children \
			--sort comm,dso --percent-limit 0.5 2>/dev/null |
			grep -v '^#' | grep -v '^$' >"$UPCALL_PERF/$rate.txt"
	fi
	awk -v r="$rate" -v n="$sent" -v st="$secs" -v f="$((cur - base))" \
		-v s="$t0" -v e="$tlast" -v l="$lost" 'BEGIN {
		printf "| %d | %d | %.2f | %d | %.2f | %.0f | %d |\n",
		       r, n, st, f, e - s, f / (e - s), l }'
done
