// SPDX-License-Identifier: Apache-2.0
package dev.memplan.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.memplan.EngineMode;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.json.GraphJson;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.ByteArrayInputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * Coverage-guided fuzzing of the graph JSON reader ({@code dev.memplan.json}): any bytes are read
 * as a graph file, compiled and planned on both engines with every symbol bound. The promise
 * ({@link Promises}): memplan's own exception with one clean line, or plans that pass the
 * validator and agree across the engines. Text that is not UTF-8 is refused before the reader
 * (the command line says so itself). Regression inputs: {@code GraphJsonFuzzTestInputs/}.
 */
@EngineIndependent
class GraphJsonFuzzTest {

    @FuzzTest(maxDuration = "20s")
    void graphJson(byte[] bytes) throws IOException {
        int knob = bytes.length == 0 ? 0 : bytes[0] & 0xff;
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        Promises.Outcome<GraphJson.GraphFile> file;
        try (var in = new InputStreamReader(new ByteArrayInputStream(bytes), decoder)) {
            file = Promises.attempt(() -> {
                try {
                    return GraphJson.read(in);
                } catch (CharacterCodingException e) {
                    return null;
                } catch (IOException e) {
                    throw new AssertionError("an in-memory read failed", e);
                }
            });
        }
        if (file.refused() || file.value() == null) {
            return;
        }
        GraphJson.GraphFile g = file.value();
        Map<String, Long> bindings = new TreeMap<>();
        for (String symbol : g.graph().symbols().keySet()) {
            bindings.put(symbol, 1L + (knob & 0x0f));
        }
        PlanOptions options = PlanOptions.defaults().withInPlace((knob & 0x10) == 0)
                .withStrategy(Strategy.values()[(knob >> 5) % Strategy.values().length])
                .withIncludeGraphInputs((knob & 0x80) != 0);
        Promises.sameOutcome(plan(g, bindings, options.withEngine(EngineMode.JAVA)),
                plan(g, bindings, options.withEngine(EngineMode.NATIVE)), "bindings " + bindings);
    }

    private static Promises.Outcome<PlanResult> plan(GraphJson.GraphFile g, Map<String, Long> bindings, PlanOptions o) {
        return Promises.attempt(() -> MemPlan.compile(g.graph(), g.views(), o).plan(bindings));
    }
}
