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

// The scanned form on its own, a value small enough to live in registers:
// memplan_allocate runs its first slots in one (a chain's 2, a ResNet's 3 are
// all it ever opens), where FreeSlotSet's fields stay in memory and every poll
// and free would wait on a store of the free bits. FreeSlotSet's scanned form
// polls with the same code.
class ScannedSlots {
public:
    static constexpr int kMaxSlots = 8;

    int num_slots() const { return num_slots_; }
    std::uint64_t free_bits() const { return free_bits_; }
    bool full() const { return num_slots_ == kMaxSlots; }

    // Opens a new slot (not free) of `bytes` in nodes, which is not full().
    int open(FreeNode* nodes, long long bytes) {
        nodes[num_slots_].capacity = bytes;
        return num_slots_++;
    }

    int poll_ceiling(const FreeNode* nodes, long long need) { return poll_ceiling(nodes, free_bits_, need); }

    void add(int slot) { free_bits_ |= std::uint64_t{1} << slot; }

    // poll_ceiling over free bits by slot id: in id order, a fitting slot
    // replaces the best so far only when strictly smaller, so ties keep the lowest id.
    static int poll_ceiling(const FreeNode* nodes, std::uint64_t& free_bits, long long need) {
        int found = NONE;
        long long best = 0;
        for (std::uint64_t bits = free_bits; bits != 0; bits &= bits - 1) {
            const int slot = lowest_bit(bits);
            const long long capacity = nodes[slot].capacity;
            const bool better = capacity >= need && (found == NONE || capacity < best);
            found = better ? slot : found;
            best = better ? capacity : best;
        }
        if (found != NONE) free_bits &= ~(std::uint64_t{1} << found);
        return found;
    }

private:
    std::uint64_t free_bits_ = 0;
    int num_slots_ = 0;
};

// The slots of one allocation and which of them are free, ordered by
// (capacity, slot id): a treap whose heap priority is a fixed hash of the
// slot id, deterministic and O(log free slots) expected per operation. Its
// nodes live in the caller's scratch; a link is an int* to a child field (or
// to root_), where the Java side uses an index into its tree array.
//
// C++ only: real graphs open few slots (2 to 14 in the benchmark generators),
// and the treap's walk mispredicts on every level (a quarter of the native
// allocate's samples), so the set starts in two flat forms and moves on:
//  - scanned, up to kScannedSlots slots: the free slots are the bits of one
//    word by slot id, and poll_ceiling scans them in id order (the cheapest for
//    a chain's 2 slots or a ResNet's 3);
//  - ranked, up to kSmallSlots: the open slots are kept in key order by *rank*
//    and the free ones are the bits of one word by rank. A slot's capacity never
//    changes once open, so the first rank that fits a need (its threshold) moves
//    only when a slot opens; poll_ceiling is the lowest free rank at or above
//    the threshold, one mask and one count of trailing zeros. Thresholds are
//    remembered per need in a small table that an open invalidates, because a
//    graph's sizes repeat: counting every time instead took 1.7x to 2.5x as
//    long on a transformer and a U-Net. (The scan, on a transformer's 10 slots
//    or a U-Net's 14, mispredicted once per free slot: a third of the native allocate.)
//  - the treap, from the 65th slot on, for the rest of the allocation.
// The answer is a property of the set, not of its shape, so every form gives
// the same slot.
class FreeSlotSet {
public:
    static constexpr int kScannedSlots = ScannedSlots::kMaxSlots;
    static constexpr int kSmallSlots = 64;

    explicit FreeSlotSet(FreeNode* nodes) : nodes_(nodes) {}

    // Takes over the slots of `few` (their capacities are in nodes already) and which of them are free.
    FreeSlotSet(FreeNode* nodes, const ScannedSlots& few) : nodes_(nodes) {
        for (int slot = 0; slot < few.num_slots(); ++slot) {
            num_slots_ = slot + 1;
            nodes_[slot].priority = memplan_offsets::priority(slot);
            insert_rank(slot, nodes_[slot].capacity);
        }
        free_bits_ = few.free_bits();  // both forms number the bits by slot id
    }

    // Opens a new slot (not free) of `bytes` and returns its id.
    int open(long long bytes) {
        const int slot = num_slots_++;
        nodes_[slot].capacity = bytes;
        nodes_[slot].priority = memplan_offsets::priority(slot);  // the offsets planner's treaps use the same hash
        if (slot < kSmallSlots) insert_rank(slot, bytes);  // ranks are kept from the first slot on
        if (num_slots_ == kScannedSlots + 1) {
            to_ranked();
        } else if (num_slots_ == kSmallSlots + 1) {
            to_treap();
        }
        return slot;
    }

    int num_slots() const { return num_slots_; }

    FreeNode& node(int slot) const { return nodes_[slot]; }

    // Removes and returns the free slot with the smallest capacity >= need,
    // the lowest id among equals; NONE when none fits. Plain branches: with
    // the few, repeating sizes of real graphs they predict well, and the
    // benchmarks measured a branch-free descent twice as slow on a transformer.
    int poll_ceiling(long long need) {
        if (num_slots_ <= kScannedSlots) return poll_ceiling_scanned(need);
        if (num_slots_ <= kSmallSlots) return poll_ceiling_ranked(need);
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
        if (num_slots_ <= kScannedSlots) {
            free_bits_ |= std::uint64_t{1} << slot;
        } else if (num_slots_ <= kSmallSlots) {
            free_bits_ |= std::uint64_t{1} << slot_rank_[slot];
        } else {
            add_to_treap(slot);
        }
    }

private:
    int poll_ceiling_scanned(long long need) { return ScannedSlots::poll_ceiling(nodes_, free_bits_, need); }

    // poll_ceiling over the free bits by rank: the lowest free rank at or above
    // the need's threshold is the smallest capacity that fits, the lowest id among equals.
    int poll_ceiling_ranked(long long need) {
        const int threshold = threshold_of(need);
        const std::uint64_t fitting = threshold >= kSmallSlots ? 0 : free_bits_ & (~std::uint64_t{0} << threshold);
        if (fitting == 0) return NONE;
        const int rank = lowest_bit(fitting);
        free_bits_ &= ~(std::uint64_t{1} << rank);
        return rank_slot_[rank];
    }

    // The first rank whose capacity is at least need (num_slots_ when none is).
    int threshold_of(long long need) {
        Threshold& known = thresholds_[threshold_index(need)];
        if (known.need == need && known.generation == generation_) return known.rank;
        int rank = 0;
        for (int r = 0; r < num_slots_; ++r) rank += rank_capacity_[r] < need;  // no branch per slot
        known = Threshold{need, rank, generation_};
        return rank;
    }

    // Fibonacci hashing of the need into the table of thresholds.
    static int threshold_index(long long need) {
        return static_cast<int>((static_cast<std::uint64_t>(need) * 0x9E3779B97F4A7C15ULL) >> (64 - kThresholdBits));
    }

    // Puts a newly opened slot (the highest id yet, not free) at its rank: after
    // every slot of capacity <= bytes. The ranks above move up one, and in the
    // ranked form the free bits with them.
    void insert_rank(int slot, long long bytes) {
        int rank = 0;
        for (int r = 0; r < slot; ++r) rank += rank_capacity_[r] <= bytes;
        for (int r = slot; r > rank; --r) {
            rank_capacity_[r] = rank_capacity_[r - 1];
            rank_slot_[r] = rank_slot_[r - 1];
            slot_rank_[rank_slot_[r]] = static_cast<unsigned char>(r);
        }
        rank_capacity_[rank] = bytes;
        rank_slot_[rank] = static_cast<unsigned char>(slot);
        slot_rank_[slot] = static_cast<unsigned char>(rank);
        if (num_slots_ > kScannedSlots + 1) {
            // slot < kSmallSlots ranks were in use, so the top bit is clear and nothing shifts out.
            const std::uint64_t below = rank == 0 ? 0 : ~std::uint64_t{0} >> (kSmallSlots - rank);
            free_bits_ = (free_bits_ & below) | ((free_bits_ & ~below) << 1);
            ++generation_;  // every remembered threshold above this rank moved
        }
    }

    // Renumbers the free bits from slot ids to ranks, when the slot past kScannedSlots opens.
    void to_ranked() {
        std::uint64_t ranks = 0;
        for (std::uint64_t bits = free_bits_; bits != 0; bits &= bits - 1) {
            ranks |= std::uint64_t{1} << slot_rank_[lowest_bit(bits)];
        }
        free_bits_ = ranks;
    }

    // Moves the free slots from the ranks into the (empty) treap, for good.
    void to_treap() {
        for (std::uint64_t bits = free_bits_; bits != 0; bits &= bits - 1) add_to_treap(rank_slot_[lowest_bit(bits)]);
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

    // A need and its threshold, valid while generation matches the set's (an open moves thresholds).
    struct Threshold {
        long long need;
        int rank;
        int generation;
    };
    static constexpr int kThresholdBits = 6;

    FreeNode* nodes_;
    int root_ = NONE;
    int num_slots_ = 0;
    std::uint64_t free_bits_ = 0;  // the free slots: bit s for slot s while scanned, bit r for rank r while ranked
    int generation_ = 1;           // table entries start at generation 0: none is valid
    // The open slots' capacities in rank order: a copy of nodes_' (which stay in id order for the
    // treap), so a threshold's count reads one contiguous run instead of a load through rank_slot_.
    long long rank_capacity_[kSmallSlots];  // ascending, ties by id
    unsigned char rank_slot_[kSmallSlots];  // the slot at each rank
    unsigned char slot_rank_[kSmallSlots];  // the rank of each slot
    Threshold thresholds_[1 << kThresholdBits] = {};
};

}  // namespace memplan_detail

#endif  // MEMPLAN_FREE_SLOT_SET_H
