#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs everything tapdp needs on Debian 12, build dependencies and the
# real clients alike, and the packages named as arguments (what an opt-in
# check needs besides). Idempotent: does nothing when all is present.
#
# The packages' own services (Open vSwitch's, OVN's) are never started: the
# tests and demos run their own instances in private namespaces and
# directories. A policy-rc.d answering 101 ("action forbidden") keeps
# invoke-rc.d and deb-systemd-invoke from starting them during the install.
set -e
PKGS="build-essential pkg-config libmnl-dev libnl-genl-3-dev libglib2.0-dev
libcmocka-dev liburcu-dev libbpf-dev bpftool openvswitch-switch
openvswitch-source python3-pyroute2 ovn-central ovn-host
linux-source-6.12 iproute2 iputils-ping iputils-arping netcat-openbsd ethtool
tcpdump kmod util-linux procps clang libclang-rt-14-dev iperf3 strace curl
cppcheck
conntrack gdb python3-jsonschema python3-prometheus-client tshark debhelper
podman runc
debootstrap $*"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive

# The daemons those packages ship; any that the install starts anyway (a
# postinst outside policy-rc.d's reach) is stopped again.
DAEMONS="ovsdb-server ovs-vswitchd ovn-northd ovn-controller"
# The packages' own: those in their run directories, not a test's that
# started meanwhile in its own.
running() {
	for d in $DAEMONS; do
		for pid in $(pgrep -x "$d"); do
			tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
				grep -Eq '/run/(openvswitch|ovn)/' && echo "$pid"
		done
	done
}
before=$(running)

policy=/usr/sbin/policy-rc.d
saved=""
if [ -e "$policy" ]; then
	saved=$(mktemp)
	cp -p "$policy" "$saved"
fi
restore_policy() {
	if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
}
trap restore_policy EXIT
printf '#!/bin/sh\nexit 101\n' >"$policy"
chmod 755 "$policy"

apt-get update -q
apt-get install -y -q --no-install-recommends $missing

for pid in $(running); do
	case " $(echo $before) " in *" $pid "*) continue ;; esac
	echo "install-deps: stopping $(cat /proc/"$pid"/comm) ($pid), started by the install"
	kill "$pid"
done
