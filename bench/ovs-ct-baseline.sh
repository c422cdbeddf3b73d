#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ovs-ct-baseline.sh - baseline numbers from Open vSwitch's own userspace
# conntrack, for comparison with tapdp's ct/.
#
# Builds OVS 3.1's `ovstest` from Debian's openvswitch-source tarball
# (/usr/src/openvswitch/openvswitch.tar.gz) and runs
#   ovstest test-conntrack benchmark THREADS PACKETS BATCH [1]
#
# What it measures (see tests/test-conntrack.c in the OVS source): THREADS
# threads each push PACKETS UDP/IPv4 packets through conntrack_execute()
# with commit set, in zone 0, BATCH packets per call (BATCH is 1..32,
# NETDEV_MAX_BURST). Each thread builds one batch up front and sends it again
# and again; ct state is reset between calls, so every packet goes through a
# full lookup. Each thread uses its own UDP source port (one connection per
# thread). With the optional final 1, the packets inside a batch get
# different UDP destination ports, so each thread has BATCH connections and
# every packet in a batch is a different connection. OVS prints the wall time
# between the start and end barriers, e.g. "conntrack:    123 ms".
#
# Usage: bash bench/ovs-ct-baseline.sh THREADS PACKETS BATCH [1]
#   e.g. bash bench/ovs-ct-baseline.sh 1 1000000 32
#        bash bench/ovs-ct-baseline.sh 2 1000000 32
#        bash bench/ovs-ct-baseline.sh 1 1000000 32 1
#
# The build is cached in ${OVS_BUILD_CACHE:-/var/tmp/tapdp-ovs-build} (log in
# build.log there); later runs reuse it. Missing build dependencies and the
# openvswitch-source package are installed with apt-get (needs root). Only the
# benchmark's result line is printed on stdout.

set -eu

usage() {
    echo "usage: $0 THREADS PACKETS BATCH [1]" >&2
    exit 2
}

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    usage
fi
for a in "$@"; do
    case $a in
        '' | *[!0-9]*) usage ;;
    esac
done

CACHE=${OVS_BUILD_CACHE:-/var/tmp/tapdp-ovs-build}
TARBALL=/usr/src/openvswitch/openvswitch.tar.gz
SRC=$CACHE/src/openvswitch
OVSTEST=$SRC/tests/ovstest
LOG=$CACHE/build.log
STAMP=$CACHE/stamp
# No optional libraries: conntrack needs none of them.
CONFIGURE_FLAGS="--disable-ssl --disable-libcapng --disable-afxdp --disable-dependency-tracking --enable-silent-rules"
# Everything OVS's build needs beyond what configure can do without:
# a C toolchain + make (build-essential) and Python 3 for the code generators.
BUILD_DEPS="build-essential python3"

APT_UPDATED=0
apt_install() {
    # Install the named Debian packages; refresh the package lists once if
    # the first try fails (e.g. on a machine where they were never fetched).
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "$@" >>"$LOG" 2>&1; then
        if [ "$APT_UPDATED" = 0 ]; then
            APT_UPDATED=1
            apt-get update -q >>"$LOG" 2>&1 || true
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends "$@" >>"$LOG" 2>&1 && return 0
        fi
        return 1
    fi
}

fail() {
    echo "ovs-ct-baseline: $*" >&2
    if [ -f "$LOG" ]; then
        echo "--- last lines of $LOG ---" >&2
        tail -n 40 "$LOG" >&2
    fi
    exit 1
}

is_installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

build_key() {
    # What the cached build depends on: the tarball and the configure flags.
    echo "$(sha256sum <"$TARBALL" | cut -d' ' -f1) $CONFIGURE_FLAGS"
}

cache_ok() {
    [ -x "$OVSTEST" ] && [ -f "$STAMP" ] || return 1
    # Without the tarball we cannot tell; trust the finished build.
    [ -f "$TARBALL" ] || return 0
    [ "$(cat "$STAMP")" = "$(build_key)" ]
}

build() {
    : >"$LOG"

    if [ ! -f "$TARBALL" ]; then
        apt_install openvswitch-source || fail "cannot install openvswitch-source"
        [ -f "$TARBALL" ] || fail "$TARBALL missing after installing openvswitch-source"
    fi

    missing=
    for p in $BUILD_DEPS; do
        is_installed "$p" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "ovs-ct-baseline: installing build dependencies:$missing" >&2
        # shellcheck disable=SC2086
        apt_install $missing || fail "cannot install:$missing"
    fi

    echo "ovs-ct-baseline: building OVS ovstest in $CACHE (log: $LOG)..." >&2
    start=$(date +%s)
    rm -rf "$CACHE/src" "$STAMP"
    mkdir -p "$CACHE/src"
    tar -xzf "$TARBALL" -C "$CACHE/src" >>"$LOG" 2>&1 || fail "cannot extract $TARBALL"
    [ -f "$SRC/configure" ] || fail "no configure script in $TARBALL"

    cd "$SRC"
    # shellcheck disable=SC2086
    PYTHON3=/usr/bin/python3 ./configure $CONFIGURE_FLAGS >>"$LOG" 2>&1 ||
        fail "configure failed"
    # Generated headers/sources are only built before "all"; build them
    # first, then just the ovstest binary.
    # shellcheck disable=SC2016
    printf 'tapdp-built-sources: $(BUILT_SOURCES) config.h\n' |
        make -f Makefile -f - -j2 tapdp-built-sources >>"$LOG" 2>&1 ||
        fail "make (generated sources) failed"
    make -j2 tests/ovstest >>"$LOG" 2>&1 || fail "make tests/ovstest failed"
    [ -x "$OVSTEST" ] || fail "tests/ovstest was not built"
    cd - >/dev/null

    build_key >"$STAMP"
    echo "ovs-ct-baseline: build done in $(($(date +%s) - start)) s" >&2
}

mkdir -p "$CACHE"
# One build at a time; the lock is held until the script exits.
exec 9>"$CACHE/.lock"
flock 9
if ! cache_ok; then
    build
fi
# Keep a shared lock while running so no other run rebuilds under us.
flock -s 9

# ovstest prints the result on stdout; anything else goes to stderr.
if ! "$OVSTEST" test-conntrack benchmark "$@"; then
    echo "ovs-ct-baseline: ovstest test-conntrack benchmark failed" >&2
    exit 1
fi
