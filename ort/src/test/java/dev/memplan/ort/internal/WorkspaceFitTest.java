// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The exact fits of measured workspaces ({@link WorkspaceFit}). */
@EngineIndependent
class WorkspaceFitTest {
    /** Probes of two symbols (batch, seq) as {@link KernelProbes} binds them; candidates: batch, seq, batch x seq x 64. */
    private static final long[][] SYMBOLS = {{8, 8}, {16, 16}, {40, 40}, {12, 20}, {32, 24}, {20, 32}};

    private static List<WorkspaceFit.Probe> probes(java.util.function.ToLongFunction<long[]> workspace) {
        List<WorkspaceFit.Probe> out = new ArrayList<>();
        for (long[] s : SYMBOLS) {
            long[] sizes = {s[0], s[1], s[0] * s[1] * 64};
            out.add(new WorkspaceFit.Probe(sizes, workspace.applyAsLong(s)));
        }
        return out;
    }

    @Test
    void aConstantHasNoTerms() {
        WorkspaceFit.Line line = WorkspaceFit.fit(probes(s -> 4096)).orElseThrow();
        assertEquals(0, line.candidates().length);
        assertEquals(4096, line.at());
    }

    @Test
    void aWorkspaceFollowingOneDimIsToldFromOneFollowingTheOther() {
        WorkspaceFit.Line line = WorkspaceFit.fit(probes(s -> 100 + 12 * s[1])).orElseThrow();
        assertArrayEquals(new int[] {1}, line.candidates(), "seq, not batch: the probes bind them apart");
        assertEquals(100 + 12 * 500, line.at(500));
    }

    @Test
    void aGruTakesTwoTermsExactly() {
        // measured on a GRU of hidden 32: 644 B per batch row and 384 per row and step
        WorkspaceFit.Line line = WorkspaceFit.fit(probes(s -> 644 * s[0] + 384 * s[0] * s[1])).orElseThrow();
        assertArrayEquals(new int[] {0, 2}, line.candidates());
        assertEquals(644 * 7 + 384 * 7 * 1000, line.at(7, 7 * 1000 * 64));
    }

    @Test
    void aFractionalSlopeIsRoundedUpNeverDown() {
        WorkspaceFit.Line line = WorkspaceFit.fit(probes(s -> s[0] * s[1] * 64 / 8)).orElseThrow();
        assertArrayEquals(new int[] {2}, line.candidates(), "one byte per eight of the bytes candidate");
        assertEquals(3, line.at(17), "17 / 8 rounded up");
        assertEquals(2, line.at(16));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void workspacesThatFollowTheDataFitNothing(long seed) {
        Random random = new Random(seed);
        Optional<WorkspaceFit.Line> line = WorkspaceFit.fit(probes(s -> random.nextInt(1 << 20)));
        assertTrue(line.isEmpty(), "random workspaces: " + line);
    }
}
