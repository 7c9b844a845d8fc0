#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Medians of a bench-prediction.sh JSON result (JMH -rf json): per case, memplan's per-request
plan, the uncached ORT replay and their ratio, from each benchmark's measurement iterations (the
median resists the spikes of a shared machine better than JMH's mean), and with -prof gc the bytes
each request allocates (gc.alloc.rate.norm). Several files (say a 'before' and an 'after' run)
print side by side; --markdown separates the columns with ' | ' for a docs table."""
import json
import statistics
import sys


def medians(path):
    by_case, allocs = {}, {}
    for r in json.load(open(path)):
        method = r["params"].get("path") or r["benchmark"].rsplit(".", 1)[1]
        case = r["params"]["model"]
        samples = [s for fork in r["primaryMetric"]["rawData"] for s in fork]
        by_case.setdefault(case, {})[method] = statistics.median(samples)
        gc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        if gc is not None:
            allocs.setdefault(case, {})[method] = gc["score"]
    return by_case, allocs


def main(args):
    markdown = "--markdown" in args
    paths = [a for a in args if a != "--markdown"]
    runs = [medians(p) for p in paths]
    with_gc = any(allocs for _, allocs in runs)
    columns = ("memplanPlan", "ortReplay", "ratio") + (("memplanPlan B/op", "ortReplay B/op") if with_gc else ())
    header = ["case"] + [f"{p}: {m}" for p in paths for m in columns]
    sep = " | " if markdown else "\t"
    print(sep.join(header))
    for case in runs[0][0]:
        row = [case]
        for times, allocs in runs:
            m = times.get(case, {})
            plan, replay = m.get("memplanPlan"), m.get("ortReplay")
            row += [f"{plan:,.1f}" if plan else "-", f"{replay:,.1f}" if replay else "-",
                    f"{replay / plan:.2f}x" if plan and replay else "-"]
            if with_gc:
                a = allocs.get(case, {})
                row += [f"{a[k]:,.0f}" if k in a else "-" for k in ("memplanPlan", "ortReplay")]
        print(sep.join(row))


if __name__ == "__main__":
    main(sys.argv[1:])
