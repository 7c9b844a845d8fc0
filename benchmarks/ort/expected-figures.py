#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates the ORT-measured figures the Java replay (dev.memplan.ort) is tested against.

usage: expected-figures.py [--graphs N]
Writes replay-check.py's seeded random graphs (seed 7: Pad/Slice/Concat only; seed 11 with
--planner's Relu and Exp) as ONNX files into src/test/resources/ort/random/, measures each with
arena-x.py at ort-arena.py's settings (level none, two runs, memory pattern on, default arena),
predicts it with replay-check.py, and writes src/test/resources/ort/random/expected.tsv:
  file, ORT's activation figure, the Python replay's prediction.
OrtArenaRandomGraphsTest imports each file with memplan's ONNX importer and asserts that the
Java replay equals both columns. Figures are for ONNX Runtime 1.30.0 (the venv's wheel), CPU.
Run it with the ORT venv: /work/ortvenv/bin/python benchmarks/ort/expected-figures.py
"""
import importlib.util, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "src", "test", "resources", "ort", "random")
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("replay_check", os.path.join(HERE, "replay-check.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)


def main():
    import onnxruntime
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
