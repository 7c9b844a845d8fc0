// SPDX-License-Identifier: Apache-2.0
// exact_instance.h - the exact mode's index of an instance (docs/design.md §5c):
// MiniMalloc's sweep into sections, each buffer's section range, the overlaps and
// the lower bound. ExactInstance.java is the same program.

#ifndef MEMPLAN_EXACT_INSTANCE_H
#define MEMPLAN_EXACT_INSTANCE_H

#include <algorithm>
#include <vector>

namespace memplan_exact {
// The most overlap pairs and section memberships the search will index (each an int):
// beyond them the instance is far too large for an exact search anyway.
constexpr long long kMaxIndexEntries = 1LL << 25;

// The instance, indexed once: sections (the live set just before each distinct end
// time, MiniMalloc's sweep), each buffer's section range, overlaps and section members.
struct ExactInstance {
    int n = 0;
    int num_sections = 0;
    std::vector<long long> size, width, area;
    std::vector<int> sec_lo, sec_hi;  // buffer i lives in sections [sec_lo[i], sec_hi[i])
    std::vector<long long> total0;    // bytes alive in each section
    std::vector<int> cuts0;           // buffers alive in both section s and s + 1
    std::vector<int> overlap_start, overlap;  // CSR: the buffers each buffer overlaps, ascending
    std::vector<int> member_start, member;    // CSR: the buffers alive in each section, ascending
    long long lower_bound = 0;

    // Builds the index; false when the bound already reaches `height` (nothing to search) or the
    // index would exceed kMaxIndexEntries (then only the bound is valid).
    bool build(int count, const long long* lower, const long long* upper, const long long* bytes, long long height) {
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
        if (lower_bound >= height || memberships > kMaxIndexEntries) return false;
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

}  // namespace memplan_exact

#endif  // MEMPLAN_EXACT_INSTANCE_H
