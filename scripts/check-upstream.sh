#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make check-upstream: OVS's own kernel system test suite, unmodified, on
# tapdp, for each OVS version a user runs today. Each version's source
# comes from Debian's openvswitch-source (3.1: bookworm's, installed by
# scripts/install-deps.sh; 3.5 and 4.0: trixie's and sid's, downloaded by
# scripts/fetch-upstream.sh, never installed); it is built under
# build/upstream/ and its `make check-kernel` runs under
# `tapdp-run --module`, so each test's `modprobe openvswitch` starts a
# fresh daemon. The sum-up gives each version's passed, failed and
# skipped, and each failure with the cause its log shows.
#
# Then every test of Linux 7.2's openvswitch.sh, make check's own list
# and the ones it leaves out (tests/ovs-dpctl-py/selftest.sh). And for
# 3.5 and 4.0, make check's own ovs-vswitchd scenarios run again with
# that version's programs (TAPDP_OVS_BIN, tests/lib.sh), each of which
# fails on a WARN or ERR in ovs-vswitchd's log.
#
# Usage: check-upstream.sh [build|run|scenarios|report|all] [VERSION...]
#   VERSION: 3.1 3.5 4.0, 7.2 (the selftests); default: all four
#   TESTSUITEFLAGS: passed to OVS's testsuite (e.g. -k conntrack)
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
UP=$TOP/build/upstream
step=${1:-all}
[ $# -eq 0 ] || shift
versions=${*:-3.1 3.5 4.0 7.2}

deb_of() { # version
	case $1 in
	3.5) sh "$TOP/scripts/fetch-upstream.sh" openvswitch-source=3.5.0-1 ;;
	4.0) sh "$TOP/scripts/fetch-upstream.sh" openvswitch-source=4.0.0-2 ;;
	*) echo "check-upstream: no OVS $1 (3.1, 3.5, 4.0)" >&2; return 1 ;;
	esac
}

unpack() { # version dir
	local tmp=$2.tmp deb
	rm -rf "$tmp" && mkdir -p "$tmp"
	if [ "$1" = 3.1 ]; then
		tar -xzf /usr/src/openvswitch/openvswitch.tar.gz -C "$tmp"
	else
		deb=$(deb_of "$1")
		dpkg-deb -x "$deb" "$tmp/deb"
		if [ -d "$tmp/deb/usr/src/openvswitch" ]; then
			mv "$tmp/deb/usr/src/openvswitch" "$tmp/openvswitch"
		else
			tar -xzf "$tmp"/deb/usr/src/openvswitch/*.tar.* \
				-C "$tmp"
		fi
	fi
	mv "$tmp/openvswitch" "$2"
	rm -rf "$tmp"
}

build() { # version
	local dir=$UP/ovs-$1
	# Debian's python3, the one with the FTP tests' pyftpdlib: a tree
	# configured with another is configured again.
	grep -qx "PYTHON3 = /usr/bin/python3" "$dir/Makefile" 2>/dev/null ||
		rm -f "$dir/Makefile"
	[ -x "$dir/vswitchd/ovs-vswitchd" ] && [ -e "$dir/Makefile" ] &&
		[ -e "$dir/tests/system-kmod-testsuite" ] && return 0
	[ -x "$dir/configure" ] || unpack "$1" "$dir"
	echo "check-upstream: building OVS $1 in $dir"
	(cd "$dir" &&
		{ [ -e Makefile ] || ./configure --enable-silent-rules \
			PYTHON3=/usr/bin/python3 >configure.out 2>&1; } &&
		make -j"$(nproc)" >make.out 2>&1 &&
		make tests/system-kmod-testsuite >>make.out 2>&1) || {
		echo "check-upstream: OVS $1 failed to build: $dir/make.out" >&2
		return 1
	}
}

# make check's suites that run ovs-vswitchd (OVN's aside: its packages
# are Debian 12's, built against OVS 3.1).
SCENARIOS="test-vswitchd test-vswitchd-tunnel test-openflow test-conntrack
test-ct-policy test-ctnetlink test-bond test-meter test-nsh test-netns
test-netns-vswitchd test-restart test-upcalls test-trace test-churn
test-kernel-profiles test-self-preload"

scenarios() { # version
	local dir=$UP/ovs-$1 bin=$UP/ovs-$1/bin s line
	[ "$1" != 3.1 ] || return 0
	mkdir -p "$bin"
	rm -f "$dir/scenarios.tmp"
	for f in vswitchd/ovs-vswitchd ovsdb/ovsdb-server ovsdb/ovsdb-tool \
		 utilities/ovs-vsctl utilities/ovs-ofctl utilities/ovs-appctl \
		 utilities/ovs-dpctl vswitchd/vswitch.ovsschema; do
		ln -sf "$dir/$f" "$bin/"
	done
	echo "check-upstream: OVS $1: make check's ovs-vswitchd scenarios"
	for s in $SCENARIOS; do
		TAPDP_OVS_BIN=$bin BUILD=$BUILD timeout 900 \
			bash "$TOP/tests/integration/$s.sh" \
			>"$dir/scenario-$s.out" 2>&1 || true
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' \
			"$dir/scenario-$s.out" | tail -1)
		echo "$s: ${line:-no result}" >>"$dir/scenarios.tmp"
	done
	mv "$dir/scenarios.tmp" "$dir/scenarios.out"
}

selftests() {
	local all
	all=$(sed -n '/^tests="/,/"$/p' "$TOP/build/selftest-7.2/openvswitch.sh" |
		sed 's/^tests="//' | awk 'NF { print "7.2/" $1 }')
	echo "check-upstream: Linux 7.2's selftests"
	# shellcheck disable=SC2086
	bash "$TOP/tests/ovs-dpctl-py/selftest.sh" $all \
		>"$UP/selftest-7.2.out" 2>&1 || true
}

run() { # version
	local dir=$UP/ovs-$1
	[ "$1" != 7.2 ] || { selftests; return; }
	echo "check-upstream: OVS $1: make check-kernel under tapdp-run --module"
	(cd "$dir" && "$TOP/$BUILD/tapdp-run" --module -- \
		make check-kernel TESTSUITEFLAGS="$TESTSUITEFLAGS") \
		>"$dir/check-kernel.out" 2>&1 || true
}

# Why a failed test failed, from its own log: a device kind the kernel
# has no driver for (the last `ip link add ... type KIND` before the
# kernel's "Unknown device type"), a port type tapdp does not serve
# (EAFNOSUPPORT for an interface of a type), or a cause known by the
# test's name (below); else, to be looked at, the check that failed.
cause() { # log title
	local kind
	kind=$(awk '/ip link add .* type [a-z0-9]+/ {
			k = $0; sub(/.* type /, "", k); sub(/[^a-z0-9].*/, "", k) }
		/Unknown device type/ && k != "" { print k; exit }' "$1")
	if [ -n "$kind" ]; then
		echo "no $kind device in this kernel"
		return
	fi
	kind=$(awk '/ type=[a-z0-9]+/ {
			k = $0; sub(/.* type=/, "", k); sub(/[^a-z0-9].*/, "", k) }
		/Address family not supported/ && k != "" { print k; exit }' "$1")
	if [ -n "$kind" ]; then
		echo "a $kind port: tapdp serves none (EAFNOSUPPORT)"
		return
	fi
	if grep -q "adding cls_basic policing action failed" "$1"; then
		echo "the kernel's tc police action (not in this kernel)"
		return
	fi
	if grep -q "waiting until ip link show | grep -q .* ovs-system" "$1" &&
		grep -q "wait failed" "$1"; then
		echo "tapdp: link dumps do not show a port's \"master ovs-system\" yet"
		return
	fi
	case $2 in
	*", local"|*"ct_state from outside OVS"*)
		echo "the host stack's conntrack on a local port's packets" \
			"(no nf_conntrack in this kernel)" ;;
	*) echo "to look at: $(grep -m1 -oE '[a-z0-9-]+\.at:[0-9]+: (exit code|wait failed|[a-z].*failed).*' "$1")" ;;
	esac
}

report() { # version
	local dir=$UP/ovs-$1 out n p f s title
	if [ "$1" = 7.2 ]; then
		echo "Linux 7.2 selftests: $(tail -1 "$UP/selftest-7.2.out")"
		grep -E '^FAIL - selftest ' "$UP/selftest-7.2.out" |
			sed 's/^/  /' || true
		return
	fi
	out=$dir/check-kernel.out
	[ -s "$out" ] || { echo "OVS $1: not run"; return; }
	p=$(grep -cE '^ *[0-9]+: .* ok$' "$out") || true
	f=$(grep -cE '^ *[0-9]+: .* FAILED \(' "$out") || true
	s=$(grep -cE '^ *[0-9]+: .* skipped \(' "$out") || true
	echo "OVS $1: $p passed, $f failed, $s skipped"
	[ ! -s "$dir/scenarios.out" ] || {
		echo "  make check's ovs-vswitchd scenarios with OVS $1:"
		sed 's/^/    /' "$dir/scenarios.out"
		grep -h '^FAIL' "$dir"/scenario-*.out | sed 's/^/      /'
	}
	grep -E '^ *[0-9]+: .* skipped \(' "$out" | sed 's/^ */  /' || true
	grep -E '^ *[0-9]+: .* FAILED \(' "$out" | while read -r line; do
		n=$(printf %03d "$(echo "$line" | sed -E 's/^ *([0-9]+):.*/\1/')")
		title=$(echo "$line" | sed -E 's/^ *[0-9]+: (.*[^ ]) +FAILED \(.*/\1/')
		printf '  %s\n      %s\n' "$line" \
			"$(cause "$dir/tests/system-kmod-testsuite.dir/$n/system-kmod-testsuite.log" "$title")"
	done
}

# What the suites look for besides: their FTP tests' server library and
# client.
sh "$TOP/scripts/install-deps.sh" python3-pyftpdlib lftp >/dev/null
mkdir -p "$UP"
for v in $versions; do
	case $step in
	build) [ "$v" = 7.2 ] || build "$v" ;;
	run) run "$v" ;;
	scenarios) scenarios "$v" ;;
	report) report "$v" ;;
	all) { [ "$v" = 7.2 ] || build "$v"; } && run "$v" &&
	     { [ "$v" = 7.2 ] || scenarios "$v"; } ;;
	*) echo "usage: check-upstream.sh [build|run|scenarios|report|all]" \
		"[VERSION...]" >&2
	   exit 2 ;;
	esac
done
[ "$step" != all ] || for v in $versions; do report "$v"; done
