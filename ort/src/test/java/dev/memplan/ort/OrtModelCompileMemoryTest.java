// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code OrtModel.compile} leaves no native memory behind on the thread that called it. NIO's file
 * channels keep a direct buffer as large as their largest read cached on the thread; a compile that
 * read ONNX Runtime's saved graph through them left the model's size resident in the server,
 * counted nowhere, after every GC. The compile runs on a fresh thread, whose cache starts empty, and
 * the direct bytes are read on that thread before it ends (its end would free the cache), once a GC
 * has freed the buffers the compile dropped.
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
                long before = directBytes();
                OrtModel compiled = OrtModel.compile(model);
                grown.set(directBytesAfterGc(before + fileBytes / 8) - before);
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
        System.out.printf("info: OrtModel.compile of a %,d B model left %,d B of direct buffers%n", fileBytes,
                grown.get());
        assertTrue(grown.get() < fileBytes / 8, "the compile of a " + fileBytes + " B model left " + grown.get()
                + " B of direct buffers on its thread");
    }

    /**
     * The direct bytes once garbage collections have freed the dropped buffers, or after a few
     * seconds of trying: a buffer is freed after a GC finds it unreachable, not when it is dropped.
     */
    private static long directBytesAfterGc(long hoped) throws InterruptedException {
        long bytes = directBytes();
        for (int i = 0; i < 50 && bytes > hoped; i++) {
            System.gc();
            Thread.sleep(100);
            bytes = directBytes();
        }
        return bytes;
    }

    /** The bytes of the JVM's direct buffers now, the threads' cached ones among them. */
    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("this JVM reports no direct buffer pool");
    }
}
