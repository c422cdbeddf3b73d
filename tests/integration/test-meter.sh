#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Meters that police, through ovs-vswitchd on tapdp (datapath_type=system):
# an OpenFlow 1.3 meter with a drop band (kbps and pktps, with and without
# burst_size) on a flow from A to B, a UDP flood from A at three times the
# meter's rate; B must receive the meter's rate within 10 %, the meter's
# band must count the drops (what entered = what was sent, drops = what
# entered - what arrived), and without a meter nothing is lost.
. "$(dirname "$0")/../lib.sh"

HOSTS="mta$$ mtb$$"
ovs_env
OFCTL="ovs-ofctl -O OpenFlow13"
GEN=
cleanup() {
	[ -n "$GEN" ] && kill "$GEN" 2>/dev/null
	ovs_cleanup
}
trap cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
# B counts what arrives on its eth0: nothing but the flood may, so no
# IPv6 chatter from the ports' end of the veths either.
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
in_ns sysctl -qw net.ipv6.conf.default.disable_ipv6=1
$VSCTL add-br br0
set -- $HOSTS
A=$1
B=$2
host_add "$A" m1 10.8.0.1/24
host_add "$B" m2 10.8.0.2/24
$VSCTL add-port br0 m1 -- add-port br0 m2
MAC_B=$(ip netns exec "$B" cat /sys/class/net/eth0/address)

check_out "the datapath offers meters (ovs-vswitchd's probe passed)" \
	"max_meter:[1-9][0-9]* max_bands:1" $OFCTL meter-features br0
check_out "meter-features: drop bands" "band_types: drop" \
	$OFCTL meter-features br0
# (dpif/show-dp-features has no line for meters in this OVS: its probe of
# the kernel's meters logs when it finds them missing or broken.)
check_absent "ovs-vswitchd's meter probe found them neither missing nor broken" \
	"does not support meters|broken meter" cat "$T/vswitchd.log"

rx() { ip netns exec "$B" cat "/sys/class/net/eth0/statistics/rx_$1"; }
now_ms() { date +%s%3N; }
# Meter 1's packet_in_count, and its band's packet_count.
meter_in() {
	$OFCTL meter-stats br0 meter=1 | sed -n 's/.*packet_in_count:\([0-9]*\).*/\1/p'
}
band_drops() {
	$OFCTL meter-stats br0 meter=1 | sed -n 's/.*0: packet_count:\([0-9]*\).*/\1/p'
}
# A flow from A to B through meter 1 made from SPEC (empty: no meter).
meter_flow() {
	$OFCTL del-flows br0
	$OFCTL del-meters br0
	if [ -n "$1" ]; then
		$OFCTL add-meter br0 "meter=1,$1" &&
			$OFCTL add-flow br0 "in_port=m1,udp,actions=meter:1,output:m2"
	else
		$OFCTL add-flow br0 "in_port=m1,udp,actions=output:m2"
	fi
}

WIN=4	# s: the measuring window; 10 % of what arrives is 400+ frames
# flood PPS LEN: SECS s of LEN-byte frames at PPS from A, in the
# background; its count goes to $T/sent.
flood() {
	ip netns exec "$A" "$BUILD/udpgen" -r "$1" -n $(($1 * 8)) -l "$2" \
		eth0 "$MAC_B" 10.8.0.1 10.8.0.2 0 >"$T/sent" &
	GEN=$!
}

# policed DESC SPEC LEN PPS RATE UNIT: meter 1 as SPEC, a flood of LEN-byte
# frames at PPS; once the band drops (the burst spent), what B receives
# over WIN s must be RATE UNIT (pktps or kbps) within 10 %; then the
# meter's counts must add up.
policed() {
	local desc=$1 spec=$2 len=$3 pps=$4 rate=$5 unit=$6
	local p0 p1 p2 b1 b2 t1 t2 got sent in drops

	check "$desc: meter and flow added" meter_flow "$spec"
	p0=$(rx packets)
	flood "$pps" "$len"
	wait_until 10 eval '[ "$(band_drops)" -gt 0 ]'
	p1=$(rx packets) b1=$(rx bytes) t1=$(now_ms)
	# The window itself: a duration to measure over, not a condition.
	sleep $WIN
	p2=$(rx packets) b2=$(rx bytes) t2=$(now_ms)
	if [ "$unit" = pktps ]; then
		got=$(((p2 - p1) * 1000 / (t2 - t1)))
	else
		got=$(((b2 - b1) * 8 / (t2 - t1)))
	fi
	check "$desc: B receives $got $unit (rate $rate, 10 %)" \
		test $((got * 10)) -ge $((rate * 9)) -a \
		$((got * 10)) -le $((rate * 11))
	wait "$GEN"
	GEN=
	read -r sent _ <"$T/sent"
	# The last frames counted and delivered.
	wait_until 10 eval '[ "$(meter_in)" = "$sent" ]'
	drops=$(band_drops)
	wait_until 10 eval '[ $(($(rx packets) - p0 + drops)) -ge "$sent" ]'
	in=$(meter_in)
	got=$(($(rx packets) - p0))
	check "$desc: the meter saw every frame sent ($in of ${sent:-?})" \
		test "${in:-0}" -eq "${sent:--1}"
	check "$desc: its band counted the drops ($drops = $in - $got)" \
		test "${drops:-0}" -gt 0 -a "${drops:-0}" -eq $((in - got))
}

# pktps: 2000 frames/s; the bucket holds burst_size frames, or a
# second's worth (ovs-vswitchd's default burst is the rate).
policed "pktps" "pktps,band=type=drop,rate=2000" 60 6000 2000 pktps
check_out "dpctl/dump-flows shows the meter action" \
	"actions:meter\([0-9]+\),[0-9]+" appctl dpctl/dump-flows
policed "pktps, burst 100" \
	"pktps,burst,band=type=drop,rate=2000,burst_size=100" 60 6000 2000 pktps
# kbps: 10 Mbit/s of 1250-byte frames is 1000 frames/s.
policed "kbps" "kbps,band=type=drop,rate=10000" 1250 3000 10000 kbps
policed "kbps, burst 400 kbit" \
	"kbps,burst,band=type=drop,rate=10000,burst_size=400" 1250 3000 10000 kbps

# No meter: the same flood arrives whole.
check "no meter: flow added" meter_flow ""
p0=$(rx packets)
ip netns exec "$A" "$BUILD/udpgen" -r 3000 -n 12000 -l 1250 eth0 "$MAC_B" \
	10.8.0.1 10.8.0.2 0 >"$T/sent"
read -r sent _ <"$T/sent"
wait_until 10 eval '[ $(($(rx packets) - p0)) -ge "$sent" ]'
check "no meter: all $sent frames arrive ($(($(rx packets) - p0)))" \
	test $(($(rx packets) - p0)) -eq "$sent"

check_vswitchd_log
finish
