#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpd with its own shim preloaded (issue 36): by a harness that exports
# LD_PRELOAD to everything, or by /etc/ld.so.preload, as the container's
# entrypoint has it. The shim must leave the daemon's sockets, and its
# keeper's, to the kernel: else the daemon's netlink sockets go to
# itself, and a serving thread waits in emu_hello, holding the control
# lock, for an answer only it could give. Served with the preload: ovs-dpctl's
# datapath, an internal and a netdev port, ovs-vswitchd's bridge, then
# the same after a SIGUSR2 upgrade and after a kill -9 and a new daemon.
# Every request is bounded: a hang fails its check. The host's /etc is
# never touched: the ld.so.preload case bind-mounts a copy over it in a
# mount namespace of its own.
. "$(dirname "$0")/../lib.sh"

SHIM=$BUILD/libtapdp.so
# The shim comes before the sanitizers' runtime in an ASan daemon, which
# would refuse to start for it; the shim is not instrumented.
export ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0
ovs_env

# Our daemons and their keepers (forks of them, with the same command
# line): the processes whose command line names a socket under $T.
ours() {
	local p
	for p in /proc/[0-9]*; do
		[[ $(tr '\0' ' ' 2>/dev/null <"$p/cmdline") == *"--socket $T/"* ]] &&
			echo "${p#/proc/}"
	done
}
cleanup() {
	local p
	ovs_stop
	tapdpd_stop
	# A daemon that hung stops on nothing less, nor its keeper.
	for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
	ovs_cleanup
}
trap cleanup EXIT

# How the daemon starts (on $SOCK in $NS): its environment ($HOW: with
# LD_PRELOAD, or without for /etc/ld.so.preload) and what runs it
# ($WRAP: nothing, or in_etc).
HOW="env LD_PRELOAD=$SHIM"
WRAP=
# In a mount namespace of its own whose /etc is the copy that lists the
# shim in ld.so.preload: what runs there (after the mount) is preloaded.
in_etc() {
	unshare -m --propagation private sh -c \
		'mount --bind "$0" /etc && exec "$@"' "$T/etc" "$@"
}
start() {
	$WRAP timeout -k 1 20 ip netns exec "$NS" $HOW MALLOC_PERTURB_=165 \
		"$BUILD/tapdpd" --socket "$SOCK" --log-file "$LOG" \
		--pidfile "$PIDF" --detach
}
# Requests, each bounded: through tapdp-run (LD_PRELOAD), or preloaded
# by /etc/ld.so.preload alone, as in the container. SIGKILL a second
# after: ovs-dpctl heeds SIGTERM only when its wait ends.
CLIENT="$BUILD/tapdp-run --"
ctl() { $WRAP timeout -k 1 10 ip netns exec "$NS" $CLIENT ovs-dpctl "$@"; }

# The daemon and its keeper both have the shim mapped: else the test
# proves nothing.
has_shim() { grep -q '/libtapdp\.so$' "/proc/$1/maps" 2>/dev/null; }
shim_in_both() {
	local p d n=0
	d=$(cat "$PIDF") && has_shim "$d" || return 1
	for p in $(ours); do
		[ "$p" != "$d" ] && has_shim "$p" && n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}
takeovers() { grep -c "took over" "$LOG"; }
more_takeovers() { [ "$(takeovers)" -gt "$1" ]; }
upgrade() {
	local n
	n=$(takeovers)
	kill -USR2 "$(cat "$PIDF")"
	wait_until 10 more_takeovers "$n"
}
crash_restart() {
	local pid n
	pid=$(cat "$PIDF")
	n=$(takeovers)
	kill -KILL "$pid"
	wait_until 5 dead "$pid" && start && more_takeovers "$n"
}

# The datapath dp0 with an internal port and a netdev one, then checks
# on what was asked; $1 names the case.
datapath_up() {
	in_ns ip link add v0 type veth peer name v0p
	check "$1: add-dp dp0" ctl add-dp dp0
	check "$1: add-if dp0 i0,type=internal" ctl add-if dp0 i0,type=internal
	check "$1: add-if dp0 v0 (a veth)" ctl add-if dp0 v0
	check_out "$1: show lists both ports" "port 2: v0" ctl show dp0
}
# After an upgrade or a restart: dp0 and its ports are there, and a new
# request is served.
datapath_kept() {
	check_out "$1: dp0 and its ports are there" \
		"port 1: i0 \(internal\)" ctl show dp0
	check_out "$1: with v0" "port 2: v0" ctl show dp0
	check "$1: add-dp dp1 is served" ctl add-dp dp1
	check "$1: del-dp dp1 is served" ctl del-dp dp1
}

# 1. LD_PRELOAD in the daemon's environment. ovs-vswitchd first: its
# datapath backer deletes the other datapaths when it opens.
tapdp_ns_up
check "LD_PRELOAD: daemon starts" start
check "LD_PRELOAD: the shim is in the daemon and its keeper" shim_in_both
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" in_ns timeout -k 1 20 "$BUILD/tapdp-run" -- \
	ovs-vswitchd "unix:$T/db.sock" --pidfile="$T/vswitchd.pid" --detach \
	--log-file="$T/vswitchd.log"
check "ovs-vswitchd: add-br br0" $VSCTL add-br br0
in_ns ip link add v1 type veth peer name v1p
check "ovs-vswitchd: add-port br0 v1" $VSCTL add-port br0 v1
check_out "ovs-system has br0 and v1" "port [0-9]+: v1" ctl show ovs-system
datapath_up "LD_PRELOAD"

# 2. The same daemon upgraded, then killed and replaced, each preloaded.
for how in upgrade crash_restart; do
	check "LD_PRELOAD: $how takes over" $how
	check "LD_PRELOAD: $how: the shim is in the daemon and its keeper" \
		shim_in_both
	datapath_kept "LD_PRELOAD: $how"
	check_out "LD_PRELOAD: $how: ovs-system has v1" "port [0-9]+: v1" \
		ctl show ovs-system
	check "LD_PRELOAD: $how: ovs-vswitchd: add-port br0 i$how" \
		$VSCTL add-port br0 "i$how" -- set interface "i$how" type=internal
	check_out "LD_PRELOAD: $how: ...in ovs-system" "port [0-9]+: i$how" \
		ctl show ovs-system
done
check_vswitchd_log
ovs_stop
tapdpd_stop

# 3. The shim in /etc/ld.so.preload: the daemon, each start of it and
# each client in a mount namespace of its own whose /etc lists it; the
# clients run without tapdp-run, as in the container.
HOSTS=$NS
NS=tapdpe$$
SOCK=$T/etc.sock
LOG=$T/etc-tapdpd.log
PIDF=$T/etc-tapdpd.pid
export TAPDP_SOCKET=$SOCK
HOST_PRELOAD=$(cat /etc/ld.so.preload 2>&1)
cp -a /etc "$T/etc"
echo "$SHIM" >"$T/etc/ld.so.preload"
HOW="env -u LD_PRELOAD"
WRAP=in_etc
CLIENT=
tapdp_ns_up
check "ld.so.preload: daemon starts" start
check "ld.so.preload: the shim is in the daemon and its keeper" shim_in_both
datapath_up "ld.so.preload"
for how in upgrade crash_restart; do
	check "ld.so.preload: $how takes over" $how
	check "ld.so.preload: $how: the shim is in the daemon and its keeper" \
		shim_in_both
	datapath_kept "ld.so.preload: $how"
done
check "ld.so.preload: the host's /etc/ld.so.preload is as it was" \
	test "$(cat /etc/ld.so.preload 2>&1)" = "$HOST_PRELOAD"
finish
