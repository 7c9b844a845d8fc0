// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: memplan_checked_sizes (one request's sizes, checked and
// aligned) and the boundary's size queries (memplan_compile_packed_capacity,
// memplan_compile_scratch_bytes, memplan_allocate_scratch_bytes,
// memplan_offsets_scratch_bytes) on any counts: no undefined behaviour, and the
// answers agree with the same rules computed here in 128 bits.

#include <fuzzer/FuzzedDataProvider.h>

#include <climits>

#include "fuzz_arrays.h"
#include "memplan_core.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    const int a = in.ConsumeIntegral<int>();
    const int b = in.ConsumeIntegral<int>();
    const int c = in.ConsumeIntegral<int>();
    const long long capacity = memplan_compile_packed_capacity(a, b);
    require(capacity == -1 || (a >= 0 && b >= 0 && capacity > 0 && capacity <= INT_MAX), "packed capacity", a, b);
    const long long compile_scratch = memplan_compile_scratch_bytes(a, b, c, in.ConsumeIntegralInRange<int>(-1, 2));
    require(compile_scratch == -1 || compile_scratch > 0, "compile scratch", a, b);
    require(memplan_allocate_scratch_bytes(a) >= 0, "allocate scratch", a);
    const long long offsets_scratch = memplan_offsets_scratch_bytes(a, b, in.ConsumeIntegralInRange<int>(-1, 2));
    require(offsets_scratch == -1 || offsets_scratch >= 0, "offsets scratch", a, b);

    const int n = fuzz_arrays::count(in, 64);
    const int from_length = in.ConsumeIntegralInRange<int>(0, 64);
    const int to_length = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegralInRange<int>(0, 64) : from_length;
    long long alignment = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegral<long long>()
                          : 1LL << in.ConsumeIntegralInRange<int>(0, 12);
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) alignment = in.ConsumeIntegralInRange<long long>(1, 1000);
    Exact<long long> from(from_length);
    for (int i = 0; i < from_length; ++i) from[i] = fuzz_arrays::size(in);
    Exact<long long> to(to_length);
    const int accepted = memplan_checked_sizes(n, from.get(), from.length, alignment, to.get(), to.length);
    if (n < 0 || from_length < n || to_length < n || alignment < 1) {
        require(accepted == -1, "inconsistent arguments accepted", n, accepted);
        return 0;
    }
    // The same rule in 128 bits: each size >= 0, rounded up to the alignment, the sum in a long long.
    __int128 total = 0;
    int expected = n;
    for (int o = 0; o < n; ++o) {
        const __int128 s = from[o];
        const __int128 aligned = s < 0 ? s : (s + alignment - 1) / alignment * alignment;
        total += aligned;
        if (s < 0 || aligned > LLONG_MAX || total > LLONG_MAX) {
            expected = o;
            break;
        }
        require(to[o] == static_cast<long long>(aligned), "an aligned size", o, to[o]);
    }
    require(accepted == expected, "the first size refused", accepted, expected);
    if (expected < n) require(to[expected] == from[expected], "the refused size as read", expected, to[expected]);
    return 0;
}
