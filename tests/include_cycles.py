#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""No circles among the files of src/: a file and its header are one unit (engine/engine.c
with engine/engine.h); unit A depends on unit B when a file of A includes B's header. A
circle of such dependencies (A needs B needs A) is printed and fails. Called by layers.sh.
Usage: tests/include_cycles.py SRC_DIR"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "src"
inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
deps = {}
for folder, _, files in os.walk(src):
    for f in files:
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(folder, f)
        unit = os.path.relpath(path, src)[:-2]
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for name in inc.findall(text):
            if name.endswith(".h") and os.path.exists(os.path.join(src, name)):
                to = name[:-2]
                if to != unit:
                    deps.setdefault(unit, set()).add(to)
        deps.setdefault(unit, set())

# Tarjan's strongly connected components: a component of more than one unit is a circle.
index, low, stack, on, circles = {}, {}, [], set(), []
counter = [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(deps.get(v, ())):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))


for v in sorted(deps):
    if v not in index:
        visit(v)
for c in circles:
    print("layers: a circle of includes: " + " <-> ".join(c))
sys.exit(1 if circles else 0)
