package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Node;
import dev.memplan.Schedule;
import dev.memplan.ViewMap;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Checks a plan against liveness recomputed here from the graph, not from the schedule: a stand-in
 * for {@code PlanValidator.validate(plan)} (being written on another branch). When that lands,
 * {@link #assertValid} should call it instead.
 */
final class PlanChecks {
    private PlanChecks() {
    }

    static void assertValid(ActivationPlan plan) {
        Schedule s = plan.schedule();
        Graph g = s.graph();
        ViewMap views = s.views();
        int[] position = kahnPositions(g);
        int last = Math.max(g.nodeCount(), 1) - 1;
        boolean includeInputs = s.options().includeGraphInputs();
        int n = g.valueCount();
        int[] def = new int[n];
        int[] useEnd = new int[n];
        boolean[] owner = new boolean[n];
        for (int v = 0; v < n; v++) {
            int producer = g.value(v).producer();
            boolean isView = views.isView(v);
            owner[v] = !isView && !g.isInitializer(v) && (producer >= 0 || (includeInputs && g.isGraphInput(v)));
            def[v] = producer >= 0 ? position[producer] : 0;
            useEnd[v] = def[v];
        }
        for (Node node : g.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u >= 0) {
                    int r = views.root(u);
                    useEnd[r] = Math.max(useEnd[r], position[node.id()]);
                }
            }
        }
        for (int out : g.outputs()) {
            useEnd[views.root(out)] = last;
        }
        // Owners by slot, then by def: within a slot consecutive intervals must not overlap.
        Integer[] owners = new Integer[n];
        int count = 0;
        long naive = 0;
        java.util.List<ActivationPlan.Slot> slots = plan.slots();
        for (int id = 0; id < n; id++) {
            final int v = id;
            int slot = plan.slotOf(v);
            if (!owner[v]) {
                assertEquals(-1, slot, () -> g.value(v).describe() + " owns no buffer but has a slot");
                continue;
            }
            if (slot < 0 || slot >= plan.numSlots()) {
                fail(g.value(v).describe() + " is an owner without a valid slot: " + slot);
            }
            long size = plan.sizeOf(v);
            assertTrue(size <= slots.get(slot).capacityBytes(),
                    () -> g.value(v).describe() + " does not fit its slot " + slot);
            naive += size;
            owners[count++] = v;
        }
        assertEquals(s.numOwners(), count, "owner count");
        Integer[] sorted = Arrays.copyOf(owners, count);
        Arrays.sort(sorted, (a, b) -> plan.slotOf(a) != plan.slotOf(b)
                ? Integer.compare(plan.slotOf(a), plan.slotOf(b)) : Integer.compare(def[a], def[b]));
        for (int i = 1; i < count; i++) {
            int a = sorted[i - 1];
            int b = sorted[i];
            if (plan.slotOf(a) == plan.slotOf(b) && def[b] <= useEnd[a]) {
                fail(g.value(a).describe() + " [" + def[a] + ", " + useEnd[a] + "] and " + g.value(b).describe()
                        + " [" + def[b] + ", " + useEnd[b] + "] overlap but share slot " + plan.slotOf(a));
            }
        }
        long peak = slots.stream().mapToLong(ActivationPlan.Slot::capacityBytes).sum();
        assertEquals(peak, plan.peakBytes(), "peak is the sum of slot capacities");
        assertEquals(naive, plan.naiveBytes(), "naive is the sum of owner sizes");
        assertTrue(plan.lowerBoundBytes() <= plan.peakBytes(), "lower bound <= peak");
    }

    /** Kahn's order, smallest ready node id first, as node id -> position. */
    private static int[] kahnPositions(Graph g) {
        int nodes = g.nodeCount();
        int[] indegree = new int[nodes];
        int[][] consumers = new int[g.valueCount()][];
        int[] consumerCount = new int[g.valueCount()];
        for (Node node : g.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u >= 0 && g.value(u).producer() >= 0) {
                    indegree[node.id()]++;
                    consumerCount[u]++;
                }
            }
        }
        for (int v = 0; v < consumers.length; v++) {
            consumers[v] = new int[consumerCount[v]];
            consumerCount[v] = 0;
        }
        for (Node node : g.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u >= 0 && g.value(u).producer() >= 0) {
                    consumers[u][consumerCount[u]++] = node.id();
                }
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int i = 0; i < nodes; i++) {
            if (indegree[i] == 0) {
                ready.add(i);
            }
        }
        int[] position = new int[nodes];
        int p = 0;
        while (!ready.isEmpty()) {
            int next = ready.poll();
            position[next] = p++;
            Node node = g.node(next);
            for (int k = 0; k < node.outputCount(); k++) {
                for (int c : consumers[node.output(k)]) {
                    if (--indegree[c] == 0) {
                        ready.add(c);
                    }
                }
            }
        }
        assertEquals(nodes, p, "the generated graph must be acyclic");
        return position;
    }
}
