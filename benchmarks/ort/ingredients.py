#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Each ingredient of ONNX Runtime's arena figure, per shared model: the measurements behind
docs/ort-runtime.md. Runs arena-x.py (one fresh process per setting) over compare.py's cases.

usage: ingredients.py [--models DIR] [--only TEXT] [--json FILE]
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/ingredients.py
"""
import argparse, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # importing compare.py must leave no __pycache__ in the repository
sys.path.insert(0, HERE)
from compare import CASES, SINGLE_OP, clean  # noqa: E402

EXACT = ["--arena", "1,-1,0"]  # extend by the request, never hand out a chunk whole
SETTINGS = [  # (key, arena-x.py options); "default" is ort-arena.py's setting
    ("default", []),
    ("runs1", ["--runs", "1"]),
    ("released", ["--release-outputs"]),
    ("patternOff", ["--pattern", "off", "--release-outputs"]),
    ("exact", EXACT + ["--release-outputs"]),
    ("exactPatternOff", EXACT + ["--release-outputs", "--pattern", "off"]),
    ("none", ["--opt", "none"]),
    ("basic", ["--opt", "basic"]),
    ("extended", ["--opt", "extended"]),
]


def measure(model, dims, options, timeout=900):
    cmd = [sys.executable, os.path.join(HERE, "arena-x.py"), model] + ["%s=%d" % kv for kv in dims.items()] + options
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    if p.returncode != 0:
        return {"error": clean(p.stderr or p.stdout)}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared", "models"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    for model, dims, _ in CASES:
        if model.startswith(SINGLE_OP) or (a.only and a.only not in model):
            continue
        t0 = time.time()
        row = {"model": model, "binding": ", ".join("%s=%d" % kv for kv in dims.items()) or "static"}
        for key, options in SETTINGS:
            row[key] = measure(os.path.join(a.models, model), dims, options)
        print("%-45s %-40s %5.1f s" % (model, row["binding"][:40], time.time() - t0), file=sys.stderr)
        rows.append(row)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
    print(table(rows) + "\n\n" + shares(rows))


def peak(r, key, run=-1):
    return None if "error" in r[key] else r[key]["runs"][run]["peak"]


def shares(rows):
    """ORT's figure taken apart, each step one setting away from the next (see docs/ort-runtime.md)."""
    head = ["model", "binding", "ORT figure (A)", "outputs the caller still holds (A - B)",
            "BFC chunks and growth (B - C)", "memory pattern (C - D)", "planner + workspaces, exact (D)"]
    out = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for r in rows:
        a, b, c, d = peak(r, "default"), peak(r, "released"), peak(r, "exact"), peak(r, "exactPatternOff")
        if None in (a, b, c, d):
            out.append("| %s | %s | error | | | | |" % (r["model"].split("/")[-1], r["binding"]))
            continue
        out.append("| %s | %s | {:,} | {:,} | {:,} | {:,} | {:,} |".format(a, a - b, b - c, c - d, d)
                   % (r["model"].split("/")[-1], r["binding"]))
    return "\n".join(out)


def fig(r, run=-1, what="peak"):
    return "error" if "error" in r else "{:,}".format(r["runs"][run][what])


def table(rows):
    head = ["model", "binding", "default (ort-arena)", "run 1 only", "outputs released", "pattern off",
            "exact arena run 1", "exact arena run 2", "exact, pattern off", "level none", "basic", "extended",
            "max chunk (default)", "allocs run 1 / 2"]
    out = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for r in rows:
        d = r["default"]
        allocs = "error" if "error" in d else "%d / %d" % (d["runs"][0]["allocs"], d["runs"][-1]["allocs"])
        out.append("| " + " | ".join([
            r["model"].split("/")[-1], r["binding"], fig(d), fig(r["runs1"]), fig(r["released"]), fig(r["patternOff"]),
            fig(r["exact"], 0), fig(r["exact"]), fig(r["exactPatternOff"]), fig(r["none"]), fig(r["basic"]),
            fig(r["extended"]), fig(d, -1, "maxAllocSize"), allocs]) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
