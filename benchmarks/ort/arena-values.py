#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""../shared/tools/ort-arena.py with given input values, for models whose sizes follow their inputs'
data (a Loop whose trip count is computed from inputs).

usage: arena-values.py MODEL.onnx [NAME=V ...] [ort-arena.py's options]
A NAME=V whose NAME is a graph input feeds every element of that input V (ort-arena.py would feed
its own values); every argument also goes to ort-arena.py as it is, where NAME=N sets a named dim.
Prints ort-arena.py's JSON line."""
import os
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_ARENA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "tools", "ort-arena.py"))
# ort-arena.py's line that keeps each input it made; the given value replaces the input just before
ANCHOR = "    a = np.ascontiguousarray(a); keep.append(a)"

model = sys.argv[1]
inputs = {vi.name for vi in onnx.load(model, load_external_data=False).graph.input}
values = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a and a.split("=", 1)[0] in inputs)
source = open(ORT_ARENA).read()
if source.count(ANCHOR) != 1:
    raise SystemExit("arena-values.py: ort-arena.py changed; its line '%s' is not there once" % ANCHOR.strip())
given = "    if vi.name in VALUES: a = np.full(shape, float(VALUES[vi.name])).astype(dt)\n"
sys.argv = [ORT_ARENA] + sys.argv[1:]
exec(compile(source.replace(ANCHOR, given + ANCHOR), ORT_ARENA, "exec"), {"__name__": "__main__", "VALUES": values})
