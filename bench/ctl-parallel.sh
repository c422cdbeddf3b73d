#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Packet executes per second from K clients at once (nl-client
# execute-flood: each execute answered before the next, as an ovs-vswitchd
# handler's are), with the requests served by the loop alone
# (--ctl-threads 0, the baseline: one thread for every client, as before
# the serving threads) and by the serving threads (the default, one per
# CPU). Executes take no control lock, so clients' executes go on at once.
#
#   bash bench/ctl-parallel.sh [CLIENTS...]   (default 1 2 4; as root)
#   CTL_EXECUTES=N                            executes per client (20000)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all "build/nl-client" || exit 1
. tests/lib.sh
CLIENTS=${*:-1 2 4}
N=${CTL_EXECUTES:-20000}
trap tapdp_cleanup EXIT

nlc() { in_ns "$BUILD/tapdp-run" -- "$BUILD/nl-client" "$@"; }

# Executes per second of k clients of N each, all started at once.
rate() {
	local k=$1 t0 t1 i
	t0=$(date +%s.%N)
	for i in $(seq "$k"); do
		nlc execute-flood bench "$N" >"$T/flood$i" 2>&1 &
	done
	wait
	t1=$(date +%s.%N)
	for i in $(seq "$k"); do
		grep -q "^execute-flood: $N executed, 0 ENODEV$" "$T/flood$i" ||
			{ echo "flood $i failed: $(cat "$T/flood$i")" >&2; return 1; }
	done
	awk -v n="$((k * N))" -v s="$t0" -v e="$t1" \
		'BEGIN { printf "%.0f", n / (e - s) }'
}

echo "ctl-parallel: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $N executes per client"
echo
echo "| clients | loop alone (executes/s) | serving threads (executes/s) | ratio |"
echo "|---:|---:|---:|---:|"
tapdp_ns_up
declare -A got
for threads in 0 default; do
	if [ "$threads" = 0 ]; then
		tapdpd_start --ctl-threads 0 || exit 1
	else
		tapdpd_start || exit 1
	fi
	nlc dp-new bench >/dev/null || exit 1
	in_ns ip link set bench up
	for k in $CLIENTS; do
		got[$threads,$k]=$(rate "$k") || exit 1
	done
	nlc dp-del bench >/dev/null
	tapdpd_stop
done
for k in $CLIENTS; do
	awk -v k="$k" -v a="${got[0,$k]}" -v b="${got[default,$k]}" \
		'BEGIN { printf "| %d | %d | %d | %.2f |\n", k, a, b, b / a }'
done
