// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * LSTM's workspaces against ORT 1.30, one node alone ({@code benchmarks/ort/workspace-probe.py}'s
 * LSTM rows: exact arena, memory pattern off, one run, random weights), so ORT's peak less the
 * outputs is the workspaces, each rounded up to 256 B.
 */
@EngineIndependent
class OrtLstmRuleTest {

    /** X [S, B, I] -> LSTM(hidden H) -> Y, and Y_h, Y_c when asked; optional B, sequence_lens, P. */
    private static Graph lstm(long s, long b, long i, long h, boolean bias, boolean finalState, boolean finalCell,
                              boolean lengths, boolean peepholes) {
        Graph.Builder g = Graph.builder();
        int x = g.value("X", DataType.FLOAT32, Shape.fixed(s, b, i));
        int w = g.value("W", DataType.FLOAT32, Shape.fixed(1, 4 * h, i));
        int r = g.value("R", DataType.FLOAT32, Shape.fixed(1, 4 * h, h));
        List<Integer> inputs = new ArrayList<>(List.of(x, w, r));
        inputs.add(bias ? g.value("B", DataType.FLOAT32, Shape.fixed(1, 8 * h)) : Graph.ABSENT);
        inputs.add(lengths ? g.value("L", DataType.INT32, Shape.fixed(b)) : Graph.ABSENT);
        if (peepholes) {
            inputs.addAll(List.of(Graph.ABSENT, Graph.ABSENT, g.value("P", DataType.FLOAT32, Shape.fixed(1, 3 * h))));
        }
        List<Integer> outputs = new ArrayList<>(List.of(g.value("Y", DataType.FLOAT32, Shape.fixed(s, 1, b, h))));
        outputs.add(finalState ? g.value("Y_h", DataType.FLOAT32, Shape.fixed(1, b, h)) : Graph.ABSENT);
        outputs.add(finalCell ? g.value("Y_c", DataType.FLOAT32, Shape.fixed(1, b, h)) : Graph.ABSENT);
        while (outputs.get(outputs.size() - 1) == Graph.ABSENT) { // as the importer keeps them: no trailing absent
            outputs.remove(outputs.size() - 1);
        }
        g.node("lstm", "LSTM", inputs.stream().mapToInt(Integer::intValue).toArray(),
                outputs.stream().mapToInt(Integer::intValue).toArray());
        g.input(x).initializer(w).initializer(r);
        for (int v : inputs.subList(3, inputs.size())) {
            if (v != Graph.ABSENT) {
                g.input(v);
            }
        }
        outputs.stream().filter(v -> v != Graph.ABSENT).forEach(g::output);
        return g.build();
    }

    private static NodeAttributes attributes(long hidden, String direction) {
        return new FixedNodeAttributes(Map.of("hidden_size", hidden), Map.of("direction", direction), 14);
    }

    @ParameterizedTest(name = "S={0} B={1} I={2} H={3} bias={4} Y_h={5} Y_c={6} lengths={7} {8}: ORT {9}")
    @CsvSource({
        // measured by workspace-probe.py (ORT 1.30.0), level none, one LSTM node with random weights
        "4, 1, 64, 64, true, true, true, false, forward, 6656",
        "58, 2, 129, 64, true, true, true, false, forward, 122112",
        "100, 8, 32, 48, false, true, true, false, forward, 619776",
        "10, 3, 16, 32, true, false, false, false, forward, 19712",
        "10, 3, 16, 32, true, true, true, true, forward, 18432",
        "10, 3, 16, 32, true, true, true, false, reverse, 24576",
        "16, 1, 64, 64, true, true, true, false, forward, 18944",
        "4, 2, 64, 64, true, true, true, false, forward, 11520"})
    void workspacesAreOrtsPeakLessTheOutputs(long s, long b, long i, long h, boolean bias, boolean finalState,
                                             boolean finalCell, boolean lengths, String direction, long ort) {
        Graph graph = lstm(s, b, i, h, bias, finalState, finalCell, lengths, false);
        NodeAttributes attributes = attributes(h, direction);
        assertTrue(KernelWorkspaces.isModelled(graph, graph.node(0), attributes));

        long[] workspaces = KernelWorkspaces.of(graph, graph.node(0), attributes).bytes(new BoundShapes(graph, Map.of()));

        assertEquals(ort, Arrays.stream(workspaces).map(BfcArena::align).sum(), Arrays.toString(workspaces));
    }

    @Test
    void bidirectionalAndPeepholeLstmsHaveNoRule() {
        Graph plain = lstm(10, 3, 16, 32, true, true, true, false, false);
        assertFalse(KernelWorkspaces.isModelled(plain, plain.node(0), attributes(32, "bidirectional")),
                "bidirectional measured 5,888 B above the two directions' sum");
        Graph peepholes = lstm(10, 3, 16, 32, true, true, true, false, true);
        assertFalse(KernelWorkspaces.isModelled(peepholes, peepholes.node(0), attributes(32, "forward")),
                "peepholes are not measured");
    }
}
