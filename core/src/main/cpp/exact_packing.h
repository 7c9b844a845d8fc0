// SPDX-License-Identifier: Apache-2.0
// exact_packing.h - the exact mode of interval packing (docs/design.md §5c):
// a complete, deterministic search for the smallest arena that holds every
// buffer. ExactPacking.java is the same program, line for line.
//
// exact_instance.h indexes the instance, exact_search.h decides one capacity
// (MiniMalloc's ideas, written anew with an explicit stack: nothing here
// recurses, a deep native stack would crash the JVM); this file tries
// capacities on a ladder between the proven bound and the best height found,
// starting from the caller's plan. Every search counts nodes, so a node limit
// gives the same answer everywhere; a time limit, when it cuts a search, does not.

#ifndef MEMPLAN_EXACT_PACKING_H
#define MEMPLAN_EXACT_PACKING_H

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <vector>

#include "abi.h"
#include "exact_instance.h"
#include "exact_search.h"

namespace memplan_exact {

// Why the answer is what it is (stats[MEMPLAN_EXACT_STAT_STATUS]).
constexpr int kProven = 0;        // the height is optimal
constexpr int kNodeLimit = 1;     // the node limit ran out: best found, gap open
constexpr int kTimeLimit = 2;     // the time limit ran out: best found, gap open
constexpr int kTooLarge = 3;      // too many overlaps to index: the caller's plan, gap open
constexpr int kTargetReached = 4; // the height reached the caller's target: gap open

inline long long height_of(int n, const long long* size, const long long* offset) {
    long long h = 0;
    for (int i = 0; i < n; ++i) h = std::max(h, offset[i] + size[i]);
    return h;
}

// The first buffer of a seed plan that shares a byte with one started before it while both are
// alive (-1: none), by one sweep over time that keeps the live buffers ordered by offset. In a
// valid plan the live buffers are disjoint, so a new one need only be checked against its two
// neighbours: O(n log n), where the search's overlap index may not exist. Sizes are > 0.
inline int seed_overlap(int n, const long long* lower, const long long* upper, const long long* size,
                        const long long* offset) {
    std::vector<int> by_start(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) by_start[i] = i;
    std::vector<int> by_end(by_start);
    std::sort(by_start.begin(), by_start.end(),
              [&](int a, int b) { return lower[a] != lower[b] ? lower[a] < lower[b] : a < b; });
    std::sort(by_end.begin(), by_end.end(),
              [&](int a, int b) { return upper[a] != upper[b] ? upper[a] < upper[b] : a < b; });
    std::map<long long, int> live;  // offset -> buffer
    int ended = 0;
    for (const int i : by_start) {
        for (; ended < n && upper[by_end[ended]] <= lower[i]; ++ended) live.erase(offset[by_end[ended]]);
        const auto next = live.lower_bound(offset[i]);
        if (next != live.end() && offset[i] + size[i] > next->first) return i;
        if (next != live.begin() && std::prev(next)->first + size[std::prev(next)->second] > offset[i]) return i;
        live.emplace(offset[i], i);
    }
    return -1;
}

// The rungs of the capacity ladder: the bound, then the bound plus the gap over 2^k (k = 7
// down to 1), tried from the bound up so that the first success jumps furthest. The ladder
// stays until no rung is left between the bound and the best height, so that a search that
// ran out of nodes is remembered.
constexpr int kNumRungs = 8;
// The longest time limit, 2^40 ms (about 35 years): a deadline past it would overflow the clock's
// nanoseconds. ExactPacking.MAX_TIME_LIMIT_MILLIS is the same.
constexpr long long kMaxTimeLimitMs = 1LL << 40;

// A restriction of the instance (ExactPacking.Merged): buffers alive over the same span stacked
// into one, and a buffer joined to one of its size that starts where it ends, round after round
// until nothing merges. Every packing of the merged buffers is one of the originals, so a packing
// of them at the live bound is optimal; one that fails proves nothing. On an instance cut
// guillotine fashion, each round undoes the last cuts: a few dozen buffers are left.
class Merged {
public:
    // Rounds of merging at most: each costs a sort of the groups left.
    static constexpr int kMaxRounds = 64;

    int count = 0;
    std::vector<long long> lower, upper, size;

    Merged(int n, const long long* lo, const long long* up, const long long* sz)
        : parent_(static_cast<std::size_t>(n), -1), rel_(static_cast<std::size_t>(n), 0) {
        std::vector<long long> gl(lo, lo + n), gu(up, up + n), gs(sz, sz + n);
        joined_.reserve(static_cast<std::size_t>(n));
        std::vector<int> live(static_cast<std::size_t>(n)), by_start(static_cast<std::size_t>(n));
        for (int round = 0; round < kMaxRounds; ++round) {
            const std::size_t before = joined_.size();
            int c = heads(n, live.data());
            // Stacked: the groups alive over the same span, in index order from the bottom.
            std::sort(live.begin(), live.begin() + c, [&](int a, int b) {
                return gl[a] != gl[b] ? gl[a] < gl[b] : gu[a] != gu[b] ? gu[a] < gu[b] : a < b;
            });
            for (int k = 0; k < c;) {
                const int a = live[k];
                int j = k + 1;
                for (; j < c && gl[live[j]] == gl[a] && gu[live[j]] == gu[a]; ++j) {
                    const int b = live[j];
                    parent_[b] = a;
                    rel_[b] = gs[a];
                    gs[a] += gs[b];
                    joined_.push_back(b);
                }
                k = j;
            }
            // Joined in time: each group takes the first group of its size starting where it ends.
            c = heads(n, live.data());
            std::copy(live.begin(), live.begin() + c, by_start.begin());
            std::sort(by_start.begin(), by_start.begin() + c, [&](int a, int b) {
                return gl[a] != gl[b] ? gl[a] < gl[b] : gs[a] != gs[b] ? gs[a] < gs[b] : a < b;
            });
            for (int k = 0; k < c; ++k) {
                const int a = live[k];
                if (parent_[a] >= 0) continue;
                int lo2 = 0;
                int hi2 = c;
                while (lo2 < hi2) {  // the first group starting at gu[a] with gs[a] bytes or more
                    const int mid = lo2 + (hi2 - lo2) / 2;
                    const int x = by_start[mid];
                    if (gl[x] < gu[a] || (gl[x] == gu[a] && gs[x] < gs[a])) {
                        lo2 = mid + 1;
                    } else {
                        hi2 = mid;
                    }
                }
                for (int q = lo2; q < c && gl[by_start[q]] == gu[a] && gs[by_start[q]] == gs[a]; ++q) {
                    const int b = by_start[q];
                    if (parent_[b] < 0) {
                        parent_[b] = a;
                        rel_[b] = 0;
                        gu[a] = gu[b];
                        joined_.push_back(b);
                        break;
                    }
                }
            }
            if (joined_.size() == before) break;
        }
        count = n - static_cast<int>(joined_.size());
        for (int i = 0; i < n; ++i) {
            if (parent_[i] >= 0) continue;
            head_.push_back(i);
            lower.push_back(gl[i]);
            upper.push_back(gu[i]);
            size.push_back(gs[i]);
        }
    }

    // Whether every merged buffer's width and area (width times size) fit a long long, as the
    // search's index needs: stacking adds sizes and joining adds widths, so a restriction of
    // buffers that each fit may not.
    bool areas_fit() const {
        for (int k = 0; k < count; ++k) {
            long long width = 0;
            long long area = 0;
            if (__builtin_sub_overflow(upper[static_cast<std::size_t>(k)], lower[static_cast<std::size_t>(k)], &width) ||
                __builtin_mul_overflow(width, size[static_cast<std::size_t>(k)], &area)) {
                return false;
            }
        }
        return true;
    }

    // Each original buffer's offset from the restriction's offsets.
    void expand(const long long* group_offset, long long* offset) const {
        for (int k = 0; k < count; ++k) offset[head_[k]] = group_offset[k];
        // a buffer's group was a head when it joined and joined another group only later
        for (std::size_t q = joined_.size(); q-- > 0;) {
            const int b = joined_[q];
            offset[b] = offset[parent_[b]] + rel_[b];
        }
    }

private:
    // The groups still heading themselves, ascending; their count.
    int heads(int n, int* into) const {
        int c = 0;
        for (int i = 0; i < n; ++i) {
            if (parent_[i] < 0) into[c++] = i;
        }
        return c;
    }

    std::vector<int> parent_;   // the group a buffer joined (-1: it heads a group of the restriction)
    std::vector<long long> rel_;  // its offset above that group's
    std::vector<int> joined_;   // the buffers in the order they joined a group
    std::vector<int> head_;     // the restriction's buffer k is the group headed by head_[k]
};

// The optimisation over capacities (ExactPacking.Optimizer): decision searches on a ladder of
// capacities between the proven bound and the best height found, all at one node limit that
// doubles (from 2n, MiniMalloc's restarts) when every rung and preorder ran out of it. A rung
// found feasible lowers the height, one proven infeasible raises the bound; either rebuilds
// the ladder. A search at a fixed capacity does not depend on the rest, so one that ran out
// of nodes is not run again at the same limit. One node budget covers every search.
class Optimizer {
public:
    // merged: the instance's restriction, or null when no two buffers merge.
    Optimizer(const ExactInstance& in, const Merged* merged, long long node_limit, long long time_limit_ms,
              long long target)
        : in_(in), merged_(merged), search_(in), nodes_left_(node_limit), target_(target), timed_(time_limit_ms > 0),
          deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms > 0 ? time_limit_ms : 0)) {
        if (merged_ != nullptr &&
            merged_in_.build(merged_->count, merged_->lower.data(), merged_->upper.data(), merged_->size.data(), LLONG_MAX)) {
            merged_search_.reset(new ExactSearch(merged_in_));
        }
    }

    long long nodes = 0;
    long long bound = 0;
    int status = kProven;

    // Improves offset (a valid plan of height `height`) in place; returns the final height.
    long long solve(long long* offset, long long height) {
        bound = in_.lower_bound;
        long long limit = 2 * static_cast<long long>(std::max(in_.n, 1));
        long long fixed[kNumRungs];
        int fixed_count = 0;
        while (bound < height && height > target_) {
            if (!any_rung_open(fixed, fixed_count, height)) fixed_count = ladder(height, fixed);
            long long rungs[kNumRungs + 2];
            const int count = with_moving_rungs(fixed, fixed_count, height, rungs);
            bool moved = false;
            if (merged_search_ != nullptr && bound > merged_refuted_) {
                const int r = pack_merged(offset, std::max(limit / 4, 1LL));
                if (r == kFound) {
                    height = height_of(in_.n, in_.size.data(), offset);
                    moved = true;
                } else if (r == kTimedOut) {
                    status = kTimeLimit;
                    return height;
                } else if (r == kAborted && nodes_left_ <= 0) {
                    status = kNodeLimit;
                    return height;
                }
            }
            for (int k = 0; k < count && !moved; ++k) {
                // The bound's rung decides tight instances, the target's the decision problem:
                // the others take a quarter of the nodes.
                const long long rung_limit = rungs[k] == bound || rungs[k] == target_ ? limit : std::max(limit / 4, 1LL);
                for (int p = 0; p < kNumPreorders && !moved; ++p) {
                    if (tried(rungs[k], p) >= rung_limit) continue;  // the same search again would fail again
                    // a run under kClockEvery nodes never looks at the clock itself: look before it
                    if (timed_ && std::chrono::steady_clock::now() >= deadline_) {
                        status = kTimeLimit;
                        return height;
                    }
                    const int r = search_.run(rungs[k], p, std::min(rung_limit, nodes_left_), timed_, deadline_);
                    nodes += search_.nodes;
                    nodes_left_ -= search_.nodes;
                    if (r == kFound) {
                        for (int i = 0; i < in_.n; ++i) offset[i] = search_.solution[i];
                        height = height_of(in_.n, in_.size.data(), offset);
                        moved = true;
                    } else if (r == kInfeasible) {
                        bound = rungs[k] + 1;
                        moved = true;
                    } else if (r == kTimedOut) {
                        status = kTimeLimit;
                        return height;
                    } else if (nodes_left_ <= 0) {
                        status = kNodeLimit;
                        return height;
                    } else {
                        tried_.push_back(Tried{rungs[k], p, rung_limit});
                    }
                }
            }
            // Every rung ran out of nodes: MiniMalloc's restart, with twice the limit.
            if (!moved) limit = limit > LLONG_MAX / 2 ? LLONG_MAX : limit * 2;
        }
        if (bound < height) status = kTargetReached;
        return height;
    }

private:
    // The merged restriction at the bound, each preorder with a quarter of the sweep's node limit
    // (as the rungs above the bound) unless it ran out of it there before: kFound writes the
    // packing to offset; kInfeasible (which refutes the restriction, not the instance) and kAborted
    // leave it.
    int pack_merged(long long* offset, long long limit) {
        if (merged_at_ != bound) {
            merged_at_ = bound;
            for (long long& t : merged_tried_) t = 0;
        }
        int r = kAborted;
        for (int p = 0; p < kNumPreorders && nodes_left_ > 0; ++p) {
            if (merged_tried_[p] >= limit) continue;
            if (timed_ && std::chrono::steady_clock::now() >= deadline_) return kTimedOut;
            r = merged_search_->run(bound, p, std::min(limit, nodes_left_), timed_, deadline_);
            nodes += merged_search_->nodes;
            nodes_left_ -= merged_search_->nodes;
            if (r == kFound) {
                merged_->expand(merged_search_->solution.data(), offset);
                return r;
            }
            if (r == kInfeasible) {
                merged_refuted_ = bound;
                return r;
            }
            if (r == kTimedOut) return r;
            merged_tried_[p] = limit;
        }
        return r;
    }

    // The capacities to try below height, ascending and distinct: the ladder's rungs, or the
    // caller's target alone while it is above the bound.
    int ladder(long long height, long long* rungs) const {
        if (target_ >= bound && target_ < height) {
            rungs[0] = target_;  // only the target decides when to stop: MiniMalloc's decision search
            return 1;
        }
        const long long gap = height - bound;
        int count = 0;
        for (int k = 0; k < kNumRungs; ++k) {
            const long long cap = k == 0 ? bound : bound + (gap >> (kNumRungs - k));
            if (cap < bound || cap >= height) continue;
            if (count > 0 && rungs[count - 1] == cap) continue;
            rungs[count++] = cap;
        }
        return count;
    }

    // The open rungs of the fixed ladder and two that move with the gap (its half and three
    // quarters: each success there closes a quarter of the gap or more), ascending, distinct.
    int with_moving_rungs(const long long* fixed, int fixed_count, long long height, long long* rungs) const {
        int count = 0;
        for (int k = 0; k < fixed_count; ++k) {
            if (fixed[k] >= bound && fixed[k] < height) rungs[count++] = fixed[k];
        }
        if (target_ < bound || target_ >= height) {
            const long long gap = height - bound;
            for (const long long cap : {bound + gap / 2, bound + gap / 2 + gap / 4}) {
                if (cap < bound || cap >= height) continue;
                int at = count;
                bool seen = false;
                for (int j = 0; j < count; ++j) seen = seen || rungs[j] == cap;
                if (seen) continue;
                while (at > 0 && rungs[at - 1] > cap) {
                    rungs[at] = rungs[at - 1];
                    --at;
                }
                rungs[at] = cap;
                ++count;
            }
        }
        return count;
    }

    // Whether a rung of the current ladder still lies in [bound, height).
    bool any_rung_open(const long long* rungs, int count, long long height) const {
        for (int k = 0; k < count; ++k) {
            if (rungs[k] >= bound && rungs[k] < height) return true;
        }
        return false;
    }

    // The largest node limit a (capacity, preorder) search already ran out of.
    long long tried(long long capacity, int preorder) const {
        long long most = 0;
        for (const Tried& t : tried_) {
            if (t.capacity == capacity && t.preorder == preorder) most = std::max(most, t.limit);
        }
        return most;
    }

    struct Tried {
        long long capacity;
        int preorder;
        long long limit;
    };

    const ExactInstance& in_;
    const Merged* merged_;
    ExactInstance merged_in_;
    std::unique_ptr<ExactSearch> merged_search_;  // null: no two buffers merge
    long long merged_tried_[kNumPreorders] = {};   // the limits run out at merged_at_
    long long merged_at_ = -1;
    long long merged_refuted_ = -1;  // the restriction fits in no capacity up to this one
    ExactSearch search_;
    std::vector<Tried> tried_;
    long long nodes_left_;
    long long target_;
    bool timed_;
    std::chrono::steady_clock::time_point deadline_;
};

}  // namespace memplan_exact

// Finds the smallest arena for num_buffers buffers alive over [lower[i], upper[i]) with
// size[i] bytes, starting from a valid plan seed_offset (the heuristic's); writes the best
// plan found to offset and stats {height, proven lower bound, status, nodes}. node_limit
// (>= 1) bounds the search deterministically; time_limit_ms > 0 adds a clock; target >= 0
// stops the search once the height is at most target (-1: none). Checks every argument,
// the seed's validity included; never throws.
inline int memplan_exact_pack(int num_buffers, const long long* lower, const long long* upper,
                              const long long* size, const long long* seed_offset, long long node_limit,
                              long long time_limit_ms, long long target, long long* offset, long long* stats) {
    using namespace memplan_exact;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    const int n = num_buffers;
    if (n < 0 || node_limit < 1 || time_limit_ms < 0 || time_limit_ms > kMaxTimeLimitMs || target < -1) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (n > 0 && (lower == nullptr || upper == nullptr || size == nullptr || seed_offset == nullptr ||
                  offset == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    long long naive = 0;
    for (int i = 0; i < n; ++i) {
        if (upper[i] <= lower[i] || size[i] < 0 || seed_offset[i] < 0) return MEMPLAN_BAD_ARGUMENT;
        long long top = 0;
        if (memplan_detail::add_overflows(seed_offset[i], size[i], &top)) return MEMPLAN_OVERFLOW;
        if (memplan_detail::add_overflows(naive, size[i], &naive)) return MEMPLAN_OVERFLOW;
        long long width = 0;
        if (__builtin_sub_overflow(upper[i], lower[i], &width)) return MEMPLAN_OVERFLOW;
        if (width > LLONG_MAX / (size[i] > 0 ? size[i] : 1)) return MEMPLAN_OVERFLOW;  // the area key
    }
    try {
        // Empty buffers take no bytes and touch nothing: they sit at 0 and stay out of the search
        // (its dominance rule assumes every buffer has a top above its offset).
        std::vector<int> kept;
        std::vector<long long> lo, up, sz, off;
        for (int i = 0; i < n; ++i) {
            offset[i] = 0;
            if (size[i] == 0) continue;
            kept.push_back(i);
            lo.push_back(lower[i]);
            up.push_back(upper[i]);
            sz.push_back(size[i]);
            off.push_back(seed_offset[i]);
        }
        const int m = static_cast<int>(kept.size());
        long long height = height_of(m, sz.data(), off.data());
        // The seed must be a plan, also where nothing is searched: no two live buffers share a byte.
        if (seed_overlap(m, lo.data(), up.data(), sz.data(), off.data()) >= 0) return MEMPLAN_BAD_ARGUMENT;
        ExactInstance in;
        const bool indexed = in.build(m, lo.data(), up.data(), sz.data(), height);
        for (int k = 0; k < m; ++k) offset[kept[k]] = off[k];
        stats[MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES] = in.lower_bound;
        if (!indexed) {
            stats[MEMPLAN_EXACT_STAT_HEIGHT_BYTES] = height;
            stats[MEMPLAN_EXACT_STAT_STATUS] = height == in.lower_bound ? kProven : kTooLarge;
            return MEMPLAN_OK;
        }
        const Merged merged(m, lo.data(), up.data(), sz.data());
        Optimizer opt(in, merged.count < m && merged.areas_fit() ? &merged : nullptr, node_limit, time_limit_ms,
                      target);
        height = opt.solve(off.data(), height);
        for (int k = 0; k < m; ++k) offset[kept[k]] = off[k];
        stats[MEMPLAN_EXACT_STAT_HEIGHT_BYTES] = height;
        stats[MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES] = opt.bound;
        stats[MEMPLAN_EXACT_STAT_STATUS] = opt.status;
        stats[MEMPLAN_EXACT_STAT_NODES] = opt.nodes;
        return MEMPLAN_OK;
    } catch (const std::bad_alloc&) {
        for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
        return MEMPLAN_OUT_OF_MEMORY;
    }
}

#endif  // MEMPLAN_EXACT_PACKING_H
