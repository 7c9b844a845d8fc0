// SPDX-License-Identifier: Apache-2.0
// exact_search.h - the exact mode's decision search at one capacity (docs/design.md
// §5c): a depth-first search over canonical solutions with section inference,
// dominance, dynamic ordering, hatless pruning and decomposition at zero cuts
// (MiniMalloc's ideas), as a loop over an explicit stack. ExactSearch.java is the
// same program.

#ifndef MEMPLAN_EXACT_SEARCH_H
#define MEMPLAN_EXACT_SEARCH_H

#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

#include "exact_instance.h"
#include "exact_zero_slack.h"

namespace memplan_exact {
// What one search at a fixed capacity ended with (ExactSearch.FOUND, ...).
constexpr int kFound = 0;       // every buffer placed within the capacity
constexpr int kInfeasible = 1;  // the search finished: no placement fits
constexpr int kAborted = 2;     // the node limit ran out first
constexpr int kTimedOut = 3;    // the time limit ran out first

// The static preorders the restarts take in turn: W width, A area, T the
// fullest section the buffer lives in, each descending (MiniMalloc's WAT, TAW, TWA).
// Where TWA would rank the instance as WAT does (every buffer's fullest section
// equally full, as when every section holds the bound), LSW takes its turn: L the
// first section, ascending, then S size, W width (the bottom-left rule's order).
constexpr int kNumPreorders = 3;
constexpr char kPreorders[kNumPreorders][4] = {"WAT", "TAW", "TWA"};
constexpr char kRepeatReplacement[4] = "LSW";

// Nodes between two looks at the clock (a clock read costs far less than a node; a node of a few
// thousand buffers costs up to a few hundred microseconds, so 1,024 ran a fifth of a second late).
constexpr long long kClockEvery = 64;

// A partition being solved: its buffers in preorder (rank r at list[begin + r]), its
// sections [sec_lo, sec_hi), its first frame, and the split that opened it.
struct Context {
    int begin, end;
    int sec_lo, sec_hi;
    int frame_base;
    int split;
};

// One node of the search: its canonical floor (no buffer below min_offset, nor at it
// with a rank below min_rank), its candidates, the placement it has made, and its context's
// largest unplaced total and floor plus total when it was entered.
struct Frame {
    int ctx;
    long long min_offset;
    int min_rank;
    int cand_begin, cand_end, cursor;
    int passing_end;  // the candidates up to here have the zero-slack rule's verdict
    int placed;
    bool hatless, cut;
    int offset_mark, floor_mark;
    long long max_total, max_floor_total;
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
class ExactSearch {
public:
    explicit ExactSearch(const ExactInstance& in) : in_(in) {
        // Whether TWA repeats WAT on the whole instance: then its turn goes to LSW.
        std::vector<int> wat(in_.n), twa(in_.n);
        for (int i = 0; i < in_.n; ++i) {
            long long t = 0;
            for (int s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) t = std::max(t, in_.total0[s]);
            key_t_[i] = t;
            wat[i] = twa[i] = i;
        }
        std::sort(wat.begin(), wat.end(), [this](int a, int b) { return before(kPreorders[0], a, b); });
        std::sort(twa.begin(), twa.end(), [this](int a, int b) { return before(kPreorders[2], a, b); });
        twa_repeats_wat_ = wat == twa;
    }

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
        frames_.clear();
        contexts_.clear();
        splits_.clear();
        cut_points_.clear();
        lists_.clear();
        cands_.clear();
        offset_log_.clear();
        floor_log_.clear();
        zero_slack_.bind(capacity_, offset_.data(), min_offset_.data(), floor_.data(), total_.data(), rank_.data());
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
                                    static_cast<int>(cands_.size()), static_cast<int>(cands_.size()), 0, -1, false, false,
                                    0, 0, 0, 0});
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
        const char* order = preorder_ == 2 && twa_repeats_wat_ ? kRepeatReplacement : kPreorders[preorder_];
        std::sort(lists_.begin() + begin, lists_.begin() + end,
                  [this, order](int a, int b) { return before(order, a, b); });
        for (int k = begin; k < end; ++k) rank_[lists_[k]] = k - begin;
    }

    // Whether buffer a comes before b in a preorder: its keys descending, ties by index.
    bool before(const char* order, int a, int b) const {
        for (int c = 0; c < 3; ++c) {
            const long long x = key(order[c], a);
            const long long y = key(order[c], b);
            if (x != y) return x > y;
        }
        return a < b;
    }

    long long key(char c, int i) const {
        if (c == 'W') return in_.width[i];
        if (c == 'A') return in_.area[i];
        if (c == 'S') return in_.size[i];
        if (c == 'L') return -static_cast<long long>(in_.sec_lo[i]);  // the earliest first
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
        f.passing_end = f.cand_begin;
        if (passing_.size() < cands_.size()) passing_.resize(cands_.size());
        f.max_total = 0;
        f.max_floor_total = 0;
        for (int s = c.sec_lo; s < c.sec_hi; ++s) {
            f.max_total = std::max(f.max_total, total_[s]);
            f.max_floor_total = std::max(f.max_floor_total, floor_[s] + total_[s]);
        }
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
            const int k = f.cursor++;
            const int i = cands_[k];
            const long long o = min_offset_[i];
            // Section inference before placing: a section left without room above max(o, floor) stays so
            // through the placement, and o only grows along the candidates: the frame is done.
            if (std::max(f.max_floor_total, o + f.max_total) > capacity_) return kFail;
            if (k >= f.passing_end) {
                // The zero-slack rule's verdict on every candidate at o at once, before placing any.
                f.passing_end = k;
                while (f.passing_end < f.cand_end && min_offset_[cands_[f.passing_end]] == o) f.passing_end++;
                const Context& c = contexts_[f.ctx];
                zero_slack_.mark_passing(c.sec_lo, c.sec_hi, cands_.data(), k, f.passing_end, o, passing_.data());
            }
            if (passing_[k] == 0) {
                // fits() would refuse the placement: only whether it raises nobody is left to see
                if (!raises_someone(i)) return kFail;
                continue;
            }
            place(f, i, o);
            if (!fits(contexts_[f.ctx], f, i, o)) {
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
            frames_.push_back(Frame{f.ctx, o, rank_[i], cb, cb, cb, cb, -1, false, false, 0, 0, 0, 0});
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
        // The sections whose floor may rise: the buffer's own and those of every neighbour it raised.
        // Each neighbour's sections meet the buffer's, so together they are one range.
        int lo = in_.sec_lo[i];
        int hi = in_.sec_hi[i];
        for (int k = in_.overlap_start[i]; k < in_.overlap_start[i + 1]; ++k) {
            const int j = in_.overlap[k];
            if (offset_[j] >= 0) continue;
            hatless = false;
            if (min_offset_[j] >= top) continue;
            offset_log_.push_back(Change{j, min_offset_[j]});
            min_offset_[j] = top;
            lo = std::min(lo, in_.sec_lo[j]);
            hi = std::max(hi, in_.sec_hi[j]);
        }
        f.hatless = hatless;
        for (int s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) {
            floor_log_.push_back(Change{s, floor_[s]});
            floor_[s] = top;
            total_[s] -= in_.size[i];
        }
        for (int s = lo; s < hi; ++s) {
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

    bool raises_someone(int i) const {
        for (int k = in_.overlap_start[i]; k < in_.overlap_start[i + 1]; ++k) {
            if (offset_[in_.overlap[k]] < 0) return true;
        }
        return false;
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
    // above its floor (and above the offset just placed, since offsets only rise). The frame's
    // maxima checked the sections the placement left alone; the log holds the others.
    bool fits(const Context& c, const Frame& f, int i, long long o) {
        for (int k = f.floor_mark; k < static_cast<int>(floor_log_.size()); ++k) {
            const int s = floor_log_[k].index;
            if (s >= c.sec_lo && s < c.sec_hi && std::max(o, floor_[s]) + total_[s] > capacity_) return false;
        }
        return zero_slack_.covers(c.sec_lo, c.sec_hi, lists_.data(), c.begin, c.end, o, rank_[i]);
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

    const ExactInstance& in_;
    long long capacity_ = 0;
    int preorder_ = 0;
    bool twa_repeats_wat_ = false;
    std::vector<long long> offset_, min_offset_, floor_, total_;
    std::vector<long long> key_t_ = std::vector<long long>(in_.n);
    std::vector<int> rank_, cuts_;
    ExactZeroSlack zero_slack_{in_};
    std::vector<char> passing_;  // mark_passing's verdict on each candidate of cands_
    std::vector<Frame> frames_;
    std::vector<Context> contexts_;
    std::vector<Split> splits_;
    std::vector<int> cut_points_, lists_, cands_;
    std::vector<Change> offset_log_, floor_log_;
};

}  // namespace memplan_exact

#endif  // MEMPLAN_EXACT_SEARCH_H
