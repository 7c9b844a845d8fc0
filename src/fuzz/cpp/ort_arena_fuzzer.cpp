// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the ONNX Runtime entry points of ort_arena.h (register an arena, read a
// session's arena statistics, fix glibc's mmap threshold) on any handles, figures and message
// buffers the Java side could pass, against a stand-in for ONNX Runtime's C API that this file
// exports as OrtGetApiBase. The stand-in fails any call the input says, returns any error text
// and any statistic text, and checks what it is handed. The promises: every call returns one of
// its codes, refuses exactly the documented bad arguments, writes its message inside the buffer
// it was given and ends it, reports a figure only when ORT's text is a whole non-negative
// number, and releases every object ORT gave it (LeakSanitizer checks each input).

#include <fuzzer/FuzzedDataProvider.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_arrays.h"
#include "ort_arena.h"
#include "plan_checks.h"

using fuzz_arrays::Exact;
using fuzz_checks::require;

namespace {

// What the stand-in hands out; released by the matching Release call, checked by kind.
enum Kind { kStatus = 1, kMemoryInfo, kArenaCfg, kAllocator, kKeyValues };
struct Object {
    Kind kind;
    std::string text;  // a status's message
};

FuzzedDataProvider* input = nullptr;  // the input being run
long long expected_env = 0;
long long expected_session = 0;
long long expected_strategy = 0;
long long expected_max_mem = 0;
std::string stat_text[MEMPLAN_ORT_NUM_STATS];
bool stat_null[MEMPLAN_ORT_NUM_STATS];
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
    require(type == 1 && mem_type == 0, "not the arena allocator's CPU memory info", type, mem_type);
    void* st = outcome();
    if (st == nullptr) *out = make(kMemoryInfo);
    return st;
}
void fake_release_memory_info(void* m) { release(m, kMemoryInfo); }
void* fake_create_arena_cfg_v2(const char* const* keys, const size_t* values, size_t n, void** out) {
    require(n == 2 && std::strcmp(keys[0], "arena_extend_strategy") == 0 && std::strcmp(keys[1], "max_mem") == 0,
            "arena keys", static_cast<long long>(n));
    require(static_cast<long long>(values[0]) == expected_strategy && static_cast<long long>(values[1]) == expected_max_mem,
            "arena values", static_cast<long long>(values[0]), static_cast<long long>(values[1]));
    void* st = outcome();
    if (st == nullptr) *out = make(kArenaCfg);
    return st;
}
void fake_release_arena_cfg(void* c) { release(c, kArenaCfg); }
void* fake_create_and_register_allocator(void* env, const void* info, const void* cfg) {
    require(reinterpret_cast<intptr_t>(env) == expected_env, "another environment", reinterpret_cast<intptr_t>(env));
    require(static_cast<const Object*>(info)->kind == kMemoryInfo && static_cast<const Object*>(cfg)->kind == kArenaCfg,
            "register with the wrong objects");
    return outcome();
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
    for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; ++i) {
        if (std::strcmp(key, keys[i]) == 0) return stat_null[i] ? nullptr : stat_text[i].c_str();
    }
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
    table[Fn::kCreateAndRegisterAllocator] = reinterpret_cast<void*>(fake_create_and_register_allocator);
    table[Fn::kReleaseArenaCfg] = reinterpret_cast<void*>(fake_release_arena_cfg);
    table[Fn::kCreateArenaCfgV2] = reinterpret_cast<void*>(fake_create_arena_cfg_v2);
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

}  // namespace

extern "C" __attribute__((visibility("default"))) const memplan_ort::ApiBase* OrtGetApiBase() { return &api_base; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t length) {
    FuzzedDataProvider in(data, length);
    input = &in;
    objects_alive = 0;
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: {
            expected_env = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? 0 : in.ConsumeIntegral<long long>();
            expected_strategy = in.ConsumeIntegralInRange<int>(-1, 2);
            expected_max_mem = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? -static_cast<long long>(in.ConsumeIntegral<uint32_t>()) - 1
                                                                          : in.ConsumeIntegral<uint32_t>();
            Message err(in);
            const int rc = memplan_ort_register_arena(expected_env, static_cast<int>(expected_strategy), expected_max_mem,
                                                      err.at, err.length);
            const bool bad = expected_env == 0 || expected_strategy < 0 || expected_strategy > 1 || expected_max_mem < 0;
            require(bad == (rc == MEMPLAN_ORT_BAD_ARGUMENT), "register: bad arguments and the code disagree", rc);
            require(rc == MEMPLAN_ORT_OK || rc == MEMPLAN_ORT_BAD_ARGUMENT || rc == MEMPLAN_ORT_FAILED, "register code", rc);
            err.check(rc);
            break;
        }
        case 1: {
            expected_session = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? 0 : in.ConsumeIntegral<long long>();
            const int out_length = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegralInRange<int>(0, 6)
                                                                             : MEMPLAN_ORT_NUM_STATS;
            Exact<long long> out(out_length);
            long long* out_at = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : out.get();
            for (int i = 0; i < MEMPLAN_ORT_NUM_STATS; ++i) {
                stat_null[i] = in.ConsumeIntegralInRange<int>(0, 15) == 0;
                stat_text[i] = in.ConsumeBool() ? std::to_string(in.ConsumeIntegral<uint32_t>())
                                                : in.ConsumeRandomLengthString(24);
            }
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
            }
            break;
        }
        default: {
            const long long bytes = in.ConsumeBool() ? in.ConsumeIntegral<long long>()
                                                     : in.ConsumeIntegralInRange<long long>(4000, 33LL << 20);
            Message err(in);
            const int rc = memplan_ort_fix_mmap_threshold(bytes, err.at, err.length);
            const bool bad = bytes < 4096 || bytes > 32LL * 1024 * 1024;
            require(bad == (rc == MEMPLAN_ORT_BAD_ARGUMENT), "mmap threshold: bad argument and the code disagree", rc);
            require(rc != MEMPLAN_ORT_UNAVAILABLE || !bad, "mmap threshold code", rc);
            err.check(rc);
            break;
        }
    }
    require(objects_alive == 0, "an object ORT gave was not released", objects_alive);
    input = nullptr;
    return 0;
}
