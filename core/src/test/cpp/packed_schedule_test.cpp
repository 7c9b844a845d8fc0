// SPDX-License-Identifier: Apache-2.0
// Tests for packed_schedule.h: the entry points NativeCompile and NativeCompiledGraph call.

#include "test_support.h"

namespace memplan_test {
namespace {

// The entry points the JNI layer calls: the schedule packed in one int array,
// read at the indexes given, every one checked against the arrays' lengths.
void test_schedule_entry_points() {
    RawAlloc r;
    CHECK_EQ(r.run(), MEMPLAN_OK);
    // doff at 0, foff at 3, fo at 6, ov at 9
    std::vector<int> packed;
    for (const auto* part : {&r.doff, &r.foff, &r.fo, &r.ov}) packed.insert(packed.end(), part->begin(), part->end());
    const int length = isize(packed.size());
    struct Call {
        int def_at = 0, free_at = 3, free_owners_at = 6, value_at = 9, slot_length = 3, length = 0;
    };
    auto run = [&](Call c, std::vector<int>* slot) {
        std::vector<long long> cap(3), stats(4), scratch(64);
        slot->assign(3, -7);
        return memplan_schedule_allocate(r.nv, r.k, r.positions, packed.data(), c.length, c.def_at, c.free_at,
                                         c.free_owners_at, c.value_at, r.size.data(), slot->data(), c.slot_length,
                                         cap.data(), stats.data(), scratch.data(), r.scratch_bytes);
    };
    std::vector<int> slot;
    Call ok;
    ok.length = length;
    CHECK_EQ(run(ok, &slot), MEMPLAN_OK);
    CHECK_VEC(slot, r.slot);
    Call c = ok; c.def_at = -1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.free_at = length - 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);  // 3 ints from there pass the end
    c = ok; c.free_owners_at = length; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.value_at = length - 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    c = ok; c.slot_length = 2; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);      // result array too short
    c = ok; c.length = length - 1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);   // ov's last int outside
    c = ok; c.length = -1; CHECK_EQ(run(c, &slot), MEMPLAN_BAD_ARGUMENT);
    {
        std::vector<long long> cap(3), stats(4), scratch(64);
        CHECK_EQ(memplan_schedule_allocate(r.nv, r.k, r.positions, nullptr, length, 0, 3, 6, 9, r.size.data(),
                                           slot.data(), 3, cap.data(), stats.data(), scratch.data(), r.scratch_bytes),
                 MEMPLAN_BAD_ARGUMENT);
    }

    // Offsets: intervals [0,1], [1,2], [0,2] over three positions, packed as defs then use ends.
    const std::vector<int> def{0, 1, 0}, use_end{1, 2, 2};
    const std::vector<long long> size{16, 8, 4};
    std::vector<int> intervals{7, 7};  // two ints of something else first
    intervals.insert(intervals.end(), def.begin(), def.end());
    intervals.insert(intervals.end(), use_end.begin(), use_end.end());
    const long long bytes = memplan_offsets_scratch_bytes(3, 3, 1);
    std::vector<long long> scratch(static_cast<std::size_t>((bytes + 7) / 8)), stats(4), expected(3), offset(3);
    CHECK_EQ(memplan_offsets_plan(3, 3, def.data(), use_end.data(), size.data(), 1, expected.data(), stats.data(),
                                  scratch.data(), bytes),
             MEMPLAN_OK);
    const int n = isize(intervals.size());
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 5, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_OK);
    CHECK_VEC(offset, expected);
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, -1, 5, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 6, size.data(), 1, offset.data(), 3,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);  // use ends run past the array
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, intervals.data(), n, 2, 5, size.data(), 1, offset.data(), 2,
                                           stats.data(), scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);  // result array too short
    CHECK_EQ(memplan_schedule_offsets_plan(3, 3, nullptr, n, 2, 5, size.data(), 1, offset.data(), 3, stats.data(),
                                           scratch.data(), bytes),
             MEMPLAN_BAD_ARGUMENT);
}

// A graph's compile into one array, as NativeCompile calls it: the arrays with
// their lengths, a schedule of exactly the capacity asked for (so ASan sees a
// write past it) and exactly the scratch asked for.
struct Packed {
    int rc = -100;
    std::vector<int> schedule, counts;
};

Packed compile_packed(const Graph& g, int include, const std::vector<int>* mask) {
    const Csr c = to_csr(g);
    const int n = g.num_nodes();
    Packed p;
    p.schedule.assign(static_cast<std::size_t>(memplan_compile_packed_capacity(g.nv, n)), -7);
    p.counts.assign(MEMPLAN_COMPILE_NUM_COUNTS, -7);
    CompileScratch scratch(g.nv, n, c.in_off.data(), mask != nullptr);
    p.rc = memplan_compile_packed(g.nv, n, c.in_off.data(), isize(c.in_off.size()), cptr(c.in), isize(c.in.size()),
                                  c.out_off.data(), isize(c.out_off.size()), cptr(c.out), isize(c.out.size()),
                                  cptr(g.root), isize(g.root.size()), cptr(g.flags), isize(g.flags.size()),
                                  mask == nullptr ? nullptr : cptr(*mask), mask == nullptr ? 0 : isize(mask->size()),
                                  include, ptr(p.schedule), isize(p.schedule.size()), p.counts.data(),
                                  isize(p.counts.size()), scratch.data(), scratch.bytes);
    if (p.rc != MEMPLAN_OK) return p;
    // Into an array of exactly the length reported, as NativeCompile does.
    std::vector<int> exact(static_cast<std::size_t>(p.counts[MEMPLAN_COMPILE_SCHEDULE_LENGTH]), -7);
    CHECK_EQ(memplan_copy_schedule(cptr(p.schedule), isize(p.schedule.size()), g.nv, n,
                                   p.counts[MEMPLAN_COMPILE_NUM_OWNERS], ptr(exact), isize(exact.size())),
             MEMPLAN_OK);
    p.schedule = exact;
    return p;
}

std::vector<int> slice(const std::vector<int>& a, long long at, long long n) {
    return std::vector<int>(a.begin() + at, a.begin() + at + n);
}

// The packed schedule holds, slice for slice, what memplan_compile writes into
// separate arrays; the counts and the return code agree too.
void check_packed_matches(const Graph& g, int include, const std::vector<int>* mask) {
    const Compiled c = compile_graph(g, include, mask);
    const Packed p = compile_packed(g, include, mask);
    CHECK_EQ(p.rc, c.rc);
    if (p.rc != c.rc) return;
    if (c.rc == MEMPLAN_CYCLE) CHECK_EQ(p.counts[MEMPLAN_COMPILE_ERROR_NODE], c.error_node);
    if (c.rc != MEMPLAN_OK) return;
    const int n = g.num_nodes();
    const int positions = c.positions;
    const int k = c.num_owners;
    CHECK_EQ(p.counts[MEMPLAN_COMPILE_NUM_OWNERS], k);
    const long long length = n + 2LL * (positions + 1) + g.nv + 4LL * k;
    CHECK_EQ(p.counts[MEMPLAN_COMPILE_SCHEDULE_LENGTH], length);
    if (g_case_failures != 0) return;
    long long at = 0;
    CHECK_VEC(slice(p.schedule, at, n), c.order);
    CHECK_VEC(slice(p.schedule, at += n, positions + 1), c.def_offsets);
    CHECK_VEC(slice(p.schedule, at += positions + 1, positions + 1), c.free_offsets);
    CHECK_VEC(slice(p.schedule, at += positions + 1, g.nv), c.value_buffer);
    CHECK_VEC(slice(p.schedule, at += g.nv, k), c.owner_value);
    CHECK_VEC(slice(p.schedule, at += k, k), c.owner_def);
    CHECK_VEC(slice(p.schedule, at += k, k), c.owner_use_end);
    CHECK_VEC(slice(p.schedule, at += k, k), c.free_owners);
}

// In-place masks that pass valid_in_place: bits only on produced values, each
// naming a present input of the producer; none on about half of the values.
std::vector<int> random_mask(const Graph& g, std::mt19937& rng) {
    std::vector<int> mask(static_cast<std::size_t>(g.nv), 0);
    for (int n = 0; n < g.num_nodes(); ++n) {
        const std::vector<int>& in = g.ins[static_cast<std::size_t>(n)];
        for (int v : g.outs[static_cast<std::size_t>(n)]) {
            if (pick(rng, 0, 1) == 0) continue;
            for (int k = 0; k < isize(in.size()) && k < 32; ++k) {
                if (in[static_cast<std::size_t>(k)] != -1 && pick(rng, 0, 1) == 1) {
                    mask[static_cast<std::size_t>(v)] |= 1 << k;
                }
            }
        }
    }
    return mask;
}

// The same graph with node ids renumbered in its execution order, so that every
// input is made by a lower node: the order compile then takes without Kahn.
Graph renumbered_in_order(const Graph& g, const std::vector<int>& order) {
    Graph r = g;
    for (std::size_t p = 0; p < order.size(); ++p) {
        r.ins[p] = g.ins[static_cast<std::size_t>(order[p])];
        r.outs[p] = g.outs[static_cast<std::size_t>(order[p])];
    }
    return r;
}

void test_compile_packed_matches_compile() {
    int in_order = 0;
    for (unsigned seed = 1; seed <= 400 && g_case_failures == 0; ++seed) {
        std::mt19937 rng(seed);
        const Graph g = random_graph(rng, seed % 10 == 0 ? 120 : 30, true);
        const int include = pick(rng, 0, 1);
        const std::vector<int> mask = random_mask(g, rng);
        check_packed_matches(g, include, nullptr);
        check_packed_matches(g, include, &mask);
        const Ref ref = ref_compile(g, include);
        if (ref.rc == MEMPLAN_OK && g.num_nodes() > 1) {
            // Ids in execution order: the fast path, against the quadratic reference too.
            const Graph sorted = renumbered_in_order(g, ref.order);
            const Compiled c = compile_graph(sorted, include);
            const Ref sorted_ref = ref_compile(sorted, include);
            CHECK_EQ(c.rc, MEMPLAN_OK);
            CHECK_VEC(c.order, sorted_ref.order);
            CHECK_VEC(c.owner_value, sorted_ref.owner_value);
            CHECK_VEC(c.owner_def, sorted_ref.owner_def);
            CHECK_VEC(c.owner_use_end, sorted_ref.owner_use_end);
            check_packed_matches(sorted, include, nullptr);
            check_packed_matches(sorted, include, &mask);
            ++in_order;
        }
        if (g_case_failures != 0) std::printf("  (seed %u)\n", seed);
    }
    CHECK(in_order > 100);
}

// Every length is checked against the counts as FlatGraph.validate checks it,
// and the schedule and counts arrays against what the call writes.
void test_compile_packed_checks_lengths() {
    Graph g;
    g.nv = 0;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(0);
    const int b = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});
    g.node({a, -1}, {b});
    const Csr c = to_csr(g);
    const std::vector<int> mask{0, 0, 1};
    struct Lengths {
        int in_off, in, out_off, out, root, flags, mask, schedule, counts;
    };
    const Lengths ok{3, 3, 3, 2, 3, 3, 3, static_cast<int>(memplan_compile_packed_capacity(3, 2)), 3};
    auto run = [&](const Lengths& l, bool with_mask) {
        std::vector<int> schedule(static_cast<std::size_t>(ok.schedule) + 1, -7), counts(4, -7);
        CompileScratch scratch(g.nv, 2, c.in_off.data(), with_mask);
        return memplan_compile_packed(3, 2, c.in_off.data(), l.in_off, c.in.data(), l.in, c.out_off.data(), l.out_off,
                                      c.out.data(), l.out, g.root.data(), l.root, g.flags.data(), l.flags,
                                      with_mask ? mask.data() : nullptr, l.mask, 1, schedule.data(), l.schedule,
                                      counts.data(), l.counts, scratch.data(), scratch.bytes);
    };
    CHECK_EQ(run(ok, true), MEMPLAN_OK);
    CHECK_EQ(run(ok, false), MEMPLAN_OK);
    Lengths l = ok;
    l.mask = 0;
    CHECK_EQ(run(l, false), MEMPLAN_OK);  // no mask: its length is not read
    for (int field = 0; field < 9; ++field) {
        for (int delta : {-1, 1}) {
            Lengths bad = ok;
            int* f[] = {&bad.in_off, &bad.in, &bad.out_off, &bad.out, &bad.root, &bad.flags,
                        &bad.mask, &bad.schedule, &bad.counts};
            *f[field] += delta;
            // A longer schedule or counts array is fine; every other length must be exact.
            const bool allowed = delta > 0 && (field == 7 || field == 8);
            CHECK_EQ(run(bad, true), allowed ? MEMPLAN_OK : MEMPLAN_BAD_ARGUMENT);
        }
    }
    CHECK_EQ(memplan_compile_packed_capacity(-1, 0), -1);
    CHECK_EQ(memplan_compile_packed_capacity(0, -1), -1);
    CHECK_EQ(memplan_compile_packed_capacity(INT_MAX / 5, 0), -1);
    CHECK_EQ(memplan_compile_packed_capacity(0, 0), 4);  // one position, its two offsets arrays
}

// Invalid and cyclic at once: refused as invalid, as the Java engine's checks
// run before it looks for a cycle.
void test_compile_checks_before_cycle() {
    Graph g;
    g.nv = 0;
    const int a = g.value(0);
    const int b = g.value(0);
    g.node({b}, {a});
    g.node({a}, {b});
    std::vector<int> mask{0, 0};
    CHECK_EQ(compile_packed(g, 0, &mask).rc, MEMPLAN_CYCLE);
    mask[1] = 2;  // input 1 of b's producer: it has one input
    CHECK_EQ(compile_packed(g, 0, &mask).rc, MEMPLAN_BAD_ARGUMENT);
    const Packed cyclic = compile_packed(g, 0, nullptr);
    CHECK_EQ(cyclic.rc, MEMPLAN_CYCLE);
    CHECK_EQ(cyclic.counts[MEMPLAN_COMPILE_ERROR_NODE], 0);
    CHECK_EQ(cyclic.counts[MEMPLAN_COMPILE_NUM_OWNERS], 0);
}

// The copy into the schedule's Java array puts the owner arrays side by side and
// checks every count and length.
void test_copy_schedule() {
    // 2 values, 1 node (1 position): head = 1 + 2 * 2 + 2 = 7 ints, then 4 owner arrays 2 apart.
    const std::vector<int> packed{10, 11, 12, 13, 14, 15, 16, 20, 21, 30, 31, 40, 41, 50, 51};
    CHECK_EQ(memplan_compile_packed_capacity(2, 1), isize(packed.size()));
    std::vector<int> one(8 + 3, -7);  // one owner: head + 4 ints
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, 1, one.data(), 11), MEMPLAN_OK);
    CHECK_VEC(one, std::vector<int>({10, 11, 12, 13, 14, 15, 16, 20, 30, 40, 50}));
    std::vector<int> two(15, -7);
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, 2, two.data(), 15), MEMPLAN_OK);
    CHECK_VEC(two, packed);
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, 1, two.data(), 15), MEMPLAN_BAD_ARGUMENT);  // not exact
    CHECK_EQ(memplan_copy_schedule(packed.data(), 14, 2, 1, 2, two.data(), 15), MEMPLAN_BAD_ARGUMENT);  // short source
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, 3, two.data(), 15), MEMPLAN_BAD_ARGUMENT);  // owners > values
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, -1, two.data(), 15), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, -2, 1, 0, two.data(), 15), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_copy_schedule(nullptr, 15, 2, 1, 2, two.data(), 15), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_copy_schedule(packed.data(), 15, 2, 1, 2, nullptr, 15), MEMPLAN_BAD_ARGUMENT);
}

}  // namespace

void run_packed_schedule_tests() {
    run_case("copy of a packed schedule checks every count", test_copy_schedule);
    run_case("compile into one array matches compile", test_compile_packed_matches_compile);
    run_case("compile into one array checks every length", test_compile_packed_checks_lengths);
    run_case("compile checks its arguments before the cycle", test_compile_checks_before_cycle);
    run_case("schedule entry points check every index", test_schedule_entry_points);
}

}  // namespace memplan_test
