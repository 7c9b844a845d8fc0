// SPDX-License-Identifier: Apache-2.0
// in_place_links.h - in-place reuse (docs/design.md §3b), rules (b) and (c):
// which values take the buffer of an input that dies at their node. Mirrors
// InPlaceLinks.java line for line (link = link_in_place, readsElsewhere =
// reads_elsewhere); valid_in_place is FlatGraph.validateInPlace, re-checked.

#ifndef MEMPLAN_IN_PLACE_LINKS_H
#define MEMPLAN_IN_PLACE_LINKS_H

#include <algorithm>

#include "abi.h"
#include "buffers.h"

namespace memplan_detail {

// Checks an in-place mask (FlatGraph.validateInPlace): bits only on produced
// values, each naming a present input of the producer.
inline bool valid_in_place(int num_values, const int* input_offsets, const int* inputs, const int* producer,
                           const int* in_place_mask) {
    for (int v = 0; v < num_values; ++v) {
        const unsigned int m = static_cast<unsigned int>(in_place_mask[v]);
        if (m == 0) continue;
        const int n = producer[v];
        if (n == NONE) return false;
        const int num_inputs = input_offsets[n + 1] - input_offsets[n];
        for (int k = 0; k < 32; ++k) {
            if ((m & (1U << k)) != 0 && (k >= num_inputs || inputs[input_offsets[n] + k] == NONE)) return false;
        }
    }
    return true;
}

// Whether an input of the node in [from, to) other than skip lives in buffer b
// (InPlaceLinks.readsElsewhere).
inline bool reads_elsewhere(const int* inputs, int from, int to, int skip, int b, const int* buffer,
                            const int* value_root) {
    for (int k = from; k < to; ++k) {
        if (k != skip && inputs[k] != NONE && buffer[value_root[inputs[k]]] == b) return true;
    }
    return false;
}

// In-place links (docs/design.md §3b), InPlaceLinks.link line for line:
// in execution order, value v (not a view) takes the buffer b of input k of its
// producer, the first bit of its mask that qualifies, when b is no graph input
// or weight, no value in b is a graph output, b's last read is this position, b
// went to no other output here, and this node reads b through input k only.
// Writes every value's buffer; last_read and given_at are num_values ints of
// scratch, escapes too (0 or 1).
inline void link_in_place(int num_values, int num_nodes, const int* input_offsets, const int* inputs,
                          const int* output_offsets, const int* outputs, const int* value_root,
                          const int* value_flags, const int* in_place_mask, const int* order, int* buffer,
                          int* last_read, int* given_at, int* escapes) {
    for (int v = 0; v < num_values; ++v) {
        buffer[v] = value_root[v];
        last_read[v] = NONE;
        given_at[v] = NONE;
        escapes[v] = 0;
    }
    for (int p = 0; p < num_nodes; ++p) {
        const int n = order[p];
        for (int k = input_offsets[n]; k < input_offsets[n + 1]; ++k) {
            if (inputs[k] != NONE) last_read[value_root[inputs[k]]] = p;
        }
    }
    for (int v = 0; v < num_values; ++v) {
        if ((value_flags[v] & MEMPLAN_GRAPH_OUTPUT) != 0) escapes[value_root[v]] = 1;
    }
    for (int p = 0; p < num_nodes; ++p) {
        const int n = order[p];
        for (int j = output_offsets[n]; j < output_offsets[n + 1]; ++j) {
            const int v = outputs[j];
            const unsigned int mask = static_cast<unsigned int>(in_place_mask[v]);
            if (mask == 0 || value_root[v] != v) continue;
            const int from = input_offsets[n];
            const int to = input_offsets[n + 1];
            for (int k = 0; k < to - from && k < 32; ++k) {
                if ((mask & (1U << k)) == 0 || inputs[from + k] == NONE) continue;
                const int b = buffer[value_root[inputs[from + k]]];
                if ((value_flags[b] & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) != 0 || escapes[b] != 0 ||
                    last_read[b] != p || given_at[b] == p ||
                    reads_elsewhere(inputs, from, to, from + k, b, buffer, value_root)) {
                    continue;
                }
                buffer[v] = b;
                last_read[b] = std::max(last_read[b], last_read[v]);
                escapes[b] = escapes[b] | escapes[v];
                given_at[b] = p;
                break;
            }
        }
    }
    for (int v = 0; v < num_values; ++v) {
        buffer[v] = buffer[value_root[v]];  // views of linked values follow their root
    }
}

}  // namespace memplan_detail

#endif  // MEMPLAN_IN_PLACE_LINKS_H
