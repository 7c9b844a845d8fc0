// SPDX-License-Identifier: Apache-2.0
// offsets_scratch.h - C++ only: how the offsets planner carves its arrays from
// the caller's scratch block (the Java side allocates plain arrays), and
// memplan_offsets_scratch_bytes, the size of that block. No Java class pairs
// with it (docs/design.md §8, §12).

#ifndef MEMPLAN_OFFSETS_SCRATCH_H
#define MEMPLAN_OFFSETS_SCRATCH_H

#include <climits>

#include "gap_arena.h"
#include "rank_order.h"
#include "search_cost.h"

namespace memplan_offsets {

// The sweep's scratch, carved from one caller-owned block so that a request
// neither maps nor zeroes fresh memory (every array is written before it is
// read). The phases past the sweep carve theirs (CanonicalScratch, FitScratch)
// from the same block, right after this one, when the caller offers
// memplan_offsets_scratch_bytes(n, P, 1); else search allocates them once per
// call. The valley decoder and the wide fit (WindowFit) always allocate their
// own.
struct SweepScratch {
    long long* delta;       // num_positions + 1
    Segment* seg;           // 2n + 1: the arena's segments (two longs and four ints each)
    int* start_offsets;     // num_positions + 1
    int* end_offsets;       // num_positions + 1
    int* cursor;            // num_positions + 1
    int* starts;            // n
    int* ends;              // n
    int* free_ids;  // n + 1

    // Bytes for n owners over num_positions positions (both >= 0, checked by the caller).
    static long long bytes(long long n, long long num_positions) {
        const long long longs = (num_positions + 1) + 2 * (2 * n + 1);
        const long long ints = 3 * (num_positions + 1) + 2 * n + 4 * (2 * n + 1) + (n + 1);
        return longs * 8 + (ints + 1) / 2 * 8;  // a whole number of longs: the canonical block follows
    }

    // Carves the arrays, the 8-byte aligned ones first so that each stays aligned.
    static SweepScratch carve(void* block, long long n, long long num_positions) {
        static_assert(sizeof(Segment) == 2 * sizeof(long long) + 4 * sizeof(int), "bytes() counts a segment so");
        SweepScratch s;
        long long* l = static_cast<long long*>(block);
        s.delta = l;
        s.seg = reinterpret_cast<Segment*>(s.delta + (num_positions + 1));
        int* i = reinterpret_cast<int*>(s.seg + (2 * n + 1));
        s.start_offsets = i;
        s.end_offsets = s.start_offsets + (num_positions + 1);
        s.cursor = s.end_offsets + (num_positions + 1);
        s.starts = s.cursor + (num_positions + 1);
        s.ends = s.starts + n;
        s.free_ids = s.ends + n;
        return s;
    }
};

// The canonical phase's arrays, carved like SweepScratch: from the caller's
// block when it is large enough, else from one allocation of this call.
struct CanonicalScratch {
    long long* tree_max;   // 2 * leaves
    long long* tree_tag;   // 2 * leaves
    long long* heap_key;   // n, and so on for trial, candidate, length
    long long* trial;
    long long* candidate;
    long long* length;
    int* heap_rank;  // n, and so on for by_rank, best_ranks, sort_scratch
    int* by_rank;
    int* best_ranks;
    int* sort_scratch;
    int* histogram;  // kRadixBuckets

    static long long leaves_for(long long num_positions) {
        long long leaves = 1;
        while (leaves < num_positions) leaves <<= 1;
        return leaves;
    }

    static long long bytes(long long n, long long num_positions) {
        const long long longs = 4 * leaves_for(num_positions) + 4 * n;
        const long long ints = 4 * n + kRadixBuckets;
        return longs * 8 + ints * 4;
    }

    static CanonicalScratch carve(void* block, long long n, long long num_positions) {
        const long long leaves = leaves_for(num_positions);
        CanonicalScratch s;
        s.tree_max = static_cast<long long*>(block);
        s.tree_tag = s.tree_max + 2 * leaves;
        s.heap_key = s.tree_tag + 2 * leaves;
        s.trial = s.heap_key + n;
        s.candidate = s.trial + n;
        s.length = s.candidate + n;
        s.heap_rank = reinterpret_cast<int*>(s.length + n);
        s.by_rank = s.heap_rank + n;
        s.best_ranks = s.by_rank + n;
        s.sort_scratch = s.best_ranks + n;
        s.histogram = s.sort_scratch + n;
        return s;
    }
};

// The fit phase's arrays, carved after the canonical block.
struct FitScratch {
    int* list_start;    // num_positions + 1
    int* list_end;      // num_positions
    int* seen;          // n, and so on for overlapping, sort_scratch
    int* overlapping;
    int* sort_scratch;
    int* entries;       // kFitEntriesPerBuffer * n

    static long long bytes(long long n, long long num_positions) {
        const long long ints = 2 * num_positions + 1 + 3 * n + kFitEntriesPerBuffer * n;
        return (ints + 1) / 2 * 8;
    }

    static FitScratch carve(void* block, long long n, long long num_positions) {
        FitScratch s;
        s.list_start = static_cast<int*>(block);
        s.list_end = s.list_start + (num_positions + 1);
        s.seen = s.list_end + num_positions;
        s.overlapping = s.seen + n;
        s.sort_scratch = s.overlapping + n;
        s.entries = s.sort_scratch + n;
        return s;
    }
};

}  // namespace memplan_offsets

// Bytes of scratch memplan_offsets_plan needs: its sweep's, plus the fit and
// canonical phases' when with_search is nonzero (without them those phases,
// when they run, allocate their own). -1 when the counts are out of range.
inline long long memplan_offsets_scratch_bytes(int num_owners, int num_positions, int with_search) {
    if (num_owners < 0 || num_positions < 1) return -1;
    if (num_positions > (INT_MAX - 2) / 2 || num_owners > (INT_MAX - 2) / 2) return -1;
    const long long sweep = memplan_offsets::SweepScratch::bytes(num_owners, num_positions);
    if (!with_search) return sweep;
    return sweep + memplan_offsets::CanonicalScratch::bytes(num_owners, num_positions) +
           memplan_offsets::FitScratch::bytes(num_owners, num_positions);
}

#endif  // MEMPLAN_OFFSETS_SCRATCH_H
