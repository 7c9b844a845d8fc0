package dev.memplan.onnx;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.ActivationPlan;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Symbol;
import dev.memplan.TensorSizes;
import dev.memplan.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The ONNX part of the plan JSON: per owner its ONNX value name, shape (symbolic and bound),
 * bytes and slot; the views folded into it; weights; symbols; control-flow nodes with their
 * transient needs; the admission figure; and shape-inference findings. The command line embeds
 * the returned object in its own plan JSON.
 */
public final class OnnxReport {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private OnnxReport() {
    }

    /** The report of {@code plan} as a JSON object. */
    public static ObjectNode toJson(OnnxPlan plan) {
        ImportedGraph imp = plan.imported();
        Graph g = imp.graph();
        Map<String, Long> bindings = plan.bindings();
        ObjectNode root = JSON.objectNode();
        root.put("graph", imp.name());
        root.put("nodes", g.nodeCount());
        ObjectNode weights = root.putObject("weights");
        weights.put("bytes", imp.weightBytes());
        weights.put("foldedBytes", imp.foldedBytes());
        weights.put("foldedValues", imp.foldedValues());
        weights.put("count", g.initializers().length);
        root.set("symbols", symbols(imp, bindings));
        root.put("complete", plan.isComplete());
        if (!plan.unboundSymbols().isEmpty()) {
            ArrayNode unbound = root.putArray("unboundSymbols");
            plan.unboundSymbols().forEach(unbound::add);
        }
        Schedule s = plan.schedule();
        ActivationPlan ap = plan.result() instanceof PlanResult.Complete c ? c.plan() : null;
        if (ap != null) {
            root.put("peakBytes", ap.peakBytes());
            root.put("naiveBytes", ap.naiveBytes());
            root.put("lowerBoundBytes", ap.lowerBoundBytes());
            root.put("numSlots", ap.numSlots());
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
            int r = s.root(e.getKey());
            if (viewsOf.get(r) == null) {
                viewsOf.set(r, new ArrayList<>());
            }
            viewsOf.get(r).add(g.value(e.getKey()).name());
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
                n.put("slot", ap.slotOf(v));
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
        }
        ArrayNode cf = root.putArray("controlFlow");
        for (OnnxPlan.NodeNeed need : plan.controlFlow()) {
            ObjectNode n = cf.addObject();
            n.put("node", need.node().nodeName());
            n.put("op", need.node().opType());
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
        return root;
    }

    private static ArrayNode symbols(ImportedGraph imp, Map<String, Long> bindings) {
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
            n.put("origin", origin == null ? "named by the model" : origin);
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
            return TensorSizes.bytes(v, bindings);
        } catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
