// SPDX-License-Identifier: Apache-2.0
// request_sizes.h - C++ only: one request's owner sizes checked, rounded up to
// the alignment and copied in one pass, from the caller's array to the array
// the plan keeps (Schedule.plan's loop on the Java engine; docs/design.md §12).

#ifndef MEMPLAN_REQUEST_SIZES_H
#define MEMPLAN_REQUEST_SIZES_H

#include "abi.h"

// Copies the first n sizes of `from` (from_length longs) to `to` (to_length
// longs), each rounded up to a multiple of `alignment` (>= 1), while checking
// that each is >= 0, that its rounding fits in a long long and that their sum
// does. Reads each size of `from` exactly once, so a caller's array changing
// under it cannot make the copy unchecked.
//
// Returns n when every size was accepted; the owner o < n of the first size
// refused (negative, not roundable, or where the sum overflows), with to[o] =
// the size as read, so the caller can name it; -1 when the arguments are
// inconsistent (then nothing is written).
inline int memplan_checked_sizes(int n, const long long* from, int from_length, long long alignment, long long* to,
                                 int to_length) {
    using memplan_detail::add_overflows;
    if (n < 0 || from_length < n || to_length < n || alignment < 1) return -1;
    if (n > 0 && (from == nullptr || to == nullptr)) return -1;
    long long total = 0;
    if (alignment == 1) {
        for (int o = 0; o < n; ++o) {
            const long long b = from[o];
            to[o] = b;
            if (b < 0 || add_overflows(total, b, &total)) return o;
        }
        return n;
    }
    // A power of two rounds with a mask; any other alignment divides.
    const bool power_of_two = (alignment & (alignment - 1)) == 0;
    for (int o = 0; o < n; ++o) {
        const long long b = from[o];
        to[o] = b;
        if (b < 0) return o;
        const long long rem = power_of_two ? (b & (alignment - 1)) : b % alignment;
        long long aligned = b;
        if (rem != 0 && add_overflows(b, alignment - rem, &aligned)) return o;
        if (add_overflows(total, aligned, &total)) return o;
        to[o] = aligned;
    }
    return n;
}

#endif  // MEMPLAN_REQUEST_SIZES_H
