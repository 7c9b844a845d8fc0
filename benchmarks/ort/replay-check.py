#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Can ONNX Runtime's arena figure be predicted exactly? A check on seeded random graphs.

usage: replay-check.py [--graphs N] [--seed S] [--planner]
Builds random graphs of Pad, Slice and Concat on 1-D float tensors (no kernel runs in place, no
workspaces, every size distinct, so ORT's planner gives each value its own buffer; --planner adds
Relu, run in place, and Exp, same-shape values its planner takes from the freelist), predicts
`ort-arena.py`'s `activation` by replaying what docs/ort-runtime.md describes, and measures it
with arena-x.py at ort-arena.py's settings (level none so the graph is not rewritten):
  planner: in place when the kernel allows it and the input's buffer has no later reader, else the
         most recently freed buffer of the same shape, else a new buffer; a buffer stays allocated
         until the last reader of the last value sharing it (a freelist reuse keeps it across the gap);
  order: ORT's default execution order (a reverse DFS from the graph's leaves, not the file's order);
  run 1: allocate each value when its node runs, 256-byte aligned; free it after its last reader;
         the graph output is kept by the caller;
  run 2: one block of the memory pattern's size (best fit over run 1's trace, graph outputs not
         traced), held for the whole run, the output allocated beside it; run 1's output still held;
  every allocation through a model of the BFC arena (256-byte rounding, best fit by size then
  address, split only if the chunk is at least twice the request, power-of-two regions from
  1 MiB that never merge).
Prints one line per graph and how many predictions were exact.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/replay-check.py
"""
import json, os, random, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ALIGN = 256
MAX_DEAD = 128 << 20


def safe(text):
    """Text from ORT or a model file, made safe for a terminal: printable ASCII, the rest escaped."""
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % ord(c) if ord(c) < 0x100
                   else "\\u%04x" % (ord(c) & 0xffff) for c in text)


def align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class BfcArena:
    """ORT's BFC arena as docs/ort-runtime.md describes it (default configuration)."""

    def __init__(self, initial=1 << 20):
        self.chunks = []  # [address, size, in_use, region]; regions are address ranges that never merge
        self.next_region_address = 0
        self.region_bytes = initial
        self.in_use = self.max_in_use = self.total = 0

    def alloc(self, n):
        r = align(n)
        chunk = self.best_fit(r)
        if chunk is None:
            self.extend(r)
            chunk = self.best_fit(r)
        if chunk[1] >= 2 * r or chunk[1] - r >= MAX_DEAD:  # split, else hand the chunk out whole
            i = self.chunks.index(chunk)
            self.chunks.insert(i + 1, [chunk[0] + r, chunk[1] - r, False, chunk[3]])
            chunk[1] = r
        chunk[2] = True
        self.in_use += chunk[1]
        self.max_in_use = max(self.max_in_use, self.in_use)
        return chunk[0]

    def best_fit(self, r):
        # Bins hold chunks by power-of-two size class; within and across bins the smallest chunk that
        # fits wins, ties by address: the same choice as taking the minimum (size, address).
        fits = [c for c in self.chunks if not c[2] and c[1] >= r]
        return min(fits, key=lambda c: (c[1], c[0])) if fits else None

    def extend(self, r):
        grew = False
        while r > self.region_bytes:
            self.region_bytes *= 2
            grew = True
        size = self.region_bytes
        if not grew:
            self.region_bytes *= 2
        self.chunks.append([self.next_region_address, size, False, self.next_region_address])
        self.next_region_address += size + (1 << 40)  # regions are never adjacent
        self.total += size

    def free(self, address):
        i = next(k for k, c in enumerate(self.chunks) if c[0] == address and c[2])
        c = self.chunks[i]
        c[2] = False
        self.in_use -= c[1]
        nxt = self.chunks[i + 1] if i + 1 < len(self.chunks) else None
        if nxt and not nxt[2] and nxt[3] == c[3]:
            c[1] += nxt[1]
            del self.chunks[i + 1]
        prev = self.chunks[i - 1] if i > 0 else None
        if prev and not prev[2] and prev[3] == c[3]:
            prev[1] += c[1]
            del self.chunks[i]


def pattern_size(trace):
    """ORT's MemPatternPlanner over a run's trace: best fit into the gaps between live blocks and
    the gap between the highest live block and the buffer's end, else right above the highest
    live block (which may overlap dead space under the buffer's end)."""
    live, size = [], 0  # live: sorted [offset, size, value]
    for op, value, n in trace:
        if op == "free":
            live = [b for b in live if b[2] != value]
            continue
        current, waste, best = 0, None, None
        for off, sz, _ in live:
            if off >= current:
                gap = off - current
                if gap >= n and (waste is None or gap - n < waste):
                    best, waste = current, gap - n
            current = max(current, off + sz)
        if current < size and size - current >= n and (waste is None or size - current - n < waste):
            best = current
        if best is None:
            best = current
        size = max(size, best + n)
        live = sorted(live + [[best, n, value]])
    return size


def random_graph(rng, path, planner=False):
    """Pad / Slice / Concat over 1-D floats (and with planner=True, Relu, which ORT runs in place,
    and Exp, which it does not: same-shape values for its freelist); returns sizes in bytes."""
    sizes, nodes, inits, used = {"X": rng.randrange(20_000, 400_000)}, [], [], set()
    values = ["X"]
    for i in range(rng.randrange(6, 16)):
        kind = rng.choice(["Pad", "Slice", "Concat"] + (["Relu", "Exp", "Relu"] if planner else []))
        a = rng.choice(values[-3:])
        out = "v%d" % i
        if kind in ("Relu", "Exp"):
            nodes.append(helper.make_node(kind, [a], [out]))
            sizes[out] = sizes[a]
            values.append(out)
            used.update(nodes[-1].input)
            continue
        if kind == "Concat" and len(values) > 1:
            b = rng.choice([v for v in values[-4:] if v != a] or [a])
            nodes.append(helper.make_node("Concat", [a, b], [out], axis=0))
            n = sizes[a] + sizes[b]
        elif kind == "Slice" and sizes[a] > 4_000:
            keep = rng.randrange(sizes[a] // 4, sizes[a] - 1)
            for name, val in (("s%d" % i, [0]), ("e%d" % i, [keep])):
                inits.append(numpy_helper.from_array(np.array(val, np.int64), name))
            nodes.append(helper.make_node("Slice", [a, "s%d" % i, "e%d" % i], [out]))
            n = keep
        else:
            grow = rng.randrange(1_000, 300_000)
            inits.append(numpy_helper.from_array(np.array([0, grow], np.int64), "p%d" % i))
            nodes.append(helper.make_node("Pad", [a, "p%d" % i], [out]))
            n = sizes[a] + grow
        if n in sizes.values():
            n += 1  # keep sizes distinct: ORT's planner reuses a freed buffer of exactly the same shape
            nodes[-1] = helper.make_node("Pad", [a, "q%d" % i], [out])
            inits.append(numpy_helper.from_array(np.array([0, n - sizes[a]], np.int64), "q%d" % i))
        sizes[out] = n
        values.append(out)
        used.update(nodes[-1].input)
    # Values nobody reads feed a final Concat, so the graph has one output and no dead values.
    last = values[-1]
    dead = [v for v in values[1:-1] if v not in used]
    if dead:
        nodes.append(helper.make_node("Concat", [last] + dead, ["Y"], axis=0))
        sizes["Y"] = sum(sizes[v] for v in [last] + dead)
        values.append("Y")
    out = values[-1]
    graph = helper.make_graph(nodes, "replay", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [sizes["X"]])],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, [sizes[out]])], initializer=inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), path)
    return {v: 4 * n for v, n in sizes.items()}, nodes, out


def ort_order(nodes):
    """ORT's default execution order (GraphViewer): a reverse DFS from the nodes no node reads, each
    node's producers pushed in ascending node index (so the highest is visited first), a node
    emitted once all its producers are."""
    producer = {v: k for k, n in enumerate(nodes) for v in n.output}
    readers = {v for n in nodes for v in n.input}
    stack = [(k, False) for k, n in enumerate(nodes) if not any(v in readers for v in n.output)]
    visited, order = set(), []
    while stack:
        k, leave = stack.pop()
        if leave:
            order.append(k)
            continue
        if k in visited:
            continue
        visited.add(k)
        stack.append((k, True))
        for p in sorted({producer[v] for v in nodes[k].input if v in producer}):
            if p not in visited:
                stack.append((p, False))
    return order


INPLACE = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid", "Softplus", "Clip", "Cast", "Softmax",
           "LogSoftmax"}  # MayInplace(0, 0): the kernels inplace-probe.py found in place
ALIAS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}  # output 0 must share input 0
INPLACE_INPUT = {("com.microsoft.nchwc", "Conv"): 3, ("com.microsoft", "FusedConv"): 3}  # MayInplace(3, 0): the Sum input


def scratch(arena, sizes):
    """A kernel's workspaces: allocated in order during its compute, all freed at its end."""
    taken = [arena.alloc(n) for n in (sizes or []) if n]
    for address in reversed(taken):
        arena.free(address)


def predict(sizes, nodes, inputs, outputs, workspace=None, kinds=None):
    """Replay ORT's planner (alias, in place, then the most recently freed buffer of the same
    shape), run 1 through the arena, the memory pattern, and run 2 with run 1's outputs held.
    sizes: bytes of every activation value (graph inputs included, weights absent); workspace:
    the allocations (bytes, in order) a node takes from the arena during its compute; kinds: what SameSize compares (element
    size and shape, dim by dim), the byte size when absent. Returns (activation, counts of sharing)."""
    workspace = workspace or {}
    kinds = kinds or sizes
    order = ort_order(nodes)
    count = {v: 1 for v in sizes}  # each value's definition counts one use (ComputeReuseCount)
    for v in inputs:
        count[v] += 1  # the caller's inputs: never freed, never overwritten
    for v in outputs:
        count[v] += 1  # the caller's outputs
    for node in nodes:
        for v in node.input:
            if v in sizes:
                count[v] += 1
    read = {v for node in nodes for v in node.input}
    buffer, freelist, own, freed_at = {v: v for v in sizes}, [], {}, {}
    shared = {"in place": 0, "freelist": 0}
    for k in order:  # the plan, decided once per session
        node = nodes[k]
        first = node.input[0] if node.input else None
        at = INPLACE_INPUT.get((node.domain, node.op_type), 0 if node.op_type in INPLACE and not node.domain else None)
        target = node.input[at] if at is not None and len(node.input) > at and node.input[at] else None
        for o in [o for o in node.output if o in sizes]:
            if o in outputs:
                own.setdefault(k, []).append(o)  # kAllocateOutput: its own buffer, not traced
            elif node.op_type in ALIAS and first in sizes:
                buffer[o] = buffer[first]
            elif target in sizes and target not in inputs and count[buffer[target]] == 1 and kinds[target] == kinds[o]:
                buffer[o] = buffer[target]
                shared["in place"] += 1
            elif any(kinds[b] == kinds[o] for b in freelist):
                buffer[o] = next(b for b in freelist if kinds[b] == kinds[o])
                freelist.remove(buffer[o])
                shared["freelist"] += 1
            else:
                own.setdefault(k, []).append(o)
            if buffer[o] != o:
                count[buffer[o]] += count[o]
        for v in [i for i in node.input if i in sizes] + [o for o in node.output if o in sizes]:
            b = buffer[v]
            count[b] -= 1
            if count[b] == 0:
                freelist.insert(0, b)
                # a buffer taken back from the freelist is freed again later: the last one counts; an output
                # nobody reads is in no node's release list, so the frame frees it at the run's end
                freed_at[b] = order[-1] if b == v and v not in read else k
    arena, trace, addresses = BfcArena(), [], {}
    for k in order:  # run 1: a buffer lives from its first value to its last sharer's last reader
        for o in own.get(k, []):
            addresses[o] = arena.alloc(sizes[o])
            if o not in outputs:
                trace.append(("alloc", o, align(sizes[o])))
        scratch(arena, workspace.get(k))
        for b in [b for b, at in freed_at.items() if at == k]:
            arena.free(addresses[b])
            trace.append(("free", b, 0))
    size = pattern_size(trace)
    block = arena.alloc(size) if size else None  # run 2: the block, outputs beside it, run 1's outputs held
    for k in order:
        for o in own.get(k, []):
            if o in outputs:
                arena.alloc(sizes[o])
        scratch(arena, workspace.get(k))
    if block is not None:
        arena.free(block)
    return arena.max_in_use, shared


def measure(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none"],
                       capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip().splitlines()[-1][:160]
    return json.loads(p.stdout.strip().splitlines()[-1])["activation"], None


def main():
    graphs = int(sys.argv[sys.argv.index("--graphs") + 1]) if "--graphs" in sys.argv else 20
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    planner = "--planner" in sys.argv
    work = tempfile.mkdtemp(prefix="replay-check-")
    exact, totals = 0, {"in place": 0, "freelist": 0}
    for g in range(graphs):
        rng = random.Random(seed * 1_000_003 + g)
        path = os.path.join(work, "g%d.onnx" % g)
        sizes, nodes, out = random_graph(rng, path, planner)
        want, err = measure(path)
        got, shared = predict(sizes, nodes, {"X"}, {out})
        if err:
            print("graph %d: ORT failed: %s" % (g, safe(err)))
            continue
        exact += got == want
        for key in totals:
            totals[key] += shared[key]
        print("graph %2d: %2d nodes, %d in place, %d from the freelist, predicted %12s, ORT %12s  %s" % (
            g, len(nodes), shared["in place"], shared["freelist"], "{:,}".format(got), "{:,}".format(want),
            "exact" if got == want else "off by {:+,}".format(got - want)))
    print("%d of %d predictions exact (%d buffers shared in place, %d taken from the freelist)"
          % (exact, graphs, totals["in place"], totals["freelist"]))


if __name__ == "__main__":
    main()
