#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that the files the docs and the sources' comments name exist.

A name is a path from the top of the tree (`genl-server/creds.h`,
`tests/integration/test-netns.sh`) in a Markdown page, a man page, or a
C source or header. Paths given as patterns (`*`, `%`, `X`), the
kernel's headers (`include/linux/...`: ours are under `include/tapdp/`)
and selftests (`tools/testing/...`), and system headers
(`#include <...>`) are not files to find.

Usage: check-doc-names.py [ROOT]   prints "FILE:LINE: NAME" for each name
of a file that does not exist; exits 1 if any.
"""
import os
import re
import subprocess
import sys

TOPS = ("include/tapdp", "common", "packet", "genl-server", "tap", "flow",
        "ct", "actions", "datapath", "daemon", "compat", "tools", "tests",
        "bench", "scripts", "docs", "debian", ".ci")
NAME = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w\.(?:c|h|sh|py|md|8|json|lua))"
                  r"(?![\w/])" % "|".join(re.escape(t) for t in TOPS))


def files(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    for f in out:
        if f.endswith((".md", ".8", ".c", ".h")):
            yield f


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    for f in sorted(files(root)):
        with open(os.path.join(root, f), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if line.startswith("#include <"):
                    continue
                for name in NAME.findall(line):
                    # Patterns; the kernel's tools/testing/.
                    if (any(c in name for c in "*%X") or
                            name.startswith("tools/testing/")):
                        continue
                    if not os.path.exists(os.path.join(root, name)):
                        print(f"{f}:{n}: {name}")
                        bad += 1
    print(f"doc names: {bad} of files that do not exist")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
