// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Shape;
import dev.memplan.testing.EngineIndependent;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * com.microsoft Attention's workspaces against ORT 1.30, one node alone
 * ({@code benchmarks/ort/attention-probe.py}: exact arena, memory pattern off, one run, so ORT's
 * peak is the node's output plus its workspaces, each rounded up to 256 B).
 */
@EngineIndependent
class OrtAttentionRuleTest {
    private static final int HIDDEN = 32;
    private static final int HEADS = 4;

    /** x [B, S, 32] with weights [32, 96], bias [96] and a mask of {@code maskRank} (0: none) -> y [B, S, 32]. */
    private static Graph attention(long b, long s, int maskRank) {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, Shape.fixed(b, s, HIDDEN));
        int w = g.value("W", DataType.FLOAT32, Shape.fixed(HIDDEN, 3 * HIDDEN));
        int bias = g.value("b", DataType.FLOAT32, Shape.fixed(3 * HIDDEN));
        int y = g.value("y", DataType.FLOAT32, Shape.fixed(b, s, HIDDEN));
        int[] inputs = {x, w, bias};
        if (maskRank > 0) {
            int mask = g.value("mask", DataType.INT32, maskRank == 1 ? Shape.fixed(b) : Shape.fixed(b, s));
            inputs = new int[] {x, w, bias, mask};
            g.input(mask);
        }
        g.node("attention", "com.microsoft", "Attention", inputs, new int[] {y});
        return g.input(x).initializer(w).initializer(bias).output(y).build();
    }

    private static NodeAttributes attributes(boolean unidirectional) {
        return new FixedNodeAttributes(Map.of("num_heads", (long) HEADS, "unidirectional", unidirectional ? 1L : 0L),
                Map.of(), 17);
    }

    @ParameterizedTest(name = "B={0} S={1} unidirectional={2} mask rank {3}: ORT {4}")
    @CsvSource({
        // measured by attention-probe.py (ORT 1.30.0): a padding mask is kept as B x T floats, a
        // causal one as B x S x T, and the batched GEMM's arguments take 64 bytes per row and head
        "2, 32, false, 2, 74496",
        "2, 32, true, 2, 82432",
        "2, 32, false, 0, 74240",
        "4, 64, false, 2, 428032",
        "4, 64, false, 1, 428032"})
    void workspacesPlusOutputAreOrtsPeak(long b, long s, boolean unidirectional, int maskRank, long ort) {
        Graph graph = attention(b, s, maskRank);
        Node node = graph.node(0);
        NodeAttributes attributes = attributes(unidirectional);

        long[] workspaces = KernelWorkspaces.of(graph, node, attributes).bytes(new BoundShapes(graph, Map.of()));

        long output = BfcArena.align(4 * b * s * HIDDEN);
        assertEquals(ort, output + Arrays.stream(workspaces).map(BfcArena::align).sum(), Arrays.toString(workspaces));
        assertEquals(maskRank > 0 || unidirectional && s > 1 ? 5 : 4, workspaces.length);
        assertEquals(b * HEADS * 64, workspaces[workspaces.length - 2], "MLAS_SGEMM_DATA_PARAMS per row and head");
    }

    @Test
    void theWorkspacesComeInTheKernelsOrder() {
        Graph graph = attention(2, 32, 2);

        long[] workspaces = KernelWorkspaces.of(graph, graph.node(0), attributes(true))
                .bytes(new BoundShapes(graph, Map.of()));

        // QKV, the causal mask B x S x T, the scores B x heads x S x T, the GEMM arguments, the heads' output
        assertArrayEquals(new long[] {4L * 2 * 32 * 96, 4L * 2 * 32 * 32, 4L * 2 * HEADS * 32 * 32, 2L * HEADS * 64,
                4L * 2 * 32 * 32}, workspaces);
        assertEquals(1, KernelWorkspaces.outputsAfter(graph, graph.node(0), attributes(true)),
                "the present state is allocated after QKV");
    }

    @Test
    void otherKernelsAllocateTheirOutputsFirst() {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, Shape.fixed(1024));
        int y = g.value("y", DataType.FLOAT32, Shape.fixed(1024));
        g.node("relu", "Relu", new int[] {x}, new int[] {y});
        Graph graph = g.input(x).output(y).build();

        assertEquals(0, KernelWorkspaces.outputsAfter(graph, graph.node(0), attributes(false)));
    }
}
