// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import dev.memplan.validate.PlanValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One compiled schedule shared by 8 threads, each planning its own requests at once, gives exactly
 * the plans one thread gets on the Java engine for the same sizes, with either strategy. The shared schedule is on the
 * engine of {@code memplan.engine}, so the native surefire run covers the native engine.
 */
class ConcurrencyTest {
    private static final int THREADS = 8;
    private static final int REQUESTS_PER_THREAD = 1_000;
    /**
     * An offsets plan searches (about 50 times the cost of a slots plan on this graph at the default
     * effort), so fewer requests per thread keep the test fast: still 1,600 plans made at once.
     */
    private static final int OFFSETS_REQUESTS_PER_THREAD = 200;

    /** What the single-threaded Java plan of one request was; no slots for an offsets plan. */
    private record Expected(long[] offsets, int[] slotByValue, long[] capacities, long peak, long naive,
                            long lowerBound) {
        static Expected of(ActivationPlan p) {
            boolean slots = p.strategy() == Strategy.SLOTS;
            return new Expected(PlanAssertions.longs(p.offsetsByOwner()),
                    slots ? PlanAssertions.ints(p.slotsByValue()) : new int[0],
                    PlanAssertions.longs(p.slotCapacities()), p.peakBytes(), p.naiveBytes(), p.lowerBoundBytes());
        }
    }

    /** The sizes of request {@code r} of thread {@code t}, by owner index: many equal values, some zeros. */
    private static long[] sizes(Schedule s, int thread, int request) {
        Random rnd = new Random(thread * 1_000_003L + request);
        long[] sizes = new long[s.numOwners()];
        int style = request % 3;
        for (int o = 0; o < sizes.length; o++) {
            sizes[o] = switch (style) {
                case 0 -> 64L * rnd.nextInt(4);
                case 1 -> rnd.nextInt(1 << 16);
                default -> (1 + request % 7) * 4096L + rnd.nextInt(3);
            };
        }
        return sizes;
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    @Timeout(120)
    void eightThreadsOnOneScheduleGetTheSinglethreadedJavaPlans(Strategy strategy) throws Exception {
        RandomGraphs.Case c = RandomGraphs.generateMixed(4242, 250).withStrategy(strategy);
        Schedule shared = MemPlan.compile(c.graph(), c.views(), c.options());
        Schedule reference = MemPlan.compile(c.graph(), c.views(), c.options().withEngine(EngineMode.JAVA));
        assertTrue(shared.numOwners() > 150, "a mid-size graph: " + shared.numOwners() + " owners");
        assertEquals(shared.engine(), MemPlan.engineName(EngineMode.fromSystemProperty()));
        int requests = (strategy == Strategy.SLOTS ? REQUESTS_PER_THREAD : OFFSETS_REQUESTS_PER_THREAD)
                * PlanAssertions.scale();

        Expected[][] expected = new Expected[THREADS][requests];
        for (int t = 0; t < THREADS; t++) {
            for (int r = 0; r < requests; r++) {
                expected[t][r] = Expected.of(reference.plan(sizes(reference, t, r)));
            }
        }
        planOnEightThreads(shared, strategy, expected, (thread, r) -> sizes(shared, thread, r));
    }

    /**
     * The offsets planner's search phases (fit, canonical decoder) run on a U-Net, whose sweep misses
     * the bound, and their scratch grows in the pool while the threads plan: each thread's requests
     * scale the U-Net's sizes differently, and every plan must still be the single-threaded one.
     */
    @Test
    @Timeout(120)
    void eightThreadsShareAUNetWhosePlansSearchPastTheSweep() throws Exception {
        GeneratedGraph unet = GraphKind.UNET.ofOwners(1_000);
        Schedule shared = unet.compile(PlanOptions.defaults().withEngine(EngineMode.fromSystemProperty()));
        Schedule reference = unet.compile(PlanOptions.defaults().withEngine(EngineMode.JAVA));
        Schedule sweepOnly = unet.compile(PlanOptions.defaults().withEngine(EngineMode.JAVA).withEffort(0));
        long[] base = unet.ownerSizes(shared);
        ActivationPlan swept = sweepOnly.plan(base);
        assertTrue(swept.peakBytes() > swept.lowerBoundBytes(), "the sweep alone reaches the bound: no search to test");
        int requests = 50 * PlanAssertions.scale();
        Expected[][] expected = new Expected[THREADS][requests];
        for (int t = 0; t < THREADS; t++) {
            for (int r = 0; r < requests; r++) {
                expected[t][r] = Expected.of(reference.plan(scaled(base, t, r)));
            }
        }
        assertEquals(expected[0][0].lowerBound(), expected[0][0].peak(), "the search reaches the bound");
        planOnEightThreads(shared, Strategy.OFFSETS, expected, (thread, r) -> scaled(base, thread, r));
    }

    /** The U-Net's sizes times a factor per request, and one owner in seven emptied on odd threads. */
    private static long[] scaled(long[] base, int thread, int request) {
        long factor = 1 + (thread + request) % 4;
        long[] sizes = new long[base.length];
        for (int o = 0; o < base.length; o++) {
            sizes[o] = thread % 2 == 1 && o % 7 == request % 7 ? 0 : base[o] * factor;
        }
        return sizes;
    }

    private static void planOnEightThreads(Schedule shared, Strategy strategy, Expected[][] expected,
                                           BiFunction<Integer, Integer, long[]> sizes) throws Exception {
        int requests = expected[0].length;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < requests; r++) {
                        ActivationPlan p = shared.plan(sizes.apply(thread, r));
                        Expected e = expected[thread][r];
                        String where = "thread " + thread + " request " + r;
                        assertEquals(strategy, p.strategy(), where);
                        assertArrayEquals(e.offsets(), PlanAssertions.longs(p.offsetsByOwner()), where + ": offsets");
                        if (strategy == Strategy.SLOTS) {
                            assertArrayEquals(e.slotByValue(),
                                    PlanAssertions.ints(p.slotsByValue()), where + ": slots");
                        }
                        assertArrayEquals(e.capacities(),
                                PlanAssertions.longs(p.slotCapacities()), where + ": capacities");
                        assertEquals(e.peak(), p.peakBytes(), where + ": peak");
                        assertEquals(e.naive(), p.naiveBytes(), where + ": naive");
                        assertEquals(e.lowerBound(), p.lowerBoundBytes(), where + ": lower bound");
                        PlanValidator.validate(p);
                    }
                    return requests;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get(); // rethrows a thread's assertion failure
            }
            assertEquals(THREADS * requests, total);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
