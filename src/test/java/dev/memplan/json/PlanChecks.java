package dev.memplan.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Node;
import dev.memplan.Schedule;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks every plan these tests make. Stand-in for {@code PlanValidator.validate(plan)}, which is
 * being written on another branch: when it reaches main, {@link #validate} should call it (and may
 * keep these checks). It recomputes liveness from the graph and the views itself, from the
 * schedule's order only, and rejects two overlapping owners in one slot, an owner without a valid
 * slot, a slot smaller than an owner in it, and intervals that differ from the schedule's.
 */
public final class PlanChecks {
    private PlanChecks() {
    }

    public static ActivationPlan validate(ActivationPlan plan) {
        Schedule s = plan.schedule();
        Graph g = s.graph();
        ViewMap views = s.views();
        int[] order = s.order();
        int last = Math.max(0, order.length - 1);
        int[] position = new int[g.nodeCount()];
        for (int i = 0; i < order.length; i++) {
            position[order[i]] = i;
        }
        boolean includeInputs = s.options().includeGraphInputs();
        int n = g.valueCount();
        int[] def = new int[n];
        int[] useEnd = new int[n];
        boolean[] owner = new boolean[n];
        Arrays.fill(def, -1);
        for (int v = 0; v < n; v++) {
            boolean produced = g.value(v).producer() >= 0;
            owner[v] = !g.isInitializer(v) && !views.isView(v) && (produced || includeInputs && g.isGraphInput(v));
            if (owner[v]) {
                def[v] = produced ? position[g.value(v).producer()] : 0;
                useEnd[v] = def[v];
            }
        }
        for (Node node : g.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int v = node.input(i);
                if (v != Graph.ABSENT && owner[views.root(v)]) {
                    int r = views.root(v);
                    useEnd[r] = Math.max(useEnd[r], position[node.id()]);
                }
            }
        }
        for (int v : g.outputs()) {
            int r = views.root(v);
            if (owner[r]) {
                useEnd[r] = last;
            }
        }
        int numSlots = plan.numSlots();
        List<ActivationPlan.Slot> slots = plan.slots();
        List<List<Integer>> bySlot = new ArrayList<>();
        for (int i = 0; i < numSlots; i++) {
            bySlot.add(new ArrayList<>());
        }
        int owners = 0;
        for (int v = 0; v < n; v++) {
            int o = s.ownerIndexOf(v);
            assertEquals(owner[v], o >= 0, "owner status of " + g.value(v).describe());
            if (!owner[v]) {
                assertEquals(-1, plan.slotOf(v), g.value(v).describe() + " owns no slot");
                continue;
            }
            owners++;
            assertEquals(def[v], s.def(o), "def of " + g.value(v).describe());
            assertEquals(useEnd[v], s.useEnd(o), "useEnd of " + g.value(v).describe());
            int slot = plan.slotOf(v);
            assertTrue(slot >= 0 && slot < numSlots, g.value(v).describe() + " has slot " + slot);
            assertTrue(plan.sizeOf(v) <= slots.get(slot).capacityBytes(),
                    "slot " + slot + " is smaller than " + g.value(v).describe());
            bySlot.get(slot).add(v);
        }
        assertEquals(owners, s.numOwners());
        long peak = 0;
        for (int slot = 0; slot < numSlots; slot++) {
            List<Integer> in = bySlot.get(slot);
            in.sort((a, b) -> Integer.compare(def[a], def[b]));
            for (int i = 1; i < in.size(); i++) {
                int prev = in.get(i - 1);
                int cur = in.get(i);
                if (def[cur] <= useEnd[prev]) {
                    fail("values " + prev + " and " + cur + " overlap but share slot " + slot);
                }
            }
            peak += slots.get(slot).capacityBytes();
        }
        assertEquals(peak, plan.peakBytes(), "peak is the sum of capacities");
        return plan;
    }
}
