// SPDX-License-Identifier: Apache-2.0
// treap_priority.h - the heap priority of every treap in the core (the free
// slot set's and the gap arena's): TreapPriority.java, name for name.

#ifndef MEMPLAN_TREAP_PRIORITY_H
#define MEMPLAN_TREAP_PRIORITY_H

#include <cstdint>

namespace memplan_offsets {

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

}  // namespace memplan_offsets

#endif  // MEMPLAN_TREAP_PRIORITY_H
