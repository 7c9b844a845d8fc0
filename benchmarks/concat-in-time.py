#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Places packing problems one after another in time, for pack --exact's decomposition.

    benchmarks/concat-in-time.py OUT.csv IN.csv [IN.csv ...] [--gap N]

Reads MiniMalloc's CSV (id,lower,upper,size) and writes one problem whose parts share no time:
each input starts where the one before it ends (plus --gap empty steps, default 0). Ids are
renumbered 0..n-1. The optimum of the whole is the largest part's optimum, so pack --exact should
prove it in about the sum of the parts' times (docs/performance.md, "Exact packing").
"""
import argparse
import csv


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [(int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--gap", type=int, default=0, help="empty time steps between two inputs")
    args = ap.parse_args()
    start = 0
    with open(args.out, "w", newline="") as f:
        f.write("id,lower,upper,size\n")
        next_id = 0
        for path in args.inputs:
            rows = read(path)
            first = min(r[0] for r in rows)
            shift = start - first
            for lower, upper, size in rows:
                f.write(f"{next_id},{lower + shift},{upper + shift},{size}\n")
                next_id += 1
            start = max(r[1] for r in rows) + shift + args.gap


if __name__ == "__main__":
    main()
