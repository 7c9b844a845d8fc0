// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.rules.OnnxOp;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.api.Test;

/** {@code memplan ops} lists every op the importer infers, with its domain and opset range. */
@EngineIndependent
class OpsCommandTest {

    /** Each listed line as "domain op versions", whitespace collapsed. */
    private static Set<String> rows(CliRun run) {
        return Arrays.stream(run.lines()).map(l -> l.trim().replaceAll("\\s+", " ")).collect(Collectors.toSet());
    }

    @Test
    void listsEverySupportedOpWithItsDomainAndOpsets() {
        CliRun run = CliRun.of("ops");
        assertEquals(ExitCode.OK, run.exit(), run.toString());
        assertEquals("", run.err());
        Set<String> rows = rows(run);
        List<OnnxOp> supported = OnnxOp.supported();
        assertTrue(supported.size() > 100, "the registry lists " + supported.size() + " ops");
        for (OnnxOp op : supported) {
            String row = op.domainName() + " " + op.opType() + " " + op.versions();
            assertTrue(rows.contains(row), "missing: " + row + "\n" + run);
        }
        for (OnnxOp op : OnnxOp.importedByStructure()) {
            assertTrue(rows.contains(op.domainName() + " " + op.opType() + " " + op.versions()), op.toString());
        }
        assertTrue(run.out().contains("opset ranges are listed, not enforced"), run::toString);
    }

    @Test
    void namesDomainsAndRangesAsUsersWriteThem() {
        Set<String> rows = rows(CliRun.of("ops"));
        // written out, not derived from the registry: a dropped op or a changed range fails here
        for (String row : List.of("ai.onnx Relu 1+", "ai.onnx Resize 10+", "ai.onnx Upsample 1-9",
                "ai.onnx Scatter 9-10", "com.microsoft Attention 1+", "com.microsoft SkipLayerNormalization 1+",
                "ai.onnx Loop 1+")) {
            assertTrue(rows.contains(row), "missing: " + row);
        }
    }
}
