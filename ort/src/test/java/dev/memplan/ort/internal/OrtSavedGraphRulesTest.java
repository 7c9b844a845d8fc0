// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.testing.EngineIndependent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rules the replay takes from a graph ORT saved (docs/ort-runtime.md, section 7), on
 * hand-built graphs: the saved value_info is what ORT's planner compares, the saved order is ORT's
 * order, and an output nobody reads is held to the run's end.
 */
@EngineIndependent
class OrtSavedGraphRulesTest {
    /** x -> a -> b -> c -> y, four Exp of 1,024 floats: c may take a's freed buffer (same shape). */
    private static Graph chain() {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, Shape.fixed(1024));
        int a = g.value("a", DataType.FLOAT32, Shape.fixed(1024));
        int b = g.value("b", DataType.FLOAT32, Shape.fixed(1024));
        int c = g.value("c", DataType.FLOAT32, Shape.fixed(1024));
        int y = g.value("y", DataType.FLOAT32, Shape.fixed(1024));
        g.node("e1", "Exp", new int[] {x}, new int[] {a});
        g.node("e2", "Exp", new int[] {a}, new int[] {b});
        g.node("e3", "Exp", new int[] {b}, new int[] {c});
        g.node("e4", "Exp", new int[] {c}, new int[] {y});
        return g.input(x).output(y).build();
    }

    /** A saved model whose value_info gives {@code a} and {@code c} one dim: named {@code dim}, or unnamed when null. */
    private static ModelProto savedWith(String dim) {
        TensorShapeProto.Dimension d = dim == null ? TensorShapeProto.Dimension.getDefaultInstance()
                : TensorShapeProto.Dimension.newBuilder().setDimParam(dim).build();
        TypeProto type = TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(TensorShapeProto.newBuilder().addDim(d))).build();
        GraphProto.Builder g = GraphProto.newBuilder();
        for (String name : new String[] {"a", "c"}) {
            g.addValueInfo(ValueInfoProto.newBuilder().setName(name).setType(type));
        }
        return ModelProto.newBuilder().setGraph(g).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"named", "unnamed"})
    void theSavedValueInfoDecidesTheFreelist(String kind) {
        Graph graph = chain();
        SameSizeKey[] keys = OrtPlannerShapes.of(savedWith(kind.equals("named") ? "n" : null), graph);

        OrtReusePlan plan = OrtReusePlan.of(graph, keys, OrtExecutionOrder.asSaved(graph));

        // named: a and c both [n], so c takes a's buffer; unnamed: a dim ORT could not infer matches nothing
        assertEquals(kind.equals("named") ? 1 : 0, plan.sharedFromFreelist());
        assertEquals(1, OrtReusePlan.of(graph).sharedFromFreelist(), "memplan's own shapes: [1024] and [1024] match");
    }

    @Test
    void aValueWithoutSavedValueInfoKeepsMemplansShape() {
        Graph graph = chain();
        SameSizeKey[] keys = OrtPlannerShapes.of(ModelProto.getDefaultInstance(), graph);

        assertEquals(SameSizeKey.of(graph.value(1)), keys[1]);
        assertEquals(keys[1], keys[3]);
    }

    @Test
    void aSavedGraphRunsInFileOrder() {
        // y = Concat(p, q): ORT's search would run q's producer (higher id) first; a saved graph keeps its order
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, Shape.fixed(16));
        int p = g.value("p", DataType.FLOAT32, Shape.fixed(16));
        int q = g.value("q", DataType.FLOAT32, Shape.fixed(16));
        int y = g.value("y", DataType.FLOAT32, Shape.fixed(32));
        g.node("np", "Exp", new int[] {x}, new int[] {p});
        g.node("nq", "Exp", new int[] {x}, new int[] {q});
        g.node("cat", "Concat", new int[] {p, q}, new int[] {y});
        Graph graph = g.input(x).output(y).build();

        assertArrayEquals(new int[] {0, 1, 2}, OrtExecutionOrder.asSaved(graph));
        assertArrayEquals(new int[] {1, 0, 2}, OrtExecutionOrder.of(graph));
    }

    @Test
    void anOutputNobodyReadsIsHeldToTheRunsEnd() {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, Shape.fixed(64));
        int s1 = g.value("s1", DataType.FLOAT32, Shape.fixed(32));
        int s2 = g.value("s2", DataType.FLOAT32, Shape.fixed(32));
        int e = g.value("e", DataType.FLOAT32, Shape.fixed(32));
        int y = g.value("y", DataType.FLOAT32, Shape.fixed(32));
        g.node("split", "Split", new int[] {x}, new int[] {s1, s2});
        g.node("exp1", "Exp", new int[] {s1}, new int[] {e});
        g.node("exp2", "Exp", new int[] {e}, new int[] {y});
        Graph graph = g.input(x).output(y).build();

        OrtReusePlan plan = OrtReusePlan.of(graph);

        assertFalse(Arrays.stream(plan.freesAfter(0)).anyMatch(v -> v == s2), "s2 is not freed after its node");
        assertTrue(Arrays.stream(plan.freesAfter(2)).anyMatch(v -> v == s2), "s2 is freed after the last node");
        assertTrue(Arrays.stream(plan.freesAfter(1)).anyMatch(v -> v == s1), "s1 is freed after its last reader");
    }
}
