// SPDX-License-Identifier: Apache-2.0
// slots_allocate.h - greedy best-fit slot allocation (docs/design.md §5):
// memplan_allocate is SlotsAllocate.run, step for step, over a
// FreeSlotSet in the caller's scratch.

#ifndef MEMPLAN_SLOTS_ALLOCATE_H
#define MEMPLAN_SLOTS_ALLOCATE_H

#include <cstdint>

#include "abi.h"
#include "free_slot_set.h"

// Bytes of scratch memplan_allocate needs: one FreeNode per possible slot
// (there are never more slots than owners).
inline long long memplan_allocate_scratch_bytes(int num_owners) {
    if (num_owners <= 0) return 0;
    return static_cast<long long>(num_owners) * static_cast<long long>(sizeof(memplan_detail::FreeNode));
}

namespace memplan_detail {

// The sum of sizes that must each be >= 0: -1 when one is negative, -2 when the
// sum overflows a long long. Branch free per size (it vectorizes): the high and
// low 32 bits of each size are summed apart, which no count of owners below 2^31 overflows.
inline long long checked_total(const long long* size, int n) {
    std::uint64_t high = 0;
    std::uint64_t low = 0;
    long long sign = 0;
    for (int o = 0; o < n; ++o) {
        sign |= size[o];
        high += static_cast<std::uint64_t>(size[o]) >> 32;
        low += static_cast<std::uint64_t>(size[o]) & 0xffffffffULL;
    }
    if (sign < 0) return -1;
    high += low >> 32;
    if (high >= (std::uint64_t{1} << 31)) return -2;
    return static_cast<long long>((high << 32) | (low & 0xffffffffULL));
}

// Bucket offsets that start at 0, never decrease and end at num_owners (abi.h's
// valid_offsets): with them every bucket of the schedule lies in [0, num_owners).
inline bool valid_buckets(const int* offsets, int num_positions, int num_owners) {
    int total = 0;
    return valid_offsets(offsets, num_positions, &total) && total == num_owners;
}

// Where a slots allocation stands: the next position, owner to place and
// owner to free, and the totals so far. The loops below copy it into locals.
struct SlotsProgress {
    int position = 0;
    int next_owner = 0;  // owners [0, next_owner) have slots
    int next_free = 0;   // free_owners[0, next_free) have been released
    long long live = 0;
    long long lower_bound = 0;
    long long peak = 0;
};

// The schedule and result arrays one allocation reads and writes.
struct SlotsSchedule {
    int num_positions;
    const int* def_offsets;
    const int* free_offsets;
    const int* free_owners;
    const long long* owner_size;
    int* owner_slot;
    long long* slot_capacity;
    FreeNode* nodes;
};

constexpr int kOutgrown = -1;  // place_slots: the set needs a slot more than its form holds

// The allocation loop, over either set: place each position's owners (best fit,
// else a new slot), then free the owners whose last use it is. Returns
// MEMPLAN_OK at the end, kOutgrown when `free` is a ScannedSlots that is full
// and nothing fits (at then points at that owner), MEMPLAN_BAD_ARGUMENT on a
// free the schedule cannot make. The bucket offsets are valid (valid_buckets).
template <class Set>
inline int place_slots(const SlotsSchedule& s, SlotsProgress& at, Set& free);

// The two sets' calls, so that one loop serves both.
inline int poll_slot(ScannedSlots& few, const FreeNode* nodes, long long need) { return few.poll_ceiling(nodes, need); }
inline int poll_slot(FreeSlotSet& all, const FreeNode*, long long need) { return all.poll_ceiling(need); }
inline bool may_open(const ScannedSlots& few) { return !few.full(); }
inline bool may_open(const FreeSlotSet&) { return true; }
inline int open_slot(ScannedSlots& few, FreeNode* nodes, long long bytes) { return few.open(nodes, bytes); }
inline int open_slot(FreeSlotSet& all, FreeNode*, long long bytes) { return all.open(bytes); }

template <class Set>
inline int place_slots(const SlotsSchedule& s, SlotsProgress& at, Set& free) {
    // Locals, not fields of `at`: the loop's state stays in registers.
    int p = at.position;
    int o = at.next_owner;
    int k = at.next_free;
    long long live = at.live;
    long long lower_bound = at.lower_bound;
    long long peak = at.peak;
    int rc = MEMPLAN_OK;
    for (; p < s.num_positions; ++p) {
        for (const int def_end = s.def_offsets[p + 1]; o < def_end; ++o) {
            const long long need = s.owner_size[o];
            int slot = poll_slot(free, s.nodes, need);
            if (slot == NONE) {
                if (!may_open(free)) {
                    rc = kOutgrown;
                    goto stop;
                }
                slot = open_slot(free, s.nodes, need);
                s.slot_capacity[slot] = need;
                peak += need;
            }
            s.owner_slot[o] = slot;
            live += need;
        }
        if (live > lower_bound) lower_bound = live;

        // Free after allocating: a node's outputs never land on its own inputs.
        for (const int free_end = s.free_offsets[p + 1]; k < free_end; ++k) {
            const int f = s.free_owners[k];
            // Only an owner that already has a slot, and still holds it, can be freed. A freed
            // owner's slot is stored flipped (-1 - slot, negative) until the end: the check reads
            // the one int the release needs anyway.
            const int slot = static_cast<unsigned>(f) < static_cast<unsigned>(o) ? s.owner_slot[f] : NONE;
            if (slot < 0) {  // not placed yet, out of range, or freed already
                rc = MEMPLAN_BAD_ARGUMENT;
                goto stop;
            }
            s.owner_slot[f] = -1 - slot;
            free.add(slot);
            live -= s.owner_size[f];
        }
    }
stop:
    at = SlotsProgress{p, o, k, live, lower_bound, peak};
    return rc;
}

// value_slot of memplan_allocate: checks owner_value (each value in range, listed
// once) before the allocation, then fills in each value's slot after it.
inline bool check_owner_values(int num_values, int num_owners, const int* owner_value, int* value_slot) {
    for (int v = 0; v < num_values; ++v) value_slot[v] = NONE;
    for (int o = 0; o < num_owners; ++o) {
        const int v = owner_value[o];
        if (v < 0 || v >= num_values || value_slot[v] != NONE) return false;  // out of range, or listed twice
        value_slot[v] = o;
    }
    return true;
}

}  // namespace memplan_detail

// Greedy best fit (docs/design.md §5) over a compiled schedule: the per-request hot
// path, SlotsAllocate.run step for step. No graph walk and no heap allocation.
// Writes stats[MEMPLAN_NUM_STATS].
//
// The checks that do not depend on the slots run first, each in a pass of its
// own (the bucket offsets, the sizes and their sum, the owner values); the
// allocation loop then checks only its frees. The loop runs in a ScannedSlots
// while the allocation has at most 8 slots, and moves to a FreeSlotSet when it
// needs more: a chain or a ResNet never leaves the scanned form, whose state
// stays in registers (with the checks in the loop and the set in memory, a
// chain's plan took 1.3x-1.45x as long).
inline int memplan_allocate(
    int num_values, int num_owners, int num_positions,
    const int* def_offsets, const int* free_offsets, const int* free_owners,
    const int* owner_value,
    const long long* owner_size,
    int* owner_slot,
    int* value_slot,  // optional: nullptr when the caller derives slot per value itself
    long long* slot_capacity,
    long long* stats,
    void* scratch, long long scratch_bytes) {
    using namespace memplan_detail;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (num_values < 0 || num_owners < 0 || num_positions < 1) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > num_values) return MEMPLAN_BAD_ARGUMENT;  // owners are distinct values
    if (def_offsets == nullptr || free_offsets == nullptr) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > 0 && (free_owners == nullptr || owner_value == nullptr || owner_size == nullptr ||
                           owner_slot == nullptr || slot_capacity == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const long long needed = memplan_allocate_scratch_bytes(num_owners);
    if (scratch_bytes < needed) return MEMPLAN_BAD_ARGUMENT;
    if (needed > 0 && (scratch == nullptr ||
                       reinterpret_cast<std::uintptr_t>(scratch) % alignof(FreeNode) != 0)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    // Each owner is placed exactly once, and freed at most once (the loop checks that).
    if (!valid_buckets(def_offsets, num_positions, num_owners) ||
        !valid_buckets(free_offsets, num_positions, num_owners)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const long long naive = checked_total(owner_size, num_owners);  // peak and live never exceed it
    if (naive == -1) return MEMPLAN_BAD_ARGUMENT;
    if (naive == -2) return MEMPLAN_OVERFLOW;
    if (value_slot != nullptr && !check_owner_values(num_values, num_owners, owner_value, value_slot)) {
        return MEMPLAN_BAD_ARGUMENT;
    }

    FreeNode* nodes = static_cast<FreeNode*>(scratch);
    const SlotsSchedule schedule{num_positions, def_offsets, free_offsets, free_owners,
                                 owner_size, owner_slot, slot_capacity, nodes};
    SlotsProgress at;
    ScannedSlots few;
    int rc = place_slots(schedule, at, few);
    int num_slots = few.num_slots();
    if (rc == kOutgrown) {
        FreeSlotSet all(nodes, few);
        rc = place_slots(schedule, at, all);
        num_slots = all.num_slots();
    }
    if (rc != MEMPLAN_OK) return rc;  // owner_slot is left as it is
    // free_offsets[num_positions] == num_owners and no owner was freed twice, so every owner
    // was freed once: all slots are flipped.
    for (int o = 0; o < num_owners; ++o) owner_slot[o] = -1 - owner_slot[o];
    if (value_slot != nullptr) {
        for (int o = 0; o < num_owners; ++o) value_slot[owner_value[o]] = owner_slot[o];
    }

    stats[MEMPLAN_STAT_NUM_SLOTS] = num_slots;
    stats[MEMPLAN_STAT_PEAK_BYTES] = at.peak;
    stats[MEMPLAN_STAT_NAIVE_BYTES] = naive;
    stats[MEMPLAN_STAT_LOWER_BOUND_BYTES] = at.lower_bound;
    return MEMPLAN_OK;
}

#endif  // MEMPLAN_SLOTS_ALLOCATE_H
