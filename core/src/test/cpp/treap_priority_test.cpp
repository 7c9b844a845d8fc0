// SPDX-License-Identifier: Apache-2.0
// Tests for treap_priority.h: the same priorities as TreapPriority.java.

#include "test_support.h"

namespace memplan_test {
namespace {

// TreapPriority.priority's values in Java: both engines build the same trees.
void test_priority_matches_java() {
    CHECK_EQ(memplan_offsets::priority(0), 0);
    CHECK_EQ(memplan_offsets::priority(1), 682038363);
    CHECK_EQ(memplan_offsets::priority(2), 410673539);
    CHECK_EQ(memplan_offsets::priority(12345), 505636078);
    CHECK_EQ(memplan_offsets::priority(INT_MAX), 2095449940);
}

}  // namespace

void run_treap_priority_tests() {
    run_case("treap priority matches Java", test_priority_matches_java);
}

}  // namespace memplan_test
