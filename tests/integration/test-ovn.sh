#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# OVN across three tapdp chassis (scripts/ovn-demo.sh in its check mode):
# Debian's ovn-northd and ovn-controller, ovs-vswitchd through tapdp-run on
# each chassis, geneve between them over a routed underlay; a logical switch
# across two chassis, a logical router to a third, stateful ACLs allowing
# and refusing. Its checks are this suite's; then the daemons' logs: no
# WARN, ERR or EMER line in any ovs-vswitchd's, no ERR or EMER line in any
# ovn-controller's (their WARN lines are OVN's own: a VIF plug provider
# this build lacks, br-int's OpenFlow socket before ovs-vswitchd made it).
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

adopt "" bash "$TOP/scripts/ovn-demo.sh" --check --logs "$T/logs"
n=0
for h in c1 c2 c3; do
	f=$T/logs/$h-ovs-vswitchd.log
	[ -f "$f" ] || continue
	n=$((n + 1))
	check_absent "no WARN, ERR or EMER line in $h's ovs-vswitchd log" \
		'\|(WARN|ERR|EMER)\|' cat "$f"
	check_absent "no ERR or EMER line in $h's ovn-controller log" \
		'\|(ERR|EMER)\|' cat "$T/logs/$h-ovn-controller.log"
done
check "the three chassis' logs" test "$n" -eq 3
finish
