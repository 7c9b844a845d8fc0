// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Schedule;
import dev.memplan.server.OnnxPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the most bytes of a plan are live at once, with the largest tensors there: the facts the
 * reports add to a plan. One text rendering (the command line's {@code plan} summary) and one JSON
 * rendering ({@code dev.memplan.cli.OnnxPlanJson}) show them.
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
        ActivationPlan.Layout s = plan.schedule();
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
}
