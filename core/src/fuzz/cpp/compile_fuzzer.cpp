// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: a graph's arrays as NativeCompile could pass them, through
// memplan_compile_packed, memplan_copy_schedule, then one request on the
// schedule through memplan_schedule_allocate and memplan_schedule_offsets_plan,
// as NativeCompiledGraph calls them. Every call either returns a code or gives
// a schedule and plans that plan_checks.h accepts.

#include <fuzzer/FuzzedDataProvider.h>

#include <vector>

#include "fuzz_arrays.h"
#include "memplan_core.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

namespace {

// The ids a node's CSR range lists, when the offsets are usable.
bool usable(Exact<int>& offsets, int groups, int ids) {
    if (offsets.length != groups + 1 || offsets[0] != 0 || offsets[groups] != ids) return false;
    for (int i = 0; i < groups; ++i) {
        if (offsets[i + 1] < offsets[i]) return false;
    }
    return true;
}

// The graph and its schedule on stderr, to read a finding.
void dump(int nv, int nn, Exact<int>& in_off, Exact<int>& ins, Exact<int>& out_off, Exact<int>& outs,
          Exact<int>& flags, const int* s, int num_owners) {
    const int positions = nn > 0 ? nn : 1;
    for (int n = 0; n < nn; ++n) {
        std::fprintf(stderr, "node %d: in", n);
        for (int k = in_off[n]; k < in_off[n + 1]; ++k) std::fprintf(stderr, " %d", ins[k]);
        std::fprintf(stderr, " out");
        for (int k = out_off[n]; k < out_off[n + 1]; ++k) std::fprintf(stderr, " %d", outs[k]);
        std::fprintf(stderr, "\n");
    }
    const int* value_buffer = s + nn + 2 * (positions + 1);
    for (int v = 0; v < nv; ++v) std::fprintf(stderr, "value %d: flags %d buffer %d\n", v, flags[v], value_buffer[v]);
    const int* owner_value = value_buffer + nv;
    std::fprintf(stderr, "order");
    for (int p = 0; p < nn; ++p) std::fprintf(stderr, " %d", s[p]);
    std::fprintf(stderr, "\n");
    for (int o = 0; o < num_owners; ++o) {
        std::fprintf(stderr, "owner %d: value %d [%d, %d]\n", o, owner_value[o], owner_value[num_owners + o],
                     owner_value[2 * num_owners + o]);
    }
}

// A schedule the compile accepted, held to the graph it came from.
void check_schedule(int nv, int nn, Exact<int>& in_off, Exact<int>& ins, Exact<int>& out_off, Exact<int>& outs,
                    Exact<int>& root, Exact<int>& flags, const int* s, int num_owners) {
    const int positions = nn > 0 ? nn : 1;
    const int* order = s;
    const int* def_offsets = order + nn;
    const int* free_offsets = def_offsets + positions + 1;
    const int* value_buffer = free_offsets + positions + 1;
    const int* owner_value = value_buffer + nv;
    const int* owner_def = owner_value + num_owners;
    const int* owner_use_end = owner_def + num_owners;
    const int* free_owners = owner_use_end + num_owners;
    std::vector<int> position(nn, -1);
    for (int p = 0; p < nn; ++p) {
        require(order[p] >= 0 && order[p] < nn && position[order[p]] == -1, "order is not a permutation", p, order[p]);
        position[order[p]] = p;
    }
    std::vector<int> producer(nv, -1);
    for (int n = 0; n < nn; ++n) {
        for (int k = out_off[n]; k < out_off[n + 1]; ++k) {
            require(outs[k] >= 0 && outs[k] < nv && producer[outs[k]] == -1, "accepted a bad output id", n, outs[k]);
            producer[outs[k]] = n;
        }
        for (int k = in_off[n]; k < in_off[n + 1]; ++k) {
            // -1 is an absent optional input (FlatGraph.NONE)
            require(ins[k] >= -1 && ins[k] < nv, "accepted a bad input id", n, ins[k]);
        }
    }
    for (int n = 0; n < nn; ++n) {
        for (int k = in_off[n]; k < in_off[n + 1]; ++k) {
            if (ins[k] == -1) continue;
            const int q = producer[ins[k]];
            require(q == -1 || position[q] < position[n], "a node before its input's producer", n, q);
        }
    }
    std::vector<int> owner_of(nv, -1);
    for (int o = 0; o < num_owners; ++o) {
        const int v = owner_value[o];
        require(v >= 0 && v < nv && owner_of[v] == -1, "owner values not distinct ids", o, v);
        owner_of[v] = o;
        require(owner_def[o] >= 0 && owner_def[o] <= owner_use_end[o] && owner_use_end[o] < positions,
                "owner interval", owner_def[o], owner_use_end[o]);
    }
    require(def_offsets[0] == 0 && free_offsets[0] == 0, "buckets start at 0");
    require(def_offsets[positions] == num_owners && free_offsets[positions] == num_owners, "buckets end at the owners");
    std::vector<int> freed(num_owners, 0);
    for (int p = 0; p < positions; ++p) {
        require(def_offsets[p] <= def_offsets[p + 1] && free_offsets[p] <= free_offsets[p + 1], "buckets decrease", p);
        for (int o = def_offsets[p]; o < def_offsets[p + 1]; ++o) require(owner_def[o] == p, "def bucket", o, p);
        for (int k = free_offsets[p]; k < free_offsets[p + 1]; ++k) {
            const int o = free_owners[k];
            require(o >= 0 && o < num_owners && !freed[o] && owner_use_end[o] == p, "free bucket", o, p);
            freed[o] = 1;
        }
    }
    // Every byte a node reads or writes is alive where it runs; a graph output's until the end. A
    // view output writes nothing (it names bytes its root holds), so only its reads count.
    for (int v = 0; v < nv; ++v) require(value_buffer[v] >= 0 && value_buffer[v] < nv, "value buffer", v);
    for (int n = 0; n < nn; ++n) {
        const int p = position[n];
        for (int pass = 0; pass < 2; ++pass) {
            Exact<int>& off = pass == 0 ? in_off : out_off;
            Exact<int>& ids = pass == 0 ? ins : outs;
            for (int k = off[n]; k < off[n + 1]; ++k) {
                if (ids[k] == -1 || (pass == 1 && root[ids[k]] != ids[k])) continue;
                const int o = owner_of[value_buffer[ids[k]]];
                if (o == -1) continue;
                if (!(owner_def[o] <= p && p <= owner_use_end[o])) {
                    dump(nv, nn, in_off, ins, out_off, outs, flags, s, num_owners);
                    fuzz_checks::fail("a buffer dead where it is used", ids[k], p);
                }
            }
        }
    }
    for (int v = 0; v < nv; ++v) {
        const int o = owner_of[value_buffer[v]];
        if (o != -1 && (flags[v] & MEMPLAN_GRAPH_OUTPUT) != 0) {
            require(owner_use_end[o] == positions - 1, "a graph output freed before the end", v, owner_use_end[o]);
        }
    }
}

void plan_request(FuzzedDataProvider& in, int nv, int nn, const int* s, int schedule_length, int num_owners) {
    const int positions = nn > 0 ? nn : 1;
    const int head = static_cast<int>(memplan_detail::packed_head(nv, nn));
    int at[6] = {nn, nn + positions + 1, head + 3 * num_owners, head, head + num_owners, head + 2 * num_owners};
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) at[in.ConsumeIntegralInRange<int>(0, 5)] = fuzz_arrays::id(in, schedule_length);
    Exact<long long> size(num_owners);
    for (int o = 0; o < num_owners; ++o) size[o] = fuzz_arrays::size(in);
    Exact<int> slot(num_owners);
    Exact<long long> capacity(num_owners);
    Exact<long long> stats(MEMPLAN_NUM_STATS);
    std::vector<long long> scratch(static_cast<std::size_t>(memplan_allocate_scratch_bytes(num_owners) / 8 + 1));
    const int rc = memplan_schedule_allocate(nv, num_owners, positions, s, schedule_length, at[0], at[1], at[2], at[3],
                                             size.get(), slot.get(), slot.length, capacity.get(), stats.get(),
                                             scratch.data(), memplan_allocate_scratch_bytes(num_owners));
    require(rc == MEMPLAN_OK || rc == MEMPLAN_BAD_ARGUMENT || rc == MEMPLAN_OVERFLOW, "allocate code", rc);
    if (rc == MEMPLAN_OK) {
        fuzz_checks::check_slots_plan(num_owners, positions, s + at[0], s + at[1], s + at[2], size.get(), slot.get(),
                                      capacity.get(), stats.get());
    }
    const int effort = in.ConsumeIntegralInRange<int>(0, 3);
    Exact<long long> offset(num_owners);
    const long long bytes = memplan_offsets_scratch_bytes(num_owners, positions, in.ConsumeBool() ? 1 : 0);
    std::vector<long long> offsets_scratch(static_cast<std::size_t>(bytes > 0 ? bytes / 8 + 1 : 1));
    const int rc2 = memplan_schedule_offsets_plan(num_owners, positions, s, schedule_length, at[4], at[5], size.get(),
                                                  effort, offset.get(), offset.length, stats.get(),
                                                  offsets_scratch.data(), bytes);
    require(rc2 == MEMPLAN_OK || rc2 == MEMPLAN_BAD_ARGUMENT || rc2 == MEMPLAN_OVERFLOW ||
            rc2 == MEMPLAN_OUT_OF_MEMORY, "offsets code", rc2);
    if (rc2 == MEMPLAN_OK) {
        fuzz_checks::check_offsets_plan(num_owners, s + at[4], s + at[5], size.get(), offset.get(), stats.get());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    const int nv = fuzz_arrays::count(in, 40);
    const int nn = fuzz_arrays::count(in, 24);
    // Java arrays have real lengths; the counts passed beside them may disagree.
    const int groups = nn >= 0 && nn <= 24 ? nn : in.ConsumeIntegralInRange<int>(0, 24);
    const int values = nv >= 0 && nv <= 40 ? nv : in.ConsumeIntegralInRange<int>(0, 40);
    const int num_inputs = in.ConsumeIntegralInRange<int>(0, 64);
    const int num_outputs = in.ConsumeIntegralInRange<int>(0, values);
    Exact<int> in_off = fuzz_arrays::offsets(in, groups, num_inputs);
    Exact<int> ins(num_inputs);
    for (int k = 0; k < num_inputs; ++k) ins[k] = fuzz_arrays::id(in, values);
    Exact<int> out_off = fuzz_arrays::offsets(in, groups, num_outputs);
    Exact<int> outs(num_outputs);
    for (int k = 0; k < num_outputs; ++k) outs[k] = fuzz_arrays::id(in, values);
    Exact<int> root(values);
    Exact<int> flags(values);
    for (int v = 0; v < values; ++v) {
        root[v] = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? fuzz_arrays::id(in, values) : v;
        flags[v] = in.ConsumeIntegralInRange<int>(0, 31) == 0 ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange<int>(0, 7);
    }
    const bool with_mask = in.ConsumeBool();
    Exact<int> mask(with_mask ? values : 0);
    for (int v = 0; v < mask.length; ++v) mask[v] = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange<int>(0, 3);
    const int include_inputs = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange<int>(0, 1);
    const long long capacity = memplan_compile_packed_capacity(nv, nn);
    Exact<int> packed(capacity >= 0 && capacity <= (1 << 16) ? static_cast<int>(capacity) - in.ConsumeIntegralInRange<int>(0, 1) * (capacity > 0) : 16);
    Exact<int> counts(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? 2 : MEMPLAN_COMPILE_NUM_COUNTS);
    const long long need = memplan_compile_scratch_bytes(nv, nn, in_off.length > groups ? in_off[groups] : 0, with_mask ? 1 : 0);
    const long long scratch_bytes = need >= 0 && need <= (1 << 20) ? need - in.ConsumeIntegralInRange<int>(0, 1) * 8 : 64;
    std::vector<long long> scratch(static_cast<std::size_t>(scratch_bytes > 0 ? scratch_bytes / 8 + 1 : 1));
    const int rc = memplan_compile_packed(nv, nn, in_off.get(), in_off.length, ins.get(), ins.length, out_off.get(),
                                          out_off.length, outs.get(), outs.length, root.get(), root.length,
                                          flags.get(), flags.length, with_mask ? mask.get() : nullptr, mask.length,
                                          include_inputs, packed.get(), packed.length, counts.get(), counts.length,
                                          scratch.data(), scratch_bytes);
    require(rc == MEMPLAN_OK || rc == MEMPLAN_CYCLE || rc == MEMPLAN_BAD_ARGUMENT, "compile code", rc);
    if (rc == MEMPLAN_CYCLE) {
        require(counts[MEMPLAN_COMPILE_ERROR_NODE] >= 0 && counts[MEMPLAN_COMPILE_ERROR_NODE] < nn, "cycle node",
                counts[MEMPLAN_COMPILE_ERROR_NODE]);
    }
    if (rc != MEMPLAN_OK) return 0;
    require(usable(in_off, nn, num_inputs) && usable(out_off, nn, num_outputs) && values == nv, "accepted bad arrays");
    const int num_owners = counts[MEMPLAN_COMPILE_NUM_OWNERS];
    const int schedule_length = counts[MEMPLAN_COMPILE_SCHEDULE_LENGTH];
    Exact<int> schedule(schedule_length);
    const int copied = memplan_copy_schedule(packed.get(), packed.length, nv, nn, num_owners, schedule.get(),
                                             schedule.length);
    require(copied == MEMPLAN_OK, "copy of an accepted schedule", copied);
    check_schedule(nv, nn, in_off, ins, out_off, outs, root, flags, schedule.get(), num_owners);
    plan_request(in, nv, nn, schedule.get(), schedule.length, num_owners);
    return 0;
}
