#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A kernel socket (KERNEL) is the client's own: anyone who may unicast to
# it may queue any datagram there. One whose length wraps when aligned
# (0xffffffff) must not hang the daemon for everyone.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

user=nobody
as_user() { setpriv --reuid=$user --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }
# A user's own user and network namespaces.
user_elsewhere() { as_user unshare -rn "$@"; }

# The user must reach the client.
B=$T/bin
mkdir -p "$B"
cp "$BUILD/hostile-client" "$B/"
chmod -R a+rX "$B"

tapdp_ns_up
check "daemon starts" tapdpd_start
check "root makes dp0" dpctl add-dp dp0

# A kernel socket with a message whose length wraps: drained,
# and root is served within a second after.
in_ns timeout 10 "$BUILD/hostile-client" "$SOCK" kernel-wrap \
	>"$T/wrap.out" 2>&1
check_out "root's kernel socket with a wrapping length is drained" \
	"KERNEL 0, KERNEL_DRAIN 0" cat "$T/wrap.out"
check "... and root is served within a second" \
	in_ns timeout 1 "$BUILD/tapdp-run" -- ovs-dpctl show dp0
user_elsewhere timeout 10 "$B/hostile-client" "$SOCK" kernel-wrap \
	>"$T/wrap-user.out" 2>&1
check_out "a user's kernel socket with a wrapping length is drained" \
	"KERNEL 0, KERNEL_DRAIN 0" cat "$T/wrap-user.out"
check "... and root is served within a second" \
	in_ns timeout 1 "$BUILD/tapdp-run" -- ovs-dpctl show dp0
finish
