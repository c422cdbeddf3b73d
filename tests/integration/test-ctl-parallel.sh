#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Clients served in parallel: packet executes run without the control lock
# (genl-server/ctl-lock.h), on the serving threads, while other clients create
# and delete datapaths, ports and flows. Three nl-client floods of executes
# against one datapath while another client churns a second datapath (each
# creation republishes the datapath list the executes read) and ports and
# flows of the first; then floods against a datapath deleted under them,
# which must answer ENODEV once it is gone. Every execute is answered, the
# daemon lives, the serving threads did the work, and (in the sanitizer
# build) nothing is used after it is freed. Then --ctl-threads: 0 and 2
# threads serve, out-of-range and malformed counts are refused.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

nlc() { in_ns "$BUILD/tapdp-run" -- "$BUILD/nl-client" "$@"; }
N=${PARALLEL_EXECUTES:-4000}

tapdp_ns_up
check "daemon starts" tapdpd_start
check "dp-new par" nlc dp-new par
in_ns ip link set par up

for i in 1 2 3; do
	nlc execute-flood par "$N" >"$T/flood$i" 2>&1 &
	eval "flood$i=$!"
done
churn_ok=0
for r in $(seq 20); do
	nlc dp-new "churn$r" >/dev/null &&
		nlc vport-new par "pp$r" >/dev/null &&
		nlc flow-put par 1 >/dev/null &&
		nlc flow-del par 1 >/dev/null &&
		nlc dp-del "churn$r" >/dev/null &&
		churn_ok=$((churn_ok + 1))
done
check "20 rounds of datapath, port and flow changes beside the floods" \
	test "$churn_ok" -eq 20
for i in 1 2 3; do
	eval "wait \$flood$i"
	check "flood $i ended well" test $? -eq 0
	check_out "flood $i: every execute answered, none refused" \
		"^execute-flood: $N executed, 0 ENODEV$" cat "$T/flood$i"
done
check "the daemon lives" alive "$(cat "$PIDF")"
# The serving threads (ctl1...) took requests, besides the loop's thread.
busy=$(in_ns "$BUILD/tapdpctl" status |
	awk '$2 ~ /^ctl[0-9]+$/ && $3 > 0' | wc -l)
check "serving threads took requests ($busy with CPU time)" \
	test "$busy" -ge 1

# A datapath deleted under the floods: what comes after finds none.
check "dp-new gone" nlc dp-new gone
for i in 1 2; do
	nlc execute-flood gone 1000000 >"$T/gone$i" 2>&1 &
	eval "gone$i=$!"
done
# Deleted once both floods have found it and are executing.
floods_started() {
	[ "$(cat "$T/gone1" "$T/gone2" | grep -c started)" -eq 2 ]
}
check "the floods on gone run" wait_until 10 floods_started
check "dp-del gone under the floods" nlc dp-del gone
for i in 1 2; do
	eval "wait \$gone$i"
	check "flood $i on the deleted datapath ended well" test $? -eq 0
	check_out "flood $i: executed until the delete, then ENODEV" \
		"^execute-flood: [1-9][0-9]* executed, 1 ENODEV$" \
		cat "$T/gone$i"
done
check "the daemon lives after the delete" alive "$(cat "$PIDF")"
check_out "par still answers" "^datapath par ifindex" nlc dp-get par
check_out "gone is gone" "ENODEV" nlc dp-get gone

# --ctl-threads: how many serve beside the loop; 0, the loop alone.
ctl_threads() {
	in_ns "$BUILD/tapdpctl" status | awk '$2 ~ /^ctl[0-9]+$/' | wc -l
}
for n in 0 2; do
	tapdpd_stop
	check "daemon starts with --ctl-threads $n" tapdpd_start --ctl-threads "$n"
	check_out "... $n serving threads" "^$n$" ctl_threads
	check "... dp-new par" nlc dp-new par
	check_out "... executes are answered" \
		"^execute-flood: 200 executed, 0 ENODEV$" nlc execute-flood par 200
done
tapdpd_stop
for bad in 9 -1 x ""; do
	check_out "--ctl-threads '$bad' refused, status 2" \
		"^tapdpd: --ctl-threads: $bad; status 2$" eval '
		msg=$(in_ns "$BUILD/tapdpd" --socket "$T/bad.sock" \
			--ctl-threads "$bad" 2>&1)
		echo "$msg; status $?"'
done

finish
