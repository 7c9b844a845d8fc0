// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memplan.testing.EngineIndependent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FIFO as a property over many waiters: each seed drives one budget through a random sequence of
 * steps (a request arrives, a lease closes, a waiter is interrupted, a waiter's timeout runs out)
 * with a real thread per request, and after every step waits until the budget settles, then holds
 * it to a sequential model of a strictly first-in, first-out budget: the same requests granted,
 * the same ones still queued, the same bytes in use. A request is served only from the head of
 * the queue; one that leaves the queue (interrupt, timeout) lets the ones behind it through.
 */
@EngineIndependent
@Timeout(120)
class MemoryBudgetFifoTest {
    private static final long CAPACITY = 100;
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** What the budget should hold after each step: strictly FIFO, granted only from the head. */
    private static final class FifoModel {
        final Map<Integer, Long> queue = new LinkedHashMap<>();
        final Map<Integer, Long> granted = new TreeMap<>();
        long inUse;

        void arrive(int id, long bytes) {
            queue.put(id, bytes);
            serveHead();
        }

        void release(int id) {
            inUse -= granted.remove(id);
            serveHead();
        }

        void leave(int id) {
            queue.remove(id);
            serveHead();
        }

        private void serveHead() {
            while (!queue.isEmpty()) {
                Map.Entry<Integer, Long> head = queue.entrySet().iterator().next();
                if (CAPACITY - inUse < head.getValue()) {
                    return;
                }
                queue.remove(head.getKey());
                granted.put(head.getKey(), head.getValue());
                inUse += head.getValue();
            }
        }
    }

    /** One request on its own thread: how it asked, and what it got. */
    private static final class Request {
        final int id;
        final long bytes;
        final boolean timesOut;
        final Thread thread;
        volatile MemoryBudget.Lease lease;
        volatile String outcome; // null while waiting

        Request(int id, long bytes, boolean timed, boolean timesOut, MemoryBudget budget) {
            this.id = id;
            this.bytes = bytes;
            this.timesOut = timesOut;
            this.thread = new Thread(() -> {
                try {
                    Optional<MemoryBudget.Lease> got = timesOut ? budget.tryAcquire(bytes, Duration.ofMillis(30))
                            : timed ? budget.tryAcquire(bytes, Duration.ofMinutes(5))
                            : Optional.of(budget.acquire(bytes));
                    lease = got.orElse(null);
                    outcome = got.isPresent() ? "granted" : "timed out";
                } catch (InterruptedException e) {
                    outcome = "interrupted";
                }
            }, "fifo-request-" + id);
            thread.setDaemon(true);
        }
    }

    static LongStream seeds() {
        return LongStream.range(0, 25);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void waitersAreServedStrictlyInArrivalOrder(long seed) throws InterruptedException {
        Random random = new Random(seed);
        MemoryBudget budget = MemoryBudget.of(CAPACITY);
        FifoModel model = new FifoModel();
        Map<Integer, Request> requests = new ConcurrentHashMap<>();
        List<String> steps = new ArrayList<>();
        int nextId = 0;
        for (int step = 0; step < 40; step++) {
            int action = random.nextInt(10);
            List<Integer> queued = new ArrayList<>(model.queue.keySet());
            List<Integer> held = new ArrayList<>(model.granted.keySet());
            if (action < 5 || (queued.isEmpty() && held.isEmpty())) {
                int id = nextId++;
                long bytes = 1 + random.nextInt(random.nextInt(4) == 0 ? (int) CAPACITY : 40);
                // a request that would queue may be one whose short timeout runs out before anything else happens
                boolean wouldQueue = !model.queue.isEmpty() || CAPACITY - model.inUse < bytes;
                boolean timesOut = wouldQueue && random.nextInt(5) == 0;
                Request r = new Request(id, bytes, random.nextBoolean(), timesOut, budget);
                requests.put(id, r);
                r.thread.start();
                steps.add("request " + id + " of " + bytes + (timesOut ? " (times out)" : ""));
                if (timesOut) {
                    model.arrive(id, bytes);
                    awaitOutcome(r, steps);
                    assertEquals("timed out", r.outcome, () -> "request " + id + ": " + steps);
                    model.leave(id);
                } else {
                    model.arrive(id, bytes);
                }
            } else if (action < 8 && !held.isEmpty()) {
                int id = held.get(random.nextInt(held.size()));
                requests.get(id).lease.close();
                steps.add("close " + id);
                model.release(id);
            } else if (!queued.isEmpty()) {
                int id = queued.get(random.nextInt(queued.size()));
                Request r = requests.get(id);
                r.thread.interrupt();
                steps.add("interrupt " + id);
                awaitOutcome(r, steps);
                assertEquals("interrupted", r.outcome, () -> "request " + id + ": " + steps);
                model.leave(id);
            } else {
                continue;
            }
            settle(budget, model, requests, steps);
        }
        // Close everything: every request still queued is then served, in order.
        for (Request r : requests.values()) {
            r.thread.interrupt();
        }
        for (Request r : requests.values()) {
            r.thread.join(TimeUnit.SECONDS.toMillis(20));
            if (r.lease != null) {
                r.lease.close();
            }
        }
        assertEquals(0, budget.stats().inUseBytes(), () -> "every lease closed: " + steps);
        assertEquals(0, budget.stats().waiting());
    }

    private static void awaitOutcome(Request r, List<String> steps) throws InterruptedException {
        r.thread.join(TimeUnit.NANOSECONDS.toMillis(SETTLE_NANOS));
        if (r.outcome == null) {
            fail("request " + r.id + " never returned after " + steps);
        }
    }

    /** Waits until the budget shows what the model holds; fails naming the difference if it never does. */
    private static void settle(MemoryBudget budget, FifoModel model, Map<Integer, Request> requests,
                               List<String> steps) throws InterruptedException {
        Supplier<String> difference = () -> {
            Map<Integer, Long> granted = new TreeMap<>();
            for (Request r : requests.values()) {
                if ("granted".equals(r.outcome) && !r.lease.isReleased()) {
                    granted.put(r.id, r.bytes);
                }
            }
            MemoryBudget.Stats s = budget.stats();
            String actual = "granted " + granted + ", " + s.waiting() + " waiting, " + s.inUseBytes() + " bytes in use";
            String expected = "granted " + model.granted + ", " + model.queue.size() + " waiting, " + model.inUse
                    + " bytes in use";
            return actual.equals(expected) ? null : "expected " + expected + " (queue " + model.queue.keySet()
                    + "), got " + actual;
        };
        long deadline = System.nanoTime() + SETTLE_NANOS;
        String diff;
        while ((diff = difference.get()) != null) {
            if (System.nanoTime() > deadline) {
                fail(diff + " after " + steps);
            }
            Thread.sleep(1);
        }
        MemoryBudget.Stats s = budget.stats();
        assertTrue(s.peakInUseBytes() <= CAPACITY, s::toString);
    }
}
