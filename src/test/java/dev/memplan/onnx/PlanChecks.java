package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Node;
import dev.memplan.Schedule;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a plan independently of the engines: recomputes owners and lifetimes from the graph, the
 * views and the node order, then rejects overlapping owners in one slot, undersized slots and
 * owners without a slot. Stands in for PlanValidator.validate until the shared validator lands on
 * main; switch {@link #validate} to call it then.
 */
final class PlanChecks {
    private PlanChecks() {
    }

    static void validate(ActivationPlan plan) {
        Schedule s = plan.schedule();
        Graph g = s.graph();
        ViewMap views = s.views();
        int[] order = s.order();
        int[] pos = new int[g.nodeCount()];
        for (int p = 0; p < order.length; p++) {
            pos[order[p]] = p;
        }
        int last = Math.max(0, order.length - 1);
        int n = g.valueCount();
        int[] def = new int[n];
        int[] end = new int[n];
        boolean[] owner = new boolean[n];
        boolean includeInputs = s.options().includeGraphInputs();
        for (int v = 0; v < n; v++) {
            boolean produced = g.value(v).producer() >= 0;
            owner[v] = !g.isInitializer(v) && !views.isView(v) && (produced || (includeInputs && g.isGraphInput(v)));
            def[v] = produced ? pos[g.value(v).producer()] : 0;
            end[v] = def[v];
        }
        for (Node node : g.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int v = node.input(i);
                if (v >= 0) {
                    int r = views.root(v);
                    end[r] = Math.max(end[r], pos[node.id()]);
                }
            }
        }
        for (int v : g.outputs()) {
            end[views.root(v)] = last;
        }
        List<Integer> owners = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            if (owner[v]) {
                owners.add(v);
                int slot = plan.slotOf(v);
                assertTrue(slot >= 0 && slot < plan.numSlots(), "owner " + g.value(v).describe() + " has slot " + slot);
                assertTrue(plan.slots().get(slot).capacityBytes() >= plan.sizeOf(v),
                        "slot " + slot + " is smaller than " + g.value(v).describe());
            }
        }
        for (int i = 0; i < owners.size(); i++) {
            for (int j = i + 1; j < owners.size(); j++) {
                int a = owners.get(i);
                int b = owners.get(j);
                if (plan.slotOf(a) == plan.slotOf(b) && def[a] <= end[b] && def[b] <= end[a]) {
                    fail("overlapping owners " + g.value(a).describe() + " [" + def[a] + "," + end[a] + "] and "
                            + g.value(b).describe() + " [" + def[b] + "," + end[b] + "] share slot " + plan.slotOf(a));
                }
            }
        }
        long sum = 0;
        for (ActivationPlan.Slot slot : plan.slots()) {
            sum += slot.capacityBytes();
        }
        assertEquals(sum, plan.peakBytes(), "peak is the sum of slot capacities");
    }
}
