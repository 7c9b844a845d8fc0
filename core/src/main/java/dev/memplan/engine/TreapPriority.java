// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * The heap priority of every treap in the engine: the free slot set's ({@link FreeSlotSet}) and
 * the gap arena's ({@link GapArena}). Mirrored by {@code treap_priority.h}.
 */
final class TreapPriority {
    private TreapPriority() {
    }

    /** murmur3's fmix32 of a segment id: a bijection, so no two ids tie. Unsigned order as an int. */
    static int priority(int id) {
        int h = id;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h >>> 1; // 31 bits: compares the same signed in Java and C++
    }
}
