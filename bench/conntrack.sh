#!/bin/bash
# tapdp's connection tracker against Open vSwitch's userspace conntrack,
# side by side, with the semantics of `ovstest test-conntrack benchmark`
# (bench/conntrack.c says what each run does). OVS 3.1's ovstest is built
# from Debian's openvswitch-source by bench/ovs-ct-baseline.sh (cached).
#
#   bash bench/conntrack.sh [PACKETS] [RUNS]   (default 10000000, 5)
#
# Each figure is the best of RUNS runs, the two programs taking turns, so
# that other load on the machine weighs on both alike. Then the million
# live connections mode (setup rate, memory, lookups).
set -eu
cd "$(dirname "$0")/.."
N=${1:-10000000}
RUNS=${2:-5}
make -s build/bench-conntrack >/dev/null
bash bench/ovs-ct-baseline.sh 1 1000 32 >/dev/null	# builds once

ms() { sed -n 's/^conntrack: *\([0-9]*\) ms$/\1/p'; }
best() {	# best of RUNS: "tapdp ovs" in ms
	local t o bt=999999999 bo=999999999
	for _ in $(seq "$RUNS"); do
		t=$(build/bench-conntrack "$@" | ms)
		o=$(bash bench/ovs-ct-baseline.sh "$@" 2>/dev/null | ms)
		[ "$t" -lt "$bt" ] && bt=$t
		[ "$o" -lt "$bo" ] && bo=$o
	done
	echo "$bt $bo"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '%-34s %10s %10s %12s\n' "case ($N packets per thread)" \
	"tapdp ms" "OVS ms" "tapdp/OVS"
declare -A T O
for c in "1 32" "2 32" "1 32 1" "2 32 1"; do
	set -- $c
	read -r t o < <(best "$1" "$N" "${@:2}")
	T[$c]=$t O[$c]=$o
	name="$1 thread(s), batch $2"
	[ $# -gt 2 ] && name="$name, a connection per packet"
	printf '%-34s %10s %10s %12s\n' "$name" "$t" "$o" "$(ratio "$t" "$o")"
done
# Work per second of 2 threads over 1: 2 * t1 / t2.
for c in "32" "32 1"; do
	t1=${T["1 $c"]} t2=${T["2 $c"]} o1=${O["1 $c"]} o2=${O["2 $c"]}
	printf 'scaling, batch %s: tapdp %s, OVS %s (2 threads over 1)\n' "$c" \
		"$(ratio $((2 * t1)) "$t2")" "$(ratio $((2 * o1)) "$o2")"
done
# What this machine gives two independent processes of the same work.
bt=999999999
for _ in $(seq "$RUNS"); do
	build/bench-conntrack 1 "$N" 32 >"${TMPDIR:-/tmp}/ct2.$$" &
	t=$(build/bench-conntrack 1 "$N" 32 | ms)
	wait
	u=$(ms <"${TMPDIR:-/tmp}/ct2.$$")
	[ "$u" -gt "$t" ] && t=$u
	[ "$t" -lt "$bt" ] && bt=$t
done
rm -f "${TMPDIR:-/tmp}/ct2.$$"
printf 'machine ceiling: two separate 1-thread processes at once: %s\n' \
	"$(ratio $((2 * T["1 32"])) "$bt")"
echo
build/bench-conntrack --million
