#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ORT's arena after each node of a model's runs, from its profiler, at ort-arena.py's settings.

usage: node-arena-profile.py MODEL.onnx [DIM=N ...] [--opt all|extended|basic|none]
Runs the model twice (memory pattern on, default arena, one intra-op thread, profiling on, the first
run's outputs held in ORT's arena during the second, as ort-arena.py does) and prints,
per node and run, what ORT's profiler samples after the kernel: the arena's bytes in use, its peak so
far and the bytes it holds, each minus what the arena held in use before the first node (weights and
pre-packed buffers), so the columns compare with a replay's run from an empty arena. Where a replay
first differs from these rows is where its sequence of allocations differs from ORT's.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/node-arena-profile.py MODEL [DIM=N ...]
"""
import json, os, sys, tempfile
import numpy as np
import onnx
import onnxruntime as ort

OPT = {"none": ort.GraphOptimizationLevel.ORT_DISABLE_ALL, "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
       "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}


def safe(text):
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % (ord(c) & 0xff) for c in str(text))


def feeds_for(m, dims):
    """ort-arena.py's inputs."""
    inits = {i.name for i in m.graph.initializer}
    feeds = {}
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else int(dims.get(d.dim_param, 1)) for d in tt.shape.dim]
        dt = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type).type
        n = vi.name.lower()
        if dt in (np.int64, np.int32):
            a = np.zeros(shape, dt) if "type" in n else np.ones(shape, dt) if "mask" in n else \
                (np.arange(int(np.prod(shape))) % 50 + 1).reshape(shape).astype(dt)
            if n == "sr":
                a = np.array(16000, dt)
        elif dt == np.bool_:
            a = np.ones(shape, dt)
        else:
            a = (np.random.default_rng(0).standard_normal(shape) * 0.1).astype(dt)
        feeds[vi.name] = a
    return feeds


def main():
    args = sys.argv[1:]
    opt = "all"
    if "--opt" in args:
        i = args.index("--opt"); opt = args[i + 1]; del args[i:i + 2]
    if not args:
        sys.exit(__doc__.split("\n\n")[1])
    path, dims = args[0], dict(a.split("=", 1) for a in args[1:])
    so = ort.SessionOptions()
    so.graph_optimization_level = OPT[opt]
    so.enable_profiling, so.intra_op_num_threads, so.log_severity_level = True, 1, 3
    so.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="node-arena-"), "profile")
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds = feeds_for(onnx.load(path, load_external_data=False), dims)
    # the first run's outputs stay in ORT's arena while the second runs, as ort-arena.py keeps them
    # (run() would copy them out and free them, and the second run would lay out differently)
    held = session.run_with_ort_values(None, {k: ort.OrtValue.ortvalue_from_numpy(v) for k, v in feeds.items()})
    session.run(None, feeds)
    del held
    with open(session.end_profiling()) as f:
        events = json.load(f)
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    if not nodes:
        sys.exit("the profile lists no node")
    a = nodes[0]["args"]
    base = int(a["mem_bytes_in_use"]) - int(a["mem_in_use_delta"])
    held = int(a["mem_arena_held"]) - int(a["mem_arena_held_delta"])
    print("# in use before the first node: %s (subtracted); held: %s (subtracted)" % ("{:,}".format(base), "{:,}".format(held)))
    print("| run | node | op | in use | peak | held |\n|---|---|---|---:|---:|---:|")
    run, seen = 1, set()
    for e in nodes:
        name = e["name"][:-len("_kernel_time")]
        if name in seen:
            run, seen = run + 1, set()
        seen.add(name)
        a = e["args"]
        print("| %d | %s | %s | %s | %s | %s |" % (run, safe(name), safe(a.get("op_name", "")),
              "{:,}".format(int(a["mem_bytes_in_use"]) - base), "{:,}".format(int(a["mem_in_use_peak"]) - base),
              "{:,}".format(int(a["mem_arena_held"]) - held)))


if __name__ == "__main__":
    main()
