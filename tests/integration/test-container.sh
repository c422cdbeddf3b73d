#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The container image (Containerfile), with podman: it builds from this
# tree's tracked files, and a container of it with NET_ADMIN and the TUN
# device (no --privileged, no module) runs the vswitchd scenario: the
# entrypoint's tapdpd and ovs-vswitchd, a bridge with two internal ports
# made by ovs-vsctl, frames sent out of one (into the datapath) reaching
# the other through a megaflow that ovs-dpctl, preloaded system-wide,
# shows; the daemon's log free of errors.
#
# The base image, debian:bookworm, is taken from podman's store; where it
# is not there (no registry is reached from here), it is made with
# debootstrap from the machine's own Debian mirror and imported.
. "$(dirname "$0")/../lib.sh"

# This machine's cgroups are hybrid (v1 with a v2 tree), which crun,
# podman's default runtime, refuses: runc takes them. And podman's
# default limits of files and processes per container exceed this
# machine's hard limits, which root here cannot raise (the runtime's
# processes run with at most 32768 processes): a container gets limits
# within them, and the build's steps run with chroot isolation (buildah's
# own, without a runtime).
podman() {
	case $1 in
	build) shift
		command podman build --isolation=chroot "$@" ;;
	run) shift
		command podman --runtime runc run \
			--ulimit "nofile=1024:$(ulimit -Hn)" \
			--ulimit nproc=4096:4096 "$@" ;;
	*) command podman --runtime runc "$@" ;;
	esac
}
IMAGE=localhost/tapdp-test:latest
BASE=docker.io/library/debian:bookworm
CTR=tapdp-test-$$
# The image stays for the next run's cache; the ones it replaced go.
trap 'podman rm -f "$CTR" >/dev/null 2>&1
	podman image prune -f >/dev/null 2>&1
	tapdp_cleanup' EXIT

# The machine's Debian mirror, from its apt sources (deb822 or one-line).
mirror() {
	sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
		2>/dev/null | grep -v security | head -1
	sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
		/etc/apt/sources.list 2>/dev/null | grep -v security | head -1
}
base_image() {
	podman image exists "$BASE" && return 0
	local m
	m=$(mirror | head -1)
	[ -n "$m" ] || { echo "no Debian mirror in the apt sources"; return 1; }
	debootstrap --variant=minbase bookworm "$T/rootfs" "$m" \
		>"$T/debootstrap.log" 2>&1 || { tail -20 "$T/debootstrap.log"; return 1; }
	tar -C "$T/rootfs" -c . | podman import - "$BASE" >/dev/null
}
check "the base image $BASE" base_image

SRC=$T/src
mkdir -p "$SRC"
(cd "$TOP" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$SRC"
check "podman build: the image builds" eval 'podman build --pull=never \
	--network=host -t "$IMAGE" -f "$SRC/Containerfile" "$SRC" \
	>"$T/build.log" 2>&1 || { tail -40 "$T/build.log"; false; }'

# No network but its own namespace's loopback; NET_ADMIN, NET_RAW for
# ping, and the TUN device (podman's default capabilities lack MKNOD).
check "podman run --cap-add NET_ADMIN: the entrypoint starts" \
	podman run -d --name "$CTR" --network=none --cap-add NET_ADMIN \
	--cap-add NET_RAW --device /dev/net/tun "$IMAGE"
x() { podman exec "$CTR" "$@"; }
check "... tapdpd and ovs-vswitchd answer" wait_until 20 eval \
	'x ovs-vsctl --timeout=1 show >/dev/null 2>&1 &&
	 x ovs-appctl -t ovs-vswitchd version >/dev/null 2>&1'
check_out "... the shim preloaded system-wide" "/tapdp/libtapdp\.so$" \
	x cat /etc/ld.so.preload
check "ovs-vsctl: a bridge and two internal ports" \
	x ovs-vsctl add-br br0 -- \
	add-port br0 p1 -- set interface p1 type=internal -- \
	add-port br0 p2 -- set interface p2 type=internal
check "... the ports' devices appear" wait_until 20 x ip link show p2
check_out "... in the kernel datapath, as ovs-dpctl shows it" \
	"^  port [0-9]+: p2 \(internal\)$" x ovs-dpctl show
check "... up, p1 with an address" eval 'x ip link set p1 up &&
	x ip link set p2 up && x ip addr add 10.7.0.1/24 dev p1'
check "... a neighbour on p1: p2's address" eval \
	'x ip neigh replace 10.7.0.2 lladdr "$(x cat /sys/class/net/p2/address)" \
		dev p1 nud permanent'
rx_before=$(x cat /sys/class/net/p2/statistics/rx_packets)
# Nobody answers on p2: the requests go one way.
x ping -c 5 -i 0.2 -W 1 10.7.0.2 >/dev/null 2>&1
check "five pings out of p1 reach p2 through the datapath" eval \
	'[ "$(x cat /sys/class/net/p2/statistics/rx_packets)" -ge $((rx_before + 5)) ]'
check_out "... by a megaflow ovs-vswitchd installed" \
	"eth_type\(0x0800\).*packets:[1-9]" x ovs-dpctl dump-flows
check_out "... tapdpd without CAP_NET_BROADCAST: its own namespace's link events" \
	"link events of other namespaces go unheard" x cat /var/log/tapdp/tapdpd.log
check_out "... no error in tapdpd's log" "^0$" \
	eval 'x grep -c "|ERR|" /var/log/tapdp/tapdpd.log || true'
check_out "... nor in ovs-vswitchd's" "^0$" \
	eval 'x grep -c "|ERR|\|EMER" /var/log/openvswitch/ovs-vswitchd.log || true'
finish
