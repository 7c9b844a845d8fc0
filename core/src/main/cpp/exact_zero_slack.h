// SPDX-License-Identifier: Apache-2.0
// exact_zero_slack.h - the exact search's zero-slack rule (docs/design.md §5c): the
// bottom-left rule of perfect rectangle packing, as one sweep after a placement and
// as one pass over the candidates at an offset before any of them is placed.
// ExactZeroSlack.java is the same program.

#ifndef MEMPLAN_EXACT_ZERO_SLACK_H
#define MEMPLAN_EXACT_ZERO_SLACK_H

#include <vector>

#include "exact_instance.h"

namespace memplan_exact {

// The rule over the search's state, which bind() points it at once per run: a section tight at o
// (no slack between max(o, floor) and the capacity for its unplaced bytes) must have its byte o
// covered by a buffer placed exactly at o later, so of higher rank, at min offset o; those are
// apart in time, so together they must cover every tight section.
class ExactZeroSlack {
public:
    explicit ExactZeroSlack(const ExactInstance& in) : in_(in) {}

    void bind(long long capacity, const long long* offset, const long long* min_offset, const long long* floor,
              const long long* total, const int* rank) {
        capacity_ = capacity;
        offset_ = offset;
        min_offset_ = min_offset;
        floor_ = floor;
        total_ = total;
        rank_ = rank;
        starting_at_.assign(in_.num_sections + 1, -1);
        ending_at_.assign(in_.num_sections + 1, -1);
        reach_.assign(in_.num_sections + 1, 0);
        reach_back_.assign(in_.num_sections + 1, 0);
        next_starting_.assign(in_.n, -1);
        next_ending_.assign(in_.n, -1);
    }

    bool tight(int s, long long o) const {
        return total_[s] > 0 && floor_[s] <= o && o + total_[s] == capacity_;
    }

    // After a placement at o of rank r, in the context's sections [lo, hi) and buffers
    // list[begin, end): the unplaced buffers at min offset o of rank above r can cover every tight
    // section at once, by a left-to-right sweep over the sections that reaches their end only if such
    // disjoint buffers exist.
    bool covers(int lo, int hi, const int* list, int begin, int end, long long o, int r) {
        int s = lo;
        while (s < hi && !tight(s, o)) ++s;
        if (s == hi) return true;
        clear(hi - lo);
        for (int k = begin; k < end; ++k) {
            const int j = list[k];
            if (offset_[j] >= 0 || min_offset_[j] != o || rank_[j] <= r) continue;
            next_starting_[j] = starting_at_[in_.sec_lo[j] - lo];
            starting_at_[in_.sec_lo[j] - lo] = j;
        }
        reach_[0] = 1;
        for (s = lo; s < hi; ++s) {
            const int a = s - lo;
            if (reach_[a] == 0) continue;
            if (!tight(s, o)) reach_[a + 1] = 1;  // a section with slack may stay uncovered at o
            for (int j = starting_at_[a]; j >= 0; j = next_starting_[j]) reach_[in_.sec_hi[j] - lo] = 1;
        }
        return reach_[hi - lo] != 0;
    }

    // Before placing any of them: the verdict covers() would give after placing each candidate
    // cands[k], k in [first, last), all at min offset o in ascending rank. Writes it to pass[k]. The
    // buffers that could cover for cands[k] are the later candidates apart from it in time, so left of
    // its sections or right of them: it passes when the sweep from the context's start reaches its
    // first section and the sweep from the end reaches past its last. Taken from the last candidate
    // down, each adds one buffer and the sweeps only grow: the group costs one pass over its sections
    // and candidates. (A placement covers() refuses is refused by this pass too, also where section
    // inference would have refused it first: a tight section apart from the candidate whose floor the
    // placement lifts loses its coverers at o.)
    void mark_passing(int lo, int hi, const int* cands, int first, int last, long long o, char* pass) {
        bool any = false;
        for (int s = lo; s < hi && !any; ++s) any = tight(s, o);
        if (!any) {
            for (int k = first; k < last; ++k) pass[k] = 1;
            return;
        }
        const int width = hi - lo;
        clear(width);
        grow(lo, width, 0, o, false);
        grow(lo, width, width, o, true);
        for (int k = last - 1; k >= first; --k) {
            const int i = cands[k];
            const int a = in_.sec_lo[i] - lo;
            const int b = in_.sec_hi[i] - lo;
            pass[k] = reach_[a] != 0 && reach_back_[b] != 0;
            next_starting_[i] = starting_at_[a];
            starting_at_[a] = i;
            next_ending_[i] = ending_at_[b];
            ending_at_[b] = i;
            if (reach_[a] != 0) grow(lo, width, b, o, false);
            if (reach_back_[b] != 0) grow(lo, width, a, o, true);
        }
    }

private:
    void clear(int width) {
        for (int a = 0; a <= width; ++a) {
            starting_at_[a] = -1;
            ending_at_[a] = -1;
            reach_[a] = 0;
            reach_back_[a] = 0;
        }
    }

    // Marks point x reached (from the left, or from the right when back) and everything it reaches:
    // the next point past a section with slack, and the far end of every buffer added at x.
    void grow(int lo, int width, int x, long long o, bool back) {
        std::vector<char>& reach = back ? reach_back_ : reach_;
        if (reach[x] != 0) return;
        reach[x] = 1;
        work_.clear();
        work_.push_back(x);
        while (!work_.empty()) {
            const int y = work_.back();
            work_.pop_back();
            const int step = back ? y - 1 : y + 1;
            if ((back ? y > 0 : y < width) && !tight(lo + (back ? step : y), o) && reach[step] == 0) {
                reach[step] = 1;
                work_.push_back(step);
            }
            for (int j = back ? ending_at_[y] : starting_at_[y]; j >= 0; j = back ? next_ending_[j] : next_starting_[j]) {
                const int z = (back ? in_.sec_lo[j] : in_.sec_hi[j]) - lo;
                if (reach[z] == 0) {
                    reach[z] = 1;
                    work_.push_back(z);
                }
            }
        }
    }

    const ExactInstance& in_;
    long long capacity_ = 0;
    const long long* offset_ = nullptr;
    const long long* min_offset_ = nullptr;
    const long long* floor_ = nullptr;
    const long long* total_ = nullptr;
    const int* rank_ = nullptr;
    std::vector<int> starting_at_, ending_at_, next_starting_, next_ending_, work_;
    std::vector<char> reach_, reach_back_;
};

}  // namespace memplan_exact

#endif  // MEMPLAN_EXACT_ZERO_SLACK_H
