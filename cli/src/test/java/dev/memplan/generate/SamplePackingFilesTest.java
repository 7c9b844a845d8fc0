// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed sample CSVs are exactly what the generator writes for their seeds (PackingCsvTest
 * reads them back through the command line's reader).
 */
@EngineIndependent
class SamplePackingFilesTest {

    static List<Long> seeds() {
        return SamplePackingFiles.SEEDS;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void committedSampleMatchesTheGenerator(long seed) throws IOException {
        Path file = SamplePackingFiles.DIR.resolve(SamplePackingFiles.fileName(seed));
        assertTrue(Files.isRegularFile(file), file + " is missing; run SamplePackingFiles (see its javadoc)");
        String committed = Files.readString(file, StandardCharsets.UTF_8);
        PackingInstance inst = HardPackingGenerator.generate(seed);
        assertEquals(SamplePackingFiles.csv(inst), committed,
                file + " differs from the generator's output; if the generator changed on purpose, run"
                        + " SamplePackingFiles to rewrite the samples");
    }

    @Test
    void csvHasMiniMallocsHeaderAndOneHalfOpenRowPerBuffer() {
        PackingInstance inst = HardPackingGenerator.generate(5);
        String[] lines = SamplePackingFiles.csv(inst).split("\n");
        assertEquals("id,lower,upper,size", lines[0]);
        assertEquals(inst.size() + 1, lines.length);
        for (int i = 0; i < inst.size(); i++) {
            assertEquals(i + "," + inst.lower()[i] + "," + inst.upper()[i] + "," + inst.sizes()[i], lines[i + 1]);
        }
        assertEquals(inst.upper()[0] - 1, inst.useEnds()[0], "useEnd is the inclusive end");
    }
}
