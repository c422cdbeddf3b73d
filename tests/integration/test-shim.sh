#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The netlink socket semantics clients rely on (shim-check), with the daemon
# and then without it (the shim must step aside for the real kernel).
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
adopt "" in_ns timeout 120 "$BUILD/tapdp-run" -- "$BUILD/shim-check"

# Families the daemon does not serve stay the kernel's.
check_out "nlctrl dump: the daemon's families" "Name: ovs_datapath" \
	in_ns "$BUILD/tapdp-run" -- genl ctrl list
check_out "nlctrl dump: and the kernel's" "Name: ethtool" \
	in_ns "$BUILD/tapdp-run" -- genl ctrl list
check "nlctrl dump: nlctrl listed once" \
	test "$(in_ns "$BUILD/tapdp-run" -- genl ctrl list | grep -c '^Name: nlctrl$')" -eq 1
check_out "nlctrl policy: the daemon's family" "policy\[0\]:attr\[7\]: type=U32 range:\[0,4096\]" \
	in_ns "$BUILD/tapdp-run" -- genl ctrl policy name ovs_datapath
check_out "nlctrl policy: by family id" "op 3 policies: do=0" \
	in_ns "$BUILD/tapdp-run" -- genl ctrl policy id 0x402
check_out "nlctrl policy: the kernel's family" "type=NESTED" \
	in_ns "$BUILD/tapdp-run" -- genl ctrl policy name ethtool
in_ns ethtool --show-features lo >"$T/ethtool.plain" 2>&1
check "ethtool (kernel genl family) answers as without the shim" \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ethtool --show-features lo 2>&1 | cmp - $T/ethtool.plain"
check_out "ethtool's kernel errors come through" "Operation not supported" \
	in_ns "$BUILD/tapdp-run" -- ethtool -l lo
# A kernel family's multicast reaches a reader blocked in recv (ethtool's
# monitor), without its reading first.
in_ns ip link add v0 type veth peer name v1
in_ns timeout 20 "$BUILD/tapdp-run" -- stdbuf -oL ethtool --monitor \
	>"$T/monitor" 2>&1 &
wait_until 10 grep -q listening "$T/monitor"
in_ns ethtool -K v0 tx off >/dev/null
check "kernel multicast wakes a blocked reader (ethtool --monitor)" \
	wait_until 10 grep -q "Features for v0" "$T/monitor"
kill %1 2>/dev/null
wait
tapdpd_stop
adopt "" in_ns timeout 60 "$BUILD/tapdp-run" -- "$BUILD/shim-check" --kernel
check "the shim-check runs reported" test "$PASS" -ge 30
finish
