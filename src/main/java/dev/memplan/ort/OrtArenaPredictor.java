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
 * outputs held. Order, aliasing and freelist decisions are made once here; {@link #predict} replays
 * one request's sizes through the arena.
 */
public final class OrtArenaPredictor {
    private final Graph graph;
    private final OrtReusePlan plan;
    private final int[] order;
    private final KernelWorkspaces.Rule[] workspaces;
    private final Set<String> unmodelledOps;
    /** The one answer of a graph without symbols, replayed once at compile time; else null. */
    private final OrtArenaPrediction staticPrediction;

    private OrtArenaPredictor(Graph graph, OrtReusePlan plan, KernelWorkspaces.Rule[] workspaces,
                              Set<String> unmodelledOps) {
        this.graph = graph;
        this.plan = plan;
        this.order = plan.order();
        this.workspaces = workspaces;
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
        return of(graph, attributes, keys, OrtExecutionOrder.of(graph));
    }

    /**
     * Compiles the predictor for a graph ORT saved after optimizing (its default level, all):
     * ORT's planner view of shapes from the saved {@code value_info} ({@link OrtPlannerShapes}),
     * ORT's execution order as saved, the attributes from the saved nodes.
     *
     * @param graph the saved graph as memplan's importer imported it
     * @param saved the saved model, as ORT wrote it
     * @return the predictor
     */
    static OrtArenaPredictor ofSaved(Graph graph, ModelProto saved) {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(saved, "saved");
        return of(graph, OnnxNodeAttributes.of(saved, graph), OrtPlannerShapes.of(saved, graph),
                OrtExecutionOrder.asSaved(graph));
    }

    private static OrtArenaPredictor of(Graph graph, NodeAttributes attributes, SameSizeKey[] keys, int[] order) {
        Objects.requireNonNull(attributes, "attributes");
        KernelWorkspaces.Rule[] rules = new KernelWorkspaces.Rule[graph.nodeCount()];
        Set<String> unmodelled = new TreeSet<>();
        for (Node node : graph.nodes()) {
            rules[node.id()] = KernelWorkspaces.of(graph, node, attributes);
            if (!KernelWorkspaces.isModelled(graph, node, attributes)) {
                unmodelled.add(node.domain() == null || node.domain().isEmpty() ? node.opType()
                        : node.domain() + "." + node.opType());
            }
        }
        return new OrtArenaPredictor(graph, OrtReusePlan.of(graph, keys, order), rules, unmodelled);
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

    /** Replays two runs of one request through the arena (what {@link #predict} caches for a static graph). */
    OrtArenaPrediction replay(Map<String, Long> bindings) {
        BoundShapes shapes = new BoundShapes(graph, Map.copyOf(bindings));
        BfcArena arena = new BfcArena();
        MemoryPattern pattern = new MemoryPattern(graph.valueCount());
        long[] address = new long[graph.valueCount()];
        long outputsHeld = 0;
        for (int k : order) { // run 1: tensor by tensor, traced into the pattern
            for (int o : plan.allocatesAt(k)) {
                long bytes = shapes.bytes(o);
                address[o] = arena.alloc(bytes);
                if (plan.isGraphOutput(o)) {
                    outputsHeld += BfcArena.align(bytes);
                } else if (bytes > 0) {
                    pattern.allocate(o, BfcArena.align(bytes));
                }
            }
            scratch(arena, workspaces[k].bytes(shapes));
            for (int b : plan.freesAfter(k)) {
                arena.free(address[b]);
                pattern.free(b);
            }
        }
        long firstRunPeak = arena.maxInUse();
        long block = pattern.size() > 0 ? arena.alloc(pattern.size()) : -1;
        for (int k : order) { // run 2: the block, the outputs beside it, run 1's outputs still held
            for (int o : plan.allocatesAt(k)) {
                if (plan.isGraphOutput(o)) {
                    arena.alloc(shapes.bytes(o));
                }
            }
            scratch(arena, workspaces[k].bytes(shapes));
        }
        arena.free(block);
        return new OrtArenaPrediction(arena.maxInUse(), firstRunPeak, pattern.size(), outputsHeld,
                arena.maxInUse() - arena.requestedAtMax(), arena.reserved(), unmodelledOps);
    }

    /** A kernel's workspaces: allocated in order during its compute, freed at its end. */
    private static void scratch(BfcArena arena, long[] sizes) {
        long[] taken = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            taken[i] = arena.alloc(sizes[i]);
        }
        for (int i = taken.length - 1; i >= 0; i--) {
            arena.free(taken[i]);
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
