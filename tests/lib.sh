# SPDX-License-Identifier: Apache-2.0
# Shared helpers for tapdp's shell tests. Source it; it defines:
#   check DESC CMD...      a check that passes when CMD succeeds
#   check_out DESC RE CMD  passes when CMD's stdout+stderr matches RE (grep -E)
#   check_absent DESC RE CMD  passes when CMD succeeds and its output does
#                          not match RE (a failing CMD fails the check)
#   check_fails DESC CMD...   passes when CMD runs and exits non-zero (not
#                          when it cannot be run: status 126 or 127)
#                          A failed check also prints what the daemon
#                          counted: drops by reason, lost upcalls
#   adopt PREFIX CMD...   runs CMD, a checker printing "ok - "/"FAIL - "
#                          lines and "N passed, N failed": its lines are
#                          this suite's checks (PREFIX before each); one
#                          failure more if it ends without its summary or
#                          fails without saying so; a failure's indented
#                          lines are printed under it
#   adopt_output PREFIX FILE ST   the same for a checker that ran
#                          elsewhere: its output in FILE, its status ST
#   wait_until SECS CMD... runs CMD every 0.1 s until it succeeds (status 0)
#                          or SECS have passed (status 1)
#   dead PID               PID has exited: gone, or a zombie its parent
#                          has not reaped yet (a --detach daemon's parent
#                          is PID 1, which may reap only every few
#                          seconds; a zombie holds no file or socket)
#   alive PID              not dead PID
#   output_lacks RE CMD... CMD succeeds and its output does not match RE
#                          (for wait_until; a failing CMD is no answer)
#   unanswered NS ARGS...  ping ARGS from namespace NS ran and no reply came
#                          (not a ping that could not send: no errors)
#   link_gone NS NAME...   ip says no device NAME exists in namespace NS
#   tx_dropped NS DEV      the frames device DEV of namespace NS dropped
#                          on transmit (the kernel's count)
#   listens NS tcp|udp PORT   a socket of namespace NS is bound to PORT
#   capture SECS NS FILE ARGS...  tcpdump -l -n ARGS in NS for at most
#                          SECS, in the background, printing to FILE;
#                          returns once it captures
#   tapdp_ns_up            a private network namespace ($NS)
#   tapdpd_start / tapdpd_stop    the daemon inside it ($SOCK, $LOG, $PIDF)
#   dpctl ARGS             Debian's ovs-dpctl through tapdp-run, in $NS
#   pyctl ARGS             the kernel selftest's ovs-dpctl.py (pyroute2)
#                          through tapdp-run, in $NS
#   finish                 prints "N passed, N failed" and exits accordingly;
#                          a sanitizer report, or a daemon's log under $T
#                          (*log) with a system call its sandbox refused,
#                          is one failure more
#   tapdp_cleanup          stops the daemon, deletes $NS and the temp dir:
#                          every script traps it on EXIT
#   SELFTEST               the kernel selftest's directory (make selftest)
#   ovs_env / ovsdb_start / vswitchd_start / appctl / ovs_stop / ovs_cleanup
#                          Debian's ovsdb-server and ovs-vswitchd (through
#                          tapdp-run) in $NS, run directory $T; $HOSTS are
#                          namespaces ovs_cleanup deletes too
#   check_vswitchd_log [RE]  no WARN, ERR or EMER line in ovs-vswitchd's log,
#                          but those matching RE: what the kernel makes it log
#   vswitchd_flush_flows   empties the datapath flows and ovs-vswitchd's
#                          record of them, no revalidator running
#   host_add NAME PORT [ADDR]  a host namespace (IPv6 off) whose eth0 is
#                          joined by a veth to PORT in $NS
#   vm_add HOST-NS VM-NS PORT ADDR MTU   the same behind another namespace,
#                          eth0 with that MTU (a tunnel's VM)
#   mem_kib PID            PID's resident memory less the pages of files
#                          it maps (RssAnon + RssShmem), in KiB: what it
#                          allocated, not the code it paged in
#   journal_rss PID        the resident KiB of the journal PID maps
#                          (datapath/journal.h), which takes a record for
#                          every change and gives pages back only when it
#                          compacts: mem_kib counts them
#   heap_kib PID           mem_kib PID less journal_rss PID
#   growth_pct A B         (B - A) * 100 / A, two decimals
#   check_mem_growth DESC A B  passes when B (KiB) is within 1% of A (KiB);
#                          with the sanitizers, whose quarantine keeps
#                          freed memory, says so and compares nothing
#                          (their leak check at the daemon's exit does)
# BUILD selects the build tree (build, or build-asan for the sanitizers).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# TAPDP_OVS_BIN: another OVS's programs and schema (make check-upstream's
# build of a newer one), used in place of the system's.
if [ -n "${TAPDP_OVS_BIN:-}" ]; then
	PATH=$TAPDP_OVS_BIN:$PATH
	OVS_SCHEMA=$TAPDP_OVS_BIN/vswitch.ovsschema
else
	OVS_SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
fi
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
PASS=0
FAIL=0
T=$(mktemp -d /tmp/tapdp-test.XXXXXX)
chmod 755 "$T"
NS=tapdp$$
SOCK=$T/tapdp.sock
LOG=$T/tapdpd.log
PIDF=$T/tapdpd.pid
export TAPDP_SOCKET=$SOCK
# The sanitizer build writes its reports here; any file is a failure.
export ASAN_OPTIONS=log_path=$T/asan:detect_leaks=1
export UBSAN_OPTIONS=log_path=$T/ubsan:print_stacktrace=1

# tapdpd's kernel profiles, oldest first, and the one a kernel of
# release $1 answers as without --kernel: its own, else the newest older.
PROFILES="5.4 5.10 5.15 6.1 6.6 6.12 6.18 7.2"
profile_of() {
	local rel=${1%%[!0-9.]*} p best=5.4
	for p in $PROFILES; do
		printf '%s\n%s\n' "$p" "$rel" | sort -V -C && best=$p
	done
	echo "$best"
}

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
nok() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }

# Under a failed check, what the suite's daemon counted: drops by reason
# and lost upcalls, so that a failure which does not come back says where
# the packet went. Nothing when no daemon runs or it counted nothing.
explain() {
	[ -s "$PIDF" ] && alive "$(cat "$PIDF")" || return 0
	{ in_ns "$BUILD/tapdpctl" --socket "$SOCK" drops
	  in_ns "$BUILD/tapdpctl" --socket "$SOCK" upcalls | grep -v "lost 0 "
	} 2>&1 | grep -v "miss to flow" | sed 's/^/    # /' | head -30
}

check() {
	local desc=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok "$desc"; else
		nok "$desc"
		sed 's/^/    /' "$T/out" | head -20
		explain
	fi
}

check_out() {
	local desc=$1 re=$2
	shift 2
	"$@" >"$T/out" 2>&1
	if grep -Eq -- "$re" "$T/out"; then ok "$desc"; else
		nok "$desc (wanted /$re/)"
		sed 's/^/    /' "$T/out" | head -20
		explain
	fi
}

check_absent() {
	local desc=$1 re=$2 st
	shift 2
	"$@" >"$T/out" 2>&1
	st=$?
	if [ "$st" -ne 0 ]; then
		nok "$desc (command failed: status $st)"
		sed 's/^/    /' "$T/out" | head -20
	elif grep -Eq -- "$re" "$T/out"; then
		nok "$desc (unwanted /$re/)"
		grep -E -- "$re" "$T/out" | sed 's/^/    /' | head -20
		explain
	else
		ok "$desc"
	fi
}

check_fails() {
	local desc=$1 st
	shift
	"$@" >"$T/out" 2>&1
	st=$?
	if [ "$st" -ne 0 ] && [ "$st" -ne 126 ] && [ "$st" -ne 127 ]; then
		ok "$desc"
	else
		nok "$desc (status $st)"
		sed 's/^/    /' "$T/out" | head -20
		explain
	fi
}

adopt() {
	local prefix=$1 st
	shift
	"$@" >"$T/adopt" 2>&1
	st=$?
	adopt_output "$prefix" "$T/adopt" "$st"
}

# adopt's reading, for a checker that ran elsewhere: its output in FILE,
# its exit status ST. A failure's indented lines come with it.
adopt_output() { # prefix file st
	local prefix=$1 line sum
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$prefix${line#ok - }" ;;
		"FAIL - "*) nok "$prefix${line#FAIL - }" ;;
		"    "*) echo "$line" ;;
		esac
	done <"$2"
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$2" | tail -1)
	if [ -z "$sum" ] || { [ "$3" -ne 0 ] && [ "${sum#*, }" = "0 failed" ]; }
	then
		nok "${prefix}the checker ended without its summary or failed (status $3)"
		tail -20 "$2" | sed 's/^/    /'
	fi
}

wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

dead() { [ ! -e "/proc/$1" ] || grep -q '^State:\s*Z' "/proc/$1/status"; }
alive() { ! dead "$1"; }

output_lacks() {
	local re=$1 out
	shift
	out=$("$@" 2>&1) || return 1
	! grep -Eq -- "$re" <<<"$out"
}

unanswered() {
	local ns=$1 out
	shift
	out=$(ip netns exec "$ns" ping "$@" 2>&1)
	printf '%s\n' "$out"
	grep -Eq 'packets transmitted, 0 received, 100% packet loss' <<<"$out"
}

link_gone() {
	local ns=$1 n out
	shift
	for n; do
		out=$(ip -n "$ns" link show "$n" 2>&1)
		grep -Fq "Device \"$n\" does not exist." <<<"$out" || {
			printf '%s\n' "$out"
			return 1
		}
	done
}

tx_dropped() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_dropped"; }

listens() {
	local opt=-t
	[ "$2" = udp ] && opt=-u
	[ -n "$(ip netns exec "$1" ss -Hln $opt "sport = :$3")" ]
}

capture() {
	local secs=$1 ns=$2 out=$3
	shift 3
	ip netns exec "$ns" timeout "$secs" tcpdump -l -n "$@" >"$out" \
		2>"$out.err" &
	wait_until 10 grep -q "listening on" "$out.err"
}

in_ns() { ip netns exec "$NS" "$@"; }
in_ns_of() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

tapdp_ns_up() {
	ip netns add "$NS"
	in_ns ip link set lo up
}

SELFTEST=$TOP/build/selftest

tapdp_cleanup() {
	tapdpd_stop
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
	true
}

# How the daemons run: glibc fills what malloc returns and what free takes
# back with a byte that is not zero, so that memory read before it is
# written gives the same wrong answer every run, not what a previous user
# left there (ASan's allocator has its own fill; it ignores this).
DAEMON_ENV="env MALLOC_PERTURB_=165"

tapdpd_start() {
	in_ns $DAEMON_ENV "$BUILD/tapdpd" --socket "$SOCK" --log-file "$LOG" \
		--pidfile "$PIDF" --detach "$@"
}

tapdpd_stop() {
	local pid
	[ -f "$PIDF" ] || return 0
	pid=$(cat "$PIDF")
	kill -TERM "$pid" 2>/dev/null
	wait_until 5 dead "$pid"
}

dpctl() { in_ns "$BUILD/tapdp-run" -- ovs-dpctl "$@"; }

# The fast path (datapath/fastpath.h): its entries as tapdpctl status
# counts them, and its hits summed over the CPUs from the kernel's map.
fp_entries() {
	in_ns "$BUILD/tapdpctl" --socket "$SOCK" status |
		awk '$1 == "fast-path" { print $3 }'
}
fp_hits() {
	in_ns bpftool -j map dump name fp_dp_stats 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys
print(sum(v["value"]["n_hit"] for e in json.load(sys.stdin)
          for v in e["formatted"]["values"]))'
}

pyctl() {
	in_ns env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 "$SELFTEST/ovs-dpctl.py" "$@"
}

ovs_env() {
	export OVS_RUNDIR=$T OVS_LOGDIR=$T OVS_DBDIR=$T OVS_SYSCONFDIR=$T
	VSCTL="ovs-vsctl --db=unix:$T/db.sock --timeout=10"
}

ovsdb_start() {
	ovsdb-tool create "$T/conf.db" "$OVS_SCHEMA"
	in_ns ovsdb-server --remote="punix:$T/db.sock" --pidfile="$T/ovsdb.pid" \
		--detach --log-file="$T/ovsdb.log" "$T/conf.db" 2>/dev/null &&
		$VSCTL --no-wait init
}

vswitchd_start() {
	in_ns "$BUILD/tapdp-run" -- ovs-vswitchd "unix:$T/db.sock" \
		--pidfile="$T/vswitchd.pid" --detach --log-file="$T/vswitchd.log"
}

appctl() { ovs-appctl -t "$T/ovs-vswitchd.$(cat "$T/vswitchd.pid").ctl" "$@"; }

# Empties the datapath of flows, and ovs-vswitchd of its record of them,
# with its revalidators stopped: upcall/enable-megaflows flushes as
# udpif_flush does. Not revalidator/purge: it deletes beside a revalidator
# whose dump already holds the first part (filled when the dump starts, by
# the kernel as by tapdpd), so flows it deleted come back as unexpected,
# and their flow_get fails: WARN lines from the client's own race.
vswitchd_flush_flows() { appctl upcall/enable-megaflows; }

ovs_stop() {
	local p pid
	for p in vswitchd ovsdb; do
		[ -f "$T/$p.pid" ] || continue
		pid=$(cat "$T/$p.pid")
		kill "$pid" 2>/dev/null && wait_until 5 dead "$pid"
		rm -f "$T/$p.pid"
	done
}

ovs_cleanup() {
	ovs_stop
	for h in ${HOSTS:-}; do ip netns del "$h" 2>/dev/null; done
	tapdp_cleanup
}

host_add() {
	ip netns add "$1"
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link add "$2" netns "$NS" type veth peer name eth0 netns "$1"
	in_ns ip link set "$2" up
	ip netns exec "$1" ip link set eth0 up
	[ -z "${3:-}" ] || ip netns exec "$1" ip addr add "$3" dev eth0
}

vm_add() {
	ip netns add "$2"
	ip netns exec "$2" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link add "$3" netns "$1" type veth peer name eth0 netns "$2"
	ip netns exec "$1" ip link set "$3" up
	ip netns exec "$2" ip link set eth0 mtu "$5" up
	ip netns exec "$2" ip addr add "$4" dev eth0
}

mem_kib() {
	awk '/^(RssAnon|RssShmem):/ { n += $2 } END { print n }' \
		"/proc/$1/status"
}

journal_rss() {
	awk '/tapdp-journal/ { j = 1; next } j && /^Rss:/ { print $2; exit }' \
		"/proc/$1/smaps"
}

heap_kib() { echo $(($(mem_kib "$1") - $(journal_rss "$1"))); }

# The heaps of glibc's arenas besides the main one in process $1: each is
# mapped 64 MiB-aligned, the part in use read-write, the rest reserved.
malloc_heaps() {
	/usr/bin/python3 -c 'import sys
n = 0
for line in open("/proc/%s/maps" % sys.argv[1]):
    f = line.split()
    start, end = (int(x, 16) for x in f[0].split("-"))
    if len(f) == 5 and f[1] == "rw-p" and start % (64 << 20) == 0 \
            and end - start <= 64 << 20:
        n += 1
print(n)' "$1"
}

growth_pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) * 100 / a }'
}

check_mem_growth() {
	if ldd "$BUILD/tapdpd" | grep -q libasan; then
		echo "(sanitizer build: memory not compared: $1)"
	else
		check "$1" awk -v a="$2" -v b="$3" 'BEGIN { exit !(b < a * 1.01) }'
	fi
}

# Every buffer the daemon's pools made is back in its pool (between
# packets no thread holds one) and each pool has some: the status, or why
# not.
buffers_free() {
	in_ns "$BUILD/tapdpctl" --json status |
		/usr/bin/python3 -c 'import json, sys
b = json.load(sys.stdin)["memory"]["buffers"]
print(b)
sys.exit(not (len(b) == 3 and
              all(0 < x["made"] == x["free"] for x in b)))'
}

# check_buffers_free DESC: buffers_free within 5 s (a frame in flight
# holds one), or a failure showing the last status.
check_buffers_free() {
	wait_until 5 buffers_free
	check "$1" buffers_free
}

check_vswitchd_log() {
	if [ -n "${1:-}" ]; then
		check_absent "no WARN, ERR or EMER line in ovs-vswitchd's log but the kernel's /$1/" \
			'\|(WARN|ERR|EMER)\|' sed -E "/$1/d" "$T/vswitchd.log"
	else
		check_absent "no WARN, ERR or EMER line in ovs-vswitchd's log" \
			'\|(WARN|ERR|EMER)\|' cat "$T/vswitchd.log"
	fi
}

sanitizer_reports() {
	ls "$T"/asan* "$T"/ubsan* 2>/dev/null
}

# Lines of the logs under $T (every daemon's, wherever a script put it,
# is named *log; copies of the tree are not) saying the sandbox refused a
# system call (daemon/sandbox.h): each one is a call missing from its list.
seccomp_refusals() {
	grep -rIs --include='*log' "seccomp: refused" "$T"
}

finish() {
	local reports refused
	reports=$(sanitizer_reports)
	if [ -n "$reports" ]; then
		nok "sanitizer reports: $reports"
		cat $reports | head -60
	fi
	refused=$(seccomp_refusals)
	if [ -n "$refused" ]; then
		nok "a daemon's sandbox refused system calls"
		sed 's/^/    /' <<<"$refused" | head -20
	fi
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}
