// SPDX-License-Identifier: Apache-2.0
// packed_schedule.h - C++ only: the entry points that compile a schedule into one
// Java array (NativeCompile) and plan each request on it (NativeCompiledGraph).
// No Java class pairs with it (docs/design.md §12): the Java engine keeps its
// schedule's arrays apart and reads them directly.

#ifndef MEMPLAN_PACKED_SCHEDULE_H
#define MEMPLAN_PACKED_SCHEDULE_H

#include <cstring>

#include "abi.h"
#include "compile.h"
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

// ------------------------------------------------------------ compiling into one array
//
// memplan_compile_packed reads the graph from Java arrays pinned for the call
// (nothing is copied into native memory) and writes the schedule into memory a
// pool keeps mapped, with room for every value to be an owner; once the owners
// are counted, memplan_copy_schedule moves it into the Java array the schedule
// keeps, sized exactly. Its layout there, from index 0: order (num_nodes), def
// offsets and free offsets (num_positions + 1 each), value buffers
// (num_values), then owner values, owner defs, owner use ends and free owners
// (num_owners each). In the pool's memory the four owner arrays start
// num_values apart instead. NativeCompile.java slices the Java array the same way.

namespace memplan_detail {

// Ints of the schedule before its owner arrays: order, both offsets arrays, value buffers.
inline long long packed_head(int num_values, int num_nodes) {
    const long long positions = num_nodes > 0 ? num_nodes : 1;
    return num_nodes + 2 * (positions + 1) + static_cast<long long>(num_values);
}

}  // namespace memplan_detail

// Ints memplan_compile_packed writes: the schedule's layout with every value an
// owner. -1 when a count is negative or the sum passes INT_MAX.
inline long long memplan_compile_packed_capacity(int num_values, int num_nodes) {
    if (num_values < 0 || num_nodes < 0) return -1;
    const long long ints = memplan_detail::packed_head(num_values, num_nodes) + 4LL * num_values;
    return ints <= INT_MAX ? ints : -1;
}

// memplan_compile on Java arrays given with their lengths, checked as
// FlatGraph.validate, validateValues and validateInPlace check them (offsets
// arrays of num_nodes + 1, ids as many as the offsets end at, one root and flag
// word per value, one mask word per value or no mask), writing the schedule
// into `packed` (at least memplan_compile_packed_capacity ints) and the counts
// into counts[MEMPLAN_COMPILE_NUM_COUNTS]; the schedule's length is that of
// its Java array.
inline int memplan_compile_packed(int num_values, int num_nodes, const int* input_offsets,
                                  int input_offsets_length, const int* inputs, int inputs_length,
                                  const int* output_offsets, int output_offsets_length, const int* outputs,
                                  int outputs_length, const int* value_root, int value_root_length,
                                  const int* value_flags, int value_flags_length, const int* in_place_mask,
                                  int in_place_mask_length, int include_graph_inputs, int* packed,
                                  int packed_length, int* counts, int counts_length, void* scratch,
                                  long long scratch_bytes) {
    using namespace memplan_detail;
    if (counts == nullptr || counts_length < MEMPLAN_COMPILE_NUM_COUNTS) return MEMPLAN_BAD_ARGUMENT;
    counts[MEMPLAN_COMPILE_NUM_OWNERS] = 0;
    counts[MEMPLAN_COMPILE_ERROR_NODE] = NONE;
    counts[MEMPLAN_COMPILE_SCHEDULE_LENGTH] = 0;
    const long long capacity = memplan_compile_packed_capacity(num_values, num_nodes);
    if (capacity < 0 || packed == nullptr || packed_length < capacity) return MEMPLAN_BAD_ARGUMENT;
    if (input_offsets == nullptr || output_offsets == nullptr || input_offsets_length != num_nodes + 1 ||
        output_offsets_length != num_nodes + 1 || value_root_length != num_values ||
        value_flags_length != num_values || (in_place_mask != nullptr && in_place_mask_length != num_values)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    // Where the offsets end must be the arrays' lengths; memplan_compile checks that
    // they start at 0 and never decrease before it reads an id, so every id it reads
    // lies inside its array.
    if (input_offsets[num_nodes] != inputs_length || output_offsets[num_nodes] != outputs_length) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const int positions = num_nodes > 0 ? num_nodes : 1;
    int* const order = packed;
    int* const def_offsets = order + num_nodes;
    int* const free_offsets = def_offsets + positions + 1;
    int* const value_buffer = free_offsets + positions + 1;
    int* const owner_value = value_buffer + num_values;
    int* const owner_def = owner_value + num_values;
    int* const owner_use_end = owner_def + num_values;
    int* const free_owners = owner_use_end + num_values;
    int num_owners = 0;
    int error_node = NONE;
    const int rc = memplan_compile(num_values, num_nodes, input_offsets, inputs, output_offsets, outputs, value_root,
                                   value_flags, in_place_mask, include_graph_inputs, order, owner_value, owner_def,
                                   owner_use_end, def_offsets, free_offsets, free_owners, value_buffer, &num_owners,
                                   &error_node, scratch, scratch_bytes);
    counts[MEMPLAN_COMPILE_ERROR_NODE] = error_node;
    if (rc != MEMPLAN_OK) return rc;
    // What compile wrote is checked where it is read: the per-request entry points
    // check every bucket end, owner value and free owner before using it, and
    // Schedule every value's buffer. A pass here checking them all once more cost
    // a tenth of a 10k-owner compile.
    if (num_owners < 0 || num_owners > num_values) return MEMPLAN_BAD_ARGUMENT;
    counts[MEMPLAN_COMPILE_NUM_OWNERS] = num_owners;
    counts[MEMPLAN_COMPILE_SCHEDULE_LENGTH] = static_cast<int>(packed_head(num_values, num_nodes) + 4LL * num_owners);
    return MEMPLAN_OK;
}

// Moves a schedule memplan_compile_packed wrote in `packed` (packed_length ints)
// into `schedule`, the Java array it is kept in (pinned for the call), with its
// owner arrays side by side: schedule_length must be exactly the length the
// compile reported for these counts. One copy into an array of the exact
// length, zeroed once by the JVM: writing the compile straight into a Java array
// sized for every value cost a larger zeroing and a trimming copy.
inline int memplan_copy_schedule(const int* packed, int packed_length, int num_values, int num_nodes, int num_owners,
                                 int* schedule, int schedule_length) {
    using memplan_detail::packed_head;
    const long long capacity = memplan_compile_packed_capacity(num_values, num_nodes);
    if (packed == nullptr || schedule == nullptr || capacity < 0 || packed_length < capacity || num_owners < 0 ||
        num_owners > num_values || schedule_length != packed_head(num_values, num_nodes) + 4LL * num_owners) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const long long head = packed_head(num_values, num_nodes);
    std::memcpy(schedule, packed, static_cast<std::size_t>(head) * sizeof(int));
    for (int a = 0; a < 4; ++a) {
        std::memcpy(schedule + head + static_cast<long long>(a) * num_owners,
                    packed + head + static_cast<long long>(a) * num_values,
                    static_cast<std::size_t>(num_owners) * sizeof(int));
    }
    return MEMPLAN_OK;
}

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
