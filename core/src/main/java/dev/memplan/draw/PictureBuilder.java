// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.ActivationPlan;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.ServerAccess;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.StringJoiner;

/**
 * Makes {@link PictureData}s from complete plans: of a graph (one plan per strategy, all of the same
 * graph) or of an imported ONNX model, whose control-flow bodies are planned and pictured too.
 */
final class PictureBuilder {
    private PictureBuilder() {
    }

    /**
     * The picture of {@code plans}, complete plans of one graph made with different strategies;
     * the first is shown first.
     *
     * @param title    what the picture is of
     * @param bindings the symbol values the plans were made at
     * @param plans    complete plans of one graph, one per strategy
     * @return the picture
     * @throws IllegalArgumentException when there is no plan or the plans are of different graphs
     */
    public static PictureData of(String title, Map<String, Long> bindings, List<ActivationPlan> plans) {
        return build(title, bindings, plans, List.of());
    }

    /**
     * The picture of an ONNX model planned once per strategy ({@code plans} made by a
     * {@code CompiledModel} with the same bindings); each control-flow body gets its own picture,
     * of the body plans that the outer plans carry ({@link OnnxPlan.NodeNeed#bodyPlans()}): a
     * picture draws the plans it is given and plans nothing itself.
     *
     * @param title what the picture is of
     * @param plans the model's plans, one per strategy, all at the same bindings
     * @return the picture, with a picture per control-flow body
     *
     * @throws IllegalArgumentException when a plan is deferred: name what to bind first
     */
    public static PictureData ofOnnx(String title, List<OnnxPlan> plans) {
        if (plans.isEmpty()) {
            throw new IllegalArgumentException("a picture needs at least one plan");
        }
        List<ActivationPlan> outer = new ArrayList<>();
        for (OnnxPlan p : plans) {
            if (!(p.result() instanceof PlanResult.Complete c)) {
                throw new IllegalArgumentException("the plan of " + title + " is deferred: bind "
                        + String.join(", ", p.unboundSymbols()) + " first");
            }
            outer.add(c.plan());
        }
        OnnxPlan first = plans.get(0);
        int[] positionOf = positionsOfNodes(first.schedule());
        List<ControlFlowPanel> panels = new ArrayList<>();
        for (int n = 0; n < first.controlFlow().size(); n++) {
            OnnxPlan.NodeNeed need = first.controlFlow().get(n);
            ControlFlowNode node = ServerAccess.access().node(need);
            List<ControlFlowPanel.Body> bodies = new ArrayList<>();
            for (ControlFlowNode.Body body : node.bodies()) {
                bodies.add(bodyPicture(title + " / " + node.nodeName() + " / " + body.attribute(), body, n, need,
                        plans));
            }
            int position = node.nodeId() < positionOf.length ? positionOf[node.nodeId()] : -1;
            panels.add(new ControlFlowPanel(node.nodeName(), node.opType(), position, need.transientNeed(), bodies));
        }
        return build(title, first.bindings(), outer, panels);
    }

    /**
     * The body's plans that the outer plans carry, one per strategy; no picture when a body plan is
     * deferred or was not made (a branch the bindings rule out).
     */
    private static ControlFlowPanel.Body bodyPicture(String title, ControlFlowNode.Body body, int nodeIndex,
                                                     OnnxPlan.NodeNeed need, List<OnnxPlan> outer) {
        OptionalLong needBytes = need.bodyPeaks().getOrDefault(body.attribute(), OptionalLong.empty());
        List<OnnxPlan> bodyPlans = new ArrayList<>();
        for (OnnxPlan p : outer) {
            OnnxPlan b = p.controlFlow().get(nodeIndex).bodyPlans().get(body.attribute());
            if (b == null || !b.isComplete()) {
                return new ControlFlowPanel.Body(body.attribute(), needBytes, null);
            }
            bodyPlans.add(b);
        }
        return new ControlFlowPanel.Body(body.attribute(), needBytes, ofOnnx(title, bodyPlans));
    }

    private static PictureData build(String title, Map<String, Long> bindings, List<ActivationPlan> plans,
                                 List<ControlFlowPanel> controlFlow) {
        if (plans.isEmpty()) {
            throw new IllegalArgumentException("a picture needs at least one plan");
        }
        ActivationPlan.Layout s = plans.get(0).schedule();
        Graph g = s.graph();
        for (ActivationPlan p : plans) {
            if (p.schedule().graph() != g || p.schedule().numOwners() != s.numOwners()) {
                throw new IllegalArgumentException("the plans of one picture must be of one graph");
            }
        }
        int[] order = s.order();
        int positions = s.numPositions();
        String[] nodeNames = new String[order.length];
        String[] nodeOps = new String[order.length];
        for (int p = 0; p < order.length; p++) {
            nodeNames[p] = g.node(order[p]).displayName();
            nodeOps[p] = g.node(order[p]).opType();
        }
        ActivationPlan firstPlan = plans.get(0);
        Map<Integer, List<DrawnOwner.Segment>> segments = inPlaceSegments(s);
        List<DrawnOwner> owners = new ArrayList<>(s.numOwners());
        long[] delta = new long[positions + 1];
        for (int o = 0; o < s.numOwners(); o++) {
            Value v = g.value(s.ownerValue(o));
            long bytes = firstPlan.sizeOf(v.id());
            String op = v.producer() >= 0 ? g.node(v.producer()).opType() : "input";
            owners.add(new DrawnOwner(v.id(), v.displayName(), op, v.dataType().jsonName(), v.shape().toString(),
                    boundShape(v, bindings), bytes, s.def(o), s.useEnd(o), segments.getOrDefault(v.id(), List.of())));
            delta[s.def(o)] += bytes;
            delta[s.useEnd(o) + 1] -= bytes;
        }
        long[] live = new long[positions];
        long running = 0;
        int boundAt = 0;
        for (int p = 0; p < positions; p++) {
            running += delta[p];
            live[p] = running;
            if (running > live[boundAt]) {
                boundAt = p;
            }
        }
        List<Layout> layouts = new ArrayList<>();
        for (ActivationPlan p : plans) {
            layouts.add(layout(p));
        }
        Map<String, Long> bound = new LinkedHashMap<>();
        for (String sym : g.symbols().keySet()) {
            if (bindings.containsKey(sym)) {
                bound.put(sym, bindings.get(sym));
            }
        }
        return new PictureData(title, bound, firstPlan.engine(), nodeNames, nodeOps, owners, layouts,
                firstPlan.naiveBytes(), firstPlan.lowerBoundBytes(), boundAt, live, controlFlow);
    }

    /** Each owner's in-place segments (docs/design.md §3b): the values that took its buffer, by position. */
    private static Map<Integer, List<DrawnOwner.Segment>> inPlaceSegments(ActivationPlan.Layout s) {
        Map<Integer, List<DrawnOwner.Segment>> out = new HashMap<>();
        if (s.numInPlace() == 0) {
            return out;
        }
        ActivationPlan.Layout plain = s.withoutInPlace();
        Graph g = s.graph();
        for (int o = 0; o < plain.numOwners(); o++) { // allocation order: by position
            int v = plain.ownerValue(o);
            if (s.inPlaceSource(v) >= 0) {
                out.computeIfAbsent(s.bufferOf(v), k -> new ArrayList<>()).add(new DrawnOwner.Segment(
                        g.value(v).displayName(), g.node(g.value(v).producer()).opType(), plain.def(o), plain.useEnd(o)));
            }
        }
        return out;
    }

    private static Layout layout(ActivationPlan plan) {
        LongBuffer offsetBuffer = plan.offsetsByOwner();
        long[] offsets = new long[offsetBuffer.remaining()];
        offsetBuffer.get(offsets);
        if (plan.strategy() == Strategy.OFFSETS) {
            return new Layout(Strategy.OFFSETS, plan.peakBytes(), offsets, null, new long[0]);
        }
        IntBuffer slotBuffer = plan.slotsByOwner();
        int[] slots = new int[slotBuffer.remaining()];
        slotBuffer.get(slots);
        LongBuffer capBuffer = plan.slotCapacities();
        long[] caps = new long[capBuffer.remaining()];
        capBuffer.get(caps);
        return new Layout(Strategy.SLOTS, plan.peakBytes(), offsets, slots, caps);
    }

    /** Node id to execution position. */
    private static int[] positionsOfNodes(ActivationPlan.Layout s) {
        int[] order = s.order();
        int[] positionOf = new int[s.graph().nodeCount()];
        for (int p = 0; p < order.length; p++) {
            positionOf[order[p]] = p;
        }
        return positionOf;
    }

    /** {@code [4, 128]}: each dim evaluated at the bindings, {@code ?} where it stays unknown. */
    private static String boundShape(Value v, Map<String, Long> bindings) {
        StringJoiner out = new StringJoiner(", ", "[", "]");
        for (Dim d : v.shape().dims()) {
            OptionalLong e;
            try {
                e = d.evaluate(bindings);
            } catch (RuntimeException ex) { // an overflowing dim: show it as unknown
                e = OptionalLong.empty();
            }
            out.add(e.isPresent() ? Long.toString(e.getAsLong()) : "?");
        }
        return out.toString();
    }
}
