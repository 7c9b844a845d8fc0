// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * ONNX Runtime's default execution order ({@code GraphViewer}): a reverse depth-first search from
 * the nodes whose outputs nobody reads, pushing each node's producers in ascending node id, so the
 * highest-numbered producer runs first; a node is emitted once all its producers are. The file's
 * order is not ORT's: replaying with it missed by up to 77 MB (docs/ort-runtime.md, section 2).
 */
final class OrtExecutionOrder {
    private OrtExecutionOrder() {
    }

    /**
     * {@return node ids in file order}: the order of a graph ORT saved after optimizing, which it
     * writes in its own execution order (checked against ORT's profile on MiniLM, FastestDet: the
     * same node by node). Replaying the search on the saved file reorders MiniLM's nodes (ORT's
     * in-memory node ids after fusion are not the file's positions) and misses by 0.7% at 4 x 512.
     */
    static int[] asSaved(Graph graph) {
        int[] order = new int[graph.nodeCount()];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        return order;
    }

    /** {@return node ids in the order ORT runs them} */
    static int[] of(Graph graph) {
        int nodes = graph.nodeCount();
        boolean[] read = new boolean[graph.valueCount()];
        for (Node node : graph.nodes()) {
            for (int in : node.inputs()) {
                if (in != Graph.ABSENT) {
                    read[in] = true;
                }
            }
        }
        Deque<long[]> stack = new ArrayDeque<>(); // {node, 1 when leaving}
        for (Node node : graph.nodes()) {
            boolean readByAnyone = false;
            for (int out : node.outputs()) {
                readByAnyone |= out != Graph.ABSENT && read[out];
            }
            if (!readByAnyone) {
                stack.push(new long[] {node.id(), 0});
            }
        }
        // Pushed in ascending id, popped highest first: the same as the Python replay's list.
        boolean[] visited = new boolean[nodes];
        int[] order = new int[nodes];
        int emitted = 0;
        while (!stack.isEmpty()) {
            long[] top = stack.pop();
            int k = (int) top[0];
            if (top[1] == 1) {
                order[emitted++] = k;
                continue;
            }
            if (visited[k]) {
                continue;
            }
            visited[k] = true;
            stack.push(new long[] {k, 1});
            int[] producers = Arrays.stream(graph.node(k).inputs())
                    .filter(v -> v != Graph.ABSENT && graph.value(v).producer() >= 0)
                    .map(v -> graph.value(v).producer()).distinct().sorted().toArray();
            for (int p : producers) {
                if (!visited[p]) {
                    stack.push(new long[] {p, 0});
                }
            }
        }
        return Arrays.copyOf(order, emitted);
    }
}
