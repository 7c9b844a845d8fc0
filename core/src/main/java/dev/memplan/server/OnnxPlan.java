// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.rules.OpRegistry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The plan of an imported model at one binding of its symbols. Immutable; equal when every part is
 * (the import included).
 */
public final class OnnxPlan implements MemoryNeed {
    private final ImportedGraph imported;
    private final Map<String, Long> bindings;
    private final Schedule schedule;
    private final PlanResult result;
    private final List<NodeNeed> controlFlow;
    private final List<String> unboundSymbols;

    /**
     * The parts, from {@link CompiledModel}.
     *
     * @param imported       the import planned
     * @param bindings       symbol values used
     * @param schedule       the outer graph's compiled schedule
     * @param result         the outer graph's plan, or deferred with the owners of unknown size
     * @param controlFlow    per If/Loop/Scan node, its bodies' needs
     * @param unboundSymbols symbols the graph (or a body) uses that {@code bindings} leaves out; never
     *                       a derived symbol: its free symbols are listed
     */
    OnnxPlan(ImportedGraph imported, Map<String, Long> bindings, Schedule schedule, PlanResult result,
             List<NodeNeed> controlFlow, List<String> unboundSymbols) {
        this.imported = Objects.requireNonNull(imported, "imported");
        this.bindings = Objects.requireNonNull(bindings, "bindings");
        this.schedule = Objects.requireNonNull(schedule, "schedule");
        this.result = Objects.requireNonNull(result, "result");
        this.controlFlow = Objects.requireNonNull(controlFlow, "controlFlow");
        this.unboundSymbols = Objects.requireNonNull(unboundSymbols, "unboundSymbols");
    }

    /** {@return the import planned, for memplan's own modules (ServerAccess)} */
    ImportedGraph imported() {
        return imported;
    }

    /** {@return the symbol values the plan was made at, derived symbols included} */
    public Map<String, Long> bindings() {
        return bindings;
    }

    /** {@return the outer graph's compiled schedule} */
    public Schedule schedule() {
        return schedule;
    }

    /** {@return the outer graph's plan, or deferred with the owners of unknown size} */
    public PlanResult result() {
        return result;
    }

    /** {@return per If/Loop/Scan node of the outer graph, what its bodies need} */
    public List<NodeNeed> controlFlow() {
        return controlFlow;
    }

    /**
     * {@return the symbols the graph (or a body) uses that the bindings leave out; never a derived
     * symbol: its free symbols are listed}
     */
    public List<String> unboundSymbols() {
        return unboundSymbols;
    }

    /**
     * What one control-flow node needs while it runs, beyond the outer plan. Immutable; equal when
     * every part is.
     */
    public static final class NodeNeed {
        private final ControlFlowNode node;
        private final Map<String, OnnxPlan> bodyPlans;
        private final OptionalLong transientNeed;

        /**
         * The parts, from {@link CompiledModel}.
         *
         * @param node          the node
         * @param bodyPlans     per body (attribute name), its own plan at the same bindings; kept in
         *                      the given order
         * @param transientNeed the largest body figure; empty when a body is deferred
         */
        NodeNeed(ControlFlowNode node, Map<String, OnnxPlan> bodyPlans, OptionalLong transientNeed) {
            this.node = Objects.requireNonNull(node, "node");
            this.bodyPlans = Collections.unmodifiableMap(new LinkedHashMap<>(bodyPlans));
            this.transientNeed = Objects.requireNonNull(transientNeed, "transientNeed");
        }

        /** {@return the node, for memplan's own modules (ServerAccess)} */
        ControlFlowNode node() {
            return node;
        }

        /** {@return the node's name} */
        public String nodeName() {
            return node.nodeName();
        }

        /** {@return the node's op type: If, Loop or Scan} */
        public String opType() {
            return node.opType();
        }

        /**
         * {@return per body (attribute name), its own plan at the same bindings, made with the outer
         * plan's options (a body's inputs are owned outside it); a branch that the bindings rule out
         * is not planned}
         */
        public Map<String, OnnxPlan> bodyPlans() {
            return bodyPlans;
        }

        /** {@return the largest body figure; empty when a body is deferred} */
        public OptionalLong transientNeed() {
            return transientNeed;
        }

        /** {@return per body (attribute name), its own admission figure; empty when deferred} */
        public Map<String, OptionalLong> bodyPeaks() {
            Map<String, OptionalLong> peaks = new LinkedHashMap<>();
            bodyPlans.forEach((attribute, plan) -> peaks.put(attribute, plan.admissionBytes()));
            return Collections.unmodifiableMap(peaks);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof NodeNeed n && node.equals(n.node) && bodyPlans.equals(n.bodyPlans)
                    && transientNeed.equals(n.transientNeed);
        }

        @Override
        public int hashCode() {
            return Objects.hash(node, bodyPlans, transientNeed);
        }

        @Override
        public String toString() {
            return "NodeNeed[node=" + node + ", bodyPlans=" + bodyPlans + ", transientNeed=" + transientNeed + "]";
        }
    }

    /** {@return true when the outer plan and every control-flow body planned completely} */
    public boolean isComplete() {
        return result instanceof PlanResult.Complete && controlFlow.stream().allMatch(n -> n.transientNeed().isPresent());
    }

    /**
     * The If nodes of the outer graph whose condition these bindings leave unknown: both branches
     * are planned and each output has the larger of the two shapes at every dim, so the plan is an
     * upper bound for them, never a guess. Give the symbols or input values the condition reads
     * (the {@code symbols} command lists them) to plan the branch taken.
     *
     * @return node names, in node order
     */
    public List<String> upperBoundBranches() {
        return controlFlow.stream().map(NodeNeed::node)
                .filter(n -> n.opType().equals(OpRegistry.Structure.IF.opType()) && n.bodies().size() > 1).map(ControlFlowNode::nodeName).toList();
    }

    /**
     * The outer plan.
     *
     * @return the plan
     * @throws IllegalStateException naming the symbols to bind when the plan is deferred
     */
    public ActivationPlan plan() {
        if (result instanceof PlanResult.Deferred && !unboundSymbols.isEmpty()) {
            // name what the caller can act on, not the hundreds of value ids a missing symbol leaves unsized
            throw new IllegalStateException("the plan is deferred: bind " + String.join(", ", unboundSymbols)
                    + " (planned at " + new TreeMap<>(bindings) + ")");
        }
        return result.orElseThrow();
    }

    /** {@return the largest transient need of any control-flow node (0 without control flow)} */
    public OptionalLong largestTransientNeed() {
        long max = 0;
        for (NodeNeed n : controlFlow) {
            if (n.transientNeed().isEmpty()) {
                return OptionalLong.empty();
            }
            max = Math.max(max, n.transientNeed().getAsLong());
        }
        return OptionalLong.of(max);
    }

    /**
     * The admission figure: outer peak plus the largest transient need of any control-flow node.
     * Empty, never zero, when anything is deferred.
     *
     * @return outer peak plus largest transient need, in bytes; empty when deferred
     */
    public OptionalLong admissionBytes() {
        if (!(result instanceof PlanResult.Complete c)) {
            return OptionalLong.empty();
        }
        OptionalLong t = largestTransientNeed();
        return t.isEmpty() ? t : OptionalLong.of(Math.addExact(c.plan().peakBytes(), t.getAsLong()));
    }

    /**
     * What a {@link MemoryBudget} leases for this plan: {@link #admissionBytes()}.
     *
     * @return the admission figure in bytes
     * @throws IllegalArgumentException naming the symbols to bind when the plan is deferred
     */
    @Override
    public long neededBytes() {
        return admissionBytes().orElseThrow(() -> new IllegalArgumentException(
                "the plan is deferred, so its bytes are unknown: bind " + unboundSymbols
                        + " before asking a budget for it"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OnnxPlan p && imported.equals(p.imported) && bindings.equals(p.bindings)
                && schedule.equals(p.schedule) && result.equals(p.result) && controlFlow.equals(p.controlFlow)
                && unboundSymbols.equals(p.unboundSymbols);
    }

    @Override
    public int hashCode() {
        return Objects.hash(imported, bindings, schedule, result, controlFlow, unboundSymbols);
    }

    @Override
    public String toString() {
        return "OnnxPlan[imported=" + imported + ", bindings=" + bindings + ", schedule=" + schedule + ", result="
                + result + ", controlFlow=" + controlFlow + ", unboundSymbols=" + unboundSymbols + "]";
    }
}
