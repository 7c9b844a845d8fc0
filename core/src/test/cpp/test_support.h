// SPDX-License-Identifier: Apache-2.0
// What the C++ tests share: the check harness, a graph model with compile and
// allocate wrappers, a naive reference planner written here independently
// (quadratic Kahn, linear-scan free list), random generators and the offsets
// planner's call and validity check. One test file per header of the core
// (compile.h has two: compile_test.cpp and compile_helpers_test.cpp);
// memplan_core_test.cpp is the one runner.

#ifndef MEMPLAN_TEST_SUPPORT_H
#define MEMPLAN_TEST_SUPPORT_H

#include "memplan_core.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace memplan_test {

// ---------------------------------------------------------------- harness

inline int g_case_failures = 0;  // failed checks in the running case
inline int g_passed = 0;
inline int g_failed = 0;

inline void report_failure(const char* file, int line, const std::string& what) {
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
inline std::string vec_str(const std::vector<T>& v) {
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

inline void run_case(const char* name, void (*fn)()) {
    g_case_failures = 0;
    fn();
    if (g_case_failures == 0) {
        ++g_passed;
    } else {
        ++g_failed;
        std::printf("FAILED: %s (%d failed checks)\n", name, g_case_failures);
    }
}

inline int isize(std::size_t n) { return static_cast<int>(n); }

template <typename T>
inline T* ptr(std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }
template <typename T>
inline const T* cptr(const std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }

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

inline Csr to_csr(const Graph& g) {
    Csr c;
    for (int n = 0; n < g.num_nodes(); ++n) {
        for (int u : g.ins[static_cast<std::size_t>(n)]) c.in.push_back(u);
        for (int v : g.outs[static_cast<std::size_t>(n)]) c.out.push_back(v);
        c.in_off.push_back(isize(c.in.size()));
        c.out_off.push_back(isize(c.out.size()));
    }
    return c;
}

// Exactly the scratch memplan_compile asks for (8-byte aligned), so ASan sees
// any write past it. in_off may be anything a test passes: a count the
// compile will refuse anyway gets a scratch of one array per temporary.
struct CompileScratch {
    std::vector<long long> memory;
    long long bytes = 0;
    CompileScratch(int nv, int nn, const int* in_off, bool in_place) {
        const int num_inputs = nn >= 0 && in_off != nullptr && in_off[nn] >= 0 ? in_off[nn] : 0;
        bytes = memplan_compile_scratch_bytes(std::max(nv, 0), std::max(nn, 0), num_inputs, in_place ? 1 : 0);
        memory.resize(static_cast<std::size_t>(bytes / 8));
    }
    void* data() { return memory.data(); }
};

struct Compiled {
    int rc = -100;
    int num_values = 0;
    int positions = 1;
    int num_owners = -1;
    int error_node = -2;
    std::vector<int> order, owner_value, owner_def, owner_use_end, def_offsets, free_offsets, free_owners;
    std::vector<int> value_buffer;
};

inline Compiled compile_graph(const Graph& g, int include, const std::vector<int>* in_place_mask = nullptr) {
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
    r.value_buffer.assign(std::max<std::size_t>(v, 1), -7);
    r.def_offsets.assign(static_cast<std::size_t>(r.positions) + 1, -7);
    r.free_offsets.assign(static_cast<std::size_t>(r.positions) + 1, -7);
    CompileScratch scratch(g.nv, n, c.in_off.data(), in_place_mask != nullptr);
    r.rc = memplan_compile(g.nv, n, c.in_off.data(), cptr(c.in), c.out_off.data(), cptr(c.out), cptr(g.root),
                           cptr(g.flags), in_place_mask == nullptr ? nullptr : cptr(*in_place_mask), include,
                           ptr(r.order), ptr(r.owner_value), ptr(r.owner_def), ptr(r.owner_use_end),
                           r.def_offsets.data(), r.free_offsets.data(), ptr(r.free_owners), r.value_buffer.data(),
                           &r.num_owners, &r.error_node, scratch.data(), scratch.bytes);
    r.value_buffer.resize(v);
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
inline Alloc allocate_raw(int num_values, int positions, const std::vector<int>& def_offsets,
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

inline Alloc allocate(const Compiled& c, const std::vector<long long>& sizes) {
    return allocate_raw(c.num_values, c.positions, c.def_offsets, c.free_offsets, c.free_owners, c.owner_value,
                        sizes);
}

inline std::vector<long long> uniform_sizes(const Compiled& c, long long size) {
    return std::vector<long long>(c.owner_value.size(), size);
}

inline int slot_of(const Alloc& a, int value) { return a.value_slot[static_cast<std::size_t>(value)]; }

// ---------------------------------------------------------------- reference

struct Ref {
    int rc = MEMPLAN_OK;
    int error_node = -1;
    std::vector<int> order, owner_value, owner_def, owner_use_end;
};

// Straight from docs/design.md §3: quadratic Kahn, owners, intervals.
inline Ref ref_compile(const Graph& g, int include) {
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
inline RefAlloc ref_allocate(const std::vector<int>& def, const std::vector<int>& use_end,
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
inline void ref_buckets(const std::vector<int>& def, const std::vector<int>& use_end, int positions,
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
inline bool plan_is_valid(const std::vector<int>& def, const std::vector<int>& use_end, const std::vector<long long>& size,
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
inline void check_allocation_matches(const Compiled& c, const std::vector<long long>& sizes) {
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

inline double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---------------------------------------------------------------- randomized

inline int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A random graph in the project's model: graph inputs, initializers, nodes
// consuming earlier values (absent and repeated inputs, views of an input,
// outputs never read), then node and value ids shuffled so that creation
// order and execution order differ. Sometimes an extra input creates a cycle.
inline Graph random_graph(std::mt19937& rng, int max_nodes, bool maybe_cycle) {
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

inline std::vector<long long> random_sizes(std::mt19937& rng, std::size_t k) {
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

// ---------------------------------------------------------------- offsets

struct OffsetsRun {
    int rc;
    std::vector<long long> offset;
    long long stats[4];
};

// The scratch starts filled with `garbage`: the planner must not depend on its contents. With
// `with_search` it is large enough for the fit and canonical phases too (else they allocate).
inline OffsetsRun run_offsets(int positions, const std::vector<int>& def, const std::vector<int>& end,
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

// Greedy by size, first fit, from the definition (OffsetPlannerFitTest.quadraticFirstFit): each
// buffer in turn at the lowest offset where no earlier buffer live at the same time overlaps it.
inline std::vector<long long> quadratic_first_fit(const std::vector<int>& by_size, int m, const std::vector<int>& def,
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

// Independent check: no two overlapping, sized buffers share a byte; all inside the arena.
inline bool offsets_valid(const std::vector<int>& def, const std::vector<int>& end, const std::vector<long long>& size,
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

inline long long naive_lower_bound(int positions, const std::vector<int>& def, const std::vector<int>& end,
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

// Each test file's cases, run in this order by memplan_core_test.cpp.
// One raw call of memplan_allocate on a three-owner schedule, for argument checks:
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

void run_compile_tests();
void run_exact_packing_tests();
void run_in_place_links_tests();
void run_compile_helpers_tests();
void run_slots_allocate_tests();
void run_treap_priority_tests();
void run_free_slot_set_tests();
void run_offsets_plan_tests();
void run_gap_arena_tests();
void run_sweep_tests();
void run_rank_order_tests();
void run_first_fit_tests();
void run_window_fit_tests();
void run_valley_decoder_tests();
void run_packed_schedule_tests();
void run_request_sizes_tests();
void run_ort_arena_tests();
void run_ort_counting_allocator_tests();
void run_ort_malloc_threshold_tests();

}  // namespace memplan_test

#endif  // MEMPLAN_TEST_SUPPORT_H
