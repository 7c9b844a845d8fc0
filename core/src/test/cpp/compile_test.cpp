// SPDX-License-Identifier: Apache-2.0
// Tests for compile.h: hand-built graphs with known orders, owners and plans,
// argument checks, scale, and seeded random graphs against the reference.

#include "test_support.h"

namespace memplan_test {
namespace {

// ---------------------------------------------------------------- hand-built graphs

void test_chain_of_four() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(), c = g.value(), d = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});
    g.node({a}, {b});
    g.node({b}, {c});
    g.node({c}, {d});
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.order, (std::vector<int>{0, 1, 2, 3}));
    CHECK_VEC(cc.owner_value, (std::vector<int>{a, b, c, d}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{0, 1, 2, 3}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{1, 2, 3, 3}));
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 1, 2, 3, 4}));
    CHECK_VEC(cc.free_offsets, (std::vector<int>{0, 0, 1, 2, 4}));
    CHECK_VEC(cc.free_owners, (std::vector<int>{0, 1, 2, 3}));
    const Alloc al = allocate(cc, uniform_sizes(cc, 100));
    CHECK_EQ(al.rc, MEMPLAN_OK);
    CHECK_VEC(al.owner_slot, (std::vector<int>{0, 1, 0, 1}));
    CHECK_VEC(al.capacity, (std::vector<long long>{100, 100}));
    CHECK_VEC(al.stats, (std::vector<long long>{2, 200, 400, 200}));
    CHECK_EQ(slot_of(al, x), -1);
}

void test_diamond() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(), c = g.value(), d = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({b, c}, {d});  // node 0 is the join: it must still run last
    g.node({x}, {a});
    g.node({a}, {b});
    g.node({a}, {c});
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.order, (std::vector<int>{1, 2, 3, 0}));
    CHECK_VEC(cc.owner_value, (std::vector<int>{a, b, c, d}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{2, 3, 3, 3}));
    const Alloc al = allocate(cc, uniform_sizes(cc, 8));
    CHECK_EQ(al.rc, MEMPLAN_OK);
    // a frees after c is placed (position 2), so d reuses a's slot.
    CHECK_VEC(al.owner_slot, (std::vector<int>{0, 1, 2, 0}));
    CHECK_VEC(al.stats, (std::vector<long long>{3, 24, 32, 24}));
    check_allocation_matches(cc, uniform_sizes(cc, 8));
}

void test_graph_output_slot_never_reused() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(MEMPLAN_GRAPH_OUTPUT), b = g.value(), c = g.value(), d = g.value(), e = g.value();
    g.node({x}, {a});
    g.node({a}, {b});
    g.node({b}, {c});
    g.node({c}, {d});
    g.node({d}, {e});
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_EQ(cc.owner_use_end[0], 4);
    const Alloc al = allocate(cc, uniform_sizes(cc, 16));
    CHECK_EQ(al.rc, MEMPLAN_OK);
    const int sa = slot_of(al, a);
    for (int v : {b, c, d, e}) CHECK(slot_of(al, v) != sa);
    CHECK_EQ(al.stats[0], 3);
}

void test_views_extend_root_and_own_nothing() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), v1 = g.value(), v2 = g.value(), b = g.value(), c = g.value(), d = g.value();
    g.view(v1, a);
    g.view(v2, v1);  // view of a view folds to a
    g.node({x}, {a});
    g.node({a}, {v1});
    g.node({v1}, {v2});
    g.node({v2}, {b});
    g.node({b}, {c});
    g.node({c}, {d});
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.owner_value, (std::vector<int>{a, b, c, d}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{0, 3, 4, 5}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{3, 4, 5, 5}));
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 1, 1, 1, 2, 3, 4}));
    const Alloc al = allocate(cc, uniform_sizes(cc, 10));
    CHECK_EQ(al.rc, MEMPLAN_OK);
    CHECK_EQ(slot_of(al, v1), -1);
    CHECK_EQ(slot_of(al, v2), -1);
    CHECK(slot_of(al, b) != slot_of(al, a));  // a is still read through v2 at b's def
    check_allocation_matches(cc, uniform_sizes(cc, 10));

    // A view that is a graph output keeps its root alive to the end.
    Graph h;
    const int hx = h.value(MEMPLAN_GRAPH_INPUT);
    const int ha = h.value(), hv = h.value(MEMPLAN_GRAPH_OUTPUT), hb = h.value(), hc = h.value();
    h.view(hv, ha);
    h.node({hx}, {ha});
    h.node({ha}, {hv});
    h.node({hx}, {hb});
    h.node({hb}, {hc});
    const Compiled hcc = compile_graph(h, 0);
    CHECK_EQ(hcc.rc, MEMPLAN_OK);
    CHECK_VEC(hcc.owner_value, (std::vector<int>{ha, hb, hc}));
    CHECK_VEC(hcc.owner_use_end, (std::vector<int>{3, 3, 3}));

    // A view of a graph input extends that input when inputs are included.
    Graph k;
    const int kx = k.value(MEMPLAN_GRAPH_INPUT);
    const int kv = k.value(), ka = k.value(), kb = k.value();
    k.view(kv, kx);
    k.node({kx}, {kv});
    k.node({kx}, {ka});
    k.node({kv}, {kb});
    const Compiled kcc = compile_graph(k, 1);
    CHECK_EQ(kcc.rc, MEMPLAN_OK);
    CHECK_VEC(kcc.owner_value, (std::vector<int>{kx, ka, kb}));
    CHECK_VEC(kcc.owner_use_end, (std::vector<int>{2, 1, 2}));
    const Compiled kcc0 = compile_graph(k, 0);
    CHECK_VEC(kcc0.owner_value, (std::vector<int>{ka, kb}));

    // A view made before its root is refused: the root's owner would start after the view's
    // bytes were written (found by the compile fuzzer, src/fuzz/cpp).
    Graph late;
    const int lx = late.value(MEMPLAN_GRAPH_INPUT);
    const int lv = late.value(), la = late.value();
    late.view(lv, la);
    late.node({lx}, {lv});
    late.node({lx}, {la});
    CHECK_EQ(compile_graph(late, 0).rc, MEMPLAN_BAD_ARGUMENT);
}

void test_included_inputs_first_ascending() {
    Graph g;
    const int t = g.value();                          // 0: produced
    const int in_b = g.value(MEMPLAN_GRAPH_INPUT);    // 1
    const int w = g.value(MEMPLAN_INITIALIZER);       // 2: weight, never an owner
    const int in_a = g.value(MEMPLAN_GRAPH_INPUT);    // 3
    const int u = g.value(MEMPLAN_GRAPH_OUTPUT);      // 4
    const int both = g.value(MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER);  // 5: input with a default
    g.node({in_a, w, both}, {t});
    g.node({t, in_b}, {u});
    const Compiled cc = compile_graph(g, 1);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.owner_value, (std::vector<int>{in_b, in_a, t, u}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{0, 0, 0, 1}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{1, 0, 1, 1}));
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 3, 4}));
    CHECK_VEC(cc.free_offsets, (std::vector<int>{0, 1, 4}));
    CHECK_VEC(cc.free_owners, (std::vector<int>{1, 0, 2, 3}));
    const Alloc al = allocate(cc, std::vector<long long>{5, 6, 7, 6});
    CHECK_EQ(al.rc, MEMPLAN_OK);
    // in_b, in_a, t open slots 0..2; in_a frees at 0; u (6) fits in_a's slot (6).
    CHECK_VEC(al.owner_slot, (std::vector<int>{0, 1, 2, 1}));
    CHECK_VEC(al.stats, (std::vector<long long>{3, 18, 24, 18}));
    CHECK_EQ(slot_of(al, w), -1);
    CHECK_EQ(slot_of(al, both), -1);
}

void test_dead_on_arrival_output() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), dead = g.value(), c = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a, dead});
    g.node({a}, {c});
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.owner_value, (std::vector<int>{a, dead, c}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{1, 0, 1}));
    CHECK_VEC(cc.free_offsets, (std::vector<int>{0, 1, 3}));
    CHECK_VEC(cc.free_owners, (std::vector<int>{1, 0, 2}));
    const Alloc al = allocate(cc, uniform_sizes(cc, 4));
    CHECK_EQ(al.rc, MEMPLAN_OK);
    CHECK_EQ(slot_of(al, c), slot_of(al, dead));  // freed at its own def, reused next
    CHECK_EQ(al.stats[0], 2);
}

void test_empty_graphs() {
    Graph g;
    Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_EQ(cc.num_owners, 0);
    CHECK_EQ(cc.error_node, -1);
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 0}));
    CHECK_VEC(cc.free_offsets, (std::vector<int>{0, 0}));
    Alloc a = allocate(cc, {});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.stats, (std::vector<long long>{0, 0, 0, 0}));

    // No nodes, two included inputs that are also graph outputs.
    Graph h;
    h.value(MEMPLAN_GRAPH_INPUT | MEMPLAN_GRAPH_OUTPUT);
    h.value(MEMPLAN_GRAPH_INPUT | MEMPLAN_GRAPH_OUTPUT);
    cc = compile_graph(h, 1);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.owner_value, (std::vector<int>{0, 1}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{0, 0}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{0, 0}));
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 2}));
    CHECK_VEC(cc.free_offsets, (std::vector<int>{0, 2}));
    CHECK_VEC(cc.free_owners, (std::vector<int>{0, 1}));
    a = allocate(cc, {3, 4});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.owner_slot, (std::vector<int>{0, 1}));
    CHECK_VEC(a.stats, (std::vector<long long>{2, 7, 7, 7}));
    cc = compile_graph(h, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_EQ(cc.num_owners, 0);

    // Raw call with every optional pointer null.
    int owners = -1, err = -5;
    int def_off[2] = {-1, -1}, free_off[2] = {-1, -1};
    const int zero[1] = {0};
    CompileScratch empty(0, 0, zero, false);
    CHECK_EQ(memplan_compile(0, 0, zero, nullptr, zero, nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr,
                             nullptr, nullptr, def_off, free_off, nullptr, nullptr, &owners, &err, empty.data(),
                             empty.bytes),
             MEMPLAN_OK);
    CHECK_EQ(owners, 0);
    long long stats[4] = {9, 9, 9, 9};
    CHECK_EQ(memplan_allocate(0, 0, 1, def_off, free_off, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                              stats, nullptr, 0),
             MEMPLAN_OK);
    CHECK_EQ(stats[0] + stats[1] + stats[2] + stats[3], 0);
    CHECK_EQ(memplan_allocate_scratch_bytes(0), 0);
    CHECK_EQ(memplan_allocate_scratch_bytes(-3), 0);
    CHECK(memplan_allocate_scratch_bytes(INT_MAX) >= static_cast<long long>(INT_MAX));
}

void test_nodes_without_outputs_and_absent_inputs() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({}, {});           // no inputs, no outputs
    g.node({x, -1}, {a});     // absent optional input
    g.node({-1, a, a}, {b});  // same input twice
    const Compiled cc = compile_graph(g, 0);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.order, (std::vector<int>{0, 1, 2}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{1, 2}));
    CHECK_VEC(cc.def_offsets, (std::vector<int>{0, 0, 1, 2}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{2, 2}));
    check_allocation_matches(cc, {7, 7});
}

void test_cycles() {
    {
        Graph g;
        const int x = g.value(MEMPLAN_GRAPH_INPUT);
        const int a = g.value(), b = g.value(), c = g.value(), d = g.value();
        g.node({x}, {d});     // 0: fine
        g.node({x}, {a});     // 1: fine
        g.node({a, c}, {b});  // 2: cycle 2 -> 3 -> 2
        g.node({b}, {c});     // 3
        const Compiled cc = compile_graph(g, 0);
        CHECK_EQ(cc.rc, MEMPLAN_CYCLE);
        CHECK_EQ(cc.error_node, 2);
        CHECK_EQ(cc.num_owners, 0);
    }
    {
        Graph g;
        const int x = g.value(MEMPLAN_GRAPH_INPUT);
        const int a = g.value(), b = g.value(), c = g.value();
        g.node({c}, {a});  // 0: downstream of the self-loop, so also unordered
        g.node({x}, {b});  // 1: fine
        g.node({b, c}, {c});  // 2: consumes its own output
        const Compiled cc = compile_graph(g, 0);
        CHECK_EQ(cc.rc, MEMPLAN_CYCLE);
        CHECK_EQ(cc.error_node, 0);
    }
    {
        Graph g;
        const int a = g.value();
        g.node({a}, {a});
        const Compiled cc = compile_graph(g, 1);
        CHECK_EQ(cc.rc, MEMPLAN_CYCLE);
        CHECK_EQ(cc.error_node, 0);
    }
}

// ---------------------------------------------------------------- bad arguments

struct RawCompile {
    int nv = 3, nn = 2;
    std::vector<int> in_off{0, 1, 2}, in{0, 1}, out_off{0, 1, 2}, out{1, 2}, root{0, 1, 2},
        flags{MEMPLAN_GRAPH_INPUT, 0, MEMPLAN_GRAPH_OUTPUT};
    int include = 1;
    std::vector<int> order = std::vector<int>(2), ov = std::vector<int>(3), od = std::vector<int>(3),
                     oe = std::vector<int>(3), doff = std::vector<int>(3), foff = std::vector<int>(3),
                     fo = std::vector<int>(3), vb = std::vector<int>(3);
    int owners = -1, err = -1;
    // The scratch of the graph above: shrunk by some bytes, null, or moved off its alignment.
    long long scratch_short = 0;
    bool null_scratch = false;
    int misalign = 0;
    int run() {
        const int good_in_off[3] = {0, 1, 2};
        CompileScratch s(3, 2, good_in_off, false);
        s.memory.push_back(0);  // room to move the scratch off its alignment
        void* scratch = null_scratch ? nullptr : reinterpret_cast<unsigned char*>(s.data()) + misalign;
        return memplan_compile(nv, nn, cptr(in_off), cptr(in), cptr(out_off), cptr(out), cptr(root), cptr(flags),
                               nullptr, include, ptr(order), ptr(ov), ptr(od), ptr(oe), ptr(doff), ptr(foff),
                               ptr(fo), ptr(vb), &owners, &err, scratch, s.bytes - scratch_short);
    }
};

void test_compile_bad_arguments() {
    CHECK_EQ(RawCompile().run(), MEMPLAN_OK);
    {
        RawCompile r;
        CHECK_EQ(r.run(), MEMPLAN_OK);
        CHECK_EQ(r.owners, 3);
    }
    auto expect_bad = [](RawCompile r, int line) {
        const int rc = r.run();
        if (rc != MEMPLAN_BAD_ARGUMENT) report_failure(__FILE__, line, "expected BAD_ARGUMENT, got " + std::to_string(rc));
        if (r.owners != 0) report_failure(__FILE__, line, "num_owners not reset");
    };
    RawCompile r;
    r = RawCompile(); r.in_off.clear(); expect_bad(r, __LINE__);          // null input_offsets
    r = RawCompile(); r.in.clear(); expect_bad(r, __LINE__);              // null inputs
    r = RawCompile(); r.out.clear(); expect_bad(r, __LINE__);             // null outputs
    r = RawCompile(); r.root.clear(); expect_bad(r, __LINE__);            // null value_root
    r = RawCompile(); r.flags.clear(); expect_bad(r, __LINE__);           // null value_flags
    r = RawCompile(); r.order.clear(); expect_bad(r, __LINE__);           // null order
    r = RawCompile(); r.fo.clear(); expect_bad(r, __LINE__);              // null free_owners
    r = RawCompile(); r.doff.clear(); expect_bad(r, __LINE__);            // null def_offsets
    r = RawCompile(); r.nv = -1; expect_bad(r, __LINE__);                 // negative count
    r = RawCompile(); r.nn = -1; expect_bad(r, __LINE__);
    r = RawCompile(); r.include = 2; expect_bad(r, __LINE__);
    r = RawCompile(); r.in[1] = 3; expect_bad(r, __LINE__);               // input out of range
    r = RawCompile(); r.in[1] = -2; expect_bad(r, __LINE__);
    r = RawCompile(); r.out[1] = 3; expect_bad(r, __LINE__);              // output out of range
    r = RawCompile(); r.out[1] = -1; expect_bad(r, __LINE__);
    r = RawCompile(); r.out[1] = 1; expect_bad(r, __LINE__);              // produced twice
    r = RawCompile(); r.in_off = {0, 2, 1}; r.in = {0, 1}; expect_bad(r, __LINE__);  // non-monotone
    r = RawCompile(); r.in_off = {1, 1, 2}; expect_bad(r, __LINE__);      // does not start at 0
    r = RawCompile(); r.out_off = {0, 3, 2}; expect_bad(r, __LINE__);
    r = RawCompile(); r.root[1] = 3; expect_bad(r, __LINE__);             // root out of range
    r = RawCompile(); r.root[1] = -1; expect_bad(r, __LINE__);
    r = RawCompile(); r.root = {0, 0, 1}; expect_bad(r, __LINE__);        // root of root is not itself
    r = RawCompile(); r.root = {1, 1, 2}; expect_bad(r, __LINE__);        // a graph input as a view
    r = RawCompile(); r.flags[1] = 8; expect_bad(r, __LINE__);            // unknown flag bit
    r = RawCompile(); r.flags[1] = MEMPLAN_GRAPH_INPUT; expect_bad(r, __LINE__);  // produced input
    r = RawCompile(); r.flags[2] = MEMPLAN_INITIALIZER; expect_bad(r, __LINE__);  // produced weight
    r = RawCompile(); r.scratch_short = 1; expect_bad(r, __LINE__);       // scratch one byte short
    r = RawCompile(); r.null_scratch = true; expect_bad(r, __LINE__);     // no scratch
    r = RawCompile(); r.misalign = 4; expect_bad(r, __LINE__);            // scratch not 8-byte aligned
    r = RawCompile(); r.scratch_short = -64; CHECK_EQ(r.run(), MEMPLAN_OK);  // more than asked is fine
    CHECK_EQ(memplan_compile_scratch_bytes(-1, 0, 0, 0), -1);
    CHECK_EQ(memplan_compile_scratch_bytes(0, -1, 0, 0), -1);
    CHECK_EQ(memplan_compile_scratch_bytes(0, 0, -1, 0), -1);
    CHECK_EQ(memplan_compile_scratch_bytes(0, 0, 0, 2), -1);
    // One 8-byte-rounded array per temporary: 7, and 3 more with in-place reuse; never overflows.
    CHECK_EQ(memplan_compile_scratch_bytes(0, 0, 0, 0), 7 * 8);
    CHECK_EQ(memplan_compile_scratch_bytes(3, 2, 2, 1) - memplan_compile_scratch_bytes(3, 2, 2, 0), 3 * 16);
    CHECK(memplan_compile_scratch_bytes(INT_MAX, INT_MAX, INT_MAX, 1) > 10LL * INT_MAX);
    {
        RawCompile q;
        CHECK_EQ(memplan_compile(q.nv, q.nn, q.in_off.data(), q.in.data(), q.out_off.data(), q.out.data(),
                                 q.root.data(), q.flags.data(), nullptr, 1, q.order.data(), q.ov.data(), q.od.data(),
                                 q.oe.data(), q.doff.data(), q.foff.data(), q.fo.data(), q.vb.data(), nullptr, &q.err,
                                 nullptr, 0),
                 MEMPLAN_BAD_ARGUMENT);
        CHECK_EQ(memplan_compile(q.nv, q.nn, q.in_off.data(), q.in.data(), q.out_off.data(), q.out.data(),
                                 q.root.data(), q.flags.data(), nullptr, 1, q.order.data(), q.ov.data(), q.od.data(),
                                 q.oe.data(), q.doff.data(), q.foff.data(), q.fo.data(), q.vb.data(), &q.owners,
                                 nullptr, nullptr, 0),
                 MEMPLAN_BAD_ARGUMENT);
    }
}

// ---------------------------------------------------------------- scale

void test_million_node_chain() {
    const int n = 1000000;
    const int nv = n + 1;
    std::vector<int> in_off(static_cast<std::size_t>(n) + 1), in(static_cast<std::size_t>(n)),
        out_off(static_cast<std::size_t>(n) + 1), out(static_cast<std::size_t>(n));
    std::vector<int> root(static_cast<std::size_t>(nv)), flags(static_cast<std::size_t>(nv), 0);
    for (int i = 0; i <= n; ++i) {
        in_off[static_cast<std::size_t>(i)] = i;
        out_off[static_cast<std::size_t>(i)] = i;
        root[static_cast<std::size_t>(i)] = i;
    }
    for (int i = 0; i < n; ++i) {
        in[static_cast<std::size_t>(i)] = i;
        out[static_cast<std::size_t>(i)] = i + 1;
    }
    flags[0] = MEMPLAN_GRAPH_INPUT;
    flags[static_cast<std::size_t>(n)] = MEMPLAN_GRAPH_OUTPUT;

    Compiled c;
    c.num_values = nv;
    c.positions = n;
    c.order.resize(static_cast<std::size_t>(n));
    c.owner_value.resize(static_cast<std::size_t>(nv));
    c.owner_def.resize(static_cast<std::size_t>(nv));
    c.owner_use_end.resize(static_cast<std::size_t>(nv));
    c.free_owners.resize(static_cast<std::size_t>(nv));
    c.value_buffer.resize(static_cast<std::size_t>(nv));
    c.def_offsets.resize(static_cast<std::size_t>(n) + 1);
    c.free_offsets.resize(static_cast<std::size_t>(n) + 1);
    CompileScratch compile_scratch(nv, n, in_off.data(), false);
    auto t0 = std::chrono::steady_clock::now();
    c.rc = memplan_compile(nv, n, in_off.data(), in.data(), out_off.data(), out.data(), root.data(), flags.data(), nullptr, 0,
                           c.order.data(), c.owner_value.data(), c.owner_def.data(), c.owner_use_end.data(),
                           c.def_offsets.data(), c.free_offsets.data(), c.free_owners.data(), c.value_buffer.data(),
                           &c.num_owners, &c.error_node, compile_scratch.data(), compile_scratch.bytes);
    const double compile_ms = ms_since(t0);
    CHECK_EQ(c.rc, MEMPLAN_OK);
    CHECK_EQ(c.num_owners, n);
    if (c.rc != MEMPLAN_OK) return;
    c.owner_value.resize(static_cast<std::size_t>(n));
    c.free_owners.resize(static_cast<std::size_t>(n));
    bool ordered = true;
    for (int i = 0; i < n; ++i) ordered = ordered && c.order[static_cast<std::size_t>(i)] == i;
    CHECK(ordered);

    const std::vector<long long> sizes(static_cast<std::size_t>(n), 64);
    Alloc a = allocate(c, sizes);
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.stats, (std::vector<long long>{2, 128, 64LL * n, 128}));
    bool alternating = true;
    for (int i = 0; i < n; ++i) alternating = alternating && a.owner_slot[static_cast<std::size_t>(i)] == i % 2;
    CHECK(alternating);

    // Time a second call into warm buffers: the per-request path on its own.
    const long long bytes = memplan_allocate_scratch_bytes(n);
    std::vector<long long> scratch(static_cast<std::size_t>((bytes + 7) / 8));
    a.capacity.resize(static_cast<std::size_t>(n));
    t0 = std::chrono::steady_clock::now();
    const int rc = memplan_allocate(nv, n, n, c.def_offsets.data(), c.free_offsets.data(), c.free_owners.data(),
                                    c.owner_value.data(), sizes.data(), a.owner_slot.data(), a.value_slot.data(),
                                    a.capacity.data(), a.stats.data(), scratch.data(), bytes);
    const double alloc_ms = ms_since(t0);
    CHECK_EQ(rc, MEMPLAN_OK);
    CHECK_EQ(a.stats[0], 2);
    std::printf("info: 1,000,000-node chain: compile %.1f ms, allocate %.1f ms\n", compile_ms, alloc_ms);

    // The same chain with node ids reversed: the order follows edges, not ids.
    for (int i = 0; i < n; ++i) {
        const int node = n - 1 - i;  // node `node` runs i-th
        in[static_cast<std::size_t>(node)] = i;
        out[static_cast<std::size_t>(node)] = i + 1;
    }
    c.rc = memplan_compile(nv, n, in_off.data(), in.data(), out_off.data(), out.data(), root.data(), flags.data(), nullptr, 0,
                           c.order.data(), c.owner_value.data(), c.owner_def.data(), c.owner_use_end.data(),
                           c.def_offsets.data(), c.free_offsets.data(), c.free_owners.data(), c.value_buffer.data(),
                           &c.num_owners, &c.error_node, compile_scratch.data(), compile_scratch.bytes);
    CHECK_EQ(c.rc, MEMPLAN_OK);
    CHECK_EQ(c.order[0], n - 1);
    CHECK_EQ(c.order[static_cast<std::size_t>(n) - 1], 0);
}

void check_random_graph(const Graph& g, int include, std::mt19937& rng) {
    const Compiled c = compile_graph(g, include);
    const Ref r = ref_compile(g, include);
    CHECK_EQ(c.rc, r.rc);
    if (c.rc != r.rc) return;
    if (c.rc == MEMPLAN_CYCLE) {
        CHECK_EQ(c.error_node, r.error_node);
        return;
    }
    CHECK_VEC(c.order, r.order);
    CHECK_VEC(c.owner_value, r.owner_value);
    CHECK_VEC(c.owner_def, r.owner_def);
    CHECK_VEC(c.owner_use_end, r.owner_use_end);
    std::vector<int> doff, foff, fo;
    ref_buckets(r.owner_def, r.owner_use_end, c.positions, &doff, &foff, &fo);
    CHECK_VEC(c.def_offsets, doff);
    CHECK_VEC(c.free_offsets, foff);
    CHECK_VEC(c.free_owners, fo);
    for (int trial = 0; trial < 3; ++trial) check_allocation_matches(c, random_sizes(rng, c.owner_value.size()));
}

void test_random_dags_against_reference() {
    int cycles = 0;
    for (unsigned seed = 1; seed <= 400 && g_case_failures == 0; ++seed) {
        std::mt19937 rng(seed);
        const Graph g = random_graph(rng, seed % 10 == 0 ? 150 : 30, true);
        const int include = pick(rng, 0, 1);
        check_random_graph(g, include, rng);
        if (ref_compile(g, include).rc == MEMPLAN_CYCLE) ++cycles;
        if (g_case_failures != 0) std::printf("  (seed %u)\n", seed);
    }
    CHECK(cycles > 5);  // the generator really does exercise cycles
}

// Corrupt one entry of a valid call's arrays: the result must be a clean
// return code, never a crash or an out-of-bounds access (ASan watches).
void test_corrupted_inputs_never_crash() {
    for (unsigned seed = 5000; seed < 5300; ++seed) {
        std::mt19937 rng(seed);
        const Graph g = random_graph(rng, 25, false);
        Csr c = to_csr(g);
        std::vector<int> root = g.root, flags = g.flags;
        const int n = g.num_nodes();
        const int garbage = pick(rng, 0, 3) == 0 ? pick(rng, INT_MIN, INT_MAX) : pick(rng, -3, g.nv + 3);
        switch (pick(rng, 0, 5)) {
            case 0: if (n > 0) c.in_off[static_cast<std::size_t>(pick(rng, 0, n - 1))] = garbage; break;
            case 1: if (n > 0) c.out_off[static_cast<std::size_t>(pick(rng, 0, n - 1))] = garbage; break;
            case 2: if (!c.in.empty()) c.in[static_cast<std::size_t>(pick(rng, 0, isize(c.in.size()) - 1))] = garbage; break;
            case 3: if (!c.out.empty()) c.out[static_cast<std::size_t>(pick(rng, 0, isize(c.out.size()) - 1))] = garbage; break;
            case 4: if (g.nv > 0) root[static_cast<std::size_t>(pick(rng, 0, g.nv - 1))] = garbage; break;
            default: if (g.nv > 0) flags[static_cast<std::size_t>(pick(rng, 0, g.nv - 1))] = garbage; break;
        }
        const int positions = std::max(n, 1);
        std::vector<int> order(static_cast<std::size_t>(n)), ov(static_cast<std::size_t>(g.nv)),
            od(static_cast<std::size_t>(g.nv)), oe(static_cast<std::size_t>(g.nv)),
            doff(static_cast<std::size_t>(positions) + 1), foff(static_cast<std::size_t>(positions) + 1),
            fo(static_cast<std::size_t>(g.nv)), vb(static_cast<std::size_t>(std::max(g.nv, 1)));
        std::vector<int> mask(static_cast<std::size_t>(g.nv), 0);  // in-place masks, sometimes garbage
        for (int& m : mask) m = pick(rng, 0, 2) == 0 ? pick(rng, INT_MIN, INT_MAX) : pick(rng, 0, 3);
        int owners = -1, err = -1;
        const bool in_place = pick(rng, 0, 1) == 1;
        CompileScratch scratch(g.nv, n, c.in_off.data(), in_place);
        const int rc = memplan_compile(g.nv, n, c.in_off.data(), cptr(c.in), c.out_off.data(), cptr(c.out),
                                       cptr(root), cptr(flags), in_place ? cptr(mask) : nullptr, 1,
                                       ptr(order), ptr(ov), ptr(od), ptr(oe), doff.data(), foff.data(), ptr(fo),
                                       vb.data(), &owners, &err, scratch.data(), scratch.bytes);
        CHECK(rc == MEMPLAN_OK || rc == MEMPLAN_CYCLE || rc == MEMPLAN_BAD_ARGUMENT);

        // Now corrupt a valid compile result before allocating.
        const Compiled cc = compile_graph(g, pick(rng, 0, 1));
        if (cc.rc != MEMPLAN_OK) continue;
        std::vector<int> d = cc.def_offsets, f = cc.free_offsets, fw = cc.free_owners, owv = cc.owner_value;
        const int k = cc.num_owners;
        const int junk = pick(rng, 0, 3) == 0 ? pick(rng, INT_MIN, INT_MAX) : pick(rng, -2, k + 2);
        switch (pick(rng, 0, 3)) {
            case 0: d[static_cast<std::size_t>(pick(rng, 0, positions))] = junk; break;
            case 1: f[static_cast<std::size_t>(pick(rng, 0, positions))] = junk; break;
            case 2: if (k > 0) fw[static_cast<std::size_t>(pick(rng, 0, k - 1))] = junk; break;
            default: if (k > 0) owv[static_cast<std::size_t>(pick(rng, 0, k - 1))] = junk; break;
        }
        const Alloc a = allocate_raw(cc.num_values, positions, d, f, fw, owv, random_sizes(rng, owv.size()));
        CHECK(a.rc == MEMPLAN_OK || a.rc == MEMPLAN_BAD_ARGUMENT);
        if (g_case_failures != 0) {
            std::printf("  (seed %u)\n", seed);
            break;
        }
    }
}

}  // namespace

void run_compile_tests() {
    run_case("chain of four", test_chain_of_four);
    run_case("diamond", test_diamond);
    run_case("graph output slot never reused", test_graph_output_slot_never_reused);
    run_case("views extend root and own nothing", test_views_extend_root_and_own_nothing);
    run_case("included inputs first, ascending id", test_included_inputs_first_ascending);
    run_case("dead-on-arrival output", test_dead_on_arrival_output);
    run_case("empty graphs", test_empty_graphs);
    run_case("nodes without outputs, absent inputs", test_nodes_without_outputs_and_absent_inputs);
    run_case("cycles", test_cycles);
    run_case("compile bad arguments", test_compile_bad_arguments);
    run_case("1,000,000-node chain", test_million_node_chain);
    run_case("random DAGs vs reference", test_random_dags_against_reference);
    run_case("corrupted inputs never crash", test_corrupted_inputs_never_crash);
}

}  // namespace memplan_test
