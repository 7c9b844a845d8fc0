// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the ONNX Runtime entry points of ort_arena.h and ort_counting_allocator.h
// (register the counting allocator and use it as ORT would, with any keep limit; read a session's
// allocator statistics) on any handles, sizes, figures and message buffers the Java side or ORT
// could pass, against a stand-in for ONNX Runtime's C API that this file
// exports as OrtGetApiBase. The stand-in fails any call the input says, returns any error text
// and any statistic text, and checks what it is handed. The promises: every call returns one of
// its codes, refuses exactly the documented bad arguments, writes its message inside the buffer
// it was given and ends it, reports a figure only when ORT's text is a whole non-negative
// number, releases every object ORT gave it (LeakSanitizer checks each input), and the counting
// allocator counts exactly the bytes handed out and not yet freed, and keeps freed blocks only
// while all it holds stays within the keep limit.

#include <fuzzer/FuzzedDataProvider.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_arrays.h"
#include "ort_arena.h"
#include "ort_counting_allocator.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

namespace {

// What the stand-in hands out; released by the matching Release call, checked by kind.
enum Kind { kStatus = 1, kMemoryInfo, kAllocator, kKeyValues };
struct Object {
    Kind kind;
    std::string text;                                         // a status's message
    std::vector<std::pair<std::string, std::string>> pairs;  // a key-value map's entries
};

FuzzedDataProvider* input = nullptr;  // the input being run
long long expected_env = 0;
long long expected_session = 0;
memplan_ort::OrtAllocatorTable* registered = nullptr;  // the allocator ORT was handed
std::string stat_text[MEMPLAN_ORT_NUM_STATS];
bool stat_null[MEMPLAN_ORT_NUM_STATS];
std::string limit_text;  // the "Limit" statistic: the counting allocator's mark, or another arena's
bool limit_null = true;
int objects_alive = 0;

void* make(Kind kind, std::string text = "") {
    ++objects_alive;
    return new Object{kind, std::move(text)};
}

void release(void* object, Kind kind) {
    if (object == nullptr) return;  // ORT's Release functions accept null
    auto* o = static_cast<Object*>(object);
    require(o->kind == kind, "released as the wrong kind", o->kind, kind);
    --objects_alive;
    delete o;
}

// null, or a failed status whose message is any text
void* outcome() {
    if (input->ConsumeIntegralInRange<int>(0, 3) != 0) return nullptr;
    return make(kStatus, input->ConsumeRandomLengthString(300));
}

const char* fake_get_error_message(const void* status) {
    auto* o = static_cast<const Object*>(status);
    require(o->kind == kStatus, "message of a non-status", o->kind);
    return o->text.c_str();
}
void fake_release_status(void* s) { release(s, kStatus); }
void* fake_create_cpu_memory_info(int type, int mem_type, void** out) {
    require((type == 0 || type == 1) && mem_type == 0, "not a CPU memory info", type, mem_type);
    void* st = outcome();
    if (st == nullptr) {
        *out = make(kMemoryInfo);
        if (type == 0) --objects_alive;  // the counting allocator's: kept for the process's life
    }
    return st;
}
void fake_release_memory_info(void* m) { release(m, kMemoryInfo); }
void* fake_register_allocator(void* env, void* handed) {
    auto* allocator = static_cast<memplan_ort::OrtAllocatorTable*>(handed);
    require(reinterpret_cast<intptr_t>(env) == expected_env, "another environment", reinterpret_cast<intptr_t>(env));
    require(allocator->version == 23 && allocator->Alloc != nullptr && allocator->Free != nullptr &&
                allocator->Info != nullptr && allocator->Reserve != nullptr && allocator->GetStats != nullptr,
            "an allocator ORT cannot call", allocator->version);
    require(static_cast<const Object*>(allocator->Info(allocator))->kind == kMemoryInfo, "its info is no memory info");
    void* st = outcome();
    if (st == nullptr) registered = allocator;
    return st;
}
void fake_create_key_value_pairs(void** out) { *out = make(kKeyValues); }
void fake_add_key_value_pair(void* kv, const char* key, const char* value) {
    auto* o = static_cast<Object*>(kv);
    require(o->kind == kKeyValues, "a pair added to a non-map", o->kind);
    o->pairs.emplace_back(key, value);
}
void* fake_create_allocator(const void* session, const void* info, void** out) {
    require(reinterpret_cast<intptr_t>(session) == expected_session, "another session",
            reinterpret_cast<intptr_t>(session));
    require(static_cast<const Object*>(info)->kind == kMemoryInfo, "allocator with the wrong memory info");
    void* st = outcome();
    if (st == nullptr) *out = make(kAllocator);
    return st;
}
void fake_release_allocator(void* a) { release(a, kAllocator); }
void* fake_allocator_get_stats(const void* allocator, void** out) {
    require(static_cast<const Object*>(allocator)->kind == kAllocator, "stats of a non-allocator");
    void* st = outcome();
    if (st == nullptr) *out = make(kKeyValues);
    return st;
}
const char* fake_get_key_value(const void* kv, const char* key) {
    require(static_cast<const Object*>(kv)->kind == kKeyValues, "value of a non-map");
    static const char* const keys[MEMPLAN_ORT_NUM_STATS] = {"InUse", "MaxInUse", "TotalAllocated", "NumAllocs",
                                                            "NumReserves"};
    for (const auto& pair : static_cast<const Object*>(kv)->pairs) {  // one the counting allocator made
        if (pair.first == key) return pair.second.c_str();
    }
    for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; ++i) {
        if (std::strcmp(key, keys[i]) == 0) return stat_null[i] ? nullptr : stat_text[i].c_str();
    }
    if (std::strcmp(key, "Limit") == 0) return limit_null ? nullptr : limit_text.c_str();
    fuzz_checks::fail("an unknown statistic asked for", 0, 0);
}
void fake_release_key_value_pairs(void* kv) { release(kv, kKeyValues); }

void* table[400];

const void* fake_get_api(uint32_t version) {
    require(version >= 23, "an API version without AllocatorGetStats", version);
    using memplan_ort::Fn;
    table[Fn::kGetErrorMessage] = reinterpret_cast<void*>(fake_get_error_message);
    table[Fn::kCreateCpuMemoryInfo] = reinterpret_cast<void*>(fake_create_cpu_memory_info);
    table[Fn::kReleaseStatus] = reinterpret_cast<void*>(fake_release_status);
    table[Fn::kReleaseMemoryInfo] = reinterpret_cast<void*>(fake_release_memory_info);
    table[Fn::kCreateAllocator] = reinterpret_cast<void*>(fake_create_allocator);
    table[Fn::kReleaseAllocator] = reinterpret_cast<void*>(fake_release_allocator);
    table[Fn::kRegisterAllocator] = reinterpret_cast<void*>(fake_register_allocator);
    table[Fn::kCreateKeyValuePairs] = reinterpret_cast<void*>(fake_create_key_value_pairs);
    table[Fn::kAddKeyValuePair] = reinterpret_cast<void*>(fake_add_key_value_pair);
    table[Fn::kGetKeyValue] = reinterpret_cast<void*>(fake_get_key_value);
    table[Fn::kReleaseKeyValuePairs] = reinterpret_cast<void*>(fake_release_key_value_pairs);
    table[Fn::kAllocatorGetStats] = reinterpret_cast<void*>(fake_allocator_get_stats);
    return table;
}
const char* fake_version() { return "fuzz"; }
const memplan_ort::ApiBase api_base = {fake_get_api, fake_version};

// A figure ORT's text stands for (up to its first NUL, as C reads it): a whole decimal number
// from 0 to LLONG_MAX, else -1.
long long figure(const std::string& full) {
    const std::string text(full.c_str());
    if (text.empty()) return -1;
    __int128 value = 0;  // in 128 bits, stopped once past LLONG_MAX
    for (const char c : text) {
        if (c < '0' || c > '9') return -1;
        value = value * 10 + (c - '0');
        if (value > LLONG_MAX) return -1;
    }
    return static_cast<long long>(value);
}

// The message buffer: null, empty or any length, filled with a marker so a missing end shows.
struct Message {
    Exact<char> buffer;
    char* at;
    int length;
    explicit Message(FuzzedDataProvider& in)
        : buffer(in.ConsumeIntegralInRange<int>(0, 160)), at(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : buffer.get()),
          length(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegralInRange<int>(-2, 0) : buffer.length) {
        std::memset(buffer.get(), 'x', static_cast<std::size_t>(buffer.length));
    }
    void check(int rc) {
        if (rc == MEMPLAN_ORT_OK || at == nullptr || length <= 0) return;
        require(std::memchr(at, '\0', static_cast<std::size_t>(length)) != nullptr, "a message without its end", rc, length);
    }
};

// The registered allocator's bytes in use, as memplan_ort_counting_stats answers them.
long long counted_in_use() {
    long long out[MEMPLAN_ORT_NUM_STATS];
    require(memplan_ort_counting_stats(out, MEMPLAN_ORT_NUM_STATS, nullptr, 0) == MEMPLAN_ORT_OK, "counting stats");
    return out[MEMPLAN_ORT_STAT_IN_USE];
}

// Freed regions are kept only while all the runs' blocks (not Reserve's) hold stays within the limit.
void require_within_keep_limit(long long limit) {
    memplan_ort::CountingBlocks::Snapshot s = memplan_ort::counting_allocator().blocks.snapshot();
    require(s.reserved >= 0 && s.reserved <= s.total_allocated, "reserved bytes out of range", s.reserved);
    require(s.kept == 0 || s.total_allocated - s.reserved <= limit, "regions kept past the limit",
            s.total_allocated - s.reserved, limit);
}

// Allocates, reserves and frees through the registered table as ORT does, and reads its
// statistics through GetStats: in use is always the bytes handed out and not yet freed.
void use_as_ort_would(FuzzedDataProvider& in) {
    const long long before = counted_in_use();  // other inputs freed everything they took
    require(before == 0, "bytes still counted from an earlier input", before);
    const long long limit = in.ConsumeIntegralInRange<long long>(0, 1 << 20);
    require(memplan_ort_counting_keep_up_to(limit, nullptr, 0) == MEMPLAN_ORT_OK, "keep limit refused", limit);
    std::vector<std::pair<void*, size_t>> held;
    long long expected = 0;
    const int steps = in.ConsumeIntegralInRange<int>(0, 24);
    for (int step = 0; step < steps; ++step) {
        const int what = in.ConsumeIntegralInRange<int>(0, 4);
        if (what <= 1) {
            // now and then a size no block can have (refused before the C library is asked)
            const size_t size = in.ConsumeIntegralInRange<int>(0, 31) == 0
                                    ? in.ConsumeIntegralInRange<size_t>(static_cast<size_t>(INT64_MAX) - 63, SIZE_MAX)
                                    : in.ConsumeIntegralInRange<size_t>(0, 1 << 18);
            void* p = what == 0 ? registered->Alloc(registered, size) : registered->Reserve(registered, size);
            require((p == nullptr) == (size == 0 || size > (1 << 18)), "a block refused or handed out wrongly", size);
            if (p == nullptr) continue;
            require(reinterpret_cast<uintptr_t>(p) % 64 == 0, "a block not 64-byte aligned");
            std::memset(p, 0x5a, size);  // ASan: the whole block is the caller's
            held.emplace_back(p, size);
            expected += static_cast<long long>(size);
        } else if (what == 2 && !held.empty()) {
            const size_t at = in.ConsumeIntegralInRange<size_t>(0, held.size() - 1);
            registered->Free(registered, held[at].first);
            expected -= static_cast<long long>(held[at].second);
            held.erase(held.begin() + static_cast<long>(at));
        } else if (what == 4) {
            // memplan's own block: counted as ORT's are; an address it did not hand out is refused
            const long long size = in.ConsumeIntegralInRange<long long>(1, 1 << 18);
            long long address = 0;
            require(memplan_ort_counting_allocate(size, &address, nullptr, 0) == MEMPLAN_ORT_OK, "own block refused", size);
            require(address % 64 == 0, "an own block not 64-byte aligned");
            std::memset(reinterpret_cast<void*>(static_cast<intptr_t>(address)), 0x3c, static_cast<size_t>(size));
            const long long stray = address + in.ConsumeIntegralInRange<long long>(1, 1 << 20);
            require(memplan_ort_counting_release(stray, nullptr, 0) == MEMPLAN_ORT_BAD_ARGUMENT, "a stray address freed");
            require(memplan_ort_counting_release(address, nullptr, 0) == MEMPLAN_ORT_OK, "an own block not given back");
            require(memplan_ort_counting_release(address, nullptr, 0) == MEMPLAN_ORT_BAD_ARGUMENT, "a block freed twice");
        } else {
            void* kv = nullptr;
            require(registered->GetStats(registered, &kv) == nullptr, "GetStats failed");
            const char* in_use = fake_get_key_value(kv, "InUse");
            require(in_use != nullptr && figure(in_use) == expected, "GetStats' InUse is not the bytes held", expected);
            fake_release_key_value_pairs(kv);
        }
        require(counted_in_use() == expected, "in use is not the bytes held", counted_in_use(), expected);
        require_within_keep_limit(limit);
    }
    registered->Free(registered, nullptr);  // ignored, as ORT may pass it
    for (const auto& block : held) registered->Free(registered, block.first);
    require(counted_in_use() == 0, "in use after everything was freed", counted_in_use());
    require_within_keep_limit(limit);
    memplan_ort_counting_keep_up_to(0, nullptr, 0);
    const memplan_ort::CountingBlocks::Snapshot s = memplan_ort::counting_allocator().blocks.snapshot();
    require(s.total_allocated == 0 && s.kept == 0 && s.reserved == 0,
            "bytes held after everything was freed and nothing kept", s.total_allocated, s.kept);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const memplan_ort::ApiBase* OrtGetApiBase() { return &api_base; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    input = &in;
    objects_alive = 0;
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: {
            expected_env = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? 0 : in.ConsumeIntegral<long long>();
            Message err(in);
            const int rc = memplan_ort_register_counting_allocator(expected_env, err.at, err.length);
            require((expected_env == 0) == (rc == MEMPLAN_ORT_BAD_ARGUMENT), "register: bad argument and the code disagree", rc);
            require(rc == MEMPLAN_ORT_OK || rc == MEMPLAN_ORT_BAD_ARGUMENT || rc == MEMPLAN_ORT_FAILED, "register code", rc);
            err.check(rc);
            if (rc == MEMPLAN_ORT_OK) {
                require(registered != nullptr, "registered without handing ORT the allocator");
                use_as_ort_would(in);
            }
            break;
        }
        case 1: {
            expected_session = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? 0 : in.ConsumeIntegral<long long>();
            // one long past the figures asks whether the allocator is memplan's counting allocator
            const int out_length = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegralInRange<int>(0, 6)
                                   : MEMPLAN_ORT_NUM_STATS + (in.ConsumeBool() ? 1 : 0);
            Exact<long long> out(out_length);
            long long* out_at = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : out.get();
            for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; ++i) {
                stat_null[i] = in.ConsumeIntegralInRange<int>(0, 15) == 0;
                stat_text[i] = in.ConsumeBool() ? std::to_string(in.ConsumeIntegral<uint32_t>())
                                                : in.ConsumeRandomLengthString(24);
            }
            const int limit_kind = in.ConsumeIntegralInRange<int>(0, 2);
            limit_null = limit_kind == 0;
            limit_text = limit_kind == 1 ? std::string(MEMPLAN_ORT_COUNTING_LIMIT) : in.ConsumeRandomLengthString(24);
            Message err(in);
            const int rc = memplan_ort_arena_stats(expected_session, out_at, out_length, err.at, err.length);
            const bool bad = expected_session == 0 || out_at == nullptr || out_length < MEMPLAN_ORT_NUM_STATS;
            require(bad == (rc == MEMPLAN_ORT_BAD_ARGUMENT), "stats: bad arguments and the code disagree", rc);
            require(rc == MEMPLAN_ORT_OK || rc == MEMPLAN_ORT_BAD_ARGUMENT || rc == MEMPLAN_ORT_FAILED, "stats code", rc);
            err.check(rc);
            if (rc == MEMPLAN_ORT_OK) {
                for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; ++i) {
                    const long long want = stat_null[i] ? -1 : figure(stat_text[i]);
                    require(out[i] == want, "a figure not what ORT's text says", out[i], want);
                }
                if (out_length > MEMPLAN_ORT_NUM_STATS) {
                    const long long counting = !limit_null && limit_text == MEMPLAN_ORT_COUNTING_LIMIT ? 1 : 0;
                    require(out[MEMPLAN_ORT_NUM_STATS] == counting, "the counting mark not what the Limit says",
                            out[MEMPLAN_ORT_NUM_STATS], counting);
                }
            }
            break;
        }
        default: {
            const long long bytes = in.ConsumeIntegral<long long>();
            Message err(in);
            const int rc = memplan_ort_counting_keep_up_to(bytes, err.at, err.length);
            require((bytes < 0) == (rc == MEMPLAN_ORT_BAD_ARGUMENT), "keep limit: bad argument and the code disagree", rc);
            require(rc == MEMPLAN_ORT_OK || rc == MEMPLAN_ORT_BAD_ARGUMENT, "keep limit code", rc);
            err.check(rc);
            memplan_ort_counting_keep_up_to(0, nullptr, 0);  // every input starts with nothing kept
            break;
        }
    }
    require(objects_alive == 0, "an object ORT gave was not released", objects_alive);
    input = nullptr;
    return 0;
}
