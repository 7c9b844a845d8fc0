// SPDX-License-Identifier: Apache-2.0
// packed_schedule.h - C++ only: the entry points NativeCompiledGraph calls per
// request. No Java class pairs with it (docs/design.md §12): the Java engine
// reads its schedule's arrays directly.

#ifndef MEMPLAN_PACKED_SCHEDULE_H
#define MEMPLAN_PACKED_SCHEDULE_H

#include "abi.h"
#include "offsets_plan.h"
#include "slots_allocate.h"

// ------------------------------------------------------------ a schedule in one array
//
// The Java side keeps a compiled schedule's arrays in one int array on its
// heap and pins it for each request (a JNI critical region), passing the index
// of each array in it; the result array is pinned the same way and written in
// place. These check every index and length against the arrays' own lengths
// before any element is read or written, then run the plain entry points.

namespace memplan_detail {
// [at, at + length) lies inside an array of `array_length` elements.
inline bool within(int at, long long length, int array_length) {
    return at >= 0 && length >= 0 && array_length >= 0 && static_cast<long long>(at) + length <= array_length;
}
}  // namespace memplan_detail

// memplan_allocate on a schedule packed in `schedule` (schedule_length ints):
// def and free offsets (num_positions + 1 ints each), free owners and owner
// values (num_owners ints each) at the given indexes; owner_slot holds
// owner_slot_length ints, at least num_owners.
inline int memplan_schedule_allocate(int num_values, int num_owners, int num_positions, const int* schedule,
                                     int schedule_length, int def_offsets_at, int free_offsets_at,
                                     int free_owners_at, int owner_value_at, const long long* owner_size,
                                     int* owner_slot, int owner_slot_length, long long* slot_capacity,
                                     long long* stats, void* scratch, long long scratch_bytes) {
    using memplan_detail::within;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (schedule == nullptr || num_positions < 1 || num_owners < 0) return MEMPLAN_BAD_ARGUMENT;
    const long long bucket_offsets = static_cast<long long>(num_positions) + 1;
    if (!within(def_offsets_at, bucket_offsets, schedule_length) ||
        !within(free_offsets_at, bucket_offsets, schedule_length) ||
        !within(free_owners_at, num_owners, schedule_length) || !within(owner_value_at, num_owners, schedule_length) ||
        !within(0, num_owners, owner_slot_length)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    return memplan_allocate(num_values, num_owners, num_positions, schedule + def_offsets_at,
                            schedule + free_offsets_at, schedule + free_owners_at, schedule + owner_value_at,
                            owner_size, owner_slot, nullptr, slot_capacity, stats, scratch, scratch_bytes);
}

// memplan_offsets_plan on the intervals of a schedule packed in `schedule`:
// owner defs and use ends (num_owners ints each) at the given indexes;
// owner_offset holds owner_offset_length longs, at least num_owners.
inline int memplan_schedule_offsets_plan(int num_owners, int num_positions, const int* schedule,
                                         int schedule_length, int owner_def_at, int owner_use_end_at,
                                         const long long* owner_size, int effort, long long* owner_offset,
                                         int owner_offset_length, long long* stats, void* scratch,
                                         long long scratch_bytes) {
    using memplan_detail::within;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (schedule == nullptr || num_owners < 0) return MEMPLAN_BAD_ARGUMENT;
    if (!within(owner_def_at, num_owners, schedule_length) || !within(owner_use_end_at, num_owners, schedule_length) ||
        !within(0, num_owners, owner_offset_length)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    return memplan_offsets_plan(num_owners, num_positions, schedule + owner_def_at, schedule + owner_use_end_at,
                                owner_size, effort, owner_offset, stats, scratch, scratch_bytes);
}

#endif  // MEMPLAN_PACKED_SCHEDULE_H
