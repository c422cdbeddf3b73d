#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel's own OVS selftest (openvswitch.sh from linux-source-6.12,
# extracted by `make selftest`) against tapdpd: every command of the test
# runs with the shim preloaded, in a network namespace where the daemon runs.
# Usage: selftest.sh TEST...   (default: the tests tapdp passes)
#
# The tests run side by side, JOBS at a time, each in a namespace with a
# daemon of its own: two of them wait two minutes for a TCP connect that
# must time out. openvswitch.sh gives its namespaces fixed names (client,
# server) in /run/netns, so each test gets a /run/netns of its own, in a
# mount namespace of its own.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

tests=${*:-"ct_connect_v4 nat_connect_v4 arp_ping connect_v4 netlink_checks upcall_interfaces nat_related_v4 psample"}
JOBS=3

run_one() { # test
	local t=$1 work=$T/selftest rc
	cp -r "$SELFTEST" "$work"
	tapdp_ns_up
	check "$t: daemon starts" tapdpd_start
	(cd "$work" && in_ns unshare -m --propagation private sh -c \
		'mount -t tmpfs tapdp-netns /run/netns && exec "$@"' - \
		env PATH="$TOP/tests/ovs-dpctl-py/bin:$PATH" \
		PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		LD_PRELOAD="$BUILD/libtapdp.so" TAPDP_SOCKET="$SOCK" \
		timeout 300 bash openvswitch.sh "$t") >"$T/$t.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "\[ OK \]" "$T/$t.out"; then
		ok "selftest $t: $(grep -o 'TEST: .*\[ OK \]' "$T/$t.out" | tr -s ' ')"
	else
		nok "selftest $t (exit $rc)"
		sed 's/^/    | /' "$T/$t.out" | tail -20
	fi
}

if [ -n "${TAPDP_SELFTEST_ONE:-}" ]; then
	run_one "$1"
	finish
	exit
fi

# The daemons write the module's messages to /dev/kmsg, which all share,
# and netlink_checks counts them: one run of this script at a time. The
# tests' own processes do not get the lock's fd: a server one leaves
# running would hold the lock for good.
exec 9>/tmp/tapdp-selftest.lock
flock 9
# What the kernel logs from now on (bin/dmesg says why).
export TAPDP_DMESG_SINCE=$(cut -d" " -f1 /proc/uptime)
declare -A pid
for t in $tests; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	TAPDP_SELFTEST_ONE=1 bash "$0" "$t" >"$T/$t.result" 2>&1 9>&- &
	pid[$t]=$!
done
for t in $tests; do
	wait "${pid[$t]}"
	adopt_output "" "$T/$t.result" $?
done
finish
