#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ort-arena.py (../shared/tools) with the settings docs/ort-runtime.md measures.

usage: arena-x.py MODEL.onnx [DIM=N ...] [--opt all|extended|basic|none] [--runs N]
                  [--pattern on|off] [--release-outputs] [--arena STRATEGY,INITIAL,MAXDEAD]
                  [--cpu-arena on|off]

Same inputs and same C API calls as ort-arena.py (CPU arena on, one intra-op thread), plus:
--pattern off        EnableMemPattern replaced by DisableMemPattern
--cpu-arena off      EnableCpuMemArena replaced by DisableCpuMemArena (ORT then has no arena
                     statistics to report: the script says so and exits 1)
--release-outputs    release each run's outputs before the next run (ort-arena.py keeps them, so
                     its second run's peak includes the first run's outputs)
--arena S,I,D        an env-wide arena (CreateArenaCfg + CreateAndRegisterAllocator, session config
                     session.use_env_allocators=1): S extend strategy (0 next power of two,
                     1 same as requested), I initial chunk bytes, D max dead bytes per chunk
                     (-1 = ORT's default for any of them)
Prints one JSON line: the stats before the runs and after each run, and per run the deltas
(peak = MaxInUse - InUse before the first run, allocs = NumAllocs added, reserved = TotalAllocated
added). 'activation' is ort-arena.py's figure. C API indices are those of ORT_API_VERSION 24.
"""
import ctypes as C, json, os, sys
import numpy as np, onnx, onnxruntime

IDX = dict(GetErrorMessage=2, CreateEnv=3, CreateSession=7, Run=9, CreateSessionOptions=10,
           EnableMemPattern=16, DisableMemPattern=17, EnableCpuMemArena=18,
           SetSessionGraphOptimizationLevel=23, SetIntraOpNumThreads=24, CreateTensorWithDataAsOrtValue=49,
           CreateCpuMemoryInfo=69, DisableCpuMemArena=19, ReleaseValue=96, AddSessionConfigEntry=130, CreateAllocator=131,
           CreateAndRegisterAllocator=144, CreateArenaCfg=156, GetKeyValue=297, AllocatorGetStats=319)
OPT = {"none": 0, "basic": 1, "extended": 2, "all": 99}
ELEM = {np.float32: 1, np.uint8: 2, np.int8: 3, np.int32: 6, np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11}
KEYS = ("InUse", "MaxInUse", "TotalAllocated", "NumAllocs", "MaxAllocSize")


def safe(text):
    """Text from ORT or a model file, made safe for a terminal: printable ASCII, the rest escaped."""
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % ord(c) if ord(c) < 0x100
                   else "\\u%04x" % (ord(c) & 0xffff) for c in text)


def take(args, flag, default, has_value=True):
    if flag not in args:
        return default
    i = args.index(flag)
    value = args[i + 1] if has_value else True
    del args[i:i + (2 if has_value else 1)]
    return value


args = sys.argv[1:]
opt = take(args, "--opt", "all")
runs = int(take(args, "--runs", "2"))
pattern = take(args, "--pattern", "on")
release = take(args, "--release-outputs", False, has_value=False)
arena = take(args, "--arena", None)
cpu_arena = take(args, "--cpu-arena", "on")
if opt not in OPT or pattern not in ("on", "off") or cpu_arena not in ("on", "off") or runs < 1 or not args:
    sys.exit(__doc__.split("\n\n")[1])
path, dims = args[0], dict(a.split("=", 1) for a in args[1:])

lib = C.CDLL(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so." + onnxruntime.__version__))
lib.OrtGetApiBase.restype = C.POINTER(C.c_void_p * 2)
api = C.cast(C.cast(lib.OrtGetApiBase().contents[0], C.CFUNCTYPE(C.c_void_p, C.c_uint32))(24),
             C.POINTER(C.c_void_p * 400)).contents
VP = C.c_void_p


def fn(name, res, *a):
    return C.cast(api[IDX[name]], C.CFUNCTYPE(res, *a))


def ok(st, what):
    if st:
        raise SystemExit(f"{what}: " + safe(fn("GetErrorMessage", C.c_char_p, VP)(st).decode(errors="replace")))


env, so, sess, mi, alloc = VP(), VP(), VP(), VP(), VP()
ok(fn("CreateEnv", VP, C.c_int, C.c_char_p, C.POINTER(VP))(3, b"arena", C.byref(env)), "env")
ok(fn("CreateCpuMemoryInfo", VP, C.c_int, C.c_int, C.POINTER(VP))(1, 0, C.byref(mi)), "meminfo")  # arena allocator
ok(fn("CreateSessionOptions", VP, C.POINTER(VP))(C.byref(so)), "options")
ok(fn("EnableCpuMemArena" if cpu_arena == "on" else "DisableCpuMemArena", VP, VP)(so), "arena")
ok(fn("EnableMemPattern" if pattern == "on" else "DisableMemPattern", VP, VP)(so), "pattern")
ok(fn("SetIntraOpNumThreads", VP, VP, C.c_int)(so, 1), "threads")
ok(fn("SetSessionGraphOptimizationLevel", VP, VP, C.c_int)(so, OPT[opt]), "opt")
if arena:
    s, i, d = (int(x) for x in arena.split(","))
    cfg = VP()
    ok(fn("CreateArenaCfg", VP, C.c_size_t, C.c_int, C.c_int, C.c_int, C.POINTER(VP))(0, s, i, d, C.byref(cfg)), "arena cfg")
    ok(fn("CreateAndRegisterAllocator", VP, VP, VP, VP)(env, mi, cfg), "env allocator")
    ok(fn("AddSessionConfigEntry", VP, VP, C.c_char_p, C.c_char_p)(so, b"session.use_env_allocators", b"1"), "config")
ok(fn("CreateSession", VP, VP, C.c_char_p, VP, C.POINTER(VP))(env, path.encode(), so, C.byref(sess)), "session")
ok(fn("CreateAllocator", VP, VP, VP, C.POINTER(VP))(sess, mi, C.byref(alloc)), "allocator")


def stats():
    kv = VP()
    ok(fn("AllocatorGetStats", VP, VP, C.POINTER(VP))(alloc, C.byref(kv)), "stats")
    get = fn("GetKeyValue", C.c_char_p, VP, C.c_char_p)
    if get(kv, b"MaxInUse") is None:  # the non-arena CPU allocator keeps no statistics
        raise SystemExit("arena-x.py: the session's CPU allocator reports no statistics (CPU arena %s)" % cpu_arena)
    return {k: int(get(kv, k.encode()) or 0) for k in KEYS}


m = onnx.load(path, load_external_data=False)
inits = {i.name for i in m.graph.initializer}
feeds, keep = [], []
for vi in m.graph.input:  # the inputs ort-arena.py feeds, built the same way
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
    a = np.ascontiguousarray(a)
    keep.append(a)
    shp = (C.c_int64 * len(shape))(*shape)
    v = VP()
    ok(fn("CreateTensorWithDataAsOrtValue", VP, VP, VP, C.c_size_t, C.POINTER(C.c_int64), C.c_size_t, C.c_int,
          C.POINTER(VP))(mi, a.ctypes.data, a.nbytes, shp, len(shape), ELEM[dt], C.byref(v)), "tensor " + vi.name)
    feeds.append((vi.name, v))
outs = [o.name for o in m.graph.output]
release_value = fn("ReleaseValue", None, VP)
before = stats()
after, per_run, prev = [], [], before
for _ in range(runs):
    inn = (C.c_char_p * len(feeds))(*[f[0].encode() for f in feeds])
    inv = (VP * len(feeds))(*[f[1] for f in feeds])
    on = (C.c_char_p * len(outs))(*[o.encode() for o in outs])
    ov = (VP * len(outs))()
    ok(fn("Run", VP, VP, VP, C.POINTER(C.c_char_p), C.POINTER(VP), C.c_size_t, C.POINTER(C.c_char_p), C.c_size_t,
          C.POINTER(VP))(sess, None, inn, inv, len(feeds), on, len(outs), ov), "run")
    now = stats()
    if release:
        for v in ov:
            if v:
                release_value(v)
    after.append(now)
    per_run.append({"peak": now["MaxInUse"] - before["InUse"], "allocs": now["NumAllocs"] - prev["NumAllocs"],
                    "reserved": now["TotalAllocated"] - prev["TotalAllocated"], "maxAllocSize": now["MaxAllocSize"],
                    "inUseAfter": now["InUse"] - before["InUse"]})
    prev = stats() if release else now
print(json.dumps({"model": os.path.basename(path), "dims": dims, "opt": opt, "pattern": pattern,
                  "releaseOutputs": bool(release), "arena": arena, "ort": onnxruntime.__version__,
                  "before": before, "after": after, "runs": per_run,
                  "activation": after[-1]["MaxInUse"] - before["InUse"],
                  "reservedForRequests": after[-1]["TotalAllocated"] - before["TotalAllocated"]}))
