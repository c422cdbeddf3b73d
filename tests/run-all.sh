#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test: cmocka units, the integration tests with the normal build
# and again with the ASan/UBSan build, the kernel selftest's ovs-dpctl.py,
# the unprivileged scenario and the fuzz targets' kept inputs. Ends with
# "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
failed_suites=()

add() { # suite-name pass fail
	pass=$((pass + $2))
	fail=$((fail + $3))
	[ "$3" -eq 0 ] || failed_suites+=("$1")
}

run_unit() {
	local t=$1 out p f
	out=$("$t" 2>&1)
	echo "$out" | grep -E '^\[  (PASSED|FAILED)  \]|^\[  ERROR   \]'
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	add "$t" "${p:-0}" "${f:-0}"
	# A crash before the summary counts as a failure.
	[ -n "$p$f" ] || add "$t" 0 1
}

# Seconds each suite took, printed at the end, slowest first.
times=()
run_script() { # build script
	local out line p f start=$SECONDS
	echo "== $2 (BUILD=$1)"
	out=$(BUILD=$1 timeout 600 bash "$2" 2>&1)
	times+=("$((SECONDS - start)) $2 ($1)")
	echo "$out" | grep -v '^ok - '
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
	if [ -z "$line" ]; then
		add "$2 ($1)" 0 1
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed}
	add "$2 ($1)" "$p" "$f"
}

for b in build build-asan; do
	for t in "$b"/test-*; do
		[ -x "$t" ] && run_unit "$t"
	done
done
# The integration suites run twice: with the normal build and the fast
# path as the daemon chooses it (bpf, as root), and with the sanitizers'
# build and the fast path off, so that each suite passes both ways.
for b in build build-asan; do
	if [ "$b" = build-asan ]; then
		export TAPDP_FAST_PATH=none
	fi
	for s in tests/integration/test-ovs-dpctl.sh tests/integration/test-libnl.sh \
		 tests/integration/test-shim.sh \
		 tests/integration/test-flows.sh tests/integration/test-vswitchd.sh \
		 tests/integration/test-openflow.sh tests/integration/test-meter.sh \
		 tests/integration/test-kernel-profiles.sh \
		 tests/integration/test-churn.sh \
		 tests/integration/test-bond.sh tests/integration/test-conntrack.sh \
		 tests/integration/test-ct-policy.sh \
		 tests/integration/test-ctnetlink.sh \
		 tests/integration/test-hostile.sh \
		 tests/integration/test-netns-priv.sh \
		 tests/integration/test-vlan-dev.sh \
		 tests/integration/test-tunnel-dev.sh \
		 tests/integration/test-link-view.sh \
		 tests/integration/test-fastpath.sh \
		 tests/integration/test-fastpath-actions.sh \
		 tests/integration/test-netns-vswitchd.sh \
		 tests/integration/test-ctl-parallel.sh \
		 tests/integration/test-answers.sh \
		 tests/integration/test-restart.sh \
		 tests/integration/test-self-preload.sh \
		 tests/integration/test-sandbox.sh \
		 tests/integration/test-log-full.sh \
		 tests/integration/test-netns.sh tests/integration/test-tunnel.sh \
		 tests/integration/test-nsh.sh \
		 tests/integration/test-vswitchd-tunnel.sh tests/integration/test-ovn.sh \
		 tests/ovs-dpctl-py/run.sh tests/ovs-dpctl-py/selftest.sh \
		 tests/ovs-dpctl-py/drop-reasons.sh \
		 tests/integration/test-tapdpctl.sh tests/integration/test-trace.sh \
		 tests/integration/test-upcalls.sh tests/integration/test-metrics.sh; do
		run_script "$b" "$s"
	done
done
unset TAPDP_FAST_PATH
run_script build tests/integration/test-unprivileged.sh
run_script build tests/integration/test-module.sh
run_script build tests/integration/test-deb.sh
run_script build tests/integration/test-container.sh
run_script build tests/test-includes.sh

# The libFuzzer targets replay their kept corpus and crash reproducers
# (tests/fuzz-seeds/<target>/), each input once: the same tree gives the
# same result. Exploring for new inputs is `make fuzz`, outside make check.
for t in build-fuzz/fuzz-*; do
	[ -x "$t" ] || continue
	case $t in *.corpus|*.log) continue ;; esac
	seeds=tests/fuzz-seeds/$(basename "$t")
	if [ ! -d "$seeds" ]; then
		echo "FAIL - $t: no inputs in $seeds"
		add "$t" 0 1
	elif "$t" -rss_limit_mb=2048 "$seeds"/* >"$t.log" 2>&1; then
		echo "ok - $t: $(ls "$seeds" | wc -l) inputs replayed"
		add "$t" 1 0
	else
		tail -30 "$t.log"
		add "$t" 0 1
	fi
done

echo "== seconds per suite, $SECONDS in all"
printf '%s\n' "${times[@]}" | sort -rn
[ ${#failed_suites[@]} -eq 0 ] || printf 'failed: %s\n' "${failed_suites[@]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
