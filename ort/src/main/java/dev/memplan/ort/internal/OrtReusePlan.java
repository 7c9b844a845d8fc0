// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;

/**
 * ONNX Runtime's allocation planner ({@code PlannerImpl::ComputeSingleStreamReusePlan}), decided
 * once per graph because its rules never look at a request's sizes. For each node output in ORT's
 * order: a graph output gets its own buffer; else an alias shares input 0; else an in-place kernel
 * takes over its input's buffer when this node is that buffer's last reader and {@link SameSizeKey}s
 * match; else the most recently freed buffer with the same key; else a new buffer. A buffer taken
 * back from the freelist stays allocated from its first value to its last sharer's last reader.
 */
final class OrtReusePlan {
    private final int[] order;
    /** Per node id: the buffers it allocates when it runs (value ids, in output order). */
    private final int[][] allocates;
    /** Per node id: the buffers freed after it runs, in the order ORT's replay frees them. */
    private final int[][] frees;
    private final boolean[] graphOutput;
    private final int sharedInPlace;
    private final int sharedFromFreelist;

    private OrtReusePlan(int[] order, int[][] allocates, int[][] frees, boolean[] graphOutput, int sharedInPlace,
                         int sharedFromFreelist) {
        this.order = order;
        this.allocates = allocates;
        this.frees = frees;
        this.graphOutput = graphOutput;
        this.sharedInPlace = sharedInPlace;
        this.sharedFromFreelist = sharedFromFreelist;
    }

    /** {@return the plan ORT's planner makes for {@code graph}, comparing memplan's own shapes} */
    static OrtReusePlan of(Graph graph) {
        SameSizeKey[] keys = new SameSizeKey[graph.valueCount()];
        for (int v = 0; v < keys.length; v++) {
            keys[v] = SameSizeKey.of(graph.value(v));
        }
        return of(graph, keys, OrtExecutionOrder.of(graph));
    }

    /**
     * {@return the plan ORT's planner makes for {@code graph}}
     *
     * @param keys  per value id, the shape ORT's planner compares ({@code null}: ORT knows none)
     * @param order node ids in ORT's execution order
     */
    static OrtReusePlan of(Graph graph, SameSizeKey[] keys, int[] order) {
        int values = graph.valueCount();
        boolean[] activation = new boolean[values];
        boolean[] input = new boolean[values];
        boolean[] output = new boolean[values];
        int[] count = new int[values]; // ComputeReuseCount: the definition counts one use
        for (int v = 0; v < values; v++) {
            activation[v] = !graph.isInitializer(v);
            input[v] = graph.isGraphInput(v) && activation[v];
            output[v] = graph.isGraphOutput(v) && activation[v];
            count[v] = 1 + (input[v] ? 1 : 0) + (output[v] ? 1 : 0); // the caller's values are never freed
        }
        boolean[] read = new boolean[values];
        for (Node node : graph.nodes()) {
            for (int in : node.inputs()) {
                if (in != Graph.ABSENT && activation[in]) {
                    count[in]++;
                    read[in] = true;
                }
            }
        }
        int last = order.length == 0 ? -1 : order[order.length - 1];
        int[] buffer = new int[values];
        for (int v = 0; v < values; v++) {
            buffer[v] = v;
        }
        LinkedList<Integer> freelist = new LinkedList<>(); // most recently freed first
        Map<Integer, Integer> freedAt = new LinkedHashMap<>(); // keeps a buffer's first position when freed again
        List<List<Integer>> allocates = new ArrayList<>();
        for (int k = 0; k < graph.nodeCount(); k++) {
            allocates.add(new ArrayList<>());
        }
        int inPlace = 0;
        int fromFreelist = 0;
        for (int k : order) {
            Node node = graph.node(k);
            int first = node.inputCount() > 0 ? node.input(0) : Graph.ABSENT;
            int at = OrtKernels.inPlaceInput(node);
            int target = at >= 0 && at < node.inputCount() ? node.input(at) : Graph.ABSENT;
            for (int o : node.outputs()) {
                if (o == Graph.ABSENT) {
                    continue;
                }
                if (output[o]) {
                    allocates.get(k).add(o); // kAllocateOutput: its own buffer, not in the pattern
                } else if (OrtKernels.isAlias(node) && first != Graph.ABSENT && activation[first]) {
                    buffer[o] = buffer[first];
                } else if (target != Graph.ABSENT && activation[target] && !input[target]
                        && count[buffer[target]] == 1 && sameSize(keys[target], keys[o])) {
                    buffer[o] = buffer[target];
                    inPlace++;
                } else {
                    Integer reused = keys[o] == null || keys[o].dims().isEmpty() ? null : freelist.stream()
                            .filter(b -> sameSize(keys[b], keys[o])).findFirst().orElse(null);
                    if (reused != null) {
                        buffer[o] = reused;
                        freelist.remove(reused);
                        fromFreelist++;
                    } else {
                        allocates.get(k).add(o);
                    }
                }
                if (buffer[o] != o) {
                    count[buffer[o]] += count[o];
                }
            }
            for (int[] side : new int[][] {node.inputs(), node.outputs()}) {
                for (int v : side) {
                    if (v == Graph.ABSENT || !activation[v]) {
                        continue;
                    }
                    int b = buffer[v];
                    if (--count[b] == 0) {
                        freelist.addFirst(b);
                        // an output nobody reads is in no node's release list: the frame frees it at the run's end
                        freedAt.put(b, b == v && !read[v] ? last : k);
                    }
                }
            }
        }
        List<List<Integer>> frees = new ArrayList<>();
        for (int k = 0; k < graph.nodeCount(); k++) {
            frees.add(new ArrayList<>());
        }
        freedAt.forEach((b, k) -> frees.get(k).add(b));
        return new OrtReusePlan(order, toArrays(allocates), toArrays(frees), output, inPlace, fromFreelist);
    }

    private static boolean sameSize(SameSizeKey a, SameSizeKey b) {
        return a != null && a.equals(b);
    }

    private static int[][] toArrays(List<List<Integer>> lists) {
        return lists.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toArray(int[][]::new);
    }

    /** {@return node ids in ORT's execution order} */
    int[] order() {
        return order.clone();
    }

    int[] allocatesAt(int node) {
        return allocates[node];
    }

    int[] freesAfter(int node) {
        return frees[node];
    }

    boolean isGraphOutput(int value) {
        return graphOutput[value];
    }

    /** {@return how many values took over an input's buffer in place} */
    int sharedInPlace() {
        return sharedInPlace;
    }

    /** {@return how many values took a freed buffer of the same shape} */
    int sharedFromFreelist() {
        return sharedFromFreelist;
    }

    @Override
    public String toString() {
        return "OrtReusePlan" + Arrays.toString(order);
    }
}
