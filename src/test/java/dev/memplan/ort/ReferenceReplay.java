// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Graph;
import dev.memplan.Node;
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
        for (Node node : graph.nodes()) {
            workspaces[node.id()] = KernelWorkspaces.of(graph, node, attributes);
        }
        BoundShapes shapes = new BoundShapes(graph, Map.copyOf(bindings));
        ReferenceBfcArena arena = new ReferenceBfcArena();
        ReferenceMemoryPattern pattern = new ReferenceMemoryPattern(graph.valueCount());
        long[] address = new long[graph.valueCount()];
        long outputsHeld = 0;
        int[] order = plan.order();
        for (int k : order) {
            for (int o : plan.allocatesAt(k)) {
                long bytes = shapes.bytes(o);
                address[o] = arena.alloc(bytes);
                if (plan.isGraphOutput(o)) {
                    outputsHeld += ReferenceBfcArena.align(bytes);
                } else if (bytes > 0) {
                    pattern.allocate(o, ReferenceBfcArena.align(bytes));
                }
            }
            scratch(arena, workspaces[k].bytes(shapes));
            for (int b : plan.freesAfter(k)) {
                arena.free(address[b]);
                pattern.free(b);
            }
        }
        long firstRunPeak = arena.maxInUse();
        long block = pattern.size() > 0 ? arena.alloc(pattern.size()) : -1;
        for (int k : order) {
            for (int o : plan.allocatesAt(k)) {
                if (plan.isGraphOutput(o)) {
                    arena.alloc(shapes.bytes(o));
                }
            }
            scratch(arena, workspaces[k].bytes(shapes));
        }
        arena.free(block);
        return new OrtArenaPrediction(arena.maxInUse(), firstRunPeak, pattern.size(), outputsHeld,
                arena.maxInUse() - arena.requestedAtMax(), arena.reserved(), Set.of());
    }

    private static void scratch(ReferenceBfcArena arena, long[] sizes) {
        long[] taken = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            taken[i] = arena.alloc(sizes[i]);
        }
        for (int i = taken.length - 1; i >= 0; i--) {
            arena.free(taken[i]);
        }
    }
}
