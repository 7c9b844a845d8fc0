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

#endif  // MEMPLAN_CORE_H
