// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What ONNX Runtime does with the arena while an If node computes: it runs the taken branch through
 * the branch's own session state ({@code IfImpl}, {@code utils::ExecuteSubgraph}): the branch's own
 * allocation planner (decided once, like the main graph's: {@link OrtReusePlan} on the branch with
 * ORT's shapes from the branch's saved {@code value_info}), its kernels' workspaces, in the same
 * arena, nested inside the If's compute. The If's outputs are the outer graph's buffers (the branch
 * writes into them), so the branch's own graph outputs allocate nothing here.
 *
 * <p>The branch has a memory pattern of its own (its second execution takes one block of its first
 * execution's traced peak, held while the branch runs) unless one of the outer values it reads is
 * an initializer that ORT pre-packed and dropped: ORT then feeds the branch an empty value, and an
 * execution frame with a non-tensor feed traces no pattern ({@code ExecutionFrame},
 * {@code SessionState::PrepackConstantInitializedTensors}; {@link OrtPrepackedWeights}). Measured
 * (docs/ort-runtime.md, section 7): Silero VAD's branch reads its GRU weights through Gemm, and
 * allocates tensor by tensor on every run; the If models of {@code benchmarks/ort/if-models.py} read
 * no such weight and take a block ({@code OrtIfBranchTest} checks both against ORT's figures).
 *
 * <p>Which branch: the import this replay is compiled from has the branch a request takes when the
 * condition is known (a constant, or decided from the bindings by {@link ImportedGraph#forBindings});
 * an If whose condition is open keeps both bodies, and each is a choice the predictor tries (the
 * larger prediction is the answer: never below ORT's whichever branch runs).
 */
final class OrtSubgraphReplay {
    private final Branch[] branches;
    /** The predictor's choice index of this If when it has two branches, else -1. */
    private final int choice;

    private OrtSubgraphReplay(Branch[] branches, int choice) {
        this.branches = branches;
        this.choice = choice;
    }

    /** {@return whether every branch (nested Ifs' too) has only fixed sizes, so a request cannot change them} */
    boolean isStatic() {
        for (Branch b : branches) {
            if (!b.graph().symbols().isEmpty()) {
                return false;
            }
            for (OrtSubgraphReplay n : b.nested()) {
                if (n != null && !n.isStatic()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@return the op types in this If's branches (nested Ifs' too) whose kernel has no workspace rule} */
    Set<String> unmodelledOps() {
        Set<String> ops = new TreeSet<>();
        for (Branch b : branches) {
            ops.addAll(b.unmodelled());
            for (OrtSubgraphReplay n : b.nested()) {
                if (n != null) {
                    ops.addAll(n.unmodelledOps());
                }
            }
        }
        return ops;
    }

    /**
     * One branch, compiled once.
     *
     * @param staticOutput per output of the If: whether ORT's shape of the branch's output is fully
     *                     known, so the If allocates it before the branch runs; else the branch
     *                     allocates it when the node producing it runs (a fetch allocator)
     * @param outputOfSlot per buffer slot of the branch: the If output it is, or -1
     * @param nestedOutputs per node id of a nested If: per its output, the branch's slot it allocates, or -1
     * @param byNested      per buffer slot: whether a nested If allocates it (when its branch says); a
     *                      slot that is also this branch's output goes on to this If's outer frame then
     * @param unmodelled    op types of the branch's own nodes whose kernel has no workspace rule
     */
    private record Branch(Graph graph, ReplaySequence sequence, KernelWorkspaces.Rule[] rules,
                          OrtSubgraphReplay[] nested, boolean pattern, boolean[] staticOutput, int[] outputOfSlot,
                          int[][] nestedOutputs, boolean[] byNested, Set<String> unmodelled) {
    }

    /** The outer graph's side of an If: its outputs, allocated as the outer graph's plan says. */
    interface Outputs {
        /** Allocates the If's output {@code index} (nothing when the outer plan gave it an existing buffer). */
        void allocate(int index);
    }

    /**
     * Assigns choice indices to the Ifs whose branch is not decided, in compile order: one per
     * condition value (ONNX names are unique across a model's graphs), so a nested If on its outer
     * If's condition takes the branch that condition gives, as it does in ORT.
     */
    static final class Choices {
        /** The combinations replayed at most: more, and a request must decide some conditions. */
        static final int MAX_COMBINATIONS = 256;
        /** Guard of a choice that runs whatever the other choices are. */
        private static final long UNGUARDED = -1;

        private final Map<String, Integer> byCondition = new HashMap<>();
        /** Per choice: the enclosing If's choice and branch it runs inside ({@link #guard}), or UNGUARDED. */
        private final List<Long> guards = new ArrayList<>();

        int count() {
            return byCondition.size();
        }

        /**
         * The choice of an If on {@code condition} inside branch {@code branch} of the If with choice
         * {@code outer} (-1 for an If of the main graph, or inside an If whose branch is decided).
         * An If on a condition seen before shares its choice; one seen in two places runs unguarded.
         */
        int of(String condition, int outer, int branch) {
            long guard = outer < 0 ? UNGUARDED : guard(outer, branch);
            Integer known = byCondition.get(condition);
            if (known != null) {
                if (guards.get(known) != guard) {
                    guards.set(known, UNGUARDED);
                }
                return known;
            }
            byCondition.put(condition, guards.size());
            guards.add(guard);
            return guards.size() - 1;
        }

        private static long guard(int outer, int branch) {
            return (long) outer << 1 | branch;
        }

        /**
         * The combinations of branches a request can meet: a nested If's choice matters only when its
         * enclosing If takes the branch it is in, so Silero VAD's nine open Ifs (one on the sample rate,
         * four inside each of its branches) are 32 runs, not 512.
         *
         * @return each combination as bits by choice, or null when there are more than
         *         {@link #MAX_COMBINATIONS} (or choices past a long's bits)
         */
        long[] combinations() {
            int n = count();
            if (n == 0) {
                return new long[] {0};
            }
            if (n > Long.SIZE - 1) {
                return null;
            }
            List<Long> out = new ArrayList<>();
            return enumerate(order(), 0, 0L, out) ? out.stream().mapToLong(Long::longValue).toArray() : null;
        }

        /** The choices, each after the one its guard names (guards always name an enclosing If). */
        private int[] order() {
            int n = count();
            int[] depth = new int[n];
            for (int i = 0; i < n; i++) {
                for (long g = guards.get(i); g != UNGUARDED; g = guards.get((int) (g >> 1))) {
                    depth[i]++;
                }
            }
            return java.util.stream.IntStream.range(0, n).boxed()
                    .sorted(java.util.Comparator.comparingInt((Integer i) -> depth[i]).thenComparingInt(i -> i))
                    .mapToInt(Integer::intValue).toArray();
        }

        private boolean enumerate(int[] order, int k, long bits, List<Long> out) {
            if (k == order.length) {
                out.add(bits);
                return out.size() <= MAX_COMBINATIONS;
            }
            int choice = order[k];
            long g = guards.get(choice);
            boolean runs = g == UNGUARDED || (bits >>> (int) (g >> 1) & 1) == (g & 1);
            if (!enumerate(order, k + 1, bits, out)) {
                return false;
            }
            return !runs || enumerate(order, k + 1, bits | 1L << choice, out);
        }
    }

    /**
     * Compiles the replays of {@code graph}'s If nodes, by node id (null for other nodes).
     *
     * @param imported  the import whose control flow describes the If nodes (its graph is {@code graph})
     * @param saved     the graph ORT saved, whose nodes hold the branches as ORT runs them
     * @param original  the same graph in the model file ORT loaded, or null when unknown
     * @param model     the model the graph ORT saved belongs to (opsets, for the workspace rules)
     * @param dropped   initializers ORT pre-packs and drops (an If branch reading one gets no pattern)
     * @param choices   the choice counter of the predictor
     * @param measured  the workspaces measured in ORT for kernels without a rule, branches' included
     * @return per node id of {@code imported}'s graph, the If's replay or null
     */
    static OrtSubgraphReplay[] of(ImportedGraph imported, GraphProto saved, GraphProto original, ModelProto model,
                                  Set<String> dropped, Choices choices, KernelProbes.Measured measured) {
        return of(imported, saved, original, model, dropped, choices, measured, -1, 0);
    }

    /** As above, for the Ifs of a graph that runs inside branch {@code branch} of the If with choice {@code outer}. */
    private static OrtSubgraphReplay[] of(ImportedGraph imported, GraphProto saved, GraphProto original,
                                          ModelProto model, Set<String> dropped, Choices choices,
                                          KernelProbes.Measured measured, int outer, int branch) {
        Graph graph = imported.graph();
        OrtSubgraphReplay[] out = new OrtSubgraphReplay[graph.nodeCount()];
        Map<String, NodeProto> byFirstOutput = byFirstOutput(saved);
        Map<String, NodeProto> originalByFirstOutput = original == null ? Map.of() : byFirstOutput(original);
        for (ControlFlowNode cf : imported.controlFlow()) {
            Node node = graph.node(cf.nodeId());
            if (!OrtKernels.isIf(cf.opType()) || node.outputCount() == 0 || node.output(0) == Graph.ABSENT) {
                continue;
            }
            NodeProto proto = byFirstOutput.get(graph.value(node.output(0)).name());
            if (proto == null) {
                continue; // not the graph ORT saved: the If keeps its allowance
            }
            NodeProto originalProto = originalByFirstOutput.get(proto.getOutput(0));
            if (cf.bodies().stream().anyMatch(body -> subgraph(proto, body.attribute()) == null)) {
                continue; // not as ORT saved it: the If keeps its allowance
            }
            boolean open = cf.bodies().size() > 1;
            int choice = open ? choices.of(proto.getInput(0), outer, branch) : -1;
            List<Branch> branches = new ArrayList<>();
            for (ControlFlowNode.Body body : cf.bodies()) {
                GraphProto graphOfBranch = subgraph(proto, body.attribute());
                GraphProto originalBranch = originalProto == null ? null : subgraph(originalProto, body.attribute());
                // a decided If's nested Ifs keep its own guard: they run whenever it does
                int inside = open ? choice : outer;
                int taken = open ? branches.size() : branch;
                branches.add(branch(body.graph(), graphOfBranch, originalBranch, model, dropped, choices, measured,
                        inside, taken));
            }
            out[cf.nodeId()] = new OrtSubgraphReplay(branches.toArray(Branch[]::new), choice);
        }
        return out;
    }

    /** {@return the nodes of {@code g} by their first output's name} */
    static Map<String, NodeProto> byFirstOutput(GraphProto g) {
        Map<String, NodeProto> out = new HashMap<>();
        for (NodeProto node : g.getNodeList()) {
            if (node.getOutputCount() > 0) {
                out.put(node.getOutput(0), node);
            }
        }
        return out;
    }

    /** {@return the graph attribute {@code attribute} of {@code node}, or null} */
    static GraphProto subgraph(NodeProto node, String attribute) {
        for (AttributeProto a : node.getAttributeList()) {
            if (a.getName().equals(attribute) && a.hasG()) {
                return a.getG();
            }
        }
        return null;
    }

    private static Branch branch(ImportedGraph body, GraphProto proto, GraphProto original, ModelProto model,
                                 Set<String> dropped, Choices choices, KernelProbes.Measured measured, int outer,
                                 int taken) {
        Graph g = body.graph();
        ModelProto asModel = model.toBuilder().setGraph(proto).build();
        SameSizeKey[] keys = OrtPlannerShapes.of(asModel, g);
        OrtReusePlan plan = OrtReusePlan.of(g, keys, order(g, proto, original));
        NodeAttributes attributes = OnnxNodeAttributes.of(asModel, g);
        OrtSubgraphReplay[] nested = of(body, proto, original, model, dropped, choices, measured, outer, taken);
        KernelWorkspaces.Rule[] rules = new KernelWorkspaces.Rule[g.nodeCount()];
        int[] outputsAfter = new int[g.nodeCount()]; // workspaces a kernel takes before its outputs (Attention)
        Set<String> unmodelled = new TreeSet<>();
        for (Node n : g.nodes()) {
            KernelWorkspaces.Rule probed = nested[n.id()] == null ? measured.rule(g, n) : null;
            if (nested[n.id()] != null || probed != null) { // measured rules act after the node's outputs
                rules[n.id()] = nested[n.id()] != null ? MARKER : probed;
                continue;
            }
            rules[n.id()] = KernelWorkspaces.of(g, n, attributes);
            outputsAfter[n.id()] = KernelWorkspaces.outputsAfter(g, n, attributes);
            if (!KernelWorkspaces.isModelled(g, n, attributes)) {
                unmodelled.add(KernelWorkspaces.opName(n));
            }
        }
        boolean pattern = true; // the outer values it reads: inputs, and outer weights (initializers in memplan's import)
        for (int[] read : new int[][] {g.inputs(), g.initializers()}) {
            for (int v : read) {
                pattern &= !dropped.contains(g.value(v).name());
            }
        }
        ReplaySequence sequence = ReplaySequence.of(g, plan, rules, outputsAfter);
        int[] outputs = g.outputs();
        boolean[] staticOutput = new boolean[outputs.length];
        for (int i = 0; i < outputs.length && i < proto.getOutputCount(); i++) {
            var type = proto.getOutput(i).getType();
            staticOutput[i] = type.hasTensorType() && type.getTensorType().hasShape() && type.getTensorType().getShape()
                    .getDimList().stream().allMatch(d -> d.hasDimValue() && d.getDimValue() >= 0);
        }
        int[] outputOfSlot = new int[sequence.buffers()];
        for (int slot = 0; slot < outputOfSlot.length; slot++) {
            outputOfSlot[slot] = -1;
            for (int i = 0; i < outputs.length; i++) {
                if (outputs[i] == sequence.slotValue[slot]) {
                    outputOfSlot[slot] = i;
                    break;
                }
            }
        }
        int[][] nestedOutputs = new int[g.nodeCount()][];
        boolean[] byNested = new boolean[sequence.buffers()];
        for (Node n : g.nodes()) {
            if (nested[n.id()] != null) {
                int[] slots = new int[n.outputCount()];
                Arrays.fill(slots, -1);
                for (int slot = 0; slot < byNested.length; slot++) {
                    for (int i = 0; i < slots.length; i++) {
                        if (n.output(i) == sequence.slotValue[slot]) { // the branch's own output too
                            slots[i] = slot;
                            byNested[slot] = true;
                        }
                    }
                }
                nestedOutputs[n.id()] = slots;
            }
        }
        return new Branch(g, sequence, rules, nested, pattern, staticOutput, outputOfSlot, nestedOutputs, byNested,
                Set.copyOf(unmodelled));
    }

    /**
     * The order ORT runs a branch in. ORT saves a graph it changed in the order it runs it (its
     * topological order, {@code Graph::ToGraphProto}), but a graph it did not change as it was loaded
     * ({@code GraphProtoSyncNeeded} false), and runs that one in its reverse-DFS order: Silero's
     * branches (fused: FusedConv) are exact in the saved order and 1.16x to 1.21x over in the
     * reverse DFS; if-models.py's branches (nothing to fuse) the other way round, as ORT's profile
     * shows. Unchanged means node for node the file's branch; without the file, the saved order.
     */
    private static int[] order(Graph g, GraphProto saved, GraphProto original) {
        boolean unchanged = original != null && original.getNodeList().equals(saved.getNodeList());
        return unchanged ? OrtExecutionOrder.of(g) : OrtExecutionOrder.asSaved(g);
    }

    /**
     * The rule an If with a replay gets in its graph's sequence: one workspace event, where the
     * replay runs the branch instead.
     */
    static final KernelWorkspaces.Rule MARKER = shapes -> new long[] {0};

    /** The branch a request runs: the only one, or the one {@code choices} picks. */
    private Branch taken(long choices) {
        return branches.length == 1 ? branches[0] : branches[(int) (choices >>> choice & 1)];
    }

    /** One request's state of this If across the two runs: the branch's traced pattern. */
    Execution start(Map<String, Long> bindings, long choices) {
        return new Execution(taken(choices), bindings, choices);
    }

    /** The branch of one request, run once per run of the graph. */
    static final class Execution {
        private final Branch branch;
        private final BoundShapes shapes;
        private final Execution[] nested;
        private final int[] chunk;
        private long patternPeak = -1; // unknown until the first run traced it

        private Execution(Branch branch, Map<String, Long> bindings, long choices) {
            this.branch = branch;
            this.shapes = new BoundShapes(branch.graph(), bindings);
            this.nested = new Execution[branch.graph().nodeCount()];
            for (int k = 0; k < nested.length; k++) {
                if (branch.nested()[k] != null) {
                    nested[k] = branch.nested()[k].start(bindings, choices);
                }
            }
            this.chunk = new int[branch.sequence().buffers()];
        }

        /** One of the branch's planned tensors: in the block when there is one, else its own chunk, traced. */
        private void allocate(BfcArena arena, int slot, boolean inBlock, MemoryPattern trace) {
            if (inBlock) {
                return;
            }
            long bytes = shapes.bytes(branch.sequence().slotValue[slot]);
            chunk[slot] = arena.alloc(bytes);
            if (trace != null && bytes > 0) {
                trace.allocate(slot, BfcArena.align(bytes));
            }
        }

        /**
         * Runs the branch once through {@code arena}: the first time tensor by tensor, tracing its
         * pattern; later, with a pattern, in one block held while the branch runs.
         */
        void run(BfcArena arena, Outputs outputs) {
            ReplaySequence seq = branch.sequence();
            boolean[] done = branch.staticOutput().clone();
            for (int i = 0; i < done.length; i++) {
                if (done[i]) { // IfImpl::AllocateOutputTensors, before the branch's frame exists
                    outputs.allocate(i);
                }
            }
            boolean inBlock = branch.pattern() && patternPeak >= 0;
            MemoryPattern trace = branch.pattern() && !inBlock ? new MemoryPattern(seq.buffers()) : null;
            int block = inBlock && patternPeak > 0 ? arena.alloc(patternPeak) : -1;
            long[] heldSizes = null; // a HOLD event's workspaces, until its node's WORKSPACE event
            int[] heldChunks = null;
            int heldCount = 0;
            for (int event : seq.run1) {
                int operand = ReplaySequence.operand(event);
                if (ReplaySequence.kind(event) <= ReplaySequence.ALLOC_TRACED && branch.byNested()[operand]) {
                    continue; // a nested If's output (the branch's own output too): allocated when its branch says
                }
                switch (ReplaySequence.kind(event)) {
                    case ReplaySequence.ALLOC_OUTPUT -> { // the If's output, through the fetch allocator
                        int i = branch.outputOfSlot()[operand];
                        if (i >= 0 && !done[i]) {
                            done[i] = true;
                            outputs.allocate(i);
                        }
                    }
                    case ReplaySequence.ALLOC_TRACED -> allocate(arena, operand, inBlock, trace);
                    case ReplaySequence.WORKSPACE -> {
                        if (nested[operand] != null) {
                            int[] slots = branch.nestedOutputs()[operand];
                            nested[operand].run(arena, index -> {
                                int slot = index < slots.length ? slots[index] : -1;
                                int i = slot < 0 ? -1 : branch.outputOfSlot()[slot];
                                if (i >= 0 && !done[i]) { // this branch's output: the If's outer frame allocates it
                                    done[i] = true;
                                    outputs.allocate(i);
                                } else if (i < 0 && slot >= 0) {
                                    allocate(arena, slot, inBlock, trace);
                                }
                            });
                        } else {
                            long[] sizes = heldCount > 0 ? heldSizes : seq.workspaces(operand, branch.rules(), shapes);
                            int[] chunks = heldCount > 0 ? heldChunks : new int[Math.max(sizes.length - 1, 0)];
                            OrtArenaPredictor.scratch(arena, sizes, chunks, heldCount);
                            heldCount = 0;
                        }
                    }
                    case ReplaySequence.HOLD -> { // the kernel's first workspaces, taken before its later outputs
                        heldSizes = seq.workspaces(operand, branch.rules(), shapes);
                        heldCount = Math.min(seq.held[operand], heldSizes.length);
                        heldChunks = new int[Math.max(heldSizes.length - 1, heldCount)];
                        OrtArenaPredictor.hold(arena, heldSizes, heldCount, heldChunks);
                    }
                    default -> {
                        if (!inBlock) {
                            arena.free(chunk[operand]);
                            if (trace != null) {
                                trace.free(operand);
                            }
                        }
                    }
                }
            }
            for (int i = 0; i < done.length; i++) {
                if (!done[i]) { // an output no branch node produces: ORT copies it into the If's output
                    outputs.allocate(i);
                }
            }
            arena.free(block);
            if (trace != null) {
                patternPeak = trace.size();
            }
        }
    }
}
