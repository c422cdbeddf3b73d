#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Lists the tracked sources of the tree at ROOT (default: here) that carry
# no SPDX-License-Identifier tag in their first three lines; exits 1 if any.
# Sources: C, shell, Python, Lua, the Makefile, man pages, CI and test
# wrappers.
root=${1:-.}
cd "$root" || exit 2
git ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.lua' '*.8' Makefile .ci/run \
	'tests/ovs-dpctl-py/bin/*' | {
	bad=0
	n=0
	while IFS= read -r f; do
		[ -L "$f" ] && continue
		n=$((n + 1))
		if ! head -3 "$f" | grep -q 'SPDX-License-Identifier: '; then
			echo "$f: no SPDX-License-Identifier tag"
			bad=$((bad + 1))
		fi
	done
	echo "SPDX tags: $n files, $bad without"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}
