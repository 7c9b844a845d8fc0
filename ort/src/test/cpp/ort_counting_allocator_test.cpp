// SPDX-License-Identifier: Apache-2.0
// Tests for ort_counting_allocator.h without ONNX Runtime loaded: the blocks are counted while held,
// the peak stays, every block is aligned and given back or kept within the keep limit, a kept
// region is reused cut to size, and the entry points refuse bad arguments.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ort_counting_allocator.h"
#include "test_support.h"

namespace memplan_test {
namespace {

using memplan_ort::CountingBlocks;

void test_blocks_are_counted_while_held_and_the_peak_stays() {
    CountingBlocks blocks;
    void* a = blocks.allocate(100, false);
    void* b = blocks.allocate(1000, true);
    CHECK(a != nullptr);
    CHECK(b != nullptr);
    CHECK_EQ(reinterpret_cast<uintptr_t>(a) % CountingBlocks::kAlignment, 0u);
    CHECK_EQ(reinterpret_cast<uintptr_t>(b) % CountingBlocks::kAlignment, 0u);
    std::memset(a, 1, 100);  // the whole block is usable (ASan checks)
    std::memset(b, 2, 1000);
    CountingBlocks::Snapshot held = blocks.snapshot();
    CHECK_EQ(held.in_use, 1100);
    CHECK_EQ(held.max_in_use, 1100);
    CHECK_EQ(held.total_allocated, 1100 + 2 * static_cast<long long>(CountingBlocks::kHeader));
    CHECK_EQ(held.allocations, 2);
    CHECK_EQ(held.reserves, 1);
    blocks.release(b);
    void* c = blocks.allocate(10, false);
    CountingBlocks::Snapshot later = blocks.snapshot();
    CHECK_EQ(later.in_use, 110);
    CHECK_EQ(later.max_in_use, 1100);
    CHECK_EQ(later.allocations, 3);
    blocks.release(a);
    blocks.release(c);
    CountingBlocks::Snapshot empty = blocks.snapshot();
    CHECK_EQ(empty.in_use, 0);
    CHECK_EQ(empty.total_allocated, 0);
    CHECK_EQ(empty.max_in_use, 1100);
}

void test_a_restarted_peak_counts_only_what_follows() {
    CountingBlocks blocks;
    void* a = blocks.allocate(1000, false);
    void* b = blocks.allocate(500, false);
    blocks.release(a);
    blocks.restart_peak();
    CHECK_EQ(blocks.snapshot().max_in_use, 500);
    void* c = blocks.allocate(200, false);
    blocks.release(c);
    CHECK_EQ(blocks.snapshot().max_in_use, 700);
    blocks.release(b);
}

void test_the_held_peak_counts_headers_and_page_tails() {
    CountingBlocks blocks;
    void* a = blocks.allocate(1000, false);  // from the C library: its size and a 64-byte header
    CHECK_EQ(blocks.max_held(), 1064);
    void* b = blocks.allocate(70000, false);  // mapped alone: with its header, up to whole pages
    CHECK_EQ(blocks.max_held(), 1064 + 73728);
    blocks.release(b);
    blocks.restart_peak();
    CHECK_EQ(blocks.max_held(), 1064);  // from what is held now
    void* c = blocks.allocate(65536, false);
    blocks.release(c);
    CHECK_EQ(blocks.max_held(), 1064 + 69632);
    blocks.release(a);
    CHECK_EQ(blocks.snapshot().total_allocated, 0);
    CHECK_EQ(blocks.max_held(), 1064 + 69632);  // a peak stays until restarted
}

void test_the_log_records_sizes_in_order_while_on() {
    CountingBlocks blocks;
    void* before = blocks.allocate(10, false);
    blocks.start_log();
    void* a = blocks.allocate(300, false);
    void* b = blocks.allocate(70000, false);
    long long out[4] = {0, 0, 0, 0};
    CHECK_EQ(blocks.stop_log(out, 1), 2);
    CHECK_EQ(out[0], 300);
    CHECK_EQ(out[1], 0);  // only out_len copied
    void* after = blocks.allocate(20, false);
    CHECK_EQ(blocks.stop_log(out, 4), 2);
    CHECK_EQ(out[1], 70000);
    blocks.release(before);
    blocks.release(a);
    blocks.release(b);
    blocks.release(after);
    int count = 0;
    char err[128] = {0};
    CHECK_EQ(memplan_ort_counting_stop_log(nullptr, 1, &count, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_max_held(nullptr, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_stop_log(out, -1, &count, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_stop_log(out, 4, nullptr, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
}

void test_the_log_records_blocks_given_back_by_their_number() {
    CountingBlocks blocks;
    void* before = blocks.allocate(10, false);
    blocks.start_log();
    void* a = blocks.allocate(300, false);
    void* b = blocks.allocate(70000, false);
    blocks.release(before);  // handed out before the log: not recorded
    blocks.release(a);
    void* c = blocks.allocate(40, false);
    blocks.release(c);
    long long out[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(blocks.stop_log(out, 8), 5);
    CHECK_EQ(out[0], 300);
    CHECK_EQ(out[1], 70000);
    CHECK_EQ(out[2], -1);
    CHECK_EQ(out[3], 40);
    CHECK_EQ(out[4], -3);
    blocks.start_log();  // a new log: b, from the last one, is not recorded when given back
    void* d = blocks.allocate(50, false);
    blocks.release(b);
    blocks.release(d);
    CHECK_EQ(blocks.stop_log(out, 8), 2);
    CHECK_EQ(out[0], 50);
    CHECK_EQ(out[1], -1);
}

void test_nothing_is_handed_out_for_zero_or_impossible_sizes() {
    CountingBlocks blocks;
    CHECK(blocks.allocate(0, false) == nullptr);
    CHECK(blocks.allocate(SIZE_MAX, false) == nullptr);
    CHECK(blocks.allocate(SIZE_MAX - CountingBlocks::kHeader + 1, false) == nullptr);
    blocks.release(nullptr);  // ignored, as free(nullptr) is
    CountingBlocks::Snapshot s = blocks.snapshot();
    CHECK_EQ(s.in_use, 0);
    CHECK_EQ(s.allocations, 0);
    CHECK_EQ(s.total_allocated, 0);
}

void test_threads_count_exactly() {
    if (std::getenv("MEMPLAN_TEST_NO_THREADS") != nullptr) {
        std::printf("info: counting blocks across threads not run (MEMPLAN_TEST_NO_THREADS: qemu-user here never starts a thread)\n");
        return;
    }
    CountingBlocks blocks;
    constexpr int kThreads = 4;
    constexpr int kRounds = 2000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&blocks, t] {
            for (int i = 0; i < kRounds; i++) {
                void* p = blocks.allocate(static_cast<size_t>(64 + t), false);
                blocks.release(p);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    CountingBlocks::Snapshot s = blocks.snapshot();
    CHECK_EQ(s.in_use, 0);
    CHECK_EQ(s.total_allocated, 0);
    CHECK_EQ(s.allocations, kThreads * kRounds);
    CHECK(s.max_in_use >= 64);
    CHECK(s.max_in_use <= 64 * kThreads + 6);
}

constexpr long long kMiB = 1 << 20;

// What a mapped block of size bytes holds from the system: its header, rounded up to pages.
long long mapped(long long size) {
    const long long page = static_cast<long long>(CountingBlocks::kPage);
    return (size + static_cast<long long>(CountingBlocks::kHeader) + page - 1) / page * page;
}

void test_large_blocks_are_mapped_and_given_back_at_once() {
    CountingBlocks blocks;
    void* p = blocks.allocate(kMiB, false);
    CHECK(p != nullptr);
    std::memset(p, 3, kMiB);
    CHECK_EQ(blocks.snapshot().total_allocated, mapped(kMiB));
    blocks.release(p);
    CountingBlocks::Snapshot s = blocks.snapshot();
    CHECK_EQ(s.total_allocated, 0);  // nothing kept by default
    CHECK_EQ(s.kept, 0);
}

void test_a_kept_region_is_reused_cut_to_size() {
    CountingBlocks blocks;
    blocks.keep_up_to(4 * kMiB);
    void* first = blocks.allocate(kMiB, false);
    std::memset(first, 4, kMiB);
    blocks.release(first);
    CountingBlocks::Snapshot kept = blocks.snapshot();
    CHECK_EQ(kept.kept, mapped(kMiB));
    CHECK_EQ(kept.total_allocated, mapped(kMiB));
    CHECK_EQ(kept.in_use, 0);
    void* second = blocks.allocate(kMiB / 4, false);
    CHECK(second == first);  // the same pages, already faulted in
    std::memset(second, 5, kMiB / 4);
    CountingBlocks::Snapshot reused = blocks.snapshot();
    CHECK_EQ(reused.kept, 0);
    CHECK_EQ(reused.total_allocated, mapped(kMiB / 4));  // the part past the request was unmapped
    CHECK_EQ(reused.in_use, kMiB / 4);
    blocks.release(second);
    blocks.keep_up_to(0);
    CHECK_EQ(blocks.snapshot().total_allocated, 0);
    CHECK_EQ(blocks.snapshot().kept, 0);
}

void test_kept_regions_never_pass_the_limit() {
    CountingBlocks blocks;
    blocks.keep_up_to(2 * kMiB);
    void* a = blocks.allocate(kMiB + kMiB / 2, false);
    blocks.release(a);
    CHECK_EQ(blocks.snapshot().kept, mapped(kMiB + kMiB / 2));
    // too large for the kept region, and both together pass the limit: the kept one goes first
    void* b = blocks.allocate(kMiB + kMiB * 3 / 4, false);
    CountingBlocks::Snapshot s = blocks.snapshot();
    CHECK_EQ(s.kept, 0);
    CHECK_EQ(s.total_allocated, mapped(kMiB + kMiB * 3 / 4));
    // held past the limit by what is in use: a freed block is then given back, not kept
    void* c = blocks.allocate(kMiB, false);
    blocks.release(c);
    CHECK_EQ(blocks.snapshot().kept, 0);
    CHECK_EQ(blocks.snapshot().total_allocated, mapped(kMiB + kMiB * 3 / 4));
    blocks.release(b);
    CHECK_EQ(blocks.snapshot().kept, mapped(kMiB + kMiB * 3 / 4));
    blocks.keep_up_to(kMiB);  // a lower limit gives back what is kept past it now
    CHECK_EQ(blocks.snapshot().kept, 0);
    CHECK_EQ(blocks.snapshot().total_allocated, 0);
}

void test_reserved_blocks_do_not_count_against_the_keep_limit() {
    CountingBlocks blocks;
    blocks.keep_up_to(2 * kMiB);
    void* weights = blocks.allocate(3 * kMiB, true);  // past the limit alone: the session's own
    CHECK_EQ(blocks.snapshot().reserved, mapped(3 * kMiB));
    void* run = blocks.allocate(kMiB, false);
    blocks.release(run);
    CountingBlocks::Snapshot s = blocks.snapshot();
    CHECK_EQ(s.kept, mapped(kMiB));  // the runs hold 1 MiB of the 2 MiB they may keep
    CHECK_EQ(s.total_allocated, mapped(3 * kMiB) + mapped(kMiB));
    void* larger = blocks.allocate(kMiB + kMiB / 2, false);  // with the kept one past the limit: it goes first
    CHECK_EQ(blocks.snapshot().kept, 0);
    blocks.release(larger);
    CHECK_EQ(blocks.snapshot().kept, mapped(kMiB + kMiB / 2));
    blocks.release(weights);  // a reserved block freed counts as the runs' from then on
    s = blocks.snapshot();
    CHECK_EQ(s.reserved, 0);
    CHECK_EQ(s.kept, mapped(kMiB + kMiB / 2));  // 3 MiB more would pass the limit: given back
    CHECK_EQ(s.total_allocated, mapped(kMiB + kMiB / 2));
    blocks.keep_up_to(0);
    CHECK_EQ(blocks.snapshot().total_allocated, 0);
}

void test_own_blocks_are_counted_and_released_once() {
    char err[128] = {0};
    long long out[1] = {0};
    const long long before = memplan_ort::counting_allocator().blocks.snapshot().in_use;
    CHECK_EQ(memplan_ort_counting_allocate(kMiB, out, err, 128), MEMPLAN_ORT_OK);
    CHECK(out[0] != 0 && out[0] % 64 == 0);
    std::memset(reinterpret_cast<void*>(static_cast<intptr_t>(out[0])), 7, kMiB);
    CHECK_EQ(memplan_ort::counting_allocator().blocks.snapshot().in_use, before + kMiB);
    CHECK_EQ(memplan_ort_counting_release(out[0] + 64, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);  // not one handed out
    CHECK(std::string(err).find("not a block counting_allocate handed out") != std::string::npos);
    CHECK_EQ(memplan_ort_counting_release(out[0], err, 128), MEMPLAN_ORT_OK);
    CHECK_EQ(memplan_ort::counting_allocator().blocks.snapshot().in_use, before);
    CHECK_EQ(memplan_ort_counting_release(out[0], err, 128), MEMPLAN_ORT_BAD_ARGUMENT);  // twice
    CHECK_EQ(memplan_ort_counting_release(0, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_allocate(0, out, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_allocate(-1, out, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_allocate(MEMPLAN_ORT_MAX_COUNTED_BLOCK + 1, out, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_allocate(kMiB, nullptr, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
}

void test_entry_points_refuse_bad_arguments() {
    char err[128] = {0};
    CHECK_EQ(memplan_ort_register_counting_allocator(0, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("env must be non-zero") != std::string::npos);
    CHECK_EQ(memplan_ort_register_counting_allocator(8, err, 128), MEMPLAN_ORT_UNAVAILABLE);
    long long out[MEMPLAN_ORT_NUM_STATS] = {0};
    CHECK_EQ(memplan_ort_counting_stats(nullptr, MEMPLAN_ORT_NUM_STATS, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_counting_stats(out, MEMPLAN_ORT_NUM_STATS - 1, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("out must hold 5 longs") != std::string::npos);
    CHECK_EQ(memplan_ort_counting_stats(out, MEMPLAN_ORT_NUM_STATS, nullptr, 0), MEMPLAN_ORT_OK);
    CHECK_EQ(out[MEMPLAN_ORT_STAT_IN_USE], 0);  // nothing registered, nothing handed out
    CHECK_EQ(memplan_ort_counting_keep_up_to(-1, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("bytes must be >= 0") != std::string::npos);
    CHECK_EQ(memplan_ort_counting_keep_up_to(0, err, 128), MEMPLAN_ORT_OK);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) && !defined(__SANITIZE_ADDRESS__)
#define MEMPLAN_TEST_GLIBC_MALLOC 1  // glibc's own malloc, with mallinfo2, not a sanitizer's
#endif

#if defined(MEMPLAN_TEST_GLIBC_MALLOC)
/** Writes to a block, so the compiler may not elide the malloc and free, and frees it. */
void touch_and_free(void* p) {
    CHECK(p != nullptr);
    if (p != nullptr) {
        static_cast<volatile char*>(p)[0] = 1;
    }
    std::free(p);
}
#endif

void test_the_malloc_thresholds_are_checked_and_fixed() {
    char err[128] = {0};
    CHECK_EQ(memplan_ort_fix_malloc_thresholds(0, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK(std::string(err).find("bytes must be > 0 and <= 32 MiB") != std::string::npos);
    CHECK_EQ(memplan_ort_fix_malloc_thresholds(-1, err, 128), MEMPLAN_ORT_BAD_ARGUMENT);
    CHECK_EQ(memplan_ort_fix_malloc_thresholds(MEMPLAN_ORT_MAX_MALLOC_THRESHOLD + 1, err, 128),
             MEMPLAN_ORT_BAD_ARGUMENT);
#if defined(MEMPLAN_TEST_GLIBC_MALLOC)
    // larger than all the heaps' free space, so that no free chunk can serve it: the C library
    // either grows a heap for it or maps it alone
    const size_t mib = static_cast<size_t>(kMiB);
    const size_t size = (mallinfo2().fordblks / mib + 2) * mib;
    if (size + 2 * mib > 32 * mib) {
        std::printf("info: the heaps hold %zu MiB free; the threshold's effect is not checked\n", size / mib);
        return;
    }
    touch_and_free(std::malloc(size + 2 * mib));  // freed mapped, it raises both thresholds past size
    CHECK_EQ(memplan_ort_fix_malloc_thresholds(128 * 1024, err, 128), MEMPLAN_ORT_OK);
    size_t mapped = mallinfo2().hblkhd;
    void* alone = std::malloc(size);
    CHECK(alone != nullptr);
    static_cast<volatile char*>(alone)[0] = 1;
    CHECK(mallinfo2().hblkhd >= mapped + size);  // mapped alone, so given back when freed
    std::free(alone);
    CHECK_EQ(mallinfo2().hblkhd, mapped);
#endif
}

}  // namespace

void run_ort_counting_allocator_tests() {
    run_case("counting blocks count while held and keep the peak", test_blocks_are_counted_while_held_and_the_peak_stays);
    run_case("counting blocks restart their peak", test_a_restarted_peak_counts_only_what_follows);
    run_case("counting blocks keep their held peak", test_the_held_peak_counts_headers_and_page_tails);
    run_case("counting blocks log sizes while asked", test_the_log_records_sizes_in_order_while_on);
    run_case("counting blocks log the blocks given back by number", test_the_log_records_blocks_given_back_by_their_number);
    run_case("counting blocks hand out nothing for 0 or impossible sizes", test_nothing_is_handed_out_for_zero_or_impossible_sizes);
    run_case("counting blocks count exactly across threads", test_threads_count_exactly);
    run_case("counting blocks map large blocks and give them back", test_large_blocks_are_mapped_and_given_back_at_once);
    run_case("counting blocks reuse a kept region cut to size", test_a_kept_region_is_reused_cut_to_size);
    run_case("counting blocks keep regions only within the limit", test_kept_regions_never_pass_the_limit);
    run_case("counting blocks leave reserved blocks out of the keep limit", test_reserved_blocks_do_not_count_against_the_keep_limit);
    run_case("memplan's own counted blocks are counted and released once", test_own_blocks_are_counted_and_released_once);
    run_case("counting allocator entry points refuse bad arguments", test_entry_points_refuse_bad_arguments);
}

void run_ort_malloc_threshold_tests() {
    run_case("the malloc thresholds are checked and fixed", test_the_malloc_thresholds_are_checked_and_fixed);
}

}  // namespace memplan_test
