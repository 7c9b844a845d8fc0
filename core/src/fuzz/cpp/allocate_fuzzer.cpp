// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: memplan_schedule_allocate on any schedule array the Java
// side could pin (buckets, free list and owner values as arbitrary or nearly
// well-formed ints, at any indexes) with any sizes. It either returns a code
// or gives a slots plan that plan_checks.h accepts.

#include <fuzzer/FuzzedDataProvider.h>

#include <vector>

#include "fuzz_arrays.h"
#include "memplan_core.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    const int num_values = fuzz_arrays::count(in, 48);
    const int num_owners = fuzz_arrays::count(in, 40);
    const int num_positions = fuzz_arrays::count(in, 24);
    const int owners = num_owners >= 0 && num_owners <= 40 ? num_owners : in.ConsumeIntegralInRange<int>(0, 40);
    const int positions = num_positions >= 1 && num_positions <= 24 ? num_positions : in.ConsumeIntegralInRange<int>(1, 24);
    // The schedule: def offsets, free offsets, free owners (usually a permutation), owner values.
    Exact<int> defs = fuzz_arrays::offsets(in, positions, owners);
    Exact<int> frees = fuzz_arrays::offsets(in, positions, owners);
    std::vector<int> parts;
    for (int i = 0; i < defs.length; ++i) parts.push_back(defs[i]);
    for (int i = 0; i < frees.length; ++i) parts.push_back(frees[i]);
    const int free_owners_at = static_cast<int>(parts.size());
    std::vector<int> permutation(owners);
    for (int o = 0; o < owners; ++o) permutation[o] = o;
    for (int o = owners - 1; o > 0; --o) std::swap(permutation[o], permutation[in.ConsumeIntegralInRange<int>(0, o)]);
    for (int o = 0; o < owners; ++o) {
        parts.push_back(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? fuzz_arrays::id(in, owners) : permutation[o]);
    }
    const int owner_value_at = static_cast<int>(parts.size());
    for (int o = 0; o < owners; ++o) parts.push_back(fuzz_arrays::id(in, num_values > 0 ? num_values : 1));
    const int extra = in.ConsumeIntegralInRange<int>(0, 3);
    for (int i = 0; i < extra; ++i) parts.push_back(in.ConsumeIntegral<int>());
    Exact<int> schedule(static_cast<int>(parts.size()));
    for (int i = 0; i < schedule.length; ++i) schedule[i] = parts[static_cast<std::size_t>(i)];
    int at[4] = {0, defs.length, free_owners_at, owner_value_at};
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) at[in.ConsumeIntegralInRange<int>(0, 3)] = fuzz_arrays::id(in, schedule.length);

    Exact<long long> size(owners);
    for (int o = 0; o < owners; ++o) size[o] = fuzz_arrays::size(in);
    Exact<int> slot(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegralInRange<int>(0, owners) : owners);
    Exact<long long> capacity(owners);
    Exact<long long> stats(MEMPLAN_NUM_STATS);
    long long scratch_bytes = memplan_allocate_scratch_bytes(num_owners);
    if (scratch_bytes < 0 || scratch_bytes > (1 << 20)) scratch_bytes = 64;
    if (scratch_bytes >= 8 && in.ConsumeIntegralInRange<int>(0, 15) == 0) scratch_bytes -= 8;
    std::vector<long long> scratch(static_cast<std::size_t>(scratch_bytes / 8 + 1));
    const int rc = memplan_schedule_allocate(num_values, num_owners, num_positions, schedule.get(), schedule.length,
                                             at[0], at[1], at[2], at[3], size.get(), slot.get(), slot.length,
                                             capacity.get(), stats.get(), scratch.data(), scratch_bytes);
    require(rc == MEMPLAN_OK || rc == MEMPLAN_BAD_ARGUMENT || rc == MEMPLAN_OVERFLOW, "allocate code", rc);
    if (rc != MEMPLAN_OK) return 0;
    require(num_owners == owners && num_positions == positions && num_owners <= num_values, "accepted bad counts",
            num_owners, num_positions);
    fuzz_checks::check_slots_plan(owners, positions, schedule.get() + at[0], schedule.get() + at[1],
                                  schedule.get() + at[2], size.get(), slot.get(), capacity.get(), stats.get());
    return 0;
}
