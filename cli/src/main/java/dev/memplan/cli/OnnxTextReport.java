// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.PlanResult;
import dev.memplan.io.TerminalText;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.InferenceFailure;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.ServerAccess;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The one text rendering of an ONNX plan's report ({@code memplan plan}'s text format): the facts
 * of {@link OnnxReport} and the plan, in the units of the graph report ({@code 1,572,864 B  1.50 MiB}),
 * with every name from the model escaped for the terminal once ({@link TerminalText}). The JSON
 * rendering is {@code OnnxPlanJson}.
 */
final class OnnxTextReport {
    private OnnxTextReport() {
    }

    static void write(String label, OnnxPlan plan, RuntimeFigure ort, PrintWriter out) {
        ImportedGraph imp = ServerAccess.access().imported(plan);
        out.println("model      " + TerminalText.escape(label));
        out.println("nodes      " + imp.graph().nodeCount());
        int w = width(imp.totalWeightBytes(), imp.foldedBytes());
        out.println("weights    " + TextReport.bytes(imp.totalWeightBytes(), w) + "  (folded "
                + TextReport.bytes(imp.foldedBytes(), 0) + " in " + imp.foldedValues() + " values)");
        // A failed rule leaves its outputs uninferred; say so before any plan, which may be deferred for it.
        for (InferenceFailure f : imp.inferenceFailures()) {
            out.println("inference  failed (" + f.stage() + ") at " + TerminalText.escape(f.node()) + ": "
                    + TerminalText.escape(f.message()));
        }
        for (String node : plan.upperBoundBranches()) {
            out.println("upper bnd  " + TerminalText.escape(node) + " (If): its condition is unknown at these bindings;"
                    + " both branches planned, each output at the larger shape (give what the condition reads"
                    + " with --value or --bind)");
        }
        if (!(plan.result() instanceof PlanResult.Complete c)) {
            List<String> unbound = new ArrayList<>();
            for (String s : plan.unboundSymbols()) {
                unbound.add(TerminalText.escape(s));
            }
            out.println("plan       deferred: bind " + String.join(", ", unbound));
            if (ort != null) {
                out.println(column(ort) + "deferred (level " + ort.level() + ")");
            }
            return;
        }
        ActivationPlan p = c.plan();
        OptionalLong adm = plan.admissionBytes();
        w = width(p.naiveBytes(), adm.orElse(0), ort == null ? 0 : ort.predictedBytes().orElse(0));
        out.println("owners     " + plan.schedule().numOwners());
        out.println("strategy   " + p.strategy());
        if (p.strategy() == Strategy.SLOTS) {
            out.println("slots      " + p.numSlots());
        }
        out.println("naive      " + TextReport.bytes(p.naiveBytes(), w));
        out.println("peak       " + TextReport.bytes(p.peakBytes(), w));
        out.println(String.format(Locale.ROOT, "savings    %.1f%%", 100 * p.savingsRatio()));
        OnnxReport.LivePeak at = OnnxReport.livePeak(plan, 3);
        out.println("lower bnd  " + TextReport.bytes(p.lowerBoundBytes(), w) + "  at position " + at.position()
                + " (" + TerminalText.escape(at.nodeName()) + ")");
        for (OnnxReport.LiveTensor t : at.largest()) {
            out.println("           " + TextReport.bytes(t.bytes(), w) + "  " + TerminalText.escape(t.onnxName()));
        }
        for (OnnxPlan.NodeNeed n : plan.controlFlow()) {
            out.println("transient  " + (n.transientNeed().isPresent()
                    ? TextReport.bytes(n.transientNeed().getAsLong(), w) : "deferred") + "  "
                    + TerminalText.escape(n.nodeName()) + " (" + TerminalText.escape(n.opType()) + ")");
        }
        out.println("in-place   " + InPlaceSavings.of(plan.schedule(), p, plan.bindings()).line());
        out.println("admission  " + (adm.isPresent() ? TextReport.bytes(adm.getAsLong(), w) : "deferred"));
        if (ort != null && ort.predictedBytes().isEmpty()) { // a body sized at run time: as admission
            out.println(column(ort) + "deferred  for " + ort.memory() + " (level " + ort.level() + ")");
        } else if (ort != null) { // beside memplan's own figure, never instead of it
            long predicted = ort.predictedBytes().getAsLong();
            out.println(column(ort) + TextReport.bytes(predicted, w) + "  predicted for " + ort.memory()
                    + " (level " + ort.level() + ", any intra-op threads): "
                    + String.format(Locale.ROOT, "%.2f", p.peakBytes() == 0 ? 0.0
                            : (double) predicted / p.peakBytes()) + "x the peak");
            if (!ort.unmodelledOps().isEmpty()) { // say where the figure is an allowance, not a replay
                out.println("           an allowance, not a measured rule, for the kernels of "
                        + String.join(", ", ort.escapedUnmodelledOps()));
            }
        }
        if (ort != null && !ort.measuredOps().isEmpty()) { // no rule here: ORT measured when compiled
            out.println("           measured in ONNX Runtime when compiled: " + String.join(", ",
                    ort.escapedMeasuredOps()));
        }
    }

    /** The runtime's name as the report's first column ("ort        "). */
    private static String column(RuntimeFigure figure) {
        return String.format(Locale.ROOT, "%-11s", figure.runtime());
    }

    /** The width of the largest of {@code counts} with thousands separators. */
    private static int width(long... counts) {
        long max = 0;
        for (long n : counts) {
            max = Math.max(max, n);
        }
        return String.format(Locale.ROOT, "%,d", max).length();
    }
}
