// SPDX-License-Identifier: Apache-2.0
// Tests for free_slot_set.h: ScannedSlots and FreeSlotSet's three forms (scanned bits, ranked bits, the
// treap) against a sorted list.

#include "test_support.h"

namespace memplan_test {
namespace {

// The free slots as a sorted vector of (capacity, slot id), the model every
// form must match: a poll takes the smallest capacity >= need, the lowest id
// among equals, or NONE.
struct SortedFreeSlots {
    std::vector<std::pair<long long, int>> free;  // sorted
    std::vector<long long> capacity;              // by slot id

    void add(int slot) {
        const auto key = std::make_pair(capacity[static_cast<std::size_t>(slot)], slot);
        free.insert(std::lower_bound(free.begin(), free.end(), key), key);
    }
    int poll_ceiling(long long need) {
        const auto it = std::lower_bound(free.begin(), free.end(), std::make_pair(need, INT_MIN));
        if (it == free.end()) return memplan_detail::NONE;
        const int slot = it->second;
        free.erase(it);
        return slot;
    }
};

// `steps` random steps on `set` (through open, poll and add) against `model`:
// open a free slot while fewer than max_slots are open, else poll and now and
// then give the polled slot back. False (with the seed printed) on a mismatch.
template <class Open, class Poll, class Add>
bool random_steps(std::mt19937& rng, SortedFreeSlots& model, int steps, int max_slots, long long max_need,
                  Open open, Poll poll, Add add, unsigned seed) {
    using memplan_detail::NONE;
    for (int step = 0; step < steps; ++step) {
        const long long need = pick(rng, 0, static_cast<int>(max_need));
        if (pick(rng, 0, 2) == 0 && static_cast<int>(model.capacity.size()) < max_slots) {
            const int slot = open(need);
            CHECK_EQ(slot, static_cast<int>(model.capacity.size()));
            model.capacity.push_back(need);
            add(slot);
            model.add(slot);
        } else {
            const int want = model.poll_ceiling(need);
            CHECK_EQ(poll(need), want);
            if (pick(rng, 0, 1) == 0 && want != NONE) {
                add(want);
                model.add(want);
            }
        }
        if (g_case_failures != 0) {
            std::printf("  (seed %u, max_slots %d, step %d)\n", seed, max_slots, step);
            return false;
        }
    }
    return true;
}

// The set scans its free bits up to kScannedSlots slots, ranks them up to
// kSmallSlots, and moves the free ones into the treap when the 65th opens;
// every switch happens with some slots free.
bool free_slot_set_matches_sorted_list(unsigned seed, int max_slots, long long max_need) {
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    std::mt19937 rng(seed);
    std::vector<FreeNode> nodes(static_cast<std::size_t>(max_slots));
    FreeSlotSet set(nodes.data());
    SortedFreeSlots model;
    return random_steps(
        rng, model, 4000, max_slots, max_need, [&](long long bytes) { return set.open(bytes); },
        [&](long long need) { return set.poll_ceiling(need); }, [&](int slot) { set.add(slot); }, seed);
}

// memplan_allocate's two phases: a ScannedSlots up to its 8 slots, then a
// FreeSlotSet that takes it over (with any of its slots free) and goes on
// through the ranked form and the treap.
void test_scanned_slots_then_free_slot_set() {
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    using memplan_detail::ScannedSlots;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        std::mt19937 rng(seed);
        const int scanned = pick(rng, 0, ScannedSlots::kMaxSlots);
        const long long max_need = seed % 2 == 0 ? 3 : 1000;
        std::vector<FreeNode> nodes(200);
        ScannedSlots few;
        SortedFreeSlots model;
        if (!random_steps(
                rng, model, pick(rng, 0, 60), scanned, max_need,
                [&](long long bytes) {
                    CHECK(!few.full());
                    return few.open(nodes.data(), bytes);
                },
                [&](long long need) { return few.poll_ceiling(nodes.data(), need); }, [&](int slot) { few.add(slot); },
                seed)) {
            return;
        }
        CHECK_EQ(few.full(), few.num_slots() == ScannedSlots::kMaxSlots);
        FreeSlotSet all(nodes.data(), few);
        CHECK_EQ(all.num_slots(), few.num_slots());
        if (!random_steps(
                rng, model, 3000, 200, max_need, [&](long long bytes) { return all.open(bytes); },
                [&](long long need) { return all.poll_ceiling(need); }, [&](int slot) { all.add(slot); }, seed)) {
            return;
        }
    }
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
    run_case("ScannedSlots, then a FreeSlotSet that takes it over", test_scanned_slots_then_free_slot_set);
}

}  // namespace memplan_test
