// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A number of bytes shared by concurrent requests: each request takes a {@link Lease} for the bytes
 * it needs and gives them back when it closes the lease. The budget asks a request what it needs
 * ({@link MemoryNeed}, as a cache asks a weigher) and knows nothing else of it.
 *
 * <pre>{@code
 * MemoryBudget budget = MemoryBudget.of("embeddings", 256L << 20, 32L << 20); // 256 MiB, 32 MiB kept for the runtime
 * MemoryNeed need = cache.planForInputs(shapes);           // a plan, or a runtime's prediction
 * try (MemoryBudget.Lease lease = budget.acquire(need)) {   // waits its turn
 *     session.run(inputs);
 * }                                                          // released exactly once, exception or not
 * }</pre>
 *
 * <p>Strictly first in, first out: a request is granted only when every request that queued before
 * it has been granted or has given up, so a large request is never starved by a stream of small
 * ones (they queue behind it while it waits for enough bytes). A request larger than the whole
 * budget less its reserve fails at once with {@link BudgetExceededException}. Waits can be bounded
 * ({@link #tryAcquire(long, Duration)}), interrupted, or skipped ({@link #tryAcquire(long)}). A lease
 * that becomes unreachable without being closed is reported (a {@code System.Logger} warning on
 * {@code dev.memplan}, {@link Stats#leaked()}) and its bytes are given back. Requests that
 * queue record a JFR event {@code dev.memplan.BudgetWait}.
 *
 * <p>The budget counts what its callers say a request needs; it does not see the process's memory.
 * Which runtime settings keep the process within it is in docs/library.md.
 *
 * <p>Thread-safe.
 */
public final class MemoryBudget {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger("dev.memplan");

    private final String name;
    private final long capacityBytes;
    private final long reserveBytes;
    private final long leasable;

    private final ReentrantLock lock = new ReentrantLock();
    /** Requests not yet granted, in arrival order; the head is the only one that may be granted. */
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private long inUse;
    private long peakInUse;
    private long admitted;
    private long waited;
    private long timedOut;
    private long interrupted;
    private long rejected;
    private long refused;
    private long leaked;
    private long totalWaitNanos;
    private long maxWaitNanos;

    /** One queued request: granted by whichever thread frees enough bytes while it is at the head. */
    private static final class Waiter {
        final long bytes;
        final Condition granted;
        boolean done;

        Waiter(long bytes, Condition granted) {
            this.bytes = bytes;
            this.granted = granted;
        }
    }

    private MemoryBudget(String name, long capacityBytes, long reserveBytes) {
        this.name = name;
        this.capacityBytes = capacityBytes;
        this.reserveBytes = reserveBytes;
        this.leasable = capacityBytes - reserveBytes;
    }

    /**
     * A budget of {@code capacityBytes}, all of it leasable.
     *
     * @param capacityBytes the bytes requests share, >= 0
     * @return the budget, nothing leased
     * @throws IllegalArgumentException when {@code capacityBytes} is negative
     */
    public static MemoryBudget of(long capacityBytes) {
        return of("memory budget", capacityBytes, 0);
    }

    /**
     * A budget of {@code capacityBytes}, of which {@code reserveBytes} are never leased: the
     * runtime's own overhead (its weights, its arena's slack), so that leases plus reserve stay
     * within what the process may use.
     *
     * @param name          the name metrics and JFR events give it
     * @param capacityBytes the bytes the process may use for requests and the reserve, >= 0
     * @param reserveBytes  the bytes kept back, in {@code [0, capacityBytes]}
     * @return the budget, nothing leased
     * @throws IllegalArgumentException when a figure is negative or the reserve exceeds the capacity
     */
    public static MemoryBudget of(String name, long capacityBytes, long reserveBytes) {
        Objects.requireNonNull(name, "name");
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("a memory budget's capacity must be >= 0 bytes, got " + capacityBytes);
        }
        if (reserveBytes < 0 || reserveBytes > capacityBytes) {
            throw new IllegalArgumentException("the reserve must be between 0 and the capacity (" + capacityBytes
                    + " bytes), got " + reserveBytes);
        }
        return new MemoryBudget(name, capacityBytes, reserveBytes);
    }

    /** {@return the name metrics and JFR events give this budget} */
    public String name() {
        return name;
    }

    /** {@return the capacity in bytes, reserve included} */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** {@return the bytes held back from leases} */
    public long reserveBytes() {
        return reserveBytes;
    }

    /** {@return the most bytes leases may hold at once: the capacity less the reserve} */
    public long leasableBytes() {
        return capacityBytes - reserveBytes;
    }

    /**
     * Waits, for as long as it takes, until {@code bytes} are free and every earlier request has
     * been served, then leases them.
     *
     * @param bytes the bytes the request needs, >= 0
     * @return the lease; close it (try-with-resources) to give the bytes back
     * @throws BudgetExceededException  when {@code bytes} exceeds capacity less reserve
     * @throws InterruptedException     when the thread is interrupted while waiting (nothing is held)
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public Lease acquire(long bytes) throws InterruptedException {
        return acquire(bytes, false, 0).orElseThrow();
    }

    /**
     * {@link #acquire(long)} for what a request says it needs ({@link MemoryNeed#neededBytes()}):
     * a plan of memplan's own, or a runtime's prediction.
     *
     * @param need what the request needs
     * @return the lease
     * @throws IllegalArgumentException naming what to bind when the need is not known yet
     * @throws BudgetExceededException  when the request needs more than the budget can ever grant
     * @throws InterruptedException     when the thread is interrupted while waiting (nothing is held)
     */
    public Lease acquire(MemoryNeed need) throws InterruptedException {
        return acquire(need.neededBytes());
    }

    /**
     * Leases {@code bytes} if the request can be granted at once (enough free, nobody queued), else
     * returns empty without waiting.
     *
     * @param bytes the bytes the request needs, >= 0
     * @return the lease, or empty when it would have to wait
     * @throws BudgetExceededException  when {@code bytes} exceeds capacity less reserve
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public Optional<Lease> tryAcquire(long bytes) {
        checkRequest(bytes);
        lock.lock();
        try {
            if (queue.isEmpty() && leasable - inUse >= bytes) {
                return Optional.of(grant(bytes));
            }
            refused++;
            return Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits at most {@code timeout} for the request's turn and its bytes.
     *
     * @param bytes   the bytes the request needs, >= 0
     * @param timeout how long to wait at most; zero or negative waits not at all (still in order)
     * @return the lease, or empty when the timeout ran out first (nothing is held)
     * @throws BudgetExceededException  when {@code bytes} exceeds capacity less reserve
     * @throws InterruptedException     when the thread is interrupted while waiting (nothing is held)
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public Optional<Lease> tryAcquire(long bytes, Duration timeout) throws InterruptedException {
        return acquire(bytes, true, Math.max(0, saturatedNanos(timeout)));
    }

    /**
     * {@link #tryAcquire(long, Duration)} for what a request says it needs.
     *
     * @param need    what the request needs
     * @param timeout how long to wait at most
     * @return the lease, or empty when the timeout ran out first
     * @throws IllegalArgumentException naming what to bind when the need is not known yet
     * @throws BudgetExceededException  when the request needs more than the budget can ever grant
     * @throws InterruptedException     when the thread is interrupted while waiting (nothing is held)
     */
    public Optional<Lease> tryAcquire(MemoryNeed need, Duration timeout) throws InterruptedException {
        return tryAcquire(need.neededBytes(), timeout);
    }

    /**
     * The budget's figures now.
     *
     * @return a consistent snapshot
     */
    public Stats stats() {
        lock.lock();
        try {
            return new Stats(capacityBytes, reserveBytes, inUse, peakInUse, queue.size(), admitted, waited,
                    timedOut, interrupted, rejected, refused, leaked, Duration.ofNanos(totalWaitNanos),
                    Duration.ofNanos(maxWaitNanos));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        Stats s = stats();
        return name + " [" + s.inUseBytes() + " of " + s.leasableBytes() + " bytes leased, " + s.waiting() + " waiting]";
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private void checkRequest(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a request needs >= 0 bytes, got " + bytes);
        }
        if (bytes > leasable) {
            lock.lock();
            try {
                rejected++;
            } finally {
                lock.unlock();
            }
            throw new BudgetExceededException("the request needs " + bytes + " bytes but " + name + " can lease at most "
                    + leasable + " (capacity " + capacityBytes + " less reserve " + reserveBytes
                    + "); admit a smaller request (Admission.largestFitting) or raise the budget");
        }
    }

    private Optional<Lease> acquire(long bytes, boolean timed, long nanos) throws InterruptedException {
        checkRequest(bytes);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before asking " + name + " for " + bytes + " bytes");
        }
        lock.lock();
        try {
            if (queue.isEmpty() && leasable - inUse >= bytes) {
                return Optional.of(grant(bytes));
            }
            BudgetWaitEvent event = new BudgetWaitEvent();
            event.begin();
            event.queuedAhead = queue.size();
            event.inUseAtStart = inUse;
            Waiter me = new Waiter(bytes, lock.newCondition());
            queue.addLast(me);
            long start = System.nanoTime();
            String outcome = "granted";
            try {
                while (!me.done) {
                    if (!timed) {
                        me.granted.await();
                    } else if (nanos <= 0) {
                        outcome = "timed out";
                        timedOut++;
                        return Optional.empty();
                    } else {
                        nanos = me.granted.awaitNanos(nanos);
                    }
                }
                waited++;
                return Optional.of(newLease(bytes));
            } catch (InterruptedException e) {
                outcome = "interrupted";
                interrupted++;
                if (me.done) {
                    inUse -= bytes; // granted as the interrupt came: give the bytes back, hold nothing
                    admitted--;
                }
                throw e;
            } finally {
                if (!me.done) {
                    queue.remove(me);
                }
                grantWaiters(); // this request leaving the head may let the next one through
                long w = System.nanoTime() - start;
                totalWaitNanos += w;
                maxWaitNanos = Math.max(maxWaitNanos, w);
                event.end();
                if (event.shouldCommit()) {
                    event.budget = name;
                    event.requestedBytes = bytes;
                    event.outcome = outcome;
                    event.commit();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Counts {@code bytes} as leased and makes the lease; under the lock. */
    private Lease grant(long bytes) {
        take(bytes);
        return newLease(bytes);
    }

    private void take(long bytes) {
        inUse += bytes;
        peakInUse = Math.max(peakInUse, inUse);
        admitted++;
    }

    private Lease newLease(long bytes) {
        return new Lease(this, bytes, CLEANER);
    }

    /** Grants queued requests from the head while the head fits; under the lock. */
    private void grantWaiters() {
        Waiter head;
        while ((head = queue.peekFirst()) != null && leasable - inUse >= head.bytes) {
            queue.pollFirst();
            take(head.bytes);
            head.done = true;
            head.granted.signal();
        }
    }

    /** Gives bytes back; called exactly once per lease. */
    void release(long bytes, boolean lost) {
        lock.lock();
        try {
            inUse -= bytes;
            if (lost) {
                leaked++;
            }
            grantWaiters();
        } finally {
            lock.unlock();
        }
        if (lost) {
            LOG.log(System.Logger.Level.WARNING, "a lease of " + bytes + " bytes on " + name
                    + " was never closed; its bytes were given back when it was collected. Close leases with"
                    + " try-with-resources");
        }
    }

    /**
     * A snapshot of a {@link MemoryBudget}, taken at one instant under its lock, so the figures agree
     * with each other.
     *
     * @param capacityBytes the budget's bytes, reserve included
     * @param reserveBytes  the bytes held back for the runtime's own overhead, never leased
     * @param inUseBytes    bytes held by leases not yet released
     * @param peakInUseBytes the most bytes ever held by leases at once
     * @param waiting       requests queued now
     * @param admitted      leases granted since the budget was made
     * @param waited        leases granted only after queueing
     * @param timedOut      requests that gave up when their timeout ran out
     * @param interrupted   requests whose thread was interrupted while queued
     * @param rejected      requests larger than the budget can ever grant (failed at once)
     * @param refused       {@code tryAcquire} calls that found too little free and did not wait
     * @param leaked        leases that became unreachable without being released (reclaimed by the cleaner)
     * @param totalWait     time spent queued by every request that queued, whatever its outcome
     * @param maxWait       the longest time one request spent queued
     */
    public record Stats(long capacityBytes, long reserveBytes, long inUseBytes, long peakInUseBytes, int waiting,
                        long admitted, long waited, long timedOut, long interrupted, long rejected, long refused,
                        long leaked, Duration totalWait, Duration maxWait) {

        /** {@return the bytes leases may hold at most: capacity less reserve} */
        public long leasableBytes() {
            return capacityBytes - reserveBytes;
        }

        /** {@return the bytes free for leases now} */
        public long availableBytes() {
            return leasableBytes() - inUseBytes;
        }
    }

    /**
     * Bytes held on a {@link MemoryBudget} until {@link #close()}. Close it in a try-with-resources
     * block so the bytes come back on every path, exceptions included; closing again does nothing. A
     * lease that becomes unreachable unclosed is reported and its bytes given back by a cleaner, but
     * only when the garbage collector gets to it: never rely on that.
     */
    public static final class Lease implements AutoCloseable {
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
}
