// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import ai.onnxruntime.OrtException;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Embeds texts on the model's threads, first come first served across callers: each text is
 * tokenized, its partitions run (each leased on its own), pooled, averaged and normalized.
 */
final class SegmentEmbedder implements AutoCloseable {
    /** A text's unit vector and its token count, special tokens included. */
    record Embedded(float[] vector, int tokenCount) {
    }

    private final BertTokens tokens;
    private final EncoderRuns runs;
    private final PoolingMode poolingMode;
    private final ExecutorService workers;

    SegmentEmbedder(BertTokens tokens, EncoderRuns runs, PoolingMode poolingMode, int threads) {
        this.tokens = tokens;
        this.runs = runs;
        this.poolingMode = poolingMode;
        this.workers = Executors.newFixedThreadPool(threads, daemonThreads());
    }

    /** The texts' embeddings in order; one text is embedded on the caller's thread. */
    List<Embedded> embedAll(List<String> texts) {
        if (texts.size() == 1) {
            return List.of(embedOrThrow(texts.get(0), 0));
        }
        List<Future<Embedded>> pending = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            int index = i;
            pending.add(workers.submit(() -> embedOrThrow(text, index)));
        }
        List<Embedded> embedded = new ArrayList<>(texts.size());
        try {
            for (Future<Embedded> future : pending) {
                embedded.add(future.get());
            }
        } catch (InterruptedException e) {
            pending.forEach(f -> f.cancel(true));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while embedding; nothing is held", e);
        } catch (ExecutionException e) {
            pending.forEach(f -> f.cancel(true));
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
        return embedded;
    }

    private Embedded embedOrThrow(String text, int index) {
        try {
            return embed(text, index);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed on segment " + index + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while embedding segment " + index, e);
        }
    }

    private Embedded embed(String text, int index) throws OrtException, InterruptedException {
        BertTokens.Tokenized tokenized = tokens.tokenize(text);
        List<BertTokens.Partition> partitions = tokenized.partitions();
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("segment " + index + " has no tokens; give a text with words");
        }
        List<float[]> pooled = new ArrayList<>(partitions.size());
        int[] weights = new int[partitions.size()];
        for (int i = 0; i < partitions.size(); i++) {
            BertTokens.Partition partition = partitions.get(i);
            float[][][] vectors = runs.run(List.of(partition));
            pooled.add(Pooling.pool(vectors[0], partition.length(), poolingMode));
            weights[i] = partition.weight();
        }
        return new Embedded(Pooling.normalize(Pooling.weightedAverage(pooled, weights)), tokenized.tokenCount());
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "memplan-embed-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Lets queued texts finish, then ends the threads. */
    @Override
    public void close() {
        workers.shutdown();
    }
}
