#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel's own OVS selftest (openvswitch.sh from linux-source-6.12,
# extracted by `make selftest`) against tapdpd: every command of the test
# runs with the shim preloaded, in a network namespace where the daemon runs.
# Usage: selftest.sh TEST...   (default: the tests tapdp passes)
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

tests=${*:-"arp_ping connect_v4 netlink_checks upcall_interfaces ct_connect_v4 nat_connect_v4 nat_related_v4 psample"}
work=$T/selftest
# openvswitch.sh gives its namespaces fixed names (client, server) in
# /run/netns, which every run on the machine shares: one run at a time.
# The test's own processes do not get the lock's fd: a server it leaves
# running would hold the lock for good.
exec 9>/tmp/tapdp-selftest.lock
flock 9
cp -r "$SELFTEST" "$work"
# What the kernel logs from now on (bin/dmesg says why).
export TAPDP_DMESG_SINCE=$(cut -d" " -f1 /proc/uptime)
tapdp_ns_up
check "daemon starts" tapdpd_start 9>&-
for t in $tests; do
	(cd "$work" && in_ns env PATH="$TOP/tests/ovs-dpctl-py/bin:$PATH" \
		PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		LD_PRELOAD="$BUILD/libtapdp.so" TAPDP_SOCKET="$SOCK" \
		timeout 300 bash openvswitch.sh "$t") >"$T/$t.out" 2>&1 9>&-
	rc=$?
	if [ $rc -eq 0 ] && grep -q "\[ OK \]" "$T/$t.out"; then
		ok "selftest $t: $(grep -o 'TEST: .*\[ OK \]' "$T/$t.out" | tr -s ' ')"
	else
		nok "selftest $t (exit $rc)"
		sed 's/^/    | /' "$T/$t.out" | tail -20
	fi
done
finish
