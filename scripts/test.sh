#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what tapdp needs, builds it, and runs every test (make check).
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -j2 all
make -j2 check
