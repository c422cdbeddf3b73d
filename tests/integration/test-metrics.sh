#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpd --metrics: the counters for Prometheus. Off by default; with
# traffic, the text parses with Prometheus's own client library and its
# figures are ovs-dpctl's (lookups, flows, ports), tapdpctl's (drops,
# upcalls) and consistent (the histogram's buckets); wrong methods and
# paths, an oversized request and a client that sends nothing get their
# HTTP answer without stopping the daemon's netlink clients; an address
# that cannot be had stops the start; an upgrade in place serves on.
. "$(dirname "$0")/../lib.sh"

A=mta$$
B=mtb$$
HOSTS="$A $B"
URL=http://127.0.0.1:9477/metrics
trap ovs_cleanup EXIT
mac() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
scrape() { in_ns curl -s --max-time 5 "$URL" >"$T/metrics"; }
# metric NAME [LABELS]: the value of the sample NAME{LABELS} (NAME alone
# without labels) last scraped.
metric() {
	awk -v want="$1${2:+{$2\}}" '$1 == want { print $2 }' "$T/metrics"
}
# shown FIELD: ovs-dpctl show's lookups figure.
shown() { dpctl show | sed -nE "s/.*lookups: .*$1:([0-9]+).*/\1/p"; }
code() { in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }

tapdp_ns_up
check "daemon starts without --metrics" tapdpd_start
check "... and nothing listens for metrics" \
	eval '[ -z "$(in_ns ss -Hltn "sport = :9477")" ]'
tapdpd_stop
check_out "--metrics of no address: refused at the start" \
	"tapdpd: --metrics nonsense: Invalid argument" tapdpd_start --metrics nonsense
check "... and its pidfile, written before, removed" test ! -e "$PIDF"
check "daemon starts with --metrics 127.0.0.1:9477" tapdpd_start --metrics 127.0.0.1:9477
check "... it listens there" wait_until 10 eval '[ -n "$(in_ns ss -Hltn "sport = :9477")" ]'
check_out "a second daemon cannot have the address" "Address already in use" \
	in_ns "$BUILD/tapdpd" --socket "$T/other.sock" --metrics 127.0.0.1:9477

check "add-dp dp0" dpctl add-dp dp0
host_add "$A" v1 10.4.0.1/24
host_add "$B" v2 10.4.0.2/24
check "add-if v1" dpctl add-if dp0 v1
check "add-if v2" dpctl add-if dp0 v2
for p in 1 2; do
	o=$((3 - p))
	dpctl add-flow dp0 "in_port($p),eth(),eth_type(0x0806),arp()" "$o"
	dpctl add-flow dp0 "in_port($p),eth(),eth_type(0x0800),ipv4()" "$o"
done
check "ping 1 -> 2" ip netns exec "$A" ping -c 3 -i 0.2 -W 2 10.4.0.2
# No ARP refresh from here on: the figures hold still.
ip netns exec "$A" ip neigh replace 10.4.0.2 lladdr "$(mac "$B")" dev eth0 nud permanent
ip netns exec "$B" ip neigh replace 10.4.0.1 lladdr "$(mac "$A")" dev eth0 nud permanent
# 4 frames no flow matches, whose upcall has no pid: lost and dropped.
ip netns exec "$A" /usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for i in range(4):
    s.send(b"\xff" * 6 + b"\x02" * 6 + b"\x88\xb5" + bytes(46))'
check "the 4 misses are counted" wait_until 10 eval '[ "$(shown missed)" = 4 ]'

check "scrape $URL" scrape
check "it parses as Prometheus text (prometheus_client)" /usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
names = {f.name for f in fams}
want = {"tapdp_datapath_lookups", "tapdp_datapath_flows",
        "tapdp_port_packets", "tapdp_drops", "tapdp_upcalls",
        "tapdp_upcalls_lost", "tapdp_miss_to_flow_seconds", "tapdp_clients",
        "tapdp_conntrack_connections"}
assert want <= names, want - names
assert all(f.samples for f in fams if f.name != "tapdp_upcall_handler_sent"
           and f.name != "tapdp_upcall_handler_lost"), "a family without samples"
' "$T/metrics"
# same READER NAME LABELS: a scrape's sample NAME{LABELS} is what READER
# (ovs-dpctl) says just before and just after it.
same() {
	local before after
	before=$($1)
	scrape || return 1
	after=$($1)
	[ "$before" = "$after" ] && [ "$(metric "$2" "$3")" = "$before" ]
}
hits() { shown hit; }
v2_tx() {
	dpctl show -s | awk '/port 2: v2/ { p = 1 } p && /TX packets/ { sub("packets:", "", $2); print $2; exit }'
}
check "lookups hit: ovs-dpctl show's" \
	wait_until 10 same hits tapdp_datapath_lookups_total 'datapath="dp0",result="hit"'
check_out "lookups missed: 4" "^4$" \
	metric tapdp_datapath_lookups_total 'datapath="dp0",result="missed"'
check_out "lookups lost: 4, as ovs-dpctl shows" "^$(shown lost)$" \
	metric tapdp_datapath_lookups_total 'datapath="dp0",result="lost"'
check_out "flows: 4" "^4$" metric tapdp_datapath_flows 'datapath="dp0"'
check "port v2's packets sent: ovs-dpctl show's" \
	wait_until 10 same v2_tx tapdp_port_packets_total 'datapath="dp0",port="v2",direction="tx"'
check_out "drops NOT_SPECIFIED: the 4 (tapdpctl drops agrees)" \
	"^4 $(in_ns "$BUILD/tapdpctl" drops | awk '$1 == "dp0" && $2 == "-" && $5 == "NOT_SPECIFIED" { print $6 }')$" \
	eval 'echo "$(metric tapdp_drops_total "datapath=\"dp0\",reason=\"NOT_SPECIFIED\"")" 4'
check_out "upcalls lost for want of a socket: 4" "^4$" \
	metric tapdp_upcalls_lost_total 'datapath="dp0",reason="no_socket"'
check_out "the histogram: +Inf bucket is its count" "^ok$" eval '
	[ "$(metric tapdp_miss_to_flow_seconds_bucket "datapath=\"dp0\",le=\"+Inf\"")" = \
	  "$(metric tapdp_miss_to_flow_seconds_count "datapath=\"dp0\"")" ] && echo ok'
check_out "the clients: a number" "^[0-9]+$" metric tapdp_clients ""

check_out "HEAD /metrics: 200" "^200$" code -I "$URL"
check_out "GET /: 404" "^404$" code http://127.0.0.1:9477/
check_out "POST /metrics: 405" "^405$" code -X POST "$URL"
check_out "a request head of 8 KiB: 431" "^431$" \
	code -H "X-Big: $(head -c 8192 /dev/zero | tr '\0' a)" "$URL"
# A client that connects and says nothing holds the scraper's thread until
# its timeout; the datapath's clients are served meanwhile.
in_ns /usr/bin/python3 -c 'import socket, time
s = socket.create_connection(("127.0.0.1", 9477)); time.sleep(4)' &
SILENT=$!
sleep 0.2
check "while a client says nothing, ovs-dpctl is answered at once" \
	in_ns timeout 1 "$BUILD/tapdp-run" -- ovs-dpctl show
check_out "... and the next scrape waits its turn, then is answered" "^200$" code "$URL"
wait "$SILENT"

# An upgrade in place (SIGUSR2: the same pid execs itself) serves on.
n=$(grep -c "took over" "$LOG")
kill -USR2 "$(cat "$PIDF")"
check "upgrade in place" wait_until 10 eval '[ "$(grep -c "took over" "$LOG")" -gt "$n" ]'
check_out "... the metrics are served again, the flows the same" "^4$" \
	eval 'wait_until 10 scrape && metric tapdp_datapath_flows "datapath=\"dp0\""'
check "the daemon stops cleanly" tapdpd_stop
check "... and the port is free" eval '[ -z "$(in_ns ss -Hltn "sport = :9477")" ]'

finish
