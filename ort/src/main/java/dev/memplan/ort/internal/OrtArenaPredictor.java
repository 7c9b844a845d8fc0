// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.MemplanException;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Predicts ONNX Runtime 1.30's CPU arena figure for a graph ORT runs as given (optimization level
 * none, or a graph ORT saved after optimizing), by replaying what {@code ort-arena.py} makes ORT do:
 * two runs of the request, memory pattern on, default arena, one intra-op thread, the first run's
 * outputs held. Order, aliasing and freelist decisions are made once here, with everything else that
 * does not depend on a request ({@link ReplaySequence}); {@link #predict} replays one request's
 * sizes through the arena.
 */
public final class OrtArenaPredictor {
    private final Graph graph;
    private final OrtReusePlan plan;
    private final KernelWorkspaces.Rule[] workspaces;
    /** The two runs' events and the sizes fixed for every request, decided once. */
    private final ReplaySequence sequence;
    private final int workspaceEvents;
    private final Set<String> unmodelledOps;
    /** The op types without a rule among the nodes every request runs: the graph's own, If branches aside. */
    private final Set<String> unmodelledOutsideBranches;
    /** Per node id: the If's branch replay (OrtSubgraphReplay), else null; null when the graph has none. */
    private final OrtSubgraphReplay[] subgraphs;
    /**
     * The combinations of open If branches a request can meet (bits by choice): each is replayed and
     * the largest answers; {0} without open Ifs; null when there are too many to replay.
     */
    private final long[] combinations;
    /** How many If conditions are open, for the refusal when there are too many combinations. */
    private final int openConditions;
    /** Per buffer slot: whether an If's branch allocates it (the If's output), not the graph's own event. */
    private final boolean[] ifOutput;
    /** Per node id of an If with a replay: per output, the buffer slot it allocates, or -1. */
    private final int[][] ifOutputSlots;
    /** The one answer of a graph without symbols from an empty arena, replayed once at compile time; else null. */
    private final OrtArenaPrediction staticPrediction;
    /** A graph without symbols: its answer from the last other start asked for, else null. */
    private volatile StartAnswer startAnswer;
    /** Each thread's replay arrays, reused from request to request. */
    private final ThreadLocal<Scratch> scratches = ThreadLocal.withInitial(() -> new Scratch(this));

    private OrtArenaPredictor(Graph graph, OrtReusePlan plan, KernelWorkspaces.Rule[] workspaces, int[] outputsAfter,
                              Set<String> unmodelledOps, Set<String> unmodelledOutsideBranches,
                              OrtSubgraphReplay[] subgraphs, OrtSubgraphReplay.Choices choices) {
        this.unmodelledOutsideBranches = Set.copyOf(unmodelledOutsideBranches);
        this.graph = graph;
        this.subgraphs = subgraphs;
        this.combinations = choices == null ? new long[] {0} : choices.combinations();
        this.openConditions = choices == null ? 0 : choices.count();
        this.plan = plan;
        this.workspaces = workspaces;
        this.sequence = ReplaySequence.of(graph, plan, workspaces, outputsAfter);
        this.ifOutputSlots = subgraphs == null ? null : OrtIfOutputs.slots(graph, sequence, subgraphs);
        this.ifOutput = subgraphs == null ? null : OrtIfOutputs.allocatedByBranches(sequence, ifOutputSlots);
        this.workspaceEvents = (int) Arrays.stream(sequence.run1)
                .filter(e -> ReplaySequence.kind(e) == ReplaySequence.WORKSPACE).count();
        this.unmodelledOps = new OrtArenaPrediction.SortedOps(unmodelledOps); // shared by every answer, not copied
        boolean fixed = graph.symbols().isEmpty() && (subgraphs == null
                || Arrays.stream(subgraphs).allMatch(r -> r == null || r.isStatic()));
        this.staticPrediction = fixed ? largest(Map.of(), OrtArenaStart.EMPTY, new Scratch(this)) : null; // a branch may size at run time
    }

    /**
     * Compiles the predictor for {@code graph}.
     *
     * @param graph      the graph ORT runs, with its op types and symbolic shapes
     * @param attributes the node attributes the workspace rules read
     * @return the predictor
     */
    static OrtArenaPredictor of(Graph graph, NodeAttributes attributes) {
        Objects.requireNonNull(graph, "graph");
        SameSizeKey[] keys = new SameSizeKey[graph.valueCount()];
        for (int v = 0; v < keys.length; v++) {
            keys[v] = SameSizeKey.of(graph.value(v));
        }
        return of(graph, attributes, keys, OrtExecutionOrder.of(graph), null, null, KernelProbes.Measured.NONE);
    }

    /**
     * Compiles the predictor for a graph ORT saved ({@code SessionOptions.setOptimizedModelFilePath}):
     * ORT's planner view of shapes from the saved {@code value_info} ({@link OrtPlannerShapes}), the
     * attributes from the saved nodes, and ORT's execution order. An optimized graph (level basic or
     * above) is saved in the order ORT runs it; at level none ORT saves the nodes as the file has
     * them and runs them in its reverse-DFS order ({@link OrtExecutionOrder#of}): taking the saved
     * order there predicts SqueezeNet at 3.3x ORT's figure, measured.
     *
     * @param graph     the saved graph as memplan's importer imported it
     * @param saved     the saved model, as ORT wrote it
     * @param optimized whether ORT saved it at level basic or above
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(Graph graph, ModelProto saved, boolean optimized) {
        return ofSaved(graph, saved, optimized, KernelProbes.Measured.NONE);
    }

    /**
     * As {@link #ofSaved(Graph, ModelProto, boolean)}, with the workspaces measured in ORT for
     * kernels without a rule ({@link KernelProbes}).
     *
     * @param measured the measured rules, by node
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(Graph graph, ModelProto saved, boolean optimized, KernelProbes.Measured measured) {
        return ofSaved(graph, saved, optimized, measured, graph);
    }

    /**
     * As {@link #ofSaved(Graph, ModelProto, boolean, KernelProbes.Measured)} for a graph imported
     * with input dims given in place of the file's: ORT's planner compares the names ORT saved, so
     * a value without a saved shape is keyed by its shape in {@code plannerNames}, the same saved
     * graph imported as ORT names it ({@link OrtPlannerShapes#of(ModelProto, Graph, Graph)}).
     *
     * @param plannerNames the saved graph imported with its own input dims
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(Graph graph, ModelProto saved, boolean optimized, KernelProbes.Measured measured,
                                     Graph plannerNames) {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(saved, "saved");
        return of(graph, OnnxNodeAttributes.of(saved, graph), OrtPlannerShapes.of(saved, graph, plannerNames),
                optimized ? OrtExecutionOrder.asSaved(graph) : OrtExecutionOrder.of(graph), null, null, measured);
    }

    /**
     * {@link #ofSaved(Graph, ModelProto, boolean)} with ORT's If nodes replayed: each If runs its
     * branch through the arena inside its compute ({@link OrtSubgraphReplay}), the branch
     * {@code imported} keeps (the taken one when the condition is decided, else both: the larger
     * prediction answers).
     *
     * @param imported  the saved graph as memplan's importer imported it, with its If bodies
     * @param saved     the saved model, as ORT wrote it
     * @param original  the model file ORT loaded (a branch ORT did not change runs in another order
     *                  than it is saved in), or null when unknown
     * @param optimized whether ORT saved it at level basic or above
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(ImportedGraph imported, ModelProto saved, ModelProto original,
                                     boolean optimized) {
        return ofSaved(imported, saved, original, optimized, KernelProbes.Measured.NONE);
    }

    /**
     * As {@link #ofSaved(ImportedGraph, ModelProto, ModelProto, boolean)}, with the workspaces
     * measured in ORT for main-graph kernels without a rule ({@link KernelProbes}).
     *
     * @param measured the measured rules, by node
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(ImportedGraph imported, ModelProto saved, ModelProto original,
                                     boolean optimized, KernelProbes.Measured measured) {
        Objects.requireNonNull(imported, "imported");
        Objects.requireNonNull(saved, "saved");
        Graph graph = imported.graph();
        OrtSubgraphReplay.Choices open = new OrtSubgraphReplay.Choices();
        OrtSubgraphReplay[] subgraphs = OrtSubgraphReplay.of(imported, saved.getGraph(),
                original == null ? null : original.getGraph(), saved,
                OrtPrepackedWeights.of(saved.getGraph()), open, measured);
        return of(graph, OnnxNodeAttributes.of(saved, graph), OrtPlannerShapes.of(saved, graph),
                optimized ? OrtExecutionOrder.asSaved(graph) : OrtExecutionOrder.of(graph), subgraphs, open,
                measured);
    }

    private static OrtArenaPredictor of(Graph graph, NodeAttributes attributes, SameSizeKey[] keys, int[] order,
                                        OrtSubgraphReplay[] subgraphs, OrtSubgraphReplay.Choices choices,
                                        KernelProbes.Measured measured) {
        Objects.requireNonNull(attributes, "attributes");
        KernelWorkspaces.Rule[] rules = new KernelWorkspaces.Rule[graph.nodeCount()];
        int[] outputsAfter = new int[graph.nodeCount()];
        Set<String> unmodelled = new TreeSet<>();
        Set<String> outsideBranches = new TreeSet<>();
        for (Node node : graph.nodes()) {
            if (subgraphs != null && subgraphs[node.id()] != null) {
                rules[node.id()] = OrtSubgraphReplay.MARKER; // one event, where the branch runs
                unmodelled.addAll(subgraphs[node.id()].unmodelledOps());
                continue;
            }
            KernelWorkspaces.Rule rule = measured.rule(graph, node);
            if (rule != null) {
                rules[node.id()] = rule; // after its outputs, as measured
                continue;
            }
            rules[node.id()] = KernelWorkspaces.of(graph, node, attributes);
            outputsAfter[node.id()] = KernelWorkspaces.outputsAfter(graph, node, attributes);
            if (!KernelWorkspaces.isModelled(graph, node, attributes)) {
                unmodelled.add(KernelWorkspaces.opName(node));
                outsideBranches.add(KernelWorkspaces.opName(node));
            }
        }
        return new OrtArenaPredictor(graph, OrtReusePlan.of(graph, keys, order), rules, outputsAfter, unmodelled,
                outsideBranches, subgraphs, choices);
    }

    /** {@return the op types of the graph and its If branches whose kernel has no workspace rule, sorted} */
    Set<String> unmodelledOps() {
        return unmodelledOps;
    }

    /**
     * {@return the op types without a workspace rule among the graph's own nodes, which every request
     * runs; one only in an If branch matters to the requests that take it}
     */
    Set<String> unmodelledOutsideBranches() {
        return unmodelledOutsideBranches;
    }

    /**
     * Predicts the arena figure for one request.
     *
     * @param bindings the request's symbol values
     * @return the prediction
     * @throws dev.memplan.InvalidSizeException naming the value whose size the bindings leave unknown
     */
    public OrtArenaPrediction predict(Map<String, Long> bindings) {
        return predict(bindings, OrtArenaStart.EMPTY);
    }

    /**
     * Predicts the arena figure for one request served by a session whose arena starts at
     * {@code start} (what its creation left, {@link OrtArenaStart}).
     *
     * @param bindings the request's symbol values
     * @param start    the arena's state before the request
     * @return the prediction
     * @throws dev.memplan.InvalidSizeException naming the value whose size the bindings leave unknown
     */
    public OrtArenaPrediction predict(Map<String, Long> bindings, OrtArenaStart start) {
        Objects.requireNonNull(bindings, "bindings");
        Objects.requireNonNull(start, "start");
        if (staticPrediction == null) {
            return replay(bindings, start);
        }
        if (start.equals(OrtArenaStart.EMPTY)) {
            return staticPrediction;
        }
        StartAnswer known = startAnswer;
        if (known == null || !known.start().equals(start)) {
            known = new StartAnswer(start, replay(Map.of(), start));
            startAnswer = known;
        }
        return known.answer();
    }

    /** A static graph's answer from one start. */
    private record StartAnswer(OrtArenaStart start, OrtArenaPrediction answer) {
    }

    /**
     * Replays two runs of one request through the arena (what {@link #predict} caches for a static
     * graph); with If branches left open, every combination, and answers the largest figure.
     */
    OrtArenaPrediction replay(Map<String, Long> bindings) {
        return replay(bindings, OrtArenaStart.EMPTY);
    }

    /** {@link #replay(Map)} from {@code start}. */
    OrtArenaPrediction replay(Map<String, Long> bindings, OrtArenaStart start) {
        Scratch scratch = scratches.get();
        if (scratch.busy) { // a replay inside a replay on this thread: its own arrays
            scratch = new Scratch(this);
        }
        scratch.busy = true;
        try {
            return largest(bindings, start, scratch);
        } finally {
            scratch.busy = false;
        }
    }

    /**
     * One replay per combination of the open If branches (one without), the largest figure.
     *
     * @throws MemplanException when the request leaves more combinations open than are replayed
     */
    private OrtArenaPrediction largest(Map<String, Long> bindings, OrtArenaStart start, Scratch scratch) {
        if (combinations == null) {
            throw new MemplanException("the ort runtime replays at most " + OrtSubgraphReplay.Choices.MAX_COMBINATIONS
                    + " combinations of If branches a request leaves open, this request leaves " + openConditions
                    + " If conditions open with more; give the inputs their conditions read as values (--value NAME=V)"
                    + " so the branches are decided");
        }
        OrtArenaPrediction largest = replay(bindings, start, scratch, combinations[0]);
        long counted = largest.countedBytes();
        for (int k = 1; k < combinations.length; k++) {
            OrtArenaPrediction p = replay(bindings, start, scratch, combinations[k]);
            counted = Math.max(counted, p.countedBytes());
            if (p.activationBytes() > largest.activationBytes()) {
                largest = p;
            }
        }
        return largest.withCountedAtLeast(counted);
    }

    private OrtArenaPrediction replay(Map<String, Long> bindings, OrtArenaStart start, Scratch s, long branchChoices) {
        s.start(bindings, start);
        BfcArena arena = s.arena;
        MemoryPattern pattern = s.pattern;
        long[] slotBytes = s.slotBytes;
        int[] chunk = s.chunk;
        long[][] taken = s.taken;
        long outputsHeld = 0;
        int workspace = 0;
        int heldCount = 0; // a HOLD event's chunks (in s.held), until its node's WORKSPACE event
        OrtSubgraphReplay.Execution[] branches = null;
        OrtIfOutputs outputs = null;
        if (subgraphs != null) { // a graph with If nodes: their branches' executions for this request
            branches = new OrtSubgraphReplay.Execution[subgraphs.length];
            for (int k = 0; k < branches.length; k++) {
                branches[k] = subgraphs[k] == null ? null : subgraphs[k].start(Map.copyOf(bindings), branchChoices);
            }
            outputs = new OrtIfOutputs(sequence, plan, arena, slot -> bytes(s, slot), slotBytes, chunk, pattern);
        }
        for (int event : sequence.run1) { // run 1: tensor by tensor, traced into the pattern
            int operand = ReplaySequence.operand(event);
            if (ifOutput != null && ReplaySequence.kind(event) <= ReplaySequence.ALLOC_TRACED && ifOutput[operand]) {
                continue; // allocated when the If's branch says (OrtIfOutputs)
            }
            switch (ReplaySequence.kind(event)) {
                case ReplaySequence.ALLOC_OUTPUT -> {
                    long bytes = bytes(s, operand);
                    slotBytes[operand] = bytes;
                    chunk[operand] = arena.alloc(bytes);
                    outputsHeld += BfcArena.align(bytes);
                }
                case ReplaySequence.ALLOC_TRACED -> {
                    long bytes = bytes(s, operand);
                    chunk[operand] = arena.alloc(bytes);
                    if (bytes > 0) {
                        pattern.allocate(operand, BfcArena.align(bytes));
                    }
                }
                case ReplaySequence.HOLD -> {
                    long[] sizes = workspaces(s, operand);
                    taken[workspace] = sizes;
                    heldCount = Math.min(sequence.held[operand], sizes.length);
                    hold(arena, sizes, heldCount, s);
                }
                case ReplaySequence.WORKSPACE -> {
                    if (branches != null && branches[operand] != null) { // an If: its branch runs here
                        workspace++;
                        branches[operand].run(arena, outputs.of(ifOutputSlots[operand]));
                        continue;
                    }
                    long[] sizes = heldCount > 0 ? taken[workspace] : workspaces(s, operand);
                    taken[workspace++] = sizes;
                    scratch(arena, sizes, s, heldCount);
                    heldCount = 0;
                }
                default -> {
                    arena.free(chunk[operand]);
                    pattern.free(operand);
                }
            }
        }
        long firstRunPeak = arena.maxInUse();
        long firstRunCounted = arena.maxCounted();
        int block = pattern.size() > 0 ? arena.alloc(pattern.size()) : -1;
        workspace = 0;
        if (outputs != null) {
            outputsHeld += outputs.secondRun();
        }
        for (int event : sequence.run2) { // run 2: the block, the outputs beside it, run 1's outputs still held
            int operand = ReplaySequence.operand(event);
            switch (ReplaySequence.kind(event)) {
                case ReplaySequence.ALLOC_OUTPUT -> {
                    if (ifOutput == null || !ifOutput[operand]) {
                        arena.alloc(slotBytes[operand]);
                    }
                }
                case ReplaySequence.HOLD -> {
                    heldCount = Math.min(sequence.held[operand], taken[workspace].length);
                    hold(arena, taken[workspace], heldCount, s);
                }
                default -> {
                    if (branches != null && branches[operand] != null) {
                        workspace++;
                        branches[operand].run(arena, outputs.of(ifOutputSlots[operand]));
                    } else {
                        scratch(arena, taken[workspace++], s, heldCount);
                        heldCount = 0;
                    }
                }
            }
        }
        arena.free(block);
        return new OrtArenaPrediction(arena.maxInUse(), firstRunPeak, pattern.size(), outputsHeld,
                arena.maxInUse() - arena.requestedAtMax(), arena.reserved(), firstRunCounted, unmodelledOps);
    }

    /**
     * The bytes of buffer {@code slot}: its size class, evaluated once per request on first use, as
     * a product of the request's symbols where the class was compiled to one, else from its shape
     * (which also names what is wrong: an unbound or negative symbol, an overflow).
     */
    private long bytes(Scratch s, int slot) {
        int c = sequence.slotClass[slot];
        long bytes = s.classBytes[c];
        if (bytes == ReplaySequence.DYNAMIC) {
            bytes = compiledBytes(s, c);
            if (bytes < 0) {
                bytes = s.shapes().bytes(sequence.classValue[c]);
            }
            s.classBytes[c] = bytes;
        }
        return bytes;
    }

    /** Size class {@code c}'s compiled product for this request, or -1 where its shape must decide. */
    private long compiledBytes(Scratch s, int c) {
        int[] symbols = sequence.classSymbols[c];
        if (symbols == null) {
            return -1;
        }
        long bytes = sequence.classFactor[c];
        for (int i : symbols) {
            long v = s.symbolValues[i];
            if (v < 0) { // unbound or negative: the shape's evaluation says which
                return -1;
            }
            long product = bytes * v;
            if (Math.multiplyHigh(bytes, v) != 0 || product < 0) { // past a long: the shape's evaluation decides
                return -1;
            }
            bytes = product;
        }
        return bytes;
    }

    /** Node {@code node}'s workspaces for this request. */
    private long[] workspaces(Scratch s, int node) {
        return sequence.workspaces(node, workspaces, s.shapes());
    }

    /** Takes the first {@code count} workspaces and keeps them, their chunks in {@code s.held}. */
    private static void hold(BfcArena arena, long[] sizes, int count, Scratch s) {
        hold(arena, sizes, count, s.chunks(count));
    }

    /**
     * A kernel's first {@code count} workspaces, taken before its later outputs (a {@code HOLD}
     * event) and kept in {@code chunks} until its workspace event (an If branch's kernels use it too).
     */
    static void hold(BfcArena arena, long[] sizes, int count, int[] chunks) {
        for (int i = 0; i < count; i++) {
            chunks[i] = arena.alloc(sizes[i]);
        }
    }

    /**
     * A kernel's workspaces: allocated in order during its compute (the first {@code heldCount}
     * already, their chunks in {@code s.held}), freed at its end (in reverse); the last one is taken
     * and given back at once. A measured kernel's list may give blocks back earlier ({@link BlockEvents}).
     */
    private static void scratch(BfcArena arena, long[] sizes, Scratch s, int heldCount) {
        scratch(arena, sizes, s.chunks(Math.max(sizes.length - 1, heldCount)), heldCount);
    }

    /**
     * {@link #scratch(BfcArena, long[], Scratch, int)} on caller's chunk ids: {@code chunks} holds the
     * first {@code heldCount} workspaces' chunks and has room for {@code sizes.length - 1} (an If
     * branch's kernels, replayed outside this predictor's scratch, use it too).
     */
    static void scratch(BfcArena arena, long[] sizes, int[] chunks, int heldCount) {
        if (BlockEvents.givesBack(sizes)) { // a measured kernel, as it took and gave back its blocks
            if (heldCount > 0) {
                throw new IllegalStateException("a kernel that gives blocks back mid-compute held some across"
                        + " its outputs");
            }
            BlockEvents.replay(arena, sizes, chunks);
            return;
        }
        int last = sizes.length - 1;
        if (last < heldCount) { // nothing left to take
            for (int i = heldCount - 1; i >= 0; i--) {
                arena.free(chunks[i]);
            }
            return;
        }
        if (last == 0) { // the usual case, without chunk ids
            arena.allocAndFree(sizes[0]);
            return;
        }
        for (int i = heldCount; i < last; i++) {
            chunks[i] = arena.alloc(sizes[i]);
        }
        arena.allocAndFree(sizes[last]);
        for (int i = last - 1; i >= 0; i--) {
            arena.free(chunks[i]);
        }
    }

    /**
     * One thread's arrays for replaying this predictor's requests, kept between requests so a
     * request allocates nothing but its answer: each replay resets them to a new replay's state.
     */
    private static final class Scratch {
        private final Graph graph;
        private final ReplaySequence sequence;
        final BfcArena arena = new BfcArena();
        final MemoryPattern pattern;
        final long[] classBytes;
        final long[] slotBytes;
        final int[] chunk;
        final long[][] taken;
        final long[] symbolValues;
        /** A kernel's workspace chunks while it computes (the first ones held across its later outputs). */
        int[] held = new int[4];
        private BoundShapes shapes;
        private Map<String, Long> bindings;
        boolean busy;

        Scratch(OrtArenaPredictor predictor) {
            graph = predictor.graph;
            sequence = predictor.sequence;
            pattern = new MemoryPattern(sequence.buffers());
            classBytes = new long[sequence.classBytes.length];
            slotBytes = new long[sequence.buffers()];
            chunk = new int[sequence.buffers()];
            taken = new long[predictor.workspaceEvents][];
            symbolValues = new long[sequence.symbols.length];
        }

        /** Readies the arrays for one request: the arena at its start, a new pattern, its symbols resolved once. */
        void start(Map<String, Long> request, OrtArenaStart arenaStart) {
            arena.reset(arenaStart);
            pattern.reset();
            System.arraycopy(sequence.classBytes, 0, classBytes, 0, classBytes.length); // fixed sizes filled in
            bindings = request;
            if (shapes != null) {
                shapes.rebind(request);
            }
            String[] symbols = sequence.symbols;
            for (int i = 0; i < symbols.length; i++) {
                Long v = request.get(symbols[i]);
                symbolValues[i] = v == null ? -1 : v;
            }
        }

        /** {@return this request's shapes, made on first use: many requests never need them} */
        BoundShapes shapes() {
            if (shapes == null) {
                shapes = new BoundShapes(graph, bindings);
            }
            return shapes;
        }

        /** {@return {@link #held}, grown to at least {@code n} entries, its first entries kept} */
        int[] chunks(int n) {
            if (held.length < n) {
                held = Arrays.copyOf(held, Math.max(n, 2 * held.length));
            }
            return held;
        }
    }

    /** {@return how many values ORT's planner puts in an input's buffer in place} */
    int sharedInPlace() {
        return plan.sharedInPlace();
    }

    /** {@return how many values ORT's planner puts in a freed buffer of the same shape} */
    int sharedFromFreelist() {
        return plan.sharedFromFreelist();
    }
}
