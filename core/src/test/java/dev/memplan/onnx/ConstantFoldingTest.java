// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.INT64;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.ints;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.scalar;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Shape;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Constant folding beyond the pad pattern: a chain of constant 2-D tensors through Transpose,
 * Gather, Squeeze, Unsqueeze, Expand, Tile, Mul, Mod, Greater, Where, Slice (negative step),
 * Reshape, Add, Sub, Concat and Cast computes a Reshape target. Every node folds, the target is
 * known, and every size equals ONNX Runtime's.
 */
class ConstantFoldingTest {

    private static TensorProto matrix(String name, long rows, long cols, long... values) {
        return int64s(name, values).toBuilder().clearDims().addDims(rows).addDims(cols).build();
    }

    static OnnxWriter model() {
        return OnnxWriter.graph().input("x", type(FLOAT, "n", 12))
                .initializer(matrix("c", 2, 2, 2, 3, 4, 6))
                .node("Transpose", in("c"), out("t"))                                   // [[2,4],[3,6]]
                .initializer(int64s("one", 1)).initializer(int64s("zero", 0))
                .node("Gather", in("t", "one"), out("g"), intAttr("axis", 0))          // [[3,6]]
                .node("Squeeze", in("g", "zero"), out("sq"))                            // [3,6]
                .node("Unsqueeze", in("sq", "zero"), out("u"))                          // [[3,6]]
                .initializer(int64s("two_two", 2, 2))
                .node("Expand", in("u", "two_two"), out("e"))                           // [[3,6],[3,6]]
                .initializer(int64s("reps", 1, 2))
                .node("Tile", in("e", "reps"), out("ti"))                               // 2x4
                .initializer(matrix("col", 2, 1, 1, 2))
                .node("Mul", in("ti", "col"), out("m"))                                 // [[3,6,3,6],[6,12,6,12]]
                .initializer(scalar("five", 5)).initializer(scalar("two", 2)).initializer(scalar("nought", 0))
                .node("Mod", in("m", "five"), out("md"))                                // [[3,1,3,1],[1,2,1,2]]
                .node("Greater", in("md", "two"), out("gt"))
                .node("Where", in("gt", "md", "nought"), out("w"))                      // [[3,0,3,0],[0,...]]
                .initializer(int64s("s0", 0)).initializer(int64s("e1", 1)).initializer(int64s("ax0", 0))
                .node("Slice", in("w", "s0", "e1", "ax0"), out("row"))                  // [[3,0,3,0]]
                .initializer(int64s("sm2", -2)).initializer(int64s("em100", -100))
                .initializer(int64s("ax1", 1)).initializer(int64s("stm2", -2))
                .node("Slice", in("row", "sm2", "em100", "ax1", "stm2"), out("back"))  // [[3,3]]
                .initializer(int64s("flat", -1))
                .node("Reshape", in("back", "flat"), out("f"))                          // [3,3]
                .initializer(int64s("inc", 1, 2)).initializer(int64s("dec", 1, 1))
                .node("Add", in("f", "inc"), out("fa"))                                 // [4,5]
                .node("Sub", in("fa", "dec"), out("dims"))                              // [3,4]
                .initializer(int64s("minus1", -1))
                .node("Concat", in("minus1", "dims"), out("target64"), intAttr("axis", 0)) // [-1,3,4]
                .node("Cast", in("target64"), out("target"), intAttr("to", INT64))
                .node("Reshape", in("x", "target"), out("r"))
                .node("Relu", in("r"), out("y"))
                .output("y", type(FLOAT, "n", 3, 4));
    }

    @Test
    void everyConstantNodeFoldsAndSizesMatchOnnxRuntime(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fold.onnx");
        Files.write(file, model().bytes(13));
        OnnxModel onnx = OnnxModel.read(file);
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        assertEquals(List.of("Reshape", "Relu"), imp.graph().nodes().stream().map(n -> n.opType()).toList(),
                "everything before the data Reshape folds");
        assertEquals(Set.of("n"), imp.symbols().keySet(), "fresh symbols: " + imp.freshSymbols());
        assertEquals(Shape.of("n", 3, 4), imp.graph().values().stream().filter(v -> v.name().equals("r"))
                .findFirst().orElseThrow().shape());
        Map<String, Long> bindings = Map.of("n", 2L);
        PlanValidator.validate(OnnxPlanner.plan(imp, bindings, PlanOptions.defaults()).plan());
        Set<String> compared = new LinkedHashSet<>();
        assertEquals(List.of(), OrtComparisonTest.compareWithOrt(file, onnx, imp, bindings, n -> 1.0, compared));
        assertTrue(compared.containsAll(List.of("t", "ti", "w", "back", "target", "r")), "compared " + compared);
    }
}
