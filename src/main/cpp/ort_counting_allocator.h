// SPDX-License-Identifier: Apache-2.0
// A CPU allocator for ONNX Runtime that keeps nothing: each block ORT asks for is one block of the
// C library, given back when ORT frees it, and the bytes ORT holds are counted. Registered on ORT
// Java's environment (RegisterAllocator) in place of ORT's arena, the memory ORT holds is then the
// sum of what the runs in flight hold now, which the leases of a memory budget bound; an arena
// would keep regions that one request split for another. ORT reads the counts through the
// allocator's GetStats, so AllocatorGetStats on a session answers them as for an arena.
#ifndef MEMPLAN_ORT_COUNTING_ALLOCATOR_H
#define MEMPLAN_ORT_COUNTING_ALLOCATOR_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "ort_arena.h"

namespace memplan_ort {

// OrtAllocator's layout at version 23 (onnxruntime_c_api.h): ORT calls Reserve from version 18
// and GetStats from 23; AllocOnStream may be null, and then ORT calls Alloc.
struct OrtAllocatorTable {
    uint32_t version;
    void* (*Alloc)(OrtAllocatorTable* self, size_t size);
    void (*Free)(OrtAllocatorTable* self, void* p);
    const void* (*Info)(const OrtAllocatorTable* self);
    void* (*Reserve)(OrtAllocatorTable* self, size_t size);
    void* (*GetStats)(const OrtAllocatorTable* self, void** out);  // an OrtStatus*, null when done
    void* (*AllocOnStream)(OrtAllocatorTable* self, size_t size, void* stream);
};

// The counting itself, without ORT: blocks of the C library, each with a header that keeps its
// size, 64-byte aligned as ORT's CPU allocator aligns them. Thread-safe.
class CountingBlocks {
public:
    static constexpr size_t kAlignment = 64;
    static constexpr size_t kHeader = 64;  // keeps the block aligned; holds the size asked for

    struct Snapshot {
        long long in_use;           // bytes ORT holds now
        long long max_in_use;       // the most it held at once
        long long total_allocated;  // bytes taken from the C library now, headers included
        long long allocations;      // blocks handed out so far
        long long reserves;         // of them, through Reserve (initializers)
    };

    // A block of size bytes, or null when size is 0, too large, or the C library has none.
    void* allocate(size_t size, bool reserve) {
        if (size == 0 || size > static_cast<size_t>(INT64_MAX) - kHeader) {
            return nullptr;
        }
        void* base = nullptr;
        if (posix_memalign(&base, kAlignment, size + kHeader) != 0) {
            return nullptr;
        }
        *static_cast<size_t*>(base) = size;
        long long now = in_use_.fetch_add(static_cast<long long>(size)) + static_cast<long long>(size);
        long long seen = max_in_use_.load();
        while (now > seen && !max_in_use_.compare_exchange_weak(seen, now)) {
        }
        blocks_.fetch_add(1);
        allocations_.fetch_add(1);
        if (reserve) {
            reserves_.fetch_add(1);
        }
        return static_cast<char*>(base) + kHeader;
    }

    // Gives back a block allocate returned; null is ignored.
    void release(void* p) {
        if (p == nullptr) {
            return;
        }
        void* base = static_cast<char*>(p) - kHeader;
        in_use_.fetch_sub(static_cast<long long>(*static_cast<size_t*>(base)));
        blocks_.fetch_sub(1);
        std::free(base);
    }

    Snapshot snapshot() const {
        long long in_use = in_use_.load();
        return Snapshot{in_use, max_in_use_.load(), in_use + blocks_.load() * static_cast<long long>(kHeader),
                        allocations_.load(), reserves_.load()};
    }

private:
    std::atomic<long long> in_use_{0};
    std::atomic<long long> max_in_use_{0};
    std::atomic<long long> blocks_{0};
    std::atomic<long long> allocations_{0};
    std::atomic<long long> reserves_{0};
};

// The one allocator of the process: ORT keeps the pointer it is given for as long as it lives.
struct CountingAllocator {
    OrtAllocatorTable table;
    CountingBlocks blocks;
    const void* info = nullptr;  // an OrtMemoryInfo for the CPU, never released
};

inline CountingAllocator& counting_allocator() {
    static CountingAllocator* allocator = new CountingAllocator();  // never destroyed: ORT outlives statics
    return *allocator;
}

inline void* counting_alloc(OrtAllocatorTable*, size_t size) {
    return counting_allocator().blocks.allocate(size, false);
}

inline void* counting_reserve(OrtAllocatorTable*, size_t size) {
    return counting_allocator().blocks.allocate(size, true);
}

inline void counting_free(OrtAllocatorTable*, void* p) {
    counting_allocator().blocks.release(p);
}

inline const void* counting_info(const OrtAllocatorTable*) {
    return counting_allocator().info;
}

// ORT's arena statistics' keys, so AllocatorGetStats answers as it does for an arena.
inline void* counting_stats(const OrtAllocatorTable*, void** out) {
    void* const* table = api();
    if (table == nullptr || out == nullptr) {
        return nullptr;  // unreachable: ORT calls this, so it is loaded; it passes out
    }
    CountingBlocks::Snapshot s = counting_allocator().blocks.snapshot();
    fn<void (*)(void**)>(table, kCreateKeyValuePairs)(out);
    const char* keys[] = {"InUse", "MaxInUse", "TotalAllocated", "NumAllocs", "NumReserves"};
    const long long values[] = {s.in_use, s.max_in_use, s.total_allocated, s.allocations, s.reserves};
    using Add = void (*)(void*, const char*, const char*);
    for (int i = 0; i < 5; i++) {
        char text[24];
        std::snprintf(text, sizeof text, "%lld", values[i]);
        fn<Add>(table, kAddKeyValuePair)(*out, keys[i], text);
    }
    return nullptr;
}

}  // namespace memplan_ort

/**
 * Registers memplan's counting CPU allocator on the environment env (an OrtEnv*), for every
 * session whose options set session.use_env_allocators=1 (ORT's CPU arena is then not used).
 * Once per process: a second call answers MEMPLAN_ORT_OK without registering again.
 */
inline int memplan_ort_register_counting_allocator(long long env, char* err, int err_len) {
    if (env == 0) {
        memplan_ort::message(err, err_len, "register_counting_allocator: env must be non-zero");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    void* const* table = memplan_ort::api();
    if (table == nullptr) {
        return memplan_ort::unavailable(err, err_len);
    }
    static std::mutex lock;
    static bool registered = false;
    std::lock_guard<std::mutex> guard(lock);
    if (registered) {
        return MEMPLAN_ORT_OK;
    }
    memplan_ort::CountingAllocator& allocator = memplan_ort::counting_allocator();
    if (allocator.info == nullptr) {
        void* info = nullptr;
        using Create = void* (*)(int, int, void**);
        // OrtDeviceAllocator = 0 (ORT refuses a registered allocator typed as an arena), OrtMemTypeDefault = 0
        int rc = memplan_ort::status(table, memplan_ort::fn<Create>(table, memplan_ort::kCreateCpuMemoryInfo)(0, 0, &info),
                                     "CreateCpuMemoryInfo", err, err_len);
        if (rc != MEMPLAN_ORT_OK) {
            return rc;
        }
        allocator.info = info;
        allocator.table = memplan_ort::OrtAllocatorTable{23,
                                                         memplan_ort::counting_alloc,
                                                         memplan_ort::counting_free,
                                                         memplan_ort::counting_info,
                                                         memplan_ort::counting_reserve,
                                                         memplan_ort::counting_stats,
                                                         nullptr};
    }
    using Register = void* (*)(void*, void*);
    int rc = memplan_ort::status(table,
                                 memplan_ort::fn<Register>(table, memplan_ort::kRegisterAllocator)(
                                     reinterpret_cast<void*>(static_cast<intptr_t>(env)), &allocator.table),
                                 "RegisterAllocator", err, err_len);
    registered = rc == MEMPLAN_ORT_OK;
    return rc;
}

/**
 * Reads the counting allocator's figures into out (MEMPLAN_ORT_NUM_STATS longs, in
 * memplan_ort_arena_stats' order), whether or not it is registered.
 */
inline int memplan_ort_counting_stats(long long* out, int out_len, char* err, int err_len) {
    if (out == nullptr || out_len < MEMPLAN_ORT_NUM_STATS) {
        memplan_ort::message(err, err_len, "counting_stats: out must hold 5 longs");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    memplan_ort::CountingBlocks::Snapshot s = memplan_ort::counting_allocator().blocks.snapshot();
    out[MEMPLAN_ORT_STAT_IN_USE] = s.in_use;
    out[MEMPLAN_ORT_STAT_MAX_IN_USE] = s.max_in_use;
    out[MEMPLAN_ORT_STAT_TOTAL_ALLOCATED] = s.total_allocated;
    out[MEMPLAN_ORT_STAT_NUM_ALLOCS] = s.allocations;
    out[MEMPLAN_ORT_STAT_NUM_RESERVES] = s.reserves;
    return MEMPLAN_ORT_OK;
}

#endif  // MEMPLAN_ORT_COUNTING_ALLOCATOR_H
