// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * Where each node's tower starts in a {@link FreeSlotSet}'s next-pointer array. It depends only on
 * the number of owners, so a schedule computes it once and every allocation shares it.
 */
final class SkipTowers {
    final int[] start; // [numNodes + 1], node 0 is the head
    private final byte[] height;

    SkipTowers(int numSlots) {
        int nodes = numSlots + 1;
        start = new int[nodes + 1];
        height = new byte[nodes];
        height[0] = FreeSlotSet.MAX_HEIGHT;
        start[1] = FreeSlotSet.MAX_HEIGHT;
        for (int n = 1; n < nodes; n++) {
            height[n] = (byte) heightOf(n);
            start[n + 1] = Math.addExact(start[n], height[n]);
        }
    }

    /** Height 1 + k with probability 4^-k: about 1.33 ints per slot. */
    private static int heightOf(int node) {
        int h = node * 0x9E3779B9;
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        return Math.min(FreeSlotSet.MAX_HEIGHT, 1 + Integer.numberOfTrailingZeros(h | (1 << 30)) / 2);
    }

    int height(int node) {
        return height[node];
    }

    int totalSize() {
        return start[start.length - 1];
    }
}
