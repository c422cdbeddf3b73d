#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel's own OVS selftests (openvswitch.sh from linux-source-6.12 and
# from Debian sid's linux-source-7.2, extracted by `make selftest`) against
# tapdpd: every command of a test runs with the shim preloaded, in a network
# namespace where a daemon answering as that kernel runs (--kernel). 7.2's
# ovs-dpctl.py runs with the pyroute2 of its day (0.8.1, from sid).
# Usage: selftest.sh [LINUX/TEST...]   (default: the tests tapdp passes)
#
# The tests run side by side, JOBS at a time, each in a namespace with a
# daemon of its own: two of each kernel's wait two minutes, idle, for a
# TCP connect that must time out. openvswitch.sh gives its namespaces fixed names (client,
# server) in /run/netns, so each test gets a /run/netns of its own, in a
# mount namespace of its own.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

# The tests of each that tapdp passes: the two that wait out a TCP
# connect, which both kernels have and which start first, then the rest.
# 7.2's pop_vlan makes a VLAN device, which this kernel lacks: tapdp's
# (tap/vlan-dev.h); its tunnel_refcount, a tunnel port of a datapath in
# another namespace, which goes with it. Never drop_reason, which reads
# the kernel's tracepoint (drop-reasons.sh asks its question of tapdp
# instead).
TESTS_LONG="ct_connect_v4 nat_connect_v4"
TESTS_6_12="arp_ping connect_v4 netlink_checks upcall_interfaces
nat_related_v4 psample"
TESTS_7_2="arp_ping connect_v4 netlink_checks upcall_interfaces
nat_related_v4 psample dec_ttl flow_set action_set tunnel_metadata pop_vlan
tunnel_refcount"
tests=${*:-$(for t in $TESTS_LONG; do echo "6.12/$t 7.2/$t"; done
	     for t in $TESTS_6_12; do echo "6.12/$t"; done
	     for t in $TESTS_7_2; do echo "7.2/$t"; done)}
JOBS=6

run_one() { # linux/test
	local linux=${1%/*} t=${1#*/} work=$T/selftest rc pypath
	local out=$T/${1//\//-}.out
	pypath=$TOP/tests/ovs-dpctl-py/pyshim
	case $linux in
	6.12) cp -r "$SELFTEST" "$work" ;;
	7.2) cp -r "$SELFTEST-7.2" "$work"
	     pypath=$TOP/build/pyroute2-0.8:$pypath ;;
	*) nok "selftest $1: no Linux $linux"; return ;;
	esac
	tapdp_ns_up
	check "$1: daemon starts" tapdpd_start --kernel "$linux"
	(cd "$work" && in_ns unshare -m --propagation private sh -c \
		'mount -t tmpfs tapdp-netns /run/netns && exec "$@"' - \
		env PATH="$TOP/tests/ovs-dpctl-py/bin:$PATH" \
		PYTHONPATH="$pypath" \
		LD_PRELOAD="$BUILD/libtapdp.so" TAPDP_SOCKET="$SOCK" \
		timeout 300 bash openvswitch.sh "$t") >"$out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "\[ OK \]" "$out"; then
		ok "selftest $linux $t: $(grep -o 'TEST: .*\[ OK \]' "$out" | tr -s ' ')"
	else
		nok "selftest $linux $t (exit $rc)"
		sed 's/^/    | /' "$out" | tail -20
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
	TAPDP_SELFTEST_ONE=1 bash "$0" "$t" >"$T/${t//\//-}.result" 2>&1 9>&- &
	pid[$t]=$!
done
for t in $tests; do
	wait "${pid[$t]}"
	adopt_output "" "$T/${t//\//-}.result" $?
done
finish
