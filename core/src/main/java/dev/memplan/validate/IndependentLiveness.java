// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import java.util.Arrays;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Order, view roots, owners and intervals of a graph, recomputed from the {@link Graph} and
 * {@link ViewMap} objects alone, for {@link PlanValidator}. It shares no code with the engines on
 * purpose (a {@link PriorityQueue} instead of their int heap, a node-to-node edge list instead of
 * their value-consumer lists, views followed through {@link ViewMap#edges()}), so a bug in an
 * engine's liveness cannot hide itself from the validator.
 */
final class IndependentLiveness {
    /** Node ids in execution order; null when the nodes cannot be ordered. */
    final int[] order;
    /** The view root of each value id. */
    final int[] root;
    /** The owner of each value's bytes through views and in-place links: {@link #root} when none. */
    final int[] buffer;
    /** Why each in-place candidate was refused, by value id (null where none was); for messages. */
    final String[] refusal;
    /** Whether each value id owns a slot. */
    final boolean[] isOwner;
    /** {@code def} and {@code useEnd} by value id; meaningful for owners only. */
    final int[] def;
    final int[] useEnd;
    final int numPositions;
    final int numOwners;

    private IndependentLiveness(int[] order, int[] root, int[] buffer, String[] refusal, boolean[] isOwner,
                                int[] def, int[] useEnd, int numPositions, int numOwners) {
        this.order = order;
        this.root = root;
        this.buffer = buffer;
        this.refusal = refusal;
        this.isOwner = isOwner;
        this.def = def;
        this.useEnd = useEnd;
        this.numPositions = numPositions;
        this.numOwners = numOwners;
    }

    /** Recomputes everything; problems it meets (a cycle, a view cycle) go to {@code problems}. */
    static IndependentLiveness of(Graph graph, ViewMap views, boolean includeGraphInputs, boolean inPlace,
                                  Problems problems) {
        int numValues = graph.valueCount();
        int numNodes = graph.nodeCount();
        int numPositions = Math.max(numNodes, 1);
        int[] order = kahnOrder(graph, problems);
        int[] viewRoot = roots(numValues, views.edges(), graph, problems);
        String[] refusal = new String[numValues];
        int[] buffer = inPlace && order != null ? IndependentInPlace.buffers(graph, views, order, viewRoot, refusal)
                : viewRoot.clone();
        int[] root = buffer; // below, "root" is the owner of the bytes: the view root or the in-place buffer

        boolean[] isOwner = new boolean[numValues];
        int[] def = new int[numValues];
        int[] useEnd = new int[numValues];
        Arrays.fill(def, -1);
        Arrays.fill(useEnd, -1);
        int numOwners = 0;
        for (Value v : graph.values()) {
            int id = v.id();
            boolean needsBuffer = v.producer() >= 0 || (includeGraphInputs && graph.isGraphInput(id));
            if (needsBuffer && root[id] == id && !graph.isInitializer(id)) {
                isOwner[id] = true;
                numOwners++;
                def[id] = 0; // graph inputs; produced values get their producer's position below
                useEnd[id] = 0;
            }
        }
        if (order != null) {
            for (int p = 0; p < numNodes; p++) {
                Node node = graph.node(order[p]);
                for (int i = 0; i < node.outputCount(); i++) {
                    int v = node.output(i);
                    if (isOwner[v]) {
                        def[v] = p;
                        useEnd[v] = p;
                    }
                }
            }
            for (int p = 0; p < numNodes; p++) {
                Node node = graph.node(order[p]);
                for (int i = 0; i < node.inputCount(); i++) {
                    int u = node.input(i);
                    if (u != Graph.ABSENT && isOwner[root[u]]) {
                        useEnd[root[u]] = Math.max(useEnd[root[u]], p);
                    }
                }
            }
        }
        for (int out : graph.outputs()) {
            if (isOwner[root[out]]) {
                useEnd[root[out]] = numPositions - 1;
            }
        }
        return new IndependentLiveness(order, viewRoot, buffer, refusal, isOwner, def, useEnd, numPositions,
                numOwners);
    }

    /**
     * The most bytes live at one position: the sum of the sizes of the owners whose intervals
     * contain it, maximized over positions (a difference array, then a running sum).
     */
    long maxLiveBytes(long[] sizeByValue) {
        long[] delta = new long[numPositions + 1];
        for (int v = 0; v < isOwner.length; v++) {
            if (isOwner[v]) {
                delta[def[v]] += sizeByValue[v];
                delta[useEnd[v] + 1] -= sizeByValue[v];
            }
        }
        long live = 0;
        long max = 0;
        for (int p = 0; p < numPositions; p++) {
            live += delta[p];
            max = Math.max(max, live);
        }
        return max;
    }

    /** Kahn's algorithm over node-to-node edges, smallest ready node id first. */
    private static int[] kahnOrder(Graph graph, Problems problems) {
        int numNodes = graph.nodeCount();
        // edges producer -> consumer, one per consumed input slot, as CSR by producer
        int[] edgeCount = new int[numNodes + 1];
        int[] waitingOn = new int[numNodes];
        for (Node node : graph.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u != Graph.ABSENT && graph.value(u).producer() >= 0) {
                    edgeCount[graph.value(u).producer() + 1]++;
                    waitingOn[node.id()]++;
                }
            }
        }
        for (int n = 0; n < numNodes; n++) {
            edgeCount[n + 1] += edgeCount[n];
        }
        int[] successors = new int[edgeCount[numNodes]];
        int[] next = Arrays.copyOf(edgeCount, numNodes);
        for (Node node : graph.nodes()) {
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u != Graph.ABSENT && graph.value(u).producer() >= 0) {
                    successors[next[graph.value(u).producer()]++] = node.id();
                }
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int n = 0; n < numNodes; n++) {
            if (waitingOn[n] == 0) {
                ready.add(n);
            }
        }
        int[] order = new int[numNodes];
        int placed = 0;
        while (!ready.isEmpty()) {
            int n = ready.poll();
            order[placed++] = n;
            for (int e = edgeCount[n]; e < edgeCount[n + 1]; e++) {
                if (--waitingOn[successors[e]] == 0) {
                    ready.add(successors[e]);
                }
            }
        }
        if (placed != numNodes) {
            problems.add("the graph has a cycle: only " + placed + " of " + numNodes
                    + " nodes can be ordered, so no plan of it is valid");
            return null;
        }
        return order;
    }

    /** The root of every value, following view edges iteratively and remembering resolved roots. */
    private static int[] roots(int numValues, Map<Integer, Integer> edges, Graph graph, Problems problems) {
        int[] source = new int[numValues];
        Arrays.fill(source, -1);
        edges.forEach((view, src) -> source[view] = src);
        int[] root = new int[numValues];
        Arrays.fill(root, -1);
        int[] path = new int[edges.size() + 1];
        for (int start = 0; start < numValues; start++) {
            int v = start;
            int len = 0;
            while (root[v] < 0 && source[v] >= 0 && len <= edges.size()) {
                path[len++] = v;
                v = source[v];
            }
            int r;
            if (root[v] >= 0) {
                r = root[v];
            } else if (source[v] < 0) {
                r = v;
            } else {
                problems.add("view cycle through " + graph.value(start).describe());
                r = start;
            }
            root[start] = r;
            for (int i = 0; i < len; i++) {
                root[path[i]] = r;
            }
        }
        return root;
    }
}
