// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.SharedModels;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One planning path: the command line plans through the server's code, so a binding
 * above the model's limit fails there as it does in {@code CompiledModel}: one line, exit 1.
 */
class ModelLimitCliTest {
    @TempDir
    Path dir;

    @Test
    void planAndDrawRefuseABindingAboveTheModelsLimitOnOneLine() {
        SharedModels.requirePresent();
        String model = SharedModels.require(SharedModels.MINILM).toString();
        String expected = "sequence_length = 513 is above 512, the largest value the model accepts";
        CliRun plan = CliRun.of("plan", "--bind", "batch_size=1", "--bind", "sequence_length=513", model);
        CliRun draw = CliRun.of("draw", "--bind", "batch_size=1", "--bind", "sequence_length=513", "-o",
                dir.resolve("m.svg").toString(), model);
        for (CliRun run : new CliRun[] {plan, draw}) {
            assertEquals(1, run.exit(), run.toString());
            assertTrue(run.err().contains(expected), run.toString());
            assertEquals(1, run.err().strip().lines().count(), run.toString());
            assertFalse(run.err().contains("Exception"), run.toString());
        }
        // at the limit it plans
        assertEquals(0, CliRun.of("plan", "--bind", "batch_size=1", "--bind", "sequence_length=512", model).exit());
    }
}
