// SPDX-License-Identifier: Apache-2.0
// window_fit.h - greedy by size with first fit on wide graphs, neighbours
// found in start order, then window swaps: WindowFit.java, name for name
// (docs/design.md §5b, steps 3 and 6).

#ifndef MEMPLAN_WINDOW_FIT_H
#define MEMPLAN_WINDOW_FIT_H

#include <algorithm>

#include "buffers.h"
#include "rank_swaps.h"

namespace memplan_offsets {

// WindowFit.VISITS_PER_BUFFER, SWAP_VISITS_PER_BUFFER, SWAP_STEPS_PER_EFFORT, WINDOW_BUFFERS.
constexpr long long kWideVisitsPerBuffer = 1024;
constexpr long long kSwapVisitsPerBuffer = 256;
constexpr long long kSwapStepsPerEffort = 512;
constexpr int kWindowBuffers = 2048;

// The slice entries the fit would visit (see WindowFit.visitsFor); -1 when an
// allocation failed.
inline long long window_fit_visits(int P, int n, const int* def, const int* use_end, const long long* size) {
    Array<long long> starts_before(P + 1LL);
    if (!starts_before.get()) return -1;
    int longest = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            starts_before[def[i] + 1]++;
            longest = std::max(longest, use_end[i] - def[i]);
        }
    }
    for (int p = 0; p < P; ++p) starts_before[p + 1] += starts_before[p];
    long long total = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) total += starts_before[use_end[i] + 1] - starts_before[std::max(0, def[i] - longest)];
    }
    return total;
}

// Whether the fit runs (see WindowFit.runs).
inline bool window_fit_runs(long long visits, int n, int effort) {
    return effort >= 1 && visits >= 0 && visits <= effort * kWideVisitsPerBuffer * n;
}

// Sorts key[from, to) ascending, moving value along (see WindowFit.sortPairs).
inline void sort_pairs(long long* key, long long* value, int from, int to) {
    while (to - from > 16) {
        const long long pivot = key[static_cast<unsigned>(from + to) >> 1];
        int i = from;
        int j = to - 1;
        while (i <= j) {
            while (key[i] < pivot) i++;
            while (key[j] > pivot) j--;
            if (i <= j) {
                std::swap(key[i], key[j]);
                std::swap(value[i], value[j]);
                i++;
                j--;
            }
        }
        if (j - from < to - i) {
            sort_pairs(key, value, from, j + 1);
            from = i;
        } else {
            sort_pairs(key, value, i, to);
            to = j + 1;
        }
    }
    for (int i = from + 1; i < to; ++i) {
        const long long k = key[i];
        const long long v = value[i];
        int j = i - 1;
        while (j >= from && key[j] > k) {
            key[j + 1] = key[j];
            value[j + 1] = value[j];
            j--;
        }
        key[j + 1] = k;
        value[j + 1] = v;
    }
}

// See WindowFit.java: the sized buffers in start order (ties by index) and
// their arrays in that order; start_at[p] is where the starts at p begin.
struct WindowFit {
    int n;
    int m = 0;
    int max_length = 0;
    Array<int> order;
    Array<int> def_o;
    Array<int> end_o;
    Array<long long> size_o;
    Array<long long> offset_o;
    Array<char> placed;
    Array<int> start_at;  // P + 1
    Array<int> rank_o;
    Array<int> in_order;  // n
    Array<long long> neighbour_offset;
    Array<long long> neighbour_top;
    Array<long long> keys;   // a window's ranks, then its members
    Array<long long> saved;  // a window's offsets before a swap
    long long visits = 0;

    WindowFit(int P, const int* def, const int* use_end, const long long* size, int count, int sized)
        : n(count), order(sized), def_o(sized), end_o(sized), size_o(sized), offset_o(sized), placed(sized),
          start_at(P + 1LL), rank_o(sized), in_order(count), neighbour_offset(sized), neighbour_top(sized),
          keys(std::min(kWindowBuffers, sized)), saved(std::min(kWindowBuffers, sized)) {
        if (!allocated()) return;
        for (int i = 0; i < n; ++i) {
            if (size[i] != 0) {
                start_at[def[i] + 1]++;
                m++;
                max_length = std::max(max_length, use_end[i] - def[i]);
            }
        }
        for (int p = 0; p < P; ++p) start_at[p + 1] += start_at[p];
        Array<int> cursor(P + 1LL);
        if (!cursor.get()) {
            m = -1;
            return;
        }
        for (int p = 0; p < P; ++p) cursor[p] = start_at[p];
        for (int i = 0; i < n; ++i) {
            if (size[i] != 0) order[cursor[def[i]]++] = i;
        }
        for (int k = 0; k < m; ++k) {
            const int b = order[k];
            def_o[k] = def[b];
            end_o[k] = use_end[b];
            size_o[k] = size[b];
        }
    }

    bool allocated() const {
        return m >= 0 && order.get() && def_o.get() && end_o.get() && size_o.get() && offset_o.get() &&
               placed.get() && start_at.get() && rank_o.get() && in_order.get() && neighbour_offset.get() &&
               neighbour_top.get() && keys.get() && saved.get();
    }

    // Places the m buffers of by_rank in rank order by first fit; writes every
    // offset (0 for the empty buffers) and returns the arena size.
    long long place(const int* by_rank, int count, long long* offset) {
        for (int k = 0; k < m; ++k) {
            in_order[order[k]] = k;
            placed[k] = 0;
        }
        long long peak = 0;
        for (int r = 0; r < count; ++r) {
            const int k = in_order[by_rank[r]];
            rank_o[k] = r;
            offset_o[k] = lowest_fit(k);
            placed[k] = 1;
            peak = std::max(peak, offset_o[k] + size_o[k]);
        }
        write(offset);
        return peak;
    }

    // Window swaps on the fit's plan (see WindowFit.improve).
    long long improve(long long steps, long long budget, long long bound, long long* offset) {
        long long peak = top_of();
        if (m < 2) {
            write(offset);
            return peak;
        }
        const int window = std::min(kWindowBuffers, m);
        unsigned long long random = 0x9E3779B97F4A7C15ULL;
        visits = 0;
        for (long long step = 0; step < steps && peak > bound && visits <= budget; ++step) {
            int top = 0;
            for (int k = 1; k < m; ++k) {
                if (offset_o[k] + size_o[k] > offset_o[top] + size_o[top]) top = k;
            }
            const int from = std::max(0, std::min(top - window / 2, m - window));
            random = xorshift(random);
            const int other = overlapping(top, from, window, random);
            if (other < 0) continue;
            long long before = 0;
            for (int j = 0; j < window; ++j) {
                const int k = from + j;
                before = std::max(before, offset_o[k] + size_o[k]);
                saved[j] = offset_o[k];
                placed[k] = 0;
            }
            std::swap(rank_o[top], rank_o[other]);
            for (int j = 0; j < window; ++j) {
                keys[j] = (static_cast<long long>(rank_o[from + j]) << 32) | j;
            }
            std::sort(keys.get(), keys.get() + window);
            long long after = 0;
            for (int j = 0; j < window; ++j) {
                const int k = from + static_cast<int>(keys[j] & 0xFFFFFFFFLL);
                offset_o[k] = lowest_fit(k);
                placed[k] = 1;
                after = std::max(after, offset_o[k] + size_o[k]);
            }
            if (after > before) {
                std::swap(rank_o[top], rank_o[other]);
                for (int j = 0; j < window; ++j) offset_o[from + j] = saved[j];
            } else if (after < before && before == peak) {
                peak = top_of();
            }
        }
        write(offset);
        return peak;
    }

    // The (random mod count)-th buffer of the window [from, from + window) other
    // than top that lives at the same time as it, or -1 (see WindowFit.overlapping).
    int overlapping(int top, int from, int window, unsigned long long random) const {
        int count = 0;
        for (int k = from; k < from + window; ++k) {
            if (k != top && def_o[k] <= end_o[top] && end_o[k] >= def_o[top]) count++;
        }
        if (count == 0) return -1;
        unsigned long long pick = random % static_cast<unsigned long long>(count);
        for (int k = from; k < from + window; ++k) {
            if (k != top && def_o[k] <= end_o[top] && end_o[k] >= def_o[top] && pick-- == 0) return k;
        }
        return -1;
    }

    long long top_of() const {
        long long peak = 0;
        for (int k = 0; k < m; ++k) peak = std::max(peak, offset_o[k] + size_o[k]);
        return peak;
    }

    void write(long long* offset) const {
        for (int i = 0; i < n; ++i) offset[i] = 0;
        for (int k = 0; k < m; ++k) offset[order[k]] = offset_o[k];
    }

    // The lowest offset where buffer k (start order) overlaps no placed buffer live with it.
    long long lowest_fit(int k) {
        const int d = def_o[k];
        const int from = start_at[std::max(0, d - max_length)];
        const int to = start_at[end_o[k] + 1];
        visits += to - from;
        int count = 0;
        for (int y = from; y < to; ++y) {
            if (placed[y] && end_o[y] >= d) {
                neighbour_offset[count] = offset_o[y];
                neighbour_top[count] = offset_o[y] + size_o[y];
                count++;
            }
        }
        sort_pairs(neighbour_offset.get(), neighbour_top.get(), 0, count);
        long long lowest = 0;
        for (int j = 0; j < count; ++j) {
            if (neighbour_offset[j] - lowest >= size_o[k]) break;
            lowest = std::max(lowest, neighbour_top[j]);
        }
        return lowest;
    }
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_WINDOW_FIT_H
