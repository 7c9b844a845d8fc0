// SPDX-License-Identifier: Apache-2.0
// Tests for in_place_links.h through memplan_compile: hand-built graphs whose
// links are known, bad masks, and seeded random graphs with random masks
// against a slow reference written here.

#include "test_support.h"

namespace memplan_test {
namespace {

// x -> n0 -> a -> n1 (may overwrite a) -> b -> n2 Add(a, b) (may overwrite either) -> c:
// a is read again by n2, so b keeps its own buffer; c takes a's.
void test_in_place_read_again() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(), c = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});
    g.node({a}, {b});
    g.node({a, b}, {c});
    const std::vector<int> mask{0, 0, 1, 3};
    const Compiled cc = compile_graph(g, 0, &mask);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.value_buffer, (std::vector<int>{x, a, b, a}));
    CHECK_VEC(cc.owner_value, (std::vector<int>{a, b}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{2, 2}));  // a's buffer lives on as the output c
}

// A chain of in-place ops shares one buffer; views of a linked value follow it.
void test_in_place_chain_and_views() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(), bv = g.value(), c = g.value(), d = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});
    g.node({a}, {b});
    g.node({b}, {bv});
    g.view(bv, b);
    g.node({bv}, {c});
    g.node({c, x}, {d});
    const std::vector<int> mask{0, 0, 1, 0, 1, 1};
    const Compiled cc = compile_graph(g, 0, &mask);
    CHECK_EQ(cc.rc, MEMPLAN_OK);
    CHECK_VEC(cc.value_buffer, (std::vector<int>{x, a, a, a, a, a}));
    CHECK_VEC(cc.owner_value, (std::vector<int>{a}));
    CHECK_VEC(cc.owner_def, (std::vector<int>{0}));
    CHECK_VEC(cc.owner_use_end, (std::vector<int>{4}));
}

// Refused: a graph input (even included), a buffer that is a graph output, an
// input read twice by the node, a second output of the same node.
void test_in_place_refusals() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(MEMPLAN_GRAPH_OUTPUT), b = g.value(), c = g.value(), d = g.value(), e = g.value(),
              f = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});     // x is a graph input
    g.node({a}, {b});     // a is a graph output
    g.node({b, b}, {c});  // b read twice
    g.node({c}, {d, e});  // d takes c; e may not take it too
    g.node({d, e}, {f});
    const std::vector<int> mask{0, 1, 1, 1, 1, 1, 0};
    for (int include = 0; include <= 1; ++include) {
        const Compiled cc = compile_graph(g, include, &mask);
        CHECK_EQ(cc.rc, MEMPLAN_OK);
        CHECK_VEC(cc.value_buffer, (std::vector<int>{x, a, b, c, c, e, f}));
    }
}

void test_in_place_bad_masks() {
    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a = g.value(), b = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a});
    g.node({a, -1}, {b});
    const std::vector<std::vector<int>> bad{
        {1, 0, 0},           // a mask on a graph input, which nothing produces
        {0, 0, 2},           // input 1 of n1 is absent
        {0, 0, 4},           // n1 has no input 2
        {0, 0, INT_MIN},     // bit 31: far past its inputs
        {0, 0, -1}};
    for (const std::vector<int>& m : bad) CHECK_EQ(compile_graph(g, 0, &m).rc, MEMPLAN_BAD_ARGUMENT);
}

// The in-place links written again the slow way: for each candidate, scan the
// whole order for later reads of the buffer.
std::vector<int> ref_in_place(const Graph& g, const std::vector<int>& order, const std::vector<int>& mask) {
    const std::size_t nv = static_cast<std::size_t>(g.nv);
    std::vector<int> buf(g.root);
    std::vector<int> last_given(nv, -1);
    auto buffer_of = [&](int v) { return buf[static_cast<std::size_t>(g.root[static_cast<std::size_t>(v)])]; };
    for (std::size_t p = 0; p < order.size(); ++p) {
        const std::size_t n = static_cast<std::size_t>(order[p]);
        const std::vector<int>& in = g.ins[n];
        for (int v : g.outs[n]) {
            const int m = mask[static_cast<std::size_t>(v)];
            if (m == 0 || g.root[static_cast<std::size_t>(v)] != v) continue;
            for (std::size_t k = 0; k < in.size(); ++k) {
                if ((static_cast<unsigned>(m) & (1U << k)) == 0 || in[k] < 0) continue;
                const int b = buffer_of(in[k]);
                bool ok = (g.flags[static_cast<std::size_t>(b)] & (MEMPLAN_GRAPH_INPUT | MEMPLAN_INITIALIZER)) == 0 &&
                          last_given[static_cast<std::size_t>(b)] != isize(p);
                for (int w = 0; w < g.nv && ok; ++w) {  // no value in b's buffer is a graph output
                    if (buffer_of(w) == b && (g.flags[static_cast<std::size_t>(w)] & MEMPLAN_GRAPH_OUTPUT) != 0) ok = false;
                }
                for (std::size_t j = 0; j < in.size() && ok; ++j) {
                    if (j != k && in[j] >= 0 && buffer_of(in[j]) == b) ok = false;
                }
                for (std::size_t q = p + 1; q < order.size() && ok; ++q) {  // nothing reads b later
                    for (int u : g.ins[static_cast<std::size_t>(order[q])]) {
                        if (u >= 0 && buffer_of(u) == b) ok = false;
                    }
                }
                if (!ok) continue;
                buf[static_cast<std::size_t>(v)] = b;
                last_given[static_cast<std::size_t>(b)] = isize(p);
                break;
            }
        }
    }
    std::vector<int> out(nv);
    for (std::size_t v = 0; v < nv; ++v) out[v] = buffer_of(isize(v));
    return out;
}

// Random graphs with random masks: the links match the slow reference, and the
// owners and intervals are those of the reference compile with the links as views.
void test_in_place_random_against_reference() {
    int linked = 0;
    for (unsigned seed = 1; seed <= 400 && g_case_failures == 0; ++seed) {
        std::mt19937 rng(seed + 5000);
        const Graph g = random_graph(rng, seed % 10 == 0 ? 150 : 30, false);
        std::vector<int> producer(static_cast<std::size_t>(g.nv), -1);
        for (int n = 0; n < g.num_nodes(); ++n) {
            for (int v : g.outs[static_cast<std::size_t>(n)]) producer[static_cast<std::size_t>(v)] = n;
        }
        std::vector<int> mask(static_cast<std::size_t>(g.nv), 0);
        for (int v = 0; v < g.nv; ++v) {
            const int n = producer[static_cast<std::size_t>(v)];
            if (n < 0 || pick(rng, 0, 2) == 0) continue;
            const std::vector<int>& in = g.ins[static_cast<std::size_t>(n)];
            for (std::size_t k = 0; k < in.size() && k < 32; ++k) {
                if (in[k] >= 0 && pick(rng, 0, 1) == 0) mask[static_cast<std::size_t>(v)] |= 1 << k;
            }
        }
        const int include = pick(rng, 0, 1);
        const Compiled c = compile_graph(g, include, &mask);
        CHECK_EQ(c.rc, MEMPLAN_OK);
        if (c.rc != MEMPLAN_OK) continue;
        const std::vector<int> expected = ref_in_place(g, c.order, mask);
        CHECK_VEC(c.value_buffer, expected);
        Graph linked_as_views = g;
        linked_as_views.root = expected;
        const Ref r = ref_compile(linked_as_views, include);
        CHECK_VEC(c.owner_value, r.owner_value);
        CHECK_VEC(c.owner_def, r.owner_def);
        CHECK_VEC(c.owner_use_end, r.owner_use_end);
        for (int v = 0; v < g.nv; ++v) linked += expected[static_cast<std::size_t>(v)] != g.root[static_cast<std::size_t>(v)];
        if (g_case_failures != 0) std::printf("  (seed %u)\n", seed);
    }
    CHECK(linked > 400);  // the masks really link values
}

}  // namespace

void run_in_place_links_tests() {
    run_case("in-place: read again, then taken", test_in_place_read_again);
    run_case("in-place: a chain shares one buffer, views follow", test_in_place_chain_and_views);
    run_case("in-place: refusals", test_in_place_refusals);
    run_case("in-place: bad masks", test_in_place_bad_masks);
    run_case("in-place: random masks vs a slow reference", test_in_place_random_against_reference);
}

}  // namespace memplan_test
