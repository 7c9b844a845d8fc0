// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** On the command line, derived symbols are listed with their expression. */
@EngineIndependent
class DerivedSymbolsCommandTest {

    private static Path gpt2() {
        return SharedModels.require(SharedModels.GPT2);
    }

    @Test
    void symbolsShowsTotalSequenceLengthAsASum() {
        CliRun run = CliRun.of("symbols", gpt2().toString());
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().contains("\ntotal_seq_len = past_seq_len + seq_len\t"), run::toString);
    }

    @Test
    void planNeedsNoTotalSequenceLengthAndRejectsAWrongOne() {
        CliRun ok = CliRun.of("plan", "--bind", "batch_size=1", "--bind", "seq_len=128", "--bind", "past_seq_len=896",
                gpt2().toString());
        assertEquals(0, ok.exit(), ok::toString);
        assertTrue(ok.out().contains("admission") && !ok.out().contains("deferred"), ok::toString);
        CliRun bad = CliRun.of("plan", "--bind", "batch_size=1", "--bind", "seq_len=128", "--bind", "past_seq_len=896",
                "--bind", "total_seq_len=5", gpt2().toString());
        assertEquals(1, bad.exit(), bad::toString);
        assertTrue(bad.err().contains("GptAttention_0") && bad.err().contains("total_seq_len 5"), bad::toString);
        assertEquals("", bad.out());
    }
}
