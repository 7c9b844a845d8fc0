// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything about a replay that does not depend on a request's bindings, decided once per
 * predictor: the two runs' events in ORT's order (allocations, kernel workspaces, frees), which
 * buffers the memory pattern traces, which buffers have the same size on every request (the same
 * element type and symbolic shape: one evaluation serves them all), and which sizes and
 * workspaces are the same on every request (fixed shapes: evaluated here, once).
 *
 * <p>An event is one int: its kind in the low three bits, its operand (a buffer slot or a node id)
 * above them. Buffers get dense slots 0..{@link #buffers()}-1 in order of allocation. A kernel that
 * allocates outputs after some of its workspaces (Attention's present state comes after QKV,
 * DynamicQuantizeMatMul's Y after the quantized A) has a
 * {@link #HOLD} event before those outputs: it takes the node's first {@link #held} workspaces and
 * keeps them until the node's {@link #WORKSPACE} event, which takes the rest and frees them all.
 */
final class ReplaySequence {
    static final int ALLOC_OUTPUT = 0;
    static final int ALLOC_TRACED = 1;
    static final int WORKSPACE = 2;
    static final int FREE = 3;
    static final int HOLD = 4;
    static final int KIND_BITS = 3;
    static final int KIND_MASK = (1 << KIND_BITS) - 1;
    /** A size class whose bytes depend on the bindings; evaluated per request. */
    static final long DYNAMIC = -1;

    /** Run 1: every event. */
    final int[] run1;
    /** Run 2: the graph outputs' allocations and the workspaces, in the same order. */
    final int[] run2;
    /** Per buffer slot: its value id (the first value of the buffer). */
    final int[] slotValue;
    /** Per buffer slot: its size class. */
    final int[] slotClass;
    /** Per size class: the value evaluated for it, its first use (so an unknown size names the value it always did). */
    final int[] classValue;
    /** Per size class: its bytes when the same on every request, else {@link #DYNAMIC}. */
    final long[] classBytes;
    /** Per node id: its workspaces when the same on every request, else null (evaluated per request). */
    final long[][] fixedWorkspaces;
    /** Per node id: how many of its workspaces its {@link #HOLD} event takes (0: no such event). */
    final int[] held;
    /** The symbols the compiled sizes read, each resolved once per request. */
    final String[] symbols;
    /**
     * Per size class of {@link #DYNAMIC} bytes: the indices in {@link #symbols} whose values times
     * {@link #classFactor} make its bytes (a shape of fixed dims and plain symbols, whole-byte
     * elements); null where the size is evaluated from the value's shape.
     */
    final int[][] classSymbols;
    /** Per size class with {@link #classSymbols}: element bytes times the fixed dims. */
    final long[] classFactor;

    private ReplaySequence(int[] run1, int[] run2, int[] slotValue, int[] slotClass, int[] classValue,
                           long[] classBytes, long[][] fixedWorkspaces, int[] held, String[] symbols,
                           int[][] classSymbols, long[] classFactor) {
        this.run1 = run1;
        this.run2 = run2;
        this.slotValue = slotValue;
        this.slotClass = slotClass;
        this.classValue = classValue;
        this.classBytes = classBytes;
        this.fixedWorkspaces = fixedWorkspaces;
        this.held = held;
        this.symbols = symbols;
        this.classSymbols = classSymbols;
        this.classFactor = classFactor;
    }

    /**
     * {@return the sequence ORT's two runs follow for {@code graph} under {@code plan}}
     *
     * @param workspaces    per node id, its workspace rule
     * @param outputsAfter  per node id, how many of its workspaces the kernel takes before its outputs
     *                      after output 0 ({@link KernelWorkspaces#outputsAfter})
     */
    /** Node {@code node}'s workspaces for one request: fixed at compile time, else its rule's at {@code shapes}. */
    long[] workspaces(int node, KernelWorkspaces.Rule[] rules, BoundShapes shapes) {
        long[] sizes = fixedWorkspaces[node];
        return sizes != null ? sizes : rules[node].bytes(shapes);
    }

    static ReplaySequence of(Graph graph, OrtReusePlan plan, KernelWorkspaces.Rule[] workspaces, int[] outputsAfter) {
        BoundShapes fixedShapes = new BoundShapes(graph, Map.of());
        int[] slotOfValue = new int[graph.valueCount()];
        Arrays.fill(slotOfValue, -1);
        IntList slotValue = new IntList();
        IntList slotClass = new IntList();
        IntList classValue = new IntList();
        Map<SizeKey, Integer> classes = new HashMap<>();
        long[][] fixedWorkspaces = new long[graph.nodeCount()][];
        boolean[] needsWorkspace = new boolean[graph.nodeCount()];
        for (int k = 0; k < graph.nodeCount(); k++) {
            fixedWorkspaces[k] = fixed(workspaces[k], fixedShapes);
            needsWorkspace[k] = fixedWorkspaces[k] == null || fixedWorkspaces[k].length > 0;
        }
        int[] held = new int[graph.nodeCount()];
        IntList run1 = new IntList();
        IntList run2 = new IntList();
        for (int k : plan.order()) {
            int firstLate = outputsAfter[k] > 0 ? KernelWorkspaces.firstLateOutput(graph.node(k)) : Integer.MAX_VALUE;
            int[] allocates = plan.allocatesAt(k);
            boolean late = false;
            for (int o : allocates) {
                if (outputIndex(graph.node(k), o) >= firstLate) {
                    late = true; // the kernel asks for it after some of its workspaces
                } else {
                    allocate(graph, plan, o, slotOfValue, slotValue, slotClass, classValue, classes, run1, run2);
                }
            }
            if (late) {
                held[k] = outputsAfter[k];
                needsWorkspace[k] = true;
                run1.add(event(HOLD, k));
                run2.add(event(HOLD, k));
                for (int o : allocates) {
                    if (outputIndex(graph.node(k), o) >= firstLate) {
                        allocate(graph, plan, o, slotOfValue, slotValue, slotClass, classValue, classes, run1, run2);
                    }
                }
            }
            if (needsWorkspace[k]) {
                run1.add(event(WORKSPACE, k));
                run2.add(event(WORKSPACE, k));
            }
            for (int b : plan.freesAfter(k)) {
                if (slotOfValue[b] >= 0) { // a buffer never allocated holds no chunk and no block
                    run1.add(event(FREE, slotOfValue[b]));
                }
            }
        }
        long[] classBytes = new long[classValue.size()];
        int[][] classSymbols = new int[classBytes.length][];
        long[] classFactor = new long[classBytes.length];
        Map<String, Integer> symbols = new LinkedHashMap<>();
        for (int c = 0; c < classBytes.length; c++) {
            classBytes[c] = fixedBytes(fixedShapes, classValue.get(c));
            if (classBytes[c] == DYNAMIC) {
                classSymbols[c] = compile(graph.value(classValue.get(c)), symbols, classFactor, c);
            }
        }
        return new ReplaySequence(run1.toArray(), run2.toArray(), slotValue.toArray(), slotClass.toArray(),
                classValue.toArray(), classBytes, fixedWorkspaces, held, symbols.keySet().toArray(new String[0]),
                classSymbols, classFactor);
    }

    /** {@return the index of value {@code v} among {@code node}'s outputs, or -1} */
    private static int outputIndex(Graph.Node node, int v) {
        for (int i = 0; i < node.outputCount(); i++) {
            if (node.output(i) == v) {
                return i;
            }
        }
        return -1;
    }

    /** Gives value {@code o} the next buffer slot and adds its allocation to the runs. */
    private static void allocate(Graph graph, OrtReusePlan plan, int o, int[] slotOfValue, IntList slotValue,
                                 IntList slotClass, IntList classValue, Map<SizeKey, Integer> classes, IntList run1,
                                 IntList run2) {
        int slot = slotValue.size();
        slotOfValue[o] = slot;
        slotValue.add(o);
        Value value = graph.value(o);
        slotClass.add(classes.computeIfAbsent(new SizeKey(value.dataType(), value.shape()), key -> {
            classValue.add(o);
            return classValue.size() - 1;
        }));
        if (plan.isGraphOutput(o)) {
            run1.add(event(ALLOC_OUTPUT, slot));
            run2.add(event(ALLOC_OUTPUT, slot));
        } else {
            run1.add(event(ALLOC_TRACED, slot));
        }
    }

    /** {@return the number of buffer slots} */
    int buffers() {
        return slotValue.length;
    }

    static int kind(int event) {
        return event & KIND_MASK;
    }

    static int operand(int event) {
        return event >>> KIND_BITS;
    }

    private static int event(int kind, int operand) {
        return operand << KIND_BITS | kind;
    }

    /**
     * A rule's workspaces when they are the same on every request: a rule is a function of the
     * shapes it reads, so if it can be evaluated with no symbol bound, it read only fixed shapes.
     */
    private static long[] fixed(KernelWorkspaces.Rule rule, BoundShapes fixedShapes) {
        try {
            return rule.bytes(fixedShapes).clone();
        } catch (RuntimeException dependsOnTheRequest) { // or fails: per request, as it always did
            return null;
        }
    }

    /**
     * A size as element bytes times fixed dims ({@code factor[c]}) times symbols (the indices
     * returned): the same product {@link Graph.Value#bytesAt} takes, without its maps and
     * optionals. Null for what it does not cover (derived dims, sub-byte or variable-width types, a
     * fixed part past a long): those sizes are evaluated from the shape.
     */
    private static int[] compile(Value value, Map<String, Integer> symbols, long[] factor, int c) {
        DataType type = value.dataType();
        if (!type.hasFixedWidth() || type.bits() % 8 != 0) {
            return null;
        }
        long fixed = type.bits() / 8;
        IntList read = new IntList();
        for (Dim d : value.shape().dims()) {
            if (d instanceof Dim.Fixed f) {
                try {
                    fixed = Math.multiplyExact(fixed, f.extent());
                } catch (ArithmeticException tooLarge) {
                    return null;
                }
            } else if (d instanceof Symbol s) {
                read.add(symbols.computeIfAbsent(s.name(), k -> symbols.size()));
            } else {
                return null;
            }
        }
        factor[c] = fixed;
        return read.toArray();
    }

    private static long fixedBytes(BoundShapes fixedShapes, int value) {
        try {
            return fixedShapes.bytes(value);
        } catch (RuntimeException dependsOnTheRequest) {
            return DYNAMIC;
        }
    }

    /** Values of the same element type and symbolic shape have the same bytes on every request. */
    private record SizeKey(DataType type, Shape shape) {
    }

    /** A growable int array. */
    private static final class IntList {
        private int[] items = new int[64];
        private int size;

        void add(int v) {
            if (size == items.length) {
                items = Arrays.copyOf(items, 2 * size);
            }
            items[size++] = v;
        }

        int get(int i) {
            return items[i];
        }

        int size() {
            return size;
        }

        int[] toArray() {
            return Arrays.copyOf(items, size);
        }
    }
}
