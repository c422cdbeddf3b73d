#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The `conntrack` tool against tapdp's tracker (ctnetlink, through
# tapdp-run): a connection created with `conntrack -I` is one the
# datapath's ct action finds (established, so rules that pass only +est
# let its datagrams through both ways), `-U` changes its mark, `-C` and
# `-S` show the count and the counters, `-E` hears the NEW and UPDATE;
# one created with `--src-nat` is translated by ct(nat).
# Expectations: the FTP helper's expectation of a passive data connection
# is listed by `-L expect`, heard by `-E expect`, and deleted by
# `-D expect` (and flushed by `-F expect`).
. "$(dirname "$0")/../lib.sh"

HOSTS="cna$$ cnb$$"
ovs_env
OFCTL="ovs-ofctl -O OpenFlow13"
PEER="/usr/bin/python3 $TOP/tests/integration/peer.py"
trap ovs_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
set -- $HOSTS
A=$1 B=$2
host_add "$A" k1 10.8.0.1/24
host_add "$B" k2 10.8.0.2/24
$VSCTL add-port br0 k1 -- set interface k1 ofport_request=1
$VSCTL add-port br0 k2 -- set interface k2 ofport_request=2
ct() { in_ns "$BUILD/tapdp-run" -- conntrack "$@"; }

# Zone 7 lets only established connections through, and commits nothing.
check "ovs-ofctl add-flows: zone 7, +est only" $OFCTL add-flows br0 - <<'OF'
priority=10,arp,actions=NORMAL
priority=100,ip,actions=ct(zone=7,table=1)
table=1,priority=10,ip,ct_state=+trk+est,actions=NORMAL
table=1,priority=0,actions=drop
OF
serve() {
	ip netns exec "$B" $PEER serve udp "$1" >"$T/served" 2>&1 &
	SERVER=$!
	wait_until 10 listens "$B" udp "$1"
}
serve 7001
check_out "without a connection: dropped" "TimeoutError" \
	ip netns exec "$A" $PEER send udp 10.8.0.2 7001 40001
kill "$SERVER" 2>/dev/null
wait "$SERVER" 2>/dev/null

ct -E >"$T/events" 2>&1 &
LISTENER=$!
# Until the listener has joined: connections of another port, deleted.
p=50000
joined() {
	p=$((p + 1))
	ct -I -p udp -s 10.8.0.1 -d 10.8.0.2 --sport $p --dport 7001 -t 9 \
		>/dev/null 2>&1
	ct -D -p udp -s 10.8.0.1 -d 10.8.0.2 --sport $p --dport 7001 \
		>/dev/null 2>&1
	wait_until 1 grep -q "NEW.*sport=$p " "$T/events"
}
check "conntrack -E hears a NEW" wait_until 15 joined
check "conntrack -I: a UDP connection in zone 7, replied, mark 5" \
	ct -I -p udp -s 10.8.0.1 -d 10.8.0.2 --sport 40001 --dport 7001 \
	-w 7 -t 100 -u SEEN_REPLY -m 5
check_out "conntrack -L lists it" \
	"^udp +17 (9[0-9]|100) src=10.8.0.1 dst=10.8.0.2 sport=40001 dport=7001 src=10.8.0.2 dst=10.8.0.1 sport=7001 dport=40001 mark=5 zone=7 use=1" \
	ct -L
check_out "ovs-dpctl dump-conntrack too" \
	"^udp,orig=\(src=10.8.0.1,dst=10.8.0.2,sport=40001,dport=7001\),reply=\(src=10.8.0.2,dst=10.8.0.1,sport=7001,dport=40001\),zone=7,mark=5" \
	dpctl dump-conntrack
check_fails "conntrack -I again: it exists" \
	ct -I -p udp -s 10.8.0.1 -d 10.8.0.2 --sport 40001 --dport 7001 \
	-w 7 -t 100 -u SEEN_REPLY
serve 7001
check_out "the ct action finds it established: through and back" \
	"reply from 10.8.0.2:7001 ok" \
	ip netns exec "$A" $PEER send udp 10.8.0.2 7001 40001
wait "$SERVER"
check_out "conntrack -L: assured by the reply" \
	"sport=40001 dport=7001 .*\[ASSURED\] mark=5 zone=7" ct -L
# conntrack -U finds what it changes by a dump, then names it by its
# tuples, without the zone: one in zone 0.
check "conntrack -I: another, in zone 0" \
	ct -I -p udp -s 10.8.0.1 -d 10.8.0.2 --sport 40002 --dport 7001 -t 100
check_out "conntrack -U: mark 42" "1 flow entries have been updated" \
	ct -U -p udp -s 10.8.0.1 -d 10.8.0.2 --sport 40002 --dport 7001 -m 42
check_out "conntrack -L shows the new mark" \
	"sport=40002 dport=7001 .*\[UNREPLIED\] .*mark=42 use=1" ct -L
heard() { grep -q "$1.*sport=$2 dport=7001 .*mark=$3" "$T/events"; }
check "conntrack -E heard the NEWs" wait_until 5 heard NEW 40001 5
check "and the UPDATE" wait_until 5 heard UPDATE 40002 42
kill "$LISTENER"
check_out "conntrack -C counts them" "^2\$" ct -C
check_out "conntrack -S: the counters as CPU 0's" \
	"^cpu=0[[:space:]]+found=0 invalid=[0-9]+ insert=0 insert_failed=[0-9]+ drop=0 early_drop=0 error=0 search_restart=0" \
	ct -S
check_out "conntrack -L dying: none" "^conntrack v[0-9.]+ \(conntrack-tools\): 0 flow entries have been shown" \
	ct -L dying
check "conntrack -D deletes one" ct -D -p udp -s 10.8.0.1 -d 10.8.0.2 \
	--sport 40001 --dport 7001 -w 7
check "conntrack -F the other" ct -F
check_out "conntrack -C: none left" "^0\$" ct -C

# NAT given at creation: A's connection from 40003 leaves as 10.8.0.99's
# through ct(nat), and B's answer to that address comes back to A.
$OFCTL del-flows br0
check "ovs-ofctl add-flows: zone 7 with nat, +est only" \
	$OFCTL add-flows br0 - <<'OF'
priority=10,arp,actions=NORMAL
priority=100,ip,actions=ct(zone=7,nat,table=1)
table=1,priority=10,ip,ct_state=+trk+est,actions=NORMAL
table=1,priority=0,actions=drop
OF
ip netns exec "$B" ip neigh replace 10.8.0.99 dev eth0 \
	lladdr "$(ip netns exec "$A" cat /sys/class/net/eth0/address)"
check "conntrack -I --src-nat 10.8.0.99" \
	ct -I -p udp -s 10.8.0.1 -d 10.8.0.2 --sport 40003 --dport 7001 \
	-w 7 -t 100 -u SEEN_REPLY --src-nat 10.8.0.99
check_out "listed with the mapped reply tuple" \
	"sport=40003 dport=7001 src=10.8.0.2 dst=10.8.0.99 sport=7001 dport=40003 .*zone=7" \
	ct -L
serve 7001
check_out "through the mapping and back" "reply from 10.8.0.2:7001 ok" \
	ip netns exec "$A" $PEER send udp 10.8.0.2 7001 40003
wait "$SERVER"
check_out "B saw the mapped source" "^from 10.8.0.99:40003\$" cat "$T/served"
check "conntrack -F" ct -F

# Expectations: a passive FTP session whose data connection never comes.
$OFCTL del-flows br0
check "ovs-ofctl add-flows: FTP with the helper" $OFCTL add-flows br0 - <<'OF'
table=0,priority=100,arp,actions=NORMAL
table=0,priority=10,ip,ct_state=-trk,actions=ct(table=1)
table=1,priority=20,tcp,ct_state=+trk+new-rel,in_port=1,tp_dst=21,actions=ct(commit,alg=ftp),NORMAL
table=1,priority=10,ct_state=+trk+est,actions=NORMAL
table=1,priority=0,actions=drop
OF
ct -E expect >"$T/exp-events" 2>&1 &
LISTENER=$!
ip netns exec "$B" /usr/bin/python3 "$TOP/tests/integration/ftp.py" serve \
	>"$T/ftpd" 2>&1 &
FTPD=$!
wait_until 10 listens "$B" tcp 21
# The client logs in and asks for a passive port for each line on its
# fifo (each PASV replaces the session's expectation), printing the answer.
mkfifo "$T/pasv-in"
ip netns exec "$A" /usr/bin/python3 -c '
import ftplib, sys
f = ftplib.FTP("10.8.0.2", timeout=10)
f.login()
for line in open(sys.argv[1]):
    print(f.sendcmd("PASV"), flush=True)
' "$T/pasv-in" >"$T/pasv" 2>&1 &
CLIENT=$!
exec 3>"$T/pasv-in"
# Until the listener has joined: another PASV.
pasv_port() {
	tail -1 "$T/pasv" | sed -n 's/^227 .*,\([0-9]*\),\([0-9]*\)).*/\1 \2/p' |
		(read -r hi lo; echo $((hi * 256 + lo)))
}
n=0
heard_new() {
	n=$((n + 1))
	echo pasv >&3
	wait_until 5 sh -c "[ \$(grep -c '^227 ' $T/pasv) -ge $n ]" &&
		PORT=$(pasv_port) &&
		wait_until 1 grep -q "NEW.*dport=$PORT " "$T/exp-events"
}
check "conntrack -E expect hears the helper's NEW (a PASV)" \
	wait_until 15 heard_new
listed() { ct -L expect 2>/dev/null | grep "dport=$PORT "; }
check "conntrack -L expect lists the helper's expectation" wait_until 5 listed
check_out "in the kernel's form: tuple, mask, master, helper ftp" \
	"proto=6 src=10.8.0.1 dst=10.8.0.2 sport=0 dport=$PORT mask-src=255.255.255.255 mask-dst=255.255.255.255 sport=0 dport=65535 master-src=10.8.0.1 master-dst=10.8.0.2 sport=[0-9]+ dport=21 class=0 helper=ftp" \
	listed
heard_exp() { grep -q "$1.*dport=$PORT " "$T/exp-events"; }
# -D expect counts nothing it deletes, and so exits 1 however it went.
ct -D expect -p tcp \
	-s 10.8.0.1 -d 10.8.0.2 --sport 0 --dport "$PORT" \
	-r 10.8.0.2 -q 10.8.0.1 --reply-port-src "$PORT" --reply-port-dst 0 >/dev/null 2>&1
check "conntrack -D expect deletes it" wait_until 5 output_lacks "dport=$PORT " ct -L expect
check "conntrack -E expect heard it go" wait_until 5 heard_exp DESTROY
check "conntrack -F expect flushes (none left)" ct -F expect
exec 3>&-
kill "$LISTENER" "$CLIENT" "$FTPD" 2>/dev/null
wait "$CLIENT" "$FTPD" 2>/dev/null
sed 's/^/    /' "$T/exp-events" | tail -4
check_vswitchd_log
finish
