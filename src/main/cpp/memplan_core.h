// SPDX-License-Identifier: Apache-2.0
// memplan_core.h - the native core of memplan: schedule compilation and
// greedy best-fit slot allocation (DESIGN.md sections 3, 5 and 8).
//
// Header-only C++17, standard library only. It is included by JavaCPP-generated
// JNI code, so the public entry points are plain global inline functions with
// C-style signatures; they never throw and report errors as return codes.
// Nothing here recurses: graph sizes are caller-controlled and a deep stack
// would crash the JVM.
//
// The Java side validates everything before it crosses the boundary, but this
// code still re-checks every count, offset and id before using it, so that a
// bug on either side becomes MEMPLAN_BAD_ARGUMENT instead of memory corruption.

#ifndef MEMPLAN_CORE_H
#define MEMPLAN_CORE_H

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>

// Return codes.
#define MEMPLAN_OK 0
#define MEMPLAN_CYCLE 1          // compile: graph has a cycle; *error_node = smallest node id that could not be ordered
#define MEMPLAN_BAD_ARGUMENT 2   // any argument inconsistency detected defensively
#define MEMPLAN_OVERFLOW 3       // allocate: sum of sizes overflows signed 64-bit
#define MEMPLAN_OUT_OF_MEMORY 4  // compile: its temporary arrays could not be allocated

// Value flag bits.
#define MEMPLAN_GRAPH_INPUT 1
#define MEMPLAN_GRAPH_OUTPUT 2
#define MEMPLAN_INITIALIZER 4

namespace memplan_detail {

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

// Owns compile's temporaries. malloc rather than new/vector so that running out
// of memory is a return code, never an exception crossing the JNI boundary.
class IntBuffer {
public:
    explicit IntBuffer(unsigned long long count) {
        if (count == 0) count = 1;  // malloc(0) may legally return null
        if (count <= SIZE_MAX / sizeof(int)) {
            data_ = static_cast<int*>(std::malloc(static_cast<std::size_t>(count) * sizeof(int)));
        }
    }
    ~IntBuffer() { std::free(data_); }
    IntBuffer(const IntBuffer&) = delete;
    IntBuffer& operator=(const IntBuffer&) = delete;
    int* get() const { return data_; }

private:
    int* data_ = nullptr;
};

// One slot of the free set, stored in the caller's scratch and indexed by slot
// id. The free set is a treap keyed by (cap, slot id) whose heap priority is a
// fixed hash of the slot id: deterministic, O(log F) expected per operation,
// and node links are plain ints, so it needs no allocation at all.
struct FreeNode {
    long long cap;       // key part 1: capacity (a copy, keeps a tree step in one cache line)
    int child[2];        // [0] smaller keys, [1] larger keys; -1 if none
    int occupant;        // owner index currently in the slot, -1 while the slot is free
    std::uint32_t prio;  // treap priority: parents have higher priority than children
};

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

// murmur3's fmix32: a bijection, so distinct slot ids never tie on priority.
inline std::uint32_t slot_priority(int slot) {
    std::uint32_t h = static_cast<std::uint32_t>(slot);
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

// Strict key order (cap, slot id): ties on capacity go to the lower slot id.
inline bool key_less(const FreeNode* nodes, int a, int b) {
    const long long ca = nodes[a].cap;
    const long long cb = nodes[b].cap;
    return ca < cb || (ca == cb && a < b);
}

// Joins two treaps where every key of a is below every key of b, writing the
// result into *link. Iterative: walks down the right spine of a and the left
// spine of b (short on average: the removed node's inner spines).
inline void treap_merge(FreeNode* nodes, int* link, int a, int b) {
    while (a >= 0 && b >= 0) {
        if (nodes[a].prio > nodes[b].prio) {
            *link = a;
            link = &nodes[a].child[1];
            a = *link;
        } else {
            *link = b;
            link = &nodes[b].child[0];
            b = *link;
        }
    }
    *link = a >= 0 ? a : b;
}

// Removes and returns the free slot with the smallest capacity >= need (ties:
// lowest slot id), or -1 when no free slot is large enough. Plain branches:
// with the few, repeating sizes of real graphs they predict well, and the
// benchmarks measured a branch-free descent twice as slow on a transformer.
inline int treap_take_ceiling(FreeNode* nodes, int* root, long long need) {
    int* link = root;
    int* found_link = nullptr;
    int found = -1;
    int cur = *root;
    while (cur >= 0) {
        if (nodes[cur].cap >= need) {
            // cur fits; anything better is a smaller key, so it is on the left.
            found = cur;
            found_link = link;
            link = &nodes[cur].child[0];
        } else {
            link = &nodes[cur].child[1];
        }
        cur = *link;
    }
    if (found >= 0) treap_merge(nodes, found_link, nodes[found].child[0], nodes[found].child[1]);
    return found;
}

// Inserts slot s (cap and prio already set, not currently in the tree).
inline void treap_insert(FreeNode* nodes, int* root, int s) {
    const std::uint32_t prio = nodes[s].prio;
    int* link = root;
    int cur = *root;
    // Descend while the existing node outranks s: s becomes a subtree root below.
    while (cur >= 0 && nodes[cur].prio > prio) {
        link = key_less(nodes, cur, s) ? &nodes[cur].child[1] : &nodes[cur].child[0];
        cur = *link;
    }
    // Split the subtree at cur into keys below s (its left) and above s (its right).
    int* lo = &nodes[s].child[0];
    int* hi = &nodes[s].child[1];
    while (cur >= 0) {
        if (key_less(nodes, cur, s)) {
            *lo = cur;
            lo = &nodes[cur].child[1];
            cur = *lo;
        } else {
            *hi = cur;
            hi = &nodes[cur].child[0];
            cur = *hi;
        }
    }
    *lo = -1;
    *hi = -1;
    *link = s;
}

}  // namespace memplan_detail

// Orders the nodes (Kahn, smallest ready id first), finds the owners and their
// intervals [def, useEnd], and buckets owners by def and by useEnd so that
// memplan_allocate never walks the graph. See the ABI notes in DESIGN.md 8.
inline int memplan_compile(
    int num_values, int num_nodes,
    const int* input_offsets,
    const int* inputs,
    const int* output_offsets,
    const int* outputs,
    const int* value_root,
    const int* value_flags,
    int include_graph_inputs,
    int* order,
    int* owner_value,
    int* owner_def,
    int* owner_use_end,
    int* def_offsets,
    int* free_offsets,
    int* free_owners,
    int* num_owners,
    int* error_node) {
    using namespace memplan_detail;
    if (num_owners == nullptr || error_node == nullptr) return MEMPLAN_BAD_ARGUMENT;
    *num_owners = 0;
    *error_node = -1;
    if (num_values < 0 || num_nodes < 0) return MEMPLAN_BAD_ARGUMENT;
    if (include_graph_inputs != 0 && include_graph_inputs != 1) return MEMPLAN_BAD_ARGUMENT;
    if (input_offsets == nullptr || output_offsets == nullptr || def_offsets == nullptr ||
        free_offsets == nullptr) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (num_nodes > 0 && order == nullptr) return MEMPLAN_BAD_ARGUMENT;
    if (num_values > 0 && (value_root == nullptr || value_flags == nullptr || owner_value == nullptr ||
                           owner_def == nullptr || owner_use_end == nullptr || free_owners == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    int num_inputs = 0;
    int num_outputs = 0;
    if (!valid_offsets(input_offsets, num_nodes, &num_inputs) ||
        !valid_offsets(output_offsets, num_nodes, &num_outputs)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if ((num_inputs > 0 && inputs == nullptr) || (num_outputs > 0 && outputs == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }

    const int V = num_values;
    const int N = num_nodes;
    const int P = N > 0 ? N : 1;  // positions; an empty graph still has position 0
    const int last = P - 1;

    // Temporaries, one block: producer[V], owner_index[V], indeg[N],
    // succ_off[N+1], heap[P] (also used as a fill cursor), succ[num_inputs].
    const unsigned long long total = 2ULL * static_cast<unsigned long long>(V) +
                                     2ULL * static_cast<unsigned long long>(N) + 1ULL +
                                     static_cast<unsigned long long>(P) +
                                     static_cast<unsigned long long>(num_inputs);
    IntBuffer buffer(total);
    if (buffer.get() == nullptr) return MEMPLAN_OUT_OF_MEMORY;
    int* const producer = buffer.get();
    int* const owner_index = producer + V;
    int* const indeg = owner_index + V;
    int* const succ_off = indeg + N;
    int* const heap = succ_off + N + 1;
    int* const succ = heap + P;

    for (int v = 0; v < V; ++v) {
        producer[v] = -1;
        owner_index[v] = -1;
    }
    for (int n = 0; n < N; ++n) {
        for (int k = output_offsets[n]; k < output_offsets[n + 1]; ++k) {
            const int v = outputs[k];
            if (v < 0 || v >= V || producer[v] >= 0) return MEMPLAN_BAD_ARGUMENT;
            producer[v] = n;
        }
    }
    for (int v = 0; v < V; ++v) {
        const int r = value_root[v];
        const int f = value_flags[v];
        if (r < 0 || r >= V) return MEMPLAN_BAD_ARGUMENT;
        // A root is its own root: a chain here would silently drop view uses.
        if (value_root[r] != r) return MEMPLAN_BAD_ARGUMENT;
        if ((f & ~kKnownFlags) != 0) return MEMPLAN_BAD_ARGUMENT;
        // DESIGN 1/2: a produced value is neither graph input nor initializer,
        // and a view is always produced. This also bounds the owner count by V.
        if (producer[v] >= 0 && (f & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) != 0) {
            return MEMPLAN_BAD_ARGUMENT;
        }
        if (r != v && producer[v] < 0) return MEMPLAN_BAD_ARGUMENT;
    }

    // Dependency edges producer -> consumer, one per consuming input slot, as CSR.
    // Loops stop at n < N and index n + 1 so that N == INT_MAX cannot overflow.
    succ_off[0] = 0;
    for (int n = 0; n < N; ++n) {
        indeg[n] = 0;
        succ_off[n + 1] = 0;
    }
    for (int n = 0; n < N; ++n) {
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u == -1) continue;  // absent optional input
            if (u < -1 || u >= V) return MEMPLAN_BAD_ARGUMENT;
            const int a = producer[u];
            if (a >= 0) {
                ++indeg[n];
                ++succ_off[a + 1];
            }
        }
    }
    for (int n = 0; n < N; ++n) succ_off[n + 1] += succ_off[n];
    for (int n = 0; n < N; ++n) heap[n] = succ_off[n];
    for (int n = 0; n < N; ++n) {
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u >= 0 && producer[u] >= 0) succ[heap[producer[u]]++] = n;
        }
    }

    // Kahn with a binary min-heap: the smallest ready node id runs first.
    // Ready nodes are pushed in ascending id, which is already a valid min-heap.
    int heap_size = 0;
    for (int n = 0; n < N; ++n) {
        if (indeg[n] == 0) heap[heap_size++] = n;
    }
    int placed = 0;
    while (heap_size > 0) {
        std::pop_heap(heap, heap + heap_size, std::greater<int>());
        const int n = heap[--heap_size];
        order[placed++] = n;
        for (int e = succ_off[n]; e < succ_off[n + 1]; ++e) {
            const int s = succ[e];
            if (--indeg[s] == 0) {
                heap[heap_size++] = s;
                std::push_heap(heap, heap + heap_size, std::greater<int>());
            }
        }
    }
    if (placed < N) {
        // Every node never ordered still waits on an edge.
        for (int n = 0; n < N; ++n) {
            if (indeg[n] > 0) {
                *error_node = n;
                break;
            }
        }
        return MEMPLAN_CYCLE;
    }

    // Owners in allocation order: included graph inputs (ascending id, def 0),
    // then each node's owner outputs in output order (def = its position).
    int count = 0;
    if (include_graph_inputs != 0) {
        for (int v = 0; v < V; ++v) {
            const int f = value_flags[v];
            if ((f & MEMPLAN_GRAPH_INPUT) != 0 && (f & MEMPLAN_INITIALIZER) == 0 && value_root[v] == v) {
                owner_index[v] = count;
                owner_value[count] = v;
                owner_def[count] = 0;
                owner_use_end[count] = 0;
                ++count;
            }
        }
    }
    def_offsets[0] = 0;
    for (int p = 0; p < N; ++p) {
        const int n = order[p];
        for (int k = output_offsets[n]; k < output_offsets[n + 1]; ++k) {
            const int v = outputs[k];
            if (value_root[v] == v && (value_flags[v] & MEMPLAN_INITIALIZER) == 0) {
                owner_index[v] = count;
                owner_value[count] = v;
                owner_def[count] = p;
                owner_use_end[count] = p;
                ++count;
            }
        }
        def_offsets[p + 1] = count;
    }
    if (N == 0) def_offsets[1] = count;

    // useEnd: every read of the owner or of a view folding to it, and graph
    // outputs live to the last position.
    for (int p = 0; p < N; ++p) {
        const int n = order[p];
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u < 0) continue;
            const int i = owner_index[value_root[u]];
            if (i >= 0 && owner_use_end[i] < p) owner_use_end[i] = p;
        }
    }
    for (int v = 0; v < V; ++v) {
        if ((value_flags[v] & MEMPLAN_GRAPH_OUTPUT) == 0) continue;
        const int i = owner_index[value_root[v]];
        if (i >= 0) owner_use_end[i] = last;
    }

    // Free buckets by useEnd: a stable counting sort keeps ascending owner index.
    free_offsets[0] = 0;
    for (int p = 0; p < P; ++p) free_offsets[p + 1] = 0;
    for (int i = 0; i < count; ++i) ++free_offsets[owner_use_end[i] + 1];
    for (int p = 0; p < P; ++p) free_offsets[p + 1] += free_offsets[p];
    for (int p = 0; p < P; ++p) heap[p] = free_offsets[p];
    for (int i = 0; i < count; ++i) free_owners[heap[owner_use_end[i]]++] = i;

    *num_owners = count;
    return MEMPLAN_OK;
}

// The address of a direct buffer, for the JNI layer to cache: the Java side
// then passes addresses of buffers it keeps alive, and a per-request call
// crosses with primitives only (no GetDirectBufferAddress per argument).
inline long long memplan_address(const void* p) {
    return static_cast<long long>(reinterpret_cast<std::intptr_t>(p));
}

// Bytes of scratch memplan_allocate needs: one FreeNode per possible slot
// (there are never more slots than owners).
inline long long memplan_allocate_scratch_bytes(int num_owners) {
    if (num_owners <= 0) return 0;
    return static_cast<long long>(num_owners) * static_cast<long long>(sizeof(memplan_detail::FreeNode));
}

// Greedy best fit (DESIGN 5) over a compiled schedule: the per-request hot
// path. One pass over positions; no graph walk and no heap allocation.
inline int memplan_allocate(
    int num_values, int num_owners, int num_positions,
    const int* def_offsets, const int* free_offsets, const int* free_owners,
    const int* owner_value,
    const long long* owner_size,
    int* owner_slot,
    int* value_slot,  // optional: nullptr when the caller derives slot per value itself
    long long* slot_capacity,
    long long* stats,
    void* scratch, long long scratch_bytes) {
    using memplan_detail::FreeNode;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    stats[0] = stats[1] = stats[2] = stats[3] = 0;
    if (num_values < 0 || num_owners < 0 || num_positions < 1) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > num_values) return MEMPLAN_BAD_ARGUMENT;  // owners are distinct values
    if (def_offsets == nullptr || free_offsets == nullptr) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > 0 && (free_owners == nullptr || owner_value == nullptr || owner_size == nullptr ||
                           owner_slot == nullptr || slot_capacity == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const long long needed = memplan_allocate_scratch_bytes(num_owners);
    if (scratch_bytes < needed) return MEMPLAN_BAD_ARGUMENT;
    if (needed > 0 && (scratch == nullptr ||
                       reinterpret_cast<std::uintptr_t>(scratch) % alignof(FreeNode) != 0)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const int P = num_positions;
    // Each owner is allocated exactly once and freed exactly once; the
    // per-position checks below make the ranges contiguous and in bounds.
    if (def_offsets[0] != 0 || free_offsets[0] != 0 || def_offsets[P] != num_owners ||
        free_offsets[P] != num_owners) {
        return MEMPLAN_BAD_ARGUMENT;
    }

    if (value_slot != nullptr) {
        for (int v = 0; v < num_values; ++v) value_slot[v] = -1;
    }

    FreeNode* const nodes = static_cast<FreeNode*>(scratch);
    int root = -1;  // treap of free slots
    int num_slots = 0;
    long long naive = 0;
    long long peak = 0;
    long long live = 0;
    long long lower = 0;
    int next_owner = 0;  // owners [0, next_owner) have slots
    int next_free = 0;   // free_owners[0, next_free) have been released

    for (int p = 0; p < P; ++p) {
        const int def_end = def_offsets[p + 1];
        if (def_end < next_owner || def_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_owner < def_end; ++next_owner) {
            const long long size = owner_size[next_owner];
            const int v = owner_value[next_owner];
            if (size < 0 || v < 0 || v >= num_values) return MEMPLAN_BAD_ARGUMENT;
            if (value_slot != nullptr && value_slot[v] != -1) return MEMPLAN_BAD_ARGUMENT;  // value listed as two owners
            // peak and live never exceed naive (a new slot's capacity is its
            // opener's size), so checking naive covers all three sums.
            if (memplan_detail::add_overflows(naive, size, &naive)) return MEMPLAN_OVERFLOW;
            live += size;
            int s = memplan_detail::treap_take_ceiling(nodes, &root, size);
            if (s < 0) {
                s = num_slots++;
                nodes[s].cap = size;
                nodes[s].prio = memplan_detail::slot_priority(s);
                slot_capacity[s] = size;
                peak += size;
            }
            nodes[s].occupant = next_owner;
            owner_slot[next_owner] = s;
            if (value_slot != nullptr) value_slot[v] = s;
        }
        if (live > lower) lower = live;

        // Free after allocating: a node's outputs never land on its own inputs.
        const int free_end = free_offsets[p + 1];
        if (free_end < next_free || free_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_free < free_end; ++next_free) {
            const int i = free_owners[next_free];
            // Only an owner that already has a slot, and still holds it, can be freed.
            if (i < 0 || i >= next_owner) return MEMPLAN_BAD_ARGUMENT;
            const int s = owner_slot[i];
            if (nodes[s].occupant != i) return MEMPLAN_BAD_ARGUMENT;
            nodes[s].occupant = -1;
            live -= owner_size[i];
            memplan_detail::treap_insert(nodes, &root, s);
        }
    }

    stats[0] = num_slots;
    stats[1] = peak;
    stats[2] = naive;
    stats[3] = lower;
    return MEMPLAN_OK;
}


// ---------------------------------------------------------------------------
// Offsets planning (DESIGN 5b): every buffer gets a byte offset in one arena.
// Mirrors dev.memplan.engine.OffsetPlanner phase for phase and name for name;
// read the Java class for the why of each phase. Scratch is malloc'd here and
// freed on return; running out of memory is MEMPLAN_OUT_OF_MEMORY.
// ---------------------------------------------------------------------------
namespace memplan_offsets {

constexpr long long kPopsPerBuffer = 32;
constexpr long long kPopsAllowance = 1024;
constexpr long long kImproveStepsPerEffort = 64;
constexpr long long kFlatSkylineLength = 64;
constexpr int kRankSize = 0;
constexpr int kRankArea = 1;
constexpr int kRankLength = 2;
constexpr int kNumRanks = 3;

// malloc'd array freed on scope exit; get() is null when the allocation failed.
template <typename T>
class Array {
public:
    explicit Array(long long count) {
        if (count < 1) count = 1;
        if (static_cast<unsigned long long>(count) <= SIZE_MAX / sizeof(T)) {
            data_ = static_cast<T*>(std::calloc(static_cast<std::size_t>(count), sizeof(T)));
        }
    }
    ~Array() { std::free(data_); }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    T* get() const { return data_; }
    T& operator[](long long i) const { return data_[i]; }

private:
    T* data_ = nullptr;
};

// murmur3's fmix32 of a segment id, 31 bits: the same order as Java's int.
inline int priority(int id) {
    std::uint32_t h = static_cast<std::uint32_t>(id);
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return static_cast<int>(h >> 1);
}

inline unsigned long long xorshift(unsigned long long x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

inline long long lower_bound(int num_positions, int n, const int* def, const int* use_end,
                             const long long* size, long long* delta) {
    for (int p = 0; p <= num_positions; ++p) delta[p] = 0;
    for (int i = 0; i < n; ++i) {
        delta[def[i]] += size[i];
        delta[use_end[i] + 1] -= size[i];
    }
    long long live = 0;
    long long bound = 0;
    for (int p = 0; p < num_positions; ++p) {
        live += delta[p];
        if (live > bound) bound = live;
    }
    return bound;
}

inline long long expected_pops(int num_positions, int n, const int* def, const int* use_end,
                               const long long* size, long long* delta) {
    for (int p = 0; p <= num_positions; ++p) delta[p] = 0;
    long long sized = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            delta[def[i]]++;
            delta[use_end[i] + 1]--;
            sized++;
        }
    }
    long long live = 0;
    long long live_sum = 0;
    for (int p = 0; p < num_positions; ++p) {
        live += delta[p];
        live_sum += live;
    }
    const long long average_live = live_sum / num_positions;
    return sized * (2 + average_live / 8);
}

// Buffers grouped by key[i] (a position), ascending index within a group: CSR.
inline void bucket(int num_positions, const int* key, int n, int* offsets, int* cursor, int* out) {
    for (int p = 0; p <= num_positions; ++p) offsets[p] = 0;
    for (int i = 0; i < n; ++i) offsets[key[i] + 1]++;
    for (int p = 0; p < num_positions; ++p) offsets[p + 1] += offsets[p];
    for (int p = 0; p < num_positions; ++p) cursor[p] = offsets[p];
    for (int i = 0; i < n; ++i) out[cursor[key[i]]++] = i;
}

// The sweep's memory: segments in offset order (buffers: id = index; free
// gaps: ids from n), free gaps also in a treap keyed by (length, start).
struct GapArena {
    int n;
    long long* seg_start;
    long long* seg_length;
    int* prev;
    int* next;
    int* left;
    int* right;
    int* free_ids;
    int num_free_ids;
    int root = -1;
    int last = -1;
    long long top = 0;

    void init() {
        const int segments = 2 * n + 1;
        for (int k = 0; k <= n; ++k) free_ids[k] = segments - 1 - k;
        num_free_ids = n + 1;
    }

    long long allocate(int b, long long bytes) {
        int gap = take_ceiling(bytes);
        if (gap < 0 && last >= n) {
            gap = last;
            treap_remove(gap);
            top = seg_start[gap] + bytes;
            seg_length[gap] = bytes;
        }
        if (gap < 0) {
            seg_start[b] = top;
            seg_length[b] = bytes;
            link(last, b, -1);
            top += bytes;
            return seg_start[b];
        }
        seg_start[b] = seg_start[gap];
        seg_length[b] = bytes;
        const long long rest = seg_length[gap] - bytes;
        link(prev[gap], b, next[gap]);
        if (rest > 0) {
            seg_start[gap] = seg_start[b] + bytes;
            seg_length[gap] = rest;
            link(b, gap, next[b]);
            treap_insert(gap);
        } else {
            free_ids[num_free_ids++] = gap;
        }
        return seg_start[b];
    }

    void release(int b) {
        long long start = seg_start[b];
        long long end = start + seg_length[b];
        int before = prev[b];
        int after = next[b];
        if (before >= n) {
            treap_remove(before);
            start = seg_start[before];
            free_ids[num_free_ids++] = before;
            before = prev[before];
        }
        if (after >= n) {
            treap_remove(after);
            end = seg_start[after] + seg_length[after];
            free_ids[num_free_ids++] = after;
            after = next[after];
        }
        if (after < 0) {
            top = start;
            last = before;
            if (before >= 0) next[before] = -1;
            return;
        }
        const int gap = free_ids[--num_free_ids];
        seg_start[gap] = start;
        seg_length[gap] = end - start;
        link(before, gap, after);
        treap_insert(gap);
    }

    void link(int a, int s, int c) {
        prev[s] = a;
        next[s] = c;
        if (a >= 0) next[a] = s;
        if (c >= 0) {
            prev[c] = s;
        } else {
            last = s;
        }
    }

    bool key_less(int a, int b) const {
        return seg_length[a] < seg_length[b] || (seg_length[a] == seg_length[b] && seg_start[a] < seg_start[b]);
    }

    int take_ceiling(long long bytes) {
        int found = -1;
        int found_parent = -1;
        int parent = -1;
        int cur = root;
        while (cur >= 0) {
            if (seg_length[cur] >= bytes) {
                found = cur;
                found_parent = parent;
                parent = cur;
                cur = left[cur];
            } else {
                parent = cur;
                cur = right[cur];
            }
        }
        if (found >= 0) unlink(found, found_parent);
        return found;
    }

    void treap_insert(int s) {
        left[s] = -1;
        right[s] = -1;
        root = insert_into(root, s);
    }

    int insert_into(int t, int s) {
        int parent = -1;
        bool parent_left = false;
        int cur = t;
        const int rank = priority(s);
        while (cur >= 0 && priority(cur) > rank) {
            parent = cur;
            parent_left = key_less(s, cur);
            cur = parent_left ? left[cur] : right[cur];
        }
        int lo = -1;
        int hi = -1;
        int lo_tail = -1;
        int hi_tail = -1;
        while (cur >= 0) {
            if (key_less(cur, s)) {
                if (lo_tail < 0) {
                    lo = cur;
                } else {
                    right[lo_tail] = cur;
                }
                lo_tail = cur;
                cur = right[cur];
            } else {
                if (hi_tail < 0) {
                    hi = cur;
                } else {
                    left[hi_tail] = cur;
                }
                hi_tail = cur;
                cur = left[cur];
            }
        }
        if (lo_tail >= 0) right[lo_tail] = -1;
        if (hi_tail >= 0) left[hi_tail] = -1;
        left[s] = lo;
        right[s] = hi;
        if (parent < 0) return s;
        if (parent_left) {
            left[parent] = s;
        } else {
            right[parent] = s;
        }
        return t;
    }

    void treap_remove(int s) {
        int parent = -1;
        int cur = root;
        while (cur != s) {
            parent = cur;
            cur = key_less(s, cur) ? left[cur] : right[cur];
        }
        unlink(s, parent);
    }

    void unlink(int s, int parent) {
        const int merged = merge(left[s], right[s]);
        if (parent < 0) {
            root = merged;
        } else if (left[parent] == s) {
            left[parent] = merged;
        } else {
            right[parent] = merged;
        }
    }

    int merge(int a, int b) {
        int result = -1;
        int tail = -1;
        bool tail_right = false;
        while (a >= 0 && b >= 0) {
            int take;
            bool take_right;
            if (priority(a) > priority(b)) {
                take = a;
                a = right[a];
                take_right = true;
            } else {
                take = b;
                b = left[b];
                take_right = false;
            }
            result = attach(result, tail, tail_right, take);
            tail = take;
            tail_right = take_right;
        }
        return attach(result, tail, tail_right, a >= 0 ? a : b);
    }

    int attach(int result, int tail, bool on_right, int child) {
        if (tail < 0) return child;
        if (on_right) {
            right[tail] = child;
        } else {
            left[tail] = child;
        }
        return result;
    }
};

// Returns the arena size; scratch as sized by memplan_offsets_plan.
inline long long sweep_best_fit(int num_positions, int n, const int* def, const int* use_end, const long long* size,
                                long long* offset, int* start_offsets, int* starts, int* end_offsets, int* ends,
                                int* cursor, GapArena& arena) {
    bucket(num_positions, def, n, start_offsets, cursor, starts);
    bucket(num_positions, use_end, n, end_offsets, cursor, ends);
    arena.init();
    long long peak = 0;
    for (int p = 0; p < num_positions; ++p) {
        for (int k = start_offsets[p]; k < start_offsets[p + 1]; ++k) {
            const int i = starts[k];
            offset[i] = size[i] == 0 ? 0 : arena.allocate(i, size[i]);
        }
        if (arena.top > peak) peak = arena.top;
        for (int k = end_offsets[p]; k < end_offsets[p + 1]; ++k) {
            const int i = ends[k];
            if (size[i] != 0) arena.release(i);
        }
    }
    return peak;
}

inline int compare_descending(long long a1, long long b1, long long a2, long long b2) {
    if (a1 != b1) return a1 > b1 ? -1 : 1;
    if (a2 != b2) return a2 > b2 ? -1 : 1;
    return 0;
}

inline int compare_products_descending(long long a, long long la, long long b, long long lb) {
    __extension__ typedef unsigned __int128 u128;  // exact products, as Java's multiplyHigh gives
    const u128 pa = static_cast<u128>(a) * static_cast<u128>(la);
    const u128 pb = static_cast<u128>(b) * static_cast<u128>(lb);
    if (pa != pb) return pa > pb ? -1 : 1;
    return 0;
}

inline bool rank_before(int rank, int x, int y, const int* def, const int* use_end, const long long* size) {
    const long long length_x = static_cast<long long>(use_end[x]) - def[x] + 1;
    const long long length_y = static_cast<long long>(use_end[y]) - def[y] + 1;
    int c;
    if (rank == kRankSize) {
        c = compare_descending(size[x], size[y], length_x, length_y);
    } else if (rank == kRankLength) {
        c = compare_descending(length_x, length_y, size[x], size[y]);
    } else {
        c = compare_products_descending(size[x], length_x, size[y], length_y);
        if (c == 0) c = compare_descending(size[x], size[y], length_x, length_y);
    }
    return c < 0 || (c == 0 && x < y);
}

constexpr int kRadixDigits = 8;
constexpr int kRadixBuckets = 256;

// Sorts order[0, m) stably by key[order[k]] descending (keys >= 0): least
// significant byte first, skipping a byte that every key shares.
inline void radix_sort_descending(int* order, int m, const long long* key, int* scratch, int* histogram) {
    for (int i = 0; i < kRadixDigits * kRadixBuckets; ++i) histogram[i] = 0;
    for (int k = 0; k < m; ++k) {
        const unsigned long long v = static_cast<unsigned long long>(key[order[k]]);
        for (int d = 0; d < kRadixDigits; ++d) histogram[d * kRadixBuckets + static_cast<int>((v >> (8 * d)) & 0xFF)]++;
    }
    int* from = order;
    int* to = scratch;
    for (int d = 0; d < kRadixDigits; ++d) {
        int* h = histogram + d * kRadixBuckets;
        bool shared = false;
        for (int b = 0; b < kRadixBuckets; ++b) {
            if (h[b] == m) {
                shared = true;
                break;
            }
        }
        if (shared) continue;
        int sum = 0;
        for (int b = kRadixBuckets - 1; b >= 0; --b) {
            const int count = h[b];
            h[b] = sum;
            sum += count;
        }
        for (int k = 0; k < m; ++k) {
            const int i = from[k];
            to[h[static_cast<int>((static_cast<unsigned long long>(key[i]) >> (8 * d)) & 0xFF)]++] = i;
        }
        std::swap(from, to);
    }
    if (from != order) {
        for (int k = 0; k < m; ++k) order[k] = from[k];
    }
}

// Stable bottom-up merge sort of order[0, m) by rank_before.
inline void merge_sort_by_rank(int rank, int* order, int m, const int* def, const int* use_end,
                               const long long* size, int* scratch) {
    for (int width = 1; width < m; width *= 2) {
        for (int lo = 0; lo < m - width; lo += 2 * width) {
            const int mid = lo + width;
            const int hi = std::min(lo + 2 * width, m);
            int a = lo;
            int b = mid;
            int out = lo;
            while (a < mid && b < hi) {
                scratch[out++] = rank_before(rank, order[b], order[a], def, use_end, size) ? order[b++] : order[a++];
            }
            while (a < mid) scratch[out++] = order[a++];
            while (b < hi) scratch[out++] = order[b++];
            for (int k = lo; k < hi; ++k) order[k] = scratch[k];
        }
    }
}

// Buffers with a size, in rank order (see OffsetPlanner.rankOrder); returns
// their count. length holds n longs and histogram kRadixDigits * kRadixBuckets ints.
inline int rank_order(int rank, int n, const int* def, const int* use_end, const long long* size, int* order,
                      int* scratch, long long* length, int* histogram) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) order[m++] = i;
    }
    if (rank == kRankSize || rank == kRankLength) {
        for (int i = 0; i < n; ++i) length[i] = static_cast<long long>(use_end[i]) - def[i] + 1;
        const long long* secondary = rank == kRankSize ? length : size;
        const long long* primary = rank == kRankSize ? size : length;
        radix_sort_descending(order, m, secondary, scratch, histogram);
        radix_sort_descending(order, m, primary, scratch, histogram);
        return m;
    }
    merge_sort_by_rank(rank, order, m, def, use_end, size, scratch);
    return m;
}

// Highest top over positions: range max and range raise (see OffsetPlanner.SkylineTree):
// a plain array of heights when flat, else a segment tree with max-tags.
struct SkylineTree {
    bool flat;
    int leaves;
    int num_positions;
    long long* max_;
    long long* tag;

    void reset() {
        const int cells = flat ? num_positions : 2 * leaves;
        for (int i = 0; i < cells; ++i) max_[i] = 0;
        if (!flat) {
            for (int i = 0; i < cells; ++i) tag[i] = 0;
        }
    }

    long long max(int a, int b) const {
        long long result = 0;
        if (flat) {
            for (int t = a; t <= b; ++t) result = std::max(result, max_[t]);
            return result;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) result = std::max(result, tag[i]);
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) result = std::max(result, tag[i]);
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) result = std::max(result, max_[lo++]);
            if (hi & 1) result = std::max(result, max_[--hi]);
        }
        return result;
    }

    void raise(int a, int b, long long value) {
        if (flat) {
            for (int t = a; t <= b; ++t) max_[t] = value;
            return;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) max_[i] = std::max(max_[i], value);
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) max_[i] = std::max(max_[i], value);
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) {
                max_[lo] = std::max(max_[lo], value);
                tag[lo] = std::max(tag[lo], value);
                lo++;
            }
            if (hi & 1) {
                --hi;
                max_[hi] = std::max(max_[hi], value);
                tag[hi] = std::max(tag[hi], value);
            }
        }
    }
};

// MiniMalloc's canonical decoder (see OffsetPlanner.Canonical).
struct Canonical {
    int n;
    const int* def;
    const int* use_end;
    const long long* size;
    SkylineTree skyline;
    int* heap;
    long long* key;
    long long pops = 0;

    bool heap_less(int a, int b) const { return key[a] < key[b] || (key[a] == key[b] && a < b); }

    void sift_down(int r, int heap_size) {
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && heap_less(heap[c + 1], heap[c])) c++;
            if (!heap_less(heap[c], r)) break;
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = r;
    }

    void sift_up(int r, int i) {
        while (i > 0) {
            const int parent = (i - 1) >> 1;
            if (!heap_less(r, heap[parent])) break;
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = r;
    }

    long long decode(const int* by_rank, int m, long long budget, long long* offset) {
        skyline.reset();
        for (int i = 0; i < n; ++i) offset[i] = 0;
        pops = 0;
        long long peak = 0;
        // Level 0 in rank order (see OffsetPlanner.Canonical.decode).
        int heap_size = 0;
        for (int r = 0; r < m; ++r) {
            if (++pops > budget) return -1;
            const int b = by_rank[r];
            const long long lowest = skyline.max(def[b], use_end[b]);
            if (lowest != 0) {
                key[r] = lowest;
                sift_up(r, heap_size++);
                continue;
            }
            skyline.raise(def[b], use_end[b], size[b]);
            peak = std::max(peak, size[b]);
        }
        while (heap_size > 0) {
            if (++pops > budget) return -1;
            const int r = heap[0];
            const int b = by_rank[r];
            const long long lowest = skyline.max(def[b], use_end[b]);
            if (lowest != key[r]) {
                key[r] = lowest;
                sift_down(r, heap_size);
                continue;
            }
            heap_size--;
            if (heap_size > 0) sift_down(heap[heap_size], heap_size);
            offset[b] = lowest;
            const long long top_of_b = lowest + size[b];
            skyline.raise(def[b], use_end[b], top_of_b);
            if (top_of_b > peak) peak = top_of_b;
        }
        return peak;
    }
};

inline int critical_rank(const int* by_rank, int m, const long long* offset, const long long* size, long long peak,
                         unsigned long long random) {
    int count = 0;
    for (int r = 0; r < m; ++r) {
        const int b = by_rank[r];
        if (offset[b] + size[b] == peak) count++;
    }
    unsigned long long pick = random % static_cast<unsigned long long>(count > 0 ? count : 1);
    for (int r = 0; r < m; ++r) {
        const int b = by_rank[r];
        if (offset[b] + size[b] == peak && pick-- == 0) return r;
    }
    return 0;
}

// Local search on the rank (see OffsetPlanner.improve); by_rank is modified.
inline long long improve(Canonical& canonical, int* by_rank, int m, long long steps, long long budget,
                         long long bound, long long peak, long long* offset, long long* kept, long long* candidate) {
    long long current = canonical.decode(by_rank, m, budget, kept);
    if (m < 2 || current < 0) return peak;
    unsigned long long random = 0x9E3779B97F4A7C15ULL;
    for (long long step = 0; step < steps && peak > bound; ++step) {
        random = xorshift(random);
        const int critical = critical_rank(by_rank, m, kept, canonical.size, current, random);
        random = xorshift(random);
        const int other = static_cast<int>(random % static_cast<unsigned long long>(m));
        if (other == critical) continue;
        std::swap(by_rank[critical], by_rank[other]);
        const long long p = canonical.decode(by_rank, m, budget, candidate);
        if (p < 0 || p > current) {
            std::swap(by_rank[critical], by_rank[other]);
            continue;
        }
        std::swap(kept, candidate);
        current = p;
        if (p < peak) {
            peak = p;
            for (int i = 0; i < canonical.n; ++i) offset[i] = kept[i];
        }
    }
    return peak;
}

// The sweep's scratch, carved from one caller-owned block so that a request
// neither maps nor zeroes fresh memory (every array is written before it is
// read). The canonical phase, which runs only when the sweep misses the
// bound and costs far more than a mapping, allocates its own.
struct SweepScratch {
    long long* delta;       // num_positions + 1
    long long* seg_start;   // 2n + 1
    long long* seg_length;  // 2n + 1
    int* start_offsets;     // num_positions + 1
    int* end_offsets;       // num_positions + 1
    int* cursor;            // num_positions + 1
    int* starts;            // n
    int* ends;              // n
    int* prev;              // 2n + 1, and so on for next, left, right
    int* next;
    int* left;
    int* right;
    int* free_ids;  // n + 1

    // Bytes for n owners over num_positions positions (both >= 0, checked by the caller).
    static long long bytes(long long n, long long num_positions) {
        const long long longs = (num_positions + 1) + 2 * (2 * n + 1);
        const long long ints = 3 * (num_positions + 1) + 2 * n + 4 * (2 * n + 1) + (n + 1);
        return longs * 8 + (ints + 1) / 2 * 8;  // a whole number of longs: the canonical block follows
    }

    // Carves the arrays, longs first so that each stays aligned.
    static SweepScratch carve(void* block, long long n, long long num_positions) {
        SweepScratch s;
        long long* l = static_cast<long long*>(block);
        s.delta = l;
        s.seg_start = s.delta + (num_positions + 1);
        s.seg_length = s.seg_start + (2 * n + 1);
        int* i = reinterpret_cast<int*>(s.seg_length + (2 * n + 1));
        s.start_offsets = i;
        s.end_offsets = s.start_offsets + (num_positions + 1);
        s.cursor = s.end_offsets + (num_positions + 1);
        s.starts = s.cursor + (num_positions + 1);
        s.ends = s.starts + n;
        s.prev = s.ends + n;
        s.next = s.prev + (2 * n + 1);
        s.left = s.next + (2 * n + 1);
        s.right = s.left + (2 * n + 1);
        s.free_ids = s.right + (2 * n + 1);
        return s;
    }
};

// The canonical phase's arrays, carved like SweepScratch: from the caller's
// block when it is large enough, else from one allocation of this call.
struct CanonicalScratch {
    long long* tree_max;   // 2 * leaves
    long long* tree_tag;   // 2 * leaves
    long long* key;        // n, and so on for trial, candidate, length
    long long* trial;
    long long* candidate;
    long long* length;
    int* heap;  // n, and so on for by_rank, best_ranks, sort_scratch
    int* by_rank;
    int* best_ranks;
    int* sort_scratch;
    int* histogram;  // kRadixDigits * kRadixBuckets

    static long long leaves_for(long long num_positions) {
        long long leaves = 1;
        while (leaves < num_positions) leaves <<= 1;
        return leaves;
    }

    static long long bytes(long long n, long long num_positions) {
        const long long longs = 4 * leaves_for(num_positions) + 4 * n;
        const long long ints = 4 * n + kRadixDigits * kRadixBuckets;
        return longs * 8 + ints * 4;
    }

    static CanonicalScratch carve(void* block, long long n, long long num_positions) {
        const long long leaves = leaves_for(num_positions);
        CanonicalScratch s;
        s.tree_max = static_cast<long long*>(block);
        s.tree_tag = s.tree_max + 2 * leaves;
        s.key = s.tree_tag + 2 * leaves;
        s.trial = s.key + n;
        s.candidate = s.trial + n;
        s.length = s.candidate + n;
        s.heap = reinterpret_cast<int*>(s.length + n);
        s.by_rank = s.heap + n;
        s.best_ranks = s.by_rank + n;
        s.sort_scratch = s.best_ranks + n;
        s.histogram = s.sort_scratch + n;
        return s;
    }
};

}  // namespace memplan_offsets

// Bytes of scratch memplan_offsets_plan needs: its sweep's, plus the
// canonical phase's when with_canonical is nonzero (without them that phase,
// when it runs, allocates its own). -1 when the counts are out of range.
inline long long memplan_offsets_scratch_bytes(int num_owners, int num_positions, int with_canonical) {
    if (num_owners < 0 || num_positions < 1) return -1;
    if (num_positions > (INT_MAX - 2) / 2 || num_owners > (INT_MAX - 2) / 2) return -1;
    const long long sweep = memplan_offsets::SweepScratch::bytes(num_owners, num_positions);
    return with_canonical ? sweep + memplan_offsets::CanonicalScratch::bytes(num_owners, num_positions) : sweep;
}

// Places num_owners buffers with live intervals [owner_def, owner_use_end]
// (inclusive positions in [0, num_positions)) at byte offsets in one arena;
// writes owner_offset and stats {peak, naive, lower bound, whether the
// canonical phase ran}. scratch holds at least memplan_offsets_scratch_bytes
// (n, P, 0) bytes, 8-byte aligned, contents ignored; with (n, P, 1) bytes the
// canonical phase allocates nothing either. A caller that sees stats[3] == 1
// can offer the larger block next time.
inline int memplan_offsets_plan(int num_owners, int num_positions, const int* owner_def, const int* owner_use_end,
                                const long long* owner_size, int effort, long long* owner_offset, long long* stats,
                                void* scratch, long long scratch_bytes) {
    using namespace memplan_offsets;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    stats[0] = stats[1] = stats[2] = stats[3] = 0;
    if (num_owners < 0 || num_positions < 1 || effort < 0) return MEMPLAN_BAD_ARGUMENT;
    if (num_positions > (INT_MAX - 2) / 2 || num_owners > (INT_MAX - 2) / 2) return MEMPLAN_BAD_ARGUMENT;
    if (num_owners > 0 && (owner_def == nullptr || owner_use_end == nullptr || owner_size == nullptr ||
                           owner_offset == nullptr)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (scratch == nullptr || reinterpret_cast<std::uintptr_t>(scratch) % alignof(long long) != 0 ||
        scratch_bytes < memplan_offsets_scratch_bytes(num_owners, num_positions, 0)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    const int n = num_owners;
    const int P = num_positions;
    long long naive = 0;
    for (int i = 0; i < n; ++i) {
        if (owner_def[i] < 0 || owner_use_end[i] < owner_def[i] || owner_use_end[i] >= P) return MEMPLAN_BAD_ARGUMENT;
        if (owner_size[i] < 0) return MEMPLAN_BAD_ARGUMENT;
        if (memplan_detail::add_overflows(naive, owner_size[i], &naive)) return MEMPLAN_OVERFLOW;
    }
    const SweepScratch w = SweepScratch::carve(scratch, n, P);
    const long long bound = lower_bound(P, n, owner_def, owner_use_end, owner_size, w.delta);
    GapArena arena{n, w.seg_start, w.seg_length, w.prev, w.next, w.left, w.right, w.free_ids, 0};
    long long peak = sweep_best_fit(P, n, owner_def, owner_use_end, owner_size, owner_offset, w.start_offsets,
                                    w.starts, w.end_offsets, w.ends, w.cursor, arena);
    long long budget = static_cast<long long>(effort) * (kPopsPerBuffer * n + kPopsAllowance);
    if (peak > bound && effort >= 1 &&
        expected_pops(P, n, owner_def, owner_use_end, owner_size, w.delta) <= budget) {
        stats[3] = 1;
        const long long sweep_bytes = SweepScratch::bytes(n, P);
        const bool in_scratch = scratch_bytes >= memplan_offsets_scratch_bytes(n, P, 1);
        Array<long long> own(in_scratch ? 1 : CanonicalScratch::bytes(n, P) / 8 + 1);
        if (!own.get()) return MEMPLAN_OUT_OF_MEMORY;
        const CanonicalScratch c = CanonicalScratch::carve(
            in_scratch ? static_cast<void*>(static_cast<char*>(scratch) + sweep_bytes) : own.get(), n, P);
        const int leaves = static_cast<int>(CanonicalScratch::leaves_for(P));
        long long total_length = 0;
        long long sized = 0;
        for (int i = 0; i < n; ++i) {
            if (owner_size[i] != 0) {
                total_length += static_cast<long long>(owner_use_end[i]) - owner_def[i] + 1;
                sized++;
            }
        }
        const bool flat = total_length <= kFlatSkylineLength * std::max(sized, 1LL);
        Canonical canonical{n, owner_def, owner_use_end, owner_size,
                            SkylineTree{flat, leaves, P, c.tree_max, c.tree_tag}, c.heap, c.key};
        bool have_ranks = false;
        int m = 0;
        for (int rank = 0; rank < kNumRanks && peak > bound && budget > 0; ++rank) {
            m = rank_order(rank, n, owner_def, owner_use_end, owner_size, c.by_rank, c.sort_scratch,
                           c.length, c.histogram);
            const long long p = canonical.decode(c.by_rank, m, budget, c.trial);
            budget -= canonical.pops;
            const bool better = p >= 0 && p < peak;
            if (better) {
                peak = p;
                for (int i = 0; i < n; ++i) owner_offset[i] = c.trial[i];
            }
            if (better || (!have_ranks && p >= 0)) {
                for (int r = 0; r < m; ++r) c.best_ranks[r] = c.by_rank[r];
                have_ranks = true;
            }
        }
        if (effort >= 2 && have_ranks && peak > bound) {
            const long long per_decode = kPopsPerBuffer * n + kPopsAllowance;
            peak = improve(canonical, c.best_ranks, m, (effort - 1) * kImproveStepsPerEffort, per_decode, bound,
                           peak, owner_offset, c.trial, c.candidate);
        }
    }
    stats[0] = peak;
    stats[1] = naive;
    stats[2] = bound;
    return MEMPLAN_OK;
}

#endif  // MEMPLAN_CORE_H
