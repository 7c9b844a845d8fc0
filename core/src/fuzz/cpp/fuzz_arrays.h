// SPDX-License-Identifier: Apache-2.0
// fuzz_arrays.h - arrays as the Java side could hand them over, drawn from a
// fuzzer's bytes: each on the heap at exactly its length (so AddressSanitizer
// sees one element past it), its contents either arbitrary or shaped like a
// well-formed argument (offsets that start at 0 and never decrease, ids in
// range), so that the fuzzer reaches past the first check.

#ifndef MEMPLAN_FUZZ_ARRAYS_H
#define MEMPLAN_FUZZ_ARRAYS_H

#include <fuzzer/FuzzedDataProvider.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

namespace fuzz_arrays {

// A heap array of exactly n elements (n may be 0: a real, empty allocation, as a
// Java array of length 0 is).
template <class T>
struct Exact {
    std::unique_ptr<T[]> data;
    int length = 0;
    explicit Exact(int n) : data(new T[static_cast<std::size_t>(n)]()), length(n) {}
    T* get() { return data.get(); }
    T& operator[](int i) { return data[static_cast<std::size_t>(i)]; }
};

// A count in [0, max], now and then a hostile one (negative, huge).
inline int count(FuzzedDataProvider& in, int max) {
    switch (in.ConsumeIntegralInRange<int>(0, 15)) {
        case 0: return in.ConsumeIntegral<int>();
        case 1: return -1;
        default: return in.ConsumeIntegralInRange<int>(0, max);
    }
}

// An int near the range [0, bound): mostly inside, sometimes just outside or arbitrary.
inline int id(FuzzedDataProvider& in, int bound) {
    switch (in.ConsumeIntegralInRange<int>(0, 31)) {
        case 0: return in.ConsumeIntegral<int>();
        case 1: return bound;
        case 2: return -1;
        default: return bound > 0 ? in.ConsumeIntegralInRange<int>(0, bound - 1) : 0;
    }
}

// A size in bytes: mostly small, sometimes near the limits of a long long.
inline long long size(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange<int>(0, 15)) {
        case 0: return in.ConsumeIntegral<long long>();
        case 1: return LLONG_MAX - in.ConsumeIntegralInRange<long long>(0, 3);
        case 2: return (1LL << 62) + in.ConsumeIntegralInRange<long long>(-1, 1);
        case 3: return -in.ConsumeIntegralInRange<long long>(1, 2);
        default: return in.ConsumeIntegralInRange<long long>(0, 4096);
    }
}

// CSR offsets for `groups` groups: usually 0, then non-decreasing with the
// last at `total` when total >= 0; sometimes arbitrary ints.
inline Exact<int> offsets(FuzzedDataProvider& in, int groups, int total) {
    const int n = groups >= 0 && groups < (1 << 16) ? groups + 1 : 1;
    Exact<int> out(n);
    const bool shaped = in.ConsumeIntegralInRange<int>(0, 7) != 0;
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (!shaped) {
            out[i] = id(in, total + 1);
            continue;
        }
        if (i == 0) {
            out[i] = 0;
        } else if (i == n - 1 && total >= 0 && total >= at) {
            out[i] = total;
        } else {
            const int room = total > at ? total - at : 0;
            at += in.ConsumeIntegralInRange<int>(0, room < 4 ? room : 4);
            out[i] = at;
        }
        at = out[i];
    }
    return out;
}

}  // namespace fuzz_arrays

#endif  // MEMPLAN_FUZZ_ARRAYS_H
