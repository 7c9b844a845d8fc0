// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.memplan.EngineMode;
import dev.memplan.Packing;
import dev.memplan.fuzz.Promises;
import dev.memplan.testing.EngineIndependent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the MiniMalloc CSV reader ({@link PackingCsv}, what {@code memplan pack}
 * reads) and of packing what it accepts on both engines. The promise: memplan's own exception with
 * one clean line, or the same offsets from both engines, every pair of buffers alive together
 * apart in bytes and inside the arena (checked here, pair by pair). Text that is not UTF-8 is
 * refused before the reader, as the command line does. Regression inputs:
 * {@code PackingCsvFuzzTestInputs/}.
 */
@EngineIndependent
class PackingCsvFuzzTest {
    /** Pairs are checked one by one: a larger problem is read but not packed. */
    private static final int MAX_PACKED = 400;

    @FuzzTest(maxDuration = "20s")
    void packingCsv(byte[] bytes) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        Promises.Outcome<PackingCsv.Problem> read;
        try (var in = new InputStreamReader(new ByteArrayInputStream(bytes), decoder)) {
            read = Promises.attempt(() -> {
                try {
                    return PackingCsv.read(in);
                } catch (CharacterCodingException e) {
                    return null;
                } catch (IOException e) {
                    throw new AssertionError("an in-memory read failed", e);
                }
            });
        }
        if (read.refused() || read.value() == null || read.value().sizes().length > MAX_PACKED) {
            return;
        }
        PackingCsv.Problem p = read.value();
        int effort = bytes.length % 3;
        var java = Promises.attempt(() -> Packing.pack(p.lower(), p.upper(), p.sizes(), effort, EngineMode.JAVA));
        var nat = Promises.attempt(() -> Packing.pack(p.lower(), p.upper(), p.sizes(), effort, EngineMode.NATIVE));
        assertEquals(java.refused(), nat.refused(), "one engine refused, the other packed");
        if (java.refused()) {
            assertEquals(java.refusal().getMessage(), nat.refusal().getMessage(), "refusal messages");
            return;
        }
        assertArrayEquals(java.value().offsets(), nat.value().offsets(), "offsets of the two engines");
        assertEquals(java.value().arenaBytes(), nat.value().arenaBytes(), "arenas of the two engines");
        checkPacking(p, java.value());
    }

    /** Each buffer inside the arena; buffers alive together ([lower, upper) overlapping) apart in bytes. */
    private static void checkPacking(PackingCsv.Problem p, Packing.Result r) {
        long[] lo = p.lower();
        long[] hi = p.upper();
        long[] size = p.sizes();
        long[] off = r.offsets();
        for (int i = 0; i < size.length; i++) {
            int at = i;
            assertTrue(off[i] >= 0 && off[i] <= r.arenaBytes() - size[i], () -> "buffer " + p.ids().get(at)
                    + " at " + off[at] + " outside the arena of " + r.arenaBytes());
            for (int j = i + 1; j < size.length; j++) {
                boolean together = lo[i] < hi[j] && lo[j] < hi[i];
                if (!together || size[i] == 0 || size[j] == 0) {
                    continue;
                }
                int other = j;
                assertTrue(off[i] + size[i] <= off[j] || off[j] + size[j] <= off[i], () -> "buffers "
                        + p.ids().get(at) + " and " + p.ids().get(other) + " overlap");
            }
        }
    }
}
