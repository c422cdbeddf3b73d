#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A fuzzing campaign (make fuzz-campaign): each target given runs
# FUZZ_CAMPAIGN_SECONDS (3600) in libFuzzer's fork mode with FUZZ_JOBS
# (the cores) processes, from its kept inputs (tests/fuzz-seeds/<target>/)
# and going on past a crash. Then the inputs that add coverage are merged
# into the kept ones (-merge=1). Prints per target the runs, the corpus
# size, the coverage of the kept inputs before and after (edges and
# features, as libFuzzer counts them replaying them), and the crashes,
# which stay in
# build-fuzz/<target>.crash-*: once fixed, a crash is kept as
# tests/fuzz-seeds/<target>/crash-<sha1> (make check replays it). Exits 1
# when a target crashed.
#   tests/fuzz/campaign.sh build-fuzz/fuzz-X...
set -u
SECONDS_EACH=${FUZZ_CAMPAIGN_SECONDS:-3600}
JOBS=${FUZZ_JOBS:-$(nproc)}
status=0

# "cov: N ft: M" of libFuzzer's last status line in a log.
cov_of() { grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$1" | tail -1; }

echo "fuzz campaign: ${SECONDS_EACH} s per target, $JOBS jobs, $(date -u +%F)"
for t in "$@"; do
	name=$(basename "$t")
	seeds=tests/fuzz-seeds/$name
	corpus=$t.corpus
	mkdir -p "$seeds" "$corpus"
	rm -f "$t".crash-*
	# Coverage of the kept inputs alone.
	"$t" -runs=0 -rss_limit_mb=2048 "$seeds" >"$t.before.log" 2>&1
	before=$(cov_of "$t.before.log")
	"$t" -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$SECONDS_EACH" \
		-rss_limit_mb=2048 -artifact_prefix="$t." \
		"$corpus" "$seeds" >"$t.campaign.log" 2>&1
	# Fork mode's status lines: "#RUNS: cov: N ft: M corp: C exec/s: E
	# oom/timeout/crash: O/T/X time: S job: J".
	last=$(grep -E '^#[0-9]+: cov:' "$t.campaign.log" | tail -1)
	runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
	corp=$(grep -Eo 'corp: [0-9]+' <<<"$last" | cut -d' ' -f2)
	n_kept=$(ls "$seeds" | wc -l)
	"$t" -merge=1 -rss_limit_mb=2048 "$seeds" "$corpus" \
		>"$t.merge.log" 2>&1
	added=$(( $(ls "$seeds" | wc -l) - n_kept ))
	"$t" -runs=0 -rss_limit_mb=2048 "$seeds" >"$t.after.log" 2>&1
	after=$(cov_of "$t.after.log")
	crashes=$(ls "$t".crash-* "$t".leak-* "$t".timeout-* "$t".oom-* \
		2>/dev/null)
	echo "$name: runs ${runs:-0}, corpus ${corp:-0}," \
		"coverage (${before:-none}) -> (${after:-none})," \
		"$added inputs kept, crashes $(wc -w <<<"$crashes")"
	for c in $crashes; do
		echo "  $c"
		status=1
	done
done
exit $status
