// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

/**
 * Test oracle: the first, straightforward model of ONNX Runtime's memory pattern (a scan of every
 * live block, as ORT's own code does), which {@link MemoryPattern} must match offset for offset.
 * {@code MemPatternPlanner::TraceAllocation}, non-training build: the first run's planned
 * allocations are traced, and from the second run one block of the pattern's size holds them all.
 * Each traced tensor takes the best-fitting gap between live blocks, or the gap between the
 * highest live block and the block's current end, else goes right above the highest live block. A
 * deterministic offset planner, not a packing optimum: on MiniLM 4 x 512 it ends 13% above the
 * tensor-by-tensor peak (docs/ort-runtime.md, section 2).
 */
final class ReferenceMemoryPattern {
    // Live blocks sorted by (offset, size, value), in parallel arrays: the gap scan is the replay's
    // hottest loop.
    private long[] offsets = new long[64];
    private long[] sizes = new long[64];
    private int[] values = new int[64];
    private int live;
    /** Per value id: where its live block is, or -1. */
    private final long[] placedOffset;
    private final long[] placedSize;
    private long size;

    /** A pattern for a graph whose value ids are below {@code values}. */
    ReferenceMemoryPattern(int values) {
        placedOffset = new long[values];
        placedSize = new long[values];
        java.util.Arrays.fill(placedOffset, -1);
    }

    /** Traces the allocation of {@code bytes} (already 256-byte rounded) for {@code value}. */
    void allocate(int value, long bytes) {
        long current = 0;
        long waste = -1;
        long best = -1;
        for (int i = 0; i < live; i++) {
            long offset = offsets[i];
            if (offset >= current) {
                long gap = offset - current;
                if (gap >= bytes && (waste < 0 || gap - bytes < waste)) {
                    best = current;
                    waste = gap - bytes;
                }
            }
            current = Math.max(current, offset + sizes[i]);
        }
        if (current < size && size - current >= bytes && (waste < 0 || size - current - bytes < waste)) {
            best = current;
        }
        if (best < 0) {
            best = current;
        }
        size = Math.max(size, best + bytes);
        if (live == offsets.length) {
            offsets = java.util.Arrays.copyOf(offsets, 2 * live);
            sizes = java.util.Arrays.copyOf(sizes, 2 * live);
            values = java.util.Arrays.copyOf(values, 2 * live);
        }
        int at = -position(best, bytes, value) - 1;
        System.arraycopy(offsets, at, offsets, at + 1, live - at);
        System.arraycopy(sizes, at, sizes, at + 1, live - at);
        System.arraycopy(values, at, values, at + 1, live - at);
        offsets[at] = best;
        sizes[at] = bytes;
        values[at] = value;
        live++;
        placedOffset[value] = best;
        placedSize[value] = bytes;
    }

    /** Binary search for a block: its index, or {@code -(insertion point) - 1}. */
    private int position(long offset, long bytes, int value) {
        int lo = 0;
        int hi = live - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compare(offsets[mid], offset);
            if (c == 0) {
                c = Long.compare(sizes[mid], bytes);
            }
            if (c == 0) {
                c = Integer.compare(values[mid], value);
            }
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /** Traces the release of {@code value}'s tensor. */
    void free(int value) {
        if (placedOffset[value] < 0) {
            return;
        }
        int at = position(placedOffset[value], placedSize[value], value);
        placedOffset[value] = -1;
        System.arraycopy(offsets, at + 1, offsets, at, live - at - 1);
        System.arraycopy(sizes, at + 1, sizes, at, live - at - 1);
        System.arraycopy(values, at + 1, values, at, live - at - 1);
        live--;
    }

    /** {@return where {@code value}'s live block is, or -1} */
    long offset(int value) {
        return placedOffset[value];
    }

    /** {@return the bytes of the block the second run allocates} */
    long size() {
        return size;
    }
}
