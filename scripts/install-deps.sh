#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs everything tapdp needs on Debian 12, build dependencies and the
# real clients alike. Idempotent: does nothing when all is present.
set -e
PKGS="build-essential pkg-config libmnl-dev libnl-genl-3-dev libglib2.0-dev
libcmocka-dev liburcu-dev openvswitch-switch openvswitch-source python3-pyroute2
linux-source-6.12 iproute2 iputils-ping iputils-arping netcat-openbsd ethtool
tcpdump kmod util-linux procps clang libclang-rt-14-dev iperf3 strace"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing
