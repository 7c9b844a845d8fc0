// SPDX-License-Identifier: Apache-2.0
// free_slot_set.h - the slots of one allocation and which of them are free:
// FreeSlotSet.java, name for name (docs/design.md §5).

#ifndef MEMPLAN_FREE_SLOT_SET_H
#define MEMPLAN_FREE_SLOT_SET_H

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
    int occupant;        // owner in the slot, NONE while free: a check of the caller only this side needs
};

// The slots of one allocation and which of them are free, ordered by
// (capacity, slot id): a treap whose heap priority is a fixed hash of the
// slot id, deterministic and O(log free slots) expected per operation. Its
// nodes live in the caller's scratch; a link is an int* to a child field (or
// to root_), where the Java side uses an index into its tree array.
class FreeSlotSet {
public:
    explicit FreeSlotSet(FreeNode* nodes) : nodes_(nodes) {}

    // Opens a new slot (not free) of `bytes` and returns its id.
    int open(long long bytes) {
        const int slot = num_slots_++;
        nodes_[slot].capacity = bytes;
        nodes_[slot].priority = memplan_offsets::priority(slot);  // the offsets planner's treaps use the same hash
        return slot;
    }

    int num_slots() const { return num_slots_; }

    FreeNode& node(int slot) const { return nodes_[slot]; }

    // Removes and returns the free slot with the smallest capacity >= need,
    // the lowest id among equals; NONE when none fits. Plain branches: with
    // the few, repeating sizes of real graphs they predict well, and the
    // benchmarks measured a branch-free descent twice as slow on a transformer.
    int poll_ceiling(long long need) {
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

private:
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
};

}  // namespace memplan_detail

#endif  // MEMPLAN_FREE_SLOT_SET_H
