// SPDX-License-Identifier: Apache-2.0
// Tests for packed_schedule.h: the entry points NativeCompiledGraph calls.

#include "test_support.h"

namespace memplan_test {
namespace {

// The entry points the JNI layer calls: the schedule packed in one int array,
// read at the indexes given, every one checked against the arrays' lengths.
void test_schedule_entry_points() {
    RawAlloc r;
    CHECK_EQ(r.run(), MEMPLAN_OK);
    // doff at 0, foff at 3, fo at 6, ov at 9
    std::vector<int> packed;
    for (const auto* part : {&r.doff, &r.foff, &r.fo, &r.ov}) packed.insert(packed.end(), part->begin(), part->end());
    const int length = isize(packed.size());
    struct Call {
        int def_at = 0, free_at = 3, free_owners_at = 6, value_at = 9, slot_length = 3, length = 0;
    };
    auto run = [&](Call c, std::vector<int>* slot) {
        std::vector<long long> cap(3), stats(4), scratch(64);
        slot->assign(3, -7);
        return memplan_schedule_allocate(r.nv, r.k, r.positions, packed.data(), c.length, c.def_at, c.free_at,
                                         c.free_owners_at, c.value_at, r.size.data(), slot->data(), c.slot_length,
                                         cap.data(), stats.data(), scratch.data(), r.scratch_bytes);
    };
    std::vector<int> slot;
    Call ok;
    ok.length = length;
    CHECK_EQ(run(ok, &slot), MEMPLAN_OK);
    CHECK_VEC(slot, r.slot);
    Call c = ok; c.def_at = -1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.free_at = length - 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);  // 3 ints from there pass the end
    c = ok; c.free_owners_at = length; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.value_at = length - 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.slot_length = 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);      // result array too short
    c = ok; c.length = length - 1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);   // ov's last int outside
    c = ok; c.length = -1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    {
        std::vector<long long> cap(3), stats(4), scratch(64);
        CHECK_EQ(memplan_schedule_allocate(r.nv, r.k, r.positions, nullptr, length, 0, 3, 6, 9, r.size.data(),
                                           slot.data(), 3, cap.data(), stats.data(), scratch.data(), r.scratch_bytes),
                 MEMPLAN_BAD_ARGUMENT);
    }

    // Offsets: intervals [0,1], [1,2], [0,2] over three positions, packed as defs then use ends.
    const std::vector<int> def{0, 1, 0}, use_end{1, 2, 2};
    const std::vector<long long> size{16, 8, 4};
    std::vector<int> intervals{7, 7};  // two ints of something else first
    intervals.insert(intervals.end(), def.begin(), def.end());
    intervals.insert(intervals.end(), use_end.begin(), use_end.end());
    const long long bytes = memplan_offsets_scratch_bytes(3, 3, 1);
    std::vector<long long> scratch(static_cast<std::size_t>((bytes + 7) / 8)), stats(4), expected(3), offset(3);
    CHECK_EQ(memplan_offsets_plan(3, 3, def.data(), use_end.data(), size.data(), 1, expected.data(), stats.data(),
                                  scratch.data(), bytes),
             MEMPLAN_OK);
    const int n = isize(intervals.size());
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 5, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_OK);
    CHECK_VEC(offset, expected);
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, -1, 5, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 6, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);  // use ends run past the array
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 5, size.data(), 1, offset.data(), 2,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);  // result array too short
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, nullptr, n, 2, 5, size.data(), 1, offset.data(), 3, stats.data(),
                                           scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);
}

}  // namespace

void run_packed_schedule_tests() {
    run_case("schedule entry points check every index", test_schedule_entry_points);
}

}  // namespace memplan_test
