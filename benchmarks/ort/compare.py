#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""memplan's plan against what ONNX Runtime's CPU arena really holds, per shared model and binding.

usage: compare.py [--memplan PATH] [--models DIR] [--levels all,none] [--only TEXT]
                  [--json FILE] [--timeout S] [-- EXTRA MEMPLAN OPTIONS ...]

For every case (model + bindings) it runs `../shared/tools/ort-arena.py` (ORT's arena `activation`,
one fresh process per case and level) and `memplan plan --format json` with the same bindings,
then prints a Markdown table with the geomean and the worst memplan/ORT ratio. A case that ORT
cannot run or memplan cannot plan stays in the table with the reason.

--memplan   the launcher (`./memplan`, which builds its jar) or a `memplan-*-cli.jar`; default:
            this repository's launcher. Point it at another worktree to compare a branch.
--          everything after it goes to `memplan plan` unchanged (e.g. `-- --in-place off`).
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/compare.py
"""
import argparse, json, math, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (model under ../shared/models, dims for both tools, bindings only memplan takes).
# The onnx-node models are single-op tests with under 100 bytes of activations, where ORT's arena
# hands out at least 256 bytes per tensor: they are listed, and summarised apart (SINGLE_OP).
# The first binding per model is docs/onnx.md's ("every shared model plans completely with these
# bindings"); the ones after it are larger requests of the models that have symbols.
CASES = [
    ("onnx-light/light_squeezenet.onnx", {}, {}),
    ("onnx-light/light_resnet50.onnx", {}, {}),
    ("onnx-light/light_inception_v1.onnx", {}, {}),
    ("onnx-light/light_densenet121.onnx", {}, {}),
    ("ort-ext/FastestDet.onnx", {}, {}),
    ("ort-ext/pytorch_super_resolution.onnx", {"batch_size": 1}, {}),
    ("ort-ext/pytorch_super_resolution.onnx", {"batch_size": 4}, {}),
    ("minilm/all-minilm-l6-v2-q.onnx", {"batch_size": 1, "sequence_length": 128}, {}),
    ("minilm/all-minilm-l6-v2-q.onnx", {"batch_size": 4, "sequence_length": 512}, {}),
    ("ort-genai/tiny-random-gpt2-fp32_past.onnx",
     {"batch_size": 4, "seq_len": 128, "past_seq_len": 896, "total_seq_len": 1024}, {}),
    ("ort-genai/tiny-random-gpt2-fp32_past.onnx",
     {"batch_size": 8, "seq_len": 512, "past_seq_len": 1536, "total_seq_len": 2048}, {}),
    ("silero/silero_vad_op18_ifless.onnx", {"batch": 1, "sequence": 512}, {}),
    ("silero/silero_vad_op18_ifless.onnx", {"batch": 16, "sequence": 4096}, {}),
    ("onnx-node/test_if/model.onnx", {}, {}),
    ("onnx-node/test_scan_sum/model.onnx", {}, {}),
    # The Loop's Slice extent is data-dependent: memplan takes it as a binding; ORT computes it.
    ("onnx-node/test_loop11/model.onnx", {}, {"slice_out_slice_d0": 5}),
]


SINGLE_OP = "onnx-node/"


def clean(text, limit=160):
    """One line of tool output made safe for a terminal and a Markdown cell (it may quote a model)."""
    line = next((l for l in reversed(text.strip().splitlines()) if l.strip()), "no output")
    out = "".join(c if (c.isprintable() and ord(c) < 0x7f) else "\\x%02x" % ord(c) if ord(c) < 0x100
                  else "\\u%04x" % ord(c) for c in line.strip())
    out = out.replace("|", "\\|")
    return out if len(out) <= limit else out[:limit - 3] + "..."


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    except OSError as e:
        return None, "cannot start %s: %s" % (cmd[0], e.strerror)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, clean(p.stderr or p.stdout))
    return p.stdout, None


def ort_activation(model, dims, level, timeout, tool):
    out, err = run([sys.executable, tool, model] + ["%s=%d" % kv for kv in dims.items()]
                   + ["--opt", level], timeout)
    if err:
        return None, "ORT " + err
    try:
        return json.loads(out.strip().splitlines()[-1])["activation"], None
    except (ValueError, KeyError, IndexError):
        return None, "ORT printed no result: " + clean(out)


def memplan_plan(launcher, model, bindings, extra, timeout):
    cmd = (["java", "-jar", launcher] if launcher.endswith(".jar") else [launcher]) + ["plan", "--format", "json"]
    for k, v in bindings.items():
        cmd += ["--bind", "%s=%d" % (k, v)]
    out, err = run(cmd + extra + [model], timeout)
    if err:
        return None, "memplan " + err
    try:
        doc = json.loads(out)
    except ValueError:
        return None, "memplan printed no JSON: " + clean(out)
    onnx = doc.get("onnx", {})
    if not onnx.get("complete", False) or onnx.get("admissionBytes") is None:
        return None, "memplan: plan deferred, unbound %s" % clean(", ".join(onnx.get("unboundSymbols", [])) or "?")
    return {"peak": doc["peakBytes"], "lowerBound": doc["lowerBoundBytes"],
            "admission": onnx["admissionBytes"]}, None


def fmt(n):
    return "" if n is None else "{:,}".format(n)


def table(rows, levels):
    main = levels[0]
    head = ["model", "binding", "memplan peak", "memplan lower bound", "memplan admission",
            "ORT activation (%s)" % main, "memplan / ORT"]
    head += ["ORT activation (%s)" % lv for lv in levels[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    ratios, failures = [], []
    for r in rows:
        plan, ort = r["memplan"], r["ort"]
        ratio = plan["admission"] / ort[main] if plan and ort.get(main) else None
        if ratio is not None:
            ratios.append((ratio, r))
        cells = [r["model"], r["binding"], fmt(plan and plan["peak"]), fmt(plan and plan["lowerBound"]),
                 fmt(plan and plan["admission"]), fmt(ort.get(main)), "" if ratio is None else "%.2f" % ratio]
        cells += [fmt(ort.get(lv)) for lv in levels[1:]]
        lines.append("| " + " | ".join(cells) + " |")
        failures += ["%s (%s): %s" % (r["model"], r["binding"], why) for why in r["errors"]]
    out = "\n".join(lines) + "\n\n"
    models = [t for t in ratios if not t[1]["model"].startswith(SINGLE_OP)]
    for what, some in (("the real models (without the onnx-node single-op tests)", models), ("every case", ratios)):
        if some:
            geo = math.exp(sum(math.log(x) for x, _ in some) / len(some))
            worst, wr = max(some, key=lambda t: t[0])
            best, br = min(some, key=lambda t: t[0])
            out += ("- memplan / ORT over %s, %d cases: geomean **%.2f**, worst (highest) **%.2f** (%s, %s), "
                    "lowest %.2f (%s, %s)\n" % (what, len(some), geo, worst, wr["model"], wr["binding"],
                                                 best, br["model"], br["binding"]))
        else:
            out += "- memplan / ORT over %s: no case has both figures\n" % what
    if failures:
        out += "\nNot compared (the reason each tool gave):\n\n" + "".join("- %s\n" % f for f in failures)
    return out


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memplan", default=os.path.join(ROOT, "memplan"), help="launcher or cli jar")
    ap.add_argument("--models", default=os.path.join(os.path.dirname(ROOT), "shared", "models"))
    ap.add_argument("--ort-arena", default=None, help="ort-arena.py (default: beside --models, ../tools)")
    ap.add_argument("--levels", default="all,none", help="ORT optimization levels; the first is compared")
    ap.add_argument("--only", default=None, help="run only the cases whose model path contains this")
    ap.add_argument("--json", default=None, help="also write the raw figures to this file")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    levels = [lv for lv in a.levels.split(",") if lv]
    bad = [lv for lv in levels if lv not in ("all", "extended", "basic", "none")]
    if not levels or bad:
        ap.error("--levels takes all, extended, basic or none, comma-separated")
    tool = a.ort_arena or os.path.join(os.path.dirname(os.path.abspath(a.models)), "tools", "ort-arena.py")
    for path, what in ((a.models, "models folder"), (tool, "ort-arena.py"), (a.memplan, "memplan launcher or jar")):
        if not os.path.exists(path):
            sys.exit("compare.py: %s not found at %s" % (what, clean(path)))
    import onnxruntime
    rows = []
    for model, dims, only_memplan in CASES:
        if a.only and a.only not in model:
            continue
        full = os.path.join(a.models, model)
        binding = ", ".join("%s=%d" % kv for kv in {**dims, **only_memplan}.items()) or "static"
        row = {"model": model, "binding": binding, "ort": {}, "memplan": None, "errors": []}
        t0 = time.time()
        if not os.path.exists(full):
            row["errors"].append("model file missing")
        else:
            row["memplan"], err = memplan_plan(os.path.abspath(a.memplan), full, {**dims, **only_memplan}, extra, a.timeout)
            if err:
                row["errors"].append(err)
            for lv in levels:
                row["ort"][lv], err = ort_activation(full, dims, lv, a.timeout, tool)
                if err:
                    row["errors"].append("(level %s) %s" % (lv, err))
        print("%-45s %-60s %5.1f s" % (model, binding, time.time() - t0), file=sys.stderr)
        rows.append(row)
    print("ONNX Runtime %s (CPU arena, memory pattern, one thread, two runs); memplan %s %s\n"
          % (onnxruntime.__version__, clean(os.path.abspath(a.memplan)), " ".join(extra)))
    print(table(rows, levels))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"ort": onnxruntime.__version__, "memplan": os.path.abspath(a.memplan), "memplanOptions": extra,
                       "levels": levels, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
