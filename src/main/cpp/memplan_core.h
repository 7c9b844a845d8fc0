// SPDX-License-Identifier: Apache-2.0
// memplan_core.h - the native core of memplan: schedule compilation and
// greedy best-fit slot allocation (docs/design.md §3, §5 and §8).
//
// Header-only C++17, standard library only. It is included by JavaCPP-generated
// JNI code, so the public entry points are plain global inline functions with
// C-style signatures; they never throw and report errors as return codes.
// Nothing here recurses: graph sizes are caller-controlled and a deep stack
// would crash the JVM.
//
// The same program as the Java engine, written twice: memplan_compile and its
// helpers mirror dev.memplan.engine.JavaEngine method for method
// (find_producers = findProducers, kahn_order = kahnOrder, ...), FreeSlotSet
// mirrors FreeSlotSet.java, and memplan_allocate mirrors
// JavaCompiledGraph.allocate. What only this side does is check its caller:
// the Java side validates everything before it crosses the boundary, but this
// code still re-checks every count, offset and id before using it, so that a
// bug on either side becomes MEMPLAN_BAD_ARGUMENT instead of memory corruption.

#ifndef MEMPLAN_CORE_H
#define MEMPLAN_CORE_H

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>

// Return codes; MemplanNative names each (OK, CYCLE, ...) and maps it to a Java exception.
#define MEMPLAN_OK 0
#define MEMPLAN_CYCLE 1          // compile: graph has a cycle; *error_node = smallest node id that could not be ordered
#define MEMPLAN_BAD_ARGUMENT 2   // any argument inconsistency detected defensively
#define MEMPLAN_OVERFLOW 3       // allocate: sum of sizes overflows signed 64-bit
#define MEMPLAN_OUT_OF_MEMORY 4  // compile: its temporary arrays could not be allocated

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

// The largest effort memplan_offsets_plan accepts (PlanOptions.MAX_EFFORT): every
// budget it scales stays far inside a long long.
#define MEMPLAN_MAX_EFFORT 1000

// Value flag bits (FlatGraph.GRAPH_INPUT, ...).
#define MEMPLAN_GRAPH_INPUT 1
#define MEMPLAN_GRAPH_OUTPUT 2
#define MEMPLAN_INITIALIZER 4

// Defined with the offsets planner below; the free set's treap uses it too.
namespace memplan_offsets {
inline int priority(int id);
}  // namespace memplan_offsets

namespace memplan_detail {

// No node, no slot, no owner: FreeSlotSet.NONE on the Java side.
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

// Owns one of compile's temporaries. malloc rather than new/vector so that
// running out of memory is a return code, never an exception crossing the JNI
// boundary.
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

// ------------------------------------------------------------ compile helpers
// Each mirrors the JavaEngine method of the same name; they return false (or
// NONE) where only this side checks its caller.

// The producing node of every value, NONE for graph inputs and initializers;
// false when an output id is out of range or produced twice.
inline bool find_producers(int num_values, int num_nodes, const int* output_offsets, const int* outputs,
                           int* producer) {
    for (int v = 0; v < num_values; ++v) producer[v] = NONE;
    for (int n = 0; n < num_nodes; ++n) {
        for (int k = output_offsets[n]; k < output_offsets[n + 1]; ++k) {
            const int v = outputs[k];
            if (v < 0 || v >= num_values || producer[v] != NONE) return false;
            producer[v] = n;
        }
    }
    return true;
}

// The per-value rules FlatGraph.validateValues checks in Java: roots are roots,
// flags are known, a produced value is neither graph input nor initializer (so
// there are at most num_values owners), and a view is always produced.
inline bool valid_values(int num_values, const int* value_root, const int* value_flags, const int* producer) {
    for (int v = 0; v < num_values; ++v) {
        const int r = value_root[v];
        const int f = value_flags[v];
        if (r < 0 || r >= num_values || value_root[r] != r) return false;
        if ((f & ~kKnownFlags) != 0) return false;
        if (producer[v] != NONE && (f & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) != 0) return false;
        if (r != v && producer[v] == NONE) return false;
    }
    return true;
}

// Dependency edges producer -> consumer as CSR (successor_offsets[num_nodes + 1],
// successors[num_inputs]), one per consuming input, so a node reading a value
// twice waits on it twice; indegree[n] counts node n's edges. cursor[num_nodes]
// is scratch. False when an input id is out of range. Loops stop at n < N and
// index n + 1 so that N == INT_MAX cannot overflow.
inline bool build_successors(int num_values, int num_nodes, const int* input_offsets, const int* inputs,
                             const int* producer, int* indegree, int* successor_offsets, int* successors,
                             int* cursor) {
    successor_offsets[0] = 0;
    for (int n = 0; n < num_nodes; ++n) {
        indegree[n] = 0;
        successor_offsets[n + 1] = 0;
    }
    for (int n = 0; n < num_nodes; ++n) {
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u == NONE) continue;  // absent optional input
            if (u < NONE || u >= num_values) return false;
            if (producer[u] != NONE) {
                ++indegree[n];
                ++successor_offsets[producer[u] + 1];
            }
        }
    }
    for (int n = 0; n < num_nodes; ++n) successor_offsets[n + 1] += successor_offsets[n];
    for (int n = 0; n < num_nodes; ++n) cursor[n] = successor_offsets[n];
    for (int n = 0; n < num_nodes; ++n) {
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u != NONE && producer[u] != NONE) successors[cursor[producer[u]]++] = n;
        }
    }
    return true;
}

// Kahn's algorithm with a binary min-heap (ready[num_nodes]): the smallest
// ready node id runs first. Consumes indegree; returns how many nodes it
// placed in order, fewer than num_nodes when there is a cycle.
inline int kahn_order(int num_nodes, const int* successor_offsets, const int* successors, int* indegree,
                      int* ready, int* order) {
    // Ready nodes pushed in ascending id already form a valid min-heap.
    int num_ready = 0;
    for (int n = 0; n < num_nodes; ++n) {
        if (indegree[n] == 0) ready[num_ready++] = n;
    }
    int placed = 0;
    while (num_ready > 0) {
        std::pop_heap(ready, ready + num_ready, std::greater<int>());
        const int n = ready[--num_ready];
        order[placed++] = n;
        for (int e = successor_offsets[n]; e < successor_offsets[n + 1]; ++e) {
            const int s = successors[e];
            if (--indegree[s] == 0) {
                ready[num_ready++] = s;
                std::push_heap(ready, ready + num_ready, std::greater<int>());
            }
        }
    }
    return placed;
}

// The smallest node a cycle left unordered: every such node still waits on an edge.
inline int first_waiting(int num_nodes, const int* indegree) {
    for (int n = 0; n < num_nodes; ++n) {
        if (indegree[n] > 0) return n;
    }
    return NONE;
}

// Owners in allocation order: included graph inputs (ascending id, def 0),
// then each position's owner outputs in output order (def = its position);
// def_offsets[num_positions + 1] buckets them by def, and every owner's
// use_end starts at its def. Returns the owner count.
inline int collect_owners(int num_values, int num_nodes, int num_positions, const int* output_offsets,
                          const int* outputs, const int* value_root, const int* value_flags,
                          int include_graph_inputs, const int* order, int* owner_index, int* owner_value,
                          int* owner_def, int* owner_use_end, int* def_offsets) {
    for (int v = 0; v < num_values; ++v) owner_index[v] = NONE;
    int count = 0;
    if (include_graph_inputs != 0) {
        for (int v = 0; v < num_values; ++v) {
            if ((value_flags[v] & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) == MEMPLAN_GRAPH_INPUT &&
                value_root[v] == v) {
                owner_index[v] = count;
                owner_value[count] = v;
                owner_def[count] = 0;
                owner_use_end[count] = 0;
                ++count;
            }
        }
    }
    def_offsets[0] = 0;
    for (int p = 0; p < num_nodes; ++p) {
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
    def_offsets[num_positions] = count;  // an empty graph's one position
    return count;
}

// useEnd: every read of the owner or of a view folding to it raises it to the
// reader's position, and graph outputs live to the last position.
inline void compute_use_ends(int num_values, int num_nodes, int num_positions, const int* input_offsets,
                             const int* inputs, const int* value_root, const int* value_flags, const int* order,
                             const int* owner_index, int* owner_use_end) {
    for (int p = 0; p < num_nodes; ++p) {
        const int n = order[p];
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u == NONE) continue;
            const int o = owner_index[value_root[u]];
            if (o != NONE && owner_use_end[o] < p) owner_use_end[o] = p;
        }
    }
    const int last = num_positions - 1;
    for (int v = 0; v < num_values; ++v) {
        if ((value_flags[v] & MEMPLAN_GRAPH_OUTPUT) == 0) continue;
        const int o = owner_index[value_root[v]];
        if (o != NONE) owner_use_end[o] = last;
    }
}

// Owners grouped by use_end (free_offsets[num_positions + 1], free_owners[count]),
// ascending owner index within a position: a stable counting sort. cursor[num_positions]
// is scratch.
inline void bucket_by_use_end(int count, int num_positions, const int* owner_use_end, int* free_offsets,
                              int* free_owners, int* cursor) {
    free_offsets[0] = 0;
    for (int p = 0; p < num_positions; ++p) free_offsets[p + 1] = 0;
    for (int o = 0; o < count; ++o) ++free_offsets[owner_use_end[o] + 1];
    for (int p = 0; p < num_positions; ++p) free_offsets[p + 1] += free_offsets[p];
    for (int p = 0; p < num_positions; ++p) cursor[p] = free_offsets[p];
    for (int o = 0; o < count; ++o) free_owners[cursor[owner_use_end[o]]++] = o;
}

// ------------------------------------------------------------ the free set

// One slot, stored in the caller's scratch and indexed by slot id: the tree
// links and priority next to a copy of the capacity, so a tree step reads one
// cache line (FreeSlotSet.java keeps the same ints together in its tree array).
struct FreeNode {
    long long capacity;  // key part 1 (part 2 is the slot id)
    int smaller;         // child with smaller keys, NONE if none
    int larger;          // child with larger keys, NONE if none
    int priority;        // parents have higher priority than children
    int occupant;        // owner in the slot, NONE while free: a check of the caller only this side needs
};

// The slots of one allocation and which of them are free, ordered by
// (capacity, slot id): a treap whose heap priority is a fixed hash of the
// slot id, deterministic and O(log free slots) expected per operation. Its
// nodes live in the caller's scratch; a link is an int* to a child field (or
// to root_), where the Java side uses an index into its tree array.
class FreeSlotSet {
public:
    explicit FreeSlotSet(FreeNode* nodes) : nodes_(nodes) {}

    // Opens a new slot (not free) of `bytes` and returns its id.
    int open(long long bytes) {
        const int slot = num_slots_++;
        nodes_[slot].capacity = bytes;
        nodes_[slot].priority = memplan_offsets::priority(slot);  // the offsets planner's treaps use the same hash
        return slot;
    }

    int num_slots() const { return num_slots_; }

    FreeNode& node(int slot) const { return nodes_[slot]; }

    // Removes and returns the free slot with the smallest capacity >= need,
    // the lowest id among equals; NONE when none fits. Plain branches: with
    // the few, repeating sizes of real graphs they predict well, and the
    // benchmarks measured a branch-free descent twice as slow on a transformer.
    int poll_ceiling(long long need) {
        int* link = &root_;
        int* found_link = &root_;
        int found = NONE;
        int cur = root_;
        while (cur != NONE) {
            if (nodes_[cur].capacity >= need) {
                // cur fits; anything better is a smaller key, so it is on the smaller side.
                found = cur;
                found_link = link;
                link = &nodes_[cur].smaller;
            } else {
                link = &nodes_[cur].larger;
            }
            cur = *link;
        }
        if (found != NONE) merge(found_link, nodes_[found].smaller, nodes_[found].larger);
        return found;
    }

    // Frees `slot`, which must be open and not free.
    void add(int slot) {
        const int prio = nodes_[slot].priority;
        int* link = &root_;
        int cur = root_;
        // Descend while the node there outranks slot: slot becomes the root of that subtree.
        while (cur != NONE && nodes_[cur].priority > prio) {
            link = key_less(cur, slot) ? &nodes_[cur].larger : &nodes_[cur].smaller;
            cur = *link;
        }
        // Split the subtree at cur into keys below slot (its smaller side) and above (its larger side).
        int* below = &nodes_[slot].smaller;
        int* above = &nodes_[slot].larger;
        while (cur != NONE) {
            if (key_less(cur, slot)) {
                *below = cur;
                below = &nodes_[cur].larger;
                cur = *below;
            } else {
                *above = cur;
                above = &nodes_[cur].smaller;
                cur = *above;
            }
        }
        *below = NONE;
        *above = NONE;
        *link = slot;
    }

private:
    // Joins two treaps where every key of a is below every key of b into
    // *link. Iterative: walks the larger spine of a and the smaller spine of b.
    void merge(int* link, int a, int b) {
        while (a != NONE && b != NONE) {
            if (nodes_[a].priority > nodes_[b].priority) {
                *link = a;
                link = &nodes_[a].larger;
                a = *link;
            } else {
                *link = b;
                link = &nodes_[b].smaller;
                b = *link;
            }
        }
        *link = a != NONE ? a : b;
    }

    // The key order (capacity, slot id): ties on capacity go to the lower slot id.
    bool key_less(int a, int b) const {
        const long long ca = nodes_[a].capacity;
        const long long cb = nodes_[b].capacity;
        return ca < cb || (ca == cb && a < b);
    }

    FreeNode* nodes_;
    int root_ = NONE;
    int num_slots_ = 0;
};

}  // namespace memplan_detail

// Orders the nodes (Kahn, smallest ready id first), finds the owners and their
// intervals [def, useEnd], and buckets owners by def and by useEnd so that
// memplan_allocate never walks the graph: JavaEngine.compile, step for step,
// after checking every argument. See the ABI notes in docs/design.md §8.
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
    *error_node = NONE;
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
    const int num_positions = num_nodes > 0 ? num_nodes : 1;  // an empty graph still has position 0

    IntBuffer producer(static_cast<unsigned long long>(num_values));
    IntBuffer owner_index(static_cast<unsigned long long>(num_values));
    IntBuffer indegree(static_cast<unsigned long long>(num_nodes));
    IntBuffer successor_offsets(static_cast<unsigned long long>(num_nodes) + 1ULL);
    IntBuffer successors(static_cast<unsigned long long>(num_inputs));
    IntBuffer ready(static_cast<unsigned long long>(num_nodes));
    IntBuffer cursor(static_cast<unsigned long long>(num_positions));  // the fill cursor of both counting sorts
    if (producer.get() == nullptr || owner_index.get() == nullptr || indegree.get() == nullptr ||
        successor_offsets.get() == nullptr || successors.get() == nullptr || ready.get() == nullptr ||
        cursor.get() == nullptr) {
        return MEMPLAN_OUT_OF_MEMORY;
    }

    if (!find_producers(num_values, num_nodes, output_offsets, outputs, producer.get()) ||
        !valid_values(num_values, value_root, value_flags, producer.get()) ||
        !build_successors(num_values, num_nodes, input_offsets, inputs, producer.get(), indegree.get(),
                          successor_offsets.get(), successors.get(), cursor.get())) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (kahn_order(num_nodes, successor_offsets.get(), successors.get(), indegree.get(), ready.get(), order) <
        num_nodes) {
        *error_node = first_waiting(num_nodes, indegree.get());
        return MEMPLAN_CYCLE;
    }
    const int count = collect_owners(num_values, num_nodes, num_positions, output_offsets, outputs, value_root,
                                     value_flags, include_graph_inputs, order, owner_index.get(), owner_value,
                                     owner_def, owner_use_end, def_offsets);
    compute_use_ends(num_values, num_nodes, num_positions, input_offsets, inputs, value_root, value_flags, order,
                     owner_index.get(), owner_use_end);
    bucket_by_use_end(count, num_positions, owner_use_end, free_offsets, free_owners, cursor.get());
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

// Greedy best fit (docs/design.md §5) over a compiled schedule: the per-request hot
// path, JavaCompiledGraph.allocate step for step. One pass over positions; no
// graph walk and no heap allocation. Writes stats[MEMPLAN_NUM_STATS].
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
    using namespace memplan_detail;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
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
    // Each owner is allocated exactly once and freed exactly once; the
    // per-position checks below make the ranges contiguous and in bounds.
    if (def_offsets[0] != 0 || free_offsets[0] != 0 || def_offsets[num_positions] != num_owners ||
        free_offsets[num_positions] != num_owners) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (value_slot != nullptr) {
        for (int v = 0; v < num_values; ++v) value_slot[v] = NONE;
    }

    FreeSlotSet free(static_cast<FreeNode*>(scratch));
    long long live = 0;
    long long lower_bound = 0;
    long long naive = 0;
    long long peak = 0;
    int next_owner = 0;  // owners [0, next_owner) have slots
    int next_free = 0;   // free_owners[0, next_free) have been released
    for (int p = 0; p < num_positions; ++p) {
        const int def_end = def_offsets[p + 1];
        if (def_end < next_owner || def_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_owner < def_end; ++next_owner) {
            const int o = next_owner;
            const long long need = owner_size[o];
            const int v = owner_value[o];
            if (need < 0 || v < 0 || v >= num_values) return MEMPLAN_BAD_ARGUMENT;
            // A value listed as two owners.
            if (value_slot != nullptr && value_slot[v] != NONE) return MEMPLAN_BAD_ARGUMENT;
            // peak and live never exceed naive (a new slot's capacity is its
            // opener's size), so checking naive covers all three sums.
            if (add_overflows(naive, need, &naive)) return MEMPLAN_OVERFLOW;
            int slot = free.poll_ceiling(need);
            if (slot == NONE) {
                slot = free.open(need);
                slot_capacity[slot] = need;
                peak += need;
            }
            free.node(slot).occupant = o;
            owner_slot[o] = slot;
            if (value_slot != nullptr) value_slot[v] = slot;
            live += need;
        }
        if (live > lower_bound) lower_bound = live;

        // Free after allocating: a node's outputs never land on its own inputs.
        const int free_end = free_offsets[p + 1];
        if (free_end < next_free || free_end > num_owners) return MEMPLAN_BAD_ARGUMENT;
        for (; next_free < free_end; ++next_free) {
            const int o = free_owners[next_free];
            // Only an owner that already has a slot, and still holds it, can be freed.
            if (o < 0 || o >= next_owner || free.node(owner_slot[o]).occupant != o) return MEMPLAN_BAD_ARGUMENT;
            free.node(owner_slot[o]).occupant = NONE;
            free.add(owner_slot[o]);
            live -= owner_size[o];
        }
    }

    stats[MEMPLAN_STAT_NUM_SLOTS] = free.num_slots();
    stats[MEMPLAN_STAT_PEAK_BYTES] = peak;
    stats[MEMPLAN_STAT_NAIVE_BYTES] = naive;
    stats[MEMPLAN_STAT_LOWER_BOUND_BYTES] = lower_bound;
    return MEMPLAN_OK;
}


// ---------------------------------------------------------------------------
// Offsets planning (docs/design.md §5b): every buffer gets a byte offset in one arena.
// Mirrors dev.memplan.engine.OffsetPlanner phase for phase and name for name;
// read the Java class for the why of each phase. Scratch comes from the caller
// (see memplan_offsets_scratch_bytes); what does not fit there is malloc'd and
// freed on return; running out of memory is MEMPLAN_OUT_OF_MEMORY.
// ---------------------------------------------------------------------------
namespace memplan_offsets {

constexpr long long kPopsPerBuffer = 32;
constexpr long long kPopsAllowance = 1024;
constexpr long long kImproveStepsPerEffort = 64;
constexpr long long kFlatSkylineLength = 64;
constexpr long long kNoLimit = LLONG_MAX;
constexpr long long kStopped = -1;
constexpr long long kFitEntriesPerBuffer = 8;
constexpr long long kFitWorkPerBuffer = 64;
constexpr int kValleyMinEffort = 2;                // see OffsetPlanner.VALLEY_MIN_EFFORT
constexpr long long kValleyMaxEntries = 1LL << 24;  // see OffsetPlanner.VALLEY_MAX_ENTRIES
constexpr int kInsertionSortMax = 16;
constexpr long long kWorkCap = LLONG_MAX / 2;  // SearchCost::work saturates here
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

// Buffers grouped by key[i] (a position), ascending index within a group: CSR.
inline void bucket(int num_positions, const int* key, int n, int* offsets, int* cursor, int* out) {
    for (int p = 0; p <= num_positions; ++p) offsets[p] = 0;
    for (int i = 0; i < n; ++i) offsets[key[i] + 1]++;
    for (int p = 0; p < num_positions; ++p) offsets[p + 1] += offsets[p];
    for (int p = 0; p < num_positions; ++p) cursor[p] = offsets[p];
    for (int i = 0; i < n; ++i) out[cursor[key[i]]++] = i;
}

// Size classes of free gaps (see OffsetPlanner.sizeClass): lengths 1 to 7 each
// their own, then eight per power of two; never decreasing in the length.
constexpr int kNumSizeClasses = 64 * 8;
constexpr long long kClassedAverageLive = 64;  // see OffsetPlanner.CLASSED_AVERAGE_LIVE

inline int gap_size_class(long long length) {
    const int octave = 63 - __builtin_clzll(static_cast<unsigned long long>(length));
    return octave < 3 ? static_cast<int>(length) : octave * 8 + static_cast<int>((length >> (octave - 3)) & 7);
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
    // Free gaps by size class, one treap each, and which classes hold any (see
    // OffsetPlanner.GapArena); root is the treap being worked on, or the one
    // treap when not classed.
    int class_root[kNumSizeClasses] = {};
    unsigned long long non_empty_classes[kNumSizeClasses / 64] = {};
    int root = -1;
    bool classed = false;  // size classes only pay on wide graphs; see OffsetPlanner.GapArena
    int last = -1;
    long long top = 0;

    // An empty arena, whatever state the struct was in.
    void init() {
        const int segments = 2 * n + 1;
        for (int k = 0; k <= n; ++k) free_ids[k] = segments - 1 - k;
        num_free_ids = n + 1;
        for (int c = 0; c < kNumSizeClasses; ++c) class_root[c] = -1;
        for (int w = 0; w < kNumSizeClasses / 64; ++w) non_empty_classes[w] = 0;
        root = -1;
        last = -1;
        top = 0;
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
        int size_class = 0;
        if (classed) {  // else root is the one treap
            size_class = gap_size_class(bytes);
            root = class_root[size_class];
        }
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
        if (found < 0) {  // every gap of a larger class fits: take that class's smallest
            if (!classed) return -1;
            size_class = next_non_empty_class(size_class + 1);
            if (size_class < 0) return -1;
            root = class_root[size_class];
            cur = root;
            while (left[cur] >= 0) {
                found_parent = cur;
                cur = left[cur];
            }
            found = cur;
        }
        unlink(found, found_parent);
        if (classed) store_root(size_class);
        return found;
    }

    void treap_insert(int s) {
        left[s] = -1;
        right[s] = -1;
        if (!classed) {
            root = insert_into(root, s);
            return;
        }
        const int size_class = gap_size_class(seg_length[s]);
        root = insert_into(class_root[size_class], s);
        store_root(size_class);
    }

    void store_root(int size_class) {
        class_root[size_class] = root;
        const unsigned long long bit = 1ULL << (size_class & 63);
        if (root >= 0) {
            non_empty_classes[size_class >> 6] |= bit;
        } else {
            non_empty_classes[size_class >> 6] &= ~bit;
        }
    }

    // The first class from size_class on that holds a gap, or -1.
    int next_non_empty_class(int size_class) const {
        if (size_class >= kNumSizeClasses) return -1;
        int word = size_class >> 6;
        unsigned long long bits = non_empty_classes[word] & (~0ULL << (size_class & 63));
        while (bits == 0) {
            if (++word == kNumSizeClasses / 64) return -1;
            bits = non_empty_classes[word];
        }
        return (word << 6) + __builtin_ctzll(bits);
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
        const int size_class = classed ? gap_size_class(seg_length[s]) : 0;
        if (classed) root = class_root[size_class];
        int parent = -1;
        int cur = root;
        while (cur != s) {
            parent = cur;
            cur = key_less(s, cur) ? left[cur] : right[cur];
        }
        unlink(s, parent);
        if (classed) store_root(size_class);
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

// The sweep (see OffsetPlanner.Sweep): run() stops as soon as the arena passes
// stop_above (returning kStopped) and the next call carries on from there.
// Scratch as sized by memplan_offsets_plan.
struct Sweep {
    int num_positions;
    const long long* size;
    long long* offset;
    int* start_offsets;
    int* starts;
    int* end_offsets;
    int* ends;
    GapArena& arena;
    int position = 0;  // where to carry on, and whether its buffers are already placed
    bool starts_placed = false;
    long long peak = 0;

    void init(int n, const int* def, const int* use_end, int* cursor) {
        bucket(num_positions, def, n, start_offsets, cursor, starts);
        bucket(num_positions, use_end, n, end_offsets, cursor, ends);
        long long live_sum = 0;  // positions each buffer with a size is live, summed
        for (int i = 0; i < n; ++i) {
            if (size[i] != 0) live_sum += static_cast<long long>(use_end[i]) - def[i] + 1;
        }
        arena.init();
        arena.classed = live_sum >= kClassedAverageLive * num_positions;
    }

    long long run(long long stop_above) {
        // Locals, not the members, in the loop: the offset stores could alias them.
        long long top_so_far = peak;
        bool placed = starts_placed;
        for (int p = position; p < num_positions; ++p) {
            if (!placed) {
                for (int k = start_offsets[p]; k < start_offsets[p + 1]; ++k) {
                    const int i = starts[k];
                    offset[i] = size[i] == 0 ? 0 : arena.allocate(i, size[i]);
                }
                if (arena.top > top_so_far) {
                    top_so_far = arena.top;
                    if (top_so_far > stop_above) {
                        position = p;
                        starts_placed = true;
                        peak = top_so_far;
                        return kStopped;
                    }
                }
            }
            for (int k = end_offsets[p]; k < end_offsets[p + 1]; ++k) {
                const int i = ends[k];
                if (size[i] != 0) arena.release(i);
            }
            placed = false;
        }
        position = num_positions;
        starts_placed = false;
        peak = top_so_far;
        return peak;
    }
};

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
// significant byte first. A byte that every key shares needs no pass; the keys'
// OR and AND find those bytes first, so the histogram counts only the others
// (see OffsetPlanner.radixSortDescending).
inline void radix_sort_descending(int* order, int m, const long long* key, int* scratch, int* histogram) {
    unsigned long long any = 0;
    unsigned long long all = ~0ULL;
    for (int k = 0; k < m; ++k) {
        const unsigned long long v = static_cast<unsigned long long>(key[order[k]]);
        any |= v;
        all &= v;
    }
    const unsigned long long varying = any ^ all;
    int* from = order;
    int* to = scratch;
    for (int d = 0; d < kRadixDigits; ++d) {
        const int shift = 8 * d;
        if (((varying >> shift) & 0xFF) == 0) continue;
        for (int b = 0; b < kRadixBuckets; ++b) histogram[b] = 0;
        for (int k = 0; k < m; ++k) {
            histogram[static_cast<int>((static_cast<unsigned long long>(key[from[k]]) >> shift) & 0xFF)]++;
        }
        int sum = 0;
        for (int b = kRadixBuckets - 1; b >= 0; --b) {
            const int count = histogram[b];
            histogram[b] = sum;
            sum += count;
        }
        for (int k = 0; k < m; ++k) {
            const int i = from[k];
            to[histogram[static_cast<int>((static_cast<unsigned long long>(key[i]) >> shift) & 0xFF)]++] = i;
        }
        std::swap(from, to);
    }
    if (from != order) {
        for (int k = 0; k < m; ++k) order[k] = from[k];
    }
}

// Stable bottom-up merge sort of ids[0, count) by before(x, y), a strict order
// (see OffsetPlanner.mergeSort): the rank orders and the fit's offset order.
template <class Before>
inline void merge_sort(int* ids, int count, int* scratch, Before before) {
    for (int width = 1; width < count; width *= 2) {
        for (int lo = 0; lo < count - width; lo += 2 * width) {
            const int mid = lo + width;
            const int hi = std::min(lo + 2 * width, count);
            int a = lo;
            int b = mid;
            int out = lo;
            while (a < mid && b < hi) scratch[out++] = before(ids[b], ids[a]) ? ids[b++] : ids[a++];
            while (a < mid) scratch[out++] = ids[a++];
            while (b < hi) scratch[out++] = ids[b++];
            for (int k = lo; k < hi; ++k) ids[k] = scratch[k];
        }
    }
}

// Stable bottom-up merge sort of order[0, m) by rank_before.
inline void merge_sort_by_rank(int rank, int* order, int m, const int* def, const int* use_end,
                               const long long* size, int* scratch) {
    merge_sort(order, m, scratch, [=](int x, int y) { return rank_before(rank, x, y, def, use_end, size); });
}

// Buffers with a size, in rank order (see OffsetPlanner.rankOrder); returns
// their count. length holds n longs and histogram kRadixBuckets ints.
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

// What the search phases would cost (see OffsetPlanner.SearchCost), from one
// pass over the buffers with a size. delta holds num_positions + 1 longs of scratch.
struct SearchCost {
    long long entries;
    long long work;
    long long sized;

    bool fit_runs(int n, int effort) const {
        return entries <= kFitEntriesPerBuffer * n && entries <= INT_MAX && work <= effort * kFitWorkPerBuffer * n;
    }

    long long expected_pops(int num_positions) const {
        const long long average_live = entries / num_positions;
        return sized * (2 + average_live / 8);
    }
};

inline SearchCost search_cost_of(int num_positions, int n, const int* def, const int* use_end, const long long* size,
                                 long long* delta) {
    for (int p = 0; p <= num_positions; ++p) delta[p] = 0;
    SearchCost cost{0, 0, 0};
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            delta[def[i]]++;
            delta[use_end[i] + 1]--;
            cost.sized++;
        }
    }
    long long live = 0;
    for (int p = 0; p < num_positions; ++p) {
        live += delta[p];
        cost.entries += live;
        cost.work = std::min(cost.work + live * live, kWorkCap);  // live * live <= 2^60: no overflow
    }
    return cost;
}

// Sorts ids[0, count) by offset[id] ascending (see OffsetPlanner.sortByOffset).
inline void sort_by_offset(int* ids, int count, const long long* offset, int* scratch) {
    if (count <= kInsertionSortMax) {
        for (int i = 1; i < count; ++i) {
            const int x = ids[i];
            const long long key = offset[x];
            int j = i - 1;
            while (j >= 0 && offset[ids[j]] > key) {
                ids[j + 1] = ids[j];
                j--;
            }
            ids[j + 1] = x;
        }
        return;
    }
    merge_sort(ids, count, scratch, [offset](int x, int y) { return offset[x] < offset[y]; });
}

// Greedy by size with first fit (see OffsetPlanner.FirstFit): position t's
// placed buffers are entries[list_start[t], list_end[t]).
struct FirstFit {
    int num_positions;
    const int* def;
    const int* use_end;
    const long long* size;
    int* list_start;  // num_positions + 1
    int* list_end;    // num_positions
    int* entries;     // the SearchCost's entries
    int* seen;        // n: the step that last collected each buffer
    int* overlapping;  // n
    int* sort_scratch;  // n

    long long place(const int* by_rank, int m, int n, long long* offset) {
        for (int t = 0; t <= num_positions; ++t) list_start[t] = 0;
        for (int k = 0; k < m; ++k) {  // live counts, then their running sum: each position's list start
            const int b = by_rank[k];
            list_start[def[b]]++;
            list_start[use_end[b] + 1]--;
        }
        int live = 0;
        int start = 0;
        for (int t = 0; t < num_positions; ++t) {
            live += list_start[t];
            list_start[t] = start;
            list_end[t] = start;
            start += live;
        }
        list_start[num_positions] = start;
        for (int i = 0; i < n; ++i) {
            seen[i] = -1;
            offset[i] = 0;
        }
        long long peak = 0;
        for (int step = 0; step < m; ++step) {
            const int b = by_rank[step];
            const int count = collect_overlapping(b, step);
            sort_by_offset(overlapping, count, offset, sort_scratch);
            long long lowest = 0;
            for (int k = 0; k < count; ++k) {
                const int y = overlapping[k];
                if (offset[y] - lowest >= size[b]) break;
                lowest = std::max(lowest, offset[y] + size[y]);
            }
            offset[b] = lowest;
            peak = std::max(peak, lowest + size[b]);
            for (int t = def[b]; t <= use_end[b]; ++t) entries[list_end[t]++] = b;
        }
        return peak;
    }

    int collect_overlapping(int b, int step) {
        int count = 0;
        for (int t = def[b]; t <= use_end[b]; ++t) {
            for (int k = list_start[t]; k < list_end[t]; ++k) {
                const int y = entries[k];
                if (seen[y] != step) {
                    seen[y] = step;
                    overlapping[count++] = y;
                }
            }
        }
        return count;
    }
};

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
    int* heap_rank;
    long long* heap_key;  // heap_key[i] belongs to heap_rank[i]
    long long pops = 0;

    static bool entry_less(long long key_a, int rank_a, long long key_b, int rank_b) {
        return key_a < key_b || (key_a == key_b && rank_a < rank_b);
    }

    // Floyd's bottom-up sift (see OffsetPlanner.Canonical.siftDown).
    void sift_down(long long k, int r, int heap_size) {
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && entry_less(heap_key[c + 1], heap_rank[c + 1], heap_key[c], heap_rank[c])) c++;
            heap_rank[i] = heap_rank[c];
            heap_key[i] = heap_key[c];
            i = c;
        }
        sift_up(k, r, i);
    }

    void sift_up(long long k, int r, int i) {
        while (i > 0) {
            const int parent = (i - 1) >> 1;
            if (!entry_less(k, r, heap_key[parent], heap_rank[parent])) break;
            heap_rank[i] = heap_rank[parent];
            heap_key[i] = heap_key[parent];
            i = parent;
        }
        heap_rank[i] = r;
        heap_key[i] = k;
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
                sift_up(lowest, r, heap_size++);
                continue;
            }
            skyline.raise(def[b], use_end[b], size[b]);
            peak = std::max(peak, size[b]);
        }
        while (heap_size > 0) {
            if (++pops > budget) return -1;
            const int r = heap_rank[0];
            const int b = by_rank[r];
            const long long lowest = skyline.max(def[b], use_end[b]);
            if (lowest != heap_key[0]) {
                sift_down(lowest, r, heap_size);
                continue;
            }
            heap_size--;
            if (heap_size > 0) sift_down(heap_key[heap_size], heap_rank[heap_size], heap_size);
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
    long long* heap_key;   // n, and so on for trial, candidate, length
    long long* trial;
    long long* candidate;
    long long* length;
    int* heap_rank;  // n, and so on for by_rank, best_ranks, sort_scratch
    int* by_rank;
    int* best_ranks;
    int* sort_scratch;
    int* histogram;  // kRadixBuckets

    static long long leaves_for(long long num_positions) {
        long long leaves = 1;
        while (leaves < num_positions) leaves <<= 1;
        return leaves;
    }

    static long long bytes(long long n, long long num_positions) {
        const long long longs = 4 * leaves_for(num_positions) + 4 * n;
        const long long ints = 4 * n + kRadixBuckets;
        return longs * 8 + ints * 4;
    }

    static CanonicalScratch carve(void* block, long long n, long long num_positions) {
        const long long leaves = leaves_for(num_positions);
        CanonicalScratch s;
        s.tree_max = static_cast<long long*>(block);
        s.tree_tag = s.tree_max + 2 * leaves;
        s.heap_key = s.tree_tag + 2 * leaves;
        s.trial = s.heap_key + n;
        s.candidate = s.trial + n;
        s.length = s.candidate + n;
        s.heap_rank = reinterpret_cast<int*>(s.length + n);
        s.by_rank = s.heap_rank + n;
        s.best_ranks = s.by_rank + n;
        s.sort_scratch = s.best_ranks + n;
        s.histogram = s.sort_scratch + n;
        return s;
    }
};

// The fit phase's arrays, carved after the canonical block.
struct FitScratch {
    int* list_start;    // num_positions + 1
    int* list_end;      // num_positions
    int* seen;          // n, and so on for overlapping, sort_scratch
    int* overlapping;
    int* sort_scratch;
    int* entries;       // kFitEntriesPerBuffer * n

    static long long bytes(long long n, long long num_positions) {
        const long long ints = 2 * num_positions + 1 + 3 * n + kFitEntriesPerBuffer * n;
        return (ints + 1) / 2 * 8;
    }

    static FitScratch carve(void* block, long long n, long long num_positions) {
        FitScratch s;
        s.list_start = static_cast<int*>(block);
        s.list_end = s.list_start + (num_positions + 1);
        s.seen = s.list_end + num_positions;
        s.overlapping = s.seen + n;
        s.sort_scratch = s.overlapping + n;
        s.entries = s.sort_scratch + n;
        return s;
    }
};

}  // namespace memplan_offsets

// Bytes of scratch memplan_offsets_plan needs: its sweep's, plus the fit and
// canonical phases' when with_search is nonzero (without them those phases,
// when they run, allocate their own). -1 when the counts are out of range.
inline long long memplan_offsets_scratch_bytes(int num_owners, int num_positions, int with_search) {
    if (num_owners < 0 || num_positions < 1) return -1;
    if (num_positions > (INT_MAX - 2) / 2 || num_owners > (INT_MAX - 2) / 2) return -1;
    const long long sweep = memplan_offsets::SweepScratch::bytes(num_owners, num_positions);
    if (!with_search) return sweep;
    return sweep + memplan_offsets::CanonicalScratch::bytes(num_owners, num_positions) +
           memplan_offsets::FitScratch::bytes(num_owners, num_positions);
}

namespace memplan_offsets {

// The phases past the sweep (see OffsetPlanner.plan), once the sweep has paused
// above the bound: the fit, the rest of the sweep unless the fit reached the
// bound, then the canonical decodes and the improvement while the plan is still
// above the bound. Their arrays come from scratch past the sweep's when it is
// large enough, else from one allocation of this call; *ran_search says whether
// they ran. Returns the best peak (offset holds its plan), or kOutOfMemory.
// The canonical decoder as valley filling (see ValleyDecoder.java, name for
// name): the lowest flat stretch of the skyline takes the best-ranked unplaced
// buffer inside it, or rises to its lower neighbour. Same plans as Canonical.
struct ValleyDecoder {
    static constexpr int kNone = INT_MAX;

    int num_positions;
    const int* def;
    const int* use_end;
    const long long* size;
    int n;
    int leaves;
    Array<int> node_start;  // 2 * leaves + 1
    Array<int> entries;
    Array<int> min_tree;    // 2 * entries
    Array<int> rank_of;     // n
    Array<int> by_end;      // n, and the bucket cursors: num_positions + 1 each
    Array<int> end_offsets;
    Array<int> cursor;
    Array<int> fill;        // 2 * leaves
    Array<int> stretch_start;  // 3 * sized + 1, and so on
    Array<int> stretch_end;
    Array<long long> stretch_height;
    Array<int> before;
    Array<int> after;
    Array<char> alive;
    int num_stretches = 0;
    Array<int> heap;           // 5 * sized + 2, and so on
    Array<long long> heap_height;
    Array<int> heap_start;
    int heap_size = 0;
    const int* by_rank = nullptr;
    bool laid_out = false;

    static int leaves_for(int num_positions) {
        int leaves = 1;
        while (leaves < num_positions) leaves <<= 1;
        return leaves;
    }

    static long long entries_for(long long sized, int num_positions) {
        return sized * (__builtin_ctz(static_cast<unsigned>(leaves_for(num_positions))) + 1LL);
    }

    ValleyDecoder(int P, const int* d, const int* e, const long long* s, int count, int sized)
        : num_positions(P), def(d), use_end(e), size(s), n(count), leaves(leaves_for(P)),
          node_start(2LL * leaves + 1), entries(entries_for(sized, P)), min_tree(2 * entries_for(sized, P)),
          rank_of(count), by_end(count), end_offsets(P + 1LL), cursor(P + 1LL), fill(2LL * leaves),
          stretch_start(3LL * sized + 1), stretch_end(3LL * sized + 1), stretch_height(3LL * sized + 1),
          before(3LL * sized + 1), after(3LL * sized + 1), alive(3LL * sized + 1), heap(5LL * sized + 2),
          heap_height(5LL * sized + 2), heap_start(5LL * sized + 2) {}

    bool allocated() const {
        return node_start.get() && entries.get() && min_tree.get() && rank_of.get() && by_end.get() &&
               end_offsets.get() && cursor.get() && fill.get() && stretch_start.get() && stretch_end.get() &&
               stretch_height.get() && before.get() && after.get() && alive.get() && heap.get() &&
               heap_height.get() && heap_start.get();
    }

    // Places the m buffers of ranks (every buffer with a size, in rank order);
    // writes every offset (0 for the others) and returns the arena size, or -1
    // if a buffer fit no stretch (cannot happen).
    long long decode(const int* ranks, int m, long long* offset) {
        for (int i = 0; i < n; ++i) offset[i] = 0;
        by_rank = ranks;
        if (m == 0) return 0;
        if (!laid_out) lay_out_range_tree();
        fill_min_trees(m);
        num_stretches = 0;
        heap_size = 0;
        push(new_stretch(0, num_positions, 0));
        long long peak = 0;
        int left = m;
        while (left > 0) {
            const int s = pop();
            const int b = best_inside(stretch_start[s], stretch_end[s]);
            if (b >= 0) {
                const long long h = stretch_height[s];
                offset[b] = h;
                peak = std::max(peak, h + size[b]);
                left--;
                remove(b);
                split(s, b);
            } else if (!raise(s)) {
                return -1;
            }
        }
        return peak;
    }

    // The nodes' buffers by (end, index), the same for every rank order (they are
    // the buffers with a size), so laid out once, at the first decode.
    void lay_out_range_tree() {
        for (int v = 0; v <= 2 * leaves; ++v) node_start[v] = 0;
        for (int b = 0; b < n; ++b) {
            if (size[b] == 0) continue;
            for (int v = def[b] + leaves; v >= 1; v >>= 1) node_start[v + 1]++;
        }
        for (int v = 1; v <= 2 * leaves - 1; ++v) node_start[v + 1] += node_start[v];
        for (int v = 0; v < 2 * leaves; ++v) fill[v] = node_start[v];
        bucket(num_positions, use_end, n, end_offsets.get(), cursor.get(), by_end.get());
        for (int k = 0; k < n; ++k) {  // ascending end, then index
            const int b = by_end[k];
            if (size[b] == 0) continue;
            for (int v = def[b] + leaves; v >= 1; v >>= 1) entries[fill[v]++] = b;
        }
        laid_out = true;
    }

    // Each node's min-tree over the ranks of this decode's order.
    void fill_min_trees(int m) {
        for (int r = 0; r < m; ++r) rank_of[by_rank[r]] = r;
        for (int v = 1; v < 2 * leaves; ++v) {
            const long long base = 2LL * node_start[v];
            const int k = node_start[v + 1] - node_start[v];
            for (int j = 0; j < k; ++j) min_tree[base + k + j] = rank_of[entries[node_start[v] + j]];
            for (int j = k - 1; j >= 1; --j) min_tree[base + j] = std::min(min_tree[base + 2 * j], min_tree[base + 2 * j + 1]);
        }
    }

    int best_inside(int a, int b) const {
        int best = kNone;
        for (int lo = a + leaves, hi = b + leaves; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) best = std::min(best, best_ending_before(lo++, b));
            if (hi & 1) best = std::min(best, best_ending_before(--hi, b));
        }
        return best == kNone ? -1 : by_rank[best];
    }

    int best_ending_before(int v, int b) const {
        const int first = node_start[v];
        const int k = node_start[v + 1] - first;
        int lo = 0;
        int hi = k;
        while (lo < hi) {  // the first entry ending at or after b
            const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
            if (use_end[entries[first + mid]] < b) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int best = kNone;
        const long long base = 2LL * first;
        for (int l = k, r = k + lo; l < r; l >>= 1, r >>= 1) {
            if (l & 1) best = std::min(best, min_tree[base + l++]);
            if (r & 1) best = std::min(best, min_tree[base + --r]);
        }
        return best;
    }

    void remove(int b) {
        for (int v = def[b] + leaves; v >= 1; v >>= 1) {
            const int first = node_start[v];
            const int k = node_start[v + 1] - first;
            int lo = 0;
            int hi = k;
            while (lo < hi) {  // b's place in (end, index) order
                const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
                const int e = entries[first + mid];
                if (use_end[e] < use_end[b] || (use_end[e] == use_end[b] && e < b)) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            const long long base = 2LL * first;
            int p = k + lo;
            min_tree[base + p] = kNone;
            for (p >>= 1; p >= 1; p >>= 1) min_tree[base + p] = std::min(min_tree[base + 2 * p], min_tree[base + 2 * p + 1]);
        }
    }

    int new_stretch(int start, int end, long long height) {
        const int s = num_stretches++;
        stretch_start[s] = start;
        stretch_end[s] = end;
        stretch_height[s] = height;
        before[s] = -1;
        after[s] = -1;
        alive[s] = 1;
        return s;
    }

    void link(int x, int y) {
        if (x >= 0) after[x] = y;
        if (y >= 0) before[y] = x;
    }

    void split(int s, int b) {
        alive[s] = 0;
        const int previous = before[s];
        const int following = after[s];
        const long long h = stretch_height[s];
        const int left = def[b] > stretch_start[s] ? new_stretch(stretch_start[s], def[b], h) : -1;
        const int top = new_stretch(def[b], use_end[b] + 1, h + size[b]);
        const int right = use_end[b] + 1 < stretch_end[s] ? new_stretch(use_end[b] + 1, stretch_end[s], h) : -1;
        int last = previous;
        if (left >= 0) {
            link(last, left);
            last = left;
        }
        link(last, top);
        last = top;
        if (right >= 0) {
            link(last, right);
            last = right;
        }
        link(last, following);
        absorb_equal_neighbours(top);
        if (left >= 0) push(left);
        if (right >= 0) push(right);
        push(top);
    }

    bool raise(int s) {
        long long height = LLONG_MAX;
        if (before[s] >= 0) height = stretch_height[before[s]];
        if (after[s] >= 0) height = std::min(height, stretch_height[after[s]]);
        if (height == LLONG_MAX) return false;
        stretch_height[s] = height;
        absorb_equal_neighbours(s);
        push(s);
        return true;
    }

    void absorb_equal_neighbours(int s) {
        const int p = before[s];
        if (p >= 0 && stretch_height[p] == stretch_height[s]) {
            stretch_start[s] = stretch_start[p];
            alive[p] = 0;
            link(before[p], s);
        }
        const int q = after[s];
        if (q >= 0 && stretch_height[q] == stretch_height[s]) {
            stretch_end[s] = stretch_end[q];
            alive[q] = 0;
            link(s, after[q]);
        }
    }

    static bool less(long long h1, int start1, int s1, long long h2, int start2, int s2) {
        return h1 < h2 || (h1 == h2 && (start1 < start2 || (start1 == start2 && s1 < s2)));
    }

    void push(int s) {
        int i = heap_size++;
        const long long h = stretch_height[s];
        const int start = stretch_start[s];
        while (i > 0) {
            const int parent = (i - 1) >> 1;
            if (!less(h, start, s, heap_height[parent], heap_start[parent], heap[parent])) break;
            set_entry(i, heap[parent], heap_height[parent], heap_start[parent]);
            i = parent;
        }
        set_entry(i, s, h, start);
    }

    void set_entry(int i, int s, long long h, int start) {
        heap[i] = s;
        heap_height[i] = h;
        heap_start[i] = start;
    }

    int pop() {
        while (true) {
            const int s = heap[0];
            const long long h = heap_height[0];
            const int start = heap_start[0];
            heap_size--;
            if (heap_size > 0) sift_down_last();
            if (alive[s] && stretch_height[s] == h && stretch_start[s] == start) return s;
        }
    }

    void sift_down_last() {
        const int s = heap[heap_size];
        const long long h = heap_height[heap_size];
        const int start = heap_start[heap_size];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heap_size) break;
            if (c + 1 < heap_size && less(heap_height[c + 1], heap_start[c + 1], heap[c + 1], heap_height[c], heap_start[c], heap[c])) c++;
            if (!less(heap_height[c], heap_start[c], heap[c], h, start, s)) break;
            set_entry(i, heap[c], heap_height[c], heap_start[c]);
            i = c;
        }
        set_entry(i, s, h, start);
    }
};

constexpr long long kOutOfMemory = -2;

inline long long search(int P, int n, const int* def, const int* use_end, const long long* size, int effort,
                        long long bound, long long* offset, void* scratch, long long scratch_bytes,
                        const SweepScratch& w, Sweep& sweep, bool* ran_search) {
    const SearchCost cost = search_cost_of(P, n, def, use_end, size, w.delta);
    const bool run_fit = cost.fit_runs(n, effort);
    long long budget = static_cast<long long>(effort) * (kPopsPerBuffer * n + kPopsAllowance);
    const long long expected_pops = cost.expected_pops(P);
    const bool may_decode = expected_pops <= budget;
    // Valley filling gives the lazy heap's plans (see OffsetPlanner.plan): from effort 2 it takes
    // the rank decodes wherever it is forecast cheaper, alone where the heap is ruled out.
    const long long valley_cost = ValleyDecoder::entries_for(cost.sized, P);
    const bool use_valley = effort >= kValleyMinEffort && valley_cost <= budget && valley_cost <= kValleyMaxEntries &&
                            (!may_decode || valley_cost < expected_pops);
    if (!run_fit && !may_decode && !use_valley) return sweep.run(kNoLimit);
    *ran_search = true;
    const long long canonical_bytes = CanonicalScratch::bytes(n, P);
    const bool in_scratch = scratch_bytes >= memplan_offsets_scratch_bytes(n, P, 1);
    Array<long long> own(in_scratch ? 1 : (canonical_bytes + FitScratch::bytes(n, P)) / 8 + 1);
    if (!own.get()) return kOutOfMemory;
    char* block = in_scratch ? static_cast<char*>(scratch) + SweepScratch::bytes(n, P) : reinterpret_cast<char*>(own.get());
    const CanonicalScratch c = CanonicalScratch::carve(block, n, P);
    int m = 0;
    bool have_size_rank = false;
    long long fit_peak = kNoLimit;
    if (run_fit) {
        const FitScratch f = FitScratch::carve(block + canonical_bytes, n, P);
        m = rank_order(kRankSize, n, def, use_end, size, c.by_rank, c.sort_scratch, c.length, c.histogram);
        have_size_rank = true;
        FirstFit fit{P, def, use_end, size, f.list_start, f.list_end, f.entries, f.seen, f.overlapping, f.sort_scratch};
        fit_peak = fit.place(c.by_rank, m, n, c.trial);
        if (fit_peak <= bound) {
            for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
            return fit_peak;
        }
    }
    long long peak = sweep.run(kNoLimit);
    if (fit_peak < peak) {
        peak = fit_peak;
        for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
    }
    if ((!may_decode && !use_valley) || peak <= bound) return peak;
    const int leaves = static_cast<int>(CanonicalScratch::leaves_for(P));
    long long total_length = 0;
    long long sized = 0;
    for (int i = 0; i < n; ++i) {
        if (size[i] != 0) {
            total_length += static_cast<long long>(use_end[i]) - def[i] + 1;
            sized++;
        }
    }
    const bool flat = total_length <= kFlatSkylineLength * std::max(sized, 1LL);
    Canonical canonical{n, def, use_end, size,
                        SkylineTree{flat, leaves, P, c.tree_max, c.tree_tag}, c.heap_rank, c.heap_key};
    bool have_ranks = false;
    // One rank decode, by valley filling or by the lazy heap; the best ranks seed the improvement.
    auto keep = [&](long long p) {
        const bool better = p >= 0 && p < peak;
        if (better) {
            peak = p;
            for (int i = 0; i < n; ++i) offset[i] = c.trial[i];
        }
        if (better || (!have_ranks && p >= 0)) {
            for (int r = 0; r < m; ++r) c.best_ranks[r] = c.by_rank[r];
            have_ranks = true;
        }
    };
    if (use_valley) {
        ValleyDecoder valley(P, def, use_end, size, n, static_cast<int>(cost.sized));
        if (!valley.allocated()) return kOutOfMemory;
        for (int rank = 0; rank < kNumRanks && peak > bound && budget >= valley_cost; ++rank) {
            if (rank != kRankSize || !have_size_rank) {
                m = rank_order(rank, n, def, use_end, size, c.by_rank, c.sort_scratch, c.length, c.histogram);
            }
            const long long p = valley.decode(c.by_rank, m, c.trial);
            budget -= valley_cost;
            keep(p);
        }
    } else {
        for (int rank = 0; rank < kNumRanks && peak > bound && budget > 0; ++rank) {
            if (rank != kRankSize || !have_size_rank) {
                m = rank_order(rank, n, def, use_end, size, c.by_rank, c.sort_scratch, c.length, c.histogram);
            }
            const long long p = canonical.decode(c.by_rank, m, budget, c.trial);
            budget -= canonical.pops;
            keep(p);
        }
    }
    // Rank swaps decode with the lazy heap, one effort unit of pops each.
    if (may_decode && effort >= 2 && have_ranks && peak > bound) {
        const long long per_decode = kPopsPerBuffer * n + kPopsAllowance;
        peak = improve(canonical, c.best_ranks, m, (effort - 1) * kImproveStepsPerEffort, per_decode, bound,
                       peak, offset, c.trial, c.candidate);
    }
    return peak;
}

}  // namespace memplan_offsets

// Places num_owners buffers with live intervals [owner_def, owner_use_end]
// (inclusive positions in [0, num_positions)) at byte offsets in one arena;
// writes owner_offset and stats {peak, naive, lower bound, whether a phase
// past the sweep ran}. scratch holds at least memplan_offsets_scratch_bytes
// (n, P, 0) bytes, 8-byte aligned, contents ignored; with (n, P, 1) bytes the
// fit and canonical phases allocate nothing either (the valley decoder, at
// effort >= 2, allocates its own). A caller that sees
// stats[MEMPLAN_OFFSETS_STAT_RAN_SEARCH] == 1
// can offer the larger block next time.
inline int memplan_offsets_plan(int num_owners, int num_positions, const int* owner_def, const int* owner_use_end,
                                const long long* owner_size, int effort, long long* owner_offset, long long* stats,
                                void* scratch, long long scratch_bytes) {
    using namespace memplan_offsets;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (num_owners < 0 || num_positions < 1 || effort < 0 || effort > MEMPLAN_MAX_EFFORT) return MEMPLAN_BAD_ARGUMENT;
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
    // At effort >= 1 the sweep pauses as soon as it passes the bound (see OffsetPlanner.plan).
    Sweep sweep{P, owner_size, owner_offset, w.start_offsets, w.starts, w.end_offsets, w.ends, arena};
    sweep.init(n, owner_def, owner_use_end, w.cursor);
    long long peak = sweep.run(effort >= 1 ? bound : kNoLimit);
    if (peak == kStopped) {
        bool ran_search = false;
        peak = search(P, n, owner_def, owner_use_end, owner_size, effort, bound, owner_offset, scratch, scratch_bytes,
                      w, sweep, &ran_search);
        if (peak == kOutOfMemory) return MEMPLAN_OUT_OF_MEMORY;
        stats[MEMPLAN_OFFSETS_STAT_RAN_SEARCH] = ran_search ? 1 : 0;
    }
    stats[MEMPLAN_OFFSETS_STAT_PEAK_BYTES] = peak;
    stats[MEMPLAN_OFFSETS_STAT_NAIVE_BYTES] = naive;
    stats[MEMPLAN_OFFSETS_STAT_LOWER_BOUND_BYTES] = bound;
    return MEMPLAN_OK;
}

// ------------------------------------------------------------ a schedule in one array
//
// The Java side keeps a compiled schedule's arrays in one int array on its
// heap and pins it for each request (a JNI critical region), passing the index
// of each array in it; the result array is pinned the same way and written in
// place. These check every index and length against the arrays' own lengths
// before any element is read or written, then run the plain entry points.

namespace memplan_detail {
// [at, at + length) lies inside an array of `array_length` elements.
inline bool within(int at, long long length, int array_length) {
    return at >= 0 && length >= 0 && array_length >= 0 && static_cast<long long>(at) + length <= array_length;
}
}  // namespace memplan_detail

// memplan_allocate on a schedule packed in `schedule` (schedule_length ints):
// def and free offsets (num_positions + 1 ints each), free owners and owner
// values (num_owners ints each) at the given indexes; owner_slot holds
// owner_slot_length ints, at least num_owners.
inline int memplan_schedule_allocate(int num_values, int num_owners, int num_positions, const int* schedule,
                                     int schedule_length, int def_offsets_at, int free_offsets_at,
                                     int free_owners_at, int owner_value_at, const long long* owner_size,
                                     int* owner_slot, int owner_slot_length, long long* slot_capacity,
                                     long long* stats, void* scratch, long long scratch_bytes) {
    using memplan_detail::within;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (schedule == nullptr || num_positions < 1 || num_owners < 0) return MEMPLAN_BAD_ARGUMENT;
    const long long bucket_offsets = static_cast<long long>(num_positions) + 1;
    if (!within(def_offsets_at, bucket_offsets, schedule_length) ||
        !within(free_offsets_at, bucket_offsets, schedule_length) ||
        !within(free_owners_at, num_owners, schedule_length) || !within(owner_value_at, num_owners, schedule_length) ||
        !within(0, num_owners, owner_slot_length)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    return memplan_allocate(num_values, num_owners, num_positions, schedule + def_offsets_at,
                            schedule + free_offsets_at, schedule + free_owners_at, schedule + owner_value_at,
                            owner_size, owner_slot, nullptr, slot_capacity, stats, scratch, scratch_bytes);
}

// memplan_offsets_plan on the intervals of a schedule packed in `schedule`:
// owner defs and use ends (num_owners ints each) at the given indexes;
// owner_offset holds owner_offset_length longs, at least num_owners.
inline int memplan_schedule_offsets_plan(int num_owners, int num_positions, const int* schedule,
                                         int schedule_length, int owner_def_at, int owner_use_end_at,
                                         const long long* owner_size, int effort, long long* owner_offset,
                                         int owner_offset_length, long long* stats, void* scratch,
                                         long long scratch_bytes) {
    using memplan_detail::within;
    if (stats == nullptr) return MEMPLAN_BAD_ARGUMENT;
    for (int i = 0; i < MEMPLAN_NUM_STATS; ++i) stats[i] = 0;
    if (schedule == nullptr || num_owners < 0) return MEMPLAN_BAD_ARGUMENT;
    if (!within(owner_def_at, num_owners, schedule_length) || !within(owner_use_end_at, num_owners, schedule_length) ||
        !within(0, num_owners, owner_offset_length)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    return memplan_offsets_plan(num_owners, num_positions, schedule + owner_def_at, schedule + owner_use_end_at,
                                owner_size, effort, owner_offset, stats, scratch, scratch_bytes);
}

#endif  // MEMPLAN_CORE_H
