// SPDX-License-Identifier: Apache-2.0
// rank_order.h - the three ranks the decoders try (size, area, lifetime) and
// the stable sorts that produce them: RankOrder.java, name for name
// (docs/design.md §5b, step 4).

#ifndef MEMPLAN_RANK_ORDER_H
#define MEMPLAN_RANK_ORDER_H

#include <algorithm>
#include <utility>

namespace memplan_offsets {

constexpr int kRankSize = 0;
constexpr int kRankArea = 1;
constexpr int kRankLength = 2;
constexpr int kNumRanks = 3;

inline int compare_descending(long long a1, long long b1, long long a2, long long b2) {
    if (a1 != b1) return a1 > b1 ? -1 : 1;
    if (a2 != b2) return a2 > b2 ? -1 : 1;
    return 0;
}

inline int compare_products_descending(long long a, long long la, long long b, long long lb) {
    __extension__ typedef unsigned __int128 u128;  // exact products, as Java's multiplyHigh gives
    const u128 pa = static_cast<u128>(a) * static_cast<u128>(la);
    const u128 pb = static_cast<u128>(b) * static_cast<u128>(lb);
    if (pa != pb) return pa > pb ? -1 : 1;
    return 0;
}

inline bool rank_before(int rank, int x, int y, const int* def, const int* use_end, const long long* size) {
    const long long length_x = static_cast<long long>(use_end[x]) - def[x] + 1;
    const long long length_y = static_cast<long long>(use_end[y]) - def[y] + 1;
    int c;
    if (rank == kRankSize) {
        c = compare_descending(size[x], size[y], length_x, length_y);
    } else if (rank == kRankLength) {
        c = compare_descending(length_x, length_y, size[x], size[y]);
    } else {
        c = compare_products_descending(size[x], length_x, size[y], length_y);
        if (c == 0) c = compare_descending(size[x], size[y], length_x, length_y);
    }
    return c < 0 || (c == 0 && x < y);
}

constexpr int kRadixDigits = 8;
constexpr int kRadixBuckets = 256;

// Sorts order[0, m) stably by key[order[k]] descending (keys >= 0): least
// significant byte first. A byte that every key shares needs no pass; the keys'
// OR and AND find those bytes first, so the histogram counts only the others
// (see RankOrder.radixSortDescending).
inline void radix_sort_descending(int* order, int m, const long long* key, int* scratch, int* histogram) {
    unsigned long long any = 0;
    unsigned long long all = ~0ULL;
    for (int k = 0; k < m; ++k) {
        const unsigned long long v = static_cast<unsigned long long>(key[order[k]]);
        any |= v;
        all &= v;
    }
    const unsigned long long varying = any ^ all;
    int* from = order;
    int* to = scratch;
    for (int d = 0; d < kRadixDigits; ++d) {
        const int shift = 8 * d;
        if (((varying >> shift) & 0xFF) == 0) continue;
        for (int b = 0; b < kRadixBuckets; ++b) histogram[b] = 0;
        for (int k = 0; k < m; ++k) {
            histogram[static_cast<int>((static_cast<unsigned long long>(key[from[k]]) >> shift) & 0xFF)]++;
        }
        int sum = 0;
        for (int b = kRadixBuckets - 1; b >= 0; --b) {
            const int count = histogram[b];
            histogram[b] = sum;
            sum += count;
        }
        for (int k = 0; k < m; ++k) {
            const int i = from[k];
            to[histogram[static_cast<int>((static_cast<unsigned long long>(key[i]) >> shift) & 0xFF)]++] = i;
        }
        std::swap(from, to);
    }
    if (from != order) {
        for (int k = 0; k < m; ++k) order[k] = from[k];
    }
}

// Stable bottom-up merge sort of ids[0, count) by before(x, y), a strict order
// (see RankOrder.mergeSort): the rank orders and the fit's offset order.
template <class Before>
inline void merge_sort(int* ids, int count, int* scratch, Before before) {
    for (int width = 1; width < count; width *= 2) {
        for (int lo = 0; lo < count - width; lo += 2 * width) {
            const int mid = lo + width;
            const int hi = std::min(lo + 2 * width, count);
            int a = lo;
            int b = mid;
            int out = lo;
            while (a < mid && b < hi) scratch[out++] = before(ids[b], ids[a]) ? ids[b++] : ids[a++];
            while (a < mid) scratch[out++] = ids[a++];
            while (b < hi) scratch[out++] = ids[b++];
            for (int k = lo; k < hi; ++k) ids[k] = scratch[k];
        }
    }
}

// Stable bottom-up merge sort of order[0, m) by rank_before.
inline void merge_sort_by_rank(int rank, int* order, int m, const int* def, const int* use_end,
                               const long long* size, int* scratch) {
    merge_sort(order, m, scratch, [=](int x, int y) { return rank_before(rank, x, y, def, use_end, size); });
}

// Buffers with a size, in rank order (see RankOrder.rankOrder); returns
// their count. length holds n longs and histogram kRadixBuckets ints.
inline int rank_order(int rank, int n, const int* def, const int* use_end, const long long* size, int* order,
                      int* scratch, long long* length, int* histogram) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) order[m++] = i;
    }
    if (rank == kRankSize || rank == kRankLength) {
        for (int i = 0; i < n; ++i) length[i] = static_cast<long long>(use_end[i]) - def[i] + 1;
        const long long* secondary = rank == kRankSize ? length : size;
        const long long* primary = rank == kRankSize ? size : length;
        radix_sort_descending(order, m, secondary, scratch, histogram);
        radix_sort_descending(order, m, primary, scratch, histogram);
        return m;
    }
    merge_sort_by_rank(rank, order, m, def, use_end, size, scratch);
    return m;
}

}  // namespace memplan_offsets

#endif  // MEMPLAN_RANK_ORDER_H
