#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The tree's rules hold: the include rule (scripts/check-includes.py), an
# SPDX licence tag in every source (scripts/check-spdx.sh), cppcheck finds
# nothing its suppressions do not explain (scripts/cppcheck.sh), the files
# the docs and comments name exist (scripts/check-doc-names.py), and the
# commit style (scripts/check-commit-msg.sh) since the commit it was kept
# from. Each checker is shown to fail on what it is there to catch: an
# include against the layer order, a loop, a circle of modules, a shim
# that includes the daemon; an untagged file; a doc naming a file that
# is not there; each way a commit message can break the style.
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
echo '#include "datapath/journal.h"' >>"$T/tree/datapath/datapath.c"
check_out "a circle of modules (a .c and its .h) inside one folder is found" \
	'module circle: .*datapath/datapath -> datapath/journal -> datapath/datapath' \
	python3 "$CHECK" "$T/tree"
check_fails "and the check fails" python3 "$CHECK" "$T/tree"

copy
sed -i '0,/#include "/s//#include "genl-server\/nlsock.h"\n#include "/' \
	"$T/tree/compat/shim.c"
check_out "the shim including the daemon fails" 'compat/ may include only' \
	python3 "$CHECK" "$T/tree"

copy
sed -i '0,/#include "/s//#include "datapath\/datapath.h"\n#include "/' \
	"$T/tree/tools/tapdpctl.c"
check_out "a tool including the daemon fails" 'tools/ may include only' \
	python3 "$CHECK" "$T/tree"

copy
echo '#include "nlsock.h"' >>"$T/tree/genl-server/genl.c"
check_out "an include not from the top of the tree fails" 'not a path from the top' \
	python3 "$CHECK" "$T/tree"
check "every source carries an SPDX tag" sh "$TOP/scripts/check-spdx.sh" "$TOP"
rm -rf "$T/repo"
git clone -q "$TOP" "$T/repo"
sed -i '/SPDX-License-Identifier/d' "$T/repo/genl-server/msg.c"
check_out "a source without its tag is named" 'genl-server/msg.c: no SPDX' \
	sh "$TOP/scripts/check-spdx.sh" "$T/repo"
check_fails "and the check fails" sh "$TOP/scripts/check-spdx.sh" "$T/repo"

check "cppcheck finds nothing unexplained" sh "$TOP/scripts/cppcheck.sh" "$TOP"
cat >>"$T/repo/common/log.c" <<'C'
void log_demo(void);
void log_demo(void) { char b[4]; b[4] = 0; (void)b; }
C
check_out "... and finds an overrun put in a copy" \
	"common/log.c:[0-9]+: error arrayIndexOutOfBounds" \
	sh "$TOP/scripts/cppcheck.sh" "$T/repo"
check_fails "and fails" sh "$TOP/scripts/cppcheck.sh" "$T/repo"

DOCS=$TOP/scripts/check-doc-names.py
check "every file the docs and comments name exists" python3 "$DOCS" "$TOP"
echo 'The shim speaks compat/proto.h, now include/tapdp/proto.h.' \
	>>"$T/repo/docs/CI.md"
git -C "$T/repo" add docs/CI.md
check_out "a doc naming a file that is not there is found" \
	"docs/CI.md:[0-9]+: compat/proto.h" python3 "$DOCS" "$T/repo"
check_out "... and nothing else" "^1\$" eval \
	"python3 '$DOCS' '$T/repo' | grep -c '^[^ ]*:[0-9]*: '"
check_fails "and the check fails" python3 "$DOCS" "$T/repo"

MSG=$TOP/scripts/check-commit-msg.sh
# The first commit of the style (issue 37: earlier subjects ran to
# hundreds of characters).
STYLE_SINCE=b189ec7
if git -C "$TOP" cat-file -e "$STYLE_SINCE" 2>/dev/null; then
	check "commits since $STYLE_SINCE keep the commit style" \
		bash -c "cd '$TOP' && bash '$MSG' $STYLE_SINCE..HEAD"
else
	echo "skip - no history of $STYLE_SINCE here: commit style not checked"
fi
msg() { printf "$1" >"$T/msg"; }
msg 'vport: keep the queues of a moved device\n\nWhy it matters, wrapped.\n'
check "a message in the style passes" bash "$MSG" "$T/msg"
msg "vport: $(printf '%070d' 0)\n\nWhy.\n"
check_out "a subject over 72 characters fails" "subject of 77 characters" \
	bash "$MSG" "$T/msg"
check_fails "and the check fails" bash "$MSG" "$T/msg"
msg 'Keep the queues\n\nWhy.\n'
check_out "a subject without its area fails" 'is not "area: summary"' \
	bash "$MSG" "$T/msg"
msg 'vport: keep the queues\nWhy.\n'
check_out "no blank line after the subject fails" "no blank line" \
	bash "$MSG" "$T/msg"
msg 'vport: keep the queues\n'
check_out "no body fails" "no body" bash "$MSG" "$T/msg"
msg "vport: keep the queues\n\n$(printf '%073d' 0)\n    $(printf '%080d' 0)\n"
check_out "a body line over 72 fails (an indented one may be longer)" \
	"^[^ ]*msg: body line 3 of 73" bash "$MSG" "$T/msg"
check_out "... and only it" "^1\$" eval "bash '$MSG' '$T/msg' | wc -l"
finish
