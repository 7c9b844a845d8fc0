// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import java.util.Map;
import java.util.Set;

/**
 * Test oracle: the first, straightforward replay of ORT's two runs (before the per-request path was
 * precomputed), node by node through {@link ReferenceBfcArena} and {@link ReferenceMemoryPattern},
 * every size and workspace evaluated as it comes. The predictor must give the same figures.
 */
final class ReferenceReplay {
    private ReferenceReplay() {
    }

    static OrtArenaPrediction replay(Graph graph, NodeAttributes attributes, Map<String, Long> bindings) {
        OrtReusePlan plan = OrtReusePlan.of(graph);
        KernelWorkspaces.Rule[] workspaces = new KernelWorkspaces.Rule[graph.nodeCount()];
        int[] outputsAfter = new int[graph.nodeCount()];
        for (Node node : graph.nodes()) {
            workspaces[node.id()] = KernelWorkspaces.of(graph, node, attributes);
            outputsAfter[node.id()] = KernelWorkspaces.outputsAfter(graph, node, attributes);
        }
        BoundShapes shapes = new BoundShapes(graph, Map.copyOf(bindings));
        ReferenceBfcArena arena = new ReferenceBfcArena();
        ReferenceMemoryPattern pattern = new ReferenceMemoryPattern(graph.valueCount());
        long[] address = new long[graph.valueCount()];
        long outputsHeld = 0;
        int[] order = plan.order();
        for (int k : order) {
            long[] sizes = workspaces[k].bytes(shapes);
            int taken = 0;
            long[] chunks = new long[sizes.length];
            // output 0 first; the other outputs after the kernel took outputsAfter[k] workspaces
            for (boolean late : new boolean[] {false, true}) {
                for (int o : plan.allocatesAt(k)) {
                    if (late != isLate(graph, k, o, outputsAfter)) {
                        continue;
                    }
                    for (; late && taken < Math.min(outputsAfter[k], sizes.length); taken++) {
                        chunks[taken] = arena.alloc(sizes[taken]);
                    }
                    long bytes = shapes.bytes(o);
                    address[o] = arena.alloc(bytes);
                    if (plan.isGraphOutput(o)) {
                        outputsHeld += ReferenceBfcArena.align(bytes);
                    } else if (bytes > 0) {
                        pattern.allocate(o, ReferenceBfcArena.align(bytes));
                    }
                }
            }
            scratch(arena, sizes, chunks, taken);
            for (int b : plan.freesAfter(k)) {
                arena.free(address[b]);
                pattern.free(b);
            }
        }
        long firstRunPeak = arena.maxInUse();
        long firstRunCounted = arena.maxCounted();
        long block = pattern.size() > 0 ? arena.alloc(pattern.size()) : -1;
        for (int k : order) {
            long[] sizes = workspaces[k].bytes(shapes);
            int taken = 0;
            long[] chunks = new long[sizes.length];
            for (boolean late : new boolean[] {false, true}) {
                for (int o : plan.allocatesAt(k)) {
                    if (late != isLate(graph, k, o, outputsAfter)) {
                        continue;
                    }
                    for (; late && taken < Math.min(outputsAfter[k], sizes.length); taken++) {
                        chunks[taken] = arena.alloc(sizes[taken]);
                    }
                    if (plan.isGraphOutput(o)) {
                        arena.alloc(shapes.bytes(o));
                    }
                }
            }
            scratch(arena, sizes, chunks, taken);
        }
        arena.free(block);
        return new OrtArenaPrediction(arena.maxInUse(), firstRunPeak, pattern.size(), outputsHeld,
                arena.maxInUse() - arena.requestedAtMax(), arena.reserved(), firstRunCounted, Set.of());
    }

    /** A kernel allocates its outputs after output 0 once it took {@code outputsAfter} workspaces. */
    private static boolean isLate(Graph graph, int node, int value, int[] outputsAfter) {
        return outputsAfter[node] > 0 && value != graph.node(node).output(0);
    }

    /** Takes a node's workspaces from the {@code already}-th on, then frees them all in reverse. */
    private static void scratch(ReferenceBfcArena arena, long[] sizes, long[] taken, int already) {
        for (int i = already; i < sizes.length; i++) {
            taken[i] = arena.alloc(sizes[i]);
        }
        for (int i = taken.length - 1; i >= 0; i--) {
            arena.free(taken[i]);
        }
    }
}
