// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checked-in ORT figures carry what they were measured from ({@link OrtFigures}): each figure
 * equals its raw statistics' MaxInUse less InUse, names the ORT it was measured with, and the
 * sha256 of the model file it was measured on, which must still be the file the tests read (a
 * changed model needs its figures remeasured: {@code benchmarks/ort/figures.sh}).
 */
@EngineIndependent
class OrtFiguresTest {
    static final String ORT_VERSION = "1.30.0";
    static final List<String> LEVEL_ALL = List.of("shared-level-all.tsv", "shared-level-all-threads.tsv",
            "if-figures.tsv", "silero-else.tsv");

    static List<String> levelAllTables() {
        return LEVEL_ALL;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("levelAllTables")
    void levelAllFiguresAreThisBlocksAndCarryTheirMeasurement(String table) throws Exception {
        Path tsv = OrtFigures.levelAll(table);
        assertEquals(OrtFigures.set(), "nchwc" + OrtFigures.header(tsv).get("nchwc_block"),
                tsv + ": its header's block is not its folder's");
        checkRows(tsv, table.equals("if-figures.tsv"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shared-level-none.tsv", "silero-level-none.tsv"})
    void levelNoneFiguresCarryTheirMeasurement(String table) throws Exception {
        checkRows(OrtFigures.levelNone(table), false);
    }

    /** A machine whose block has no figures: skipped outside CI, failed in CI, in one line saying what to measure. */
    @Test
    void aBlockWithoutFiguresSaysWhatToMeasure() {
        Throwable t = assertThrows(Throwable.class,
                () -> OrtFigures.levelAll("nchwc-test-absent", "NCHWc block 8 (AVX2)", "shared-level-all.tsv"));
        assertEquals(Ci.active() ? AssertionFailedError.class : TestAbortedException.class, t.getClass(), t.toString());
        assertTrue(t.getMessage().contains("no ORT figures for NCHWc block 8 (AVX2): measure them with"
                + " benchmarks/ort/figures.sh --write"), t.getMessage());
        assertEquals(1, t.getMessage().lines().count(), t.getMessage());
    }

    /** Every block's folder measures the same cases, so a machine of either block runs every test. */
    @Test
    void everyBlockMeasuresTheSameCases() throws Exception {
        Path root = Path.of(OrtFiguresTest.class.getResource("/ort").toURI());
        List<Path> sets;
        try (Stream<Path> s = Files.list(root)) {
            sets = s.filter(p -> p.getFileName().toString().startsWith("nchwc")).sorted().toList();
        }
        assertFalse(sets.isEmpty(), "no ort/nchwc<block>/ folder of figures");
        for (String table : LEVEL_ALL) {
            Set<String> first = cases(sets.get(0).resolve(table));
            assertTrue(first.size() >= 3, sets.get(0) + "/" + table + " lists " + first.size() + " cases");
            for (Path set : sets) {
                assertEquals(first, cases(set.resolve(table)), set.getFileName() + "/" + table);
            }
        }
    }

    private static Set<String> cases(Path tsv) {
        return OrtFigures.rows(tsv).stream().map(r -> r.model() + " " + r.bindings()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static void checkRows(Path tsv, boolean resourceModels) throws IOException, URISyntaxException {
        List<OrtFigures.Row> rows = OrtFigures.rows(tsv);
        assertFalse(rows.isEmpty(), tsv + " has no rows");
        for (OrtFigures.Row r : rows) {
            String label = tsv.getFileName() + " " + r.model() + " " + r.bindings();
            assertEquals(r.maxInUse() - r.inUseBefore(), r.activation(), label + ": the figure is not MaxInUse - InUse");
            assertTrue(r.totalAllocated() >= r.maxInUse() && r.numAllocs() > 0 && r.maxAllocSize() > 0, label);
            assertEquals(ORT_VERSION, r.ortVersion(), label + ": measured with another ONNX Runtime");
            Path model = resourceModels ? OrtIfBranchTest.resource(r.model()) : SharedModels.require(r.model());
            assertEquals(r.sha256(), sha256(model), label + ": the model is not the file the figure was measured on;"
                    + " remeasure with benchmarks/ort/figures.sh");
        }
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
