// SPDX-License-Identifier: Apache-2.0
// Tests for slots_allocate.h: tie-breaks, zero sizes, argument checks, overflow
// and random intervals against the reference best fit.

#include "test_support.h"

namespace memplan_test {
namespace {

// Allocation tie-breaks, driven directly through the bucket arrays: owners
// 0 and 1 are placed at position 0 and freed there, owner 2 comes at position 1.
Alloc two_free_then_one(long long s0, long long s1, long long s2) {
    return allocate_raw(3, 2, {0, 2, 3}, {0, 2, 3}, {0, 1, 2}, {0, 1, 2}, {s0, s1, s2});
}

void test_allocate_tie_breaks() {
    Alloc a = two_free_then_one(10, 10, 10);  // equal capacities: lower slot id
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_EQ(a.owner_slot[2], 0);
    a = two_free_then_one(100, 50, 40);  // smallest sufficient capacity wins
    CHECK_EQ(a.owner_slot[2], 1);
    CHECK_VEC(a.capacity, (std::vector<long long>{100, 50}));  // reused slot keeps 50
    CHECK_VEC(a.stats, (std::vector<long long>{2, 150, 190, 150}));
    a = two_free_then_one(50, 100, 40);
    CHECK_EQ(a.owner_slot[2], 0);
    a = two_free_then_one(100, 50, 200);  // nothing fits: new slot
    CHECK_EQ(a.owner_slot[2], 2);
    CHECK_VEC(a.capacity, (std::vector<long long>{100, 50, 200}));
    CHECK_VEC(a.stats, (std::vector<long long>{3, 350, 350, 200}));
    a = two_free_then_one(100, 50, 50);  // exact fit beats larger
    CHECK_EQ(a.owner_slot[2], 1);
    a = two_free_then_one(30, 20, 25);  // only the larger one fits
    CHECK_EQ(a.owner_slot[2], 0);
    CHECK_VEC(a.capacity, (std::vector<long long>{30, 20}));

    // Slots freed at a position are not available to that position's owners.
    a = allocate_raw(3, 2, {0, 1, 3}, {0, 0, 3}, {0, 1, 2}, {0, 1, 2}, {10, 10, 10});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.owner_slot, (std::vector<int>{0, 1, 2}));
}

void test_zero_size_owners() {
    // Owners 0 (0 bytes) and 1 (5 bytes) free at position 0; then 2 (0), 3 (0), 4 (1).
    const Alloc a = allocate_raw(5, 2, {0, 2, 5}, {0, 2, 5}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 5, 0, 0, 1});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    // 2 takes the zero-capacity slot, 3 the 5-byte one, 4 fits nowhere.
    CHECK_VEC(a.owner_slot, (std::vector<int>{0, 1, 0, 1, 2}));
    CHECK_VEC(a.capacity, (std::vector<long long>{0, 5, 1}));
    CHECK_VEC(a.stats, (std::vector<long long>{3, 6, 6, 5}));

    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a0 = g.value(), b0 = g.value(), c0 = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a0});
    g.node({a0}, {b0});
    g.node({b0}, {c0});
    const Compiled cc = compile_graph(g, 1);
    const Alloc z = allocate(cc, uniform_sizes(cc, 0));
    CHECK_EQ(z.rc, MEMPLAN_OK);
    CHECK_VEC(z.stats, (std::vector<long long>{2, 0, 0, 0}));
    check_allocation_matches(cc, uniform_sizes(cc, 0));
}

void test_allocate_bad_arguments() {
    {
        RawAlloc r;
        CHECK_EQ(r.run(), MEMPLAN_OK);
        CHECK_VEC(r.slot, (std::vector<int>{0, 1, 0}));
        CHECK_VEC(r.vslot, (std::vector<int>{1, 0, -1, 0}));
    }
    auto expect_bad = [](RawAlloc r, int line) {
        const int rc = r.run();
        if (rc != MEMPLAN_BAD_ARGUMENT) report_failure(__FILE__, line, "expected BAD_ARGUMENT, got " + std::to_string(rc));
    };
    RawAlloc r;
    r = RawAlloc(); r.doff.clear(); expect_bad(r, __LINE__);           // null pointers
    r = RawAlloc(); r.foff.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.size.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.slot.clear(); expect_bad(r, __LINE__);
    {
        // value_slot is optional: without it the owner slots are the same.
        RawAlloc q;
        q.vslot.clear();
        CHECK_EQ(q.run(), MEMPLAN_OK);
        CHECK_VEC(q.slot, (std::vector<int>{0, 1, 0}));
    }
    r = RawAlloc(); r.cap.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.scratch.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.nv = -1; expect_bad(r, __LINE__);                // negative counts
    r = RawAlloc(); r.k = -1; expect_bad(r, __LINE__);
    r = RawAlloc(); r.positions = 0; expect_bad(r, __LINE__);
    r = RawAlloc(); r.nv = 2; expect_bad(r, __LINE__);                 // more owners than values
    r = RawAlloc(); r.size[1] = -1; expect_bad(r, __LINE__);           // negative size
    r = RawAlloc(); r.scratch_bytes -= 1; expect_bad(r, __LINE__);     // scratch too small
    r = RawAlloc(); r.scratch_ptr = reinterpret_cast<char*>(r.scratch.data()) + 4; expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov[2] = 4; expect_bad(r, __LINE__);              // value id out of range
    r = RawAlloc(); r.ov[2] = -1; expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov[2] = 3; expect_bad(r, __LINE__);              // value listed twice
    r = RawAlloc(); r.doff = {0, 3, 2}; expect_bad(r, __LINE__);       // non-monotone
    r = RawAlloc(); r.doff = {1, 2, 3}; expect_bad(r, __LINE__);       // does not start at 0
    r = RawAlloc(); r.doff = {0, 2, 2}; expect_bad(r, __LINE__);       // does not end at num_owners
    r = RawAlloc(); r.doff = {0, 4, 3}; expect_bad(r, __LINE__);       // past num_owners
    r = RawAlloc(); r.foff = {0, 2, 1}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.foff = {0, 1, 2}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo = {0, 1, 3}; expect_bad(r, __LINE__);         // owner index out of range
    r = RawAlloc(); r.fo = {-1, 1, 2}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo = {2, 1, 0}; expect_bad(r, __LINE__);         // freed before it is placed
    r = RawAlloc(); r.fo = {0, 0, 2}; expect_bad(r, __LINE__);         // freed again after its slot was reused
    r = RawAlloc(); r.fo = {0, 2, 0}; expect_bad(r, __LINE__);         // freed twice while its slot is free
    {
        RawAlloc q;
        CHECK_EQ(memplan_allocate(q.nv, q.k, q.positions, q.doff.data(), q.foff.data(), q.fo.data(), q.ov.data(),
                                  q.size.data(), q.slot.data(), q.vslot.data(), q.cap.data(), nullptr,
                                  q.scratch.data(), q.scratch_bytes),
                 MEMPLAN_BAD_ARGUMENT);
    }
}

void test_overflow() {
    const long long half = LLONG_MAX / 2 + 1;
    Alloc a = two_free_then_one(half, half, 0);
    CHECK_EQ(a.rc, MEMPLAN_OVERFLOW);
    a = two_free_then_one(LLONG_MAX, 1, 0);
    CHECK_EQ(a.rc, MEMPLAN_OVERFLOW);
    a = two_free_then_one(LLONG_MAX - 1, 1, 0);  // exactly LLONG_MAX is fine
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.stats, (std::vector<long long>{2, LLONG_MAX, LLONG_MAX, LLONG_MAX}));
    a = two_free_then_one(LLONG_MAX - 5, 0, 5);
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_EQ(a.owner_slot[2], 0);
}

// checked_total against a running sum checked at each add (sizes are >= 0, so
// the total overflows iff a prefix does): sizes near the 32-bit split and near
// LLONG_MAX, so the split sums carry and the total lands on both sides of the limit.
void test_checked_total() {
    using memplan_detail::checked_total;
    for (unsigned seed = 1; seed <= 300; ++seed) {
        std::mt19937_64 rng(seed);
        const int n = static_cast<int>(rng() % 9);
        std::vector<long long> size(static_cast<std::size_t>(n));
        long long sum = 0;
        bool overflows = false;
        for (long long& s : size) {
            switch (rng() % 4) {
                case 0: s = static_cast<long long>(rng() % 4096); break;
                case 1: s = 0xffffffffLL - static_cast<long long>(rng() % 3); break;
                case 2: s = LLONG_MAX / std::max(n, 1) - static_cast<long long>(rng() % 3); break;
                default: s = static_cast<long long>(rng() >> 1); break;
            }
            overflows = overflows || memplan_detail::add_overflows(sum, s, &sum);
        }
        const long long want = overflows ? -2 : sum;
        CHECK_EQ(checked_total(size.data(), n), want);
        if (n > 0) {
            size[rng() % static_cast<unsigned>(n)] = -1 - static_cast<long long>(rng() % 100);
            CHECK_EQ(checked_total(size.data(), n), -1LL);
        }
        if (g_case_failures != 0) {
            std::printf("  (seed %u)\n", seed);
            return;
        }
    }
}

// Large free sets stress the treap: random intervals fed straight to allocate.
void test_random_intervals_against_reference() {
    for (unsigned seed = 1000; seed < 1030 && g_case_failures == 0; ++seed) {
        std::mt19937 rng(seed);
        const int positions = pick(rng, 1, 400);
        const int k = pick(rng, 0, 1500);
        std::vector<int> def(static_cast<std::size_t>(k)), use_end(static_cast<std::size_t>(k));
        for (int& d : def) d = pick(rng, 0, positions - 1);
        std::sort(def.begin(), def.end());
        for (std::size_t i = 0; i < def.size(); ++i) {
            const int span = pick(rng, 0, 3) == 0 ? positions : 8;
            use_end[i] = std::min(positions - 1, def[i] + pick(rng, 0, span));
        }
        std::vector<int> doff, foff, fo;
        ref_buckets(def, use_end, positions, &doff, &foff, &fo);
        std::vector<int> ov(static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) ov[static_cast<std::size_t>(i)] = i;
        std::shuffle(ov.begin(), ov.end(), rng);
        // Shuffle within each free bucket: freeing order must not matter.
        for (int p = 0; p < positions; ++p)
            std::shuffle(fo.begin() + foff[static_cast<std::size_t>(p)],
                         fo.begin() + foff[static_cast<std::size_t>(p) + 1], rng);
        for (int trial = 0; trial < 3; ++trial) {
            const std::vector<long long> sizes = random_sizes(rng, static_cast<std::size_t>(k));
            const Alloc a = allocate_raw(k, positions, doff, foff, fo, ov, sizes);
            const RefAlloc r = ref_allocate(def, use_end, sizes, positions);
            CHECK_EQ(a.rc, MEMPLAN_OK);
            if (a.rc != MEMPLAN_OK) break;
            CHECK_VEC(a.owner_slot, r.owner_slot);
            CHECK_VEC(a.capacity, r.capacity);
            CHECK_VEC(a.stats, (std::vector<long long>{static_cast<long long>(r.capacity.size()), r.peak, r.naive,
                                                       r.lower}));
        }
        if (g_case_failures != 0) std::printf("  (seed %u)\n", seed);
    }
}

}  // namespace

void run_slots_allocate_tests() {
    run_case("allocate tie-breaks", test_allocate_tie_breaks);
    run_case("zero-size owners", test_zero_size_owners);
    run_case("allocate bad arguments", test_allocate_bad_arguments);
    run_case("checked_total against a checked running sum", test_checked_total);
    run_case("overflow", test_overflow);
    run_case("random intervals vs reference", test_random_intervals_against_reference);
}

}  // namespace memplan_test
