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
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The plan of an imported model at one binding of its symbols.
 *
 * @param imported       the import planned
 * @param bindings       symbol values used
 * @param schedule       the outer graph's compiled schedule
 * @param result         the outer graph's plan, or deferred with the owners of unknown size
 * @param controlFlow    per If/Loop/Scan node, its bodies' needs
 * @param unboundSymbols symbols the graph (or a body) uses that {@code bindings} leaves out; never a
 *                       derived symbol ({@link ImportedGraph#derivedSymbols()}): its free symbols are listed
 */
public record OnnxPlan(ImportedGraph imported, Map<String, Long> bindings, Schedule schedule, PlanResult result,
                       List<NodeNeed> controlFlow, List<String> unboundSymbols) implements MemoryNeed {

    /**
     * What one control-flow node needs while it runs, beyond the outer plan.
     *
     * @param node          the node
     * @param bodyPlans     per body (attribute name), its own plan at the same bindings, made with the
     *                      outer plan's options (a body's inputs are owned outside it); a branch that
     *                      the bindings rule out is not planned
     * @param transientNeed the largest body figure; empty when a body is deferred
     */
    public record NodeNeed(ControlFlowNode node, Map<String, OnnxPlan> bodyPlans, OptionalLong transientNeed) {

        /**
         * Checks the parts.
         *
         * @param node          the node
         * @param bodyPlans     per body, its plan; kept in the given order
         * @param transientNeed the largest body figure
         */
        public NodeNeed {
            bodyPlans = Collections.unmodifiableMap(new LinkedHashMap<>(bodyPlans));
        }

        /** {@return per body (attribute name), its own admission figure; empty when deferred} */
        public Map<String, OptionalLong> bodyPeaks() {
            Map<String, OptionalLong> peaks = new LinkedHashMap<>();
            bodyPlans.forEach((attribute, plan) -> peaks.put(attribute, plan.admissionBytes()));
            return Collections.unmodifiableMap(peaks);
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
     * (see {@link ImportedGraph#openConditions()}) to plan the branch taken.
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
}
