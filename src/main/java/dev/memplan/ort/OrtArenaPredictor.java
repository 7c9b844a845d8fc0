// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Graph;
import dev.memplan.Node;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.Collections;
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
    /** Per node id: the If's branch replay (OrtSubgraphReplay), else null; null when the graph has none. */
    private final OrtSubgraphReplay[] subgraphs;
    /** How many Ifs leave their branch open: each combination is replayed and the largest answers. */
    private final int choices;
    /** Per buffer slot: whether an If's branch allocates it (the If's output), not the graph's own event. */
    private final boolean[] ifOutput;
    /** Per node id of an If with a replay: per output, the buffer slot it allocates, or -1. */
    private final int[][] ifOutputSlots;
    /** The one answer of a graph without symbols, replayed once at compile time; else null. */
    private final OrtArenaPrediction staticPrediction;

    private OrtArenaPredictor(Graph graph, OrtReusePlan plan, KernelWorkspaces.Rule[] workspaces,
                              Set<String> unmodelledOps, OrtSubgraphReplay[] subgraphs, int choices) {
        this.graph = graph;
        this.subgraphs = subgraphs;
        this.choices = choices;
        this.plan = plan;
        this.workspaces = workspaces;
        this.sequence = ReplaySequence.of(graph, plan, workspaces);
        this.ifOutputSlots = subgraphs == null ? null : OrtIfOutputs.slots(graph, sequence, subgraphs);
        this.ifOutput = subgraphs == null ? null : OrtIfOutputs.allocatedByBranches(sequence, ifOutputSlots);
        this.workspaceEvents = (int) java.util.Arrays.stream(sequence.run1)
                .filter(e -> ReplaySequence.kind(e) == ReplaySequence.WORKSPACE).count();
        this.unmodelledOps = Collections.unmodifiableSortedSet(new TreeSet<>(unmodelledOps));
        this.staticPrediction = graph.symbols().isEmpty() ? replay(Map.of()) : null;
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
        return of(graph, attributes, keys, OrtExecutionOrder.of(graph), null, 0);
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
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(saved, "saved");
        return of(graph, OnnxNodeAttributes.of(saved, graph), OrtPlannerShapes.of(saved, graph),
                optimized ? OrtExecutionOrder.asSaved(graph) : OrtExecutionOrder.of(graph), null, 0);
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
     * @throws dev.memplan.MemplanException when more than {@value #MAX_OPEN_IFS} Ifs leave their branch open
     */
    static OrtArenaPredictor ofSaved(dev.memplan.onnx.ImportedGraph imported, ModelProto saved, ModelProto original,
                                     boolean optimized) {
        Objects.requireNonNull(imported, "imported");
        Objects.requireNonNull(saved, "saved");
        Graph graph = imported.graph();
        OrtSubgraphReplay.Choices open = new OrtSubgraphReplay.Choices();
        OrtSubgraphReplay[] subgraphs = OrtSubgraphReplay.of(imported, saved.getGraph(),
                original == null ? null : original.getGraph(), saved,
                OrtPrepackedWeights.of(saved.getGraph()), open);
        if (open.count() > MAX_OPEN_IFS) {
            throw new dev.memplan.MemplanException("the ort runtime bounds at most " + MAX_OPEN_IFS + " If nodes whose"
                    + " branch the request leaves open, this graph has " + open.count() + "; give the inputs their"
                    + " conditions read as values (--value NAME=V) so the branches are decided");
        }
        return of(graph, OnnxNodeAttributes.of(saved, graph), OrtPlannerShapes.of(saved, graph),
                optimized ? OrtExecutionOrder.asSaved(graph) : OrtExecutionOrder.of(graph), subgraphs, open.count());
    }

    /** Open If branches are bounded by replaying every combination: 2^this at most. */
    static final int MAX_OPEN_IFS = 8;

    private static OrtArenaPredictor of(Graph graph, NodeAttributes attributes, SameSizeKey[] keys, int[] order,
                                        OrtSubgraphReplay[] subgraphs, int choices) {
        Objects.requireNonNull(attributes, "attributes");
        KernelWorkspaces.Rule[] rules = new KernelWorkspaces.Rule[graph.nodeCount()];
        Set<String> unmodelled = new TreeSet<>();
        for (Node node : graph.nodes()) {
            if (subgraphs != null && subgraphs[node.id()] != null) {
                rules[node.id()] = OrtSubgraphReplay.MARKER; // one event, where the branch runs
                continue;
            }
            rules[node.id()] = KernelWorkspaces.of(graph, node, attributes);
            if (!KernelWorkspaces.isModelled(graph, node, attributes)) {
                unmodelled.add(node.domain() == null || node.domain().isEmpty() ? node.opType()
                        : node.domain() + "." + node.opType());
            }
        }
        return new OrtArenaPredictor(graph, OrtReusePlan.of(graph, keys, order), rules, unmodelled, subgraphs, choices);
    }

    /**
     * Predicts the arena figure for one request.
     *
     * @param bindings the request's symbol values
     * @return the prediction
     * @throws dev.memplan.InvalidSizeException naming the value whose size the bindings leave unknown
     */
    public OrtArenaPrediction predict(Map<String, Long> bindings) {
        Objects.requireNonNull(bindings, "bindings");
        return staticPrediction != null ? staticPrediction : replay(bindings);
    }

    /**
     * Replays two runs of one request through the arena (what {@link #predict} caches for a static
     * graph); with If branches left open, every combination, and answers the largest figure.
     */
    OrtArenaPrediction replay(Map<String, Long> bindings) {
        OrtArenaPrediction largest = replay(bindings, 0);
        for (long c = 1; c < 1L << choices; c++) {
            OrtArenaPrediction p = replay(bindings, c);
            if (p.activationBytes() > largest.activationBytes()) {
                largest = p;
            }
        }
        return largest;
    }

    private OrtArenaPrediction replay(Map<String, Long> bindings, long branchChoices) {
        BoundShapes shapes = new BoundShapes(graph, Map.copyOf(bindings));
        OrtSubgraphReplay.Execution[] branches = subgraphs == null ? null : new OrtSubgraphReplay.Execution[subgraphs.length];
        if (branches != null) {
            for (int k = 0; k < branches.length; k++) {
                branches[k] = subgraphs[k] == null ? null : subgraphs[k].start(Map.copyOf(bindings), branchChoices);
            }
        }
        long[] classBytes = sequence.classBytes.clone(); // fixed sizes filled in, the others on first use
        long[] slotBytes = new long[sequence.buffers()];
        int[] chunk = new int[sequence.buffers()];
        long[][] taken = new long[workspaceEvents][];
        BfcArena arena = new BfcArena();
        MemoryPattern pattern = new MemoryPattern(sequence.buffers());
        long outputsHeld = 0;
        int workspace = 0;
        OrtIfOutputs outputs = branches == null ? null
                : new OrtIfOutputs(sequence, plan, arena, shapes, classBytes, slotBytes, chunk, pattern);
        for (int event : sequence.run1) { // run 1: tensor by tensor, traced into the pattern
            int operand = ReplaySequence.operand(event);
            if (ifOutput != null && ReplaySequence.kind(event) <= ReplaySequence.ALLOC_TRACED && ifOutput[operand]) {
                continue; // allocated when the If's branch says (OrtIfOutputs)
            }
            switch (ReplaySequence.kind(event)) {
                case ReplaySequence.ALLOC_OUTPUT -> {
                    long bytes = bytes(shapes, classBytes, operand);
                    slotBytes[operand] = bytes;
                    chunk[operand] = arena.alloc(bytes);
                    outputsHeld += BfcArena.align(bytes);
                }
                case ReplaySequence.ALLOC_TRACED -> {
                    long bytes = bytes(shapes, classBytes, operand);
                    chunk[operand] = arena.alloc(bytes);
                    if (bytes > 0) {
                        pattern.allocate(operand, BfcArena.align(bytes));
                    }
                }
                case ReplaySequence.WORKSPACE -> {
                    if (branches != null && branches[operand] != null) { // an If: its branch runs here
                        workspace++;
                        branches[operand].run(arena, outputs.of(ifOutputSlots[operand]));
                        continue;
                    }
                    long[] sizes = sequence.fixedWorkspaces[operand];
                    if (sizes == null) {
                        sizes = workspaces[operand].bytes(shapes);
                    }
                    taken[workspace++] = sizes;
                    scratch(arena, sizes);
                }
                default -> {
                    arena.free(chunk[operand]);
                    pattern.free(operand);
                }
            }
        }
        long firstRunPeak = arena.maxInUse();
        int block = pattern.size() > 0 ? arena.alloc(pattern.size()) : -1;
        workspace = 0;
        if (outputs != null) {
            outputsHeld += outputs.secondRun();
        }
        for (int event : sequence.run2) { // run 2: the block, the outputs beside it, run 1's outputs still held
            int operand = ReplaySequence.operand(event);
            if (ReplaySequence.kind(event) == ReplaySequence.ALLOC_OUTPUT) {
                if (ifOutput == null || !ifOutput[operand]) {
                    arena.alloc(slotBytes[operand]);
                }
            } else if (branches != null && branches[operand] != null) {
                workspace++;
                branches[operand].run(arena, outputs.of(ifOutputSlots[operand]));
            } else {
                scratch(arena, taken[workspace++]);
            }
        }
        arena.free(block);
        return new OrtArenaPrediction(arena.maxInUse(), firstRunPeak, pattern.size(), outputsHeld,
                arena.maxInUse() - arena.requestedAtMax(), arena.reserved(), unmodelledOps);
    }

    /** The bytes of buffer {@code slot}: its size class, evaluated once per request on first use. */
    private long bytes(BoundShapes shapes, long[] classBytes, int slot) {
        int c = sequence.slotClass[slot];
        long bytes = classBytes[c];
        if (bytes == ReplaySequence.DYNAMIC) {
            bytes = shapes.bytes(sequence.classValue[c]);
            classBytes[c] = bytes;
        }
        return bytes;
    }

    /**
     * A kernel's workspaces: allocated in order during its compute, freed at its end (in reverse);
     * the last one is taken and given back at once.
     */
    static void scratch(BfcArena arena, long[] sizes) {
        int last = sizes.length - 1;
        if (last < 0) {
            return;
        }
        if (last == 0) { // the usual case, without an array of chunk ids
            arena.allocAndFree(sizes[0]);
            return;
        }
        int[] chunks = new int[last];
        for (int i = 0; i < last; i++) {
            chunks[i] = arena.alloc(sizes[i]);
        }
        arena.allocAndFree(sizes[last]);
        for (int i = last - 1; i >= 0; i--) {
            arena.free(chunks[i]);
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
