// SPDX-License-Identifier: Apache-2.0
// Tests for free_slot_set.h: the treap against a sorted list.

#include "test_support.h"

namespace memplan_test {
namespace {

// The free set against a sorted vector of (capacity, slot id): every poll takes
// the smallest capacity >= need, the lowest id among equals, or NONE.
void test_free_slot_set_against_sorted_list() {
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    using memplan_detail::NONE;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        const int max_slots = pick(rng, 1, 600);
        std::vector<FreeNode> nodes(static_cast<std::size_t>(max_slots));
        FreeSlotSet set(nodes.data());
        std::vector<std::pair<long long, int>> expected;  // free slots, sorted
        std::vector<long long> capacity;
        for (int step = 0; step < 4000; ++step) {
            const long long need = pick(rng, 0, 40);
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
                std::printf("  (seed %u, step %d)\n", seed, step);
                return;
            }
        }
    }
}

}  // namespace

void run_free_slot_set_tests() {
    run_case("FreeSlotSet against a sorted list", test_free_slot_set_against_sorted_list);
}

}  // namespace memplan_test
