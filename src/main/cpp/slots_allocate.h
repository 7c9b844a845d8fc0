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

// Greedy best fit (docs/design.md §5) over a compiled schedule: the per-request hot
// path, SlotsAllocate.run step for step. One pass over positions; no
// graph walk and no heap allocation. Writes stats[MEMPLAN_NUM_STATS].
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
    // Each owner is allocated exactly once and freed exactly once; the
    // per-position checks below make the ranges contiguous and in bounds.
    if (def_offsets[0] != 0 || free_offsets[0] != 0 || def_offsets[num_positions] != num_owners ||
        free_offsets[num_positions] != num_owners) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (value_slot != nullptr) {
        for (int v = 0; v < num_values; ++v) value_slot[v] = NONE;
    }

    FreeSlotSet free(static_cast<FreeNode*>(scratch));
    long long live = 0;
    long long lower_bound = 0;
    long long naive = 0;
    long long peak = 0;
    int next_owner = 0;  // owners [0, next_owner) have slots
    int next_free = 0;   // free_owners[0, next_free) have been released
    for (int p = 0; p < num_positions; ++p) {
        const int def_end = def_offsets[p + 1];
        if (def_end < next_owner || def_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_owner < def_end; ++next_owner) {
            const int o = next_owner;
            const long long need = owner_size[o];
            const int v = owner_value[o];
            if (need < 0 || v < 0 || v >= num_values) return MEMPLAN_BAD_ARGUMENT;
            // A value listed as two owners.
            if (value_slot != nullptr && value_slot[v] != NONE) return MEMPLAN_BAD_ARGUMENT;
            // peak and live never exceed naive (a new slot's capacity is its
            // opener's size), so checking naive covers all three sums.
            if (add_overflows(naive, need, &naive)) return MEMPLAN_OVERFLOW;
            int slot = free.poll_ceiling(need);
            if (slot == NONE) {
                slot = free.open(need);
                slot_capacity[slot] = need;
                peak += need;
            }
            owner_slot[o] = slot;
            if (value_slot != nullptr) value_slot[v] = slot;
            live += need;
        }
        if (live > lower_bound) lower_bound = live;

        // Free after allocating: a node's outputs never land on its own inputs.
        const int free_end = free_offsets[p + 1];
        if (free_end < next_free || free_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_free < free_end; ++next_free) {
            const int o = free_owners[next_free];
            // Only an owner that already has a slot, and still holds it, can be freed. A freed
            // owner's slot is stored flipped (-1 - slot, negative) until the end: the check reads
            // the one int the release needs anyway, where a per-slot occupant cost a dependent
            // load of the slot's node (a third of the native chain plan's samples).
            if (o < 0 || o >= next_owner) return MEMPLAN_BAD_ARGUMENT;
            const int slot = owner_slot[o];
            if (slot < 0) return MEMPLAN_BAD_ARGUMENT;  // freed already
            owner_slot[o] = -1 - slot;
            free.add(slot);
            live -= owner_size[o];
        }
    }
    // free_offsets[num_positions] == num_owners and no owner was freed twice, so every owner
    // was freed once: all slots are flipped. (On a refusal above, owner_slot is left as it is.)
    for (int o = 0; o < num_owners; ++o) owner_slot[o] = -1 - owner_slot[o];

    stats[MEMPLAN_STAT_NUM_SLOTS] = free.num_slots();
    stats[MEMPLAN_STAT_PEAK_BYTES] = peak;
    stats[MEMPLAN_STAT_NAIVE_BYTES] = naive;
    stats[MEMPLAN_STAT_LOWER_BOUND_BYTES] = lower_bound;
    return MEMPLAN_OK;
}

#endif  // MEMPLAN_SLOTS_ALLOCATE_H
