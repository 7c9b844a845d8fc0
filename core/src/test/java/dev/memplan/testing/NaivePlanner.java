// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.Graph.Node;
import dev.memplan.PlanOptions;
import dev.memplan.SizeOracle;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;

/**
 * The seed's slot planner ({@code ../shared/seed/plan.rs.txt}) restated as literally as Java
 * allows, with its own liveness: every lookup goes through a hash map of boxed ids and best fit is
 * a linear scan over a free list, as in the seed. Two users, one algorithm: the tests compare every
 * engine's plans with {@link #plan} (what it gives is what every engine must give), and the
 * benchmarks (through this project's test-jar) measure {@link #liveness} and {@link #allocate} as
 * the baseline the engines are compared against. Kept out of the library so nobody plans with it
 * by accident.
 */
public final class NaivePlanner {

    /** An owner's {@code [def, useEnd]} in order positions; {@code useEnd} grows while liveness runs. */
    public static final class Interval {
        private final int def;
        private int useEnd;

        /**
         * @param def    the position of the owner's producer (0 for a graph input)
         * @param useEnd the last position that reads it
         */
        public Interval(int def, int useEnd) {
            this.def = def;
            this.useEnd = useEnd;
        }

        /** {@return the position where the owner is defined} */
        public int def() {
            return def;
        }

        /** {@return the last position where the owner is live} */
        public int useEnd() {
            return useEnd;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Interval i && i.def == def && i.useEnd == useEnd;
        }

        @Override
        public int hashCode() {
            return Objects.hash(def, useEnd);
        }

        @Override
        public String toString() {
            return "[" + def + ", " + useEnd + "]";
        }
    }

    /**
     * The seed's {@code compute_liveness} result.
     *
     * @param order     node ids in execution order
     * @param owners    owner value ids, graph inputs first, then in order of definition
     * @param intervals owner value id to its interval
     */
    public record Liveness(List<Integer> order, List<Integer> owners, Map<Integer, Interval> intervals) {
    }

    /**
     * Slots from best fit.
     *
     * @param assignments owner value id to slot id
     * @param capacities  slot capacities in bytes, by slot id
     * @param peakBytes   the sum of the capacities
     * @param naiveBytes  the sum of the owner sizes
     */
    public record Slots(Map<Integer, Integer> assignments, List<Long> capacities, long peakBytes, long naiveBytes) {
        /** {@return how many slots best fit opened} */
        public int numSlots() {
            return capacities.size();
        }
    }

    /** What {@link #plan} gave: a plan, or the owners without a size. */
    public sealed interface Result permits Plan, Deferred {
    }

    /** @param unknownSizes the owners whose size the oracle did not know, ascending */
    public record Deferred(List<Integer> unknownSizes) implements Result {
    }

    /**
     * @param order       node ids in execution order
     * @param intervals   owner value id to its interval
     * @param sizes       owner value id to its aligned size
     * @param assignments owner value id to slot id
     * @param capacities  slot capacities by slot id
     */
    public record Plan(List<Integer> order, Map<Integer, Interval> intervals, Map<Integer, Long> sizes,
                       Map<Integer, Integer> assignments, List<Long> capacities, long peakBytes, long naiveBytes,
                       long lowerBoundBytes) implements Result {
    }

    private NaivePlanner() {
    }

    /**
     * Plans {@code graph} as the seed does: liveness, sizes from {@code oracle} aligned to the
     * options' alignment (or the unknown ones, deferred), best fit, and the lower bound (quadratic:
     * for small graphs only).
     *
     * @throws InvalidSizeException when the oracle gives a negative size
     */
    public static Result plan(Graph graph, ViewMap views, SizeOracle oracle, PlanOptions options) {
        Liveness live = liveness(graph, views, options.includeGraphInputs());
        // Owners are visited in ascending id, so "unknown" comes out sorted.
        Map<Integer, Long> sizes = new HashMap<>();
        List<Integer> unknown = new ArrayList<>();
        for (int owner : new TreeMap<>(live.intervals()).keySet()) {
            Value value = graph.value(owner);
            OptionalLong bytes = oracle.bytes(value);
            if (bytes.isEmpty()) {
                unknown.add(owner);
                continue;
            }
            if (bytes.getAsLong() < 0) {
                throw new InvalidSizeException("negative size for " + value.describe());
            }
            sizes.put(owner, roundUp(bytes.getAsLong(), options.alignment()));
        }
        if (!unknown.isEmpty()) {
            return new Deferred(unknown);
        }
        Slots slots = allocate(graph, live, sizes::get, options.includeGraphInputs());
        return new Plan(live.order(), live.intervals(), sizes, slots.assignments(), slots.capacities(),
                slots.peakBytes(), slots.naiveBytes(),
                lowerBound(live.intervals(), sizes, Math.max(live.order().size(), 1)));
    }

    /**
     * Kahn's order (smallest ready node id first), owners and their intervals, all in hash maps.
     *
     * @throws IllegalArgumentException when the graph has a cycle
     */
    public static Liveness liveness(Graph graph, ViewMap views, boolean includeGraphInputs) {
        Map<Integer, List<Integer>> consumers = new HashMap<>();
        Map<Integer, Integer> indegree = new HashMap<>();
        for (Node node : graph.nodes()) {
            int waits = 0;
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u >= 0 && graph.value(u).producer() >= 0) {
                    consumers.computeIfAbsent(u, k -> new ArrayList<>()).add(node.id());
                    waits++;
                }
            }
            indegree.put(node.id(), waits);
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (Map.Entry<Integer, Integer> e : indegree.entrySet()) {
            if (e.getValue() == 0) {
                ready.add(e.getKey());
            }
        }
        List<Integer> order = new ArrayList<>();
        while (!ready.isEmpty()) {
            int n = ready.poll();
            order.add(n);
            for (int out : graph.node(n).outputs()) {
                for (int c : consumers.getOrDefault(out, List.of())) {
                    int left = indegree.merge(c, -1, Integer::sum);
                    if (left == 0) {
                        ready.add(c);
                    }
                }
            }
        }
        if (order.size() != graph.nodeCount()) {
            throw new IllegalArgumentException("the graph has a cycle");
        }

        List<Integer> owners = new ArrayList<>();
        Map<Integer, Interval> intervals = new HashMap<>();
        if (includeGraphInputs) {
            for (int v : graph.inputs()) {
                if (!views.isView(v) && !graph.isInitializer(v)) {
                    owners.add(v);
                    intervals.put(v, new Interval(0, 0));
                }
            }
        }
        for (int p = 0; p < order.size(); p++) {
            for (int v : graph.node(order.get(p)).outputs()) {
                if (!views.isView(v) && !graph.isInitializer(v)) {
                    owners.add(v);
                    intervals.put(v, new Interval(p, p));
                }
            }
        }
        for (int p = 0; p < order.size(); p++) {
            for (int u : graph.node(order.get(p)).inputs()) {
                if (u >= 0) {
                    Interval iv = intervals.get(views.root(u));
                    if (iv != null && iv.useEnd < p) {
                        iv.useEnd = p;
                    }
                }
            }
        }
        int last = Math.max(graph.nodeCount(), 1) - 1;
        for (int out : graph.outputs()) {
            Interval iv = intervals.get(views.root(out));
            if (iv != null) {
                iv.useEnd = last;
            }
        }
        return new Liveness(order, owners, intervals);
    }

    /**
     * The seed's {@code plan_activations} after liveness: best fit by a linear scan, graph inputs
     * first (when included), then each position's outputs before its retiring owners are freed.
     *
     * @param sizeOf the size in bytes of each owner, by value id
     */
    public static Slots allocate(Graph graph, Liveness live, IntToLongFunction sizeOf, boolean includeGraphInputs) {
        Map<Integer, Long> sizes = new HashMap<>();
        for (int owner : live.owners()) {
            sizes.put(owner, sizeOf.applyAsLong(owner));
        }
        long naive = 0;
        for (int owner : live.owners()) {
            naive = Math.addExact(naive, sizes.get(owner));
        }
        Map<Integer, List<Integer>> retireAt = new HashMap<>();
        for (Map.Entry<Integer, Interval> e : live.intervals().entrySet()) {
            retireAt.computeIfAbsent(e.getValue().useEnd, k -> new ArrayList<>()).add(e.getKey());
        }
        List<Long> capacities = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        Map<Integer, Integer> assignments = new HashMap<>();
        if (includeGraphInputs) {
            List<Integer> inputs = new ArrayList<>();
            for (int owner : live.owners()) {
                if (graph.value(owner).producer() < 0) {
                    inputs.add(owner);
                }
            }
            inputs.sort(null);
            for (int owner : inputs) {
                assignments.put(owner, bestFit(sizes.get(owner), capacities, free));
            }
        }
        List<Integer> order = live.order();
        for (int i = 0; i < order.size(); i++) {
            for (int out : graph.node(order.get(i)).outputs()) {
                if (live.intervals().containsKey(out)) {
                    assignments.put(out, bestFit(sizes.get(out), capacities, free));
                }
            }
            List<Integer> retiring = retireAt.get(i);
            if (retiring != null) {
                for (int owner : retiring) {
                    Integer slot = assignments.get(owner);
                    if (slot != null) {
                        free.add(slot);
                    }
                }
            }
        }
        long peak = 0;
        for (long c : capacities) {
            peak += c;
        }
        return new Slots(assignments, capacities, peak, naive);
    }

    /** Best fit over the free list: smallest capacity >= need, then lowest slot id; else a new slot. */
    private static int bestFit(long need, List<Long> capacities, List<Integer> free) {
        int bestIndex = -1;
        long bestCap = 0;
        int bestId = 0;
        for (int i = 0; i < free.size(); i++) {
            int id = free.get(i);
            long cap = capacities.get(id);
            if (cap < need) {
                continue;
            }
            if (bestIndex < 0 || cap < bestCap || (cap == bestCap && id < bestId)) {
                bestIndex = i;
                bestCap = cap;
                bestId = id;
            }
        }
        if (bestIndex >= 0) {
            return free.remove(bestIndex);
        }
        capacities.add(need);
        return capacities.size() - 1;
    }

    /** The most bytes live at one position, position by position (quadratic). */
    private static long lowerBound(Map<Integer, Interval> intervals, Map<Integer, Long> sizes, int positions) {
        long best = 0;
        for (int p = 0; p < positions; p++) {
            long live = 0;
            for (Map.Entry<Integer, Interval> e : intervals.entrySet()) {
                if (e.getValue().def() <= p && p <= e.getValue().useEnd()) {
                    live += sizes.get(e.getKey());
                }
            }
            best = Math.max(best, live);
        }
        return best;
    }

    private static long roundUp(long bytes, long alignment) {
        long rem = bytes % alignment;
        return rem == 0 ? bytes : Math.addExact(bytes, alignment - rem);
    }
}
