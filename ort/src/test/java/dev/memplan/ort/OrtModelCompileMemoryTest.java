// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.DirectMemory;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code OrtModel.compile} leaves no native memory behind on the thread that called it, with no
 * garbage collection needed. Two ways it did: NIO's file channels keep a direct buffer as large as
 * their largest read cached on the thread (a compile that read ONNX Runtime's saved graph through
 * them left the model's size resident after every GC), so the compile runs on a fresh thread, whose
 * cache starts empty, and the direct bytes are read on that thread before it ends (its end would
 * free the cache); and the two off-heap copies of the model the compile reads were freed only by a
 * collection, which a server that allocates little may not see for hours, so it gives them back
 * when it returns.
 */
@EngineIndependent
class OrtModelCompileMemoryTest {
    @Test
    void aCompileLeavesNoDirectBuffersOnItsThread() throws Exception {
        SharedModels.requirePresent();
        Path model = SharedModels.require(SharedModels.MINILM);
        long fileBytes = Files.size(model);
        AtomicLong grown = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread server = new Thread(() -> {
            try {
                long before = DirectMemory.bytes();
                OrtModel compiled = OrtModel.compile(model);
                grown.set(DirectMemory.bytes() - before); // no collection: a server's may be hours away
                OrtModel.Plan plan = compiled.planForInputs(Map.of("input_ids", new long[] {1, 8},
                        "attention_mask", new long[] {1, 8}, "token_type_ids", new long[] {1, 8}));
                PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
                assertTrue(plan.predictedBytes().isPresent(), "the compiled model predicts");
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "compiling-server-thread");
        server.start();
        server.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        System.out.printf("info: OrtModel.compile of a %,d B model left %,d B of direct buffers, no GC%n", fileBytes,
                grown.get());
        assertTrue(grown.get() < fileBytes / 8, "the compile of a " + fileBytes + " B model left " + grown.get()
                + " B of direct buffers on its thread");
    }

}
