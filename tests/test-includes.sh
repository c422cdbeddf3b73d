#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The include rule (scripts/check-includes.py) holds for the tree, and the
# checker does fail on an include against the layer order, on a loop, and
# on a shim that includes the daemon.
. "$(dirname "$0")/lib.sh"

CHECK=$TOP/scripts/check-includes.py
check "the tree keeps the include rule" python3 "$CHECK" "$TOP"

copy() { # a copy of the tree's sources in $T/tree
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	(cd "$TOP" && git ls-files -z '*.c' '*.h' | xargs -0 tar -cf -) |
		tar -C "$T/tree" -xf -
}

copy
check "the copy keeps it too" python3 "$CHECK" "$T/tree"
sed -i '0,/#include "/s//#include "datapath\/datapath.h"\n#include "/' \
	"$T/tree/flow/table.h"
check_out "flow/ including datapath/ fails" 'flow/ may not include "datapath/datapath.h"' \
	python3 "$CHECK" "$T/tree"
check_fails "and exits non-zero" python3 "$CHECK" "$T/tree"

copy
echo '#include "ct/conntrack.h"' >>"$T/tree/ct/tuple.h"
check_out "a loop inside one folder is found" 'include loop: .*ct/tuple.h' \
	python3 "$CHECK" "$T/tree"

copy
sed -i '0,/#include "/s//#include "netlink\/nlsock.h"\n#include "/' \
	"$T/tree/compat/shim.c"
check_out "the shim including the daemon fails" 'compat/ may include only' \
	python3 "$CHECK" "$T/tree"

copy
echo '#include "nlsock.h"' >>"$T/tree/netlink/genl.c"
check_out "an include not from the top of the tree fails" 'not a path from the top' \
	python3 "$CHECK" "$T/tree"
finish
