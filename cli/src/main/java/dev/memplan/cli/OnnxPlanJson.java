// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.ActivationPlan;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import dev.memplan.onnx.symbols.DerivedSymbol;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.InferenceFailure;
import dev.memplan.server.OnnxPlan;
import dev.memplan.cli.OnnxReport.LivePeak;
import dev.memplan.cli.OnnxReport.LiveTensor;
import dev.memplan.onnx.imports.ShapeDisagreement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The ONNX part of the plan JSON: per owner its ONNX value name, shape (symbolic and bound),
 * bytes, offset and (slots plans only) slot; the views folded into it; weights; symbols;
 * control-flow nodes with their transient needs; the admission figure; and shape-inference
 * findings. The command line embeds the returned object in its own plan JSON. Here, with its one
 * user and outside the exported packages, rather than in {@code dev.memplan.onnx} so that the ONNX
 * API does not need Jackson.
 */
public final class OnnxPlanJson {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private OnnxPlanJson() {
    }

    /**
     * {@return the report of {@code plan} as a JSON object}
     *
     * @param plan the plan
     */
    public static ObjectNode toJson(OnnxPlan plan) {
        ImportedGraph imp = plan.imported();
        Graph g = imp.graph();
        Map<String, Long> bindings = plan.bindings();
        ObjectNode root = JSON.objectNode();
        root.put("graph", imp.name());
        root.put("nodes", g.nodeCount());
        ObjectNode weights = root.putObject("weights");
        weights.put("bytes", imp.weightBytes());
        weights.put("bytesWithBodies", imp.totalWeightBytes());
        weights.put("foldedBytes", imp.foldedBytes());
        weights.put("foldedValues", imp.foldedValues());
        weights.put("count", g.initializers().length);
        root.set("symbols", symbols(imp, bindings));
        root.put("complete", plan.isComplete());
        if (!plan.unboundSymbols().isEmpty()) {
            ArrayNode unbound = root.putArray("unboundSymbols");
            plan.unboundSymbols().forEach(unbound::add);
        }
        ActivationPlan.Layout s = plan.schedule();
        ActivationPlan ap = plan.result() instanceof PlanResult.Complete c ? c.plan() : null;
        if (ap != null) {
            root.put("strategy", ap.strategy().toString());
            root.put("peakBytes", ap.peakBytes());
            root.put("naiveBytes", ap.naiveBytes());
            root.put("lowerBoundBytes", ap.lowerBoundBytes());
            if (s.options().inPlaceEnabled()) {
                root.put("lowerBoundWithoutInPlaceBytes", ap.lowerBoundWithoutInPlaceBytes());
                root.put("inPlaceValues", s.numInPlace());
            }
            if (ap.strategy() == Strategy.SLOTS) {
                root.put("numSlots", ap.numSlots());
            }
        }
        OptionalLong admission = plan.admissionBytes();
        if (admission.isPresent()) {
            root.put("admissionBytes", admission.getAsLong());
        } else {
            root.putNull("admissionBytes");
        }
        // views folded into each owner
        List<List<String>> viewsOf = new ArrayList<>();
        for (int i = 0; i < g.valueCount(); i++) {
            viewsOf.add(null);
        }
        for (Map.Entry<Integer, Integer> e : imp.views().edges().entrySet()) {
            int r = s.bufferOf(e.getKey());
            if (viewsOf.get(r) == null) {
                viewsOf.set(r, new ArrayList<>());
            }
            viewsOf.get(r).add(g.value(e.getKey()).name());
        }
        // values placed in place in each owner's buffer, in execution order
        List<List<String>> inPlaceOf = new ArrayList<>();
        for (int i = 0; i < g.valueCount(); i++) {
            inPlaceOf.add(null);
        }
        if (s.numInPlace() > 0) {
            for (int node : s.order()) {
                for (int v : g.node(node).outputs()) {
                    if (s.inPlaceSource(v) >= 0) {
                        int b = s.bufferOf(v);
                        if (inPlaceOf.get(b) == null) {
                            inPlaceOf.set(b, new ArrayList<>());
                        }
                        inPlaceOf.get(b).add(g.value(v).name());
                    }
                }
            }
        }
        ArrayNode owners = root.putArray("owners");
        for (int o = 0; o < s.numOwners(); o++) {
            int v = s.ownerValue(o);
            Value value = g.value(v);
            ObjectNode n = owners.addObject();
            n.put("value", v);
            n.put("onnxName", value.name());
            n.put("dtype", value.dataType().jsonName());
            n.put("shape", value.shape().toString());
            n.set("boundShape", boundShape(value, bindings));
            OptionalLong bytes = safeBytes(value, bindings);
            if (bytes.isPresent()) {
                n.put("bytes", bytes.getAsLong());
            } else {
                n.putNull("bytes");
            }
            if (ap != null) {
                n.put("offset", ap.offsetOf(v));
                if (ap.strategy() == Strategy.SLOTS) {
                    n.put("slot", ap.slotOf(v));
                }
            }
            n.put("def", s.def(o));
            n.put("useEnd", s.useEnd(o));
            if (value.producer() >= 0) {
                n.put("producer", g.node(value.producer()).displayName());
            }
            if (viewsOf.get(v) != null) {
                ArrayNode vs = n.putArray("views");
                viewsOf.get(v).forEach(vs::add);
            }
            if (inPlaceOf.get(v) != null) {
                ArrayNode ip = n.putArray("inPlace");
                inPlaceOf.get(v).forEach(ip::add);
            }
        }
        if (ap != null) {
            LivePeak at = OnnxReport.livePeak(plan, 5);
            ObjectNode lb = root.putObject("lowerBoundAt");
            lb.put("position", at.position());
            lb.put("node", at.nodeName());
            lb.put("liveBytes", at.liveBytes());
            ArrayNode largest = lb.putArray("largestLive");
            for (LiveTensor t : at.largest()) {
                ObjectNode n = largest.addObject();
                n.put("onnxName", t.onnxName());
                n.put("bytes", t.bytes());
            }
        }
        ArrayNode cf = root.putArray("controlFlow");
        for (OnnxPlan.NodeNeed need : plan.controlFlow()) {
            ObjectNode n = cf.addObject();
            n.put("node", need.node().nodeName());
            n.put("op", need.node().opType());
            // an If with both branches planned: its condition is unknown at these bindings
            n.put("upperBound", plan.upperBoundBranches().contains(need.node().nodeName()));
            ArrayNode implicit = n.putArray("implicitInputs");
            need.node().implicitInputs().forEach(implicit::add);
            ArrayNode bodies = n.putArray("bodies");
            need.bodyPeaks().forEach((attr, peak) -> {
                ObjectNode b = bodies.addObject();
                b.put("attribute", attr);
                if (peak.isPresent()) {
                    b.put("peakBytes", peak.getAsLong());
                } else {
                    b.putNull("peakBytes");
                }
            });
            if (need.transientNeed().isPresent()) {
                n.put("transientNeedBytes", need.transientNeed().getAsLong());
            } else {
                n.putNull("transientNeedBytes");
            }
        }
        ArrayNode dis = root.putArray("shapeDisagreements");
        for (ShapeDisagreement d : imp.disagreements()) {
            ObjectNode n = dis.addObject();
            n.put("onnxName", d.valueName());
            n.put("declared", d.declared().toString());
            n.put("inferred", d.inferred().toString());
            n.put("detail", d.detail());
        }
        ArrayNode un = root.putArray("uninferred");
        imp.uninferred().forEach(un::add);
        ArrayNode failed = root.putArray("inferenceFailures");
        for (InferenceFailure f : imp.inferenceFailures()) {
            ObjectNode n = failed.addObject();
            n.put("node", f.node());
            n.put("domain", f.domain());
            n.put("opType", f.opType());
            n.put("stage", f.stage());
            n.put("message", f.message());
        }
        return root;
    }

    /**
     * The symbols to bind, for {@code memplan symbols model.onnx}: name, where it came from, and
     * its binding in {@code bindings} (null when unbound); a derived symbol also has
     * {@code "derived"}, its expression ({@code "past_seq_len + seq_len"}), and an origin that
     * names the node that ties it to the others.
     *
     * @param imp      the import
     * @param bindings symbol name to value (may be empty)
     * @return one object per symbol: name, origin, binding
     */
    public static ArrayNode symbols(ImportedGraph imp, Map<String, Long> bindings) {
        ArrayNode out = JSON.arrayNode();
        for (Symbol sym : imp.symbols().values()) {
            ObjectNode n = out.addObject();
            n.put("name", sym.name());
            Long b = bindings.get(sym.name());
            if (b != null) {
                n.put("bound", b);
            } else {
                n.putNull("bound");
            }
            String origin = imp.freshSymbols().get(sym.name());
            origin = origin == null ? "named by the model" : origin;
            DerivedSymbol derived = imp.derivedSymbols().get(sym.name());
            if (derived != null) {
                n.put("derived", derived.expressionText());
                origin += "; no binding needed: " + derived.relation().node() + " requires it ("
                        + derived.relation().why() + ")";
            }
            n.put("origin", origin);
        }
        return out;
    }

    private static ArrayNode boundShape(Value v, Map<String, Long> bindings) {
        ArrayNode a = JSON.arrayNode();
        for (Dim d : v.shape().dims()) {
            OptionalLong e;
            try {
                e = d.evaluate(bindings);
            } catch (RuntimeException ex) {
                e = OptionalLong.empty();
            }
            if (e.isPresent()) {
                a.add(e.getAsLong());
            } else {
                a.addNull();
            }
        }
        return a;
    }

    private static OptionalLong safeBytes(Value v, Map<String, Long> bindings) {
        try {
            return v.bytesAt(bindings);
        } catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
