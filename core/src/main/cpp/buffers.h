// SPDX-License-Identifier: Apache-2.0
// buffers.h - C++ only: temporaries owned by one call, malloc'd so that
// running out of memory is a return code, never an exception crossing the JNI
// boundary (the offsets planner's search phases; compile carves its
// temporaries from the caller's scratch instead). The Java side uses plain
// arrays; no Java class pairs with it.

#ifndef MEMPLAN_BUFFERS_H
#define MEMPLAN_BUFFERS_H

#include <cstdint>
#include <cstdlib>

namespace memplan_offsets {

// malloc'd array freed on scope exit; get() is null when the allocation failed.
template <typename T>
class Array {
public:
    explicit Array(long long count) {
        if (count < 1) count = 1;
        if (static_cast<unsigned long long>(count) <= SIZE_MAX / sizeof(T)) {
            data_ = static_cast<T*>(std::calloc(static_cast<std::size_t>(count), sizeof(T)));
        }
    }
    ~Array() { std::free(data_); }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    T* get() const { return data_; }
    T& operator[](long long i) const { return data_[i]; }

private:
    T* data_ = nullptr;
};

}  // namespace memplan_offsets

#endif  // MEMPLAN_BUFFERS_H
