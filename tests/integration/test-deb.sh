#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package (debian/): `dpkg-buildpackage -us -uc -b` builds
# tapdp_*.deb from the tree's tracked files, with the daemon, the shim,
# tapdp-run, tapdpctl, their man pages, the bash completion, the
# Wireshark dissector and the systemd unit; dpkg installs it; the unit's
# ExecStart, run as written (without systemd), serves ovs-dpctl through
# the installed tapdp-run and tapdpctl on the default socket; the unit's
# ExecReload upgrades it in place and SIGTERM (systemctl stop) stops it
# and its keeper; dpkg --purge takes every file away again.
#
# It installs the package on this machine and purges it at the end, so it
# does nothing (and says why) where a tapdp package is installed already
# or a daemon answers on the default socket.
. "$(dirname "$0")/../lib.sh"

UNIT=/lib/systemd/system/tapdp.service
DEFAULT_SOCK=/run/tapdp/tapdp.sock
skip() { echo "skip: $*"; rm -rf "$T"; echo "0 passed, 0 failed"; exit 0; }
if dpkg-query -W -f='${Status}' tapdp 2>/dev/null | grep -q installed; then
	skip "a tapdp package is installed on this machine; this test would replace and purge it"
fi
if [ -S "$DEFAULT_SOCK" ] && env -u TAPDP_SOCKET "$BUILD/tapdpctl" status >/dev/null 2>&1; then
	skip "a tapdpd serves $DEFAULT_SOCK on this machine"
fi

installed=
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	pkill -9 -f '^/usr/sbin/tapdpd' 2>/dev/null
	[ -n "$installed" ] && dpkg --purge tapdp >/dev/null 2>&1
	rm -f "$DEFAULT_SOCK"
	tapdp_cleanup
}
trap cleanup EXIT

# The tracked files as a source tree, as a clean clone has them.
VERSION=$(sed -n '1s/^tapdp (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
SRC=$T/src/tapdp-$VERSION
mkdir -p "$SRC"
(cd "$TOP" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$SRC"
check "dpkg-buildpackage -us -uc -b builds it" \
	eval '(cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 ||
		{ tail -30 "$T/build.log"; false; }'
DEB=$T/src/tapdp_${VERSION}_$(dpkg --print-architecture).deb
check "... into tapdp_${VERSION}_*.deb" test -f "$DEB"
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\.||' >"$T/files"
for f in /usr/sbin/tapdpd /usr/bin/tapdp-run /usr/bin/tapdpctl \
	 "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/tapdp/libtapdp.so" \
	 /usr/share/man/man8/tapdpd.8.gz /usr/share/man/man8/tapdp-run.8.gz \
	 /usr/share/man/man8/tapdpctl.8.gz \
	 /usr/share/bash-completion/completions/tapdpctl \
	 /usr/share/tapdp/wireshark-ovs.lua $UNIT \
	 /usr/share/doc/tapdp/copyright; do
	check "... holding $f" grep -qx "$f" "$T/files"
done
check_out "... depending on the libraries it links" \
	"libmnl0.*liburcu8|liburcu8.*libmnl0" dpkg-deb -f "$DEB" Depends

check "dpkg -i installs it" eval 'dpkg -i "$DEB" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; false; }'
installed=1
check_out "... dpkg says so" "^install ok installed$" \
	dpkg-query -W -f='${Status}' tapdp
check_out "... man finds tapdpctl(8)" "^/usr/share/man/man8/tapdpctl.8.gz$" \
	man -w tapdpctl
check_out "... bash completes tapdpctl" "_tapdpctl tapdpctl$" \
	bash -c '. /usr/share/bash-completion/completions/tapdpctl && complete -p tapdpctl'
check_out "... tshark loads the dissector" "Open vSwitch ovs_flow" \
	eval 'tshark -G protocols -X lua_script:/usr/share/tapdp/wireshark-ovs.lua 2>/dev/null'

# The unit's ExecStart as systemd would run it (Type=simple: in the
# foreground), here in a network namespace of its own, the clients with
# the default socket.
EXEC_START=$(sed -n 's/^ExecStart=//p' "$UNIT")
check_out "the unit starts /usr/sbin/tapdpd" "^/usr/sbin/tapdpd( |$)" echo "$EXEC_START"
tapdp_ns_up
mkdir -p /run/tapdp
ip netns exec "$NS" $EXEC_START >"$T/unit.log" 2>&1 &
DPID=$!
ctl() { in_ns env -u TAPDP_SOCKET /usr/bin/tapdpctl "$@"; }
run() { in_ns env -u TAPDP_SOCKET /usr/bin/tapdp-run -- "$@"; }
check "... and it serves $DEFAULT_SOCK" wait_until 10 eval 'ctl status >/dev/null 2>&1'
check "... ovs-dpctl add-dp through the installed tapdp-run" \
	run ovs-dpctl add-dp debdp0
check "... add-if of an internal port" \
	run ovs-dpctl add-if debdp0 debp1,type=internal
check_out "... ovs-dpctl show sees them" "port 1: debp1 \(internal\)" \
	run ovs-dpctl show debdp0
check_out "... the installed tapdpctl too" "^datapath debdp0: " ctl status
pid_before=$(ctl --json status | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
# ExecReload: an upgrade in place, the same process.
RELOAD=$(sed -n 's/^ExecReload=//p' "$UNIT")
check "ExecReload (kill -USR2 \$MAINPID)" eval "${RELOAD//\$MAINPID/$DPID}"
check "... the daemon answers again" wait_until 10 eval \
	'ctl status 2>/dev/null | grep -q "^datapath debdp0: "'
check_out "... as the same process, with its port" "port 1: debp1 \(internal\)" \
	eval '[ "$(ctl --json status | /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)[\"pid\"])")" = "$pid_before" ] && run ovs-dpctl show debdp0'
# systemctl stop: SIGTERM to the main process (KillMode=process).
check "SIGTERM stops it" eval 'kill -TERM "$DPID" && wait "$DPID"'
DPID=
check "... its keeper too" wait_until 10 eval '! pgrep -f "^/usr/sbin/tapdpd" >/dev/null'
check "... and the socket is gone" test ! -e "$DEFAULT_SOCK"

check "dpkg --purge removes it" eval 'dpkg --purge tapdp >"$T/purge.log" 2>&1 ||
	{ cat "$T/purge.log"; false; }'
installed=
check_out "... none of its files left" "^0$" \
	eval 'n=0; while read -r f; do [ -f "$f" ] && n=$((n + 1)); done <"$T/files"; echo $n'
finish
