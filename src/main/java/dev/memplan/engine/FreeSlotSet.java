// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The slots of one allocation and which of them are free, ordered by {@code (capacity, slot id)}:
 * a skip list whose towers live in one int array, so an allocation creates no object per slot and
 * every operation is O(log free slots) expected.
 *
 * <p>Tower heights come from a hash of the slot id (deterministic; the plan never depends on them,
 * only the speed). Node 0 is the head; slot {@code s} is node {@code s + 1}, and 0 in a next
 * pointer means "none". A set is reused across allocations of one schedule ({@link #reset()}), so
 * the arrays are neither allocated nor zeroed per request.
 */
final class FreeSlotSet {
    static final int MAX_HEIGHT = 16;

    private final SkipTowers towers;
    private final long[] capacity; // by slot id; there are never more slots than owners
    private final int[] next;
    private final int[] update = new int[MAX_HEIGHT];
    private int height;
    private int numSlots;

    FreeSlotSet(SkipTowers towers, int maxSlots) {
        this.towers = towers;
        this.capacity = new long[maxSlots];
        this.next = new int[towers.totalSize()];
        reset();
    }

    /** Empties the set and forgets every slot: only the head tower needs clearing. */
    void reset() {
        for (int l = 0; l < MAX_HEIGHT; l++) {
            next[l] = 0;
        }
        height = 1;
        numSlots = 0;
    }

    /** Opens a new slot (not free) of {@code bytes} and returns its id. */
    int open(long bytes) {
        capacity[numSlots] = bytes;
        return numSlots++;
    }

    int numSlots() {
        return numSlots;
    }

    /** The capacities of the slots opened so far, by slot id. */
    long[] capacities() {
        return Arrays.copyOf(capacity, numSlots);
    }

    /**
     * Removes and returns the free slot with the smallest capacity {@code >= need}, the lowest id
     * among equals; -1 when none fits.
     */
    int pollCeiling(long need) {
        int[] start = towers.start;
        int x = 0;
        for (int l = height - 1; l >= 0; l--) {
            int y;
            while ((y = next[start[x] + l]) != 0 && capacity[y - 1] < need) {
                x = y;
            }
            update[l] = x;
        }
        int found = next[start[x]];
        if (found == 0) {
            return -1;
        }
        // Every node before `found` has capacity < need, so update[l] precedes it on each level.
        int h = towers.height(found);
        int base = start[found];
        for (int l = 0; l < h; l++) {
            next[start[update[l]] + l] = next[base + l];
        }
        return found - 1;
    }

    /** Frees slot {@code slot}, which must be open and not free. */
    void add(int slot) {
        int[] start = towers.start;
        int node = slot + 1;
        long cap = capacity[slot];
        int x = 0;
        for (int l = height - 1; l >= 0; l--) {
            int y;
            while ((y = next[start[x] + l]) != 0
                    && (capacity[y - 1] < cap || (capacity[y - 1] == cap && y < node))) {
                x = y;
            }
            update[l] = x;
        }
        int h = towers.height(node);
        while (height < h) {
            update[height++] = 0;
        }
        int base = start[node];
        for (int l = 0; l < h; l++) {
            int pred = start[update[l]] + l;
            next[base + l] = next[pred];
            next[pred] = node;
        }
    }
}
