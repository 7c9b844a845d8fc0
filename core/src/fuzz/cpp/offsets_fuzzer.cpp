// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: memplan_offsets_plan (NativeEngine's packing path) on any
// intervals, sizes, effort and scratch the Java side could pass. It either
// returns a code or gives offsets that plan_checks.h accepts.

#include <fuzzer/FuzzedDataProvider.h>

#include <vector>

#include "fuzz_arrays.h"
#include "memplan_core.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    const int num_owners = fuzz_arrays::count(in, 48);
    const int num_positions = fuzz_arrays::count(in, 40);
    const int n = num_owners >= 0 && num_owners <= 48 ? num_owners : in.ConsumeIntegralInRange<int>(0, 48);
    // The count passed is the arrays' length, or one the entry point must refuse: the Java side
    // passes the length of the arrays it checked, and no C call can see how long an array is.
    const int owners_arg = num_owners < 0 || num_owners > (INT_MAX - 2) / 2 ? num_owners : n;
    const int positions = num_positions >= 1 && num_positions <= 40 ? num_positions : 40;
    Exact<int> def(n);
    Exact<int> use_end(n);
    Exact<long long> size(n);
    for (int i = 0; i < n; ++i) {
        def[i] = fuzz_arrays::id(in, positions);
        use_end[i] = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? fuzz_arrays::id(in, positions + 1)
                     : (def[i] >= 0 && def[i] < positions ? def[i] + in.ConsumeIntegralInRange<int>(0, positions) : def[i]);
        if (use_end[i] >= positions && in.ConsumeBool()) use_end[i] = positions - 1;
        size[i] = fuzz_arrays::size(in);
    }
    const int effort = in.ConsumeIntegralInRange<int>(0, 31) == 0 ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange<int>(0, 8);
    const int with_search = in.ConsumeBool() ? 1 : 0;
    long long scratch_bytes = memplan_offsets_scratch_bytes(owners_arg, num_positions, with_search);
    if (scratch_bytes < 0 || scratch_bytes > (1 << 22)) scratch_bytes = 64;
    if (scratch_bytes >= 8 && in.ConsumeIntegralInRange<int>(0, 15) == 0) scratch_bytes -= 8;
    std::vector<long long> scratch(static_cast<std::size_t>(scratch_bytes / 8 + 1));
    Exact<long long> offset(n);
    Exact<long long> stats(MEMPLAN_NUM_STATS);
    const int rc = memplan_offsets_plan(owners_arg, num_positions, def.get(), use_end.get(), size.get(), effort,
                                        offset.get(), stats.get(), scratch.data(), scratch_bytes);
    require(rc == MEMPLAN_OK || rc == MEMPLAN_BAD_ARGUMENT || rc == MEMPLAN_OVERFLOW || rc == MEMPLAN_OUT_OF_MEMORY,
            "offsets code", rc);
    if (rc != MEMPLAN_OK) return 0;
    require(owners_arg == n && effort >= 0 && effort <= MEMPLAN_MAX_EFFORT, "accepted bad counts", num_owners, effort);
    for (int i = 0; i < n; ++i) {
        require(def[i] >= 0 && def[i] <= use_end[i] && use_end[i] < num_positions && size[i] >= 0,
                "accepted a bad buffer", i, def[i]);
    }
    fuzz_checks::check_offsets_plan(n, def.get(), use_end.get(), size.get(), offset.get(), stats.get());
    return 0;
}
