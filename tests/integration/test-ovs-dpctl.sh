#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Debian's ovs-dpctl through tapdp-run: datapaths, ports, errors, traffic,
# device removal and a clean shutdown, in a private network namespace.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check_out "a second daemon refuses a busy socket" \
	"already serving" in_ns "$BUILD/tapdpd" --socket "$SOCK"

check "add-dp dp0" dpctl add-dp dp0
check "the local port is a real device" in_ns ip link show dp0
check_out "show lists the datapath and its local port" \
	"^system@dp0:$" dpctl show
check_out "show: port 0 is internal" "port 0: dp0 \(internal\)" dpctl show
check_out "show: masks cache at the kernel's default" \
	"masks-cache: size:256" dpctl show
check_out "dump-dps" "^system@dp0$" dpctl dump-dps

in_ns ip link add ve0 type veth peer name ve1
in_ns ip link set ve0 up
in_ns ip link set ve1 up
check "add-if dp0 ve0 (netdev)" dpctl add-if dp0 ve0
check "add-if dp0 p1,type=internal" dpctl add-if dp0 p1,type=internal
check "the internal port is a real device" in_ns ip link show p1
check_out "show lists the netdev port" "port 1: ve0$" dpctl show
check_out "show lists the internal port" "port 2: p1 \(internal\)" \
	dpctl show
# A bridge's notice that a port left it (RTM_DELLINK of family
# AF_BRIDGE) is no vanished device: the port stays. A port whose device
# then really goes marks when the daemon has read past the notice.
in_ns ip link add ve8 type veth peer name ve9
dpctl add-if dp0 ve8 >/dev/null 2>&1
in_ns ip link add lkbr type bridge
in_ns ip link set ve0 master lkbr
in_ns ip link set ve0 nomaster
in_ns ip link del lkbr
in_ns ip link del ve8
check "a port whose device is deleted leaves the datapath" \
	wait_until 5 in_ns sh -c "! $BUILD/tapdp-run -- ovs-dpctl show | grep -q ve8"
check_out "...a netdev port that left a bridge stays" "port 1: ve0$" \
	dpctl show
check_out "show -s prints port statistics" "RX packets:[0-9]+" \
	dpctl show -s dp0

check "add-if with a requested port number" \
	dpctl add-if dp0 p7,type=internal,port_no=7
check_out "the port has the number asked for" "port 7: p7 \(internal\)" \
	dpctl show dp0
check_out "a taken port number: busy" "Device or resource busy" \
	dpctl add-if dp0 p8,type=internal,port_no=7
check "del-if p7" dpctl del-if dp0 p7

# Errors, with the kernel module's messages.
check_out "add-dp twice: File exists" "add_dp \(File exists\)" \
	dpctl add-dp dp0
in_ns ip tuntap add tq0 mode tap multi_queue
check_out "add-dp over an existing TAP device: File exists" \
	"add_dp \(File exists\)" dpctl add-dp tq0
check_out "add-if internal over an existing TAP device: File exists" \
	"File exists" dpctl add-if dp0 tq0,type=internal
check "the existing TAP device is left alone" in_ns ip link show tq0
in_ns ip tuntap del tq0 mode tap multi_queue
check_out "del-dp of a missing datapath: No such device" \
	"opening datapath \(No such device\)" dpctl del-dp nodp
check_out "add-if of a missing interface: No such device" \
	"No such device" dpctl add-if dp0 nosuch0
check_out "add-if of an attached interface: busy" \
	"Device or resource busy" dpctl add-if dp0 ve0
check_out "del-if of a missing port" "no port named nosuch0" \
	dpctl del-if dp0 nosuch0

# Device names: the kernel's dev_valid_name() refuses these with EINVAL,
# for datapaths and internal ports alike; TUNSETIFF would make up a name
# for an empty one.
links_before=$(in_ns ip -o link | wc -l)
for name in "" "a b" "a/b" "a:b" "." ".." $'a\tb' $'a\xa0b' \
	    abcdefghijklmnop; do
	check_out "add-dp $(printf %q "$name"): Invalid argument" \
		"add_dp \(Invalid argument\)" dpctl add-dp "$name"
	# ovs-dpctl itself cannot name an empty port.
	[ -z "$name" ] ||
		check_out "add-if $(printf %q "$name"),type=internal: Invalid argument" \
			"Invalid argument" dpctl add-if dp0 "$name,type=internal"
done
check "refused names leave no device behind ($links_before before)" \
	test "$links_before" -gt 0 -a "$(in_ns ip -o link | wc -l)" -eq "$links_before"
check "a control character is a valid name, as in the kernel" \
	dpctl add-dp $'c\x01c'
check "del-dp of that datapath" dpctl del-dp $'c\x01c'
# A "%d" pattern is filled in by the kernel: one device of one name for all
# the queues, and the datapath is named after it.
check "add-dp with a %d pattern" dpctl add-dp 'pat%d'
check_out "the datapath takes the device's name" "^system@pat0$" \
	dpctl dump-dps
check "the pattern made one device" \
	test "$(in_ns ip -o link | grep -c ' pat[0-9]*:')" -eq 1
check "del-dp pat0" dpctl del-dp pat0

# Frames arriving on a port are seen by the datapath (no flows yet: misses).
in_ns ip addr add 10.9.0.2/24 dev ve1
in_ns ping -c 3 -i 0.2 -W 1 10.9.0.1 >/dev/null 2>&1
check_out "traffic on a port is counted" "lookups: hit:0 missed:[1-9]" \
	dpctl show dp0

check "del-if dp0 p1" dpctl del-if dp0 p1
check "the internal device is gone" link_gone "$NS" p1
check "del-if dp0 ve0" dpctl del-if dp0 ve0
check_out "show no longer lists removed ports" "^  port 0: dp0 \(internal\)$" \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl show | tail -1"

# A device deleted from the system leaves its datapath.
check "add-if dp0 ve0 again" dpctl add-if dp0 ve0
in_ns ip link del ve0
wait_until 10 output_lacks ve0 dpctl show
check_absent "a deleted device leaves the datapath" ve0 dpctl show

# Hostile control connections (no shim): junk, short requests, a HELLO
# without its fds, random datagrams after a HELLO. The daemon drops them
# and serves everyone else.
version=$(sed -n 's/^#define TAPDP_PROTO_VERSION[[:space:]]*\([0-9]*\)/\1/p' \
	"$TOP/include/tapdp/proto.h")
in_ns /usr/bin/python3 - "$SOCK" "$version" <<'PY'
import os, socket, struct, sys
path = sys.argv[1]
version = int(sys.argv[2])
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.settimeout(1)
    return s
for junk in [b"", b"x", b"\xff" * 15, struct.pack("Iiii", 3, 0, 0, 0),
             struct.pack("Iiii", 1, 1, 0, 0), os.urandom(4000)]:
    s = conn()
    try:
        s.send(junk)
        s.recv(64)
    except OSError:
        pass
    s.close()
# A valid HELLO (the data socket's end), then garbage requests.
s = conn()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendmsg([struct.pack("Iiii", 1, version, 3, 16)],
          [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", b.fileno()))])
rep, fds, _, _ = socket.recv_fds(s, 64, 1)
if struct.unpack("i", rep[:4])[0] != 0 or len(fds) != 1:
    sys.exit("HELLO refused")
for i in range(300):
    try:
        s.send(struct.pack("Iiii", 3, 0, 0, 0) + os.urandom(i * 7 % 900))
        s.recv(64)
    except OSError:
        break
# A NETLINK_ROUTE socket (with a real route socket of ours, so that the
# daemon reads what it is offered), then link requests of every kind with
# lengths that lie and bodies that are noise.
s = conn()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
r = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.sendmsg([struct.pack("Iiii", 1, version, 3, 0)],
          [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
            struct.pack("ii", b.fileno(), r.fileno()))])
rep, fds, _, _ = socket.recv_fds(s, 64, 1)
if struct.unpack("i", rep[:4])[0] != 0 or len(fds) != 1:
    sys.exit("route HELLO refused")
for i in range(600):
    body = os.urandom(i * 13 % 700)
    length = [16 + len(body), i % 40, 0xffffffff, 16 + len(body) // 2][i % 4]
    hdr = struct.pack("IHHII", length, (16, 17, 18)[i % 3], 5, i, 0)
    try:
        s.send(struct.pack("Iiii", 8, 0, 0, 0) + hdr + body)
        s.recv(64)
    except OSError:
        break
# Kernel sockets that are none (KERNEL, 9): refused; then a real one is
# read (KERNEL_DRAIN, 10), and a second refused.
s = conn()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendmsg([struct.pack("Iiii", 1, version, 3, 16)],
          [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", b.fileno()))])
rep, fds, _, _ = socket.recv_fds(s, 64, 1)
def op(code, fd=None):
    anc = [] if fd is None else [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                  struct.pack("i", fd))]
    s.sendmsg([struct.pack("Iiii", code, 0, 0, 0)], anc)
    return struct.unpack("i", s.recv(64)[:4])[0]
p0, p1 = os.pipe()
route = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
genl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
genl.bind((0, 0))
got = [op(10), op(9), op(9, p0), op(9, route.fileno()),
       op(9, genl.fileno()), op(9, genl.fileno()), op(10)]
if got != [-22, -22, -22, -22, 0, -17, 0]:
    sys.exit("KERNEL answers %s" % got)
PY
check "a valid HELLO was served before the garbage" test $? -eq 0
check_out "after hostile clients the daemon still serves" "^system@dp0$" \
	dpctl dump-dps

check "del-dp dp0" dpctl del-dp dp0
check "the local device is gone" link_gone "$NS" dp0
check_absent "no datapath left" "system@" dpctl dump-dps

# SIGTERM: datapaths deleted, devices and socket removed.
dpctl add-dp dp1 >/dev/null 2>&1
dpctl add-if dp1 p9,type=internal >/dev/null 2>&1
check "dp1 with an internal port exists" in_ns ip link show p9
pid=$(cat "$PIDF")
fds_before=$(ls /proc/"$pid"/fd | wc -l)
# A client that dies in the middle of a dump leaves nothing behind.
in_ns "$BUILD/tapdp-run" -- /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
s.send(bytes([20,0,0,0, 16,0, 1,3, 1,0,0,0, 0,0,0,0, 3,1,0,0]))
' 2>/dev/null
n_fds() { ls /proc/"$pid"/fd | wc -l; }
wait_until 10 eval '[ "$(n_fds)" -eq "$fds_before" ]'
check "a client gone mid-dump leaves no fd behind" \
	test "$(n_fds)" -eq "$fds_before"
tapdpd_stop
check "SIGTERM stops the daemon" dead "$pid"
check "no TAP device remains" link_gone "$NS" dp1 p9
check "the socket file is removed" test ! -e "$SOCK"
check "the pidfile is removed" test ! -e "$PIDF"
check_out "the log says it shut down" "shutting down" cat "$LOG"

# A dump cut short by the daemon's death is an error, never a short
# success: ovs-dpctl dump-flows is held mid-dump by a full pipe while the
# daemon is killed. No successor comes: its keeper lets the clients go
# after --restart-wait.
check "daemon starts again" tapdpd_start --restart-wait 1
dpctl add-dp dp2 >/dev/null 2>&1
dpctl add-if dp2 q1,type=internal >/dev/null 2>&1
dpctl add-if dp2 q2,type=internal >/dev/null 2>&1
for i in $(seq 0 2999); do
	echo "in_port(1),eth(),eth_type(0x0800),ipv4(src=10.$((i / 250)).$((i % 250)).1) 2"
done >"$T/flows"
check "3000 flows added" dpctl add-flows dp2 "$T/flows"
check_out "all 3000 are there" "^3000$" \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl dump-flows dp2 | wc -l"
mkfifo "$T/fifo"
(dpctl dump-flows dp2 >"$T/fifo" 2>"$T/dump.err"; echo $? >"$T/dump.rc") &
exec 7<"$T/fifo"
for _ in $(seq 100); do read -r _ <&7; done
# The pipe is full once the client sits in its write.
wait_until 10 grep -q pipe_write "/proc/$(pgrep -f 'ovs-dpctl dump-flows dp2' | head -1)/wchan"
kill -KILL "$(cat "$PIDF")"
rest=$(cat <&7 | wc -l)
exec 7<&-
wait_until 10 test -s "$T/dump.rc"
check "the cut dump did not list every flow ($((100 + rest)) lines)" \
	test $((100 + rest)) -lt 3000
check "ovs-dpctl fails (status $(cat "$T/dump.rc"))" \
	test "$(cat "$T/dump.rc")" -ne 0
check_out "the shim says the daemon went away" \
	"tapdp: the daemon at .* went away" cat "$T/dump.err"
check_out "a socket opened with no daemon says it goes to the kernel" \
	"tapdp: no daemon answers at .*: netlink sockets go to the kernel" \
	dpctl dump-dps
rm -f "$PIDF" "$SOCK"
finish
