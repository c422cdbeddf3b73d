#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The entrypoint of the tapdp image (Containerfile): a kernel-datapath Open
# vSwitch in a container with NET_ADMIN and no openvswitch module. Starts
# tapdpd, preloads the shim into every process started after it
# (/etc/ld.so.preload), starts ovsdb-server and ovs-vswitchd on it (unless
# TAPDP_OVS=no), then runs the command given. Logs: /var/log/tapdp and
# /var/log/openvswitch.
set -e
shim=$(dpkg -L tapdp | grep '/libtapdp\.so$')
# TAP devices need /dev/net/tun. Docker's device rules let a container
# with CAP_MKNOD (a default of docker's) make it; podman's default
# capabilities lack it: there, pass --device /dev/net/tun.
if [ ! -c /dev/net/tun ]; then
	mkdir -p /dev/net
	mknod /dev/net/tun c 10 200
fi
mkdir -p /run/tapdp /var/log/tapdp
tapdpd --detach --pidfile /run/tapdp/tapdpd.pid \
	--log-file /var/log/tapdp/tapdpd.log
echo "$shim" >/etc/ld.so.preload
if [ "${TAPDP_OVS:-yes}" != no ]; then
	mkdir -p /run/openvswitch /var/log/openvswitch /etc/openvswitch
	db=/etc/openvswitch/conf.db
	[ -e "$db" ] ||
		ovsdb-tool create "$db" /usr/share/openvswitch/vswitch.ovsschema
	ovsdb-server "$db" --remote=punix:/run/openvswitch/db.sock \
		--pidfile --detach --log-file
	ovs-vsctl --no-wait init
	ovs-vswitchd --pidfile --detach --log-file
fi
exec "$@"
