// SPDX-License-Identifier: Apache-2.0
// Tests for request_sizes.h: one request's sizes checked, aligned and copied in one pass.

#include <climits>
#include <random>
#include <vector>

#include "test_support.h"

namespace memplan_test {
namespace {

// What memplan_checked_sizes must return, computed the slow way (Schedule.plan's Java loop).
int reference(const std::vector<long long>& from, long long alignment, std::vector<long long>* to) {
    long long total = 0;
    to->assign(from.size(), 0);
    for (int o = 0; o < isize(from.size()); ++o) {
        const long long b = from[static_cast<std::size_t>(o)];
        (*to)[static_cast<std::size_t>(o)] = b;
        if (b < 0) return o;
        const long long rem = b % alignment;
        if (rem != 0 && b > LLONG_MAX - (alignment - rem)) return o;
        const long long aligned = rem == 0 ? b : b + (alignment - rem);
        if (total > LLONG_MAX - aligned) return o;
        total += aligned;
        (*to)[static_cast<std::size_t>(o)] = aligned;
    }
    return isize(from.size());
}

int run(const std::vector<long long>& from, long long alignment, std::vector<long long>* to) {
    to->assign(from.size(), -7);  // exactly n longs: ASan sees any write past them
    return memplan_checked_sizes(isize(from.size()), from.data(), isize(from.size()), alignment, to->data(),
                                 isize(to->size()));
}

void test_copies_and_aligns() {
    std::vector<long long> to;
    CHECK_EQ(run({0, 5, 64, 65}, 1, &to), 4);
    CHECK_VEC(to, (std::vector<long long>{0, 5, 64, 65}));
    CHECK_EQ(run({0, 5, 64, 65}, 64, &to), 4);  // a power of two: the mask
    CHECK_VEC(to, (std::vector<long long>{0, 64, 64, 128}));
    CHECK_EQ(run({0, 5, 6, 7}, 3, &to), 4);  // any other: the remainder
    CHECK_VEC(to, (std::vector<long long>{0, 6, 6, 9}));
    CHECK_EQ(run({}, 8, &to), 0);
}

void test_names_the_first_size_refused() {
    std::vector<long long> to;
    CHECK_EQ(run({4, -1, -2}, 1, &to), 1);  // negative: the size as read
    CHECK_EQ(to[1], -1);
    CHECK_EQ(run({4, -3}, 16, &to), 1);
    CHECK_EQ(to[1], -3);
    CHECK_EQ(run({LLONG_MAX - 1, 1, 1}, 1, &to), 2);  // the sum passes LLONG_MAX at owner 2
    CHECK_EQ(to[2], 1);
    CHECK_EQ(run({LLONG_MAX, 0}, 1, &to), 2);  // exactly LLONG_MAX is fine
    CHECK_EQ(run({1, LLONG_MAX}, 2, &to), 1);  // LLONG_MAX cannot round up to a multiple of 2
    CHECK_EQ(to[1], LLONG_MAX);
    CHECK_EQ(run({LLONG_MAX - 2}, 3, &to), 1);  // a multiple of 3 already: nothing to round
    CHECK_EQ(run({LLONG_MAX / 2, LLONG_MAX / 2 - 1}, 4, &to), 1);  // both round up; their sum overflows
    CHECK_EQ(to[1], LLONG_MAX / 2 - 1);
}

void test_refuses_inconsistent_arguments() {
    std::vector<long long> from{1, 2, 3};
    std::vector<long long> to(3, -7);
    CHECK_EQ(memplan_checked_sizes(-1, from.data(), 3, 1, to.data(), 3), -1);
    CHECK_EQ(memplan_checked_sizes(3, from.data(), 2, 1, to.data(), 3), -1);  // caller's array too short
    CHECK_EQ(memplan_checked_sizes(3, from.data(), 3, 1, to.data(), 2), -1);  // result array too short
    CHECK_EQ(memplan_checked_sizes(3, from.data(), 3, 0, to.data(), 3), -1);  // alignment below 1
    CHECK_EQ(memplan_checked_sizes(3, nullptr, 3, 1, to.data(), 3), -1);
    CHECK_EQ(memplan_checked_sizes(3, from.data(), 3, 1, nullptr, 3), -1);
    CHECK_VEC(to, (std::vector<long long>{-7, -7, -7}));  // nothing written
    CHECK_EQ(memplan_checked_sizes(0, nullptr, 0, 1, nullptr, 0), 0);
}

// Seeded sizes near every edge, against the slow reference.
void test_random_sizes_against_reference() {
    const long long alignments[] = {1, 2, 3, 8, 64, 100, 256, 1LL << 40, LLONG_MAX};
    for (unsigned seed = 0; seed < 400 && g_case_failures == 0; ++seed) {
        std::mt19937_64 rng(seed);
        const long long alignment = alignments[seed % (sizeof alignments / sizeof alignments[0])];
        const int n = static_cast<int>(rng() % 40);
        std::vector<long long> from(static_cast<std::size_t>(n));
        for (auto& b : from) {
            switch (rng() % 5) {
                case 0: b = static_cast<long long>(rng() % 1000); break;
                case 1: b = static_cast<long long>(rng() >> 1); break;                          // huge
                case 2: b = LLONG_MAX - static_cast<long long>(rng() % 300); break;
                case 3: b = static_cast<long long>(rng() % 50) - 1; break;                      // sometimes -1
                default: b = static_cast<long long>(rng() % (1LL << 30)); break;
            }
        }
        std::vector<long long> want;
        std::vector<long long> got;
        const int expected = reference(from, alignment, &want);
        CHECK_EQ(run(from, alignment, &got), expected);
        // Up to and including the owner named, the copy is the reference's.
        for (int o = 0; o < expected && o < n; ++o) CHECK_EQ(got[static_cast<std::size_t>(o)], want[static_cast<std::size_t>(o)]);
        if (expected < n) CHECK_EQ(got[static_cast<std::size_t>(expected)], from[static_cast<std::size_t>(expected)]);
    }
}

}  // namespace

void run_request_sizes_tests() {
    run_case("checked sizes copy and align", test_copies_and_aligns);
    run_case("checked sizes name the first refused", test_names_the_first_size_refused);
    run_case("checked sizes refuse inconsistent arguments", test_refuses_inconsistent_arguments);
    run_case("checked sizes match the reference on seeded sizes", test_random_sizes_against_reference);
}

}  // namespace memplan_test
