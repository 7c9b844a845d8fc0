// SPDX-License-Identifier: Apache-2.0
// exact_packing.h - the exact mode of interval packing (docs/design.md §5c):
// a complete, deterministic search for the smallest arena that holds every
// buffer. ExactPacking.java is the same program, line for line.
//
// The search is a depth-first search over canonical solutions (each buffer at
// the top of the placed buffers it overlaps), with section inference,
// dominance, dynamic ordering, hatless pruning, decomposition at zero cuts and
// restarts across three static preorders: the ideas of MiniMalloc (Moffitt,
// ASPLOS 2024), written anew with an explicit stack (nothing here recurses: a
// deep native stack would crash the JVM). Capacities are tried from the lower
// bound up by bisection against the best height found, starting from the
// caller's plan; every search counts nodes, so a node limit gives the same
// answer everywhere; a time limit, when it cuts a search, does not.

#ifndef MEMPLAN_EXACT_PACKING_H
#define MEMPLAN_EXACT_PACKING_H

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <new>
#include <vector>

#include "abi.h"

namespace memplan_exact {

// What one search at a fixed capacity ended with (ExactPacking.FOUND, ...).
constexpr int kFound = 0;       // every buffer placed within the capacity
constexpr int kInfeasible = 1;  // the search finished: no placement fits
constexpr int kAborted = 2;     // the node limit ran out first
constexpr int kTimedOut = 3;    // the time limit ran out first

// The static preorders the restarts take in turn: W width, A area, T the
// fullest section the buffer lives in, each descending (MiniMalloc's WAT, TAW, TWA).
constexpr int kNumPreorders = 3;
constexpr char kPreorders[kNumPreorders][4] = {"WAT", "TAW", "TWA"};

// Nodes between two looks at the clock: a time limit costs almost nothing.
constexpr long long kClockEvery = 1024;

// The most overlap pairs and section memberships the search will index (each an int):
// beyond them the instance is far too large for an exact search anyway.
constexpr long long kMaxIndexEntries = 1LL << 25;

// The instance, indexed once: sections (the live set just before each distinct end
// time, MiniMalloc's sweep), each buffer's section range, overlaps and section members.
struct Instance {
    int n = 0;
    int num_sections = 0;
    std::vector<long long> size, width, area;
    std::vector<int> sec_lo, sec_hi;  // buffer i lives in sections [sec_lo[i], sec_hi[i])
    std::vector<long long> total0;    // bytes alive in each section
    std::vector<int> cuts0;           // buffers alive in both section s and s + 1
    std::vector<int> overlap_start, overlap;  // CSR: the buffers each buffer overlaps, ascending
    std::vector<int> member_start, member;    // CSR: the buffers alive in each section, ascending
    long long lower_bound = 0;

    // Builds the index; false when it would exceed kMaxIndexEntries (then nothing else is valid).
    bool build(int count, const long long* lower, const long long* upper, const long long* bytes) {
        n = count;
        size.assign(bytes, bytes + n);
        width.resize(n);
        area.resize(n);
        for (int i = 0; i < n; ++i) {
            width[i] = upper[i] - lower[i];
            area[i] = width[i] * size[i];
        }
        std::vector<long long> ends(upper, upper + n);
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        num_sections = static_cast<int>(ends.size());
        sec_lo.resize(n);
        sec_hi.resize(n);
        long long memberships = 0;
        for (int i = 0; i < n; ++i) {
            // Section s (end time t) holds i when lower < t <= upper.
            sec_lo[i] = static_cast<int>(std::upper_bound(ends.begin(), ends.end(), lower[i]) - ends.begin());
            sec_hi[i] = static_cast<int>(std::upper_bound(ends.begin(), ends.end(), upper[i]) - ends.begin());
            memberships += sec_hi[i] - sec_lo[i];
        }
        // The bound first (a difference array): it is the answer's floor even when the
        // instance is too large to index.
        total0.assign(num_sections + 1, 0);
        for (int i = 0; i < n; ++i) {
            total0[sec_lo[i]] += size[i];
            total0[sec_hi[i]] -= size[i];
        }
        for (int s = 0; s < num_sections; ++s) {
            if (s > 0) total0[s] += total0[s - 1];
            lower_bound = std::max(lower_bound, total0[s]);
        }
        total0.resize(num_sections);
        if (memberships > kMaxIndexEntries) return false;
        cuts0.assign(num_sections > 0 ? num_sections - 1 : 0, 0);
        member_start.assign(num_sections + 1, 0);
        for (int i = 0; i < n; ++i) {
            for (int s = sec_lo[i]; s < sec_hi[i]; ++s) member_start[s + 1]++;
            for (int s = sec_lo[i]; s + 1 < sec_hi[i]; ++s) cuts0[s]++;
        }
        for (int s = 0; s < num_sections; ++s) member_start[s + 1] += member_start[s];
        member.resize(member_start[num_sections]);
        std::vector<int> cursor(member_start.begin(), member_start.end() - 1);
        for (int i = 0; i < n; ++i) {
            for (int s = sec_lo[i]; s < sec_hi[i]; ++s) member[cursor[s]++] = i;
        }
        // Two buffers overlap exactly when they share a section: i overlaps the members of
        // its first section that started before it, and every buffer starting inside its range.
        std::vector<int> starting_start(num_sections + 1, 0);
        for (int i = 0; i < n; ++i) starting_start[sec_lo[i] + 1]++;
        for (int s = 0; s < num_sections; ++s) starting_start[s + 1] += starting_start[s];
        std::vector<int> starting(n);
        std::vector<int> at(starting_start.begin(), starting_start.end() - 1);
        for (int i = 0; i < n; ++i) starting[at[sec_lo[i]]++] = i;
        overlap_start.assign(n + 1, 0);
        long long pairs = 0;
        for (int pass = 0; pass < 2; ++pass) {
            std::vector<int> fill;
            if (pass == 1) {
                for (int i = 0; i < n; ++i) overlap_start[i + 1] += overlap_start[i];
                overlap.resize(overlap_start[n]);
                fill.assign(overlap_start.begin(), overlap_start.end() - 1);
            }
            for (int i = 0; i < n; ++i) {
                const int lo = sec_lo[i];
                for (int k = member_start[lo]; k < member_start[lo + 1]; ++k) {
                    const int j = member[k];
                    if (j == i || sec_lo[j] == lo) continue;  // started together: counted below
                    if (pass == 0) {
                        overlap_start[i + 1]++;
                        overlap_start[j + 1]++;
                        pairs += 2;
                        if (pairs > kMaxIndexEntries) return false;
                    } else {
                        overlap[fill[i]++] = j;
                        overlap[fill[j]++] = i;
                    }
                }
                for (int s = lo; s < sec_hi[i]; ++s) {
                    for (int k = starting_start[s]; k < starting_start[s + 1]; ++k) {
                        const int j = starting[k];
                        if (j <= i && s == lo) continue;  // a pair starting together, once
                        if (pass == 0) {
                            overlap_start[i + 1]++;
                            overlap_start[j + 1]++;
                            pairs += 2;
                            if (pairs > kMaxIndexEntries) return false;
                        } else {
                            overlap[fill[i]++] = j;
                            overlap[fill[j]++] = i;
                        }
                    }
                }
            }
        }
        for (int i = 0; i < n; ++i) std::sort(overlap.begin() + overlap_start[i], overlap.begin() + overlap_start[i + 1]);
        return true;
    }
};

// A partition being solved: its buffers in preorder (rank r at list[begin + r]), its
// sections [sec_lo, sec_hi), its first frame, and the split that opened it.
struct Context {
    int begin, end;
    int sec_lo, sec_hi;
    int frame_base;
    int split;
};

// One node of the search: its canonical floor (no buffer below min_offset, nor at it
// with a rank below min_rank), its candidates, and the placement it has made.
struct Frame {
    int ctx;
    long long min_offset;
    int min_rank;
    int cand_begin, cand_end, cursor;
    int placed;
    bool hatless, cut;
    int offset_mark, floor_mark;
};

// A partition split at zero cuts: its cut points, the next piece, and the frame whose
// placement split it (-1: the instance's own pieces).
struct Split {
    int frame;
    int ctx;
    int cut_begin, cut_end;
    int next;
};

struct Change {
    int index;
    long long value;
};

// The decision search at one capacity (MiniMalloc's solver, restructured as a loop).
class Search {
public:
    explicit Search(const Instance& in) : in_(in) {}

    long long nodes = 0;                 // nodes entered by the last run
    std::vector<long long> solution;     // each buffer's offset after kFound

    // One run with one preorder; kFound leaves the placement in solution.
    int run(long long capacity, int preorder, long long node_limit, bool timed,
            std::chrono::steady_clock::time_point deadline) {
        const int n = in_.n;
        capacity_ = capacity;
        preorder_ = preorder;
        nodes = 0;
        offset_.assign(n, -1);
        min_offset_.assign(n, 0);
        rank_.assign(n, 0);
        solution.assign(n, 0);
        floor_.assign(in_.num_sections, 0);
        total_ = in_.total0;
        cuts_ = in_.cuts0;
        mark_.assign(in_.num_sections, 0);
        stamp_ = 0;
        frames_.clear();
        contexts_.clear();
        splits_.clear();
        cut_points_.clear();
        lists_.clear();
        cands_.clear();
        offset_log_.clear();
        floor_log_.clear();
        open_split(-1, -1, 0, in_.num_sections);
        int split = 0;
        int frame = -1;
        int state = kNextPiece;
        while (true) {
            switch (state) {
                case kNextPiece:
                    if (!next_piece(split)) {
                        const Split done = splits_.back();
                        cut_points_.resize(done.cut_begin);
                        splits_.pop_back();
                        if (done.frame < 0) return kFound;
                        state = succeed(frames_[done.frame].ctx, &split);
                        break;
                    }
                    frame = static_cast<int>(frames_.size()) - 1;
                    state = kEnter;
                    break;
                case kEnter:
                    if (nodes >= node_limit) return kAborted;
                    ++nodes;
                    if (timed && nodes % kClockEvery == 0 && std::chrono::steady_clock::now() >= deadline) {
                        return kTimedOut;
                    }
                    if (!gather(frame)) {
                        state = succeed(frames_[frame].ctx, &split);
                        break;
                    }
                    state = kNext;
                    break;
                case kNext:
                    state = next(&frame, &split);
                    break;
                case kFail: {
                    const Frame f = frames_.back();
                    cands_.resize(f.cand_begin);
                    frames_.pop_back();
                    const Context& c = contexts_[f.ctx];
                    if (frame > c.frame_base) {
                        frame -= 1;
                        state = kNext;
                        break;
                    }
                    const int s = c.split;
                    close_context();
                    const Split failed = splits_[s];
                    cut_points_.resize(failed.cut_begin);
                    splits_.pop_back();
                    if (failed.frame < 0) return kInfeasible;
                    frame = failed.frame;
                    state = kNext;
                    break;
                }
                default:
                    return kInfeasible;  // unreachable
            }
        }
    }

private:
    static constexpr int kNextPiece = 0;
    static constexpr int kEnter = 1;
    static constexpr int kNext = 2;
    static constexpr int kFail = 3;

    // Opens a split of context ctx's sections [lo, hi) at every zero cut inside them.
    void open_split(int frame, int ctx, int lo, int hi) {
        Split s{frame, ctx, static_cast<int>(cut_points_.size()), 0, 0};
        cut_points_.push_back(lo);
        for (int k = lo; k + 1 < hi; ++k) {
            if (cuts_[k] == 0) cut_points_.push_back(k + 1);
        }
        cut_points_.push_back(hi);
        s.cut_end = static_cast<int>(cut_points_.size());
        splits_.push_back(s);
    }

    // Opens the next non-empty piece of the top split as a context with its root frame;
    // false when every piece is solved.
    bool next_piece(int split) {
        Split& s = splits_[split];
        while (s.cut_begin + s.next + 1 < s.cut_end) {
            const int lo = cut_points_[s.cut_begin + s.next];
            const int hi = cut_points_[s.cut_begin + s.next + 1];
            s.next++;
            const int begin = static_cast<int>(lists_.size());
            if (s.ctx < 0) {
                for (int i = 0; i < in_.n; ++i) take_if_inside(i, lo, hi);
            } else {
                const Context& parent = contexts_[s.ctx];
                for (int k = parent.begin; k < parent.end; ++k) take_if_inside(lists_[k], lo, hi);
            }
            const int end = static_cast<int>(lists_.size());
            if (begin == end) continue;
            preorder(begin, end);
            contexts_.push_back(Context{begin, end, lo, hi, static_cast<int>(frames_.size()), split});
            frames_.push_back(Frame{static_cast<int>(contexts_.size()) - 1, 0, 0, static_cast<int>(cands_.size()),
                                    static_cast<int>(cands_.size()), static_cast<int>(cands_.size()), -1, false, false,
                                    0, 0});
            return true;
        }
        return false;
    }

    void take_if_inside(int i, int lo, int hi) {
        if (offset_[i] < 0 && in_.sec_lo[i] < hi && lo < in_.sec_hi[i]) lists_.push_back(i);
    }

    // Sorts a new context's buffers by the preorder and ranks them (ties: input order).
    void preorder(int begin, int end) {
        for (int k = begin; k < end; ++k) {
            const int i = lists_[k];
            long long t = 0;
            for (int s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) t = std::max(t, total_[s]);
            key_t_[i] = t;
        }
        const char* order = kPreorders[preorder_];
        std::sort(lists_.begin() + begin, lists_.begin() + end, [this, order](int a, int b) {
            for (int c = 0; c < 3; ++c) {
                const long long x = key(order[c], a);
                const long long y = key(order[c], b);
                if (x != y) return x > y;
            }
            return a < b;
        });
        for (int k = begin; k < end; ++k) rank_[lists_[k]] = k - begin;
    }

    long long key(char c, int i) const {
        if (c == 'W') return in_.width[i];
        if (c == 'A') return in_.area[i];
        return key_t_[i];
    }

    // Closes the top context and gives its parent's buffers their ranks back.
    void close_context() {
        const Context c = contexts_.back();
        lists_.resize(c.begin);
        contexts_.pop_back();
        const int parent = splits_[c.split].ctx;
        if (parent >= 0) {
            const Context& p = contexts_[parent];
            for (int k = p.begin; k < p.end; ++k) rank_[lists_[k]] = k - p.begin;
        }
    }

    // The frame's candidates: unplaced buffers below the lowest top any of them could
    // reach (dominance), not before the frame's canonical floor, by (offset, rank).
    // False when the context has nothing left to place.
    bool gather(int frame) {
        Frame& f = frames_[frame];
        const Context& c = contexts_[f.ctx];
        long long min_height = LLONG_MAX;
        bool any = false;
        for (int k = c.begin; k < c.end; ++k) {
            const int i = lists_[k];
            if (offset_[i] >= 0) continue;
            any = true;
            min_height = std::min(min_height, min_offset_[i] + in_.size[i]);
        }
        if (!any) return false;
        f.cand_begin = static_cast<int>(cands_.size());
        for (int k = c.begin; k < c.end; ++k) {
            const int i = lists_[k];
            if (offset_[i] >= 0) continue;
            const long long o = min_offset_[i];
            if (o >= min_height) continue;
            if (o < f.min_offset || (o == f.min_offset && rank_[i] < f.min_rank)) continue;
            cands_.push_back(i);
        }
        f.cand_end = static_cast<int>(cands_.size());
        std::sort(cands_.begin() + f.cand_begin, cands_.end(), [this](int a, int b) {
            if (min_offset_[a] != min_offset_[b]) return min_offset_[a] < min_offset_[b];
            return rank_[a] < rank_[b];
        });
        f.cursor = f.cand_begin;
        return true;
    }

    // Undoes the frame's placement, then places its next candidate; the next state.
    int next(int* frame, int* split) {
        Frame& f = frames_[*frame];
        if (f.placed >= 0) {
            const bool hatless = f.hatless;
            undo(f);
            if (hatless) return kFail;
        }
        while (f.cursor < f.cand_end) {
            const int i = cands_[f.cursor++];
            const long long o = min_offset_[i];
            place(f, i, o);
            if (!fits(contexts_[f.ctx], o)) {
                const bool hatless = f.hatless;
                undo(f);
                if (hatless) return kFail;  // a buffer that raised nobody has no better alternative
                continue;
            }
            // Lower the cuts the buffer held up; a zero inside its range splits the partition.
            f.cut = true;
            bool split_here = false;
            for (int s = in_.sec_lo[i]; s + 1 < in_.sec_hi[i]; ++s) {
                if (--cuts_[s] == 0) split_here = true;
            }
            const Context& c = contexts_[f.ctx];
            if (split_here) {
                open_split(*frame, f.ctx, c.sec_lo, c.sec_hi);
                *split = static_cast<int>(splits_.size()) - 1;
                return kNextPiece;
            }
            const int cb = static_cast<int>(cands_.size());
            frames_.push_back(Frame{f.ctx, o, rank_[i], cb, cb, cb, -1, false, false, 0, 0});
            *frame = static_cast<int>(frames_.size()) - 1;
            return kEnter;
        }
        return kFail;
    }

    // Places buffer i at offset o: raises its unplaced neighbours' offsets, lifts the
    // floors of its sections, and of every section whose lowest unplaced offset rose.
    void place(Frame& f, int i, long long o) {
        f.placed = i;
        f.offset_mark = static_cast<int>(offset_log_.size());
        f.floor_mark = static_cast<int>(floor_log_.size());
        offset_[i] = o;
        solution[i] = o;
        const long long top = o + in_.size[i];
        bool hatless = true;
        ++stamp_;
        touched_.clear();
        for (int k = in_.overlap_start[i]; k < in_.overlap_start[i + 1]; ++k) {
            const int j = in_.overlap[k];
            if (offset_[j] >= 0) continue;
            hatless = false;
            if (min_offset_[j] >= top) continue;
            offset_log_.push_back(Change{j, min_offset_[j]});
            min_offset_[j] = top;
            for (int s = in_.sec_lo[j]; s < in_.sec_hi[j]; ++s) {
                if (mark_[s] != stamp_) {
                    mark_[s] = stamp_;
                    touched_.push_back(s);
                }
            }
        }
        f.hatless = hatless;
        for (int s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) {
            floor_log_.push_back(Change{s, floor_[s]});
            floor_[s] = top;
            total_[s] -= in_.size[i];
        }
        for (const int s : touched_) {
            // The lowest unplaced offset in s; the scan stops at one not above the floor,
            // since then the floor stays.
            const long long floor = floor_[s];
            long long lowest = LLONG_MAX;
            for (int k = in_.member_start[s]; k < in_.member_start[s + 1]; ++k) {
                const int j = in_.member[k];
                if (offset_[j] >= 0) continue;
                lowest = std::min(lowest, min_offset_[j]);
                if (lowest <= floor) break;
            }
            if (lowest != LLONG_MAX && floor < lowest) {
                floor_log_.push_back(Change{s, floor_[s]});
                floor_[s] = lowest;
            }
        }
    }

    void undo(Frame& f) {
        const int i = f.placed;
        for (int k = static_cast<int>(floor_log_.size()) - 1; k >= f.floor_mark; --k) {
            floor_[floor_log_[k].index] = floor_log_[k].value;
        }
        floor_log_.resize(f.floor_mark);
        for (int s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) total_[s] += in_.size[i];
        for (int k = static_cast<int>(offset_log_.size()) - 1; k >= f.offset_mark; --k) {
            min_offset_[offset_log_[k].index] = offset_log_[k].value;
        }
        offset_log_.resize(f.offset_mark);
        if (f.cut) {
            for (int s = in_.sec_lo[i]; s + 1 < in_.sec_hi[i]; ++s) cuts_[s]++;
        }
        offset_[i] = -1;
        f.placed = -1;
        f.cut = false;
    }

    // Section inference: every section of the context must still hold its unplaced bytes
    // above its floor (and above the offset just placed, since offsets only rise).
    bool fits(const Context& c, long long o) const {
        for (int s = c.sec_lo; s < c.sec_hi; ++s) {
            if (std::max(o, floor_[s]) + total_[s] > capacity_) return false;
        }
        return true;
    }

    // The context solved: undo its frames' placements, close it, and go on with its split.
    int succeed(int ctx, int* split) {
        const int base = contexts_[ctx].frame_base;
        while (static_cast<int>(frames_.size()) > base) {
            Frame& f = frames_.back();
            if (f.placed >= 0) undo(f);
            cands_.resize(f.cand_begin);
            frames_.pop_back();
        }
        *split = contexts_[ctx].split;
        close_context();
        return kNextPiece;
    }

    const Instance& in_;
    long long capacity_ = 0;
    int preorder_ = 0;
    std::vector<long long> offset_, min_offset_, floor_, total_;
    std::vector<long long> key_t_ = std::vector<long long>(in_.n);
    std::vector<int> rank_, cuts_, mark_, touched_;
    int stamp_ = 0;
    std::vector<Frame> frames_;
    std::vector<Context> contexts_;
    std::vector<Split> splits_;
    std::vector<int> cut_points_, lists_, cands_;
    std::vector<Change> offset_log_, floor_log_;
};

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

// The rungs of the capacity ladder: the bound, then the bound plus the gap over 2^k (k = 7
// down to 1), tried from the bound up so that the first success jumps furthest. The ladder
// stays until no rung is left between the bound and the best height, so that a search that
// ran out of nodes is remembered.
constexpr int kNumRungs = 8;

// The optimisation over capacities (ExactPacking.Optimizer): decision searches on a ladder of
// capacities between the proven bound and the best height found, all at one node limit that
// doubles (from 2n, MiniMalloc's restarts) when every rung and preorder ran out of it. A rung
// found feasible lowers the height, one proven infeasible raises the bound; either rebuilds
// the ladder. A search at a fixed capacity does not depend on the rest, so one that ran out
// of nodes is not run again at the same limit. One node budget covers every search.
class Optimizer {
public:
    Optimizer(const Instance& in, long long node_limit, long long time_limit_ms, long long target)
        : in_(in), search_(in), nodes_left_(node_limit), target_(target), timed_(time_limit_ms > 0),
          deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms > 0 ? time_limit_ms : 0)) {}

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
            for (int k = 0; k < count && !moved; ++k) {
                // The bound's rung decides tight instances, the target's the decision problem:
                // the others take a quarter of the nodes.
                const long long rung_limit = rungs[k] == bound || rungs[k] == target_ ? limit : std::max(limit / 4, 1LL);
                for (int p = 0; p < kNumPreorders && !moved; ++p) {
                    if (tried(rungs[k], p) >= rung_limit) continue;  // the same search again would fail again
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

    const Instance& in_;
    Search search_;
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
    if (n < 0 || node_limit < 1 || time_limit_ms < 0 || target < -1) return MEMPLAN_BAD_ARGUMENT;
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
        Instance in;
        const bool indexed = in.build(m, lo.data(), up.data(), sz.data());
        long long height = height_of(m, sz.data(), off.data());
        for (int k = 0; k < m; ++k) offset[kept[k]] = off[k];
        stats[MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES] = in.lower_bound;
        if (!indexed) {
            stats[MEMPLAN_EXACT_STAT_HEIGHT_BYTES] = height;
            stats[MEMPLAN_EXACT_STAT_STATUS] = height == in.lower_bound ? kProven : kTooLarge;
            return MEMPLAN_OK;
        }
        // The seed must be a plan: no two overlapping buffers share a byte.
        for (int i = 0; i < m; ++i) {
            for (int k = in.overlap_start[i]; k < in.overlap_start[i + 1]; ++k) {
                const int j = in.overlap[k];
                if (off[i] < off[j] + sz[j] && off[j] < off[i] + sz[i]) return MEMPLAN_BAD_ARGUMENT;
            }
        }
        Optimizer opt(in, node_limit, time_limit_ms, target);
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
