#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpctl against a live daemon with traffic: status (human and --json,
# the JSON checked against docs/tapdpctl-status.schema.json and against
# what ovs-dpctl says of the same datapath), its clients coming and going,
# and the errors of a missing daemon and a wrong command. drops is checked
# reason by reason in tests/ovs-dpctl-py/drop-reasons.sh.
. "$(dirname "$0")/../lib.sh"

A=ctla$$
B=ctlb$$
C=ctlc$$
HOSTS="$A $B $C"
trap ovs_cleanup EXIT
ctl() { in_ns "$BUILD/tapdpctl" "$@"; }
# json EXPR: EXPR of the status document s (Python), printed.
json() {
	ctl --json status >"$T/status.json" &&
		/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T/status.json" "$1"
}

tapdp_ns_up
check "daemon starts" tapdpd_start
check "add-dp dp0" dpctl add-dp dp0
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "v$i" "10.9.0.$i/24"
	check "add-if v$i (port $i)" dpctl add-if dp0 "v$i"
done
# Every host reaches every other: ARP and IPv4 flooded between the three
# ports, IPv4 from port 1 through the tracker.
for p in 1 2 3; do
	out=$(printf '%s\n' 1 2 3 | grep -vx "$p" | paste -sd,)
	check "add-flow ARP from $p" dpctl add-flow dp0 \
		"in_port($p),eth(),eth_type(0x0806),arp()" "$out"
	if [ "$p" = 1 ]; then
		check "add-flow IPv4 from 1 through ct" dpctl add-flow dp0 \
			"in_port(1),eth(),eth_type(0x0800),ipv4()" "ct(commit),$out"
	else
		check "add-flow IPv4 from $p" dpctl add-flow dp0 \
			"in_port($p),eth(),eth_type(0x0800),ipv4()" "$out"
	fi
done
check "ping 1 -> 2" ip netns exec "$A" ping -c 3 -i 0.2 -W 2 10.9.0.2
check "ping 1 -> 3" ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.0.3

# The human form.
check_out "status: the daemon, its version and release" \
	"^tapdpd [0-9.]+, pid $(cat "$PIDF"), up 0:[0-9]{2}:[0-9]{2}, answering as Linux 6.12$" \
	ctl status
check_out "status: the datapath and its 6 flows" \
	"^datapath dp0: hit [1-9][0-9]* missed 0 lost 0, 6 flows, [1-9] masks$" \
	ctl status
check_out "status: port 3 with the frames it sent" \
	"^  port 3: v3 \(netdev\) rx [1-9][0-9]* tx [1-9][0-9]* dropped 0/0$" \
	ctl status
check_out "status: the flow table's entries" "^  flows +dp0 +6$" ctl status
check_out "status: the tracker's connections" "^  connections +- +[1-9]" \
	ctl status
check_out "status: a receive thread per port" "^  [0-9]+ +rx0:v3 +[0-9]+$" \
	ctl status

# The JSON form: valid by the schema, and what ovs-dpctl reads the same.
ctl --json status >"$T/status.json"
check "status --json: one line" test "$(wc -l <"$T/status.json")" -eq 1
check "status --json: valid by docs/tapdpctl-status.schema.json" \
	/usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
	"$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"
check "the schema refuses a document missing a field (it can fail)" \
	/usr/bin/python3 -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); del d["datapaths"][0]["ports"][0]["port_no"]
try:
    jsonschema.validate(d, json.load(open(sys.argv[2])))
except jsonschema.ValidationError:
    sys.exit(0)
sys.exit(1)' "$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"
check_out "--json: 4 ports (the local one and 3)" "^\[0, 1, 2, 3\]$" \
	json '[p["port_no"] for p in s["datapaths"][0]["ports"]]'
show=$(dpctl show -s dp0)
hit=$(sed -nE 's/.*lookups: hit:([0-9]+) missed.*/\1/p' <<<"$show")
rx3=$(grep -A1 'port 3: v3' <<<"$show" | sed -nE 's/.*RX packets:([0-9]+).*/\1/p')
check_out "--json: hits as ovs-dpctl show counts them ($hit)" "^$hit$" \
	json 's["datapaths"][0]["hit"]'
check_out "--json: port 3's RX packets as ovs-dpctl show -s ($rx3)" "^$rx3$" \
	json 's["datapaths"][0]["ports"][3]["rx_packets"]'
check_out "--json: the flow table's entries as dump-flows ($(dpctl dump-flows dp0 | wc -l))" \
	"^$(dpctl dump-flows dp0 | wc -l)$" \
	json '[t["entries"] for t in s["memory"]["tables"] if t["name"] == "flows"][0]'
up1=$(json 's["uptime_ms"]')
check "--json: uptime counts" wait_until 5 \
	eval '[ "$(json "s[\"uptime_ms\"]")" -gt "$up1" ]'
check_out "--json: resident and heap memory" "^True$" \
	json 's["memory"]["resident"] > 1000000 and s["memory"]["heap"] > 0'

# Clients: a follower of the drop events shows with its pid, command and
# group, and goes when it exits; tapdpctl sees itself too.
# (ip netns exec becomes tapdpctl: $! is its pid.)
ip netns exec "$NS" "$BUILD/tapdpctl" drops --follow --timeout 60 \
	>/dev/null 2>"$T/follow.err" &
FPID=$!
check "a follower joins the drop events" \
	wait_until 10 grep -q following "$T/follow.err"
check_out "clients: the follower, its command, its group" \
	"^\[\['tapdpctl', 'generic', \[16391\]\]\]$" \
	json "[[c['command'], c['protocol'], c['groups']] for c in s['clients'] if c['pid'] == $FPID]"
check_out "clients: tapdpctl status itself, bound, no group" "^\[\[True, \[\]\]\]$" \
	json "[[c['portid'] > 0, c['groups']] for c in s['clients'] if c['command'] == 'tapdpctl' and c['pid'] != $FPID]"
check_out "status: the follower in the human form" \
	"^  $FPID +0 +tapdpctl +generic +[0-9]+ +0/[0-9]+ +16391$" ctl status
kill "$FPID"
wait "$FPID" 2>/dev/null
check "clients: the follower gone once it exits" wait_until 5 \
	eval '[ "$(json "len([c for c in s[\"clients\"] if c[\"pid\"] == $FPID])")" = 0 ]'
check_out "clients: only the asker's socket left" "^1$" json 'len(s["clients"])'

# Many ports: 300 more, each with its receive threads, so the threads
# and ports take several dump parts.
check "add-dp dp1" dpctl add-dp dp1
for i in $(seq 1 300); do
	echo "add-if dp1 m$i,type=internal"
done | sed 's/^/ovs-dpctl /' | in_ns "$BUILD/tapdp-run" -- sh -e >/dev/null
check_out "--json: dp1's 301 ports" "^301$" \
	json '[len(d["ports"]) for d in s["datapaths"] if d["name"] == "dp1"][0]'
check_out "--json: over 301 threads, m1's, m150's and m300's among them" \
	"^True$" json 'len(s["threads"]) > 301 and all(any(t["name"] == "rx0:m%d" % i for t in s["threads"]) for i in (1, 150, 300))'
check_out "--json: still valid by the schema" "^ok$" \
	eval '/usr/bin/python3 -c "import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
print(\"ok\")" "$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"'
check "del-dp dp1" dpctl del-dp dp1
check_out "--json: dp1 and its threads gone" "^\[\] 0$" \
	json '"%s %d" % ([d for d in s["datapaths"] if d["name"] == "dp1"], len([t for t in s["threads"] if t["name"].startswith("rx0:m")]))'

# Completion (compat/tapdpctl.bash): COMPREPLY for a command line.
complete_of() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tapdpctl; echo "${COMPREPLY[*]}"' _ "$TOP/compat/tapdpctl.bash" "$@"
}
check_out "completion: the commands" "^status$" complete_of tapdpctl st
check_out "completion: after the options" "^drops$" \
	complete_of tapdpctl --json --socket /x dr
check_out "completion: a command's options" "^--follow$" \
	complete_of tapdpctl drops --fo
check_out "completion: none where a number goes" "^$" \
	complete_of tapdpctl drops --count ""

# Through tapdp-run as well as by itself; errors as a tool gives them.
check_out "under tapdp-run too" "^datapath dp0:" \
	in_ns "$BUILD/tapdp-run" -- "$BUILD/tapdpctl" status
check_out "an unknown command: exit status 2" "^2$" \
	eval 'ctl frobnicate >/dev/null 2>&1; echo $?'
check_out "... with the usage" "unknown command frobnicate" \
	eval 'ctl frobnicate 2>&1'
check_out "status takes no argument: exit status 2" "^2$" \
	eval 'ctl status extra >/dev/null 2>&1; echo $?'
check_out "no daemon at the socket: exit status 1" "^1$" \
	eval 'TAPDP_SOCKET=$T/none.sock ctl status >/dev/null 2>&1; echo $?'
check_out "... and why" "^tapdpctl: no tapdpd serves $T/none.sock \(no family tapdp_ctl\)$" \
	eval 'TAPDP_SOCKET=$T/none.sock ctl status 2>&1'
finish
