// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.OnnxEmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.memplan.server.BudgetExceededException;
import dev.memplan.server.MemoryBudget;
import dev.memplan.validate.PlanValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemplanEmbeddingModelTest {
    private static final long MIB = 1L << 20;
    private static final double MIN_COSINE = 0.99999;

    /** LangChain4j's own model and memplan's give the same vectors on 1,000 real segments. */
    @Tag("engine-independent") // the vectors do not depend on memplan's engine, only the leases do
    @ParameterizedTest
    @EnumSource(EncoderModel.class)
    void embeddingsAreLangChain4jsOwnOnRealSegments(EncoderModel encoder) throws Exception {
        List<TextSegment> segments = RealTexts.segments(1000);
        Response<List<Embedding>> theirs = new OnnxEmbeddingModel(encoder.model(), encoder.tokenizer(),
                encoder.pooling()).embedAll(segments);
        try (MemplanEmbeddingModel ours = encoder.builder().budgetBytes(64 * MIB).build()) {
            Response<List<Embedding>> mine = ours.embedAll(segments);
            assertSame(theirs, mine);
            assertTrue(ours.budget().stats().peakInUseBytes() <= 64 * MIB);
        }
    }

    /** Texts longer than one partition are cut, embedded and averaged as LangChain4j does. */
    @Tag("engine-independent")
    @Test
    void longTextsAreAveragedOverPartitionsAsLangChain4jDoes() throws Exception {
        EncoderModel encoder = EncoderModel.BGE_INT8;
        List<TextSegment> texts = RealTexts.longTexts(4).stream().map(TextSegment::from).toList();
        assertEquals(4, texts.size());
        Response<List<Embedding>> theirs = new OnnxEmbeddingModel(encoder.model(), encoder.tokenizer(),
                encoder.pooling()).embedAll(texts);
        try (MemplanEmbeddingModel ours = encoder.builder().budgetBytes(64 * MIB).build()) {
            assertSame(theirs, ours.embedAll(texts));
        }
    }

    /**
     * Four callers at once through a budget that holds one long run at a time, while a thread reads
     * the allocator's figures: every lease within the budget, what ORT held from the system over its
     * resting state within it too, every caller the same vectors, and each run's plan valid.
     */
    @Test
    void callersAtOnceStayInsideTheBudget() throws Exception {
        long budgetBytes = 48 * MIB;
        List<TextSegment> segments = RealTexts.segments(60);
        try (MemplanEmbeddingModel model = EncoderModel.BGE_INT8.builder().budgetBytes(budgetBytes).threads(3).build()) {
            model.embed("kernels loaded, the allocator at rest: the baseline");
            long baseline = model.allocatorStats().totalAllocatedBytes();
            AtomicLong maxOverBaseline = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            Thread sampler = new Thread(() -> {
                while (!done.get()) {
                    maxOverBaseline.accumulateAndGet(model.allocatorStats().totalAllocatedBytes() - baseline, Math::max);
                    LockSupport.parkNanos(200_000);
                }
            }, "allocator-sampler");
            sampler.start();
            ExecutorService callers = Executors.newFixedThreadPool(4);
            List<List<Embedding>> answers = new ArrayList<>();
            try {
                List<Future<Response<List<Embedding>>>> calls = new ArrayList<>();
                for (int c = 0; c < 4; c++) {
                    calls.add(callers.submit(() -> model.embedAll(segments)));
                }
                for (Future<Response<List<Embedding>>> call : calls) {
                    answers.add(call.get().content());
                }
            } finally {
                done.set(true);
                sampler.join();
                callers.shutdownNow();
            }
            for (List<Embedding> answer : answers) {
                assertEquals(segments.size(), answer.size());
                for (int i = 0; i < answer.size(); i++) {
                    assertTrue(cosine(answers.get(0).get(i), answer.get(i)) >= MIN_COSINE, "segment " + i);
                }
            }
            MemoryBudget.Stats leases = model.budget().stats();
            assertTrue(leases.peakInUseBytes() <= budgetBytes && leases.peakInUseBytes() > 0, leases.toString());
            assertEquals(0, leases.inUseBytes(), leases.toString());
            assertTrue(maxOverBaseline.get() > 0, "the sampler saw ORT allocate");
            assertTrue(maxOverBaseline.get() <= budgetBytes, "ORT held " + maxOverBaseline.get()
                    + " bytes over its resting state, past the budget's " + budgetBytes);
            try (BertTokens tokens = BertTokens.open(EncoderModel.BGE_INT8.tokenizer())) {
                Set<Integer> lengths = new TreeSet<>();
                segments.forEach(s -> tokens.tokenize(s.text()).partitions().forEach(p -> lengths.add(p.length())));
                for (int length : lengths) {
                    PlanValidator.validate(model.ortModel().plan(Map.of("batch_size", 1L, "sequence_length", (long) length))
                            .plan().plan());
                }
            }
        }
    }

    @Test
    void aRunLargerThanTheBudgetIsRefusedNamingBothFigures() {
        try (MemplanEmbeddingModel model = EncoderModel.BGE_INT8.builder().budgetBytes(MIB).build()) {
            String longText = RealTexts.longTexts(1).get(0);
            BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> model.embed(longText));
            assertTrue(e.getMessage().contains("at most 1048576"), e.getMessage());
        }
    }

    @Test
    void missingSettingsAndFilesAreNamed() {
        IllegalStateException noModel = assertThrows(IllegalStateException.class,
                () -> MemplanEmbeddingModel.builder().budgetBytes(MIB).build());
        assertTrue(noModel.getMessage().startsWith("modelPath is not set"), noModel.getMessage());
        IllegalStateException noBudget = assertThrows(IllegalStateException.class,
                () -> EncoderModel.BGE_INT8.builder().build());
        assertTrue(noBudget.getMessage().startsWith("no budget is set"), noBudget.getMessage());
        IllegalArgumentException noFile = assertThrows(IllegalArgumentException.class,
                () -> EncoderModel.BGE_INT8.builder().modelPath(java.nio.file.Path.of("absent.onnx")).budgetBytes(MIB).build());
        assertTrue(noFile.getMessage().contains("absent.onnx"), noFile.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MemplanEmbeddingModel.builder().budgetBytes(0));
    }

    private static void assertSame(Response<List<Embedding>> theirs, Response<List<Embedding>> mine) {
        assertEquals(theirs.content().size(), mine.content().size());
        for (int i = 0; i < theirs.content().size(); i++) {
            double cosine = cosine(theirs.content().get(i), mine.content().get(i));
            assertTrue(cosine >= MIN_COSINE, "segment " + i + ": cosine " + cosine);
        }
        assertEquals(theirs.tokenUsage().inputTokenCount(), mine.tokenUsage().inputTokenCount());
    }

    private static double cosine(Embedding a, Embedding b) {
        float[] x = a.vector();
        float[] y = b.vector();
        assertEquals(x.length, y.length);
        double dot = 0;
        double xx = 0;
        double yy = 0;
        for (int i = 0; i < x.length; i++) {
            dot += (double) x[i] * y[i];
            xx += (double) x[i] * x[i];
            yy += (double) y[i] * y[i];
        }
        return dot / Math.sqrt(xx * yy);
    }
}
