// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ort.OrtModel;
import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The per-request replay's fast parts against the straightforward models they replaced (kept as
 * test oracles: {@link ReferenceBfcArena}, {@link ReferenceMemoryPattern}, {@link ReferenceReplay}),
 * byte for byte: every chunk address and block offset on seeded random allocation sequences, and
 * every figure of the prediction on generated graphs with symbols at several bindings, the
 * checked-in random ORT graphs and the shared models. No engine is involved: the replay is plain Java.
 */
@EngineIndependent
class OrtReplayEquivalenceTest {
    private static final long MIB = 1L << 20;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 60);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void bfcArenaPlacesEveryChunkWhereTheReferenceDoes(long seed) {
        assertArenaFollowsTheReference(seed, new BfcArena());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aResetArenaPlacesEveryChunkAsANewOneDoes(long seed) {
        // the per-request replay reuses one arena per thread: reset must leave nothing of the request before
        BfcArena arena = new BfcArena();
        Random dirt = new Random(-seed);
        for (int i = 0; i < 200; i++) {
            int id = arena.alloc(requestSize(dirt, palette(dirt)));
            if (i % 3 == 0) {
                arena.free(id);
            }
        }
        arena.reset();
        assertArenaFollowsTheReference(seed, arena);
    }

    private static void assertArenaFollowsTheReference(long seed, BfcArena arena) {
        // allocAndFree must leave the arena as the reference's alloc then free does: later allocations tell
        Random random = new Random(seed);
        ReferenceBfcArena reference = new ReferenceBfcArena();
        List<long[]> live = new ArrayList<>(); // {reference address, chunk id}
        long[] palette = palette(random);
        int steps = 400 + random.nextInt(1600);
        for (int step = 0; step < steps; step++) {
            int action = random.nextInt(100);
            if (action < 10) { // a workspace: taken and given back at once
                long bytes = requestSize(random, palette);
                reference.free(reference.alloc(bytes));
                arena.allocAndFree(bytes);
            } else if (live.isEmpty() || action < 60) {
                long bytes = requestSize(random, palette);
                long expected = reference.alloc(bytes);
                int id = arena.alloc(bytes);
                long actual = id < 0 ? -1 : arena.address(id);
                assertEquals(expected, actual, "seed " + seed + " step " + step + ": alloc of " + bytes + " B");
                live.add(new long[] {expected, id});
            } else {
                long[] chunk = live.remove(random.nextInt(live.size()));
                reference.free(chunk[0]);
                arena.free((int) chunk[1]);
            }
            assertEquals(reference.maxInUse(), arena.maxInUse(), "seed " + seed + " step " + step + ": max in use");
            assertEquals(reference.requestedAtMax(), arena.requestedAtMax(), "seed " + seed + " step " + step);
            assertEquals(reference.reserved(), arena.reserved(), "seed " + seed + " step " + step + ": reserved");
        }
        assertTrue(reference.reserved() > 0, "seed " + seed + " allocated nothing");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void memoryPatternPlacesEveryBlockWhereTheReferenceDoes(long seed) {
        assertPatternFollowsTheReference(seed, null);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aResetPatternPlacesEveryBlockAsANewOneDoes(long seed) {
        // blocks left live by the request before (a run ends with some) must not survive reset
        MemoryPattern pattern = new MemoryPattern(2_000);
        Random dirt = new Random(-seed);
        for (int v = 0; v < 300; v++) {
            pattern.allocate(v, BfcArena.align(1 + dirt.nextInt(1 << 20)));
            if (dirt.nextBoolean()) {
                pattern.free(dirt.nextInt(v + 1));
            }
        }
        pattern.reset();
        for (int v = 0; v < 300; v++) { // a zero-byte buffer is freed without being traced: nothing may happen
            pattern.free(v);
        }
        assertPatternFollowsTheReference(seed, pattern);
    }

    /** A seeded sequence through {@code reused} (or a new pattern when null) and the reference. */
    private static void assertPatternFollowsTheReference(long seed, MemoryPattern reused) {
        Random random = new Random(seed);
        int values = 300 + random.nextInt(1700);
        ReferenceMemoryPattern reference = new ReferenceMemoryPattern(values);
        MemoryPattern pattern = reused != null ? reused : new MemoryPattern(values);
        List<Integer> live = new ArrayList<>();
        long[] palette = palette(random);
        int next = 0;
        int placedInGaps = 0;
        while (next < values || !live.isEmpty()) {
            if (next < values && (live.isEmpty() || random.nextInt(100) < 50 + (int) (seed % 3) * 5)) {
                long bytes = BfcArena.align(Math.max(1, requestSize(random, palette)));
                long sizeBefore = reference.size();
                reference.allocate(next, bytes);
                pattern.allocate(next, bytes);
                assertEquals(reference.offset(next), pattern.offset(next),
                        "seed " + seed + ": value " + next + " of " + bytes + " B");
                if (reference.size() == sizeBefore) {
                    placedInGaps++;
                }
                live.add(next++);
            } else {
                int value = live.remove(random.nextInt(live.size()));
                reference.free(value);
                pattern.free(value);
            }
            assertEquals(reference.size(), pattern.size(), "seed " + seed + ": pattern size");
        }
        pattern.free(0); // freeing a released value again changes nothing, as in the reference
        assertTrue(placedInGaps > 0, "seed " + seed + " never reused a gap: the sequence tests nothing");
    }

    static Stream<Arguments> generatedGraphs() {
        List<Arguments> cases = new ArrayList<>();
        for (GraphKind kind : new GraphKind[] {GraphKind.TRANSFORMER, GraphKind.RESNET, GraphKind.UNET,
                GraphKind.RANDOM_DAG}) {
            for (int owners : new int[] {300, 2_000}) {
                GeneratedGraph g = kind.ofOwners(owners, 17);
                for (long scale : new long[] {1, 3, 8}) {
                    Map<String, Long> bindings = new HashMap<>();
                    g.bindings().forEach((name, v) -> bindings.put(name, Math.max(1, v * scale / 4)));
                    cases.add(Arguments.of(kind + " " + owners + " " + bindings, g.graph(), Map.copyOf(bindings)));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("generatedGraphs")
    void predictionEqualsTheReferenceReplayOnGeneratedGraphs(String name, Graph graph, Map<String, Long> bindings) {
        assertTrue(!graph.symbols().isEmpty(), name + " has no symbols: it would not test a per-request replay");
        assertSamePrediction(name, graph, NodeAttributes.none(), bindings);
    }

    @Test
    void anUnboundSymbolIsReportedAsTheReferenceReportsIt() {
        GeneratedGraph g = GraphKind.TRANSFORMER.ofOwners(300);
        OrtArenaPredictor predictor = OrtArenaPredictor.of(g.graph(), NodeAttributes.none());
        Map<String, Long> partial = Map.of("batch", 2L);

        InvalidSizeException expected = assertThrows(InvalidSizeException.class,
                () -> ReferenceReplay.replay(g.graph(), NodeAttributes.none(), partial));
        InvalidSizeException actual = assertThrows(InvalidSizeException.class, () -> predictor.predict(partial));

        assertEquals(expected.getMessage(), actual.getMessage());
    }

    @Test
    void requestsOfDifferentSizesOnOnePredictorAnswerAsFreshReplays() {
        // the predictor keeps its arrays per thread between requests: each answer must be a fresh replay's
        GeneratedGraph g = GraphKind.TRANSFORMER.ofOwners(300, 17);
        OrtArenaPredictor predictor = OrtArenaPredictor.of(g.graph(), NodeAttributes.none());
        for (long scale : new long[] {8, 1, 3, 8, 2, 1}) {
            Map<String, Long> bindings = new HashMap<>();
            g.bindings().forEach((name, v) -> bindings.put(name, Math.max(1, v * scale / 4)));
            assertEquals(figures(ReferenceReplay.replay(g.graph(), NodeAttributes.none(), bindings)),
                    figures(predictor.predict(bindings)), "scale " + scale);
        }
    }

    @Test
    void concurrentRequestsOnOnePredictorAnswerAsFreshReplays() throws Exception {
        GeneratedGraph g = GraphKind.UNET.ofOwners(300, 17);
        OrtArenaPredictor predictor = OrtArenaPredictor.of(g.graph(), NodeAttributes.none());
        List<Map<String, Long>> requests = new ArrayList<>();
        List<List<Long>> expected = new ArrayList<>();
        for (long scale = 1; scale <= 8; scale++) {
            Map<String, Long> bindings = new HashMap<>();
            long s = scale;
            g.bindings().forEach((name, v) -> bindings.put(name, Math.max(1, v * s / 4)));
            requests.add(Map.copyOf(bindings));
            expected.add(figures(ReferenceReplay.replay(g.graph(), NodeAttributes.none(), bindings)));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Boolean>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        int r = (first + i * 3) % requests.size();
                        if (!expected.get(r).equals(figures(predictor.predict(requests.get(r))))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (java.util.concurrent.Future<Boolean> f : done) {
                assertTrue(f.get(), "a concurrent request was answered differently from its fresh replay");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every figure of a prediction (not its list of unmodelled ops, which the reference does not give). */
    private static List<Long> figures(OrtArenaPrediction p) {
        return List.of(p.activationBytes(), p.firstRunPeakBytes(), p.patternBlockBytes(), p.outputsHeldBytes(),
                p.arenaRoundingBytes(), p.reservedBytes(), p.countedBytes());
    }

    @Test
    void aNegativeBindingIsReportedAsTheReferenceReportsIt() {
        GeneratedGraph g = GraphKind.TRANSFORMER.ofOwners(300);
        OrtArenaPredictor predictor = OrtArenaPredictor.of(g.graph(), NodeAttributes.none());
        Map<String, Long> negative = new HashMap<>();
        g.bindings().forEach((name, v) -> negative.put(name, -v));

        RuntimeException expected = assertThrows(RuntimeException.class,
                () -> ReferenceReplay.replay(g.graph(), NodeAttributes.none(), negative));
        RuntimeException actual = assertThrows(RuntimeException.class, () -> predictor.predict(negative));

        assertEquals(expected.getClass(), actual.getClass());
        assertEquals(expected.getMessage(), actual.getMessage());
    }

    static Stream<Arguments> randomOrtGraphs() throws IOException, URISyntaxException {
        Path dir = Path.of(OrtReplayEquivalenceTest.class.getResource("/ort/random/expected.tsv").toURI()).getParent();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".onnx")).sorted()
                    .map(f -> Arguments.of(f.getFileName().toString(), f)).toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("randomOrtGraphs")
    void predictionEqualsTheReferenceReplayOnTheRandomOrtGraphs(String name, Path file) {
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file),
                ImportOptions.defaults().withFoldConstants(false));
        assertSamePrediction(name, imported.graph(), NodeAttributes.none(), Map.of());
    }

    static Stream<Arguments> sharedModelBindings() {
        return Stream.of(
                Arguments.of("onnx-light/light_densenet121.onnx", Map.of()),
                Arguments.of("ort-ext/FastestDet.onnx", Map.of()),
                Arguments.of("ort-ext/pytorch_super_resolution.onnx", Map.of("batch_size", 1L)),
                Arguments.of("ort-ext/pytorch_super_resolution.onnx", Map.of("batch_size", 3L)),
                Arguments.of("ort-ext/pytorch_super_resolution.onnx", Map.of("batch_size", 7L)),
                Arguments.of(SharedModels.MINILM, Map.of("batch_size", 1L, "sequence_length", 128L)),
                Arguments.of(SharedModels.MINILM, Map.of("batch_size", 3L, "sequence_length", 77L)),
                Arguments.of(SharedModels.MINILM, Map.of("batch_size", 4L, "sequence_length", 512L)),
                Arguments.of(SharedModels.GPT2, Map.of("batch_size", 1L, "seq_len", 1L, "past_seq_len", 127L,
                        "total_seq_len", 128L)),
                Arguments.of(SharedModels.GPT2, Map.of("batch_size", 4L, "seq_len", 128L, "past_seq_len", 896L,
                        "total_seq_len", 1024L)),
                Arguments.of(SharedModels.GPT2, Map.of("batch_size", 8L, "seq_len", 512L, "past_seq_len", 1536L,
                        "total_seq_len", 2048L)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sharedModelBindings")
    void predictionEqualsTheReferenceReplayOnTheSharedModels(String model, Map<String, Long> given) throws IOException {
        Path file = SharedModels.require(model);
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file),
                ImportOptions.defaults().withFoldConstants(false));
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(file));
        assertSamePrediction(model + " " + given, imported.graph(), OnnxNodeAttributes.of(proto, imported.graph()),
                imported.completeBindings(given));
    }

    @TempDir
    static Path savedDir;

    /** B x (S new + P past) tokens, T = S + P: with and without a past, one token and many. */
    static Stream<Arguments> gpt2Requests() {
        return Stream.of(Arguments.of(1L, 1L, 127L), Arguments.of(2L, 32L, 224L), Arguments.of(3L, 7L, 0L),
                Arguments.of(4L, 128L, 896L), Arguments.of(5L, 1L, 300L), Arguments.of(8L, 512L, 1536L));
    }

    /**
     * GPT-2's graph as ORT saves it at its default level: its com.microsoft Attention nodes allocate
     * the present state between their workspaces, the one place the replay holds workspaces across
     * an allocation ({@link ReplaySequence#HOLD}).
     */
    @ParameterizedTest(name = "B={0} S={1} P={2}")
    @MethodSource("gpt2Requests")
    void predictionEqualsTheReferenceReplayOnGpt2sLevelAllGraph(long b, long s, long p) throws IOException {
        Path saved = savedDir.resolve("gpt2.all.onnx");
        if (!Files.exists(saved)) {
            Path model = SharedModels.require(SharedModels.GPT2);
            OrtFigures.ortLoads("GPT-2 at level all", () -> {
                OrtOptimizedGraph.save(model, OrtModel.Level.ALL.ortName(), saved);
                return null;
            });
        }
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(saved),
                ImportOptions.defaults().withNchwcBlockSize(OrtRuntimeProfile.nchwcBlockSize()));
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(saved));
        assertSamePrediction("GPT-2 level all " + b + " x (" + s + " + " + p + ")", imported.graph(),
                OnnxNodeAttributes.of(proto, imported.graph()), imported.completeBindings(Map.of("batch_size", b,
                        "seq_len", s, "past_seq_len", p, "total_seq_len", s + p)));
    }

    private static void assertSamePrediction(String name, Graph graph, NodeAttributes attributes,
                                             Map<String, Long> bindings) {
        OrtArenaPrediction expected = ReferenceReplay.replay(graph, attributes, bindings);
        OrtArenaPredictor predictor = OrtArenaPredictor.of(graph, attributes);
        for (OrtArenaPrediction actual : List.of(predictor.predict(bindings), predictor.replay(bindings),
                predictor.replay(bindings))) {
            assertEquals(expected.activationBytes(), actual.activationBytes(), name + ": activation");
            assertEquals(expected.firstRunPeakBytes(), actual.firstRunPeakBytes(), name + ": first run's peak");
            assertEquals(expected.patternBlockBytes(), actual.patternBlockBytes(), name + ": pattern block");
            assertEquals(expected.outputsHeldBytes(), actual.outputsHeldBytes(), name + ": outputs held");
            assertEquals(expected.arenaRoundingBytes(), actual.arenaRoundingBytes(), name + ": arena rounding");
            assertEquals(expected.reservedBytes(), actual.reservedBytes(), name + ": reserved");
        }
        assertTrue(expected.activationBytes() > 0, name + ": the reference predicts nothing");
    }

    /** Sizes a request draws from: repeated ones make ties between free chunks and gaps. */
    private static long[] palette(Random random) {
        long[] sizes = new long[6];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 256L * (1 + random.nextInt(4096));
        }
        return sizes;
    }

    /** A request size: repeated, small, medium, near a power of two, or (rarely) past 128 MiB, or zero. */
    private static long requestSize(Random random, long[] palette) {
        int kind = random.nextInt(100);
        if (kind < 2) {
            return 0;
        } else if (kind < 35) {
            return palette[random.nextInt(palette.length)];
        } else if (kind < 55) {
            return 1 + random.nextInt(8192);
        } else if (kind < 80) {
            return 1 + random.nextInt((int) (4 * MIB));
        } else if (kind < 98) {
            long power = 256L << random.nextInt(16);
            return Math.max(1, power + (random.nextInt(3) - 1) * (random.nextBoolean() ? 1 : 256));
        }
        return 128 * MIB + random.nextInt((int) (200 * MIB));
    }
}
