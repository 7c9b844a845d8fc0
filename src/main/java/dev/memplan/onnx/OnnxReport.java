// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Strategy;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A plan read for people: the command line's text summary, and where the most bytes are live at
 * once with the largest tensors there. The JSON form is {@code dev.memplan.json.OnnxPlanJson}.
 */
public final class OnnxReport {
    private OnnxReport() {
    }

    /** One live tensor at a position. */
    public record LiveTensor(String onnxName, long bytes) {
    }

    /**
     * Where the most bytes are live at once (the lower bound) and the largest tensors live there.
     *
     * @param position  order position
     * @param nodeName  the node that runs there
     * @param liveBytes bytes live there (equals the plan's lower bound)
     * @param largest   the largest live owners, largest first
     */
    public record LivePeak(int position, String nodeName, long liveBytes, List<LiveTensor> largest) {
    }

    /**
     * {@return the position where the most bytes are live, with its {@code top} largest live tensors}
     *
     * @param plan the plan
     * @param top how many of the largest live owners to list
     */
    public static LivePeak livePeak(OnnxPlan plan, int top) {
        ActivationPlan ap = plan.plan();
        Schedule s = plan.schedule();
        int positions = Math.max(1, s.numPositions());
        long[] delta = new long[positions + 1];
        for (int o = 0; o < s.numOwners(); o++) {
            long bytes = ap.sizeOf(s.ownerValue(o));
            delta[s.def(o)] += bytes;
            delta[s.useEnd(o) + 1] -= bytes;
        }
        long live = 0;
        long best = -1;
        int at = 0;
        for (int p = 0; p < positions; p++) {
            live += delta[p];
            if (live > best) {
                best = live;
                at = p;
            }
        }
        List<LiveTensor> tensors = new ArrayList<>();
        for (int o = 0; o < s.numOwners(); o++) {
            if (s.def(o) <= at && at <= s.useEnd(o)) {
                int v = s.ownerValue(o);
                tensors.add(new LiveTensor(s.graph().value(v).name(), ap.sizeOf(v)));
            }
        }
        tensors.sort((x, y) -> Long.compare(y.bytes(), x.bytes()));
        Graph g = s.graph();
        String node = s.order().length == 0 ? "" : g.node(s.order()[at]).displayName();
        return new LivePeak(at, node, Math.max(best, 0), List.copyOf(tensors.subList(0, Math.min(top, tensors.size()))));
    }

    /**
     * {@return a short human-readable summary of the plan, for the command line's text format}
     *
     * @param modelName the model's name for the first line
     * @param plan the plan
     */
    public static String text(String modelName, OnnxPlan plan) {
        ImportedGraph imp = plan.imported();
        StringBuilder sb = new StringBuilder();
        sb.append("model      ").append(modelName).append('\n');
        sb.append("nodes      ").append(imp.graph().nodeCount()).append('\n');
        sb.append("weights    ").append(imp.totalWeightBytes()).append(" bytes (folded ").append(imp.foldedBytes())
                .append(" bytes in ").append(imp.foldedValues()).append(" values)\n");
        if (!(plan.result() instanceof PlanResult.Complete c)) {
            sb.append("plan       deferred: bind ").append(String.join(", ", plan.unboundSymbols())).append('\n');
            return sb.toString();
        }
        ActivationPlan p = c.plan();
        sb.append("owners     ").append(plan.schedule().numOwners()).append('\n');
        sb.append("strategy   ").append(p.strategy()).append('\n');
        if (p.strategy() == Strategy.SLOTS) {
            sb.append("slots      ").append(p.numSlots()).append('\n');
        }
        sb.append("naive      ").append(p.naiveBytes()).append(" bytes\n");
        sb.append("peak       ").append(p.peakBytes()).append(" bytes\n");
        sb.append(String.format(java.util.Locale.ROOT, "savings    %.1f%%%n", 100 * p.savingsRatio()));
        LivePeak at = livePeak(plan, 3);
        sb.append("lower bnd  ").append(p.lowerBoundBytes()).append(" bytes at position ").append(at.position())
                .append(" (").append(at.nodeName()).append(")\n");
        for (LiveTensor t : at.largest()) {
            sb.append("           ").append(t.onnxName()).append(' ').append(t.bytes()).append(" bytes\n");
        }
        for (OnnxPlan.NodeNeed n : plan.controlFlow()) {
            sb.append("transient  ").append(n.node().nodeName()).append(" (").append(n.node().opType()).append(") ")
                    .append(n.transientNeed().isPresent() ? n.transientNeed().getAsLong() + " bytes" : "deferred")
                    .append('\n');
        }
        OptionalLong adm = plan.admissionBytes();
        sb.append("admission  ").append(adm.isPresent() ? adm.getAsLong() + " bytes" : "deferred").append('\n');
        return sb.toString();
    }
}
