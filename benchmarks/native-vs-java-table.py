#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the native-against-Java table of docs/performance.md from the JMH JSON files of
benchmarks/native-vs-java.sh.

For every point (method, graph, owners, strategy): the median wall-clock time per operation of each
engine and java/native of those medians, then the median CPU time per operation (cpu.all.norm of
PageFaultProfiler) and java/native of those; above 1 means native is faster. Then native minor
page faults per op and heap bytes per op where measured, and the load average when the point began.

Usage: python3 benchmarks/native-vs-java-table.py RESULTS_DIR
"""
import json
import statistics
import sys
from pathlib import Path


def median_of(metric):
    if not metric:
        return None
    values = [v for fork in metric.get("rawData", []) for v in fork]
    return statistics.median(values) if values else None


def fmt_time(us):
    if us is None:
        return "-"
    if us >= 1000:
        return f"{us / 1000:.1f} ms"
    return f"{us:.0f} µs"


def fmt_ratio(java, native):
    if java is None or native is None or native == 0:
        return "-"
    return f"**{java / native:.2f}**"


def fmt_num(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


def main():
    folder = Path(sys.argv[1])
    points = {}
    order = []
    for f in sorted(folder.glob("*.json")):
        load_file = f.with_suffix(".load")
        load = load_file.read_text().split()[1] if load_file.exists() else "-"
        for r in json.loads(f.read_text() or "[]"):
            p = r["params"]
            key = (r["benchmark"].rsplit(".", 1)[1], p["kind"], int(p["owners"]), p["strategy"])
            if key not in points:
                points[key] = {"load": load}
                order.append(key)
            second = r.get("secondaryMetrics", {})
            unit = r["primaryMetric"]["scoreUnit"]
            scale = {"us/op": 1.0, "ms/op": 1000.0, "ns/op": 0.001}[unit]
            wall = median_of(r["primaryMetric"])
            cpu_ns = median_of(second.get("cpu.all.norm"))
            points[key][p["engine"]] = {
                "wall": None if wall is None else wall * scale,
                "cpu": None if cpu_ns is None else cpu_ns / 1000.0,
                "faults": median_of(second.get("faults.minor.norm")),
                "heap": median_of(second.get("gc.alloc.rate.norm")),
            }
    print("| path | graph | owners | strategy | native | java | java/native (wall) | native CPU/op | java CPU/op "
          "| **java/native (CPU)** | native faults/op | native heap B/op | java heap B/op | load |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in order:
        method, kind, owners, strategy = key
        pt = points[key]
        nat = pt.get("native", {})
        jav = pt.get("java", {})
        shown_strategy = "-" if method == "compile" else strategy
        print(f"| {method} | {kind} | {owners // 1000}k | {shown_strategy} | {fmt_time(nat.get('wall'))} "
              f"| {fmt_time(jav.get('wall'))} | {fmt_ratio(jav.get('wall'), nat.get('wall')).strip('*')} "
              f"| {fmt_time(nat.get('cpu'))} | {fmt_time(jav.get('cpu'))} | {fmt_ratio(jav.get('cpu'), nat.get('cpu'))} "
              f"| {fmt_num(nat.get('faults'))} | {fmt_num(nat.get('heap'), 0)} | {fmt_num(jav.get('heap'), 0)} "
              f"| {pt['load']} |")


if __name__ == "__main__":
    main()
