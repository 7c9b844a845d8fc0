// SPDX-License-Identifier: Apache-2.0
// Tests for memplan_core.h: hand-built graphs with known plans, argument
// checks, and seeded random graphs compared against a naive reference planner
// written here independently (quadratic Kahn, linear-scan free list).

#include "memplan_core.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------- harness

int g_case_failures = 0;  // failed checks in the running case
int g_passed = 0;
int g_failed = 0;

void report_failure(const char* file, int line, const std::string& what) {
    ++g_case_failures;
    if (g_case_failures <= 20) std::printf("  FAIL %s:%d: %s\n", file, line, what.c_str());
}

#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond)) report_failure(__FILE__, __LINE__, #cond);       \
    } while (0)

#define CHECK_EQ(a, b)                                                                     \
    do {                                                                                   \
        const long long va_ = static_cast<long long>(a);                                   \
        const long long vb_ = static_cast<long long>(b);                                   \
        if (va_ != vb_) {                                                                  \
            report_failure(__FILE__, __LINE__,                                             \
                           std::string(#a " == " #b ": ") + std::to_string(va_) + " vs " + \
                               std::to_string(vb_));                                       \
        }                                                                                  \
    } while (0)

template <typename T>
std::string vec_str(const std::vector<T>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size() && i < 40; ++i) {
        if (i) s += ",";
        s += std::to_string(v[i]);
    }
    if (v.size() > 40) s += ",...";
    return s + "]";
}

#define CHECK_VEC(a, b)                                                                            \
    do {                                                                                           \
        if (!((a) == (b))) {                                                                       \
            report_failure(__FILE__, __LINE__, std::string(#a " == " #b ": ") + vec_str(a) + " vs " + \
                                                   vec_str(b));                                    \
        }                                                                                          \
    } while (0)

void run_case(const char* name, void (*fn)()) {
    g_case_failures = 0;
    fn();
    if (g_case_failures == 0) {
        ++g_passed;
    } else {
        ++g_failed;
        std::printf("FAILED: %s (%d failed checks)\n", name, g_case_failures);
    }
}

int isize(std::size_t n) { return static_cast<int>(n); }

template <typename T>
T* ptr(std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }
template <typename T>
const T* cptr(const std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }

// ---------------------------------------------------------------- graph model

struct Graph {
    int nv = 0;
    std::vector<std::vector<int>> ins, outs;
    std::vector<int> root, flags;

    int value(int f = 0) {
        root.push_back(nv);
        flags.push_back(f);
        return nv++;
    }
    int node(std::vector<int> in, std::vector<int> out) {
        ins.push_back(std::move(in));
        outs.push_back(std::move(out));
        return isize(ins.size()) - 1;
    }
    void view(int v, int source) { root[static_cast<std::size_t>(v)] = root[static_cast<std::size_t>(source)]; }
    int num_nodes() const { return isize(ins.size()); }
};

struct Csr {
    std::vector<int> in_off{0}, in, out_off{0}, out;
};

Csr to_csr(const Graph& g) {
    Csr c;
    for (int n = 0; n < g.num_nodes(); ++n) {
        for (int u : g.ins[static_cast<std::size_t>(n)]) c.in.push_back(u);
        for (int v : g.outs[static_cast<std::size_t>(n)]) c.out.push_back(v);
        c.in_off.push_back(isize(c.in.size()));
        c.out_off.push_back(isize(c.out.size()));
    }
    return c;
}

struct Compiled {
    int rc = -100;
    int num_values = 0;
    int positions = 1;
    int num_owners = -1;
    int error_node = -2;
    std::vector<int> order, owner_value, owner_def, owner_use_end, def_offsets, free_offsets, free_owners;
};

Compiled compile_graph(const Graph& g, int include) {
    const Csr c = to_csr(g);
    const int n = g.num_nodes();
    const std::size_t v = static_cast<std::size_t>(g.nv);
    Compiled r;
    r.num_values = g.nv;
    r.positions = std::max(n, 1);
    r.order.assign(static_cast<std::size_t>(n), -7);
    r.owner_value.assign(v, -7);
    r.owner_def.assign(v, -7);
    r.owner_use_end.assign(v, -7);
    r.free_owners.assign(v, -7);
    r.def_offsets.assign(static_cast<std::size_t>(r.positions) + 1, -7);
    r.free_offsets.assign(static_cast<std::size_t>(r.positions) + 1, -7);
    r.rc = memplan_compile(g.nv, n, c.in_off.data(), cptr(c.in), c.out_off.data(), cptr(c.out), cptr(g.root),
                           cptr(g.flags), include, ptr(r.order), ptr(r.owner_value), ptr(r.owner_def),
                           ptr(r.owner_use_end), r.def_offsets.data(), r.free_offsets.data(), ptr(r.free_owners),
                           &r.num_owners, &r.error_node);
    const std::size_t k = static_cast<std::size_t>(std::max(r.num_owners, 0));
    r.owner_value.resize(k);
    r.owner_def.resize(k);
    r.owner_use_end.resize(k);
    r.free_owners.resize(k);
    return r;
}

struct Alloc {
    int rc = -100;
    std::vector<int> owner_slot, value_slot;
    std::vector<long long> capacity, stats;
};

// Calls memplan_allocate with exactly the scratch it asks for (8-byte aligned).
Alloc allocate_raw(int num_values, int positions, const std::vector<int>& def_offsets,
                   const std::vector<int>& free_offsets, const std::vector<int>& free_owners,
                   const std::vector<int>& owner_value, const std::vector<long long>& sizes) {
    const int k = isize(owner_value.size());
    Alloc a;
    a.owner_slot.assign(owner_value.size(), -7);
    a.value_slot.assign(static_cast<std::size_t>(num_values), -7);
    a.capacity.assign(owner_value.size(), -7);
    a.stats.assign(4, -7);
    const long long bytes = memplan_allocate_scratch_bytes(k);
    std::vector<long long> scratch(static_cast<std::size_t>((bytes + 7) / 8));
    a.rc = memplan_allocate(num_values, k, positions, def_offsets.data(), free_offsets.data(), cptr(free_owners),
                            cptr(owner_value), cptr(sizes), ptr(a.owner_slot), ptr(a.value_slot), ptr(a.capacity),
                            a.stats.data(), ptr(scratch), bytes);
    if (a.rc == MEMPLAN_OK) a.capacity.resize(static_cast<std::size_t>(a.stats[0]));
    return a;
}

Alloc allocate(const Compiled& c, const std::vector<long long>& sizes) {
    return allocate_raw(c.num_values, c.positions, c.def_offsets, c.free_offsets, c.free_owners, c.owner_value,
                        sizes);
}

std::vector<long long> uniform_sizes(const Compiled& c, long long size) {
    return std::vector<long long>(c.owner_value.size(), size);
}

int slot_of(const Alloc& a, int value) { return a.value_slot[static_cast<std::size_t>(value)]; }

// ---------------------------------------------------------------- reference

struct Ref {
    int rc = MEMPLAN_OK;
    int error_node = -1;
    std::vector<int> order, owner_value, owner_def, owner_use_end;
};

// Straight from docs/design.md §3: quadratic Kahn, owners, intervals.
Ref ref_compile(const Graph& g, int include) {
    Ref r;
    const int n = g.num_nodes();
    std::vector<int> producer(static_cast<std::size_t>(g.nv), -1);
    for (int i = 0; i < n; ++i)
        for (int v : g.outs[static_cast<std::size_t>(i)]) producer[static_cast<std::size_t>(v)] = i;
    std::vector<bool> done(static_cast<std::size_t>(n), false);
    for (int step = 0; step < n; ++step) {
        int pick = -1;
        for (int i = 0; i < n && pick < 0; ++i) {
            if (done[static_cast<std::size_t>(i)]) continue;
            bool ready = true;
            for (int u : g.ins[static_cast<std::size_t>(i)]) {
                if (u >= 0 && producer[static_cast<std::size_t>(u)] >= 0 &&
                    !done[static_cast<std::size_t>(producer[static_cast<std::size_t>(u)])])
                    ready = false;
            }
            if (ready) pick = i;
        }
        if (pick < 0) {
            r.rc = MEMPLAN_CYCLE;
            for (int i = 0; i < n; ++i) {
                if (!done[static_cast<std::size_t>(i)]) {
                    r.error_node = i;
                    break;
                }
            }
            return r;
        }
        done[static_cast<std::size_t>(pick)] = true;
        r.order.push_back(pick);
    }
    std::vector<int> owner_of(static_cast<std::size_t>(g.nv), -1);
    auto is_root = [&](int v) { return g.root[static_cast<std::size_t>(v)] == v; };
    auto flag = [&](int v, int f) { return (g.flags[static_cast<std::size_t>(v)] & f) != 0; };
    if (include) {
        for (int v = 0; v < g.nv; ++v) {
            if (flag(v, MEMPLAN_GRAPH_INPUT) && !flag(v, MEMPLAN_INITIALIZER) && is_root(v)) {
                owner_of[static_cast<std::size_t>(v)] = isize(r.owner_value.size());
                r.owner_value.push_back(v);
                r.owner_def.push_back(0);
            }
        }
    }
    for (int p = 0; p < n; ++p) {
        for (int v : g.outs[static_cast<std::size_t>(r.order[static_cast<std::size_t>(p)])]) {
            if (is_root(v) && !flag(v, MEMPLAN_INITIALIZER)) {
                owner_of[static_cast<std::size_t>(v)] = isize(r.owner_value.size());
                r.owner_value.push_back(v);
                r.owner_def.push_back(p);
            }
        }
    }
    r.owner_use_end = r.owner_def;
    for (int p = 0; p < n; ++p) {
        for (int u : g.ins[static_cast<std::size_t>(r.order[static_cast<std::size_t>(p)])]) {
            if (u < 0) continue;
            const int o = owner_of[static_cast<std::size_t>(g.root[static_cast<std::size_t>(u)])];
            if (o >= 0) {
                int& e = r.owner_use_end[static_cast<std::size_t>(o)];
                e = std::max(e, p);
            }
        }
    }
    for (int v = 0; v < g.nv; ++v) {
        if (!flag(v, MEMPLAN_GRAPH_OUTPUT)) continue;
        const int o = owner_of[static_cast<std::size_t>(g.root[static_cast<std::size_t>(v)])];
        if (o >= 0) r.owner_use_end[static_cast<std::size_t>(o)] = std::max(n - 1, 0);
    }
    return r;
}

struct RefAlloc {
    std::vector<int> owner_slot;
    std::vector<long long> capacity;
    long long peak = 0, naive = 0, lower = 0;
};

// Greedy best fit exactly as docs/design.md §5 words it: a linear scan over a free list.
RefAlloc ref_allocate(const std::vector<int>& def, const std::vector<int>& use_end,
                      const std::vector<long long>& size, int positions) {
    RefAlloc r;
    const std::size_t k = def.size();
    r.owner_slot.assign(k, -1);
    std::vector<int> free_list;
    for (int p = 0; p < positions; ++p) {
        for (std::size_t i = 0; i < k; ++i) {
            if (def[i] != p) continue;
            int best = -1;
            std::size_t best_at = 0;
            for (std::size_t f = 0; f < free_list.size(); ++f) {
                const int s = free_list[f];
                const long long cap = r.capacity[static_cast<std::size_t>(s)];
                if (cap < size[i]) continue;
                if (best < 0 || cap < r.capacity[static_cast<std::size_t>(best)] ||
                    (cap == r.capacity[static_cast<std::size_t>(best)] && s < best)) {
                    best = s;
                    best_at = f;
                }
            }
            if (best >= 0) {
                free_list.erase(free_list.begin() + static_cast<std::ptrdiff_t>(best_at));
            } else {
                best = isize(r.capacity.size());
                r.capacity.push_back(size[i]);
            }
            r.owner_slot[i] = best;
        }
        for (std::size_t i = 0; i < k; ++i) {
            if (use_end[i] == p) free_list.push_back(r.owner_slot[i]);
        }
    }
    for (long long c : r.capacity) r.peak += c;
    for (long long s : size) r.naive += s;
    for (int p = 0; p < positions; ++p) {
        long long live = 0;
        for (std::size_t i = 0; i < k; ++i)
            if (def[i] <= p && p <= use_end[i]) live += size[i];
        r.lower = std::max(r.lower, live);
    }
    return r;
}

// Bucket arrays as compile must produce them, built the obvious way.
void ref_buckets(const std::vector<int>& def, const std::vector<int>& use_end, int positions,
                 std::vector<int>* def_offsets, std::vector<int>* free_offsets, std::vector<int>* free_owners) {
    def_offsets->assign(1, 0);
    free_offsets->assign(1, 0);
    free_owners->clear();
    for (int p = 0; p < positions; ++p) {
        int d = 0;
        for (int x : def) d += x <= p ? 1 : 0;
        def_offsets->push_back(d);
        for (std::size_t i = 0; i < use_end.size(); ++i)
            if (use_end[i] == p) free_owners->push_back(isize(i));
        free_offsets->push_back(isize(free_owners->size()));
    }
}

// Independent validity check (docs/design.md §7): overlapping owners never share a
// slot, and every slot is at least as big as each owner in it.
bool plan_is_valid(const std::vector<int>& def, const std::vector<int>& use_end, const std::vector<long long>& size,
                   const std::vector<int>& slot, const std::vector<long long>& capacity) {
    const std::size_t k = def.size();
    for (std::size_t i = 0; i < k; ++i) {
        if (slot[i] < 0 || slot[i] >= isize(capacity.size())) return false;
        if (capacity[static_cast<std::size_t>(slot[i])] < size[i]) return false;
        for (std::size_t j = i + 1; j < k; ++j) {
            if (slot[i] == slot[j] && def[i] <= use_end[j] && def[j] <= use_end[i]) return false;
        }
    }
    return true;
}

// Compares memplan_allocate on compiled output c against the reference.
void check_allocation_matches(const Compiled& c, const std::vector<long long>& sizes) {
    const Alloc a = allocate(c, sizes);
    const RefAlloc r = ref_allocate(c.owner_def, c.owner_use_end, sizes, c.positions);
    CHECK_EQ(a.rc, MEMPLAN_OK);
    if (a.rc != MEMPLAN_OK) return;
    CHECK_VEC(a.owner_slot, r.owner_slot);
    CHECK_VEC(a.capacity, r.capacity);
    CHECK_EQ(a.stats[0], static_cast<long long>(r.capacity.size()));
    CHECK_EQ(a.stats[1], r.peak);
    CHECK_EQ(a.stats[2], r.naive);
    CHECK_EQ(a.stats[3], r.lower);
    CHECK(a.stats[1] >= a.stats[3]);
    CHECK(plan_is_valid(c.owner_def, c.owner_use_end, sizes, a.owner_slot, a.capacity));
    std::vector<int> expect_value_slot(static_cast<std::size_t>(c.num_values), -1);
    for (std::size_t i = 0; i < c.owner_value.size(); ++i)
        expect_value_slot[static_cast<std::size_t>(c.owner_value[i])] = a.owner_slot[i];
    CHECK_VEC(a.value_slot, expect_value_slot);
}

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

// Allocation tie-breaks, driven directly through the bucket arrays: owners
// 0 and 1 are placed at position 0 and freed there, owner 2 comes at position 1.
Alloc two_free_then_one(long long s0, long long s1, long long s2) {
    return allocate_raw(3, 2, {0, 2, 3}, {0, 2, 3}, {0, 1, 2}, {0, 1, 2}, {s0, s1, s2});
}

void test_allocate_tie_breaks() {
    Alloc a = two_free_then_one(10, 10, 10);  // equal capacities: lower slot id
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_EQ(a.owner_slot[2], 0);
    a = two_free_then_one(100, 50, 40);  // smallest sufficient capacity wins
    CHECK_EQ(a.owner_slot[2], 1);
    CHECK_VEC(a.capacity, (std::vector<long long>{100, 50}));  // reused slot keeps 50
    CHECK_VEC(a.stats, (std::vector<long long>{2, 150, 190, 150}));
    a = two_free_then_one(50, 100, 40);
    CHECK_EQ(a.owner_slot[2], 0);
    a = two_free_then_one(100, 50, 200);  // nothing fits: new slot
    CHECK_EQ(a.owner_slot[2], 2);
    CHECK_VEC(a.capacity, (std::vector<long long>{100, 50, 200}));
    CHECK_VEC(a.stats, (std::vector<long long>{3, 350, 350, 200}));
    a = two_free_then_one(100, 50, 50);  // exact fit beats larger
    CHECK_EQ(a.owner_slot[2], 1);
    a = two_free_then_one(30, 20, 25);  // only the larger one fits
    CHECK_EQ(a.owner_slot[2], 0);
    CHECK_VEC(a.capacity, (std::vector<long long>{30, 20}));

    // Slots freed at a position are not available to that position's owners.
    a = allocate_raw(3, 2, {0, 1, 3}, {0, 0, 3}, {0, 1, 2}, {0, 1, 2}, {10, 10, 10});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.owner_slot, (std::vector<int>{0, 1, 2}));
}

void test_zero_size_owners() {
    // Owners 0 (0 bytes) and 1 (5 bytes) free at position 0; then 2 (0), 3 (0), 4 (1).
    const Alloc a = allocate_raw(5, 2, {0, 2, 5}, {0, 2, 5}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 5, 0, 0, 1});
    CHECK_EQ(a.rc, MEMPLAN_OK);
    // 2 takes the zero-capacity slot, 3 the 5-byte one, 4 fits nowhere.
    CHECK_VEC(a.owner_slot, (std::vector<int>{0, 1, 0, 1, 2}));
    CHECK_VEC(a.capacity, (std::vector<long long>{0, 5, 1}));
    CHECK_VEC(a.stats, (std::vector<long long>{3, 6, 6, 5}));

    Graph g;
    const int x = g.value(MEMPLAN_GRAPH_INPUT);
    const int a0 = g.value(), b0 = g.value(), c0 = g.value(MEMPLAN_GRAPH_OUTPUT);
    g.node({x}, {a0});
    g.node({a0}, {b0});
    g.node({b0}, {c0});
    const Compiled cc = compile_graph(g, 1);
    const Alloc z = allocate(cc, uniform_sizes(cc, 0));
    CHECK_EQ(z.rc, MEMPLAN_OK);
    CHECK_VEC(z.stats, (std::vector<long long>{2, 0, 0, 0}));
    check_allocation_matches(cc, uniform_sizes(cc, 0));
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
    CHECK_EQ(memplan_compile(0, 0, zero, nullptr, zero, nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr,
                             nullptr, def_off, free_off, nullptr, &owners, &err),
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
                     fo = std::vector<int>(3);
    int owners = -1, err = -1;
    int run() {
        return memplan_compile(nv, nn, cptr(in_off), cptr(in), cptr(out_off), cptr(out), cptr(root), cptr(flags),
                               include, ptr(order), ptr(ov), ptr(od), ptr(oe), ptr(doff), ptr(foff), ptr(fo),
                               &owners, &err);
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
    {
        RawCompile q;
        CHECK_EQ(memplan_compile(q.nv, q.nn, q.in_off.data(), q.in.data(), q.out_off.data(), q.out.data(),
                                 q.root.data(), q.flags.data(), 1, q.order.data(), q.ov.data(), q.od.data(),
                                 q.oe.data(), q.doff.data(), q.foff.data(), q.fo.data(), nullptr, &q.err),
                 MEMPLAN_BAD_ARGUMENT);
        CHECK_EQ(memplan_compile(q.nv, q.nn, q.in_off.data(), q.in.data(), q.out_off.data(), q.out.data(),
                                 q.root.data(), q.flags.data(), 1, q.order.data(), q.ov.data(), q.od.data(),
                                 q.oe.data(), q.doff.data(), q.foff.data(), q.fo.data(), &q.owners, nullptr),
                 MEMPLAN_BAD_ARGUMENT);
    }
}

struct RawAlloc {
    // Owners 0 and 1 at position 0, owner 0 freed there; owner 2 at position 1.
    int nv = 4, k = 3, positions = 2;
    std::vector<int> doff{0, 2, 3}, foff{0, 1, 3}, fo{0, 1, 2}, ov{3, 0, 1};
    std::vector<long long> size{8, 8, 8};
    std::vector<int> slot = std::vector<int>(3), vslot = std::vector<int>(4);
    std::vector<long long> cap = std::vector<long long>(3), stats = std::vector<long long>(4);
    std::vector<long long> scratch = std::vector<long long>(64);
    long long scratch_bytes = memplan_allocate_scratch_bytes(3);
    void* scratch_ptr = nullptr;
    int run() {
        void* s = scratch_ptr != nullptr ? scratch_ptr : ptr(scratch);
        return memplan_allocate(nv, k, positions, cptr(doff), cptr(foff), cptr(fo), cptr(ov), cptr(size), ptr(slot),
                                ptr(vslot), ptr(cap), ptr(stats), s, scratch_bytes);
    }
};

void test_allocate_bad_arguments() {
    {
        RawAlloc r;
        CHECK_EQ(r.run(), MEMPLAN_OK);
        CHECK_VEC(r.slot, (std::vector<int>{0, 1, 0}));
        CHECK_VEC(r.vslot, (std::vector<int>{1, 0, -1, 0}));
    }
    auto expect_bad = [](RawAlloc r, int line) {
        const int rc = r.run();
        if (rc != MEMPLAN_BAD_ARGUMENT) report_failure(__FILE__, line, "expected BAD_ARGUMENT, got " + std::to_string(rc));
    };
    RawAlloc r;
    r = RawAlloc(); r.doff.clear(); expect_bad(r, __LINE__);           // null pointers
    r = RawAlloc(); r.foff.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.size.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.slot.clear(); expect_bad(r, __LINE__);
    {
        // value_slot is optional: without it the owner slots are the same.
        RawAlloc q;
        q.vslot.clear();
        CHECK_EQ(q.run(), MEMPLAN_OK);
        CHECK_VEC(q.slot, (std::vector<int>{0, 1, 0}));
    }
    r = RawAlloc(); r.cap.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.scratch.clear(); expect_bad(r, __LINE__);
    r = RawAlloc(); r.nv = -1; expect_bad(r, __LINE__);                // negative counts
    r = RawAlloc(); r.k = -1; expect_bad(r, __LINE__);
    r = RawAlloc(); r.positions = 0; expect_bad(r, __LINE__);
    r = RawAlloc(); r.nv = 2; expect_bad(r, __LINE__);                 // more owners than values
    r = RawAlloc(); r.size[1] = -1; expect_bad(r, __LINE__);           // negative size
    r = RawAlloc(); r.scratch_bytes -= 1; expect_bad(r, __LINE__);     // scratch too small
    r = RawAlloc(); r.scratch_ptr = reinterpret_cast<char*>(r.scratch.data()) + 4; expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov[2] = 4; expect_bad(r, __LINE__);              // value id out of range
    r = RawAlloc(); r.ov[2] = -1; expect_bad(r, __LINE__);
    r = RawAlloc(); r.ov[2] = 3; expect_bad(r, __LINE__);              // value listed twice
    r = RawAlloc(); r.doff = {0, 3, 2}; expect_bad(r, __LINE__);       // non-monotone
    r = RawAlloc(); r.doff = {1, 2, 3}; expect_bad(r, __LINE__);       // does not start at 0
    r = RawAlloc(); r.doff = {0, 2, 2}; expect_bad(r, __LINE__);       // does not end at num_owners
    r = RawAlloc(); r.doff = {0, 4, 3}; expect_bad(r, __LINE__);       // past num_owners
    r = RawAlloc(); r.foff = {0, 2, 1}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.foff = {0, 1, 2}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo = {0, 1, 3}; expect_bad(r, __LINE__);         // owner index out of range
    r = RawAlloc(); r.fo = {-1, 1, 2}; expect_bad(r, __LINE__);
    r = RawAlloc(); r.fo = {2, 1, 0}; expect_bad(r, __LINE__);         // freed before it is placed
    r = RawAlloc(); r.fo = {0, 0, 2}; expect_bad(r, __LINE__);         // freed again after its slot was reused
    r = RawAlloc(); r.fo = {0, 2, 0}; expect_bad(r, __LINE__);         // freed twice while its slot is free
    {
        RawAlloc q;
        CHECK_EQ(memplan_allocate(q.nv, q.k, q.positions, q.doff.data(), q.foff.data(), q.fo.data(), q.ov.data(),
                                  q.size.data(), q.slot.data(), q.vslot.data(), q.cap.data(), nullptr,
                                  q.scratch.data(), q.scratch_bytes),
                 MEMPLAN_BAD_ARGUMENT);
    }
}

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

void test_overflow() {
    const long long half = LLONG_MAX / 2 + 1;
    Alloc a = two_free_then_one(half, half, 0);
    CHECK_EQ(a.rc, MEMPLAN_OVERFLOW);
    a = two_free_then_one(LLONG_MAX, 1, 0);
    CHECK_EQ(a.rc, MEMPLAN_OVERFLOW);
    a = two_free_then_one(LLONG_MAX - 1, 1, 0);  // exactly LLONG_MAX is fine
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_VEC(a.stats, (std::vector<long long>{2, LLONG_MAX, LLONG_MAX, LLONG_MAX}));
    a = two_free_then_one(LLONG_MAX - 5, 0, 5);
    CHECK_EQ(a.rc, MEMPLAN_OK);
    CHECK_EQ(a.owner_slot[2], 0);
}

// ---------------------------------------------------------------- scale

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

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
    c.def_offsets.resize(static_cast<std::size_t>(n) + 1);
    c.free_offsets.resize(static_cast<std::size_t>(n) + 1);
    auto t0 = std::chrono::steady_clock::now();
    c.rc = memplan_compile(nv, n, in_off.data(), in.data(), out_off.data(), out.data(), root.data(), flags.data(), 0,
                           c.order.data(), c.owner_value.data(), c.owner_def.data(), c.owner_use_end.data(),
                           c.def_offsets.data(), c.free_offsets.data(), c.free_owners.data(), &c.num_owners,
                           &c.error_node);
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
    c.rc = memplan_compile(nv, n, in_off.data(), in.data(), out_off.data(), out.data(), root.data(), flags.data(), 0,
                           c.order.data(), c.owner_value.data(), c.owner_def.data(), c.owner_use_end.data(),
                           c.def_offsets.data(), c.free_offsets.data(), c.free_owners.data(), &c.num_owners,
                           &c.error_node);
    CHECK_EQ(c.rc, MEMPLAN_OK);
    CHECK_EQ(c.order[0], n - 1);
    CHECK_EQ(c.order[static_cast<std::size_t>(n) - 1], 0);
}

// ---------------------------------------------------------------- randomized

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A random graph in the project's model: graph inputs, initializers, nodes
// consuming earlier values (absent and repeated inputs, views of an input,
// outputs never read), then node and value ids shuffled so that creation
// order and execution order differ. Sometimes an extra input creates a cycle.
Graph random_graph(std::mt19937& rng, int max_nodes, bool maybe_cycle) {
    struct V {
        int root;
        int flags;
    };
    std::vector<V> vals;
    std::vector<int> pool;
    std::vector<std::vector<int>> ins, outs;
    const int num_inputs = pick(rng, 0, 4);
    for (int i = 0; i < num_inputs; ++i) {
        const int f = MEMPLAN_GRAPH_INPUT | (pick(rng, 0, 5) == 0 ? MEMPLAN_GRAPH_OUTPUT : 0);
        pool.push_back(isize(vals.size()));
        vals.push_back({isize(vals.size()), f});
    }
    const int num_weights = pick(rng, 0, 3);
    for (int i = 0; i < num_weights; ++i) {
        const int f = MEMPLAN_INITIALIZER | (pick(rng, 0, 5) == 0 ? MEMPLAN_GRAPH_INPUT : 0);
        pool.push_back(isize(vals.size()));
        vals.push_back({isize(vals.size()), f});
    }
    const int num_nodes = pick(rng, 0, max_nodes);
    for (int t = 0; t < num_nodes; ++t) {
        std::vector<int> in, out;
        const int k = pick(rng, 0, 4);
        for (int j = 0; j < k; ++j) {
            if (pool.empty() || pick(rng, 0, 9) == 0) {
                in.push_back(-1);
            } else {
                // Favour recent values so chains form and intervals stay short.
                const int lo = pick(rng, 0, 2) == 0 ? 0 : std::max(0, isize(pool.size()) - 6);
                in.push_back(pool[static_cast<std::size_t>(pick(rng, lo, isize(pool.size()) - 1))]);
            }
        }
        const int m = pick(rng, 0, 5) == 0 ? pick(rng, 0, 3) : 1;
        for (int j = 0; j < m; ++j) {
            const int id = isize(vals.size());
            V v{id, pick(rng, 0, 6) == 0 ? MEMPLAN_GRAPH_OUTPUT : 0};
            std::vector<int> present;
            for (int u : in)
                if (u >= 0) present.push_back(u);
            if (!present.empty() && pick(rng, 0, 4) == 0) {
                v.root = vals[static_cast<std::size_t>(present[static_cast<std::size_t>(
                                  pick(rng, 0, isize(present.size()) - 1))])]
                             .root;
            }
            vals.push_back(v);
            out.push_back(id);
        }
        ins.push_back(in);
        outs.push_back(out);
        for (int v : out) pool.push_back(v);
    }
    if (maybe_cycle && num_nodes > 0 && pick(rng, 0, 7) == 0) {
        // Feed node t a value made by a node at or after t (maybe a real cycle).
        const int t = pick(rng, 0, num_nodes - 1);
        const int t2 = pick(rng, t, num_nodes - 1);
        if (!outs[static_cast<std::size_t>(t2)].empty()) ins[static_cast<std::size_t>(t)].push_back(outs[static_cast<std::size_t>(t2)][0]);
    }

    std::vector<int> vperm(vals.size()), nperm(ins.size());
    for (std::size_t i = 0; i < vperm.size(); ++i) vperm[i] = isize(i);
    for (std::size_t i = 0; i < nperm.size(); ++i) nperm[i] = isize(i);
    std::shuffle(vperm.begin(), vperm.end(), rng);
    std::shuffle(nperm.begin(), nperm.end(), rng);
    auto map_value = [&](int v) { return v < 0 ? v : vperm[static_cast<std::size_t>(v)]; };

    Graph g;
    g.nv = isize(vals.size());
    g.root.assign(vals.size(), 0);
    g.flags.assign(vals.size(), 0);
    for (std::size_t i = 0; i < vals.size(); ++i) {
        g.root[static_cast<std::size_t>(vperm[i])] = map_value(vals[i].root);
        g.flags[static_cast<std::size_t>(vperm[i])] = vals[i].flags;
    }
    g.ins.assign(ins.size(), {});
    g.outs.assign(outs.size(), {});
    for (std::size_t t = 0; t < ins.size(); ++t) {
        std::vector<int>& gi = g.ins[static_cast<std::size_t>(nperm[t])];
        std::vector<int>& go = g.outs[static_cast<std::size_t>(nperm[t])];
        for (int u : ins[t]) gi.push_back(map_value(u));
        for (int v : outs[t]) go.push_back(map_value(v));
    }
    return g;
}

std::vector<long long> random_sizes(std::mt19937& rng, std::size_t k) {
    std::vector<long long> s(k);
    const int mode = pick(rng, 0, 3);
    for (long long& x : s) {
        switch (mode) {
            case 0: x = 8LL * pick(rng, 0, 4); break;                // few distinct sizes: ties
            case 1: x = pick(rng, 0, 1000); break;                   // mostly distinct
            case 2: x = 64; break;                                   // all equal
            default: x = pick(rng, 0, 3) == 0 ? 0 : 1LL << pick(rng, 0, 40); break;
        }
    }
    return s;
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

// Large free sets stress the treap: random intervals fed straight to allocate.
void test_random_intervals_against_reference() {
    for (unsigned seed = 1000; seed < 1030 && g_case_failures == 0; ++seed) {
        std::mt19937 rng(seed);
        const int positions = pick(rng, 1, 400);
        const int k = pick(rng, 0, 1500);
        std::vector<int> def(static_cast<std::size_t>(k)), use_end(static_cast<std::size_t>(k));
        for (int& d : def) d = pick(rng, 0, positions - 1);
        std::sort(def.begin(), def.end());
        for (std::size_t i = 0; i < def.size(); ++i) {
            const int span = pick(rng, 0, 3) == 0 ? positions : 8;
            use_end[i] = std::min(positions - 1, def[i] + pick(rng, 0, span));
        }
        std::vector<int> doff, foff, fo;
        ref_buckets(def, use_end, positions, &doff, &foff, &fo);
        std::vector<int> ov(static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) ov[static_cast<std::size_t>(i)] = i;
        std::shuffle(ov.begin(), ov.end(), rng);
        // Shuffle within each free bucket: freeing order must not matter.
        for (int p = 0; p < positions; ++p)
            std::shuffle(fo.begin() + foff[static_cast<std::size_t>(p)],
                         fo.begin() + foff[static_cast<std::size_t>(p) + 1], rng);
        for (int trial = 0; trial < 3; ++trial) {
            const std::vector<long long> sizes = random_sizes(rng, static_cast<std::size_t>(k));
            const Alloc a = allocate_raw(k, positions, doff, foff, fo, ov, sizes);
            const RefAlloc r = ref_allocate(def, use_end, sizes, positions);
            CHECK_EQ(a.rc, MEMPLAN_OK);
            if (a.rc != MEMPLAN_OK) break;
            CHECK_VEC(a.owner_slot, r.owner_slot);
            CHECK_VEC(a.capacity, r.capacity);
            CHECK_VEC(a.stats, (std::vector<long long>{static_cast<long long>(r.capacity.size()), r.peak, r.naive,
                                                       r.lower}));
        }
        if (g_case_failures != 0) std::printf("  (seed %u)\n", seed);
    }
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
            fo(static_cast<std::size_t>(g.nv));
        int owners = -1, err = -1;
        const int rc = memplan_compile(g.nv, n, c.in_off.data(), cptr(c.in), c.out_off.data(), cptr(c.out),
                                       cptr(root), cptr(flags), 1, ptr(order), ptr(ov), ptr(od), ptr(oe), doff.data(),
                                       foff.data(), ptr(fo), &owners, &err);
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


// ---------------------------------------------------------------- offsets

struct OffsetsRun {
    int rc;
    std::vector<long long> offset;
    long long stats[4];
};

// The scratch starts filled with `garbage`: the planner must not depend on its contents. With
// `with_search` it is large enough for the fit and canonical phases too (else they allocate).
OffsetsRun run_offsets(int positions, const std::vector<int>& def, const std::vector<int>& end,
                       const std::vector<long long>& size, int effort, unsigned char garbage = 0xA5,
                       int with_search = 1) {
    OffsetsRun r;
    r.offset.assign(size.size() + 1, -7);
    const long long bytes = memplan_offsets_scratch_bytes(static_cast<int>(size.size()), positions, with_search);
    std::vector<long long> scratch(static_cast<std::size_t>(std::max(bytes, 8LL) / 8 + 1));
    std::memset(scratch.data(), garbage, scratch.size() * sizeof(long long));
    r.rc = memplan_offsets_plan(static_cast<int>(size.size()), positions, def.data(), end.data(), size.data(), effort,
                                r.offset.data(), r.stats, scratch.data(), bytes);
    r.offset.resize(size.size());
    return r;
}

// Independent check: no two overlapping, sized buffers share a byte; all inside the arena.
bool offsets_valid(const std::vector<int>& def, const std::vector<int>& end, const std::vector<long long>& size,
                   const std::vector<long long>& offset, long long peak) {
    const std::size_t n = size.size();
    for (std::size_t a = 0; a < n; ++a) {
        if (size[a] == 0) continue;
        if (offset[a] < 0 || offset[a] + size[a] > peak) return false;
        for (std::size_t b = a + 1; b < n; ++b) {
            if (size[b] == 0) continue;
            const bool live_together = def[a] <= end[b] && def[b] <= end[a];
            const bool bytes_overlap = offset[a] < offset[b] + size[b] && offset[b] < offset[a] + size[a];
            if (live_together && bytes_overlap) return false;
        }
    }
    return true;
}

long long naive_lower_bound(int positions, const std::vector<int>& def, const std::vector<int>& end,
                            const std::vector<long long>& size) {
    long long best = 0;
    for (int p = 0; p < positions; ++p) {
        long long live = 0;
        for (std::size_t i = 0; i < size.size(); ++i) {
            if (def[i] <= p && p <= end[i]) live += size[i];
        }
        best = std::max(best, live);
    }
    return best;
}

void test_offsets_chain_reaches_bound() {
    // 10 -> 1 -> 10: the two big ones share bytes, the small one sits above.
    const std::vector<int> def = {0, 1, 2};
    const std::vector<int> end = {1, 2, 3};
    const std::vector<long long> size = {10, 1, 10};
    for (int effort : {0, 1, 3}) {
        OffsetsRun r = run_offsets(4, def, end, size, effort);
        CHECK_EQ(r.rc, MEMPLAN_OK);
        CHECK_EQ(r.stats[0], 11);
        CHECK_EQ(r.stats[1], 21);
        CHECK_EQ(r.stats[2], 11);
        CHECK_EQ(r.stats[3], 0);  // the sweep reached the bound: no search phase
        CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
    }
}

// The sweep misses the bound on this instance (found by a seeded search), so a search phase
// runs, reaches the bound and reports it, in the caller's scratch or in its own allocation alike.
void test_offsets_search_phase_reported() {
    const std::vector<int> def = {2, 3, 1, 0};
    const std::vector<int> end = {2, 3, 3, 2};
    const std::vector<long long> size = {2, 8, 3, 4};
    for (int with_search : {0, 1}) {
        OffsetsRun r = run_offsets(4, def, end, size, 1, 0x5A, with_search);
        CHECK_EQ(r.rc, MEMPLAN_OK);
        CHECK_EQ(r.stats[2], 11);
        CHECK_EQ(r.stats[3], 1);
        CHECK_EQ(r.stats[0], 11);
        CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
    }
}

void test_offsets_zero_sizes_and_empty() {
    OffsetsRun empty = run_offsets(1, {}, {}, {}, 1);
    CHECK_EQ(empty.rc, MEMPLAN_OK);
    CHECK_EQ(empty.stats[0], 0);
    OffsetsRun zeros = run_offsets(2, {0, 0, 1}, {1, 1, 1}, {0, 5, 0}, 1);
    CHECK_EQ(zeros.rc, MEMPLAN_OK);
    CHECK_EQ(zeros.offset[0], 0);
    CHECK_EQ(zeros.offset[2], 0);
    CHECK_EQ(zeros.stats[0], 5);
}

void test_offsets_bad_arguments() {
    long long stats[4];
    const long long bytes = memplan_offsets_scratch_bytes(2, 2, 0);
    std::vector<long long> block(static_cast<std::size_t>(bytes / 8 + 2));
    void* w = block.data();
    long long offset[2];
    const int def[2] = {0, 1};
    const int end[2] = {1, 1};
    const long long size[2] = {4, 4};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, nullptr, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(-1, 2, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 0, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, -1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, MEMPLAN_MAX_EFFORT + 1, offset, stats, w, bytes),
             MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, INT_MAX, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 1, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);  // end out of range
    CHECK_EQ(memplan_offsets_plan(2, 2, nullptr, end, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const int ends_before_def[2] = {1, 0};  // buffer 1 lives [1, 0]
    CHECK_EQ(memplan_offsets_plan(2, 2, def, ends_before_def, size, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const long long negative[2] = {4, -1};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, negative, 1, offset, stats, w, bytes), MEMPLAN_BAD_ARGUMENT);
    const long long huge[2] = {LLONG_MAX, 1};
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, huge, 1, offset, stats, w, bytes), MEMPLAN_OVERFLOW);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, nullptr, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, w, bytes - 1), MEMPLAN_BAD_ARGUMENT);
    void* misaligned = static_cast<char*>(w) + 4;
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, misaligned, bytes), MEMPLAN_BAD_ARGUMENT);
    CHECK_EQ(memplan_offsets_plan(2, 2, def, end, size, 1, offset, stats, w, bytes), MEMPLAN_OK);
    CHECK_EQ(memplan_offsets_scratch_bytes(-1, 2, 0), -1);
    CHECK_EQ(memplan_offsets_scratch_bytes(2, 0, 1), -1);
    CHECK(memplan_offsets_scratch_bytes(2, 2, 1) > bytes);

}

// The radix sorts of the size and length ranks give exactly the merge sort's order under
// rank_before (a total order), on keys that share some bytes and differ in others.
void test_offsets_radix_rank_matches_comparison_sort() {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 300);
        const int n = pick(rng, 0, 400);
        std::vector<int> def(static_cast<std::size_t>(n)), end(static_cast<std::size_t>(n));
        std::vector<long long> size(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < size.size(); ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = pick(rng, def[i], positions - 1);
            const int shape = pick(rng, 0, 3);
            size[i] = shape == 0 ? 0
                      : shape == 1 ? static_cast<long long>(pick(rng, 1, 4)) << 20
                                   : (static_cast<long long>(pick(rng, 0, 70000)) << 24) + pick(rng, 1, 255);
        }
        for (int rank : {memplan_offsets::kRankSize, memplan_offsets::kRankLength}) {
            std::vector<int> radix(size.size() + 1), expected(size.size() + 1), scratch(size.size() + 1);
            std::vector<long long> length(size.size() + 1);
            std::vector<int> histogram(memplan_offsets::kRadixBuckets);
            const int m = memplan_offsets::rank_order(rank, n, def.data(), end.data(), size.data(), radix.data(),
                                                      scratch.data(), length.data(), histogram.data());
            int k = 0;
            for (int i = 0; i < n; ++i) {
                if (size[static_cast<std::size_t>(i)] != 0) expected[static_cast<std::size_t>(k++)] = i;
            }
            CHECK_EQ(m, k);
            memplan_offsets::merge_sort_by_rank(rank, expected.data(), m, def.data(), end.data(), size.data(),
                                                scratch.data());
            CHECK(std::equal(radix.begin(), radix.begin() + m, expected.begin()));
        }
    }
}

void test_offsets_random_intervals_valid() {
    std::mt19937 rng(20261130);
    for (int round = 0; round < 300; ++round) {
        const int positions = pick(rng, 1, 40);
        const int n = pick(rng, 0, 60);
        std::vector<int> def(static_cast<std::size_t>(n)), end(static_cast<std::size_t>(n));
        std::vector<long long> size(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < size.size(); ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = pick(rng, def[i], std::min(positions - 1, def[i] + pick(rng, 0, 12)));
            size[i] = pick(rng, 0, 4) == 0 ? 0 : static_cast<long long>(pick(rng, 1, 1000));
        }
        const long long bound = naive_lower_bound(positions, def, end, size);
        for (int effort : {0, 1, 2}) {
            OffsetsRun r = run_offsets(positions, def, end, size, effort);
            CHECK_EQ(r.rc, MEMPLAN_OK);
            CHECK_EQ(r.stats[2], bound);
            CHECK(r.stats[0] >= bound);
            CHECK(offsets_valid(def, end, size, r.offset, r.stats[0]));
            OffsetsRun zeroed = run_offsets(positions, def, end, size, effort, 0x00, 0);
            CHECK(zeroed.offset == r.offset);
            CHECK_EQ(zeroed.stats[0], r.stats[0]);
        }
    }
}

// Greedy by size, first fit, from the definition (OffsetPlannerFitTest.quadraticFirstFit): each
// buffer in turn at the lowest offset where no earlier buffer live at the same time overlaps it.
std::vector<long long> quadratic_first_fit(const std::vector<int>& by_size, int m, const std::vector<int>& def,
                                           const std::vector<int>& end, const std::vector<long long>& size) {
    std::vector<long long> offset(size.size(), 0);
    for (int k = 0; k < m; ++k) {
        const int b = by_size[static_cast<std::size_t>(k)];
        std::vector<int> placed;
        for (int j = 0; j < k; ++j) {
            const int y = by_size[static_cast<std::size_t>(j)];
            if (def[static_cast<std::size_t>(y)] <= end[static_cast<std::size_t>(b)] &&
                def[static_cast<std::size_t>(b)] <= end[static_cast<std::size_t>(y)]) {
                placed.push_back(y);
            }
        }
        std::stable_sort(placed.begin(), placed.end(), [&](int x, int y) {
            return offset[static_cast<std::size_t>(x)] < offset[static_cast<std::size_t>(y)];
        });
        long long candidate = 0;
        for (int y : placed) {
            if (offset[static_cast<std::size_t>(y)] >= candidate + size[static_cast<std::size_t>(b)]) break;
            candidate = std::max(candidate, offset[static_cast<std::size_t>(y)] + size[static_cast<std::size_t>(y)]);
        }
        offset[static_cast<std::size_t>(b)] = candidate;
    }
    return offset;
}

void test_offsets_fit_matches_naive_first_fit() {
    std::mt19937 rng(8);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            const int longest = pick(rng, 0, 7) == 0 ? positions - def[i] : std::min(3, positions - def[i]);
            end[i] = def[i] + pick(rng, 0, longest - 1);
            size[i] = pick(rng, 0, 5) == 0 ? 0 : static_cast<long long>(pick(rng, 1, pick(rng, 0, 1) ? 16 : 5000));
        }
        std::vector<long long> delta(static_cast<std::size_t>(positions) + 1);
        const memplan_offsets::SearchCost cost =
            memplan_offsets::search_cost_of(positions, n, def.data(), end.data(), size.data(), delta.data());
        std::vector<int> by_size(un + 1), sort_scratch(un + 1), histogram(memplan_offsets::kRadixBuckets);
        std::vector<long long> length(un + 1);
        const int m = memplan_offsets::rank_order(memplan_offsets::kRankSize, n, def.data(), end.data(), size.data(),
                                                  by_size.data(), sort_scratch.data(), length.data(), histogram.data());
        std::vector<int> list_start(static_cast<std::size_t>(positions) + 1), list_end(static_cast<std::size_t>(positions));
        std::vector<int> entries(static_cast<std::size_t>(cost.entries) + 1), seen(un + 1), overlapping(un + 1),
            merge_scratch(un + 1);
        memplan_offsets::FirstFit fit{positions,         def.data(),      end.data(),  size.data(),
                                      list_start.data(), list_end.data(), entries.data(), seen.data(),
                                      overlapping.data(), merge_scratch.data()};
        std::vector<long long> offset(un + 1, -3);
        const long long peak = fit.place(by_size.data(), m, n, offset.data());
        offset.resize(un);
        const std::vector<long long> expected = quadratic_first_fit(by_size, m, def, end, size);
        CHECK(offset == expected);
        long long expected_peak = 0;
        for (std::size_t i = 0; i < un; ++i) expected_peak = std::max(expected_peak, expected[i] + size[i]);
        CHECK_EQ(peak, expected_peak);
        CHECK(offsets_valid(def, end, size, offset, peak));
    }
}

// The valley decoder places every buffer where the canonical decoder does, for
// every rank (OffsetPlannerValleyTest.valleyDecoderMatchesTheCanonicalDecoder):
// few distinct sizes and one-step buffers make ties in heights and ranks common.
void test_offsets_valley_matches_canonical() {
    std::mt19937 rng(10);
    for (int round = 0; round < 300; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        const int kinds = pick(rng, 1, 4);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            const int longest = pick(rng, 0, 2) == 0 ? 3 : positions - def[i];
            end[i] = std::min(positions - 1, def[i] + pick(rng, 0, longest - 1));
            size[i] = pick(rng, 0, 9) == 0 ? 0 : static_cast<long long>(pick(rng, 1, kinds)) * (pick(rng, 0, 1) ? 8 : 16);
        }
        int sized = 0;
        for (std::size_t i = 0; i < un; ++i) sized += size[i] != 0 ? 1 : 0;
        const int leaves = memplan_offsets::ValleyDecoder::leaves_for(positions);
        std::vector<long long> tree_max(2 * static_cast<std::size_t>(leaves)), tree_tag(2 * static_cast<std::size_t>(leaves));
        std::vector<int> heap_rank(un + 1);
        std::vector<long long> heap_key(un + 1);
        memplan_offsets::Canonical canonical{n, def.data(), end.data(), size.data(),
                                             memplan_offsets::SkylineTree{false, leaves, positions, tree_max.data(),
                                                                          tree_tag.data()},
                                             heap_rank.data(), heap_key.data()};
        memplan_offsets::ValleyDecoder valley(positions, def.data(), end.data(), size.data(), n, sized);
        CHECK(valley.allocated());
        for (int rank = 0; rank < memplan_offsets::kNumRanks; ++rank) {
            std::vector<int> by_rank(un + 1), sort_scratch(un + 1), histogram(memplan_offsets::kRadixBuckets);
            std::vector<long long> length(un + 1);
            const int m = memplan_offsets::rank_order(rank, n, def.data(), end.data(), size.data(), by_rank.data(),
                                                      sort_scratch.data(), length.data(), histogram.data());
            std::vector<long long> expected(un + 1, -3), offset(un + 1, -4);
            const long long expected_peak = canonical.decode(by_rank.data(), m, LLONG_MAX / 4, expected.data());
            const long long peak = valley.decode(by_rank.data(), m, offset.data());
            expected.resize(un);
            offset.resize(un);
            CHECK_EQ(peak, expected_peak);
            CHECK(offset == expected);
            CHECK(offsets_valid(def, end, size, offset, peak));
        }
    }
}

// A sweep paused at a limit and run on to the end plans exactly as one that never paused
// (OffsetPlannerFitTest.pausedSweepFinishesAsAnUnpausedOne).
void test_offsets_paused_sweep_finishes_as_unpaused() {
    std::mt19937 rng(9);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 60);
        const int n = pick(rng, 0, 149);
        const std::size_t un = static_cast<std::size_t>(n);
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = def[i] + pick(rng, 0, std::min(5, positions - 1 - def[i]));
            size[i] = pick(rng, 0, 5) == 0 ? 0 : static_cast<long long>(pick(rng, 1, 1000));
        }
        const long long bytes = memplan_offsets_scratch_bytes(n, positions, 0);
        auto sweep_with = [&](std::vector<long long>& scratch, std::vector<long long>& offset,
                              memplan_offsets::GapArena& arena) {
            scratch.assign(static_cast<std::size_t>(bytes / 8 + 1), 0);
            offset.assign(un + 1, -5);
            const memplan_offsets::SweepScratch w = memplan_offsets::SweepScratch::carve(scratch.data(), n, positions);
            arena = memplan_offsets::GapArena{n, w.seg_start, w.seg_length, w.prev, w.next, w.left, w.right, w.free_ids, 0};
            memplan_offsets::Sweep sweep{positions, size.data(), offset.data(), w.start_offsets, w.starts,
                                         w.end_offsets, w.ends, arena};
            sweep.init(n, def.data(), end.data(), w.cursor);
            return sweep;
        };
        std::vector<long long> scratch_a, offset_a, scratch_b, offset_b;
        memplan_offsets::GapArena arena_a{}, arena_b{};
        memplan_offsets::Sweep whole = sweep_with(scratch_a, offset_a, arena_a);
        const long long peak = whole.run(memplan_offsets::kNoLimit);
        memplan_offsets::Sweep paused = sweep_with(scratch_b, offset_b, arena_b);
        long long limit = peak == 0 ? 0 : static_cast<long long>(pick(rng, 0, static_cast<int>(peak - 1)));
        int pauses = 0;
        long long result;
        while ((result = paused.run(limit)) == memplan_offsets::kStopped) {
            pauses++;
            limit += 1 + pick(rng, 0, 499);
        }
        CHECK_EQ(result, peak);
        CHECK(offset_a == offset_b);
        CHECK_EQ(peak > 0, pauses > 0);
    }
}

// Size classes change how the sweep finds the best fit, never which gap it is
// (OffsetPlannerFitTest.sizeClassesDoNotChangeTheSweep): the same plan with and
// without them, on narrow and wide instances alike.
void test_offsets_size_classes_do_not_change_the_sweep() {
    std::mt19937 rng(11);
    for (int round = 0; round < 200; ++round) {
        const int positions = pick(rng, 1, 80);
        const int n = pick(rng, 0, 399);
        const std::size_t un = static_cast<std::size_t>(n);
        const bool wide = pick(rng, 0, 1) == 1;
        std::vector<int> def(un), end(un);
        std::vector<long long> size(un);
        for (std::size_t i = 0; i < un; ++i) {
            def[i] = pick(rng, 0, positions - 1);
            end[i] = def[i] + pick(rng, 0, wide ? positions - 1 - def[i] : std::min(5, positions - 1 - def[i]));
            const int bits = pick(rng, 0, 20);
            size[i] = pick(rng, 0, 9) == 0 ? 0 : (1LL << bits) + pick(rng, 0, (1 << bits) - 1);
        }
        const long long bytes = memplan_offsets_scratch_bytes(n, positions, 0);
        std::vector<long long> plans[2];
        long long peaks[2];
        for (int classed = 0; classed < 2; ++classed) {
            std::vector<long long> scratch(static_cast<std::size_t>(bytes / 8 + 1), 0);
            plans[classed].assign(un + 1, -5);
            const memplan_offsets::SweepScratch w = memplan_offsets::SweepScratch::carve(scratch.data(), n, positions);
            memplan_offsets::GapArena arena{n, w.seg_start, w.seg_length, w.prev, w.next, w.left, w.right, w.free_ids, 0};
            memplan_offsets::Sweep sweep{positions, size.data(), plans[classed].data(), w.start_offsets, w.starts,
                                         w.end_offsets, w.ends, arena};
            sweep.init(n, def.data(), end.data(), w.cursor);
            arena.classed = classed == 1;
            peaks[classed] = sweep.run(memplan_offsets::kNoLimit);
        }
        CHECK_EQ(peaks[0], peaks[1]);
        CHECK(plans[0] == plans[1]);
        plans[1].resize(un);
        CHECK(offsets_valid(def, end, size, plans[1], peaks[1]));
    }
}

// ---------------------------------------------------------------- compile helpers, one by one
// Each helper of memplan_compile mirrors the JavaEngine method of the same name.

void test_find_producers() {
    using memplan_detail::find_producers;
    using memplan_detail::NONE;
    // node 0: -> 1, 2; node 1: -> 3; value 0 has no producer
    const std::vector<int> out_off{0, 2, 3};
    std::vector<int> out{1, 2, 3};
    std::vector<int> producer(4, -7);
    CHECK(find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    CHECK_VEC(producer, (std::vector<int>{NONE, 0, 0, 1}));
    out = {1, 2, 1};  // value 1 produced twice
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    out = {1, 2, 4};  // out of range
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
    out = {1, 2, -1};  // an output is never absent
    CHECK(!find_producers(4, 2, out_off.data(), out.data(), producer.data()));
}

void test_valid_values() {
    using memplan_detail::NONE;
    using memplan_detail::valid_values;
    // value 0 graph input, 1 produced, 2 a produced view of 1
    const std::vector<int> producer{NONE, 0, 1};
    std::vector<int> root{0, 1, 1};
    std::vector<int> flags{MEMPLAN_GRAPH_INPUT, 0, MEMPLAN_GRAPH_OUTPUT};
    CHECK(valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = MEMPLAN_INITIALIZER;  // produced initializer
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = 8;  // unknown flag bit
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    flags[1] = 0;
    root = {1, 1, 1};  // the graph input is a view: never produced
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    root = {0, 2, 1};  // a root that is not its own root
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
    root = {0, 1, 3};  // out of range
    CHECK(!valid_values(3, root.data(), flags.data(), producer.data()));
}

void test_successors_and_kahn_order() {
    using memplan_detail::build_successors;
    using memplan_detail::first_waiting;
    using memplan_detail::kahn_order;
    using memplan_detail::NONE;
    // value 0 graph input; node 0: 2, 2 -> 1 (reads 2 twice); node 1: 0 -> 2; node 2: 0, absent -> 3
    const std::vector<int> in_off{0, 2, 3, 5};
    std::vector<int> in{2, 2, 0, 0, NONE};
    const std::vector<int> producer{NONE, 0, 1, 2};
    std::vector<int> indegree(3), succ_off(4), succ(5), cursor(3), ready(3), order(3);
    CHECK(build_successors(4, 3, in_off.data(), in.data(), producer.data(), indegree.data(), succ_off.data(),
                           succ.data(), cursor.data()));
    CHECK_VEC(indegree, (std::vector<int>{2, 0, 0}));  // one edge per consuming input
    CHECK_VEC(succ_off, (std::vector<int>{0, 0, 2, 2}));
    CHECK_EQ(succ[0], 0);
    CHECK_EQ(succ[1], 0);
    CHECK_EQ(kahn_order(3, succ_off.data(), succ.data(), indegree.data(), ready.data(), order.data()), 3);
    CHECK_VEC(order, (std::vector<int>{1, 0, 2}));  // node 0 becomes ready after node 2 but has the smaller id
    CHECK_EQ(first_waiting(3, indegree.data()), NONE);

    in = {2, 2, 0, 0, -2};  // below NONE
    CHECK(!build_successors(4, 3, in_off.data(), in.data(), producer.data(), indegree.data(), succ_off.data(),
                            succ.data(), cursor.data()));

    // A cycle: node 0 reads node 1's output and node 1 reads node 0's; node 2 stands alone.
    const std::vector<int> cyc_off{0, 1, 2, 2};
    const std::vector<int> cyc_in{1, 0};
    const std::vector<int> cyc_producer{1, 0};
    CHECK(build_successors(2, 3, cyc_off.data(), cyc_in.data(), cyc_producer.data(), indegree.data(),
                           succ_off.data(), succ.data(), cursor.data()));
    CHECK_EQ(kahn_order(3, succ_off.data(), succ.data(), indegree.data(), ready.data(), order.data()), 1);
    CHECK_EQ(order[0], 2);
    CHECK_EQ(first_waiting(3, indegree.data()), 0);
}

void test_owners_use_ends_and_buckets() {
    using memplan_detail::bucket_by_use_end;
    using memplan_detail::collect_owners;
    using memplan_detail::compute_use_ends;
    using memplan_detail::NONE;
    // values: 0 graph input, 1 initializer; node 0: 0, 1 -> 2; node 1: 2 -> 3 (a view of 2);
    // node 2: 3 -> 4 (graph output). Order is 0, 1, 2.
    const std::vector<int> in_off{0, 2, 3, 4};
    const std::vector<int> in{0, 1, 2, 3};
    const std::vector<int> out_off{0, 1, 2, 3};
    const std::vector<int> out{2, 3, 4};
    const std::vector<int> root{0, 1, 2, 2, 4};
    const std::vector<int> flags{MEMPLAN_GRAPH_INPUT, MEMPLAN_INITIALIZER, 0, 0, MEMPLAN_GRAPH_OUTPUT};
    const std::vector<int> order{0, 1, 2};
    for (int include : {0, 1}) {
        std::vector<int> owner_index(5, -7), owner_value(5, -7), owner_def(5, -7), owner_use_end(5, -7),
            def_offsets(4, -7);
        const int count = collect_owners(5, 3, 3, out_off.data(), out.data(), root.data(), flags.data(), include,
                                         order.data(), owner_index.data(), owner_value.data(), owner_def.data(),
                                         owner_use_end.data(), def_offsets.data());
        compute_use_ends(5, 3, 3, in_off.data(), in.data(), root.data(), flags.data(), order.data(),
                         owner_index.data(), owner_use_end.data());
        const std::size_t k = static_cast<std::size_t>(count);
        owner_value.resize(k);
        owner_def.resize(k);
        owner_use_end.resize(k);
        std::vector<int> free_offsets(4, -7), free_owners(k, -7), cursor(3);
        bucket_by_use_end(count, 3, owner_use_end.data(), free_offsets.data(), free_owners.data(), cursor.data());
        if (include == 0) {
            CHECK_VEC(owner_value, (std::vector<int>{2, 4}));
            CHECK_VEC(owner_def, (std::vector<int>{0, 2}));
            CHECK_VEC(owner_use_end, (std::vector<int>{2, 2}));  // the view 3 is read at position 2
            CHECK_VEC(def_offsets, (std::vector<int>{0, 1, 1, 2}));
            CHECK_VEC(free_offsets, (std::vector<int>{0, 0, 0, 2}));
            CHECK_VEC(free_owners, (std::vector<int>{0, 1}));
            CHECK_EQ(owner_index[3], NONE);  // a view owns nothing
        } else {
            CHECK_VEC(owner_value, (std::vector<int>{0, 2, 4}));  // the graph input first, def 0
            CHECK_VEC(owner_def, (std::vector<int>{0, 0, 2}));
            CHECK_VEC(owner_use_end, (std::vector<int>{0, 2, 2}));
            CHECK_VEC(def_offsets, (std::vector<int>{0, 2, 2, 3}));
            CHECK_VEC(free_offsets, (std::vector<int>{0, 1, 1, 3}));
            CHECK_VEC(free_owners, (std::vector<int>{0, 1, 2}));
        }
        CHECK_EQ(owner_index[1], NONE);  // an initializer never owns
    }
}

// OffsetPlanner.priority's values in Java: both engines build the same trees.
void test_priority_matches_java() {
    CHECK_EQ(memplan_offsets::priority(0), 0);
    CHECK_EQ(memplan_offsets::priority(1), 682038363);
    CHECK_EQ(memplan_offsets::priority(2), 410673539);
    CHECK_EQ(memplan_offsets::priority(12345), 505636078);
    CHECK_EQ(memplan_offsets::priority(INT_MAX), 2095449940);
}

// The free set against a sorted vector of (capacity, slot id): every poll takes
// the smallest capacity >= need, the lowest id among equals, or NONE.
void test_free_slot_set_against_sorted_list() {
    using memplan_detail::FreeNode;
    using memplan_detail::FreeSlotSet;
    using memplan_detail::NONE;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        const int max_slots = pick(rng, 1, 600);
        std::vector<FreeNode> nodes(static_cast<std::size_t>(max_slots));
        FreeSlotSet set(nodes.data());
        std::vector<std::pair<long long, int>> expected;  // free slots, sorted
        std::vector<long long> capacity;
        for (int step = 0; step < 4000; ++step) {
            const long long need = pick(rng, 0, 40);
            if (pick(rng, 0, 2) == 0 && set.num_slots() < max_slots) {
                const int slot = set.open(need);
                CHECK_EQ(slot, static_cast<int>(capacity.size()));
                capacity.push_back(need);
                set.add(slot);
                expected.insert(std::lower_bound(expected.begin(), expected.end(), std::make_pair(need, slot)),
                                std::make_pair(need, slot));
            } else {
                const auto it = std::lower_bound(expected.begin(), expected.end(), std::make_pair(need, INT_MIN));
                const int want = it == expected.end() ? NONE : it->second;
                CHECK_EQ(set.poll_ceiling(need), want);
                if (it != expected.end()) expected.erase(it);
                // give a random taken slot back now and then
                if (pick(rng, 0, 1) == 0 && want != NONE) {
                    set.add(want);
                    const auto back = std::make_pair(capacity[static_cast<std::size_t>(want)], want);
                    expected.insert(std::lower_bound(expected.begin(), expected.end(), back), back);
                }
            }
            if (g_case_failures != 0) {
                std::printf("  (seed %u, step %d)\n", seed, step);
                return;
            }
        }
    }
}

}  // namespace

int main() {
    run_case("chain of four", test_chain_of_four);
    run_case("diamond", test_diamond);
    run_case("graph output slot never reused", test_graph_output_slot_never_reused);
    run_case("views extend root and own nothing", test_views_extend_root_and_own_nothing);
    run_case("included inputs first, ascending id", test_included_inputs_first_ascending);
    run_case("dead-on-arrival output", test_dead_on_arrival_output);
    run_case("allocate tie-breaks", test_allocate_tie_breaks);
    run_case("zero-size owners", test_zero_size_owners);
    run_case("empty graphs", test_empty_graphs);
    run_case("nodes without outputs, absent inputs", test_nodes_without_outputs_and_absent_inputs);
    run_case("cycles", test_cycles);
    run_case("compile bad arguments", test_compile_bad_arguments);
    run_case("allocate bad arguments", test_allocate_bad_arguments);
    run_case("overflow", test_overflow);
    run_case("1,000,000-node chain", test_million_node_chain);
    run_case("random DAGs vs reference", test_random_dags_against_reference);
    run_case("random intervals vs reference", test_random_intervals_against_reference);
    run_case("corrupted inputs never crash", test_corrupted_inputs_never_crash);
    run_case("find_producers", test_find_producers);
    run_case("valid_values", test_valid_values);
    run_case("build_successors, kahn_order, first_waiting", test_successors_and_kahn_order);
    run_case("collect_owners, compute_use_ends, bucket_by_use_end", test_owners_use_ends_and_buckets);
    run_case("treap priority matches Java", test_priority_matches_java);
    run_case("FreeSlotSet against a sorted list", test_free_slot_set_against_sorted_list);
    run_case("offsets: chain reaches the bound", test_offsets_chain_reaches_bound);
    run_case("offsets: zero sizes and empty", test_offsets_zero_sizes_and_empty);
    run_case("offsets: search phase reported", test_offsets_search_phase_reported);
    run_case("offsets: fit matches a quadratic first fit", test_offsets_fit_matches_naive_first_fit);
    run_case("offsets: a paused sweep finishes as an unpaused one", test_offsets_paused_sweep_finishes_as_unpaused);
    run_case("offsets: valley decoder matches the canonical decoder", test_offsets_valley_matches_canonical);
    run_case("offsets: size classes do not change the sweep", test_offsets_size_classes_do_not_change_the_sweep);
    run_case("offsets: bad arguments", test_offsets_bad_arguments);
    run_case("schedule entry points check every index", test_schedule_entry_points);
    run_case("offsets: random intervals valid", test_offsets_random_intervals_valid);
    run_case("offsets: radix rank order matches the comparison sort", test_offsets_radix_rank_matches_comparison_sort);
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
