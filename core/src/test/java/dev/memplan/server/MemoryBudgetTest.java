// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The budget's contract: exactly-once release on every path, FIFO, bounded waits, stats. */
@EngineIndependent
@Timeout(60)
class MemoryBudgetTest {

    /** Waits until {@code n} requests are queued (the queue is only visible through stats). */
    private static void awaitWaiting(MemoryBudget budget, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (budget.stats().waiting() != n) {
            assertTrue(System.nanoTime() < deadline, "never saw " + n + " waiting: " + budget.stats());
            Thread.sleep(1);
        }
    }

    @Test
    void leaseIsReleasedExactlyOnce() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        MemoryBudget.Lease lease = budget.acquire(60);
        assertEquals(60, budget.stats().inUseBytes());
        assertFalse(lease.isReleased());
        lease.close();
        lease.close(); // harmless
        assertTrue(lease.isReleased());
        MemoryBudget.Stats s = budget.stats();
        assertEquals(0, s.inUseBytes());
        assertEquals(60, s.peakInUseBytes());
        assertEquals(1, s.admitted());
        assertEquals(0, s.leaked());
    }

    @Test
    void leaseIsReleasedWhenTheRequestThrows() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        assertThrows(IllegalStateException.class, () -> {
            try (MemoryBudget.Lease lease = budget.acquire(70)) {
                assertEquals(70, budget.stats().inUseBytes());
                throw new IllegalStateException("the inference failed");
            }
        });
        assertEquals(0, budget.stats().inUseBytes());
        assertTrue(budget.tryAcquire(100).isPresent(), "all 100 bytes are free again");
    }

    @Test
    void requestLargerThanTheBudgetFailsAtOnce() {
        MemoryBudget budget = MemoryBudget.of("test", 100, 30);
        assertEquals(70, budget.leasableBytes());
        assertEquals(budget.stats().leasableBytes(), budget.leasableBytes());
        assertDoesNotThrow(() -> budget.tryAcquire(70).orElseThrow().close());
        BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> budget.acquire(71));
        assertEquals("the request needs 71 bytes but test can lease at most 70 (capacity 100 less reserve 30); "
                + "admit a smaller request (Admission.largestFitting) or raise the budget", e.getMessage());
        assertThrows(BudgetExceededException.class, () -> budget.tryAcquire(71));
        assertThrows(BudgetExceededException.class, () -> budget.tryAcquire(71, Duration.ofDays(1)));
        assertEquals(3, budget.stats().rejected());
        assertEquals(0, budget.stats().waiting());
        assertThrows(IllegalArgumentException.class, () -> budget.acquire(-1));
        assertThrows(IllegalArgumentException.class, () -> MemoryBudget.of("x", 10, 11));
    }

    @Test
    void reserveIsNeverLeased() throws Exception {
        MemoryBudget budget = MemoryBudget.of("test", 100, 30);
        try (MemoryBudget.Lease a = budget.acquire(70)) {
            assertEquals(Optional.empty(), budget.tryAcquire(1));
            assertEquals(0, budget.stats().availableBytes());
        }
        assertEquals(1, budget.stats().refused());
    }

    @Test
    void timeoutHoldsNothingAndLetsTheNextRequestThrough() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        MemoryBudget.Lease holder = budget.acquire(60);
        // a 50-byte request times out; a 40-byte one queued behind it must then be granted
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Optional<MemoryBudget.Lease>> big = pool.submit(() -> budget.tryAcquire(50, Duration.ofMillis(300)));
            awaitWaiting(budget, 1);
            Future<MemoryBudget.Lease> small = pool.submit(() -> budget.acquire(40));
            awaitWaiting(budget, 2);
            assertEquals(Optional.empty(), big.get(20, TimeUnit.SECONDS));
            MemoryBudget.Lease s = small.get(20, TimeUnit.SECONDS);
            assertEquals(100, budget.stats().inUseBytes());
            s.close();
        } finally {
            pool.shutdownNow();
        }
        holder.close();
        MemoryBudget.Stats st = budget.stats();
        assertEquals(0, st.inUseBytes());
        assertEquals(1, st.timedOut());
        assertEquals(1, st.waited());
        assertTrue(st.maxWait().toMillis() >= 250, st.toString());
    }

    @Test
    void interruptHoldsNothingAndLetsTheNextRequestThrough() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        MemoryBudget.Lease holder = budget.acquire(60);
        List<Throwable> seen = Collections.synchronizedList(new ArrayList<>());
        Thread big = new Thread(() -> {
            try {
                budget.acquire(50);
            } catch (Throwable t) {
                seen.add(t);
            }
        });
        big.start();
        awaitWaiting(budget, 1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<MemoryBudget.Lease> small = pool.submit(() -> budget.acquire(40));
            awaitWaiting(budget, 2);
            big.interrupt();
            big.join(20_000);
            assertEquals(1, seen.size());
            assertTrue(seen.get(0) instanceof InterruptedException, seen.toString());
            small.get(20, TimeUnit.SECONDS).close();
        } finally {
            pool.shutdownNow();
        }
        holder.close();
        assertEquals(0, budget.stats().inUseBytes());
        assertEquals(1, budget.stats().interrupted());
        // an already interrupted thread does not queue at all
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> budget.acquire(1));
        assertEquals(0, budget.stats().inUseBytes());
    }

    @Test
    void largeRequestIsNotStarvedByAStreamOfSmallOnes() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        List<String> grants = Collections.synchronizedList(new ArrayList<>());
        MemoryBudget.Lease first = budget.acquire(30);
        ExecutorService pool = Executors.newFixedThreadPool(9);
        try {
            Future<?> big = pool.submit(() -> {
                try (MemoryBudget.Lease l = budget.acquire(100)) {
                    grants.add("big");
                }
                return null;
            });
            awaitWaiting(budget, 1);
            // 70 bytes are free, enough for every small request, yet none may pass the large one
            assertEquals(Optional.empty(), budget.tryAcquire(10));
            List<Future<?>> smalls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                smalls.add(pool.submit(() -> {
                    try (MemoryBudget.Lease l = budget.acquire(10)) {
                        grants.add("small");
                    }
                    return null;
                }));
            }
            awaitWaiting(budget, 9);
            assertEquals(List.of(), grants);
            first.close();
            big.get(20, TimeUnit.SECONDS);
            for (Future<?> f : smalls) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals("big", grants.get(0), grants.toString());
        assertEquals(9, grants.size());
        assertEquals(0, budget.stats().inUseBytes());
    }

    @Test
    void lostLeaseIsReportedAndReclaimed() throws Exception {
        MemoryBudget budget = MemoryBudget.of(100);
        loseALease(budget);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (budget.stats().leaked() == 0) {
            assertTrue(System.nanoTime() < deadline, "the lost lease was never reported: " + budget.stats());
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(1, budget.stats().leaked());
        assertEquals(0, budget.stats().inUseBytes());
    }

    private static void loseALease(MemoryBudget budget) throws InterruptedException {
        budget.acquire(80); // never closed, never kept
    }

    @Test
    void concurrentLeasesNeverExceedTheBudget() throws Exception {
        MemoryBudget budget = MemoryBudget.of("stress", 1_000, 100);
        AtomicLong held = new AtomicLong();
        AtomicLong maxHeld = new AtomicLong();
        int threads = 8;
        int perThread = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = 42 + t;
            results.add(pool.submit(() -> {
                Random r = new Random(seed);
                int granted = 0;
                for (int i = 0; i < perThread; i++) {
                    long bytes = 1 + r.nextInt(r.nextInt(10) == 0 ? 900 : 200);
                    Optional<MemoryBudget.Lease> lease = r.nextBoolean() ? Optional.of(budget.acquire(bytes))
                            : budget.tryAcquire(bytes, Duration.ofMillis(r.nextInt(3)));
                    if (lease.isEmpty()) {
                        continue;
                    }
                    try (MemoryBudget.Lease l = lease.get()) {
                        long now = held.addAndGet(bytes);
                        maxHeld.accumulateAndGet(now, Math::max);
                        granted++;
                        if (r.nextInt(4) == 0) {
                            Thread.yield();
                        }
                        held.addAndGet(-bytes);
                    }
                }
                return granted;
            }));
        }
        int granted = 0;
        for (Future<Integer> f : results) {
            granted += f.get(50, TimeUnit.SECONDS);
        }
        pool.shutdown();
        MemoryBudget.Stats s = budget.stats();
        assertTrue(maxHeld.get() <= 900, "leases held " + maxHeld.get() + " bytes at once");
        assertTrue(s.peakInUseBytes() <= 900, s.toString());
        assertEquals(0, s.inUseBytes());
        assertEquals(0, s.waiting());
        assertEquals(granted, s.admitted());
        assertEquals(threads * perThread, s.admitted() + s.timedOut(), s.toString());
    }

    @Test
    void queuedRequestsRecordABudgetWaitEvent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("budget.jfr");
        MemoryBudget budget = MemoryBudget.of("jfr-test", 100, 0);
        try (Recording recording = new Recording()) {
            recording.enable("dev.memplan.BudgetWait").withThreshold(Duration.ZERO);
            recording.start();
            budget.acquire(10).close(); // granted at once: no event
            MemoryBudget.Lease holder = budget.acquire(90);
            CountDownLatch queued = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                try {
                    queued.countDown();
                    budget.acquire(20).close();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            waiter.start();
            queued.await();
            awaitWaiting(budget, 1);
            assertTrue(budget.tryAcquire(50, Duration.ofMillis(50)).isEmpty());
            holder.close();
            waiter.join(20_000);
            recording.stop();
            recording.dump(file);
        }
        // Two threads wrote these events: JFR writes each thread's buffer in turn, so the file's
        // order is not the order they happened in. Sort by end time, which is.
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.memplan.BudgetWait"))
                .sorted(Comparator.comparing(RecordedEvent::getEndTime)).toList();
        assertEquals(List.of("timed out/50/1", "granted/20/0"), events.stream()
                .map(e -> e.getString("outcome") + "/" + e.getLong("requestedBytes") + "/" + e.getInt("queuedAhead"))
                .toList());
        assertEquals("jfr-test", events.get(0).getString("budget"));
        assertEquals(90, events.get(1).getLong("inUseAtStart"));
    }
}
