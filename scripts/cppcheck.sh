#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Debian's cppcheck over the daemon's and the tools' sources, with the
# findings explained in scripts/cppcheck.supp left out. Exits 1 on any
# other finding. Usage: cppcheck.sh [ROOT]
ROOT=${1:-.}
cd "$ROOT" || exit 2
exec cppcheck --quiet --enable=warning,portability --std=c11 -I. \
	--error-exitcode=1 --suppressions-list=scripts/cppcheck.supp \
	--library=scripts/cppcheck.cfg \
	--template='{file}:{line}: {severity} {id}: {message}' \
	include common packet genl-server tap flow ct actions datapath daemon \
	compat tools
