#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The log's disk full: tapdpd logs to a 64 KiB tmpfs that is then filled.
# Requests that log (datapath and port add and delete, refused requests)
# and traffic through a flow between two namespaces go on being served;
# the daemon neither dies nor spins. Once space is freed, logging resumes
# and says how many lines were lost.
. "$(dirname "$0")/../lib.sh"

A=tapdpa$$
B=tapdpb$$
FS=$T/logfs
cleanup_all() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	tapdpd_stop
	umount "$FS" 2>/dev/null
	tapdp_cleanup
}
trap cleanup_all EXIT

mkdir "$FS"
mount -t tmpfs -o size=64k tmpfs "$FS" || { nok "tmpfs mounted"; finish; }
LOG=$FS/tapdpd.log

tapdp_ns_up
host_add $A va 10.8.0.1/24
host_add $B vb 10.8.0.2/24

check "daemon starts, logging to a 64 KiB tmpfs" tapdpd_start
PID=$(cat "$PIDF")
check "add-dp dp0" dpctl add-dp dp0
check_out "the log says so" "dp0: datapath created" cat "$LOG"

# Fill the file system (tmpfs gives whole pages: the log's last one has
# room left, which the first lines below take).
dd if=/dev/zero of="$FS/fill" bs=1k 2>/dev/null
check_out "the log's file system is full" "No space left" \
	bash -c "echo x >>'$FS/probe'"

# What logs, on a full disk.
check "add-if va" dpctl add-if dp0 va
check "add-if vb" dpctl add-if dp0 vb
for i in $(seq 1 20); do
	dpctl add-dp "tmp$i" >/dev/null 2>&1 &&
		dpctl add-if "tmp$i" "tp$i,type=internal" >/dev/null 2>&1 &&
		dpctl del-if "tmp$i" "tp$i" >/dev/null 2>&1 &&
		dpctl del-dp "tmp$i" >/dev/null 2>&1 || break
done
check "20 datapaths added, given a port, and deleted" test "$i" -eq 20
size=$(stat -c %s "$LOG")
check "the log is full ($size bytes: less than a line left in its page)" \
	test $(( (4096 - size % 4096) % 4096 )) -lt 200
check_fails "a refused request: del-dp of no datapath" dpctl del-dp nodp
check_fails "a refused request: a bad flow" \
	dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x0806),ipv4()" 2
for f in "1 0806 arp 2" "2 0806 arp 1" "1 0800 ipv4 2" "2 0800 ipv4 1"; do
	set -- $f
	check "add-flow in_port $1, eth_type 0x$2 -> $4" \
		dpctl add-flow dp0 "in_port($1),eth(),eth_type(0x$2),$3()" "$4"
done
check "ping through the datapath" in_ns_of $A ping -c 3 -i 0.2 -W 1 10.8.0.2
# Misses: traffic no flow matches goes up, with nobody to take it.
check "del-flows" dpctl del-flows dp0
check "no ping without flows" unanswered $A -c 2 -i 0.2 -W 1 10.8.0.2
check_out "show: the ports and the lookups" "port 2: vb" dpctl show dp0
check "the log did not grow ($size bytes)" \
	test "$(stat -c %s "$LOG")" -eq "$size"
check "the daemon lives" alive "$PID"
# Not spinning: CPU time over an idle second.
ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
t0=$(ticks)
sleep 1
t1=$(ticks)
echo "    CPU ticks over an idle second on a full disk: $((t1 - t0))"
check "idle on a full disk: under 0.2 s of CPU in 1 s" test $((t1 - t0)) -lt 20

# Space again: the next line gets in, after a note of what was lost.
rm -f "$FS/fill" "$FS/fill2" "$FS/probe"
check "add-dp dp1 with space again" dpctl add-dp dp1
check_out "logging resumed" "dp1: datapath created" cat "$LOG"
check_out "the lines lost are told" "log: [0-9]+ lines? lost" cat "$LOG"
sed -n 's/.*\(log: [0-9]* lines\{0,1\} lost.*\)/    \1/p' "$LOG"
check "no line torn: each starts with a date" \
	bash -c "! grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' '$LOG'"
check "the daemon lives" alive "$PID"
finish
