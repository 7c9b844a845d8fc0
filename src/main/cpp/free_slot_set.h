// SPDX-License-Identifier: Apache-2.0
// free_slot_set.h - the slots of one allocation and which of them are free:
// FreeSlotSet.java, name for name (docs/design.md §5).

#ifndef MEMPLAN_FREE_SLOT_SET_H
#define MEMPLAN_FREE_SLOT_SET_H

#include <cstdint>

#include "abi.h"
#include "treap_priority.h"

namespace memplan_detail {

// One slot, stored in the caller's scratch and indexed by slot id: the tree
// links and priority next to a copy of the capacity, so a tree step reads one
// cache line (FreeSlotSet.java keeps the same ints together in its tree array).
struct FreeNode {
    long long capacity;  // key part 1 (part 2 is the slot id)
    int smaller;         // child with smaller keys, NONE if none
    int larger;          // child with larger keys, NONE if none
    int priority;        // parents have higher priority than children
};

// Index of the lowest set bit of a non-zero word.
inline int lowest_bit(std::uint64_t word) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(word);
#else
    int i = 0;
    while ((word & 1U) == 0) {
        word >>= 1;
        ++i;
    }
    return i;
#endif
}

// The slots of one allocation and which of them are free, ordered by
// (capacity, slot id): a treap whose heap priority is a fixed hash of the
// slot id, deterministic and O(log free slots) expected per operation. Its
// nodes live in the caller's scratch; a link is an int* to a child field (or
// to root_), where the Java side uses an index into its tree array.
//
// C++ only: while an allocation has at most kSmallSlots slots (real graphs
// reuse a handful: 2 to 14 in the benchmark generators), the free slots are the
// bits of one word instead, and poll_ceiling scans them in id order without a
// branch per slot. The treap's walk mispredicted on every level (a quarter of
// the native allocate's samples). The answer is a property of the set, not of
// its shape, so both ways give the same slot; the 65th slot moves the free ones
// into the treap for the rest of the allocation.
class FreeSlotSet {
public:
    static constexpr int kSmallSlots = 64;

    explicit FreeSlotSet(FreeNode* nodes) : nodes_(nodes) {}

    // Opens a new slot (not free) of `bytes` and returns its id.
    int open(long long bytes) {
        const int slot = num_slots_++;
        nodes_[slot].capacity = bytes;
        nodes_[slot].priority = memplan_offsets::priority(slot);  // the offsets planner's treaps use the same hash
        if (num_slots_ > kSmallSlots && small_) to_treap();
        return slot;
    }

    int num_slots() const { return num_slots_; }

    FreeNode& node(int slot) const { return nodes_[slot]; }

    // Removes and returns the free slot with the smallest capacity >= need,
    // the lowest id among equals; NONE when none fits. Plain branches: with
    // the few, repeating sizes of real graphs they predict well, and the
    // benchmarks measured a branch-free descent twice as slow on a transformer.
    int poll_ceiling(long long need) {
        if (small_) return poll_ceiling_small(need);
        int* link = &root_;
        int* found_link = &root_;
        int found = NONE;
        int cur = root_;
        while (cur != NONE) {
            if (nodes_[cur].capacity >= need) {
                // cur fits; anything better is a smaller key, so it is on the smaller side.
                found = cur;
                found_link = link;
                link = &nodes_[cur].smaller;
            } else {
                link = &nodes_[cur].larger;
            }
            cur = *link;
        }
        if (found != NONE) merge(found_link, nodes_[found].smaller, nodes_[found].larger);
        return found;
    }

    // Frees `slot`, which must be open and not free.
    void add(int slot) {
        if (small_) {
            free_bits_ |= std::uint64_t{1} << slot;
            return;
        }
        add_to_treap(slot);
    }

private:
    // poll_ceiling over the free bits: in id order, a fitting slot replaces the
    // best so far only when strictly smaller, so ties keep the lowest id.
    int poll_ceiling_small(long long need) {
        int found = NONE;
        long long best = 0;
        for (std::uint64_t bits = free_bits_; bits != 0; bits &= bits - 1) {
            const int slot = lowest_bit(bits);
            const long long capacity = nodes_[slot].capacity;
            const bool better = capacity >= need && (found == NONE || capacity < best);
            found = better ? slot : found;
            best = better ? capacity : best;
        }
        if (found != NONE) free_bits_ &= ~(std::uint64_t{1} << found);
        return found;
    }

    // Moves the free slots from the bits into the (empty) treap, for good.
    void to_treap() {
        small_ = false;
        for (std::uint64_t bits = free_bits_; bits != 0; bits &= bits - 1) add_to_treap(lowest_bit(bits));
        free_bits_ = 0;
    }

    void add_to_treap(int slot) {
        const int prio = nodes_[slot].priority;
        int* link = &root_;
        int cur = root_;
        // Descend while the node there outranks slot: slot becomes the root of that subtree.
        while (cur != NONE && nodes_[cur].priority > prio) {
            link = key_less(cur, slot) ? &nodes_[cur].larger : &nodes_[cur].smaller;
            cur = *link;
        }
        // Split the subtree at cur into keys below slot (its smaller side) and above (its larger side).
        int* below = &nodes_[slot].smaller;
        int* above = &nodes_[slot].larger;
        while (cur != NONE) {
            if (key_less(cur, slot)) {
                *below = cur;
                below = &nodes_[cur].larger;
                cur = *below;
            } else {
                *above = cur;
                above = &nodes_[cur].smaller;
                cur = *above;
            }
        }
        *below = NONE;
        *above = NONE;
        *link = slot;
    }

    // Joins two treaps where every key of a is below every key of b into
    // *link. Iterative: walks the larger spine of a and the smaller spine of b.
    void merge(int* link, int a, int b) {
        while (a != NONE && b != NONE) {
            if (nodes_[a].priority > nodes_[b].priority) {
                *link = a;
                link = &nodes_[a].larger;
                a = *link;
            } else {
                *link = b;
                link = &nodes_[b].smaller;
                b = *link;
            }
        }
        *link = a != NONE ? a : b;
    }

    // The key order (capacity, slot id): ties on capacity go to the lower slot id.
    bool key_less(int a, int b) const {
        const long long ca = nodes_[a].capacity;
        const long long cb = nodes_[b].capacity;
        return ca < cb || (ca == cb && a < b);
    }

    FreeNode* nodes_;
    int root_ = NONE;
    int num_slots_ = 0;
    bool small_ = true;              // the free slots are free_bits_, not the treap
    std::uint64_t free_bits_ = 0;    // bit s: slot s is free (while small_)
};

}  // namespace memplan_detail

#endif  // MEMPLAN_FREE_SLOT_SET_H
