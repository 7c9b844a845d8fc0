// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.lang.ref.Cleaner;

/**
 * Bytes held on a {@link MemoryBudget} until {@link #close()}. Close it in a try-with-resources
 * block so the bytes come back on every path, exceptions included; closing again does nothing. A
 * lease that becomes unreachable unclosed is reported and its bytes given back by a cleaner, but
 * only when the garbage collector gets to it: never rely on that.
 */
public final class Lease implements AutoCloseable {
    private final long bytes;
    private final Release release;
    private final Cleaner.Cleanable cleanable;

    /** Gives the bytes back once: on close, or when the cleaner finds the lease lost. */
    private static final class Release implements Runnable {
        private final MemoryBudget budget;
        private final long bytes;
        private volatile boolean closed;
        private volatile boolean released;

        Release(MemoryBudget budget, long bytes) {
            this.budget = budget;
            this.bytes = bytes;
        }

        @Override
        public void run() {
            released = true;
            budget.release(bytes, !closed);
        }
    }

    Lease(MemoryBudget budget, long bytes, Cleaner cleaner) {
        this.bytes = bytes;
        this.release = new Release(budget, bytes);
        this.cleanable = cleaner.register(this, release); // the action holds no reference to the lease
    }

    /** {@return the bytes this lease holds} */
    public long bytes() {
        return bytes;
    }

    /** {@return true once the bytes have been given back} */
    public boolean isReleased() {
        return release.released;
    }

    /** Gives the bytes back to the budget, waking the next queued request it lets through. Idempotent. */
    @Override
    public void close() {
        release.closed = true;
        cleanable.clean(); // runs the release at most once, whoever calls first
    }

    @Override
    public String toString() {
        return "lease of " + bytes + " bytes" + (isReleased() ? " (released)" : "");
    }
}
