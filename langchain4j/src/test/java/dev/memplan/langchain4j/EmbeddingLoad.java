// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxEmbeddingModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One measured load for benchmarks/langchain4j-embed.sh (a fresh JVM per load, so resident memory
 * is this load's alone): LangChain4j's own embedding model or memplan's embeds the same real
 * segments from C callers at once; prints segments per second and the peak resident growth over
 * the state after a warm-up and over the state right after the model was built, sampled every 2 ms.
 * Arguments: langchain4j|memplan MODEL(minilm|bge) SEGMENTS CALLERS BUDGET_MIB.
 */
public final class EmbeddingLoad {
    private static final Pattern RESIDENT = Pattern.compile("(?m)^VmRSS:\\s+(\\d+) kB");
    private static final long MIB = 1L << 20;

    private EmbeddingLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: EmbeddingLoad langchain4j|memplan minilm|bge SEGMENTS CALLERS BUDGET_MIB");
            System.exit(2);
        }
        String impl = args[0];
        EncoderModel encoder = args[1].equals("minilm") ? EncoderModel.MINILM_FP32 : EncoderModel.BGE_INT8;
        int count = Integer.parseInt(args[2]);
        int callers = Integer.parseInt(args[3]);
        long budgetBytes = Long.parseLong(args[4]) * MIB;
        List<TextSegment> segments = RealTexts.segments(count);
        long beforeModel = residentBytes();
        EmbeddingModel model = impl.equals("memplan")
                ? encoder.builder().budgetBytes(budgetBytes).build()
                : new OnnxEmbeddingModel(encoder.model(), encoder.tokenizer(), encoder.pooling());
        long built = residentBytes();
        AtomicLong peakSinceBuilt = new AtomicLong(built);
        AtomicLong peakSinceWarm = new AtomicLong(0);
        AtomicBoolean done = new AtomicBoolean();
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                long now = residentBytes();
                peakSinceBuilt.accumulateAndGet(now, Math::max);
                peakSinceWarm.accumulateAndGet(now, Math::max);
                LockSupport.parkNanos(2_000_000);
            }
        }, "resident-sampler");
        sampler.setDaemon(true);
        sampler.start();
        model.embedAll(segments.subList(0, 16)); // kernels loaded, code compiled: the warmed baseline
        long baseline = residentBytes();
        peakSinceWarm.set(baseline);
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        List<Future<?>> calls = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            calls.add(pool.submit(() -> model.embedAll(segments)));
        }
        for (Future<?> call : calls) {
            call.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        done.set(true);
        sampler.join();
        pool.shutdown();
        long growth = peakSinceWarm.get() - baseline;
        long growthSinceBuilt = peakSinceBuilt.get() - built;
        System.out.printf(Locale.ROOT, "RESULT impl=%s model=%s callers=%d segments=%d seconds=%.2f segments_per_s=%.1f"
                        + " model_mib=%.1f baseline_mib=%.1f growth_mib=%.1f growth_per_budget=%.3f"
                        + " growth_since_built_mib=%.1f since_built_per_budget=%.3f%n",
                impl, args[1], callers, count * callers, seconds, count * callers / seconds,
                (built - beforeModel) / (double) MIB, baseline / (double) MIB, growth / (double) MIB,
                growth / (double) budgetBytes, growthSinceBuilt / (double) MIB, growthSinceBuilt / (double) budgetBytes);
        if (model instanceof AutoCloseable closeable) {
            closeable.close();
        }
        System.exit(0);
    }

    private static long residentBytes() {
        try {
            Matcher m = RESIDENT.matcher(Files.readString(Path.of("/proc/self/status")));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
