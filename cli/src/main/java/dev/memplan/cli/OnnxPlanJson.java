// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.ActivationPlan;
import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph;
import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.PlanResult;
import dev.memplan.cli.OnnxReport.LivePeak;
import dev.memplan.cli.OnnxReport.LiveTensor;
import dev.memplan.io.JsonOutput;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.InferenceFailure;
import dev.memplan.onnx.imports.ShapeDisagreement;
import dev.memplan.onnx.symbols.DerivedSymbol;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.ServerAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The ONNX part of the plan JSON: per owner its ONNX value name, shape (symbolic and bound),
 * bytes, offset and (slots plans only) slot; the views folded into it; weights; symbols;
 * control-flow nodes with their transient needs; the admission figure; and shape-inference
 * findings. The command line embeds the report in its own plan JSON. Here, with its one
 * user and outside the exported packages, rather than in {@code dev.memplan.onnx} so that the ONNX
 * API does not need Jackson.
 *
 * <p>The report is a tree of records that Jackson's data binding writes, each field in the order
 * its record declares it: a field that is null is written as {@code null}, except where a
 * component is {@link Include#NON_NULL} (a field that only some plans have, left out otherwise).
 */
public final class OnnxPlanJson {
    private OnnxPlanJson() {
    }

    /**
     * The report of one plan.
     *
     * @param unboundSymbols absent when every symbol is bound
     * @param strategy       this and the other plan figures are absent while the plan is deferred
     * @param lowerBoundAt   absent while the plan is deferred
     */
    record Report(String graph, int nodes, Weights weights, List<SymbolEntry> symbols, boolean complete,
                  @JsonInclude(Include.NON_NULL) List<String> unboundSymbols,
                  @JsonInclude(Include.NON_NULL) String strategy,
                  @JsonInclude(Include.NON_NULL) Long peakBytes,
                  @JsonInclude(Include.NON_NULL) Long naiveBytes,
                  @JsonInclude(Include.NON_NULL) Long lowerBoundBytes,
                  @JsonInclude(Include.NON_NULL) Long lowerBoundWithoutInPlaceBytes,
                  @JsonInclude(Include.NON_NULL) Integer inPlaceValues,
                  @JsonInclude(Include.NON_NULL) Integer numSlots,
                  Long admissionBytes, List<Owner> owners,
                  @JsonInclude(Include.NON_NULL) LowerBoundAt lowerBoundAt,
                  List<ControlFlow> controlFlow, List<Disagreement> shapeDisagreements, List<String> uninferred,
                  List<Failure> inferenceFailures) {
    }

    /** The weights: bytes in the main graph, with control-flow bodies, folded, and the count. */
    record Weights(long bytes, long bytesWithBodies, long foldedBytes, int foldedValues, int count) {
    }

    /**
     * One symbol: its name, binding (null when unbound), expression when derived, and origin.
     *
     * @param derived absent unless the symbol is derived from others
     */
    record SymbolEntry(String name, Long bound, @JsonInclude(Include.NON_NULL) String derived, String origin) {
        /** {@return this symbol with another origin} */
        SymbolEntry withOrigin(String newOrigin) {
            return new SymbolEntry(name, bound, derived, newOrigin);
        }
    }

    /**
     * One owner.
     *
     * @param bytes    null when not known at the bindings
     * @param offset   absent while the plan is deferred
     * @param slot     slots plans only
     * @param producer absent for a graph input
     * @param views    absent when no view is folded into it
     * @param inPlace  absent when no value takes its buffer in place
     */
    record Owner(int value, String onnxName, String dtype, String shape, List<Long> boundShape, Long bytes,
                 @JsonInclude(Include.NON_NULL) Long offset,
                 @JsonInclude(Include.NON_NULL) Integer slot,
                 int def, int useEnd,
                 @JsonInclude(Include.NON_NULL) String producer,
                 @JsonInclude(Include.NON_NULL) List<String> views,
                 @JsonInclude(Include.NON_NULL) List<String> inPlace) {
    }

    /** Where the live bytes reach the lower bound, with the largest tensors live there. */
    record LowerBoundAt(int position, String node, long liveBytes, List<Live> largestLive) {
    }

    /** One tensor live at the lower bound's position. */
    record Live(String onnxName, long bytes) {
    }

    /** A control-flow node and what its bodies need on top of the plan. */
    record ControlFlow(String node, String op, boolean upperBound, List<String> implicitInputs, List<Body> bodies,
                       Long transientNeedBytes) {
    }

    /** One body of a control-flow node and its peak (null while deferred). */
    record Body(String attribute, Long peakBytes) {
    }

    /** A shape the model declares that inference disagrees with. */
    record Disagreement(String onnxName, String declared, String inferred, String detail) {
    }

    /** A node whose shapes inference could not compute. */
    record Failure(String node, String domain, String opType, String stage, String message) {
    }

    /**
     * {@return the report of {@code plan} as a JSON object}
     *
     * @param plan the plan
     */
    public static ObjectNode toJson(OnnxPlan plan) {
        return JsonOutput.mapper().valueToTree(report(plan));
    }

    /** {@return the report of {@code plan}, for Jackson to write} */
    static Report report(OnnxPlan plan) {
        ImportedGraph imp = ServerAccess.access().imported(plan);
        Graph g = imp.graph();
        Map<String, Long> bindings = plan.bindings();
        Weights weights = new Weights(imp.weightBytes(), imp.totalWeightBytes(), imp.foldedBytes(),
                imp.foldedValues(), g.initializers().length);
        List<String> unbound = plan.unboundSymbols().isEmpty() ? null : plan.unboundSymbols();
        ActivationPlan.Layout s = plan.schedule();
        ActivationPlan ap = plan.result() instanceof PlanResult.Complete c ? c.plan() : null;
        boolean inPlace = ap != null && s.options().inPlaceEnabled();
        boolean slots = ap != null && ap.strategy() == Strategy.SLOTS;
        OptionalLong admission = plan.admissionBytes();
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
        List<Owner> owners = new ArrayList<>(s.numOwners());
        for (int o = 0; o < s.numOwners(); o++) {
            int v = s.ownerValue(o);
            Value value = g.value(v);
            OptionalLong bytes = safeBytes(value, bindings);
            owners.add(new Owner(v, value.name(), value.dataType().jsonName(), value.shape().toString(),
                    boundShape(value, bindings), bytes.isPresent() ? bytes.getAsLong() : null,
                    ap != null ? ap.offsetOf(v) : null, slots ? ap.slotOf(v) : null, s.def(o), s.useEnd(o),
                    value.producer() >= 0 ? g.node(value.producer()).displayName() : null, viewsOf.get(v),
                    inPlaceOf.get(v)));
        }
        LowerBoundAt lowerBoundAt = null;
        if (ap != null) {
            LivePeak at = OnnxReport.livePeak(plan, 5);
            List<Live> largest = new ArrayList<>();
            for (LiveTensor t : at.largest()) {
                largest.add(new Live(t.onnxName(), t.bytes()));
            }
            lowerBoundAt = new LowerBoundAt(at.position(), at.nodeName(), at.liveBytes(), largest);
        }
        List<ControlFlow> cf = new ArrayList<>();
        for (OnnxPlan.NodeNeed need : plan.controlFlow()) {
            List<Body> bodies = new ArrayList<>();
            need.bodyPeaks().forEach((attr, peak) -> bodies.add(new Body(attr,
                    peak.isPresent() ? peak.getAsLong() : null)));
            // an If with both branches planned: its condition is unknown at these bindings
            cf.add(new ControlFlow(need.nodeName(), need.opType(),
                    plan.upperBoundBranches().contains(need.nodeName()), ServerAccess.access().node(need).implicitInputs(),
                    bodies, need.transientNeed().isPresent() ? need.transientNeed().getAsLong() : null));
        }
        List<Disagreement> dis = new ArrayList<>();
        for (ShapeDisagreement d : imp.disagreements()) {
            dis.add(new Disagreement(d.valueName(), d.declared().toString(), d.inferred().toString(), d.detail()));
        }
        List<Failure> failed = new ArrayList<>();
        for (InferenceFailure f : imp.inferenceFailures()) {
            failed.add(new Failure(f.node(), f.domain(), f.opType(), f.stage(), f.message()));
        }
        return new Report(imp.name(), g.nodeCount(), weights, symbols(imp, bindings), plan.isComplete(), unbound,
                ap != null ? ap.strategy().toString() : null, ap != null ? ap.peakBytes() : null,
                ap != null ? ap.naiveBytes() : null, ap != null ? ap.lowerBoundBytes() : null,
                inPlace ? ap.lowerBoundWithoutInPlaceBytes() : null, inPlace ? s.numInPlace() : null,
                slots ? ap.numSlots() : null, admission.isPresent() ? admission.getAsLong() : null, owners,
                lowerBoundAt, cf, dis, imp.uninferred(), failed);
    }

    /**
     * The symbols to bind, for {@code memplan symbols model.onnx}: name, where it came from, and
     * its binding in {@code bindings} (null when unbound); a derived symbol also has
     * {@code "derived"}, its expression ({@code "past_seq_len + seq_len"}), and an origin that
     * names the node that ties it to the others.
     *
     * @param imp      the import
     * @param bindings symbol name to value (may be empty)
     * @return one entry per symbol: name, origin, binding; a list the caller may change
     */
    static List<SymbolEntry> symbols(ImportedGraph imp, Map<String, Long> bindings) {
        List<SymbolEntry> out = new ArrayList<>();
        for (Symbol sym : imp.symbols().values()) {
            String origin = imp.freshSymbols().get(sym.name());
            origin = origin == null ? "named by the model" : origin;
            DerivedSymbol derived = imp.derivedSymbols().get(sym.name());
            if (derived != null) {
                origin += "; no binding needed: " + derived.relation().node() + " requires it ("
                        + derived.relation().why() + ")";
            }
            out.add(new SymbolEntry(sym.name(), bindings.get(sym.name()),
                    derived != null ? derived.expressionText() : null, origin));
        }
        return out;
    }

    private static List<Long> boundShape(Value v, Map<String, Long> bindings) {
        List<Long> a = new ArrayList<>();
        for (Dim d : v.shape().dims()) {
            OptionalLong e;
            try {
                e = d.evaluate(bindings);
            } catch (RuntimeException ex) {
                e = OptionalLong.empty();
            }
            a.add(e.isPresent() ? e.getAsLong() : null);
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
