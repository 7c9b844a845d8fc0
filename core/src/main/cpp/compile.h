// SPDX-License-Identifier: Apache-2.0
// compile.h - schedule compilation (docs/design.md §3): memplan_compile and
// its helpers are Compile.run and its helpers, method for method
// (find_producers = findProducers, kahn_order = kahnOrder, ...); only this side
// re-checks its caller, and only this side skips Kahn when the node ids are
// already its order (find_producers_in_order: the same order, found cheaper).

#ifndef MEMPLAN_COMPILE_H
#define MEMPLAN_COMPILE_H

#include <algorithm>
#include <cstdint>
#include <functional>

#include "abi.h"
#include "in_place_links.h"

namespace memplan_detail {

// ------------------------------------------------------------ compile helpers
// Each mirrors the Compile method of the same name; they return false (or
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

// find_producers_in_order's mark on a value read before any node made it.
constexpr int kReadFirst = NONE - 1;

// The per-value rules FlatGraph.validateValues checks in Java: roots are roots,
// flags are known, a produced value is neither graph input nor initializer (so
// there are at most num_values owners), and a view is always produced. Clears
// find_producers_in_order's marks from producer first.
inline bool valid_values(int num_values, const int* value_root, const int* value_flags, int* producer) {
    for (int v = 0; v < num_values; ++v) {
        if (producer[v] == kReadFirst) producer[v] = NONE;  // find_producers_in_order's mark: no node makes it
        const int r = value_root[v];
        const int f = value_flags[v];
        if (r < 0 || r >= num_values || value_root[r] != r) return false;
        if ((f & ~kKnownFlags) != 0) return false;
        if (producer[v] != NONE && (f & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) != 0) return false;
        if (r != v && producer[v] == NONE) return false;
    }
    return true;
}

// A view's root is made at or before the view's position in the order
// (ViewMap's rule, whose source is an input of the view's producer): else the
// root's owner would start after bytes were written into it. made_at[num_values]
// is scratch. Compile.viewsAfterRoots.
inline bool views_after_roots(int num_values, int num_nodes, const int* output_offsets, const int* outputs,
                              const int* value_root, const int* order, int* made_at) {
    for (int v = 0; v < num_values; ++v) made_at[v] = NONE;
    for (int p = 0; p < num_nodes; ++p) {
        const int n = order[p];
        for (int k = output_offsets[n]; k < output_offsets[n + 1]; ++k) made_at[outputs[k]] = p;
    }
    for (int v = 0; v < num_values; ++v) {
        const int r = value_root[v];
        if (r != v && made_at[r] > made_at[v]) return false;  // a view is always made (valid_values)
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

// find_producers and, in the same walk over the nodes in id order, whether the
// ids are already Kahn's order: every present input made by a lower node (or by
// none). Returns 1 when they are, 0 when some input is made by its own node or a
// later one, -1 when an id is out of range or a value is produced twice. When it
// is 1, smallest ready id first places node k at position k: after nodes
// 0..k-1, node k waits on nothing and is the smallest node left. So compile
// skips the edges, in-degrees and heap that would only confirm it (ONNX requires
// nodes in topological order, so real graphs take this path); the Java engine
// keeps Kahn for every graph (the reference), and both give the same order.
// An input read before any node made it is marked kReadFirst, so that a later
// node producing it shows the ids out of order; valid_values turns the marks
// that remain (values no node makes) back into NONE.
inline int find_producers_in_order(int num_values, int num_nodes, const int* input_offsets, const int* inputs,
                                   const int* output_offsets, const int* outputs, int* producer) {
    for (int v = 0; v < num_values; ++v) producer[v] = NONE;
    int in_order = 1;
    for (int n = 0; n < num_nodes; ++n) {
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            const int u = inputs[k];
            if (u == NONE) continue;  // absent optional input
            if (u < NONE || u >= num_values) return -1;
            if (producer[u] == NONE) producer[u] = kReadFirst;  // else made by a lower node, or marked already
        }
        for (int k = output_offsets[n]; k < output_offsets[n + 1]; ++k) {
            const int v = outputs[k];
            if (v < 0 || v >= num_values || producer[v] >= 0) return -1;
            in_order &= producer[v] == NONE ? 1 : 0;  // kReadFirst: read by this node or an earlier one
            producer[v] = n;
        }
    }
    return in_order;
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

// Bytes one of compile's int temporaries takes from its scratch: at least one
// element, rounded up to 8 bytes so every array stays 8-byte aligned.
inline long long scratch_int_bytes(long long count) {
    return (std::max(count, 1LL) * static_cast<long long>(sizeof(int)) + 7) / 8 * 8;
}

// Hands out consecutive int arrays from scratch whose size memplan_compile
// checked against memplan_compile_scratch_bytes, which sums the same takes.
class ScratchInts {
public:
    explicit ScratchInts(void* scratch) : next_(static_cast<unsigned char*>(scratch)) {}
    int* take(long long count) {
        int* out = reinterpret_cast<int*>(next_);
        next_ += scratch_int_bytes(count);
        return out;
    }

private:
    unsigned char* next_;
};

}  // namespace memplan_detail

// Bytes of scratch memplan_compile needs for its temporaries (with the three
// of in-place reuse when with_in_place is 1); -1 when a count is negative.
// num_inputs is input_offsets[num_nodes].
inline long long memplan_compile_scratch_bytes(int num_values, int num_nodes, int num_inputs, int with_in_place) {
    using memplan_detail::scratch_int_bytes;
    if (num_values < 0 || num_nodes < 0 || num_inputs < 0 || (with_in_place != 0 && with_in_place != 1)) return -1;
    const long long v = num_values;
    const long long n = num_nodes;
    const long long positions = n > 0 ? n : 1;
    return 2 * scratch_int_bytes(v) + 2 * scratch_int_bytes(n) + scratch_int_bytes(n + 1) +
           scratch_int_bytes(num_inputs) + scratch_int_bytes(positions) + with_in_place * 3 * scratch_int_bytes(v);
}

// Orders the nodes (Kahn, smallest ready id first), finds the owners and their
// intervals [def, useEnd], and buckets owners by def and by useEnd so that
// memplan_allocate never walks the graph: Compile.run, step for step,
// after checking every argument. See the ABI notes in docs/design.md §8.
inline int memplan_compile(
    int num_values, int num_nodes,
    const int* input_offsets,
    const int* inputs,
    const int* output_offsets,
    const int* outputs,
    const int* value_root,
    const int* value_flags,
    const int* in_place_mask,  // optional: nullptr for no in-place reuse
    int include_graph_inputs,
    int* order,
    int* owner_value,
    int* owner_def,
    int* owner_use_end,
    int* def_offsets,
    int* free_offsets,
    int* free_owners,
    int* value_buffer,  // out: the owner of each value's bytes (views, in-place links)
    int* num_owners,
    int* error_node,
    void* scratch,  // memplan_compile_scratch_bytes(...) bytes, 8-byte aligned
    long long scratch_bytes) {
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
                           owner_def == nullptr || owner_use_end == nullptr || free_owners == nullptr ||
                           value_buffer == nullptr)) {
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

    // Every temporary comes from the caller's scratch (memory a pool keeps
    // mapped between calls): malloc'd per call, glibc handed the larger ones
    // back to the OS after each compile, and the next one faulted them in again.
    const long long needed =
        memplan_compile_scratch_bytes(num_values, num_nodes, num_inputs, in_place_mask != nullptr ? 1 : 0);
    if (needed < 0 || scratch_bytes < needed || scratch == nullptr ||
        reinterpret_cast<std::uintptr_t>(scratch) % alignof(long long) != 0) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    ScratchInts carve(scratch);
    int* const producer = carve.take(num_values);
    int* const owner_index = carve.take(num_values);
    int* const indegree = carve.take(num_nodes);
    int* const successor_offsets = carve.take(static_cast<long long>(num_nodes) + 1);
    int* const successors = carve.take(num_inputs);
    int* const ready = carve.take(num_nodes);
    int* const cursor = carve.take(num_positions);  // the fill cursor of both counting sorts

    // Every check before the order, as FlatGraph's validations run before Compile
    // looks for a cycle: a graph both invalid and cyclic is refused as invalid.
    const int in_order =
        find_producers_in_order(num_values, num_nodes, input_offsets, inputs, output_offsets, outputs, producer);
    if (in_order < 0 || !valid_values(num_values, value_root, value_flags, producer) ||
        (in_place_mask != nullptr && !valid_in_place(num_values, input_offsets, inputs, producer, in_place_mask))) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    if (in_order == 1) {
        for (int p = 0; p < num_nodes; ++p) order[p] = p;
    } else {
        if (!build_successors(num_values, num_nodes, input_offsets, inputs, producer, indegree, successor_offsets,
                              successors, cursor)) {
            return MEMPLAN_BAD_ARGUMENT;
        }
        if (kahn_order(num_nodes, successor_offsets, successors, indegree, ready, order) < num_nodes) {
            *error_node = first_waiting(num_nodes, indegree);
            return MEMPLAN_CYCLE;
        }
    }
    // owner_index is free until collect_owners fills it.
    if (!views_after_roots(num_values, num_nodes, output_offsets, outputs, value_root, order, owner_index)) {
        return MEMPLAN_BAD_ARGUMENT;
    }
    // From here on a value's "root" is the owner of its bytes: its view root, or
    // the buffer an in-place link gave it (Compile.run).
    if (in_place_mask == nullptr) {
        for (int v = 0; v < num_values; ++v) value_buffer[v] = value_root[v];
    } else {
        int* const last_read = carve.take(num_values);
        int* const given_at = carve.take(num_values);
        int* const escapes = carve.take(num_values);
        link_in_place(num_values, num_nodes, input_offsets, inputs, output_offsets, outputs, value_root,
                      value_flags, in_place_mask, order, value_buffer, last_read, given_at, escapes);
    }
    const int count = collect_owners(num_values, num_nodes, num_positions, output_offsets, outputs, value_buffer,
                                     value_flags, include_graph_inputs, order, owner_index, owner_value,
                                     owner_def, owner_use_end, def_offsets);
    compute_use_ends(num_values, num_nodes, num_positions, input_offsets, inputs, value_buffer, value_flags, order,
                     owner_index, owner_use_end);
    bucket_by_use_end(count, num_positions, owner_use_end, free_offsets, free_owners, cursor);
    *num_owners = count;
    return MEMPLAN_OK;
}

#endif  // MEMPLAN_COMPILE_H
