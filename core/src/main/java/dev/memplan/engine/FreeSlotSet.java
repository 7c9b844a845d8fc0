// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The slots of one allocation and which of them are free, ordered by {@code (capacity, slot id)}
 * (docs/design.md §5). Mirrored by {@code FreeSlotSet} in free_slot_set.h, name for name.
 *
 * <p>A treap: a search tree by key whose heap priority is a fixed hash of the slot id, so it is
 * deterministic and O(log free slots) expected per operation. Its links are ints in one array, so
 * an allocation creates no object per slot. A <em>link</em> is an index into {@code tree}: index
 * {@link #ROOT} holds the root, and slot {@code s} keeps its smaller-key child, larger-key child
 * and priority at {@code 1 + 3s}, {@code 2 + 3s}, {@code 3 + 3s} (one cache line per tree step).
 * {@link #NONE} marks no slot. A set is reused across the allocations of one schedule
 * ({@link #reset()}), so its arrays are neither allocated nor zeroed per request.
 */
final class FreeSlotSet {
    /** No slot: an empty link, or no free slot fits. */
    static final int NONE = FlatGraph.NONE;
    /** The link that holds the root. */
    private static final int ROOT = 0;
    private static final int NODE_INTS = 3;

    private final long[] capacity; // by slot id; there are never more slots than owners
    private final int[] tree;
    private int numSlots;

    FreeSlotSet(int maxSlots) {
        this.capacity = new long[maxSlots];
        this.tree = new int[Math.addExact(1, Math.multiplyExact(NODE_INTS, maxSlots))];
        reset();
    }

    /** Empties the set and forgets every slot. */
    void reset() {
        tree[ROOT] = NONE;
        numSlots = 0;
    }

    /** Opens a new slot (not free) of {@code bytes} and returns its id. */
    int open(long bytes) {
        int slot = numSlots++;
        capacity[slot] = bytes;
        tree[priority(slot)] = TreapPriority.priority(slot); // the offsets planner's treaps use the same hash
        return slot;
    }

    /** The capacities of the slots opened so far, by slot id. */
    long[] capacities() {
        return Arrays.copyOf(capacity, numSlots);
    }

    /**
     * Removes and returns the free slot with the smallest capacity {@code >= need}, the lowest id
     * among equals; {@link #NONE} when none fits.
     */
    int pollCeiling(long need) {
        int link = ROOT;
        int foundLink = ROOT;
        int found = NONE;
        int cur = tree[ROOT];
        while (cur != NONE) {
            if (capacity[cur] >= need) {
                // cur fits; anything better is a smaller key, so it is on the smaller side.
                found = cur;
                foundLink = link;
                link = smaller(cur);
            } else {
                link = larger(cur);
            }
            cur = tree[link];
        }
        if (found != NONE) {
            merge(foundLink, tree[smaller(found)], tree[larger(found)]);
        }
        return found;
    }

    /** Frees {@code slot}, which must be open and not free. */
    void add(int slot) {
        int prio = tree[priority(slot)];
        int link = ROOT;
        int cur = tree[ROOT];
        // Descend while the node there outranks slot: slot becomes the root of that subtree.
        while (cur != NONE && tree[priority(cur)] > prio) {
            link = keyLess(cur, slot) ? larger(cur) : smaller(cur);
            cur = tree[link];
        }
        // Split the subtree at cur into keys below slot (its smaller side) and above (its larger side).
        int below = smaller(slot);
        int above = larger(slot);
        while (cur != NONE) {
            if (keyLess(cur, slot)) {
                tree[below] = cur;
                below = larger(cur);
                cur = tree[below];
            } else {
                tree[above] = cur;
                above = smaller(cur);
                cur = tree[above];
            }
        }
        tree[below] = NONE;
        tree[above] = NONE;
        tree[link] = slot;
    }

    /**
     * Joins two treaps where every key of {@code a} is below every key of {@code b} into
     * {@code link}. Iterative: walks the larger spine of a and the smaller spine of b.
     */
    private void merge(int link, int a, int b) {
        while (a != NONE && b != NONE) {
            if (tree[priority(a)] > tree[priority(b)]) {
                tree[link] = a;
                link = larger(a);
                a = tree[link];
            } else {
                tree[link] = b;
                link = smaller(b);
                b = tree[link];
            }
        }
        tree[link] = a != NONE ? a : b;
    }

    /** The key order {@code (capacity, slot id)}: ties on capacity go to the lower slot id. */
    private boolean keyLess(int a, int b) {
        long ca = capacity[a];
        long cb = capacity[b];
        return ca < cb || (ca == cb && a < b);
    }

    private static int smaller(int slot) {
        return 1 + NODE_INTS * slot;
    }

    private static int larger(int slot) {
        return 2 + NODE_INTS * slot;
    }

    private static int priority(int slot) {
        return 3 + NODE_INTS * slot;
    }
}
