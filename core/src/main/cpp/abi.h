// SPDX-License-Identifier: Apache-2.0
// abi.h - C++ only: what crosses the JNI boundary (return codes, where each
// total is written, value flags, the largest effort) and the checks every
// entry point makes of its caller. MemplanNative names each macro; Java's
// NONE is FlatGraph.NONE. No Java class pairs with it (docs/design.md §12).

#ifndef MEMPLAN_ABI_H
#define MEMPLAN_ABI_H

#include <climits>
#include <cstdint>

// Return codes; MemplanNative names each (OK, CYCLE, ...) and maps it to a Java exception.
#define MEMPLAN_OK 0
#define MEMPLAN_CYCLE 1          // compile: graph has a cycle; *error_node = smallest node id that could not be ordered
#define MEMPLAN_BAD_ARGUMENT 2   // any argument inconsistency detected defensively
#define MEMPLAN_OVERFLOW 3       // allocate: sum of sizes overflows signed 64-bit
#define MEMPLAN_OUT_OF_MEMORY 4  // offsets plan: a search phase could not allocate the arrays its scratch does not hold

// Where memplan_allocate writes each total in stats[MEMPLAN_NUM_STATS]; MemplanNative
// names them the same (STAT_NUM_SLOTS, ...).
#define MEMPLAN_STAT_NUM_SLOTS 0
#define MEMPLAN_STAT_PEAK_BYTES 1
#define MEMPLAN_STAT_NAIVE_BYTES 2
#define MEMPLAN_STAT_LOWER_BOUND_BYTES 3
#define MEMPLAN_NUM_STATS 4

// Where memplan_offsets_plan writes each total (also MEMPLAN_NUM_STATS of them);
// MemplanNative names them the same (OFFSETS_STAT_PEAK_BYTES, ...).
#define MEMPLAN_OFFSETS_STAT_PEAK_BYTES 0
#define MEMPLAN_OFFSETS_STAT_NAIVE_BYTES 1
#define MEMPLAN_OFFSETS_STAT_LOWER_BOUND_BYTES 2
#define MEMPLAN_OFFSETS_STAT_RAN_SEARCH 3  // 1 when a phase past the sweep ran (fit or canonical)

// Where memplan_exact_pack writes each total (also MEMPLAN_NUM_STATS of them);
// MemplanNative names them the same (EXACT_STAT_HEIGHT_BYTES, ...).
#define MEMPLAN_EXACT_STAT_HEIGHT_BYTES 0
#define MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES 1  // proven: no plan is lower (raised by infeasible searches)
#define MEMPLAN_EXACT_STAT_STATUS 2             // 0 proven optimal, 1 node limit, 2 time limit, 3 too large, 4 target reached
#define MEMPLAN_EXACT_STAT_NODES 3

// Where memplan_compile_packed writes its counts in counts[MEMPLAN_COMPILE_NUM_COUNTS];
// MemplanNative names them the same (COMPILE_NUM_OWNERS, ...).
#define MEMPLAN_COMPILE_NUM_OWNERS 0
#define MEMPLAN_COMPILE_ERROR_NODE 1       // on MEMPLAN_CYCLE: the smallest node that could not be ordered
#define MEMPLAN_COMPILE_SCHEDULE_LENGTH 2  // ints of the schedule written, from index 0
#define MEMPLAN_COMPILE_NUM_COUNTS 3

// The largest effort memplan_offsets_plan accepts (PlanOptions.MAX_EFFORT): every
// budget it scales stays far inside a long long.
#define MEMPLAN_MAX_EFFORT 1000

// Value flag bits (FlatGraph.GRAPH_INPUT, ...).
#define MEMPLAN_GRAPH_INPUT 1
#define MEMPLAN_GRAPH_OUTPUT 2
#define MEMPLAN_INITIALIZER 4

namespace memplan_detail {

// No node, no slot, no owner: FlatGraph.NONE (and FreeSlotSet.NONE) on the Java
// side; -1 everywhere in both engines.
constexpr int NONE = -1;
constexpr int kKnownFlags = MEMPLAN_GRAPH_INPUT | MEMPLAN_GRAPH_OUTPUT | MEMPLAN_INITIALIZER;

// A CSR offsets array of n+1 entries must start at 0 and never decrease; then
// every range [off[i], off[i+1]) lies inside [0, off[n]).
inline bool valid_offsets(const int* off, int n, int* total) {
    if (off[0] != 0) return false;
    for (int i = 0; i < n; ++i) {
        if (off[i + 1] < off[i]) return false;
    }
    *total = off[n];
    return true;
}

// Checked signed addition (both operands >= 0 here): true on overflow.
inline bool add_overflows(long long a, long long b, long long* sum) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_add_overflow(a, b, sum);
#else
    if (b > 0 && a > LLONG_MAX - b) return true;
    *sum = a + b;
    return false;
#endif
}

}  // namespace memplan_detail

// The address of a direct buffer, for the JNI layer to cache: the Java side
// then passes addresses of buffers it keeps alive, and a per-request call
// crosses with primitives only (no GetDirectBufferAddress per argument).
inline long long memplan_address(const void* p) {
    return static_cast<long long>(reinterpret_cast<std::intptr_t>(p));
}

#endif  // MEMPLAN_ABI_H
