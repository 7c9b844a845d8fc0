// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Dim;
import dev.memplan.InvalidSizeException;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.SizeOracle;
import dev.memplan.json.GraphJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An element count never depends on the order of the dims (a zero dim
 * makes it 0 however large the others are; without a zero, an overflow is an error), in JSON
 * graphs and ONNX models alike; and a folded weight too large to count fails the import instead of
 * being dropped from the weight total.
 */
class OverflowOrderTest {
    private static final long HUGE = 1L << 62;

    /** Every order of {@code dims}. */
    static List<List<Long>> orders(long... dims) {
        List<List<Long>> out = new ArrayList<>();
        permute(new ArrayList<>(), dims, new boolean[dims.length], out);
        return out;
    }

    private static void permute(List<Long> prefix, long[] dims, boolean[] used, List<List<Long>> out) {
        if (prefix.size() == dims.length) {
            out.add(List.copyOf(prefix));
            return;
        }
        for (int i = 0; i < dims.length; i++) {
            if (!used[i]) {
                used[i] = true;
                prefix.add(dims[i]);
                permute(prefix, dims, used, out);
                prefix.remove(prefix.size() - 1);
                used[i] = false;
            }
        }
    }

    static List<List<Long>> zeroOrders() {
        return orders(HUGE, HUGE, 0);
    }

    static List<List<Long>> overflowOrders() {
        return orders(HUGE, HUGE, 3);
    }

    private static String jsonGraph(List<Long> dims) {
        return "{\"values\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2]},"
                + "{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":" + dims + "}],"
                + "\"inputs\":[\"x\"],\"outputs\":[\"y\"],"
                + "\"nodes\":[{\"name\":\"n\",\"op\":\"Expand\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]}";
    }

    @ParameterizedTest
    @MethodSource("zeroOrders")
    void aZeroDimMakesAnEmptyTensorInEveryOrder(List<Long> dims) {
        GraphJson.GraphFile g = GraphJson.parse(jsonGraph(dims));
        Schedule s = MemPlan.compile(g.graph(), g.views(), PlanOptions.defaults());
        PlanResult r = s.plan(SizeOracle.staticShapes());
        assertEquals(0, r.orElseThrow().peakBytes(), dims.toString());
        PlanValidator.validate(r.orElseThrow());
        // a derived product with the same factors agrees
        List<Dim> factors = dims.stream().map(d -> (Dim) Dim.of(d)).toList();
        assertEquals(Dim.of(0), Dim.Derived.product(factors), dims.toString());
        // and so does a shape whose zero is a symbol bound to 0
        List<Dim> symbolic = new ArrayList<>(factors);
        symbolic.set(dims.indexOf(0L), Dim.symbol("z"));
        assertEquals(0, new dev.memplan.Shape(symbolic).elementCount(Map.of("z", 0L)).getAsLong(), dims.toString());
    }

    @ParameterizedTest
    @MethodSource("overflowOrders")
    void withoutAZeroAnOverflowIsAnErrorInEveryOrder(List<Long> dims) {
        GraphJson.GraphFile g = GraphJson.parse(jsonGraph(dims));
        Schedule s = MemPlan.compile(g.graph(), g.views(), PlanOptions.defaults());
        InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> s.plan(SizeOracle.staticShapes()));
        assertTrue(e.getMessage().contains("'y'"), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("zeroOrders")
    void onnxModelsFollowTheSameRule(List<Long> dims) {
        OnnxWriter w = OnnxWriter.graph().input("x", type(FLOAT, 2))
                .initializer(int64s("shape", dims.stream().mapToLong(Long::longValue).toArray()))
                .node("Expand", in("x", "shape"), out("y")).output("y", type(FLOAT, dims.toArray()));
        ImportedGraph imp = OnnxImporter.importModel(w.model(17), ImportOptions.defaults());
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of(), PlanOptions.defaults());
        assertEquals(0, plan.plan().peakBytes(), dims.toString());
        PlanValidator.validate(plan.plan());
    }

    @Test
    void aFoldedWeightTooLargeToCountFailsTheImportNamingIt() {
        // ConstantOfShape([2^62]) of floats: 2^64 bytes. It used to vanish from "weights N bytes".
        OnnxWriter w = OnnxWriter.graph().input("x", type(FLOAT, 2))
                .initializer(int64s("shape", HUGE))
                .node("ConstantOfShape", in("shape"), out("big"))
                .node("Relu", in("x"), out("y")).output("y", type(FLOAT, 2)).outputNoShape("big");
        InvalidSizeException e = assertThrows(InvalidSizeException.class,
                () -> OnnxImporter.importModel(w.model(17), ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("'big'"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }
}
