#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Remeasures the ONNX Runtime figures the ORT tests hold the prediction to, and diffs them.

usage: figures.py [--write] [--only TABLE]
Run through benchmarks/ort/figures.sh, which makes the venv (onnxruntime, onnx, numpy) inside
target/ first. For every table below it measures each row again with ../shared/tools/ort-arena.py
(one intra-op thread, two runs, arena and memory pattern on) and writes the table with, beside each
figure, the raw arena statistics ORT reported (InUse before the first run; MaxInUse, TotalAllocated,
NumAllocs and MaxAllocSize after the last), ORT's version and the model file's sha256, into
target/ort-figures/<set>/; then prints, per row, the checked-in figure against the new one.
The threads table measures the level-all table's cases at 1, 2 and 4 intra-op threads instead, and
also keeps TotalAllocated before the first run: its rows hold the figure and the reservation.
Exit status 1 when a figure differs. --write copies the new tables over the checked-in ones.

A figure of ORT's default level (all) depends on the machine through one thing memplan models:
the NCHWc channel block MLAS picks from the vector width (16 floats with AVX-512F, else 8;
OrtRuntimeProfile.nchwcBlockSize). Those tables live in src/test/resources/ort/nchwc<block>/, one
folder per block; the level-none tables do not depend on it and live in src/test/resources/ort/.
On a machine whose block has no folder yet, this writes its first one (take the rows from the other
block's tables): run it with --write there and commit the folder.
"""
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RESOURCES = os.path.join(ROOT, "ort", "src", "test", "resources", "ort")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
ORT_ARENA = os.path.join(SHARED, "tools", "ort-arena.py")
# ort-arena.py with given input values: a testdata row's NAME=V of a graph input feeds it V (a Loop's trip count)
ARENA_VALUES = os.path.join(HERE, "arena-values.py")
OUT = os.path.join(ROOT, "target", "ort-figures")
SILERO = "silero/silero_vad_op18_ifless.onnx"
# Debian's libonnx-testdata: ONNX's backend test models (apt-get install libonnx-testdata)
ONNX_TESTDATA = "/usr/share/libonnx-testdata/data/node"
COLUMNS = ["ort_version", "model_sha256", "in_use_before", "max_in_use", "total_allocated", "num_allocs",
           "max_alloc_size"]


def nchwc_block():
    """MLAS's NCHWc block here, as OrtRuntimeProfile.nchwcBlockSize reads it: 16 with AVX-512F, else 8."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    return 16 if "avx512f" in flags else 8


def machine():
    """What the header says the figures were measured on (for people; the tests key on the block)."""
    name, flags = platform.machine(), set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and name == platform.machine():
                name += " " + line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    return name + " (" + (",".join(x for x in ("avx2", "avx512f", "avx512bw", "avx512_vnni") if x in flags) or "no AVX") + ")"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def silero_8k(tmp):
    """A copy of Silero VAD whose If compares sr with 8000: ort-arena.py feeds 16000, so it runs the else branch."""
    import numpy as np
    import onnx
    from onnx import numpy_helper as nh
    m = onnx.load(os.path.join(SHARED, "models", SILERO))
    for i, t in enumerate(m.graph.initializer):
        if t.name == "val_4":
            assert int(nh.to_array(t)) == 16000, "Silero's Equal no longer compares sr with 16000"
            m.graph.initializer[i].CopyFrom(nh.from_array(np.array(8000, dtype=nh.to_array(t).dtype), "val_4"))
    path = os.path.join(tmp, "silero-8k.onnx")
    onnx.save(m, path)
    return path


# table (relative to the set's folder or to RESOURCES), level, where its models are, what the header says
TABLES = [
    ("shared-level-all.tsv", "all", "shared", "shared models at ORT's default level"),
    ("shared-level-all-threads.tsv", "all", "threads", "shared-level-all.tsv's cases at 1, 2 and 4 intra-op"
     " threads; the last two columns: the threads, and TotalAllocated before the first run"),
    ("if-figures.tsv", "all", "if", "benchmarks/ort/if-models.py's If models, sr = 16000"),
    ("silero-else.tsv", "all", "silero-8k", "a copy of Silero VAD whose If compares sr with 8000 (its else"
     " branch, what ORT runs for sr = 8000); the sha256 is the original file's"),
    ("measured-kernels.tsv", "all", "measured", "benchmarks/ort/measured-models.py's models of kernels without a"
     " rule"),
    ("public-level-all.tsv", "all", "public", "public models outside the shared set, fetched into"
     " target/public-models by scripts/public-models.sh"),
    ("onnx-testdata-level-all.tsv", "all", "testdata", "ONNX's backend test models of recurrent kernels and"
     " control flow, from Debian's libonnx-testdata"),
    ("shared-level-none.tsv", "none", "shared", "shared models at level none"),
    ("silero-level-none.tsv", "none", "shared", "Silero VAD at level none, sr = 16000"),
]


# the intra-op thread counts of the "threads" table: the session's degree of parallelism must not move a figure
THREADS = (1, 2, 4)


def measure(model, dims, level, threads=1, tool=ORT_ARENA):
    p = subprocess.run([sys.executable, tool, model] + [d for d in dims.split(",") if d]
                       + ["--opt", level, "--threads", str(threads)],
                       capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        raise SystemExit("figures.py: ORT failed on %s %s: %s" % (model, dims, p.stderr.strip()[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def rows_of(path):
    with open(path) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]


def main():
    args = sys.argv[1:]
    write = "--write" in args
    only = args[args.index("--only") + 1] if "--only" in args else None
    import onnxruntime
    block = nchwc_block()
    set_name = "nchwc%d" % block if block else "nchwc-none-" + platform.machine()
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for table, level, models, what in TABLES:
            if only and only != table:
                continue
            folder = set_name if level != "none" else ""
            checked_in = os.path.join(RESOURCES, folder, table)
            # the threads table takes its cases from the level-all table
            source = checked_in if models != "threads" else os.path.join(RESOURCES, folder, "shared-level-all.tsv")
            if not os.path.exists(source):  # a new set: the rows of another one
                name = os.path.basename(source)
                others = [os.path.join(RESOURCES, d, name) for d in sorted(os.listdir(RESOURCES))
                          if d.startswith("nchwc") and os.path.exists(os.path.join(RESOURCES, d, name))]
                if not others:
                    raise SystemExit("figures.py: no %s anywhere to take the rows from" % name)
                source = others[0]
            out_rows = ["# model\tbindings\tort_activation\t" + "\t".join(COLUMNS)
                        + "\t(ONNX Runtime %s, CPU, level %s, ort-arena.py: %s; remeasure with benchmarks/ort/figures.sh)"
                        % (onnxruntime.__version__, level, what)]
            if level != "none":
                out_rows += ["# nchwc_block\t%s" % (block or "none"), "# measured on\t%s" % machine()]
            if models == "threads":  # the level-all cases, once per thread count; figure and reservation
                old = {(r[0], r[1], r[10]): (int(r[2]), int(r[7]) - int(r[11])) for r in rows_of(checked_in)} \
                    if os.path.exists(checked_in) else {}
                jobs = [(r[0], r[1], t, old.get((r[0], r[1], str(t)))) for r in rows_of(source) for t in THREADS]
            else:
                jobs = [(r[0], r[1], 1, int(r[2])) for r in rows_of(source)]
            for model, dims, threads, was in jobs:
                if models in ("if", "measured"):
                    path = os.path.join(RESOURCES, models, model)
                    original = path
                elif models == "public":
                    path = original = os.path.join(ROOT, "target", "public-models", model)
                elif models == "testdata":
                    path = original = os.path.join(ONNX_TESTDATA, model)
                elif models == "silero-8k":
                    original = os.path.join(SHARED, "models", model)
                    path = silero_8k(tmp)
                else:
                    path = original = os.path.join(SHARED, "models", model)
                r = measure(path, dims, level, threads, ARENA_VALUES if models == "testdata" else ORT_ARENA)
                before, after = r["before"], r["after"][-1]
                new = r["activation"]
                assert new == after["MaxInUse"] - before["InUse"], "ort-arena.py's activation is not MaxInUse - InUse"
                fields = [model, dims, str(new), r["ort"], sha256(original), str(before["InUse"]),
                          str(after["MaxInUse"]), str(after["TotalAllocated"]), str(after["NumAllocs"]),
                          str(after["MaxAllocSize"])]
                dims_label = dims
                if models == "threads":
                    fields += [str(threads), str(before["TotalAllocated"])]
                    new = (new, after["TotalAllocated"] - before["TotalAllocated"])
                    dims_label = "%s threads=%d" % (dims, threads)
                out_rows.append("\t".join(fields))
                same = "same" if new == was else "DIFFERS"
                differ += new != was
                print("%s\t%s %s\t%s -> %s\t%s" % (table, model, dims_label, was, new, same), flush=True)
            dest = os.path.join(OUT, folder, table)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                f.write("\n".join(out_rows) + "\n")
            if write:
                os.makedirs(os.path.dirname(checked_in), exist_ok=True)
                shutil.copyfile(dest, checked_in)
    print("figures.py: %d figure(s) differ from the checked-in tables; new tables in %s%s"
          % (differ, OUT, " (written over the checked-in ones)" if write else ""))
    sys.exit(1 if differ and not write else 0)


if __name__ == "__main__":
    main()
