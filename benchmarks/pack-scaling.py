#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How default-effort `memplan pack` grows with the row count, on both engines.

Writes seeded random rows (random-packing-rows.py: lifetimes up to 2,000 steps within 10^7,
sizes up to 1 MiB) at each size, then runs `java -jar CLI.jar pack FILE --engine E` for every
jar x size x engine, REPEATS rounds, the points alternated within each round (so the machine's
load falls on all of them alike). Prints the median wall and CPU time (user + system of the JVM,
all its threads) of each point, the arena / lower bound of each plan (it must be the same in every
round and on both engines), and the growth of the median from the smallest to the largest size
per jar and engine. The load (uptime) is printed before and after: the machine is shared.

    benchmarks/pack-scaling.py                                   # this worktree's CLI jar, 100k and 1M rows, 3 rounds
    benchmarks/pack-scaling.py --baseline OTHER-cli.jar          # and another build, side by side
    benchmarks/pack-scaling.py --rows 5000000 --repeats 1        # one large point

Build the jar first: mvn -q -DskipTests package. Files go to target/pack-scaling/.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUMMARY = re.compile(r"(\d+) buffers, effort (\d+), arena (\d+) bytes, lower bound (\d+) bytes")


def newest_cli_jar():
    jars = sorted(glob.glob(os.path.join(ROOT, "cli", "target", "memplan-cli-*-all.jar")), key=os.path.getmtime)
    if not jars:
        sys.exit("pack-scaling: no cli/target/memplan-cli-*-all.jar; build it with mvn -q -DskipTests package")
    return jars[-1]


def rows_file(out_dir, rows, seed):
    path = os.path.join(out_dir, f"rows-{rows}-seed{seed}.csv")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "random-packing-rows.py"), str(rows), path + ".tmp",
                        "--seed", str(seed)], check=True)
        os.replace(path + ".tmp", path)
    return path


def run_pack(jar, csv, engine, java_opts, out_dir):
    """One `pack`: (wall seconds, CPU seconds, effort, arena, bound). The JVM's CPU is its children's rusage."""
    before = os.times()
    start = time.monotonic()
    with open(os.path.join(out_dir, "last-plan.csv"), "w") as plan:
        done = subprocess.run(["nice", "-n", "10", "java", *java_opts, "-jar", jar, "pack", csv, "--engine", engine],
                              stdout=plan, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if done.returncode != 0:
        sys.exit(f"pack-scaling: {jar} pack {csv} --engine {engine} failed ({done.returncode}): {done.stderr.strip()}")
    m = SUMMARY.search(done.stderr)
    if not m:
        sys.exit(f"pack-scaling: no summary line in: {done.stderr.strip()}")
    return wall, cpu, int(m.group(2)), int(m.group(3)), int(m.group(4))


def uptime():
    with open("/proc/loadavg") as f:
        return "load average " + " ".join(f.read().split()[:3]) + f" on {os.cpu_count()} cores"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jar", help="the CLI jar measured (default: this worktree's newest cli/target/memplan-cli-*-all.jar)")
    parser.add_argument("--baseline", help="another CLI jar, measured beside it (e.g. a build of main)")
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000], help="sizes (default 100000 1000000)")
    parser.add_argument("--engines", nargs="+", default=["native", "java"], choices=["native", "java"])
    parser.add_argument("--repeats", type=int, default=3, help="rounds (default 3); medians over them")
    parser.add_argument("--seed", type=int, default=1, help="seed of the rows (default 1)")
    parser.add_argument("--java-opts", default="-Xmx4g", help="JVM options (default -Xmx4g)")
    args = parser.parse_args()

    out_dir = os.path.join(ROOT, "target", "pack-scaling")
    os.makedirs(out_dir, exist_ok=True)
    jars = [("this", args.jar or newest_cli_jar())]
    if args.baseline:
        jars.append(("baseline", args.baseline))
    files = {rows: rows_file(out_dir, rows, args.seed) for rows in args.rows}
    points = [(label, jar, rows, engine) for rows in args.rows for engine in args.engines for label, jar in jars]
    print(f"# before: {uptime()}")
    for label, jar in jars:
        print(f"# {label}: {jar}")
    walls, cpus, plans = {}, {}, {}
    for round_ in range(args.repeats):
        order = points if round_ % 2 == 0 else list(reversed(points))
        for label, jar, rows, engine in order:
            wall, cpu, effort, arena, bound = run_pack(jar, files[rows], engine, args.java_opts.split(), out_dir)
            key = (label, rows, engine)
            walls.setdefault(key, []).append(wall)
            cpus.setdefault(key, []).append(cpu)
            plans.setdefault(key, set()).add((effort, arena, bound))
            print(f"# round {round_ + 1}: {label} {rows} {engine}: {wall:.2f} s wall, {cpu:.2f} s CPU, "
                  f"effort {effort}, arena {arena}, bound {bound}", flush=True)
    print(f"# after: {uptime()}")
    print()
    print("| build | engine | rows | median wall s | median CPU s | effort | arena / bound |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, _ in jars:
        for engine in args.engines:
            for rows in args.rows:
                key = (label, rows, engine)
                (effort, arena, bound), *others = sorted(plans[key])
                note = "" if not others else " (plans differ between rounds!)"
                print(f"| {label} | {engine} | {rows:,} | {statistics.median(walls[key]):.2f} | "
                      f"{statistics.median(cpus[key]):.2f} | {effort} | {arena / bound:.4f}{note} |")
    if len(args.rows) > 1:
        small, large = args.rows[0], args.rows[-1]
        print()
        print(f"Growth from {small:,} to {large:,} rows (median / median):")
        for label, _ in jars:
            for engine in args.engines:
                w = statistics.median(walls[(label, large, engine)]) / statistics.median(walls[(label, small, engine)])
                c = statistics.median(cpus[(label, large, engine)]) / statistics.median(cpus[(label, small, engine)])
                print(f"- {label} {engine}: {w:.1f}x wall, {c:.1f}x CPU")
    for rows in args.rows:
        arenas = {plans[(label, rows, engine)].__iter__().__next__()[1] for label, _ in jars for engine in args.engines}
        if len(arenas) > 1:
            print(f"- {rows:,} rows: the arenas differ between builds or engines: {sorted(arenas)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
