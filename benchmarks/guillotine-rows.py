#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a seeded interval packing problem built to fit exactly, in `memplan pack`'s CSV form.

The rectangle of CAPACITY bytes by HORIZON steps is cut, guillotine fashion, into ROWS pieces: each
cut takes a piece (the larger ones more likely), and splits it in time or in bytes at a uniform
point. Every piece is one buffer, its lifetime the piece's time span and its size its byte span,
so the pieces themselves are a packing of height CAPACITY, which is also the live bound (the live
bytes at every step sum to CAPACITY): the optimum is the bound, and an exact search can prove it
by finding any packing at it. Rows are shuffled, so the input order tells nothing.

    benchmarks/guillotine-rows.py 300 target/guillotine-300-1.csv --seed 1
"""
import argparse
import random


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", type=int, help="how many buffers (pieces), >= 1")
    parser.add_argument("out", help="the CSV file to write")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1): same seed, same file")
    parser.add_argument("--horizon", type=int, default=1_000, help="the steps of time cut (default 1,000)")
    parser.add_argument("--capacity", type=int, default=1 << 20, help="the bytes cut (default 1 MiB)")
    args = parser.parse_args()
    if args.rows < 1 or args.rows > args.horizon * args.capacity:
        parser.error("rows must be from 1 to HORIZON x CAPACITY")
    rng = random.Random(args.seed)
    pieces = [(0, args.horizon, 0, args.capacity)]  # (start, end, low byte, high byte)
    while len(pieces) < args.rows:
        # A piece chosen by its area times a uniform draw: large pieces are cut first, not always.
        k = max(range(len(pieces)),
                key=lambda p: (pieces[p][1] - pieces[p][0]) * (pieces[p][3] - pieces[p][2]) * rng.random())
        t0, t1, c0, c1 = pieces[k]
        if (rng.random() < 0.5 and t1 - t0 > 1) or c1 - c0 < 2:
            if t1 - t0 < 2:
                continue  # a 1-step, 1-byte piece cannot be cut
            m = rng.randint(t0 + 1, t1 - 1)
            pieces[k:k + 1] = [(t0, m, c0, c1), (m, t1, c0, c1)]
        else:
            m = rng.randint(c0 + 1, c1 - 1)
            pieces[k:k + 1] = [(t0, t1, c0, m), (t0, t1, m, c1)]
    rng.shuffle(pieces)
    with open(args.out, "w", encoding="ascii", newline="\n") as out:
        out.write("id,lower,upper,size\n")
        for i, (t0, t1, c0, c1) in enumerate(pieces):
            out.write(f"{i},{t0},{t1},{c1 - c0}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
