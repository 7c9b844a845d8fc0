// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.Graph;
import dev.memplan.Node;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntToLongFunction;

/**
 * The baseline the engines are measured against: a straight port of the seed planner
 * ({@code shared/seed/plan.rs.txt}) with its own map-based liveness. Best fit is a linear scan
 * over a free list, and every lookup goes through a hash map of boxed ids, as in the seed. Kept
 * here, in the benchmark project only, so nobody plans with it by accident.
 */
final class NaivePlanner {
    private NaivePlanner() {
    }

    /** Owner {@code [def, useEnd]} positions. */
    static final class Interval {
        final int def;
        int useEnd;

        Interval(int def) {
            this.def = def;
            this.useEnd = def;
        }
    }

    /** The seed's {@code compute_liveness} result. */
    record Liveness(List<Integer> order, List<Integer> owners, Map<Integer, Interval> intervals) {
    }

    /** The seed's plan, reduced to what the benchmark compares. */
    record Plan(Map<Integer, Integer> assignments, List<Long> slotCapacities, long peakBytes, long naiveBytes) {
        int numSlots() {
            return slotCapacities.size();
        }
    }

    /** Kahn's order (smallest ready id first), owners and their intervals, all in hash maps. */
    static Liveness liveness(Graph graph, ViewMap views, boolean includeGraphInputs) {
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
                    intervals.put(v, new Interval(0));
                }
            }
        }
        for (int p = 0; p < order.size(); p++) {
            for (int v : graph.node(order.get(p)).outputs()) {
                if (!views.isView(v) && !graph.isInitializer(v)) {
                    owners.add(v);
                    intervals.put(v, new Interval(p));
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

    /** The seed's {@code plan_activations} after liveness: sizes by value id, linear-scan best fit. */
    static Plan plan(Graph graph, Liveness live, IntToLongFunction sizeOf, boolean includeGraphInputs) {
        Map<Integer, Long> sizes = new HashMap<>();
        for (int owner : live.owners()) {
            sizes.put(owner, sizeOf.applyAsLong(owner));
        }
        long naive = 0;
        for (int owner : live.owners()) {
            naive += sizes.get(owner);
        }
        Map<Integer, List<Integer>> retireAt = new HashMap<>();
        for (Map.Entry<Integer, Interval> e : live.intervals().entrySet()) {
            retireAt.computeIfAbsent(e.getValue().useEnd, k -> new ArrayList<>()).add(e.getKey());
        }
        List<Long> slots = new ArrayList<>();
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
                assignments.put(owner, allocate(sizes.get(owner), slots, free));
            }
        }
        List<Integer> order = live.order();
        for (int i = 0; i < order.size(); i++) {
            for (int out : graph.node(order.get(i)).outputs()) {
                if (live.intervals().containsKey(out)) {
                    assignments.put(out, allocate(sizes.get(out), slots, free));
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
        for (long c : slots) {
            peak += c;
        }
        return new Plan(assignments, slots, peak, naive);
    }

    /** Best fit over the free list: smallest capacity >= need, then lowest slot id; else a new slot. */
    private static int allocate(long need, List<Long> slots, List<Integer> free) {
        int bestIndex = -1;
        long bestCap = 0;
        int bestId = 0;
        for (int i = 0; i < free.size(); i++) {
            int id = free.get(i);
            long cap = slots.get(id);
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
        slots.add(need);
        return slots.size() - 1;
    }
}
