// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.Node;
import dev.memplan.PlanOptions;
import dev.memplan.SizeOracle;
import dev.memplan.Value;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * A deliberately naive reference planner, kept in test code: the seed's algorithm
 * ({@code ../shared/seed/plan.rs.txt}) as literally as Java allows, with its own liveness. Quadratic
 * order (scan for the smallest ready node), hash maps everywhere, a linear scan over a free list.
 * Only for small graphs; what it gives is what every engine must give.
 */
public final class NaivePlanner {

    /** {@code [def, useEnd]} in order positions. */
    public record Interval(int def, int useEnd) {
    }

    /** What planning gave: a plan, or the owners without a size. */
    public sealed interface Result permits Plan, Deferred {
    }

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

    public static Result plan(Graph graph, ViewMap views, SizeOracle oracle, PlanOptions options) {
        List<Integer> order = naiveOrder(graph);
        Map<Integer, Interval> intervals = liveness(graph, views, options.includeGraphInputs(), order);

        // Sizes, or defer. Owners are visited in ascending id, so "unknown" comes out sorted.
        Map<Integer, Long> sizes = new HashMap<>();
        List<Integer> unknown = new ArrayList<>();
        for (int owner : new TreeMap<>(intervals).keySet()) {
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
        long naive = 0;
        for (long s : sizes.values()) {
            naive = Math.addExact(naive, s);
        }

        Map<Integer, List<Integer>> retireAt = new HashMap<>();
        for (Map.Entry<Integer, Interval> e : intervals.entrySet()) {
            retireAt.computeIfAbsent(e.getValue().useEnd(), k -> new ArrayList<>()).add(e.getKey());
        }
        List<Long> capacities = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        Map<Integer, Integer> assignments = new HashMap<>();

        if (options.includeGraphInputs()) {
            List<Integer> inputOwners = new ArrayList<>();
            for (int owner : intervals.keySet()) {
                if (graph.value(owner).producer() < 0) {
                    inputOwners.add(owner);
                }
            }
            inputOwners.sort(null);
            for (int owner : inputOwners) {
                assignments.put(owner, allocate(sizes.get(owner), capacities, free));
            }
        }
        for (int i = 0; i < order.size(); i++) {
            for (int out : graph.node(order.get(i)).outputs()) {
                if (intervals.containsKey(out)) {
                    assignments.put(out, allocate(sizes.get(out), capacities, free));
                }
            }
            for (int owner : retireAt.getOrDefault(i, List.of())) {
                Integer slot = assignments.get(owner);
                if (slot != null) {
                    free.add(slot);
                }
            }
        }
        long peak = 0;
        for (long c : capacities) {
            peak += c;
        }
        return new Plan(order, intervals, sizes, assignments, capacities, peak, naive,
                lowerBound(intervals, sizes, Math.max(order.size(), 1)));
    }

    /** Best fit by a linear scan: smallest capacity >= need, then lowest id; else a new slot. */
    private static int allocate(long need, List<Long> capacities, List<Integer> free) {
        int bestIndex = -1;
        for (int i = 0; i < free.size(); i++) {
            long cap = capacities.get(free.get(i));
            if (cap < need) {
                continue;
            }
            if (bestIndex < 0) {
                bestIndex = i;
                continue;
            }
            long bestCap = capacities.get(free.get(bestIndex));
            if (cap < bestCap || (cap == bestCap && free.get(i) < free.get(bestIndex))) {
                bestIndex = i;
            }
        }
        if (bestIndex >= 0) {
            return free.remove(bestIndex);
        }
        capacities.add(need);
        return capacities.size() - 1;
    }

    /** Repeatedly runs the smallest-id node whose produced inputs all exist. */
    private static List<Integer> naiveOrder(Graph graph) {
        Set<Integer> available = new HashSet<>();
        Set<Integer> done = new HashSet<>();
        List<Integer> order = new ArrayList<>();
        while (order.size() < graph.nodeCount()) {
            int next = -1;
            for (Node node : graph.nodes()) {
                if (done.contains(node.id())) {
                    continue;
                }
                boolean ready = true;
                for (int u : node.inputs()) {
                    if (u != Graph.ABSENT && graph.value(u).producer() >= 0 && !available.contains(u)) {
                        ready = false;
                    }
                }
                if (ready) {
                    next = node.id();
                    break;
                }
            }
            if (next < 0) {
                throw new IllegalStateException("cycle");
            }
            done.add(next);
            order.add(next);
            for (int v : graph.node(next).outputs()) {
                available.add(v);
            }
        }
        return order;
    }

    private static int root(ViewMap views, int value) {
        Map<Integer, Integer> edges = views.edges();
        int v = value;
        while (edges.containsKey(v)) {
            v = edges.get(v);
        }
        return v;
    }

    private static Map<Integer, Interval> liveness(Graph graph, ViewMap views, boolean includeInputs,
                                                   List<Integer> order) {
        Map<Integer, Integer> position = new HashMap<>();
        for (int p = 0; p < order.size(); p++) {
            position.put(order.get(p), p);
        }
        Map<Integer, Integer> def = new HashMap<>();
        for (Value v : graph.values()) {
            boolean isOwner = !graph.isInitializer(v.id()) && !views.isView(v.id())
                    && (v.producer() >= 0 || (includeInputs && graph.isGraphInput(v.id())));
            if (isOwner) {
                def.put(v.id(), v.producer() >= 0 ? position.get(v.producer()) : 0);
            }
        }
        Map<Integer, Integer> useEnd = new HashMap<>(def);
        for (Node node : graph.nodes()) {
            for (int u : node.inputs()) {
                if (u == Graph.ABSENT) {
                    continue;
                }
                int r = root(views, u);
                if (useEnd.containsKey(r)) {
                    useEnd.put(r, Math.max(useEnd.get(r), position.get(node.id())));
                }
            }
        }
        int last = Math.max(order.size(), 1) - 1;
        for (int out : graph.outputs()) {
            int r = root(views, out);
            if (useEnd.containsKey(r)) {
                useEnd.put(r, last);
            }
        }
        Map<Integer, Interval> intervals = new HashMap<>();
        def.forEach((v, d) -> intervals.put(v, new Interval(d, useEnd.get(v))));
        return intervals;
    }

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
