#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel keeps datapaths per network namespace and judges CAP_NET_ADMIN
# over the namespace a request acts on. A client whose socket was opened in
# another namespace than the daemon's, be it root of another namespace (a
# rootful container) or a user in a user+network namespace of its own
# (unshare -rn, where it holds CAP_NET_ADMIN), must see none of the daemon's
# datapaths, change none, capture, trace or tap nothing, and count against
# its uid's connections. A route socket or a connection root opened, handed
# to an unprivileged process, grants it nothing. And a kernel socket with a
# message whose length wraps when aligned must not hang the daemon.
. "$(dirname "$0")/../lib.sh"
OTHER=tapdpo$$
trap 'ip netns del "$OTHER" 2>/dev/null; tapdp_cleanup' EXIT

user=nobody
as_user() { setpriv --reuid=$user --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }
# Root of another network namespace, and a user's own namespaces.
root_elsewhere() { ip netns exec "$OTHER" "$@"; }
user_elsewhere() { as_user unshare -rn "$@"; }

# The user must reach the clients.
B=$T/bin
mkdir -p "$B"
cp "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$BUILD/tapdpctl" \
	"$BUILD/hostile-client" "$B/"
chmod -R a+rX "$B"

tapdp_ns_up
ip netns add "$OTHER"
check "daemon starts" tapdpd_start --max-sockets-per-uid 64
check "root makes dp0" dpctl add-dp dp0
check "... with an internal port" dpctl add-if dp0 p0,type=internal
in_ns ip link add v0 type veth peer name v1
check "... and a netdev port" dpctl add-if dp0 v0
frame=ffffffffffff02020202020208060001080006040001020202020202$(printf '%056d' 0)

for who in root_elsewhere user_elsewhere; do
	ctl() { $who "$B/tapdp-run" -- ovs-dpctl "$@"; }
	check_absent "$who: dump-dps shows none of the daemon's" "dp0" \
		ctl dump-dps
	check_out "$who: show dp0: no such device" "No such device" \
		ctl show dp0
	check_out "$who: add-dp refused" "Operation not permitted" \
		ctl add-dp "x$who"
	check_out "$who: add-if to dp0: no such device" "No such device" \
		ctl add-if dp0 lo
	check_out "$who: del-dp dp0: no such device" "No such device" \
		ctl del-dp dp0
	check_out "$who: capture refused" "Operation not permitted" \
		$who timeout 10 "$B/tapdpctl" capture all
	check_out "$who: nlmon refused" "Operation not permitted" \
		$who timeout 10 "$B/tapdpctl" nlmon
	check_out "$who: trace finds no v0 to trace" \
		"no port v0 in dp0|Operation not permitted" \
		$who "$B/tapdpctl" trace dp0 v0 "$frame"
	check_absent "$who: status names none of the daemon's" "dp0|v0|p0" \
		$who "$B/tapdpctl" status
	check_out "$who: status counts its own socket as the only client" \
		"clients: 1 sockets" $who "$B/tapdpctl" status
done
check_absent "no datapath was made for them" "xroot|xuser" dpctl dump-dps
check_out "dp0 keeps its ports" "port 2: v0" dpctl show dp0

# A socket someone else opened: the kernel checks the sender of each
# request as well as the opener. Root hands its route socket and its
# granted connection to a child that became nobody.
in_ns timeout 20 "$BUILD/hostile-client" "$SOCK" handed "$(id -u $user)" \
	>"$T/handed.out" 2>&1
check_out "root's route socket handed to nobody grants nothing" \
	"root's route socket: Operation not permitted" cat "$T/handed.out"
check_out "root's connection handed to nobody grants nothing" \
	"root's connection: Operation not permitted" cat "$T/handed.out"
check_out "... while root sending on it still may" \
	"root sending: created" cat "$T/handed.out"
check_absent "no datapath was made by nobody" "handed-route|handed-conn" \
	dpctl dump-dps
check "root's own is there" dpctl del-dp handed-root
# Every HELLO is judged with its sender, however soon after connect() it
# comes: 200 add-dp, 20 at a time, are all root's.
for r in $(seq 10); do
	for i in $(seq 20); do dpctl add-dp "c$r-$i" >/dev/null 2>&1 & done
	wait
done
check_out "200 datapaths made by root's concurrent clients" "^200$" \
	sh -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl dump-dps | grep -c 'system@c'"

# Limits: CAP_NET_ADMIN in a namespace of its own is no privilege here.
user_elsewhere "$B/hostile-client" "$SOCK" sockets 200 </dev/null \
	>"$T/socks.out" 2>&1
check_out "a user in its own namespaces gets its uid's 64 sockets" \
	"sockets: 64 open, the next: Too many open files$" cat "$T/socks.out"

# A kernel socket with a message whose length wraps, root's and a user's
# in its own namespaces: drained, and root is served within a second.
for who in in_ns user_elsewhere; do
	$who timeout 10 "$B/hostile-client" "$SOCK" kernel-wrap \
		>"$T/wrap-$who.out" 2>&1
	check_out "$who: a kernel socket with a wrapping length is drained" \
		"KERNEL 0, KERNEL_DRAIN 0" cat "$T/wrap-$who.out"
	check "... and root is served within a second" \
		in_ns timeout 1 "$BUILD/tapdp-run" -- ovs-dpctl show dp0
done
finish
