// SPDX-License-Identifier: Apache-2.0
// first_fit.h - greedy by size with first fit, as TFLite's arena planner
// places: FirstFit.java, name for name (docs/design.md §5b, step 3).

#ifndef MEMPLAN_FIRST_FIT_H
#define MEMPLAN_FIRST_FIT_H

#include <algorithm>

#include "rank_order.h"

namespace memplan_offsets {

constexpr int kInsertionSortMax = 16;

// Sorts ids[0, count) by offset[id] ascending (see FirstFit.sortByOffset).
inline void sort_by_offset(int* ids, int count, const long long* offset, int* scratch) {
    if (count <= kInsertionSortMax) {
        for (int i = 1; i < count; ++i) {
            const int x = ids[i];
            const long long key = offset[x];
            int j = i - 1;
            while (j >= 0 && offset[ids[j]] > key) {
                ids[j + 1] = ids[j];
                j--;
            }
            ids[j + 1] = x;
        }
        return;
    }
    merge_sort(ids, count, scratch, [offset](int x, int y) { return offset[x] < offset[y]; });
}

// Greedy by size with first fit (see FirstFit.java): position t's
// placed buffers are entries[list_start[t], list_end[t]).
struct FirstFit {
    int num_positions;
    const int* def;
    const int* use_end;
    const long long* size;
    int* list_start;  // num_positions + 1
    int* list_end;    // num_positions
    int* entries;     // the SearchCost's entries
    int* seen;        // n: the step that last collected each buffer
    int* overlapping;  // n
    int* sort_scratch;  // n

    long long place(const int* by_rank, int m, int n, long long* offset) {
        for (int t = 0; t <= num_positions; ++t) list_start[t] = 0;
        for (int k = 0; k < m; ++k) {  // live counts, then their running sum: each position's list start
            const int b = by_rank[k];
            list_start[def[b]]++;
            list_start[use_end[b] + 1]--;
        }
        int live = 0;
        int start = 0;
        for (int t = 0; t < num_positions; ++t) {
            live += list_start[t];
            list_start[t] = start;
            list_end[t] = start;
            start += live;
        }
        list_start[num_positions] = start;
        for (int i = 0; i < n; ++i) {
            seen[i] = -1;
            offset[i] = 0;
        }
        long long peak = 0;
        for (int step = 0; step < m; ++step) {
            const int b = by_rank[step];
            const int count = collect_overlapping(b, step);
            sort_by_offset(overlapping, count, offset, sort_scratch);
            long long lowest = 0;
            for (int k = 0; k < count; ++k) {
                const int y = overlapping[k];
                if (offset[y] - lowest >= size[b]) break;
                lowest = std::max(lowest, offset[y] + size[y]);
            }
            offset[b] = lowest;
            peak = std::max(peak, lowest + size[b]);
            for (int t = def[b]; t <= use_end[b]; ++t) entries[list_end[t]++] = b;
        }
        return peak;
    }

    int collect_overlapping(int b, int step) {
        int count = 0;
        for (int t = def[b]; t <= use_end[b]; ++t) {
            for (int k = list_start[t]; k < list_end[t]; ++k) {
                const int y = entries[k];
                if (seen[y] != step) {
                    seen[y] = step;
                    overlapping[count++] = y;
                }
            }
        }
        return count;
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_FIRST_FIT_H
