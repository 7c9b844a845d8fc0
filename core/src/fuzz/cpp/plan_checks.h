// SPDX-License-Identifier: Apache-2.0
// plan_checks.h - what the libFuzzer harnesses hold every plan to, written here
// from the contract (docs/design.md §3, §5, §5b, §8) and not from the core's
// code: a slots plan and an offsets plan are checked against the buffers'
// lifetimes with quadratic loops and 128-bit sums, a compiled schedule against
// the graph it came from. A check that fails aborts, which libFuzzer reports as
// a crash with the input that made it.

#ifndef MEMPLAN_FUZZ_PLAN_CHECKS_H
#define MEMPLAN_FUZZ_PLAN_CHECKS_H

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace fuzz_checks {

[[noreturn]] inline void fail(const char* what, long long a, long long b) {
    std::fprintf(stderr, "plan check failed: %s (%lld, %lld)\n", what, a, b);
    std::abort();
}

inline void require(bool ok, const char* what, long long a = 0, long long b = 0) {
    if (!ok) fail(what, a, b);
}

// A slots plan (memplan_allocate): owner o is defined at the position whose
// def bucket holds it and freed at the position whose free bucket lists it;
// frees follow the defs of their position. Owners sharing a slot must not be
// alive together, every slot holds its owners, and the totals are what the
// lifetimes give.
inline void check_slots_plan(int num_owners, int num_positions, const int* def_offsets, const int* free_offsets,
                             const int* free_owners, const long long* size, const int* owner_slot,
                             const long long* slot_capacity, const long long* stats) {
    std::vector<int> def_at(num_owners, -1);
    std::vector<int> free_at(num_owners, -1);
    for (int p = 0; p < num_positions; ++p) {
        for (int o = def_offsets[p]; o < def_offsets[p + 1]; ++o) def_at[o] = p;
        for (int k = free_offsets[p]; k < free_offsets[p + 1]; ++k) {
            const int o = free_owners[k];
            require(o >= 0 && o < num_owners, "a freed owner out of range", o, num_owners);
            require(free_at[o] == -1, "an owner freed twice", o, p);
            free_at[o] = p;
        }
    }
    const long long num_slots = stats[0];
    require(num_slots >= 0 && num_slots <= num_owners, "slot count", num_slots, num_owners);
    __int128 naive = 0;
    for (int o = 0; o < num_owners; ++o) {
        require(def_at[o] >= 0, "an owner never defined", o, 0);
        require(free_at[o] >= def_at[o], "an owner freed before it is defined, or never", o, free_at[o]);
        require(owner_slot[o] >= 0 && owner_slot[o] < num_slots, "slot out of range", o, owner_slot[o]);
        require(size[o] >= 0, "a negative size accepted", o, size[o]);
        require(slot_capacity[owner_slot[o]] >= size[o], "slot smaller than its owner", o, size[o]);
        naive += size[o];
    }
    for (int a = 0; a < num_owners; ++a) {
        for (int b = a + 1; b < num_owners; ++b) {
            if (owner_slot[a] != owner_slot[b]) continue;
            const bool overlap = def_at[a] <= free_at[b] && def_at[b] <= free_at[a];
            require(!overlap, "two live owners share a slot", a, b);
        }
    }
    __int128 peak = 0;
    for (long long s = 0; s < num_slots; ++s) {
        require(slot_capacity[s] >= 0, "negative slot capacity", s, slot_capacity[s]);
        peak += slot_capacity[s];
    }
    __int128 bound = 0;
    for (int p = 0; p < num_positions; ++p) {
        __int128 live = 0;
        for (int o = 0; o < num_owners; ++o) {
            if (def_at[o] <= p && p <= free_at[o]) live += size[o];
        }
        if (live > bound) bound = live;
    }
    require(peak == stats[1], "peak is not the sum of the slots", stats[1], static_cast<long long>(peak));
    require(naive == stats[2], "naive is not the sum of the sizes", stats[2], static_cast<long long>(naive));
    require(bound == stats[3], "lower bound is not the largest live sum", stats[3], static_cast<long long>(bound));
    require(bound <= peak, "peak below the lower bound", static_cast<long long>(bound), static_cast<long long>(peak));
}

// An offsets plan (memplan_offsets_plan): buffers alive at a common position
// (inclusive intervals [def, use_end]) get disjoint byte ranges inside the peak.
inline void check_offsets_plan(int n, const int* def, const int* use_end, const long long* size,
                               const long long* offset, const long long* stats) {
    const long long peak = stats[0];
    __int128 naive = 0;
    for (int i = 0; i < n; ++i) {
        require(offset[i] >= 0, "negative offset", i, offset[i]);
        require(static_cast<__int128>(offset[i]) + size[i] <= peak, "a buffer past the peak", i, offset[i]);
        naive += size[i];
    }
    require(naive == stats[1], "naive is not the sum of the sizes", stats[1], static_cast<long long>(naive));
    // The largest live sum is reached where some buffer starts.
    __int128 bound = 0;
    for (int i = 0; i < n; ++i) {
        __int128 live = 0;
        for (int j = 0; j < n; ++j) {
            if (def[j] <= def[i] && def[i] <= use_end[j]) live += size[j];
        }
        if (live > bound) bound = live;
    }
    require(bound == stats[2], "lower bound is not the largest live sum", stats[2], static_cast<long long>(bound));
    require(bound <= peak, "peak below the lower bound", static_cast<long long>(bound), peak);
    for (int a = 0; a < n; ++a) {
        if (size[a] == 0) continue;
        for (int b = a + 1; b < n; ++b) {
            if (size[b] == 0 || def[a] > use_end[b] || def[b] > use_end[a]) continue;
            const bool apart = static_cast<__int128>(offset[a]) + size[a] <= offset[b] ||
                               static_cast<__int128>(offset[b]) + size[b] <= offset[a];
            require(apart, "two live buffers overlap", a, b);
        }
    }
}

}  // namespace fuzz_checks

#endif  // MEMPLAN_FUZZ_PLAN_CHECKS_H
