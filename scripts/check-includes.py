#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks tapdp's include rule (docs/ARCHITECTURE.md, "The map").

The daemon's folders are layers, in the order a packet and a request flow
through them; a file may include project headers of its own folder and of
the folders before it, never of one after it, and no chain of includes may
come back to where it started. The shim (compat/) and the tools (tools/)
include only include/ and their own folder.
Tests and benchmarks may include anything.

Usage: check-includes.py [ROOT]   prints each violation; exits 1 if any.
"""
import os
import re
import sys

LAYERS = ["include", "common", "packet", "genl-server", "tap", "flow", "ct",
          "actions", "datapath", "daemon"]
ONLY = {"compat": {"include", "compat"}, "tools": {"include", "tools"}}
FREE = {"tests", "bench", "scripts"}


def sources(root):
    for d, _, names in os.walk(root):
        rel = os.path.relpath(d, root)
        top = rel.split(os.sep)[0]
        if top.startswith(".") or top.startswith("build"):
            continue
        for n in names:
            if n.endswith((".c", ".h")):
                yield os.path.normpath(os.path.join(rel, n))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    graph = {}
    for f in sorted(sources(root)):
        top = f.split(os.sep)[0]
        with open(os.path.join(root, f), errors="replace") as fh:
            incs = re.findall(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M)
        graph[f] = [i for i in incs if os.path.exists(os.path.join(root, i))]
        if top in FREE:
            continue
        for i in incs:
            itop = i.split("/")[0]
            if not os.path.exists(os.path.join(root, i)):
                print(f"{f}: includes \"{i}\", which is not a path from "
                      "the top of the tree")
                bad += 1
            elif top in ONLY:
                if itop not in ONLY[top]:
                    print(f"{f}: {top}/ may include only "
                          f"{', '.join(sorted(ONLY[top]))}/, not \"{i}\"")
                    bad += 1
            elif top not in LAYERS:
                print(f"{f}: folder {top}/ is not in the layer list")
                bad += 1
            elif itop not in LAYERS or LAYERS.index(itop) > LAYERS.index(top):
                print(f"{f}: {top}/ may not include \"{i}\" "
                      f"({itop}/ comes after it)")
                bad += 1
    # No loops between files either.
    state = {}

    def visit(f, path):
        nonlocal bad
        state[f] = 1
        for i in graph.get(f, []):
            if state.get(i) == 1:
                print("include loop: " + " -> ".join(path + [f, i]))
                bad += 1
            elif i not in state:
                visit(i, path + [f])
        state[f] = 2

    for f in graph:
        if f not in state:
            visit(f, [])
    if not graph:
        print(f"{root}: no sources")
        bad += 1
    print(f"include rule: {len(graph)} files, {bad} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
