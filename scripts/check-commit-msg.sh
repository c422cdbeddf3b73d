#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Checks commit messages against the project's style (CONTRIBUTING.md):
# a subject "area: imperative summary" of at most 72 characters, a blank
# line, and a body wrapped at 72 that says why. Lines of a body indented
# (commands, tables, quoted output) may be longer.
#
#   check-commit-msg.sh FILE        a message file (a commit-msg hook)
#   check-commit-msg.sh REV-RANGE   every non-merge commit of the range
#
# Prints each fault as "COMMIT: fault"; exits 1 if any.

fault=0

# check NAME < message
check() {
	local name=$1 n=0 line subject
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in "#"*) continue ;; esac
		if [ $n = 1 ]; then
			subject=$line
			if [ ${#line} -gt 72 ]; then
				echo "$name: subject of ${#line} characters (at most 72)"
				fault=1
			fi
			if ! [[ $line =~ ^[a-z0-9][a-z0-9/_.,+-]*(\ [a-z0-9][a-z0-9/_.,+-]*)?:\ [^\ ] ]]; then
				echo "$name: subject is not \"area: summary\": $line"
				fault=1
			fi
		elif [ $n = 2 ] && [ -n "$line" ]; then
			echo "$name: no blank line after the subject"
			fault=1
		elif [ $n -gt 2 ] && [ ${#line} -gt 72 ] &&
			! [[ $line =~ ^[[:space:]] ]]; then
			echo "$name: body line $n of ${#line} characters (at most 72)"
			fault=1
		fi
	done
	if [ -n "$subject" ] && [ $n -lt 3 ]; then
		echo "$name: no body saying why"
		fault=1
	fi
}

if [ $# != 1 ]; then
	echo "usage: $0 FILE | REV-RANGE" >&2
	exit 2
fi
if [ -f "$1" ]; then
	check "$1" < "$1"
else
	revs=$(git rev-list --no-merges "$1") || exit 2
	for c in $revs; do
		check "$(git log -1 --format='%h %s' "$c" | cut -c1-60)" \
			< <(git log -1 --format=%B "$c" |
				sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
	done
fi
exit $fault
