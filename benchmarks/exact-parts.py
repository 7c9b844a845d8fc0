#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pack --exact on problems that fall apart in time, against the sum of their parts.

    benchmarks/exact-parts.py DIR [--jar JAR] [--repeats 3] [--gap N]

DIR holds MiniMalloc's challenging instances (A.1048576.csv ... K.1048576.csv, or A.csv ...), which
this repository does not carry. Each instance is packed alone with `pack --exact --capacity
1048576` (MiniMalloc's question); then all of them placed one after another in time
(benchmarks/concat-in-time.py, with and without empty time between them) are packed with plain
`pack --exact`, which must prove 1,048,576 within the sum of the parts' times. Prints the medians
of wall and CPU time (the process's, JVM start included) and each answer's summary line.
"""
import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"exact-parts: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return wall, cpu, p.stderr.strip().splitlines()[-1]


def medians(cmd, repeats):
    runs = [run(cmd) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--jar", help="the command line's jar (default: this worktree's cli/target/memplan-cli-*-all.jar)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    jar = args.jar or sorted(glob.glob(os.path.join(ROOT, "cli", "target", "memplan-cli-*-all.jar")))[-1]
    names = "ABCDEFGHIJK"
    files = []
    for n in names:
        found = glob.glob(os.path.join(args.dir, n + ".1048576.csv")) + glob.glob(os.path.join(args.dir, n + ".csv"))
        if not found:
            sys.exit(f"exact-parts: no {n}.1048576.csv or {n}.csv in {args.dir}")
        files.append(found[0])
    java = ["java", "-jar", jar, "pack", "--exact"]
    total_wall = total_cpu = 0.0
    print("| instance | wall s | cpu s | answer |\n|---|---:|---:|---|")
    for n, f in zip(names, files):
        wall, cpu, line = medians(java + ["--capacity", "1048576", f], args.repeats)
        total_wall += wall
        total_cpu += cpu
        print(f"| {n} alone, --capacity 1048576 | {wall:.2f} | {cpu:.2f} | {line.split(': ', 2)[-1]} |")
    print(f"| sum of the parts | {total_wall:.2f} | {total_cpu:.2f} | |")
    out = os.path.join(ROOT, "target", "exact-parts")
    os.makedirs(out, exist_ok=True)
    for gap in (0, 100):
        whole = os.path.join(out, f"all-gap{gap}.csv")
        subprocess.run([sys.executable, os.path.join(HERE, "concat-in-time.py"), whole, *files, "--gap", str(gap)],
                       check=True)
        wall, cpu, line = medians(java + [whole], args.repeats)
        print(f"| all eleven in time, gap {gap} | {wall:.2f} | {cpu:.2f} | {line.split(': ', 2)[-1]} |")


if __name__ == "__main__":
    main()
