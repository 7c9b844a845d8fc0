// SPDX-License-Identifier: Apache-2.0
// A CPU allocator for ONNX Runtime that counts what ORT holds and keeps no more than it is let:
// each block ORT asks for is its own block, given back when ORT frees it or kept for reuse within
// a limit. Registered on ORT Java's environment (RegisterAllocator) in place of ORT's arena, the
// memory ORT holds is then what the runs in flight hold, which the leases of a memory budget
// bound, plus what is kept, within the limit; an arena would keep regions that one request split
// for another. ORT reads the counts through the allocator's GetStats, so AllocatorGetStats on a
// session answers them as for an arena.
#ifndef MEMPLAN_ORT_COUNTING_ALLOCATOR_H
#define MEMPLAN_ORT_COUNTING_ALLOCATOR_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_set>
#include <vector>

#include <sys/mman.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

// The counting itself, without ORT. A block of kMappedFrom bytes or more is mapped alone; a
// smaller one comes from the C library (whose heaps serve it, below glibc's mmap threshold).
// Either carries a 64-byte header holding its size, the bytes it took from the system and
// whether Reserve asked for it, so the block stays 64-byte aligned as ORT's CPU allocator aligns
// them.
//
// A mapped block that is freed is kept for reuse while what the runs' blocks hold from the
// system stays within the keep limit (0 by default: nothing is kept). The runs' blocks are all
// but those handed out through Reserve, which ORT asks for the session's weights and prepacked
// copies: they stay as long as the session, so they do not eat into what runs may keep (with
// them counted, a budget smaller than the weights kept nothing). Reuse takes the smallest
// kept region that is large enough and unmaps the part past the request, so a block never holds
// more than its pages; its pages are already faulted in, which is what makes reuse cheap. A new
// mapping first gives back kept regions until it fits within the limit. So the bytes the runs'
// blocks hold from the system never pass the larger of the keep limit and what ORT holds for
// runs now (with headers and page tails). New mappings of 2 MiB or more ask for transparent huge
// pages: the kernel then faults them in 2 MiB at a time. Thread-safe.
class CountingBlocks {
public:
    static constexpr size_t kAlignment = 64;
    static constexpr size_t kHeader = 64;  // keeps the block aligned; holds the facts above and its place in a log
    static constexpr size_t kMappedFrom = 64u << 10;
    static constexpr size_t kHugeFrom = 2u << 20;
    static constexpr size_t kPage = 4096;

    struct Snapshot {
        long long in_use;           // bytes ORT holds now
        long long max_in_use;       // the most it held at once
        long long total_allocated;  // bytes held from the system now: blocks with headers and page tails, kept regions
        long long allocations;      // blocks handed out so far
        long long reserves;         // of them, through Reserve (initializers)
        long long kept;             // of total_allocated, freed regions kept for reuse
        long long reserved;         // of total_allocated, the blocks handed out through Reserve and not freed
    };

    CountingBlocks() = default;
    CountingBlocks(const CountingBlocks&) = delete;
    CountingBlocks& operator=(const CountingBlocks&) = delete;
    ~CountingBlocks() { keep_up_to(0); }

    // A block of size bytes, or null when size is 0, too large, or the system has none.
    void* allocate(size_t size, bool reserve) {
        if (size == 0 || size > static_cast<size_t>(INT64_MAX) - kHeader - kPage) {
            return nullptr;
        }
        size_t held = size + kHeader;
        void* base = nullptr;
        if (size >= kMappedFrom) {
            held = (held + kPage - 1) / kPage * kPage;
            base = take_mapping(held);
            if (base == nullptr) {
                return nullptr;
            }
        } else {
            {
                // counted under the lock that keeps regions, as a mapping is: a region kept by
                // another thread and this block never pass the limit together, even for a moment
                std::lock_guard<std::mutex> guard(lock_);
                give_back_kept_past_limit(static_cast<long long>(held));
                note_held(held_.fetch_add(static_cast<long long>(held)) + static_cast<long long>(held));
            }
            if (posix_memalign(&base, kAlignment, held) != 0) {
                held_.fetch_sub(static_cast<long long>(held));
                return nullptr;
            }
        }
        static_cast<size_t*>(base)[0] = size;
        static_cast<size_t*>(base)[1] = held;
        static_cast<size_t*>(base)[2] = reserve ? 1 : 0;
        static_cast<size_t*>(base)[3] = 0;  // not in a log; note_allocation says otherwise
        if (reserve) {
            reserved_.fetch_add(static_cast<long long>(held));
        }
        long long now = in_use_.fetch_add(static_cast<long long>(size)) + static_cast<long long>(size);
        long long seen = max_in_use_.load();
        while (now > seen && !max_in_use_.compare_exchange_weak(seen, now)) {
        }
        allocations_.fetch_add(1);
        if (reserve) {
            reserves_.fetch_add(1);
        }
        if (logging_.load()) {
            note_allocation(static_cast<size_t*>(base), size);
        }
        return static_cast<char*>(base) + kHeader;
    }

    // Gives back a block allocate returned; null is ignored.
    void release(void* p) {
        if (p == nullptr) {
            return;
        }
        void* base = static_cast<char*>(p) - kHeader;
        size_t size = static_cast<size_t*>(base)[0];
        size_t held = static_cast<size_t*>(base)[1];
        if (logging_.load()) {
            note_release(static_cast<size_t*>(base));
        }
        in_use_.fetch_sub(static_cast<long long>(size));
        if (static_cast<size_t*>(base)[2] != 0) {  // from here on the runs': it may be kept as theirs
            reserved_.fetch_sub(static_cast<long long>(held));
        }
        if (size < kMappedFrom) {
            held_.fetch_sub(static_cast<long long>(held));
            std::free(base);
            return;
        }
        {
            std::lock_guard<std::mutex> guard(lock_);
            // every block is counted under this lock too, so held_ read here is not racing an addition
            kept_bytes_.fetch_add(static_cast<long long>(held));
            if (run_held() <= keep_limit_.load()) {  // keeping it holds nothing more than now
                kept_.emplace(held, base);
                return;
            }
            kept_bytes_.fetch_sub(static_cast<long long>(held));
        }
        held_.fetch_sub(static_cast<long long>(held));
        munmap(base, held);
    }

    // Sets how many bytes the runs' blocks (all but Reserve's), and the regions kept for reuse, may
    // hold from the system before a freed region is given back; gives back kept regions past it
    // now. 0 keeps none.
    void keep_up_to(long long bytes) {
        std::lock_guard<std::mutex> guard(lock_);
        keep_limit_.store(bytes < 0 ? 0 : bytes);
        give_back_kept_past_limit(0);
    }

    // Starts recording, afresh, each block handed out (its size) and each of those given back
    // (minus its number: -1 gives back the first block recorded), in order, at most kMaxLog.
    // Blocks handed out before the start are not recorded when given back.
    void start_log() {
        std::lock_guard<std::mutex> guard(log_lock_);
        log_.clear();
        logged_blocks_ = 0;
        log_generation_++;
        logging_.store(true);
    }

    // Stops recording; copies up to out_len entries into out and answers how many were recorded.
    int stop_log(long long* out, int out_len) {
        std::lock_guard<std::mutex> guard(log_lock_);
        logging_.store(false);
        for (size_t i = 0; i < log_.size() && i < static_cast<size_t>(out_len); i++) {
            out[i] = log_[i];
        }
        return static_cast<int>(log_.size());
    }

    static constexpr size_t kMaxLog = 4096;

    // Starts both peaks again from what is in use and held now: the peaks of what follows, alone.
    void restart_peak() {
        max_in_use_.store(in_use_.load());
        max_held_.store(held_.load());
    }

    // The most bytes held from the system at once since the start or the last restart_peak: the
    // blocks with their headers and page tails, and kept regions. What a lease must cover.
    long long max_held() const { return max_held_.load(); }

    Snapshot snapshot() const {
        return Snapshot{in_use_.load(),      max_in_use_.load(), held_.load(),
                        allocations_.load(), reserves_.load(),   kept_bytes_.load(), reserved_.load()};
    }

private:
    // What the runs' blocks and the kept regions hold from the system: all but Reserve's blocks.
    long long run_held() const { return held_.load() - reserved_.load(); }

    // A mapping of held bytes (page multiple): a kept region cut to size, or a new one.
    void* take_mapping(size_t held) {
        {
            std::lock_guard<std::mutex> guard(lock_);
            auto fit = kept_.lower_bound(held);
            if (fit != kept_.end()) {
                size_t length = fit->first;
                char* base = static_cast<char*>(fit->second);
                kept_.erase(fit);
                kept_bytes_.fetch_sub(static_cast<long long>(length));
                if (length > held) {
                    munmap(base + held, length - held);
                    held_.fetch_sub(static_cast<long long>(length - held));
                }
                return base;
            }
            give_back_kept_past_limit(static_cast<long long>(held));
            // counted before the lock is left
            note_held(held_.fetch_add(static_cast<long long>(held)) + static_cast<long long>(held));
        }
        void* base = mmap(nullptr, held, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) {
            held_.fetch_sub(static_cast<long long>(held));
            return nullptr;
        }
        if (held >= kHugeFrom) {
            madvise(base, held, MADV_HUGEPAGE);  // a hint: without THP the block is still mapped
        }
        return base;
    }

    void note_held(long long now) {
        long long seen = max_held_.load();
        while (now > seen && !max_held_.compare_exchange_weak(seen, now)) {
        }
    }

    // Unmaps kept regions, largest first, until what the runs hold and are about to add fits the
    // limit or none is kept. Called with lock_ held.
    void give_back_kept_past_limit(long long adding) {
        while (!kept_.empty() && run_held() + adding > keep_limit_.load()) {
            auto largest = std::prev(kept_.end());
            munmap(largest->second, largest->first);
            held_.fetch_sub(static_cast<long long>(largest->first));
            kept_bytes_.fetch_sub(static_cast<long long>(largest->first));
            kept_.erase(largest);
        }
    }

    std::atomic<long long> in_use_{0};
    std::atomic<long long> max_in_use_{0};
    std::atomic<long long> held_{0};
    std::atomic<long long> max_held_{0};
    std::atomic<long long> allocations_{0};
    std::atomic<long long> reserves_{0};
    std::atomic<long long> kept_bytes_{0};
    std::atomic<long long> reserved_{0};  // held by blocks handed out through Reserve
    std::atomic<long long> keep_limit_{0};
    std::mutex lock_;                      // guards the kept regions; changes to the limit
    std::multimap<size_t, void*> kept_;  // freed mapped regions by length
    // Records a block handed out while logging; its header's slots 3 and 4 keep the log it is in
    // and its number there, so that giving it back is recorded against it.
    void note_allocation(size_t* header, size_t size) {
        std::lock_guard<std::mutex> guard(log_lock_);
        if (log_.size() < kMaxLog) {
            log_.push_back(static_cast<long long>(size));
            header[3] = log_generation_;
            header[4] = ++logged_blocks_;
        }
    }

    // Records that a block of this log is given back, by its number.
    void note_release(const size_t* header) {
        std::lock_guard<std::mutex> guard(log_lock_);
        if (header[3] == log_generation_ && header[3] != 0 && log_.size() < kMaxLog) {
            log_.push_back(-static_cast<long long>(header[4]));
        }
    }

    std::atomic<bool> logging_{false};
    std::mutex log_lock_;           // guards the log and its two counters
    std::vector<long long> log_;    // while logging: sizes handed out and minus the numbers of blocks given back
    size_t log_generation_ = 0;     // which log a block's header names; 0 is none
    size_t logged_blocks_ = 0;      // blocks recorded in this log
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
    // whose statistics these are: ORT passes on its own keys only, so a limit no arena has marks them
    fn<Add>(table, kAddKeyValuePair)(*out, "Limit", MEMPLAN_ORT_COUNTING_LIMIT);
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
        // a device allocator: ORT refuses a registered allocator typed as an arena
        int rc = memplan_ort_cpu_info(table, memplan_ort::kDeviceAllocator, &info, err, err_len);
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
 * Lets the counting allocator keep freed blocks for reuse while all it holds from the system stays
 * within bytes (0: keep none, the default); gives back what is kept past it now.
 */
inline int memplan_ort_counting_keep_up_to(long long bytes, char* err, int err_len) {
    if (bytes < 0) {
        memplan_ort::message(err, err_len, "counting_keep_up_to: bytes must be >= 0");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    memplan_ort::counting_allocator().blocks.keep_up_to(bytes);
    return MEMPLAN_ORT_OK;
}

/** glibc's ceiling on M_MMAP_THRESHOLD on 64-bit hosts (HEAP_MAX_SIZE / 2). */
#define MEMPLAN_ORT_MAX_MALLOC_THRESHOLD (32LL << 20)

/**
 * Fixes at bytes the size from which the C library maps a block alone (given back when freed) and
 * the free space at a heap's top it keeps (glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD). glibc
 * otherwise raises both each time a mapped block is freed, up to 32 and 64 MiB, and then keeps
 * what is freed below them: after ONNX Runtime creates a session, tens of MiB, and during runs
 * what ORT's kernels malloc outside the allocator. Setting the first alone would stop the rise but
 * keep a trim threshold already raised. Answers MEMPLAN_ORT_UNAVAILABLE where the C library is not
 * glibc or does not take the settings (a sanitizer's allocator in place of glibc's).
 */
inline int memplan_ort_fix_malloc_thresholds(long long bytes, char* err, int err_len) {
    if (bytes <= 0 || bytes > MEMPLAN_ORT_MAX_MALLOC_THRESHOLD) {
        memplan_ort::message(err, err_len, "fix_malloc_thresholds: bytes must be > 0 and <= 32 MiB");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
#if defined(__GLIBC__)
    const int value = static_cast<int>(bytes);
    if (mallopt(M_MMAP_THRESHOLD, value) != 1 || mallopt(M_TRIM_THRESHOLD, value) != 1) {
        memplan_ort::message(err, err_len, "fix_malloc_thresholds: the C library does not take the settings");
        return MEMPLAN_ORT_UNAVAILABLE;
    }
    return MEMPLAN_ORT_OK;
#else
    memplan_ort::message(err, err_len, "fix_malloc_thresholds: the C library is not glibc");
    return MEMPLAN_ORT_UNAVAILABLE;
#endif
}

/**
 * Starts the counting allocator's peaks (max in use, max held) again from what it holds now, so
 * the next figures give the peaks of what runs after the call alone.
 */
inline int memplan_ort_counting_restart_peak(char* err, int err_len) {
    (void)err;
    (void)err_len;
    memplan_ort::counting_allocator().blocks.restart_peak();
    return MEMPLAN_ORT_OK;
}

/**
 * Writes into out[0] the most bytes the counting allocator held from the system at once (blocks
 * with headers and page tails, kept regions) since it started or since the last restart of its peak.
 */
inline int memplan_ort_counting_max_held(long long* out, char* err, int err_len) {
    if (out == nullptr) {
        memplan_ort::message(err, err_len, "counting_max_held: out must be given");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    out[0] = memplan_ort::counting_allocator().blocks.max_held();
    return MEMPLAN_ORT_OK;
}

/**
 * Starts recording every block the counting allocator hands out (its size) and gives back (minus
 * its number in the record, from 1), in order.
 */
inline int memplan_ort_counting_start_log(char* err, int err_len) {
    (void)err;
    (void)err_len;
    memplan_ort::counting_allocator().blocks.start_log();
    return MEMPLAN_ORT_OK;
}

/**
 * Stops recording; copies up to out_len recorded entries into out and the number recorded (which
 * may pass out_len) into count[0].
 */
inline int memplan_ort_counting_stop_log(long long* out, int out_len, int* count, char* err, int err_len) {
    if (out == nullptr || out_len < 0 || count == nullptr) {
        memplan_ort::message(err, err_len, "counting_stop_log: out and count must be given, out_len >= 0");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    count[0] = memplan_ort::counting_allocator().blocks.stop_log(out, out_len);
    return MEMPLAN_ORT_OK;
}

namespace memplan_ort {

// The blocks memplan took from the counting allocator for itself, so that a release names one.
struct OwnBlocks {
    std::mutex lock;
    std::unordered_set<void*> blocks;
};

inline OwnBlocks& own_blocks() {
    static OwnBlocks* own = new OwnBlocks();  // never destroyed, as the allocator is not
    return *own;
}

}  // namespace memplan_ort

/** The largest block memplan_ort_counting_allocate hands out: 1 TiB. */
#define MEMPLAN_ORT_MAX_COUNTED_BLOCK (1LL << 40)

/**
 * Takes a block of size bytes (64-byte aligned, not zeroed) from the counting allocator for memory
 * a lease covers outside ORT's runs, such as a request's joined outputs: it is then counted, and
 * kept within the keep limit, with ORT's own blocks. Writes its address into out[0].
 */
inline int memplan_ort_counting_allocate(long long size, long long* out, char* err, int err_len) {
    if (out == nullptr || size <= 0 || size > MEMPLAN_ORT_MAX_COUNTED_BLOCK) {
        memplan_ort::message(err, err_len, "counting_allocate: size must be 1 B to 1 TiB and out given");
        return MEMPLAN_ORT_BAD_ARGUMENT;
    }
    void* p = memplan_ort::counting_allocator().blocks.allocate(static_cast<size_t>(size), false);
    if (p == nullptr) {
        memplan_ort::message(err, err_len, "counting_allocate: the system has no memory for the block");
        return MEMPLAN_ORT_FAILED;
    }
    memplan_ort::OwnBlocks& own = memplan_ort::own_blocks();
    {
        std::lock_guard<std::mutex> guard(own.lock);
        own.blocks.insert(p);
    }
    out[0] = static_cast<long long>(reinterpret_cast<intptr_t>(p));
    return MEMPLAN_ORT_OK;
}

/**
 * Gives back a block memplan_ort_counting_allocate handed out; an address it did not hand out, or
 * gave back already, is refused and nothing is freed.
 */
inline int memplan_ort_counting_release(long long address, char* err, int err_len) {
    void* p = reinterpret_cast<void*>(static_cast<intptr_t>(address));
    memplan_ort::OwnBlocks& own = memplan_ort::own_blocks();
    {
        std::lock_guard<std::mutex> guard(own.lock);
        if (own.blocks.erase(p) == 0) {
            memplan_ort::message(err, err_len,
                                 "counting_release: the address is not a block counting_allocate handed out, or it was given back already");
            return MEMPLAN_ORT_BAD_ARGUMENT;
        }
    }
    memplan_ort::counting_allocator().blocks.release(p);
    return MEMPLAN_ORT_OK;
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
