// SPDX-License-Identifier: Apache-2.0
// memplan_core.h - the native core of memplan: schedule compilation, greedy
// best-fit slot allocation and offsets planning (docs/design.md §3, §5, §5b
// and §8). JavaCPP's @Platform(include=...) in MemplanNative and the C++ tests
// include this umbrella; the code lives in one header per phase.
//
// Header-only C++17, standard library only. It is included by JavaCPP-generated
// JNI code, so the public entry points are plain global inline functions with
// C-style signatures; they never throw and report errors as return codes.
// Nothing here recurses: graph sizes are caller-controlled and a deep stack
// would crash the JVM.
//
// The same program as the Java engine, written twice, file for file: each
// header below pairs with the dev.memplan.engine class of the same name
// (gap_arena.h = GapArena.java, ...; docs/design.md §12 lists the pairs).
// compile.h pairs with Compile and slots_allocate.h with SlotsAllocate. abi.h, buffers.h,
// offsets_scratch.h, packed_schedule.h and request_sizes.h are C++ only: what only this side does is check its
// caller and carve its scratch. The Java side validates everything before it
// crosses the boundary, but this code still re-checks every count, offset and
// id before using it, so that a bug on either side becomes
// MEMPLAN_BAD_ARGUMENT instead of memory corruption.

#ifndef MEMPLAN_CORE_H
#define MEMPLAN_CORE_H

// C++ only: the boundary, call-owned buffers.
#include "abi.h"
#include "buffers.h"

// Compile and slots (docs/design.md §3, §5).
#include "treap_priority.h"
#include "free_slot_set.h"
#include "in_place_links.h"
#include "compile.h"
#include "slots_allocate.h"

// Offsets (docs/design.md §5b), in phase order; offsets_plan.h drives them.
#include "gap_arena.h"
#include "sweep.h"
#include "search_cost.h"
#include "rank_order.h"
#include "first_fit.h"
#include "skyline_tree.h"
#include "canonical_decoder.h"
#include "valley_decoder.h"
#include "rank_swaps.h"
#include "offsets_scratch.h"
#include "offsets_plan.h"

// Exact packing (docs/design.md §5c): a complete search, apart from the heuristics.
#include "exact_instance.h"
#include "exact_zero_slack.h"
#include "exact_search.h"
#include "exact_packing.h"

// C++ only: the entry points Java calls on a schedule packed in one array.
#include "packed_schedule.h"

// C++ only: one request's sizes checked, aligned and copied in one pass.
#include "request_sizes.h"

#endif  // MEMPLAN_CORE_H
