// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Native working memory lent to one call at a time and reused by the next, whatever schedule it
 * plans: a compile's temporaries, a request's scratch. Memory freshly mapped per call is paid in
 * page faults and kernel time on every call (it was 10 faults per 10k-owner slots plan, 20 per
 * offsets plan), where memory reused stays mapped. The pool keeps at most {@link #maxKept} blocks,
 * the most recently returned first; a block too small for a request is freed and replaced by one
 * of the next power of two, whose pages the OS maps only once touched.
 */
final class NativeBlockPool {
    /** Enough for every core planning at once, twice over. */
    static final NativeBlockPool SHARED =
            new NativeBlockPool(2 * Math.max(2, Runtime.getRuntime().availableProcessors()));

    private static final long SMALLEST = 64 << 10;

    private final int maxKept;
    /** Free blocks, the last returned first; guarded by {@code this}. */
    private final ArrayDeque<NativeBlock> free = new ArrayDeque<>();

    NativeBlockPool(int maxKept) {
        this.maxKept = maxKept;
    }

    /** A block of at least {@code bytes} bytes, nothing carved from it; give it back with {@link #give}. */
    NativeBlock take(long bytes) {
        NativeBlock tooSmall;
        synchronized (this) {
            for (Iterator<NativeBlock> it = free.iterator(); it.hasNext(); ) {
                NativeBlock b = it.next();
                if (b.capacity() >= bytes) {
                    it.remove();
                    b.reset();
                    return b;
                }
            }
            tooSmall = free.pollFirst();
        }
        if (tooSmall != null) {
            tooSmall.close();
        }
        return new NativeBlock(roundUp(bytes));
    }

    /** Returns a block taken from this pool; the caller must not use it after. */
    void give(NativeBlock block) {
        synchronized (this) {
            if (free.size() < maxKept) {
                free.push(block);
                return;
            }
        }
        block.close();
    }

    /** Blocks kept for reuse now (for tests). */
    synchronized int kept() {
        return free.size();
    }

    static long roundUp(long bytes) {
        if (bytes <= SMALLEST) {
            return SMALLEST;
        }
        long p = Long.highestOneBit(bytes);
        return p == bytes || p > Long.MAX_VALUE / 2 ? bytes : p << 1;
    }
}
