#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a seeded random interval packing problem in `memplan pack`'s CSV form.

Each row is one buffer: its start uniform in [0, HORIZON), its lifetime uniform in
[1, MAX_LIFETIME] steps, its size uniform in [1, MAX_SIZE] bytes. The defaults (10^7 steps,
lifetimes up to 2,000 steps, sizes up to 1 MiB) are the random rows the offsets planner's scaling
is measured on (docs/performance.md, "Offsets planner scaling"): as the row count grows in a fixed
horizon the problem also grows denser, about ROWS x 1,000 / 10^7 buffers live at a time.

    benchmarks/random-packing-rows.py 1000000 target/rows-1m.csv [--seed 1]
"""
import argparse
import random
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", type=int, help="how many buffers")
    parser.add_argument("out", help="the CSV file to write")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1): same seed, same file")
    parser.add_argument("--horizon", type=int, default=10_000_000, help="starts lie in [0, HORIZON)")
    parser.add_argument("--max-lifetime", type=int, default=2_000, help="longest lifetime, in steps")
    parser.add_argument("--max-size", type=int, default=1 << 20, help="largest size, in bytes")
    args = parser.parse_args()
    if args.rows < 0 or args.horizon < 1 or args.max_lifetime < 1 or args.max_size < 1:
        parser.error("rows must be >= 0 and horizon, max-lifetime, max-size >= 1")
    rng = random.Random(args.seed)
    with open(args.out, "w", encoding="ascii", newline="\n") as out:
        out.write("id,lower,upper,size\n")
        chunk = []
        for i in range(args.rows):
            lower = rng.randrange(args.horizon)
            upper = lower + rng.randint(1, args.max_lifetime)
            chunk.append(f"{i},{lower},{upper},{rng.randint(1, args.max_size)}\n")
            if len(chunk) == 65536:
                out.write("".join(chunk))
                chunk.clear()
        out.write("".join(chunk))
    return 0


if __name__ == "__main__":
    sys.exit(main())
