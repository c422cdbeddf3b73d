#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Fuzz seeds from real clients: runs integration scripts (ovs-dpctl,
# ovs-vswitchd, the selftest's ovs-dpctl.py...) under strace, which records
# every request tapdpd reads from its clients, turns those into inputs of
# the fuzz targets (capture-seeds.py) and merges into
# tests/fuzz-seeds/<target>/ those that add coverage (libFuzzer's
# -merge=1). Needs root, the build (make all, the scripts' helpers) and
# the fuzz targets (make build-fuzz/fuzz-X).
#   tests/fuzz/capture-seeds.sh [tests/integration/test-X.sh...]
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
[ $# -gt 0 ] || set -- tests/integration/test-ovs-dpctl.sh \
	tests/integration/test-flows.sh tests/integration/test-conntrack.sh
W=$(mktemp -d /tmp/capture-seeds.XXXXXX)
trap 'rm -rf "$W"' EXIT
for s in "$@"; do
	echo "== $s"
	# Only recvmsg is traced (seccomp-bpf filters the rest), -f to reach
	# the daemon the script starts.
	BUILD=${BUILD:-build} strace -f -qq --seccomp-bpf -e trace=recvmsg \
		-e signal=none -xx -s 300000 -o "$W/trace" bash "$s" |
		tail -1
	python3 tests/fuzz/capture-seeds.py "$W/trace" "$W/seeds"
	rm -f "$W/trace"
done
for d in "$W"/seeds/*; do
	t=$(basename "$d")
	mkdir -p "tests/fuzz-seeds/$t"
	before=$(ls "tests/fuzz-seeds/$t" | wc -l)
	"build-fuzz/$t" -merge=1 -rss_limit_mb=2048 "tests/fuzz-seeds/$t" "$d" \
		>"$W/merge.log" 2>&1 || { tail -20 "$W/merge.log"; exit 1; }
	echo "$t: $(ls "$d" | wc -l) captured, $(( $(ls "tests/fuzz-seeds/$t" |
		wc -l) - before )) kept"
done
