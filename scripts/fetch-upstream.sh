#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Downloads, and never installs, the newer clients' architecture-independent
# packages from Debian trixie and sid: their sources and Python, which the
# tests unpack beside the build. Debian 12's apt is not touched: a private
# apt configuration (its own source list, lists and cache) resolves the
# versions, so nothing from sid can be installed over bookworm by it.
#
# Usage: fetch-upstream.sh PACKAGE=VERSION...
# Prints the path of each .deb, one a line, in the order asked. A version
# that left the archive is replaced by the newest there, with a warning on
# standard error: the archive keeps a package's versions only while a suite
# holds them.
set -e
CACHE=${TAPDP_UPSTREAM_CACHE:-/var/cache/tapdp-upstream}
APT=$CACHE/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -s "$APT/sources.list" ]; then
	for suite in trixie sid; do
		echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main"
	done >"$APT/sources.list"
fi
apt_() { # apt-get|apt-cache ARG...
	tool=$1
	shift
	"$tool" -q -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State::Lists="$APT/lists" \
		-o Dir::Cache="$APT/cache" -o APT::Sandbox::User=root "$@"
}
updated=""
for want in "$@"; do
	pkg=${want%%=*}
	ver=${want#*=}
	deb=$CACHE/${pkg}_$(echo "$ver" | sed 's/^[0-9]*://')_all.deb
	if [ ! -s "$deb" ]; then
		[ -n "$updated" ] || { apt_ apt-get update >/dev/null; updated=1; }
		if ! apt_ apt-cache show "$want" 2>/dev/null |
			grep -q '^Package:'; then
			ver=$(apt_ apt-cache policy "$pkg" 2>/dev/null |
				sed -n 's/^  Candidate: //p')
			[ "$ver" != "(none)" ] || ver=""
			[ -n "$ver" ] || { echo "fetch-upstream: no $pkg" >&2; exit 1; }
			echo "fetch-upstream: $want is gone; using $ver" >&2
			deb=$CACHE/${pkg}_$(echo "$ver" | sed 's/^[0-9]*://')_all.deb
		fi
		if [ ! -s "$deb" ]; then
			(cd "$CACHE" && apt_ apt-get download "$pkg=$ver" >/dev/null)
		fi
	fi
	[ -s "$deb" ] || { echo "fetch-upstream: $deb missing" >&2; exit 1; }
	echo "$deb"
done
