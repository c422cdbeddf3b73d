#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdp's connection tracker against Open vSwitch's userspace conntrack,
# side by side, with the semantics of `ovstest test-conntrack benchmark`
# (bench/conntrack.c says what each run does). OVS 3.1's ovstest is built
# from Debian's openvswitch-source by bench/ovs-ct-baseline.sh (cached).
#
#   bash bench/conntrack.sh [PACKETS] [RUNS]   (default 10000000, 5)
#
# Each round runs, back to back, tapdp and OVS with 1 and 2 threads, tapdp
# with 2 threads that share nothing (a tracker each: what sharing the table
# costs is the difference), and the machine's own ceiling: one 1-thread
# tapdp run alone, then two at once as separate processes.
# Times are the best of RUNS rounds; scalings (work per second of 2
# threads over 1, i.e. 2 * t1 / t2) are the median of the rounds' own
# ratios, so that the machine's drift between rounds (it is shared, and
# varies by 2x) does not pair a fast run with a slow one. Then the million
# live connections mode (setup rate, memory, lookups).
set -eu
cd "$(dirname "$0")/.."
N=${1:-10000000}
RUNS=${2:-5}
make -s build/bench-conntrack >/dev/null
bash bench/ovs-ct-baseline.sh 1 1000 32 >/dev/null 2>&1	# builds once
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ms() { sed -n 's/^conntrack: *\([0-9]*\) ms$/\1/p'; }
tap() { build/bench-conntrack "$@" | ms; }
ovs() { bash bench/ovs-ct-baseline.sh "$@" 2>/dev/null | ms; }
min() { sort -n | head -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for r in $(seq "$RUNS"); do
	for mode in same per; do
		x=; [ $mode = per ] && x=1
		t1=$(tap 1 "$N" 32 $x) t2=$(tap 2 "$N" 32 $x)
		o1=$(ovs 1 "$N" 32 $x) o2=$(ovs 2 "$N" 32 $x)
		s2=$(tap --separate 2 "$N" 32 $x)
		echo "$t1 $t2 $o1 $o2 $s2" >>"$tmp/$mode"
	done
	a=$(tap 1 "$N" 32)
	build/bench-conntrack 1 "$N" 32 | ms >"$tmp/other" &
	b=$(tap 1 "$N" 32)
	wait
	c=$(cat "$tmp/other")
	[ "$c" -gt "$b" ] && b=$c
	ratio $((2 * a)) "$b" >>"$tmp/ceiling"
	echo >>"$tmp/ceiling"
done

printf '%-44s %9s %9s %10s\n' "case ($N packets per thread, batch 32)" \
	"tapdp ms" "OVS ms" "tapdp/OVS"
for mode in same per; do
	name="one connection per thread"
	[ $mode = per ] && name="a connection per packet of a batch"
	for th in 1 2; do
		t=$(awk -v c=$th '{ print $c }' "$tmp/$mode" | min)
		o=$(awk -v c=$((th + 2)) '{ print $c }' "$tmp/$mode" | min)
		printf '%-44s %9s %9s %10s\n' "$th thread(s), $name" "$t" "$o" \
			"$(ratio "$t" "$o")"
	done
	st=$(awk '{ printf "%.2f\n", 2 * $1 / $2 }' "$tmp/$mode" | median)
	so=$(awk '{ printf "%.2f\n", 2 * $3 / $4 }' "$tmp/$mode" | median)
	ss=$(awk '{ printf "%.2f\n", 2 * $1 / $5 }' "$tmp/$mode" | median)
	printf 'scaling, %s: tapdp %s, OVS %s; tapdp sharing nothing %s\n' \
		"$name" "$st" "$so" "$ss"
done
printf 'machine ceiling (two separate 1-thread processes at once): %s\n' \
	"$(grep . "$tmp/ceiling" | median)"
echo
build/bench-conntrack --million
