// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: memplan_exact_pack (the exact search behind `pack --exact`) on any
// lifetimes, sizes, seed plan and limits the Java side could pass. It either returns a code or
// gives a valid plan (checked here pair by pair in 128 bits), no higher than the seed, with a proven bound that no
// plan beats and a status that agrees with both. A small node limit keeps each input fast; the
// search is deterministic, so the same input is run twice and must give the same answer.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstring>

#include "fuzz_arrays.h"
#include "memplan_core.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

namespace {

struct Answer {
    int rc;
    Exact<long long> offset;
    long long stats[MEMPLAN_NUM_STATS];
    explicit Answer(int n) : rc(-1), offset(n) {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    const int claimed = fuzz_arrays::count(in, 24);
    const int n = claimed >= 0 && claimed <= 24 ? claimed : in.ConsumeIntegralInRange<int>(0, 24);
    // The count passed is the arrays' length or negative: the Java side passes the length of the
    // arrays it checked (NativeEngine), and no C call can see how long an array is.
    const int passed = claimed < 0 ? claimed : n;
    const int horizon = in.ConsumeIntegralInRange<int>(1, 40);
    Exact<long long> lower(n);
    Exact<long long> upper(n);
    Exact<long long> size(n);
    for (int i = 0; i < n; ++i) {
        const bool hostile = in.ConsumeIntegralInRange<int>(0, 31) == 0;
        lower[i] = hostile ? in.ConsumeIntegral<long long>() : in.ConsumeIntegralInRange<long long>(0, horizon - 1);
        upper[i] = hostile ? in.ConsumeIntegral<long long>()
                           : lower[i] + in.ConsumeIntegralInRange<long long>(in.ConsumeIntegralInRange<int>(0, 31) == 0 ? 0 : 1,
                                                                            horizon);
        size[i] = fuzz_arrays::size(in);
    }
    // The seed: usually every buffer stacked on the previous (a valid plan), sometimes with one
    // offset moved anywhere (often an overlap the call must refuse).
    Exact<long long> seed(n);
    long long at = 0;
    for (int i = 0; i < n; ++i) {
        seed[i] = at;
        if (__builtin_add_overflow(at, size[i] > 0 ? size[i] : 0, &at)) at = 0;
    }
    if (n > 0 && in.ConsumeIntegralInRange<int>(0, 7) == 0) {
        seed[in.ConsumeIntegralInRange<int>(0, n - 1)] = in.ConsumeIntegralInRange<int>(0, 3) == 0
                                                           ? in.ConsumeIntegral<long long>()
                                                           : in.ConsumeIntegralInRange<long long>(0, 8192);
    }
    const long long node_limit = in.ConsumeIntegralInRange<int>(0, 31) == 0 ? in.ConsumeIntegral<long long>()
                                                                           : in.ConsumeIntegralInRange<long long>(1, 3000);
    const long long target = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? in.ConsumeIntegralInRange<long long>(-2, 20000) : -1;
    const long long time_limit_ms = in.ConsumeIntegralInRange<int>(0, 31) == 0 ? -1 : 0;  // a clock would make runs differ

    Answer a(n);
    Answer b(n);
    a.rc = memplan_exact_pack(passed, lower.get(), upper.get(), size.get(), seed.get(), node_limit, time_limit_ms,
                              target, a.offset.get(), a.stats);
    require(a.rc == MEMPLAN_OK || a.rc == MEMPLAN_BAD_ARGUMENT || a.rc == MEMPLAN_OVERFLOW ||
                a.rc == MEMPLAN_OUT_OF_MEMORY,
            "exact code", a.rc);
    b.rc = memplan_exact_pack(passed, lower.get(), upper.get(), size.get(), seed.get(), node_limit, time_limit_ms,
                              target, b.offset.get(), b.stats);
    require(a.rc == b.rc, "two runs gave different codes", a.rc, b.rc);
    if (a.rc != MEMPLAN_OK) return 0;
    require(std::memcmp(a.stats, b.stats, sizeof a.stats) == 0, "two runs gave different stats", a.stats[0], b.stats[0]);
    for (int i = 0; i < n; ++i) require(a.offset[i] == b.offset[i], "two runs gave different offsets", i);

    require(passed == n && node_limit >= 1 && time_limit_ms >= 0 && target >= -1, "accepted bad limits", passed,
            node_limit);
    __int128 seed_height = 0;
    for (int i = 0; i < n; ++i) {
        require(lower[i] < upper[i] && size[i] >= 0 && seed[i] >= 0, "accepted a bad buffer", i, size[i]);
        if (size[i] > 0 && static_cast<__int128>(seed[i]) + size[i] > seed_height) seed_height = seed[i] + size[i];
    }
    const long long height = a.stats[MEMPLAN_EXACT_STAT_HEIGHT_BYTES];
    const long long proven = a.stats[MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES];
    const long long status = a.stats[MEMPLAN_EXACT_STAT_STATUS];
    require(height <= seed_height, "the answer is higher than its seed", height, static_cast<long long>(seed_height));
    require(proven <= height, "a proven bound above the plan found", proven, height);
    require(status >= memplan_exact::kProven && status <= memplan_exact::kTargetReached, "unknown status", status);
    if (status == memplan_exact::kProven) require(height == proven, "proven optimal with the gap open", height, proven);
    if (status == memplan_exact::kTargetReached) require(target >= 0 && height <= target, "target not reached", height, target);
    __int128 top = 0;
    __int128 live_bound = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] == 0) continue;
        require(a.offset[i] >= 0, "negative offset", i, a.offset[i]);
        if (static_cast<__int128>(a.offset[i]) + size[i] > top) top = a.offset[i] + size[i];
        __int128 live = 0;  // the largest live sum is reached where some buffer starts
        for (int j = 0; j < n; ++j) {
            if (lower[j] <= lower[i] && lower[i] < upper[j]) live += size[j];
        }
        if (live > live_bound) live_bound = live;
        for (int j = i + 1; j < n; ++j) {
            if (size[j] == 0 || upper[i] <= lower[j] || upper[j] <= lower[i]) continue;
            const bool apart = static_cast<__int128>(a.offset[i]) + size[i] <= a.offset[j] ||
                               static_cast<__int128>(a.offset[j]) + size[j] <= a.offset[i];
            require(apart, "two live buffers overlap", i, j);
        }
    }
    require(top == height, "the height is not the plan's top", height, static_cast<long long>(top));
    require(live_bound <= proven, "the proven bound is below the live bound", proven, static_cast<long long>(live_bound));
    return 0;
}
