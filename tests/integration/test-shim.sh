#!/bin/bash
# The netlink socket semantics clients rely on (shim-check), with the daemon
# and then without it (the shim must step aside for the real kernel).
. "$(dirname "$0")/../lib.sh"
trap tapdp_ns_down EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"FAIL - "*) nok "${line#FAIL - }" ;;
	esac
done < <(in_ns timeout 120 "$BUILD/tapdp-run" -- "$BUILD/shim-check" 2>&1)
tapdpd_stop
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"FAIL - "*) nok "${line#FAIL - }" ;;
	esac
done < <(in_ns timeout 60 "$BUILD/tapdp-run" -- "$BUILD/shim-check" --kernel 2>&1)
check "the shim-check runs reported" test "$PASS" -ge 30
finish
