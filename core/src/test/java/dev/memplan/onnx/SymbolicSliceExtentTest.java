// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.Graph.Value;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slice with constant starts and ends on a symbolic dim (Silero VAD's reflection padding slices
 * {@code [-4, -1)} and reverses with step -1): the extent the importer derives must equal ONNX's
 * Slice semantics at every size of the dim, and must not become a data-dependent symbol; a fixed dim's extent too. The
 * reference below walks the indices one by one, as the operator's definition reads.
 */
class SymbolicSliceExtentTest {
    private static final long TO_END = Long.MAX_VALUE;
    private static final long TO_FIRST = -Long.MAX_VALUE;

    /** Seeded cases: the forms exporters write (from the end, reversals) and random ones. */
    static Stream<Arguments> slices() {
        List<Arguments> out = new ArrayList<>();
        out.add(Arguments.of(-4L, -1L, 1L));
        out.add(Arguments.of(-1L, TO_FIRST, -1L));
        out.add(Arguments.of(TO_END, TO_FIRST, -1L));
        out.add(Arguments.of(-3L, TO_FIRST, -1L));
        Random random = new Random(20261207);
        for (int i = 0; i < 12; i++) {
            long start = -1 - random.nextInt(8);
            long end = random.nextBoolean() ? -1 - random.nextInt(8) : TO_FIRST;
            out.add(Arguments.of(start, end, end == TO_FIRST ? -1L : 1L));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "starts {0} ends {1} steps {2}")
    @MethodSource("slices")
    void theDerivedExtentIsOnnxsAtEverySize(long start, long end, long step, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("slice.onnx");
        Files.write(file, model(start, end, step, "n").bytes(13));
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file), ImportOptions.defaults());
        assertEquals(List.of("n"), List.copyOf(imported.symbols().keySet()),
                "no data-dependent symbol: " + imported.freshSymbols());
        Value y = imported.graph().values().stream().filter(v -> v.name().equals("y")).findFirst().orElseThrow();
        for (long n = 0; n <= 12; n++) {
            assertEquals(onnxExtent(n, start, end, step), y.shape().dims().get(1).evaluate(Map.of("n", n)).orElseThrow(),
                    "extent at n = " + n);
        }
        OnnxPlan plan = OnnxPlanner.plan(imported, Map.of("n", 7L), PlanOptions.defaults());
        assertTrue(plan.isComplete());
        PlanValidator.validate(plan.plan());
        for (long n : new long[] {0, 1, 2, 5}) { // a fixed dim takes the other path
            Files.write(file, model(start, end, step, n).bytes(13));
            ImportedGraph fixed = OnnxImporter.importModel(OnnxModel.read(file), ImportOptions.defaults());
            Value fy = fixed.graph().values().stream().filter(v -> v.name().equals("y")).findFirst().orElseThrow();
            assertEquals(onnxExtent(n, start, end, step), fy.shape().dims().get(1).evaluate(Map.of()).orElseThrow(),
                    "extent of a fixed dim " + n);
        }
    }

    private static OnnxWriter model(long start, long end, long step, Object n) {
        return OnnxWriter.graph().input("x", type(FLOAT, 2, n))
                .initializer(int64s("st", start)).initializer(int64s("en", end))
                .initializer(int64s("ax", 1)).initializer(int64s("sp", step))
                .node("Slice", in("x", "st", "en", "ax", "sp"), out("y"))
                .node("Relu", in("y"), out("z"))
                .output("z", type(FLOAT, 2, null));
    }

    /** ONNX Slice along one axis of extent {@code n}: clamp, then count the indices visited. */
    private static long onnxExtent(long n, long start, long end, long step) {
        long s = start < 0 ? Math.max(start + n, step > 0 ? 0 : -1) : start;
        long e = end < 0 ? Math.max(end + n, step > 0 ? 0 : -1) : end;
        s = step > 0 ? Math.min(Math.max(s, 0), n) : Math.min(Math.max(s, 0), n - 1);
        e = step > 0 ? Math.min(e, n) : Math.min(e, n - 1);
        long count = 0;
        for (long i = s; step > 0 ? i < e : i > e; i += step) {
            count++;
        }
        return count;
    }
}
