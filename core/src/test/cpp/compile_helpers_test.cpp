// SPDX-License-Identifier: Apache-2.0
// Tests for compile.h, helper by helper: each mirrors the Compile method of
// the same name.

#include "test_support.h"

namespace memplan_test {
namespace {

// ---------------------------------------------------------------- compile helpers, one by one
// Each helper of memplan_compile mirrors the Compile method of the same name.

void test_find_producers() {
    using memplan_detail::find_producers;
    using memplan_detail::NONE;
    // node 0: -> 1, 2; node 1: -> 3; value 0 has no producer
    const std::vector<int> out_off{0, 2, 3};
    std::vector<int> out{1, 2, 3};
    std::vector<int> producer(4, -7);
    CHECK(find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    CHECK_VEC(producer, (std::vector<int>{NONE, 0, 0, 1}));
    out = {1, 2, 1};  // value 1 produced twice
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    out = {1, 2, 4};  // out of range
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    out = {1, 2, -1};  // an output is never absent
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
}

// Producers and whether ids are already Kahn's order, in one walk; the marks
// it leaves on values read but never made are cleared by valid_values.
void test_find_producers_in_order() {
    using memplan_detail::find_producers_in_order;
    using memplan_detail::NONE;
    using memplan_detail::valid_values;
    // node 0: (0) -> 1; node 1: (1, absent) -> 2; value 0 a graph input
    std::vector<int> in_off{0, 1, 3}, in{0, 1, -1}, out_off{0, 1, 2}, out{1, 2};
    std::vector<int> producer(3, -7);
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), in.data(), out_off.data(), out.data(), producer.data()), 1);
    CHECK_EQ(producer[1], 0);
    CHECK_EQ(producer[2], 1);
    std::vector<int> root{0, 1, 2}, flags{MEMPLAN_GRAPH_INPUT, 0, 0};
    CHECK(valid_values(3, root.data(), flags.data(), producer.data()));
    CHECK_EQ(producer[0], NONE);  // the graph input's mark is gone
    // Swap the nodes: node 0 reads value 1, which node 1 makes.
    std::vector<int> in2{1, -1, 0}, in_off2{0, 2, 3}, out2{2, 1};
    CHECK_EQ(find_producers_in_order(3, 2, in_off2.data(), in2.data(), out_off.data(), out2.data(), producer.data()), 0);
    CHECK_EQ(producer[1], 1);
    CHECK_EQ(producer[2], 0);
    // A node reading its own output is out of order too (a cycle, which Kahn then names).
    std::vector<int> self_in{0, 1, 2};
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), self_in.data(), out_off.data(), out.data(), producer.data()), 0);
    // Out of range ids and a value produced twice are refused.
    std::vector<int> bad_in{0, 3, -1};
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), bad_in.data(), out_off.data(), out.data(), producer.data()), -1);
    bad_in = {0, -2, -1};
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), bad_in.data(), out_off.data(), out.data(), producer.data()), -1);
    std::vector<int> twice{1, 1};
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), in.data(), out_off.data(), twice.data(), producer.data()), -1);
    std::vector<int> out_of_range{1, 3};
    CHECK_EQ(find_producers_in_order(3, 2, in_off.data(), in.data(), out_off.data(), out_of_range.data(), producer.data()),
             -1);
}

void test_valid_values() {
    using memplan_detail::NONE;
    using memplan_detail::valid_values;
    // value 0 graph input, 1 produced, 2 a produced view of 1
    std::vector<int> producer{NONE, 0, 1};
    std::vector<int> root{0, 1, 1};
    std::vector<int> flags{MEMPLAN_GRAPH_INPUT, 0, MEMPLAN_GRAPH_OUTPUT};
    CHECK(valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = MEMPLAN_INITIALIZER;  // produced initializer
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = 8;  // unknown flag bit
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = 0;
    root = {1, 1, 1};  // the graph input is a view: never produced
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    root = {0, 2, 1};  // a root that is not its own root
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    root = {0, 1, 3};  // out of range
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
}

void test_successors_and_kahn_order() {
    using memplan_detail::build_successors;
    using memplan_detail::first_waiting;
    using memplan_detail::kahn_order;
    using memplan_detail::NONE;
    // value 0 graph input; node 0: 2, 2 -> 1 (reads 2 twice); node 1: 0 -> 2; node 2: 0, absent -> 3
    const std::vector<int> in_off{0, 2, 3, 5};
    std::vector<int> in{2, 2, 0, 0, NONE};
    const std::vector<int> producer{NONE, 0, 1, 2};
    std::vector<int> indegree(3), succ_off(4), succ(5), cursor(3), ready(3), order(3);
    CHECK(build_successors(4, 3, in_off.data(), in.data(), producer.data(), indegree.data(), succ_off.data(),
                           succ.data(), cursor.data()));
    CHECK_VEC(indegree, (std::vector<int>{2, 0, 0}));  // one edge per consuming input
    CHECK_VEC(succ_off, (std::vector<int>{0, 0, 2, 2}));
    CHECK_EQ(succ[0], 0);
    CHECK_EQ(succ[1], 0);
    CHECK_EQ(kahn_order(3, succ_off.data(), succ.data(), indegree.data(), ready.data(), order.data()), 3);
    CHECK_VEC(order, (std::vector<int>{1, 0, 2}));  // node 0 becomes ready after node 2 but has the smaller id
    CHECK_EQ(first_waiting(3, indegree.data()), NONE);

    in = {2, 2, 0, 0, -2};  // below NONE
    CHECK(!build_successors(4, 3, in_off.data(), in.data(), producer.data(), indegree.data(), succ_off.data(),
                            succ.data(), cursor.data()));

    // A cycle: node 0 reads node 1's output and node 1 reads node 0's; node 2 stands alone.
    const std::vector<int> cyc_off{0, 1, 2, 2};
    const std::vector<int> cyc_in{1, 0};
    const std::vector<int> cyc_producer{1, 0};
    CHECK(build_successors(2, 3, cyc_off.data(), cyc_in.data(), cyc_producer.data(), indegree.data(),
                           succ_off.data(), succ.data(), cursor.data()));
    CHECK_EQ(kahn_order(3, succ_off.data(), succ.data(), indegree.data(), ready.data(), order.data()), 1);
    CHECK_EQ(order[0], 2);
    CHECK_EQ(first_waiting(3, indegree.data()), 0);
}

void test_owners_use_ends_and_buckets() {
    using memplan_detail::bucket_by_use_end;
    using memplan_detail::collect_owners;
    using memplan_detail::compute_use_ends;
    using memplan_detail::NONE;
    // values: 0 graph input, 1 initializer; node 0: 0, 1 -> 2; node 1: 2 -> 3 (a view of 2);
    // node 2: 3 -> 4 (graph output). Order is 0, 1, 2.
    const std::vector<int> in_off{0, 2, 3, 4};
    const std::vector<int> in{0, 1, 2, 3};
    const std::vector<int> out_off{0, 1, 2, 3};
    const std::vector<int> out{2, 3, 4};
    const std::vector<int> root{0, 1, 2, 2, 4};
    const std::vector<int> flags{MEMPLAN_GRAPH_INPUT, MEMPLAN_INITIALIZER, 0, 0, MEMPLAN_GRAPH_OUTPUT};
    const std::vector<int> order{0, 1, 2};
    for (int include : {0, 1}) {
        std::vector<int> owner_index(5, -7), owner_value(5, -7), owner_def(5, -7), owner_use_end(5, -7),
            def_offsets(4, -7);
        const int count = collect_owners(5, 3, 3, out_off.data(), out.data(), root.data(), flags.data(), include,
                                         order.data(), owner_index.data(), owner_value.data(), owner_def.data(),
                                         owner_use_end.data(), def_offsets.data());
        compute_use_ends(5, 3, 3, in_off.data(), in.data(), root.data(), flags.data(), order.data(),
                         owner_index.data(), owner_use_end.data());
        const std::size_t k = static_cast<std::size_t>(count);
        owner_value.resize(k);
        owner_def.resize(k);
        owner_use_end.resize(k);
        std::vector<int> free_offsets(4, -7), free_owners(k, -7), cursor(3);
        bucket_by_use_end(count, 3, owner_use_end.data(), free_offsets.data(), free_owners.data(), cursor.data());
        if (include == 0) {
            CHECK_VEC(owner_value, (std::vector<int>{2, 4}));
            CHECK_VEC(owner_def, (std::vector<int>{0, 2}));
            CHECK_VEC(owner_use_end, (std::vector<int>{2, 2}));  // the view 3 is read at position 2
            CHECK_VEC(def_offsets, (std::vector<int>{0, 1, 1, 2}));
            CHECK_VEC(free_offsets, (std::vector<int>{0, 0, 0, 2}));
            CHECK_VEC(free_owners, (std::vector<int>{0, 1}));
            CHECK_EQ(owner_index[3], NONE);  // a view owns nothing
        } else {
            CHECK_VEC(owner_value, (std::vector<int>{0, 2, 4}));  // the graph input first, def 0
            CHECK_VEC(owner_def, (std::vector<int>{0, 0, 2}));
            CHECK_VEC(owner_use_end, (std::vector<int>{0, 2, 2}));
            CHECK_VEC(def_offsets, (std::vector<int>{0, 2, 2, 3}));
            CHECK_VEC(free_offsets, (std::vector<int>{0, 1, 1, 3}));
            CHECK_VEC(free_owners, (std::vector<int>{0, 1, 2}));
        }
        CHECK_EQ(owner_index[1], NONE);  // an initializer never owns
    }
}

}  // namespace

void run_compile_helpers_tests() {
    run_case("find producers and whether ids are in order", test_find_producers_in_order);
    run_case("find_producers", test_find_producers);
    run_case("valid_values", test_valid_values);
    run_case("build_successors, kahn_order, first_waiting", test_successors_and_kahn_order);
    run_case("collect_owners, compute_use_ends, bucket_by_use_end", test_owners_use_ends_and_buckets);
}

}  // namespace memplan_test
