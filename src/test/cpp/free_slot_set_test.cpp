// SPDX-License-Identifier: Apache-2.0
// Tests for free_slot_set.h: its three forms (scanned bits, ranked bits, the treap) against a sorted list.

#include "test_support.h"

namespace memplan_test {
namespace {

// The free set against a sorted vector of (capacity, slot id): every poll takes
// the smallest capacity >= need, the lowest id among equals, or NONE. The set
// scans its free bits up to kScannedSlots slots, ranks them up to kSmallSlots,
// and moves the free ones into the treap when the 65th opens; every switch
// happens with some slots free.
bool free_slot_set_matches_sorted_list(unsigned seed, int max_slots, long long max_need) {
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    using memplan_detail::NONE;
    {
        std::mt19937 rng(seed);
        std::vector<FreeNode> nodes(static_cast<std::size_t>(max_slots));
        FreeSlotSet set(nodes.data());
        std::vector<std::pair<long long, int>> expected;  // free slots, sorted
        std::vector<long long> capacity;
        for (int step = 0; step < 4000; ++step) {
            const long long need = pick(rng, 0, static_cast<int>(max_need));
            if (pick(rng, 0, 2) == 0 && set.num_slots() < max_slots) {
                const int slot = set.open(need);
                CHECK_EQ(slot, static_cast<int>(capacity.size()));
                capacity.push_back(need);
                set.add(slot);
                expected.insert(std::lower_bound(expected.begin(), expected.end(), std::make_pair(need, slot)),
                                std::make_pair(need, slot));
            } else {
                const auto it = std::lower_bound(expected.begin(), expected.end(), std::make_pair(need, INT_MIN));
                const int want = it == expected.end() ? NONE : it->second;
                CHECK_EQ(set.poll_ceiling(need), want);
                if (it != expected.end()) expected.erase(it);
                // give a random taken slot back now and then
                if (pick(rng, 0, 1) == 0 && want != NONE) {
                    set.add(want);
                    const auto back = std::make_pair(capacity[static_cast<std::size_t>(want)], want);
                    expected.insert(std::lower_bound(expected.begin(), expected.end(), back), back);
                }
            }
            if (g_case_failures != 0) {
                std::printf("  (seed %u, max_slots %d, step %d)\n", seed, max_slots, step);
                return false;
            }
        }
    }
    return true;
}

void test_free_slot_set_against_sorted_list() {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        if (!free_slot_set_matches_sorted_list(seed, pick(rng, 1, 600), 40)) return;
    }
}

// Around the switches (scanned to ranked at the 9th slot, ranked to treap at
// the 65th), and with capacities at the extremes (a capacity of LLONG_MAX must
// still be found by a need of LLONG_MAX, in every form).
void test_free_slot_set_small_and_switch() {
    const int sizes[] = {1, 2, 8, 9, 10, 63, 64, 65, 66, 129};
    for (unsigned seed = 1; seed <= 6; ++seed) {
        for (const int max_slots : sizes) {
            if (!free_slot_set_matches_sorted_list(100 + seed, max_slots, seed % 2 == 0 ? 3 : 1000)) return;
        }
    }
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    using memplan_detail::NONE;
    // Taken slots of 5 bytes first put the set in each form: scanned, ranked, treap.
    for (const int taken : {0, 10, 70}) {
        std::vector<FreeNode> nodes(static_cast<std::size_t>(taken) + 2);
        FreeSlotSet set(nodes.data());
        for (int i = 0; i < taken; ++i) set.open(5);
        const int big = set.open(LLONG_MAX);
        const int zero = set.open(0);
        set.add(big);
        set.add(zero);
        CHECK_EQ(set.poll_ceiling(LLONG_MAX), big);
        CHECK_EQ(set.poll_ceiling(LLONG_MAX), NONE);
        CHECK_EQ(set.poll_ceiling(0), zero);
        CHECK_EQ(set.poll_ceiling(0), NONE);
    }
}

}  // namespace

void run_free_slot_set_tests() {
    run_case("FreeSlotSet against a sorted list", test_free_slot_set_against_sorted_list);
    run_case("FreeSlotSet forms, the switches between them, extreme capacities", test_free_slot_set_small_and_switch);
}

}  // namespace memplan_test
