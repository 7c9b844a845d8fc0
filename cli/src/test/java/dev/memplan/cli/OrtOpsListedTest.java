// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code memplan ops} lists the ops of graphs ONNX Runtime saves, each with its domain. */
@EngineIndependent
class OrtOpsListedTest {
    @Test
    void opsListsTheOrtRewrittenOpsWithTheirDomains() {
        CliRun run = CliRun.of("ops");
        assertEquals(0, run.exit(), run.toString());
        for (String op : List.of("com.microsoft.nchwc ReorderInput", "com.microsoft.nchwc ReorderOutput",
                "com.microsoft.nchwc Conv", "com.microsoft.nchwc MaxPool", "com.microsoft DynamicQuantizeMatMul",
                "com.microsoft MatMulIntegerToFloat", "com.microsoft QLinearAdd", "com.microsoft MatMulNBits",
                "com.microsoft MultiHeadAttention", "com.microsoft NhwcMaxPool", "ai.onnx QLinearConv")) {
            assertTrue(run.out().lines().anyMatch(l -> l.replaceAll(" +", " ").startsWith(op + " ")),
                    op + " is listed:\n" + run.out());
        }
    }
}
