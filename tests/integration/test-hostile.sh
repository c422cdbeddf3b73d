#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Any local user can connect to the daemon's socket (mode 0666) and speak
# the shim<->daemon protocol without the shim. As an unprivileged user
# (nobody, no capabilities), tests/integration/hostile-client tries what
# the kernel allows no netlink socket: privilege gained by exec'ing a
# setuid program after connecting, a receive buffer past rmem_max, a
# shared page whose file it shrinks, another's portid, a group or a second
# dump it may not have; and what would starve the other clients: requests
# it never reads the answers of, sockets without end. The daemon must
# refuse, bound, and live on.
. "$(dirname "$0")/../lib.sh"
SMALL=$T/small
trap 'kill "$(cat "$SMALL.pid" 2>/dev/null)" 2>/dev/null; tapdp_cleanup' EXIT

# The users are local users of the daemon's network namespace: from
# another, a client sees none of its datapaths (test-netns-priv.sh).
user=nobody
as_user() { in_ns setpriv --reuid=$user --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }
# Another unprivileged user, whose share is its own.
as_other() { in_ns setpriv --reuid=daemon --regid=daemon --clear-groups \
	--inh-caps=-all "$@"; }

tapdp_ns_up
# A soft descriptor limit below what 1024 sockets of a user need: the
# daemon raises it to the hard one.
DAEMON_ENV="$DAEMON_ENV prlimit --nofile=1024:16384"
# The sanitizers' daemon keeps what it frees in a quarantine, 256 MB by
# default, which would look like growth below.
export ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=8
check "daemon starts" tapdpd_start
# The users must reach the clients and the setuid program.
cp "$BUILD/hostile-client" "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$T/"
cp "$(command -v sleep)" "$T/suid-sleep"
chown root:root "$T/suid-sleep"
chmod 4755 "$T/suid-sleep"
chmod 755 "$T/hostile-client"
check_out "the test user is unprivileged" '^[1-9][0-9]*$' as_user id -u
daemon_alive() { alive "$(cat "$PIDF")" && dpctl dump-dps; }

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

pid=$(cat "$PIDF")
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
fds() { ls "/proc/$pid/fd" | wc -l; }
fds_are() { [ "$(fds)" -eq "$1" ]; }
# A client reading a fifo holds on until the fifo's writer closes: writer
# FD FIFO opens it, once the client started. Clients started later close
# the writers they would inherit (unheld), or a holder could outlive the
# test.
writer() { eval "exec $1>\"\$2\""; }
unheld() { "$@" 7>&- 8>&- 9>&-; }
small_dpctl() { TAPDP_SOCKET=$SMALL.sock dpctl "$@"; }
# Another user opens a socket and makes 200 requests: none waits 1 s.
others_served() {
	as_other "$T/hostile-client" "$SOCK" latency 200 >"$T/lat.out" 2>&1
	sed 's/^/    /' "$T/lat.out"
	check_out "$1 (longest wait < 1 s)" \
		"latency: 200 requests, the longest [0-9]{1,3} ms" \
		cat "$T/lat.out"
}

# A client that never reads its data socket: every answer past its
# receive buffer is dropped and flagged (the next recv fails with
# ENOBUFS), nothing is kept for it in the daemon, and the others are
# served meanwhile. Once to settle the daemon's allocator (and fill the
# sanitizer's quarantine of freed memory, made small at the start), then
# measured.
as_user "$T/hostile-client" "$SOCK" flood 100000 >/dev/null 2>&1
rss0=$(rss)
as_user "$T/hostile-client" "$SOCK" flood 100000 >"$T/flood.out" 2>&1 &
flood=$!
wait_until 30 grep -q "flood: started" "$T/flood.out"
others_served "another user is served while a client floods"
wait "$flood"
sed 's/^/    /' "$T/flood.out"
check_out "the flooding client is answered and its next recv gets ENOBUFS" \
	"flood: 100000 requests answered, overrun 1" cat "$T/flood.out"
rss1=$(rss)
check "... and the daemon's memory stays put (VmRSS $rss0 -> $rss1 kB)" \
	test $((rss1 - rss0)) -lt 4096

# A client that never reads even the answers to its requests (the shim
# waits for each): the daemon closes it rather than wait for it.
as_user timeout 60 "$T/hostile-client" "$SOCK" pipeline 100000 \
	>"$T/pipe.out" 2>&1 &
pipe=$!
wait_until 30 grep -q "pipeline: " "$T/pipe.out"
others_served "another user is served meanwhile"
wait "$pipe"
sed 's/^/    /' "$T/pipe.out"
check_out "a client that reads no answer is disconnected, not waited for" \
	"pipeline: closed by the daemon after [0-9]+ requests" cat "$T/pipe.out"

# Sockets without end: each costs the daemon descriptors all clients
# share, so a user without CAP_NET_ADMIN may have 1024, then socket()
# fails with EMFILE; other users and root are served, and the
# descriptors come back when the sockets close.
fd0=$(fds)
mkfifo "$T/hold1" "$T/hold2"
as_user "$T/hostile-client" "$SOCK" sockets 5000 <"$T/hold1" \
	>"$T/socks.out" 2>&1 &
writer 7 "$T/hold1"
wait_until 60 grep -q "^sockets: " "$T/socks.out"
sed 's/^/    /' "$T/socks.out"
check_out "a user gets 1024 sockets, then EMFILE" \
	"sockets: 1024 open, the next: Too many open files$" cat "$T/socks.out"
check_out "... which the shim's socket() reports as the kernel's would" \
	"Too many open files" as_user "$T/tapdp-run" -- ovs-dpctl dump-dps
others_served "another user's sockets are served meanwhile"
check "... and root's" daemon_alive
exec 7>&-
check "closing them gives the daemon its descriptors back" \
	wait_until 30 fds_are "$fd0"
# Connections that never say HELLO count as well.
as_user "$T/hostile-client" "$SOCK" sockets 1024 bare <"$T/hold1" \
	>"$T/socks-bare.out" 2>&1 &
writer 7 "$T/hold1"
wait_until 60 grep -q "^sockets: " "$T/socks-bare.out"
check_out "1024 connections without HELLO, then EMFILE" \
	"sockets: 1024 bare, the next: Too many open files$" \
	cat "$T/socks-bare.out"
exec 7>&-
check "... and their descriptors come back too" wait_until 30 fds_are "$fd0"

# Another's socket: its portid cannot be taken or sent to, what it is
# sent reaches no one else, and groups are the members'.
in_ns "$T/hostile-client" "$SOCK" hold 4242 <"$T/hold2" >"$T/hold.out" 2>&1 &
writer 8 "$T/hold2"
wait_until 10 grep -q "hold: bound 4242" "$T/hold.out"
as_user "$T/hostile-client" "$SOCK" intrude 4242 >"$T/intrude.out" 2>&1
sed 's/^/    /' "$T/intrude.out"
check_out "binding to root's portid: EADDRINUSE" \
	"intrude: bind 4242: Address already in use" cat "$T/intrude.out"
check_out "sending to it without CAP_NET_ADMIN: EPERM" \
	"intrude: unicast to 4242: Operation not permitted" cat "$T/intrude.out"
exec 8>&-
wait_until 10 grep -q "hold: received" "$T/hold.out"
check_out "... and root's socket received nothing" "hold: received 0$" \
	cat "$T/hold.out"
check_out "joining a CAP_NET_ADMIN group (psample's packets): EPERM" \
	"join psample/packets: Operation not permitted" \
	as_user "$T/hostile-client" "$SOCK" join psample packets
check_out "... another group of the family: allowed" \
	"join psample/config: Success" \
	as_user "$T/hostile-client" "$SOCK" join psample config
check_out "a second dump while one runs: EBUSY, as the kernel's" \
	"dump-busy: first running 1, second: Device or resource busy" \
	as_user "$T/hostile-client" "$SOCK" dump-busy
as_user "$T/hostile-client" "$SOCK" notify ovs_datapath ovs_datapath \
	>"$T/notify.out" 2>&1 &
wait_until 10 grep -q "notify: ready" "$T/notify.out"
check "root makes a datapath" dpctl add-dp notif0
check "... and deletes it" dpctl del-dp notif0
wait_until 30 grep -q "notify: the member" "$T/notify.out"
check_out "its notification reaches the group's member, not the other socket" \
	"notify: the member got [1-9][0-9]*, the other socket 0$" \
	cat "$T/notify.out"

# The daemon's last descriptors are root's and CAP_NET_ADMIN's: with few
# (a hard limit of 256) and no per-user limit, a user's sockets stop at
# the reserve with ENFILE, root's go on until none is left, and then the
# next client is told ENFILE at once, not left waiting.
check "a daemon with 256 descriptors starts" in_ns $DAEMON_ENV \
	prlimit --nofile=256:256 "$BUILD/tapdpd" --socket "$SMALL.sock" \
	--log-file "$SMALL.log" --pidfile "$SMALL.pid" --detach \
	--max-sockets-per-uid 100000
pid=$(cat "$SMALL.pid")
fd0=$(fds)
as_user "$T/hostile-client" "$SMALL.sock" sockets 1000 <"$T/hold1" \
	>"$T/socks-small.out" 2>&1 &
writer 7 "$T/hold1"
wait_until 60 grep -q "^sockets: " "$T/socks-small.out"
sed 's/^/    /' "$T/socks-small.out"
check_out "a user's sockets stop short of the reserve with ENFILE" \
	"sockets: [0-9]+ open, the next: Too many open files in system$" \
	cat "$T/socks-small.out"
check "root is still served" small_dpctl dump-dps
unheld timeout 60 "$T/hostile-client" "$SMALL.sock" sockets 1000 \
	<"$T/hold2" >"$T/root.out" 2>&1 &
writer 8 "$T/hold2"
wait_until 60 grep -q "^sockets: " "$T/root.out"
sed 's/^/    /' "$T/root.out"
check_out "root's go on until the daemon has none left: ENFILE" \
	"sockets: [0-9]+ open, the next: Too many open files in system$" \
	cat "$T/root.out"
# More connections than the daemon can accept and its backlog hold: each
# is answered (the last, which says HELLO, with ENFILE), none left waiting.
mkfifo "$T/hold3"
unheld timeout 60 "$T/hostile-client" "$SMALL.sock" sockets 300 bare \
	<"$T/hold3" >"$T/bare.out" 2>&1 &
writer 9 "$T/hold3"
wait_until 60 grep -q "^sockets: " "$T/bare.out"
check_out "connections past the last descriptor are refused, not left waiting" \
	"sockets: 300 bare, the next: Too many open files in system$" \
	cat "$T/bare.out"
check_out "... and the next client is answered at once" \
	"sockets: 0 open, the next: Too many open files in system$" \
	timeout 10 "$T/hostile-client" "$SMALL.sock" sockets 0 </dev/null
exec 7>&- 8>&- 9>&-
check "closing them gives the daemon its descriptors back" \
	wait_until 30 fds_are "$fd0"
check "... and it serves again" small_dpctl dump-dps
kill "$pid"
wait_until 5 dead "$pid"

finish
