#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Any local user can connect to the daemon's socket (mode 0666) and speak
# the shim<->daemon protocol without the shim. As an unprivileged user
# (nobody, no capabilities), tests/integration/hostile-client tries what
# the kernel allows no netlink socket: privilege gained by exec'ing a
# setuid program after connecting, a receive buffer past rmem_max, and a
# shared page whose file it shrinks. The daemon must refuse, bound, and
# live on.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

user=nobody
as_user() { setpriv --reuid=$user --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }

tapdp_ns_up
check "daemon starts" tapdpd_start
# The user must reach the client and the setuid program.
cp "$BUILD/hostile-client" "$T/"
cp "$(command -v sleep)" "$T/suid-sleep"
chown root:root "$T/suid-sleep"
chmod 4755 "$T/suid-sleep"
chmod 755 "$T/hostile-client"
check_out "the test user is unprivileged" '^[1-9][0-9]*$' as_user id -u
daemon_alive() { kill -0 "$(cat "$PIDF")" && dpctl dump-dps; }

# Privilege: the connecting process becomes root (a setuid exec) after it
# connected; its forked child says HELLO on the inherited connections.
# The kernel judges by who opened the socket, so: EPERM.
check "suid-sleep makes its process root" \
	bash -c "as_user() { setpriv --reuid=$user --regid=nogroup --clear-groups --inh-caps=-all \"\$@\"; }; as_user $T/suid-sleep 0"
as_user "$T/hostile-client" "$SOCK" setuid-race "$T/suid-sleep" 2 \
	>"$T/race.out" 2>&1
# The child reports after the parent (the setuid program) is gone.
wait_until 10 grep -q "setuid-race: done" "$T/race.out"
sed 's/^/    /' "$T/race.out"
check_out "fork + setuid exec: the child gains no privilege" \
	"setuid-race: done, refused" cat "$T/race.out"
version=$(sed -n 's/^#define TAPDP_PROTO_VERSION[[:space:]]*\([0-9]*\)/\1/p' \
	"$TOP/include/tapdp/proto.h")
check_out "the current HELLO is served, OVS_DP_CMD_NEW refused with EPERM" \
	"v$version: OVS_DP_CMD_NEW hostile0: Operation not permitted" cat "$T/race.out"
check_absent "no datapath was created" "hostile" dpctl dump-dps
# The same for a privileged opener, so that the check above can fail: a
# root client's socket may create a datapath.
check "root's socket may create a datapath" dpctl add-dp rootdp
check "del-dp rootdp" dpctl del-dp rootdp

# The receive buffer: SO_RCVBUF without CAP_NET_ADMIN is bounded by
# rmem_max, whatever the client claims.
check_out "a claimed 1 GiB receive buffer queues no more than rmem_max allows" \
	"^rcvbuf: .* overrun 1$" as_user "$T/hostile-client" "$SOCK" rcvbuf
sed 's/^/    /' "$T/out"
check "... and the client's exit status says so" \
	as_user "$T/hostile-client" "$SOCK" rcvbuf

# The shared page: shrinking its file must not kill the daemon.
as_user "$T/hostile-client" "$SOCK" truncate >"$T/trunc.out" 2>&1
sed 's/^/    /' "$T/trunc.out"
check_out "a version 1 HELLO with the client's own memfd is refused" \
	"truncate v1: hello Protocol error" cat "$T/trunc.out"
check_out "the daemon's page cannot be shrunk" \
	"truncate v$version: hello Success, ftruncate Operation not permitted" \
	cat "$T/trunc.out"
check "the daemon lives on and answers" daemon_alive

finish
