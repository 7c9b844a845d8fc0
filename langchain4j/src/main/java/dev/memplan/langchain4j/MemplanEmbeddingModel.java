// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.DimensionAwareEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.model.output.TokenUsage;
import dev.memplan.ort.BoundedOrtArena;
import dev.memplan.ort.BudgetedOrtSession;
import dev.memplan.ort.OrtModel;
import dev.memplan.server.MemoryBudget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * LangChain4j's in-process BERT embedding model with every ONNX Runtime run inside a
 * {@link MemoryBudget}: {@link #embedAll} of any list, from any number of threads, never lets what
 * ORT holds for requests pass the budget, and gives LangChain4j's own embeddings for the same model
 * and tokenizer (its tokenizer, its partitions of long texts, its pooling).
 *
 * <pre>{@code
 * try (MemplanEmbeddingModel model = MemplanEmbeddingModel.builder()
 *         .modelPath(Path.of("bge-small-en-v1.5-q.onnx"))
 *         .tokenizerPath(Path.of("bge-small-en-v1.5-q-tokenizer.json"))
 *         .poolingMode(PoolingMode.CLS)
 *         .budgetBytes(64L << 20)
 *         .build()) {
 *     List<Embedding> embeddings = model.embedAll(segments).content();
 * }
 * }</pre>
 *
 * <p>Building compiles the model for ORT (a child JVM loads it once, a few seconds) and opens its
 * session with {@link BoundedOrtArena}'s settings. Close the model to close its session and threads.
 */
public final class MemplanEmbeddingModel extends DimensionAwareEmbeddingModel implements AutoCloseable {
    private final String modelName;
    private final BertTokens tokens;
    private final PoolingMode poolingMode;
    private final OrtSession session;
    private final MemoryBudget budget;
    private final OrtModel ortModel;
    private final SegmentEmbedder embedder;

    private MemplanEmbeddingModel(Builder builder, BertTokens tokens, OrtSession session, OrtModel ortModel,
                                  BudgetedOrtSession budgeted) throws OrtException {
        this.modelName = builder.modelPath.getFileName().toString();
        this.tokens = tokens;
        this.poolingMode = builder.poolingMode;
        this.session = session;
        this.budget = budgeted.budget();
        this.ortModel = ortModel;
        EncoderRuns runs = new EncoderRuns(OrtEnvironment.getEnvironment(), budgeted, session.getInputNames(),
                builder.leaseTimeout);
        this.embedder = new SegmentEmbedder(tokens, runs, poolingMode, builder.threads);
        this.dimension = hiddenSize(session);
    }

    /** {@return a builder; the model, tokenizer, pooling mode and budget must be given} */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
        Objects.requireNonNull(segments, "segments");
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("segments is empty; give at least one text segment");
        }
        List<String> texts = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            TextSegment segment = segments.get(i);
            if (segment == null) {
                throw new IllegalArgumentException("segment " + i + " is null; give a text segment");
            }
            texts.add(segment.text());
        }
        List<SegmentEmbedder.Embedded> embedded = embedder.embedAll(texts);
        List<Embedding> embeddings = new ArrayList<>(embedded.size());
        int tokenCount = 0;
        for (SegmentEmbedder.Embedded e : embedded) {
            embeddings.add(Embedding.from(e.vector()));
            tokenCount += e.tokenCount() - 2; // as LangChain4j: [CLS] and [SEP] not counted
        }
        return Response.from(embeddings, new TokenUsage(tokenCount));
    }

    @Override
    public String modelName() {
        return modelName;
    }

    /** {@return the budget the model's runs are leased from (shared when the builder was given one)} */
    public MemoryBudget budget() {
        return budget;
    }

    /**
     * What ORT's allocator holds for this model's session: at most the budget while every run is leased.
     *
     * @return the counting allocator's figures now
     */
    public BoundedOrtArena.Stats allocatorStats() {
        return BoundedOrtArena.Stats.of(session);
    }

    /** The model as compiled for ORT, whose predictions the runs lease. */
    OrtModel ortModel() {
        return ortModel;
    }

    /** {@return how partitions are pooled into one vector} */
    public PoolingMode poolingMode() {
        return poolingMode;
    }

    /** Closes the session, the tokenizer and the model's threads; runs in flight finish first. */
    @Override
    public void close() {
        embedder.close();
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed closing the session of " + modelName + ": "
                    + e.getMessage(), e);
        } finally {
            tokens.close();
        }
    }

    /** The last dimension of the first output ([batch, tokens, hidden]); null when the model leaves it open. */
    private static Integer hiddenSize(OrtSession session) throws OrtException {
        NodeInfo first = session.getOutputInfo().values().iterator().next();
        if (first.getInfo() instanceof TensorInfo tensor) {
            long[] shape = tensor.getShape();
            if (shape.length == 3 && shape[2] > 0) {
                return (int) shape[2];
            }
        }
        return null;
    }

    /** Builds a {@link MemplanEmbeddingModel}. */
    public static final class Builder {
        private Path modelPath;
        private Path tokenizerPath;
        private PoolingMode poolingMode;
        private MemoryBudget budget;
        private long budgetBytes = -1;
        private int threads = Runtime.getRuntime().availableProcessors();
        private int intraOpThreads = 1;
        private Duration leaseTimeout = Duration.ofMinutes(1);

        private Builder() {
        }

        /**
         * @param modelPath the encoder's {@code .onnx} file (inputs {@code input_ids},
         *                  {@code attention_mask}, optionally {@code token_type_ids})
         * @return this builder
         */
        public Builder modelPath(Path modelPath) {
            this.modelPath = Objects.requireNonNull(modelPath, "modelPath");
            return this;
        }

        /**
         * @param tokenizerPath the model's HuggingFace {@code tokenizer.json}
         * @return this builder
         */
        public Builder tokenizerPath(Path tokenizerPath) {
            this.tokenizerPath = Objects.requireNonNull(tokenizerPath, "tokenizerPath");
            return this;
        }

        /**
         * @param poolingMode how token vectors become one: as the model was trained ({@code CLS} for
         *                    BGE, {@code MEAN} for MiniLM)
         * @return this builder
         */
        public Builder poolingMode(PoolingMode poolingMode) {
            this.poolingMode = Objects.requireNonNull(poolingMode, "poolingMode");
            return this;
        }

        /**
         * A budget of the model's own.
         *
         * @param budgetBytes the bytes ORT may hold for this model's runs at once
         * @return this builder
         */
        public Builder budgetBytes(long budgetBytes) {
            if (budgetBytes <= 0) {
                throw new IllegalArgumentException("budgetBytes is " + budgetBytes + "; give a positive number of bytes");
            }
            this.budgetBytes = budgetBytes;
            this.budget = null;
            return this;
        }

        /**
         * A budget shared with other models of the process (all configured with {@link BoundedOrtArena}).
         *
         * @param budget the shared budget
         * @return this builder
         */
        public Builder budget(MemoryBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget");
            this.budgetBytes = -1;
            return this;
        }

        /**
         * @param threads how many runs the model starts at once, at most (default: the processors);
         *                the budget may admit fewer
         * @return this builder
         */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads is " + threads + "; give 1 or more");
            }
            this.threads = threads;
            return this;
        }

        /**
         * @param intraOpThreads ORT's threads inside one run (default 1: the runs in parallel use the cores)
         * @return this builder
         */
        public Builder intraOpThreads(int intraOpThreads) {
            if (intraOpThreads < 1) {
                throw new IllegalArgumentException("intraOpThreads is " + intraOpThreads + "; give 1 or more");
            }
            this.intraOpThreads = intraOpThreads;
            return this;
        }

        /**
         * @param leaseTimeout how long a run may wait for room before {@link NoRoomException} (default 1 minute)
         * @return this builder
         */
        public Builder leaseTimeout(Duration leaseTimeout) {
            Objects.requireNonNull(leaseTimeout, "leaseTimeout");
            if (leaseTimeout.isNegative() || leaseTimeout.isZero()) {
                throw new IllegalArgumentException("leaseTimeout is " + leaseTimeout + "; give a positive duration");
            }
            this.leaseTimeout = leaseTimeout;
            return this;
        }

        /**
         * Compiles the model for ORT, opens its session inside the budget and the tokenizer.
         *
         * @return the model
         * @throws IllegalStateException naming the setting when one is missing
         * @throws IllegalArgumentException naming the file when one is missing or unreadable
         * @throws dev.memplan.ort.OrtUnavailableException when ONNX Runtime Java cannot start
         */
        public MemplanEmbeddingModel build() {
            requireSet(modelPath, "modelPath", "modelPath(Path) with the encoder's .onnx file");
            requireSet(tokenizerPath, "tokenizerPath", "tokenizerPath(Path) with the model's tokenizer.json");
            requireSet(poolingMode, "poolingMode", "poolingMode(PoolingMode.CLS or MEAN)");
            if (budget == null && budgetBytes < 0) {
                throw new IllegalStateException("no budget is set; call budgetBytes(long) or budget(MemoryBudget)");
            }
            requireFile(modelPath, "model");
            requireFile(tokenizerPath, "tokenizer");
            MemoryBudget runs = budget != null ? budget : MemoryBudget.of(modelPath.getFileName().toString(), budgetBytes, 0);
            OrtModel compiled = OrtModel.compile(modelPath);
            BertTokens tokens = BertTokens.open(tokenizerPath);
            OrtSession session = null;
            try {
                BoundedOrtArena arena = BoundedOrtArena.install().keepFreedBlocksUpTo(runs.leasableBytes());
                try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                    options.setIntraOpNumThreads(intraOpThreads);
                    session = OrtEnvironment.getEnvironment().createSession(modelPath.toString(), arena.configure(options));
                }
                return new MemplanEmbeddingModel(this, tokens, session, compiled,
                        BudgetedOrtSession.of(session, compiled, runs).withRunsInFlight(threads));
            } catch (OrtException | RuntimeException e) {
                tokens.close();
                closeQuietly(session, e);
                if (e instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException("ONNX Runtime cannot open " + modelPath.getFileName() + ": "
                        + e.getMessage(), e);
            }
        }

        private static void requireSet(Object value, String name, String call) {
            if (value == null) {
                throw new IllegalStateException(name + " is not set; call " + call);
            }
        }

        private static void requireFile(Path file, String what) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("the " + what + " " + file.getFileName()
                        + " does not exist; give the path of an existing file");
            }
        }

        private static void closeQuietly(OrtSession session, Exception cause) {
            if (session != null) {
                try {
                    session.close();
                } catch (OrtException suppressed) {
                    cause.addSuppressed(suppressed);
                }
            }
        }
    }
}
