// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's C API where ONNX Runtime Java has no method for it: find the loaded library and
// its function table, and read a session's allocator statistics (ort_counting_allocator.h
// registers memplan's allocator through the same table).
// ORT Java loads libonnxruntime.so itself (from a temporary copy it may already have deleted),
// so the library is found among the loaded objects, never loaded again. Every entry point checks
// its arguments and returns a status code with a one-line message; nothing here throws.
#ifndef MEMPLAN_ORT_ARENA_H
#define MEMPLAN_ORT_ARENA_H

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#define MEMPLAN_ORT_OK 0
#define MEMPLAN_ORT_UNAVAILABLE 1
#define MEMPLAN_ORT_BAD_ARGUMENT 2
#define MEMPLAN_ORT_FAILED 3
// Where memplan_ort_arena_stats writes each figure (AllocatorGetStats' keys).
#define MEMPLAN_ORT_STAT_IN_USE 0
#define MEMPLAN_ORT_STAT_MAX_IN_USE 1
#define MEMPLAN_ORT_STAT_TOTAL_ALLOCATED 2
#define MEMPLAN_ORT_STAT_NUM_ALLOCS 3
#define MEMPLAN_ORT_STAT_NUM_RESERVES 4
#define MEMPLAN_ORT_NUM_STATS 5
// What memplan_ort_arena_start writes: the layout it found, the free bytes, the next region's size.
#define MEMPLAN_ORT_START_EMPTY 0
#define MEMPLAN_ORT_START_ONE_FREE_CHUNK 1
#define MEMPLAN_ORT_START_NOT_MODELLED 2
#define MEMPLAN_ORT_START_LEN 3

namespace memplan_ort {

// The version of the function table asked for: 23 is the first with AllocatorGetStats
// (ONNX Runtime 1.23), and the table only grows, so a newer library answers it too.
constexpr uint32_t kApiVersion = 23;

// Positions in OrtApi (onnxruntime_c_api.h); they never move between versions.
enum Fn : int {
    kGetErrorMessage = 2,
    kCreateCpuMemoryInfo = 69,
    kReleaseStatus = 93,
    kReleaseMemoryInfo = 94,
    kCreateAllocator = 131,
    kReleaseAllocator = 132,
    kRegisterAllocator = 176,
    kCreateKeyValuePairs = 295,
    kAddKeyValuePair = 296,
    kGetKeyValue = 297,
    kReleaseKeyValuePairs = 300,
    kAllocatorGetStats = 319,
};

struct ApiBase {
    const void* (*GetApi)(uint32_t version);
    const char* (*GetVersionString)();
};

inline int find_loaded(struct dl_phdr_info* info, size_t, void* out) {
    const char* name = info->dlpi_name;
    if (name != nullptr && std::strstr(name, "libonnxruntime.so") != nullptr &&
        std::strstr(name, "onnxruntime4j") == nullptr) {
        void* handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
        if (handle != nullptr) {
            *static_cast<void**>(out) = handle;
            return 1;
        }
    }
    return 0;
}

// The function table of the loaded libonnxruntime, or null when none is loaded or it is older
// than kApiVersion.
inline void* const* api() {
    static std::once_flag once;
    static void* const* table = nullptr;
    std::call_once(once, [] {
        void* handle = nullptr;
        dl_iterate_phdr(find_loaded, &handle);
        void* sym = dlsym(handle != nullptr ? handle : RTLD_DEFAULT, "OrtGetApiBase");
        if (sym == nullptr) {
            return;
        }
        const ApiBase* base = reinterpret_cast<const ApiBase* (*)()>(sym)();
        if (base != nullptr && base->GetApi != nullptr) {
            table = static_cast<void* const*>(base->GetApi(kApiVersion));
        }
    });
    return table;
}

template <typename F>
F fn(void* const* table, Fn index) {
    return reinterpret_cast<F>(table[index]);
}

inline void message(char* err, int err_len, const char* text) {
    if (err != nullptr && err_len > 0) {
        std::snprintf(err, static_cast<size_t>(err_len), "%s", text);
    }
}

// Copies an OrtStatus's message into err, releases the status, and answers MEMPLAN_ORT_FAILED
// (or MEMPLAN_ORT_OK for a null status).
inline int status(void* const* table, void* st, const char* what, char* err, int err_len) {
    if (st == nullptr) {
        return MEMPLAN_ORT_OK;
    }
    const char* text = fn<const char* (*)(const void*)>(table, kGetErrorMessage)(st);
    if (err != nullptr && err_len > 0) {
        std::snprintf(err, static_cast<size_t>(err_len), "%s: %s", what, text != nullptr ? text : "no message");
    }
    fn<void (*)(void*)>(table, kReleaseStatus)(st);
    return MEMPLAN_ORT_FAILED;
}

// A figure from AllocatorGetStats' text: a whole decimal number from 0 to LLONG_MAX, else -1
// (not reported), never a prefix, a wrapped or a clamped value.
inline long long figure(const char* text) {
    if (text == nullptr || *text == '\0') return -1;
    long long value = 0;
    for (const char* c = text; *c != '\0'; ++c) {
        if (*c < '0' || *c > '9') return -1;
        if (__builtin_mul_overflow(value, 10LL, &value) || __builtin_add_overflow(value, *c - '0', &value)) return -1;
    }
    return value;
}

inline int unavailable(char* err, int err_len) {
    message(err, err_len, "ONNX Runtime 1.23 or newer is not loaded in this process (load ONNX Runtime Java first)");
    return MEMPLAN_ORT_UNAVAILABLE;
}

}  // namespace memplan_ort

namespace memplan_ort {
// ORT's OrtAllocatorType: a plain device allocator, or its arena
constexpr int kDeviceAllocator = 0;
constexpr int kArenaAllocator = 1;
}  // namespace memplan_ort

// The CPU memory info of an allocator of the given OrtAllocatorType (OrtMemTypeDefault = 0).
inline int memplan_ort_cpu_info(void* const* table, int allocator_type, void** info, char* err, int err_len) {
    using Create = void* (*)(int, int, void**);
    return memplan_ort::status(table,
                               memplan_ort::fn<Create>(table, memplan_ort::kCreateCpuMemoryInfo)(allocator_type, 0, info),
                               "CreateCpuMemoryInfo", err, err_len);
}

/**
 * The "Limit" memplan's counting allocator reports, so a session's allocator can be told apart (ORT
 * passes on only the keys of its own statistics; no arena is limited to these bytes).
 */
#define MEMPLAN_ORT_COUNTING_LIMIT "7308332028281663085"

/**
 * The CPU allocator session (an OrtSession*) allocates from, into *allocator (ORT's
 * CreateAllocator on the session's CPU arena memory info); the caller releases it.
 */
inline int memplan_ort_session_allocator(void* const* table, long long session, void** allocator, char* err,
                                         int err_len) {
    void* info = nullptr;
    int rc = memplan_ort_cpu_info(table, memplan_ort::kArenaAllocator, &info, err, err_len);
    if (rc != MEMPLAN_ORT_OK) {
        return rc;
    }
    using CreateAllocator = void* (*)(const void*, const void*, void**);
    rc = memplan_ort::status(table,
                             memplan_ort::fn<CreateAllocator>(table, memplan_ort::kCreateAllocator)(
                                 reinterpret_cast<void*>(static_cast<intptr_t>(session)), info, allocator),
                             "CreateAllocator", err, err_len);
    memplan_ort::fn<void (*)(void*)>(table, memplan_ort::kReleaseMemoryInfo)(info);
    return rc;
}

/**
 * Reads the CPU arena statistics of session (an OrtSession*) into out (MEMPLAN_ORT_NUM_STATS
 * longs: in use, max in use, total allocated, allocations, reserves); a figure the arena does not
 * report is -1. With room for one more long, out[MEMPLAN_ORT_NUM_STATS] says whether the session's
 * allocator is memplan's counting allocator (1) or not (0).
 */
inline int memplan_ort_arena_stats(long long session, long long* out, int out_len, char* err, int err_len) {
    if (session == 0 || out == nullptr || out_len < MEMPLAN_ORT_NUM_STATS) {
        memplan_ort::message(err, err_len, "arena_stats: session must be non-zero and out hold 5 longs");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    void* const* table = memplan_ort::api();
    if (table == nullptr) {
        return memplan_ort::unavailable(err, err_len);
    }
    void* allocator = nullptr;
    int rc = memplan_ort_session_allocator(table, session, &allocator, err, err_len);
    if (rc != MEMPLAN_ORT_OK) {
        return rc;
    }
    void* kv = nullptr;
    using GetStats = void* (*)(const void*, void**);
    rc = memplan_ort::status(table, memplan_ort::fn<GetStats>(table, memplan_ort::kAllocatorGetStats)(allocator, &kv),
                             "AllocatorGetStats", err, err_len);
    if (rc == MEMPLAN_ORT_OK) {
        static const char* const keys[MEMPLAN_ORT_NUM_STATS] = {"InUse", "MaxInUse", "TotalAllocated", "NumAllocs",
                                                                "NumReserves"};
        using GetValue = const char* (*)(const void*, const char*);
        for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; i++) {
            const char* text = memplan_ort::fn<GetValue>(table, memplan_ort::kGetKeyValue)(kv, keys[i]);
            out[i] = memplan_ort::figure(text);
        }
        if (out_len > MEMPLAN_ORT_NUM_STATS) {
            const char* limit = memplan_ort::fn<GetValue>(table, memplan_ort::kGetKeyValue)(kv, "Limit");
            out[MEMPLAN_ORT_NUM_STATS] = limit != nullptr && std::strcmp(limit, MEMPLAN_ORT_COUNTING_LIMIT) == 0 ? 1 : 0;
        }
        memplan_ort::fn<void (*)(void*)>(table, memplan_ort::kReleaseKeyValuePairs)(kv);
    }
    memplan_ort::fn<void (*)(void*)>(table, memplan_ort::kReleaseAllocator)(allocator);
    return rc;
}

namespace memplan_ort {

// OrtAllocator's first members (onnxruntime_c_api.h), all memplan_ort_arena_start calls.
struct ArenaAllocatorHead {
    uint32_t version;
    void* (*Alloc)(ArenaAllocatorHead* self, size_t size);
    void (*Free)(ArenaAllocatorHead* self, void* p);
};

// The arena figures the start's probe reads.
struct ArenaFigures {
    long long in_use;
    long long total_allocated;
    long long extensions;
};

// Reads InUse, TotalAllocated and NumArenaExtensions of allocator; false when one is not reported.
inline bool arena_figures(void* const* table, void* allocator, ArenaFigures* out, char* err, int err_len) {
    void* kv = nullptr;
    using GetStats = void* (*)(const void*, void**);
    if (status(table, fn<GetStats>(table, kAllocatorGetStats)(allocator, &kv), "AllocatorGetStats", err, err_len) !=
        MEMPLAN_ORT_OK) {
        return false;
    }
    using GetValue = const char* (*)(const void*, const char*);
    out->in_use = figure(fn<GetValue>(table, kGetKeyValue)(kv, "InUse"));
    out->total_allocated = figure(fn<GetValue>(table, kGetKeyValue)(kv, "TotalAllocated"));
    out->extensions = figure(fn<GetValue>(table, kGetKeyValue)(kv, "NumArenaExtensions"));
    fn<void (*)(void*)>(table, kReleaseKeyValuePairs)(kv);
    return out->in_use >= 0 && out->total_allocated >= out->in_use && out->extensions >= 0;
}

// Allocates through the arena, or null when it refuses (ORT may throw through the wrapper).
inline void* arena_alloc(ArenaAllocatorHead* a, size_t size) {
    try {
        return a->Alloc(a, size);
    } catch (...) {
        return nullptr;
    }
}

// The probe of memplan_ort_arena_start on an open arena allocator. Its reserved blocks lie outside
// the regions and are wholly in use, so TotalAllocated less InUse is the regions' free bytes.
// Taking exactly those bytes without a new region proves them one free chunk; the next request
// then adds a region, whose size is the next one a request would get.
inline int arena_start_probe(void* const* table, void* allocator, long long* out, char* err, int err_len) {
    auto* a = static_cast<ArenaAllocatorHead*>(allocator);
    ArenaFigures before{};
    if (!arena_figures(table, allocator, &before, err, err_len)) {
        message(err, err_len, "arena_start: the arena does not report InUse, TotalAllocated and NumArenaExtensions");
        return MEMPLAN_ORT_FAILED;
    }
    out[0] = MEMPLAN_ORT_START_NOT_MODELLED;
    out[1] = 0;
    out[2] = 0;
    if (before.extensions == 0) {
        out[0] = MEMPLAN_ORT_START_EMPTY;
        return MEMPLAN_ORT_OK;
    }
    long long free_bytes = before.total_allocated - before.in_use;
    if (a->Alloc == nullptr || a->Free == nullptr || free_bytes % 256 != 0) {
        return MEMPLAN_ORT_OK;
    }
    void* taken = nullptr;
    ArenaFigures now = before;
    if (free_bytes > 0) {
        taken = arena_alloc(a, static_cast<size_t>(free_bytes));
        if (taken == nullptr || !arena_figures(table, allocator, &now, err, err_len) ||
            now.extensions != before.extensions || now.in_use - before.in_use != free_bytes) {
            if (taken != nullptr) a->Free(a, taken);
            return MEMPLAN_ORT_OK;  // the free bytes are more than one chunk
        }
    }
    void* next = arena_alloc(a, 256);
    ArenaFigures after{};
    bool grew = next != nullptr && arena_figures(table, allocator, &after, err, err_len) &&
                after.extensions == now.extensions + 1 && after.total_allocated > now.total_allocated;
    if (next != nullptr) a->Free(a, next);
    if (taken != nullptr) a->Free(a, taken);
    if (grew) {
        out[0] = MEMPLAN_ORT_START_ONE_FREE_CHUNK;
        out[1] = free_bytes;
        out[2] = after.total_allocated - now.total_allocated;
    }
    return MEMPLAN_ORT_OK;
}

}  // namespace memplan_ort

/**
 * Reads the state a new session leaves its CPU arena in, for a replay of its requests: out (3
 * longs) gets MEMPLAN_ORT_START_EMPTY when the arena has no region yet; ONE_FREE_CHUNK with the
 * chunk's bytes and the next region's size when all the regions' free bytes are one chunk; else
 * NOT_MODELLED. It probes the arena with two allocations, given back: only for a session that
 * serves nothing after.
 */
inline int memplan_ort_arena_start(long long session, long long* out, int out_len, char* err, int err_len) {
    if (session == 0 || out == nullptr || out_len < MEMPLAN_ORT_START_LEN) {
        memplan_ort::message(err, err_len, "arena_start: session must be non-zero and out hold 3 longs");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    void* const* table = memplan_ort::api();
    if (table == nullptr) {
        return memplan_ort::unavailable(err, err_len);
    }
    void* allocator = nullptr;
    int rc = memplan_ort_session_allocator(table, session, &allocator, err, err_len);
    if (rc != MEMPLAN_ORT_OK) {
        return rc;
    }
    if (allocator == nullptr) {
        memplan_ort::message(err, err_len, "arena_start: ONNX Runtime gave no allocator for the session");
        return MEMPLAN_ORT_FAILED;
    }
    rc = memplan_ort::arena_start_probe(table, allocator, out, err, err_len);
    memplan_ort::fn<void (*)(void*)>(table, memplan_ort::kReleaseAllocator)(allocator);
    return rc;
}

#endif  // MEMPLAN_ORT_ARENA_H
