#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates the ORT-measured figures the Java replay (dev.memplan.ort) is tested against.

usage: expected-figures.py [--graphs N] [--shared-only] [--level-all-only]
Writes replay-check.py's seeded random graphs (seed 7: Pad/Slice/Concat only; seed 11 with
--planner's Relu and Exp) as ONNX files into src/test/resources/ort/random/, measures each with
arena-x.py at ort-arena.py's settings (level none, two runs, memory pattern on, default arena),
predicts it with replay-check.py, and writes src/test/resources/ort/random/expected.tsv:
  file, ORT's activation figure, the Python replay's prediction.
OrtArenaRandomGraphsTest imports each file with memplan's ONNX importer and asserts that the
Java replay equals both columns.
It also measures the shared models (../shared/models) at level none, at the bindings listed in
SHARED below, into src/test/resources/ort/shared-level-none.tsv: model, bindings, ORT's figure
(OrtArenaSharedModelsTest). Figures are for ONNX Runtime 1.30.0 (the venv's wheel), CPU.
The shared models' tables (level none, and with --level-all-only the level-all one of this
machine's NCHWc block, src/test/resources/ort/nchwc<block>/shared-level-all.tsv) are remeasured by
figures.py, which keeps each figure's raw statistics, ORT version and model sha256 beside it; the
cases are the tables' rows (LEVEL_ALL below lists the level-all ones, the bindings of docs/onnx.md
and at least two more per model with symbols).
Run it with the ORT venv that benchmarks/ort/figures.sh makes: target/ort-venv/bin/python benchmarks/ort/expected-figures.py
"""
import importlib.util, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "ort", "src", "test", "resources", "ort", "random")
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("replay_check", os.path.join(HERE, "replay-check.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)


SHARED = [("onnx-light/light_squeezenet.onnx", ""), ("onnx-light/light_resnet50.onnx", ""),
          ("onnx-light/light_inception_v1.onnx", ""), ("onnx-light/light_densenet121.onnx", ""),
          ("ort-ext/FastestDet.onnx", ""),
          ("ort-ext/pytorch_super_resolution.onnx", "batch_size=1"),
          ("ort-ext/pytorch_super_resolution.onnx", "batch_size=2"),
          ("ort-ext/pytorch_super_resolution.onnx", "batch_size=4"),
          ("minilm/all-minilm-l6-v2-q.onnx", "batch_size=1,sequence_length=128"),
          ("minilm/all-minilm-l6-v2-q.onnx", "batch_size=2,sequence_length=64"),
          ("minilm/all-minilm-l6-v2-q.onnx", "batch_size=4,sequence_length=512")]


LEVEL_ALL = [(m, "") for m in ("onnx-light/light_squeezenet.onnx", "onnx-light/light_resnet50.onnx",
                                 "onnx-light/light_inception_v1.onnx", "onnx-light/light_densenet121.onnx",
                                 "ort-ext/FastestDet.onnx")] \
    + [("ort-ext/pytorch_super_resolution.onnx", "batch_size=%d" % b) for b in (1, 2, 4)] \
    + [("minilm/all-minilm-l6-v2-q.onnx", "batch_size=%d,sequence_length=%d" % bs)
       for bs in ((1, 128), (2, 64), (4, 512), (8, 32))] \
    + [("ort-genai/tiny-random-gpt2-fp32_past.onnx",
        "batch_size=%d,seq_len=%d,past_seq_len=%d,total_seq_len=%d" % (b, s, p, s + p))
       for b, s, p in ((4, 128, 896), (1, 1, 127), (2, 32, 224), (8, 512, 1536))] \
    + [("silero/silero_vad_op18_ifless.onnx", "batch=%d,sequence=%d" % bs) for bs in ((1, 512), (4, 1024), (16, 4096))]


def level_all(models_dir):
    """The level-all tables are figures.py's (one folder per NCHWc block, raw statistics beside each figure)."""
    subprocess_run_figures(["--write", "--only", "shared-level-all.tsv"])


def subprocess_run_figures(args):
    import subprocess
    subprocess.run([sys.executable, os.path.join(HERE, "figures.py")] + args, check=True)


def shared(models_dir):
    """The level-none table of the shared models, through figures.py (ort-arena.py --opt none)."""
    subprocess_run_figures(["--write", "--only", "shared-level-none.tsv"])


def main():
    import onnxruntime
    models = os.path.join(HERE, "..", "..", "..", "shared", "models")
    level_all(models)
    if "--level-all-only" in sys.argv:
        return
    shared(models)
    if "--shared-only" in sys.argv:
        return
    graphs = int(sys.argv[sys.argv.index("--graphs") + 1]) if "--graphs" in sys.argv else 20
    os.makedirs(OUT, exist_ok=True)
    rows = ["# file\tort_activation\tpython_replay\t(ONNX Runtime %s, CPU, level none, ort-arena.py settings; "
            "regenerate with benchmarks/ort/expected-figures.py)" % onnxruntime.__version__]
    for seed, planner in ((7, False), (11, True)):
        for g in range(graphs):
            rng = random.Random(seed * 1_000_003 + g)
            name = "seed%d-g%02d.onnx" % (seed, g)
            path = os.path.join(OUT, name)
            sizes, nodes, out = rc.random_graph(rng, path, planner)
            want, err = rc.measure(path)
            if err:
                raise SystemExit("expected-figures.py: ORT failed on %s: %s" % (name, rc.safe(err)))
            got, _ = rc.predict(sizes, nodes, {"X"}, {out})
            rows.append("%s\t%d\t%d" % (name, want, got))
            print(rows[-1], flush=True)
    with open(os.path.join(OUT, "expected.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
