#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks tapdp's include rule (docs/ARCHITECTURE.md, "The map").

The daemon's folders are layers, in the order a packet and a request flow
through them; a file may include project headers of its own folder and of
the folders before it, never of one after it, and no chain of includes may
come back to where it started. Nor may modules form a circle: a .c and
its .h are one module, which depends on every module either includes;
a module that depends on itself through others is named with the chain. The shim (compat/) and the tools (tools/)
include only include/ and their own folder.
Tests and benchmarks may include anything.

Usage: check-includes.py [ROOT]   prints each violation; exits 1 if any.
"""
import os
import re
import sys

LAYERS = ["include", "common", "packet", "genl-server", "tap", "flow", "bpf", "ct",
          "actions", "datapath", "families", "daemon"]
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


def module_circles(graph):
    """Prints each set of modules (outside tests, benches and scripts) that
    depend on each other in a circle once, with a chain from its first
    module back to it; returns how many sets."""
    deps = {}
    for f, incs in graph.items():
        if f.split(os.sep)[0] in FREE:
            continue
        m = os.path.splitext(f)[0]
        deps.setdefault(m, set()).update(
            os.path.splitext(i)[0] for i in incs
            if os.path.splitext(i)[0] != m)

    def reach(a):
        out, todo = set(), [a]
        while todo:
            for d in deps.get(todo.pop(), ()):
                if d not in out:
                    out.add(d)
                    todo.append(d)
        return out

    reaches = {m: reach(m) for m in deps}
    done = set()
    found = 0
    for start in sorted(deps):
        if start in done or start not in reaches[start]:
            continue
        members = {m for m in reaches[start]
                   if start in reaches.get(m, ())}
        done |= members
        # The shortest way back to start, inside the set.
        back, queue, chain = {start: None}, [start], None
        while not chain:
            m = queue.pop(0)
            for d in sorted(deps[m] & members):
                if d == start:
                    chain = [m]
                    while chain[-1] != start:
                        chain.append(back[chain[-1]])
                    chain = chain[::-1] + [start]
                    break
                if d not in back:
                    back[d] = m
                    queue.append(d)
        print(f"module circle: {', '.join(sorted(members))}: "
              + " -> ".join(chain))
        found += 1
    return found


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
    bad += module_circles(graph)
    if not graph:
        print(f"{root}: no sources")
        bad += 1
    print(f"include rule: {len(graph)} files, {bad} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
