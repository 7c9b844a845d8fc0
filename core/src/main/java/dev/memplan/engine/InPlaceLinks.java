// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * In-place reuse (docs/design.md §3b), rules (b) and (c): which values take the buffer of an input
 * that dies at their node, decided once per compile. {@code in_place_links.h} is the same code in
 * C++ ({@code link_in_place}, {@code reads_elsewhere}); rule (d) is the caller's mask.
 */
final class InPlaceLinks {
    private static final int NONE = FlatGraph.NONE;

    private InPlaceLinks() {
    }

    /**
     * In-place links (docs/design.md §3b, rules (b) and (c); rule (d) is the caller's mask), in
     * execution order: value v, not a view, takes the buffer b of input k of its producer (the
     * first bit of its mask that qualifies) when b is no graph input or weight, no value in b is a
     * graph output, b's last read (through views and earlier links) is this position, b went to no
     * other output here, and this node reads b through input k only. Returns each value's buffer:
     * its view root, or the buffer its root was linked into. O(values + inputs of hinted nodes).
     */
    static int[] link(FlatGraph g, int[] valueRoot, int[] inPlaceMask, int[] order) {
        int numValues = g.numValues();
        int[] inOff = g.inputOffsets();
        int[] ins = g.inputs();
        int[] outOff = g.outputOffsets();
        int[] outs = g.outputs();
        int[] flags = g.valueFlags();
        int[] buffer = valueRoot.clone();
        int[] lastRead = new int[numValues];
        int[] givenAt = new int[numValues];
        boolean[] escapes = new boolean[numValues];
        Arrays.fill(lastRead, NONE);
        Arrays.fill(givenAt, NONE);
        for (int p = 0; p < g.numNodes(); p++) {
            int n = order[p];
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                if (ins[k] != NONE) {
                    lastRead[valueRoot[ins[k]]] = p;
                }
            }
        }
        for (int v = 0; v < numValues; v++) {
            if ((flags[v] & FlatGraph.GRAPH_OUTPUT) != 0) {
                escapes[valueRoot[v]] = true;
            }
        }
        for (int p = 0; p < g.numNodes(); p++) {
            int n = order[p];
            for (int j = outOff[n]; j < outOff[n + 1]; j++) {
                int v = outs[j];
                int mask = inPlaceMask[v];
                if (mask == 0 || valueRoot[v] != v) {
                    continue;
                }
                for (int k = 0; k < inOff[n + 1] - inOff[n]; k++) {
                    if ((mask & (1 << k)) == 0 || ins[inOff[n] + k] == NONE) {
                        continue;
                    }
                    int b = buffer[valueRoot[ins[inOff[n] + k]]];
                    if ((flags[b] & (FlatGraph.GRAPH_INPUT | FlatGraph.INITIALIZER)) != 0 || escapes[b]
                            || lastRead[b] != p || givenAt[b] == p || readsElsewhere(ins, inOff[n], inOff[n + 1],
                            inOff[n] + k, b, buffer, valueRoot)) {
                        continue;
                    }
                    buffer[v] = b;
                    lastRead[b] = Math.max(lastRead[b], lastRead[v]);
                    escapes[b] |= escapes[v];
                    givenAt[b] = p;
                    break;
                }
            }
        }
        for (int v = 0; v < numValues; v++) {
            buffer[v] = buffer[valueRoot[v]]; // views of linked values follow their root
        }
        return buffer;
    }

    /** Whether an input of the node other than {@code skip} lives in buffer {@code b}. */
    private static boolean readsElsewhere(int[] ins, int from, int to, int skip, int b, int[] buffer,
                                          int[] valueRoot) {
        for (int k = from; k < to; k++) {
            if (k != skip && ins[k] != NONE && buffer[valueRoot[ins[k]]] == b) {
                return true;
            }
        }
        return false;
    }
}
