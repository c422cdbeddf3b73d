#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Answers taken by the thread that sent (tap/vport.h): after a burst, a
# receive thread takes what waits in the queue of the same index of each
# ring port it sent to. Three hosts on three netdev ports, switched by
# destination MAC with ovs-dpctl flows (ARP broadcasts to the two others),
# with one receive queue per port and then four. Each way between every
# pair: pings answered, and the answers (the peer's stack replies in the
# send's own context) counted as taken by a thread of the port that sent
# (tapdp_port_rx_peer_bursts_total), on every port; 4 MB TCP transfers
# both ways at once arrive intact; then ports deleted and added back under
# ping floods in both directions: the daemon serves on, the pings are
# answered after, and (in the sanitizer build) nothing is used after it is
# freed.
. "$(dirname "$0")/../lib.sh"

HA=ana$$
HB=anb$$
HC=anc$$
HOSTS="$HA $HB $HC"
trap ovs_cleanup EXIT
URL=http://127.0.0.1:9478/metrics
IP=(x 10.12.0.1 10.12.0.2 10.12.0.3)
NSOF=(x "$HA" "$HB" "$HC")

mac() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
# peer_bursts: every port's count of its bursts taken by another port's
# thread, as the metrics show them.
peer_bursts() {
	in_ns curl -s --max-time 5 "$URL" |
		grep '^tapdp_port_rx_peer_bursts_total{datapath="dp0",'
}
# flows: each port's frames go by destination MAC, ARP broadcasts to the
# two other ports.
flows() {
	local p q others
	for p in 1 2 3; do
		others=
		for q in 1 2 3; do
			[ "$p" = "$q" ] && continue
			others=${others:+$others,}$q
			for t in "0x0800),ipv4()" "0x0806),arp()"; do
				dpctl add-flow dp0 "in_port($p),eth(src=00:00:00:00:00:00/00:00:00:00:00:00,dst=${MAC[$q]}),eth_type($t" "$q" ||
					return 1
			done
		done
		dpctl add-flow dp0 "in_port($p),eth(src=00:00:00:00:00:00/00:00:00:00:00:00,dst=ff:ff:ff:ff:ff:ff),eth_type(0x0806),arp()" "$others" ||
			return 1
	done
}
pings() { # every host pings both others; all answered
	local p q
	for p in 1 2 3; do
		for q in 1 2 3; do
			[ "$p" = "$q" ] && continue
			ip netns exec "${NSOF[$p]}" ping -c 5 -i 0.05 -W 2 \
				"${IP[$q]}" >/dev/null || return 1
		done
	done
}
# transfer FROM TO PORT: 4 MB over TCP from host FROM to host TO, in the
# background; its bytes land in $T/recv.FROM.
transfer() {
	ip netns exec "${NSOF[$2]}" sh -c "nc -l -p $3 >$T/recv.$1 &"
	wait_until 10 listens "${NSOF[$2]}" tcp "$3"
	ip netns exec "${NSOF[$1]}" timeout 30 nc -w 2 -q 1 "${IP[$2]}" "$3" \
		<"$T/send.bin" &
}

tapdp_ns_up
for i in 1 2 3; do
	host_add "${NSOF[$i]}" "v$i" "${IP[$i]}/24"
	MAC[$i]=$(mac "${NSOF[$i]}")
done
head -c 4000000 /dev/urandom >"$T/send.bin"

for nq in 1 4; do
	# The daemon's own path: frames the fast path forwards would not
	# reach its threads.
	check "daemon starts, $nq receive queues per port" \
		tapdpd_start --rx-queues "$nq" --metrics 127.0.0.1:9478 \
		--fast-path none
	check "dp0 with v1, v2, v3" eval 'dpctl add-dp dp0 &&
		dpctl add-if dp0 v1 && dpctl add-if dp0 v2 && dpctl add-if dp0 v3'
	check "15 flows by destination MAC" flows
	for i in 1 2 3; do
		ip netns exec "${NSOF[$i]}" ip neigh flush dev eth0
	done
	check "$nq queues: every host pings both others" pings
	for p in v1 v2 v3; do
		check_out "$nq queues: answers on $p taken by the sender's thread" \
			"port=\"$p\"} [1-9]" peer_bursts
	done

	transfer 1 2 5001
	t1=$!
	transfer 2 1 5002
	t2=$!
	wait "$t1" "$t2"
	for s in 1 2; do
		check "$nq queues: 4 MB from host $s arrives intact (both ways at once)" \
			wait_until 10 cmp -s "$T/send.bin" "$T/recv.$s"
	done
	pkill -f "nc -l -p 500[12]"
	rm -f "$T"/recv.*

	# Floods both ways between v1 and v2, and from v3, while v2 leaves
	# and comes back: threads that took v2's answers a moment before
	# must not touch it once it is gone.
	flood=()
	for p in 1 2 3; do
		q=$((p % 3 + 1))
		ip netns exec "${NSOF[$p]}" ping -q -i 0.001 -W 1 -w 8 \
			"${IP[$q]}" >/dev/null 2>&1 &
		flood+=($!)
		ip netns exec "${NSOF[$q]}" ping -q -i 0.001 -W 1 -w 8 \
			"${IP[$p]}" >/dev/null 2>&1 &
		flood+=($!)
	done
	readded=0
	for _ in 1 2 3 4 5; do
		sleep 0.3
		# v2 comes back as port 2, where its flows still send.
		dpctl del-if dp0 v2 && dpctl add-if dp0 v2 &&
			readded=$((readded + 1))
	done
	wait "${flood[@]}"
	check "$nq queues: v2 deleted and added back 5 times under floods" \
		test "$readded" -eq 5
	check "$nq queues: the daemon lives" alive "$(cat "$PIDF")"
	check "$nq queues: every host pings both others after" pings
	check_buffers_free "$nq queues: every pooled buffer back in its pool"
	check "$nq queues: the daemon stops cleanly" tapdpd_stop
	rm -f "$PIDF"
done
finish
