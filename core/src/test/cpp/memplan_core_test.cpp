// SPDX-License-Identifier: Apache-2.0
// The one runner of the C++ tests (cppbuild.sh test | asan): each *_test.cpp
// tests the header of its name; their cases share test_support.h.

#include "test_support.h"

int main() {
    using namespace memplan_test;
    run_ort_malloc_threshold_tests();  // first: it needs the C library's heaps as the process starts
    run_compile_tests();
    run_in_place_links_tests();
    run_compile_helpers_tests();
    run_slots_allocate_tests();
    run_treap_priority_tests();
    run_free_slot_set_tests();
    run_offsets_plan_tests();
    run_gap_arena_tests();
    run_sweep_tests();
    run_rank_order_tests();
    run_first_fit_tests();
    run_window_fit_tests();
    run_valley_decoder_tests();
    run_packed_schedule_tests();
    run_request_sizes_tests();
    run_ort_arena_tests();
    run_ort_counting_allocator_tests();
    run_exact_packing_tests();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
