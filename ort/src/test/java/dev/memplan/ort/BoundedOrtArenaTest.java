// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;
import dev.memplan.server.BudgetExceededException;
import dev.memplan.server.MemoryBudget;
import dev.memplan.server.Models;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * ONNX Runtime under {@link BoundedOrtArena} (memplan's counting allocator in place of ORT's arena)
 * with requests in flight at once: K threads send MiniLM requests of mixed shapes through {@link
 * BudgetedOrtSession}, each leasing ORT's predicted arena bytes on a budget too small for all of
 * them, while another thread reads the session's allocator statistics through ORT's C API. What
 * ORT holds from the system ({@code TotalAllocated}) over its baseline must never pass the
 * budget's capacity.
 */
class BoundedOrtArenaTest {
    private static OrtEnvironment env;
    private static OrtSession session;
    private static OrtModel model;

    @BeforeAll
    static void open() throws Exception {
        SharedModels.requirePresent();
        BoundedOrtArena arena = BoundedOrtArena.install();
        env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = arena.configure(new OrtSession.SessionOptions())) {
            options.setIntraOpNumThreads(1);
            session = env.createSession(SharedModels.require(SharedModels.MINILM).toString(), options);
        }
        model = OrtModel.compile(SharedModels.require(SharedModels.MINILM));
    }

    @AfterAll
    static void close() throws Exception {
        if (session != null) {
            session.close();
        }
    }

    @ParameterizedTest(name = "{0} requests in flight, seed {1}, freed blocks kept: {2}")
    @CsvSource({"2, 11, false", "4, 12, false", "8, 13, false", "2, 14, true", "4, 15, true", "8, 16, true"})
    void ortsReservationNeverPassesTheBudget(int inFlight, long seed, boolean keepFreed) throws Exception {
        Random random = new Random(seed);
        int perThread = 4;
        List<long[]> shapes = new ArrayList<>();
        long largest = 0;
        for (int i = 0; i < inFlight * perThread; i++) {
            long[] shape = {1 + random.nextInt(4), 8 + random.nextInt(121)};
            shapes.add(shape);
            OrtModel.Plan plan = model.planForInputs(Models.miniLmInputs(shape[0], shape[1]));
            PlanValidator.validate(plan.plan().plan());
            largest = Math.max(largest, plan.boundedArenaBytes().getAsLong());
        }
        // room for about two of the largest at once: the leases, not the thread count, bound the arena
        MemoryBudget budget = MemoryBudget.of("arena-test", largest * 2 + largest / 2, 0);
        BoundedOrtArena.install().keepFreedBlocksUpTo(keepFreed ? budget.capacityBytes() : 0);
        BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, budget);
        run(budgeted, 1, 8); // kernels loaded and the arena at its resting state: the baseline
        long baseline = BoundedOrtArena.Stats.of(session).totalAllocatedBytes();
        OrtCApi.restartCountingPeak();

        AtomicLong maxReserved = new AtomicLong();
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                maxReserved.accumulateAndGet(BoundedOrtArena.Stats.of(session).totalAllocatedBytes() - baseline, Math::max);
                LockSupport.parkNanos(200_000); // about every 0.2 ms: runs take milliseconds to seconds
            }
        }, "arena-sampler");
        sampler.start();
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        List<Future<Boolean>> answers = new ArrayList<>();
        try {
            for (long[] shape : shapes) {
                answers.add(pool.submit(() -> {
                    boolean ok = run(budgeted, (int) shape[0], (int) shape[1]);
                    maxReserved.accumulateAndGet(BoundedOrtArena.Stats.of(session).totalAllocatedBytes() - baseline,
                            Math::max);
                    return ok;
                }));
            }
            for (Future<Boolean> answer : answers) {
                assertTrue(answer.get(5, TimeUnit.MINUTES), "every request ran");
            }
        } finally {
            pool.shutdownNow();
            sampling.set(false);
            sampler.join();
            BoundedOrtArena.install().keepFreedBlocksUpTo(0);
        }
        long heldPeak = OrtCApi.countingMaxHeld() - baseline; // every block counted, not sampled
        MemoryBudget.Stats stats = budget.stats();
        System.out.printf("info: %d in flight, kept %s: ORT held at most %,d bytes over its baseline (sampled %,d);"
                        + " budget %,d, leases at most %,d, waited %d%n", inFlight, keepFreed, heldPeak, maxReserved.get(),
                budget.capacityBytes(), stats.peakInUseBytes(), stats.waited());
        assertTrue(heldPeak <= budget.capacityBytes(), "ORT held " + heldPeak
                + " bytes over its baseline, past the budget's " + budget.capacityBytes());
        assertTrue(maxReserved.get() > 0, "the sampler saw the arena grow");
        assertTrue(maxReserved.get() <= budget.capacityBytes(), "ORT reserved " + maxReserved.get()
                + " bytes over its baseline, past the budget's " + budget.capacityBytes());
        assertEquals(0, stats.inUseBytes(), "every lease released");
        assertTrue(stats.peakInUseBytes() > largest || inFlight == 2 || stats.waited() > 0,
                "the requests overlapped: the leases were what bound them");
    }

    /**
     * The prediction's {@code boundedArenaBytes} against what the counting allocator held from the
     * system for one run, its outputs held until the result closes. Without memory patterns every
     * run allocates tensor by tensor, whatever ran before: the shapes are drawn at random.
     */
    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"21", "22", "23"})
    void theBoundedArenaPredictionIsWhatTheCountingAllocatorHolds(long seed) throws Exception {
        BoundedOrtArena.install().keepFreedBlocksUpTo(0); // held is then the blocks in use alone
        Random random = new Random(seed);
        for (int i = 0; i < 6; i++) {
            int batch = 1 + random.nextInt(6);
            int tokens = 8 + random.nextInt(377);
            OrtModel.Plan plan = model.planForInputs(Models.miniLmInputs(batch, tokens));
            PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
            long predicted = plan.boundedArenaBytes().orElseThrow();
            Map<String, OnnxTensor> inputs = inputs(batch, tokens);
            long held;
            try {
                long before = OrtCApi.countingStats()[2];
                OrtCApi.restartCountingPeak();
                try (OrtSession.Result result = session.run(inputs)) {
                    assertEquals(1, result.size());
                }
                held = OrtCApi.countingMaxHeld() - before;
            } finally {
                inputs.values().forEach(OnnxTensor::close);
            }
            String request = batch + " x " + tokens + ": predicted " + predicted + " B, held " + held + " B";
            assertTrue(held <= predicted, request + ": ORT held more than predicted");
            assertTrue(predicted <= held * 1.01, request + ": more than 1% above what ORT held");
            assertTrue(predicted < plan.predictedBytes().orElseThrow(), request + ": not below the arena's figure "
                    + plan.predictedBytes().orElseThrow());
        }
    }

    @Test
    void ortReportsTheCountingAllocatorsOwnFigures() throws Exception {
        BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, MemoryBudget.of(1L << 30));
        long before = OrtCApi.countingStats()[3];
        assertTrue(run(budgeted, 2, 24));
        BoundedOrtArena.Stats viaOrt = BoundedOrtArena.Stats.of(session);
        long[] counted = OrtCApi.countingStats();
        assertEquals(new BoundedOrtArena.Stats(counted[0], counted[1], counted[2], counted[3], counted[4]), viaOrt,
                "the session's allocator is the counting allocator");
        assertTrue(viaOrt.allocations() > before, "the run's blocks came from the counting allocator");
        long headers = viaOrt.totalAllocatedBytes() - viaOrt.inUseBytes();
        assertTrue(headers >= 0 && headers % 64 == 0, "held from the system: in use plus a 64-byte header per block");
    }

    @Test
    void leaseBytesAreThePredictionForTheTensorsShapes() throws Exception {
        Map<String, OnnxTensor> inputs = inputs(3, 40);
        try {
            OrtModel.Plan plan = model.planForInputs(Models.miniLmInputs(3, 40));
            PlanValidator.validate(plan.plan().plan());
            BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, MemoryBudget.of(1L << 30));
            assertEquals(plan.boundedArenaBytes().getAsLong(), budgeted.leaseBytes(inputs));
            assertEquals(plan.boundedArenaBytes().getAsLong(), budgeted.leaseBytes(inputs), "cached: the same lease");
            Map<String, OnnxTensor> other = inputs(40, 3); // the same dims, swapped: its own lease
            try {
                assertEquals(model.planForInputs(Models.miniLmInputs(40, 3)).boundedArenaBytes().getAsLong(),
                        budgeted.leaseBytes(other));
            } finally {
                other.values().forEach(OnnxTensor::close);
            }
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    @Test
    void aSessionWithOrtsOwnArenaIsRefusedSayingWhatToCall() throws Exception {
        try (OrtSession.SessionOptions plain = new OrtSession.SessionOptions();
             OrtSession own = OrtEnvironment.getEnvironment().createSession(
                     SharedModels.require(SharedModels.MINILM).toString(), plain)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BudgetedOrtSession.of(own, model, MemoryBudget.of(1L << 30)));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().contains("BoundedOrtArena.install().configure("), e.getMessage());
        }
        assertTrue(OrtCApi.usesCountingAllocator(session), "the configured session passes");
    }

    @Test
    void aRequestLargerThanTheBudgetIsRefusedBeforeItRuns() throws Exception {
        Map<String, OnnxTensor> inputs = inputs(4, 128);
        try {
            BudgetedOrtSession tiny = BudgetedOrtSession.of(session, model, MemoryBudget.of(1024));
            assertThrows(BudgetExceededException.class,
                    () -> tiny.run(inputs, Duration.ofSeconds(1), r -> r.get(0).getValue()));
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    private static boolean run(BudgetedOrtSession budgeted, int batch, int seq) throws Exception {
        Map<String, OnnxTensor> inputs = inputs(batch, seq);
        try {
            Optional<float[][][]> out = budgeted.run(inputs, Duration.ofMinutes(2),
                    r -> (float[][][]) r.get(0).getValue());
            return out.isPresent() && out.get().length == batch && out.get()[0].length == seq;
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    private static Map<String, OnnxTensor> inputs(int batch, int seq) throws Exception {
        long[] shape = {batch, seq};
        LongBuffer ids = LongBuffer.allocate(batch * seq);
        LongBuffer mask = LongBuffer.allocate(batch * seq);
        for (int i = 0; i < batch * seq; i++) {
            ids.put(1000 + i % 2000);
            mask.put(1);
        }
        return Map.of("input_ids", OnnxTensor.createTensor(env, ids.flip(), shape),
                "attention_mask", OnnxTensor.createTensor(env, mask.flip(), shape),
                "token_type_ids", OnnxTensor.createTensor(env, LongBuffer.allocate(batch * seq), shape));
    }
}
