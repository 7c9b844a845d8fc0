// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtSession;
import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.ort.internal.OrtRuntimeProfile;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.internal.ServerAccess;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Graphs as ONNX Runtime runs them: every shared model saved by ORT at levels basic, extended and
 * all (fusions into com.microsoft ops, quantized MatMul kernels, the com.microsoft.nchwc blocked
 * layout) plans completely, and every size equals what ORT allocates when it runs the saved graph.
 * The NCHWc block is read from this machine's CPU the way ORT chooses it (16 with AVX-512, else 8).
 */
class OrtSavedGraphTest {
    @TempDir
    static Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String m : SharedModels.forParameters()) {
            for (String level : List.of("basic", "extended", "all")) {
                out.add(Arguments.of(m, level));
            }
        }
        return out.stream();
    }

    /** Saves {@code model} as ORT rewrites it at {@code level}. */
    static Path save(String model, String level) throws Exception {
        Path saved = dir.resolve(model.replace('/', '_') + "." + level + ".onnx");
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setOptimizationLevel(switch (level) {
                case "basic" -> OrtSession.SessionOptions.OptLevel.BASIC_OPT;
                case "extended" -> OrtSession.SessionOptions.OptLevel.EXTENDED_OPT;
                default -> OrtSession.SessionOptions.OptLevel.ALL_OPT;
            });
            o.setIntraOpNumThreads(1);
            o.setOptimizedModelFilePath(saved.toString());
            try (OrtSession s = dev.memplan.ort.internal.OrtTestModels.environment().createSession(SharedModels.path(model).toString(), o)) {
                // saved when the session is made
            }
        }
        return saved;
    }

    @ParameterizedTest(name = "{0} at {1}")
    @MethodSource("cases")
    void savedGraphsPlanWithOrtSizes(String model, String level) throws Exception {
        SharedModels.requirePresent();
        Path saved = save(model, level);
        String label = model + " at " + level;
        ImportOptions options = ImportOptions.defaults().withNchwcBlockSize(OrtRuntimeProfile.nchwcBlockSize());
        // as saved: ORT's value_info agrees with what memplan infers
        ImportedGraph asSaved = OnnxImporter.importModel(OnnxModel.read(saved), options);
        assertEquals(List.of(), asSaved.inferenceFailures(), label);
        // (a disagreement the original model has too, such as a Loop output declared for one trip count, stays)
        Set<String> original = new java.util.HashSet<>();
        OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), options).disagreements()
                .forEach(d -> original.add(d.valueName()));
        assertEquals(List.of(), asSaved.disagreements().stream().filter(d -> !original.contains(d.valueName())).toList(),
                label + ": inferred shapes differ from ORT's value_info");
        assertEquals(List.of(), asSaved.uninferred(), label);
        // without value_info: every shape comes from memplan's own rules
        OnnxModel onnx = withoutValueInfo(saved);
        ImportedGraph imp = OnnxImporter.importModel(onnx, options);
        assertEquals(List.of(), imp.inferenceFailures(), label);
        assertEquals(List.of(), imp.uninferred(), label + ": values neither inferred nor declared");
        Map<String, Long> bindings = ModelCases.bindings(model);
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        assertTrue(plan.isComplete(), label + ": deferred, unbound " + plan.unboundSymbols());
        PlanValidator.validate(plan.plan());

        Set<String> compared = new LinkedHashSet<>();
        List<String> mismatches = OrtComparisonTest.compareWithOrt(saved, onnx, ServerAccess.access().imported(plan), bindings,
                name -> ModelCases.inputFill(model, name), compared);
        assertEquals(List.of(), mismatches, label + ": sizes differing from ONNX Runtime");
        List<String> unchecked = new ArrayList<>();
        for (Value v : ServerAccess.access().imported(plan).graph().values()) {
            if (v.producer() >= 0 && !compared.contains(v.name())) {
                unchecked.add(v.name());
            }
        }
        assertEquals(List.of(), unchecked, label + ": activations ORT's profile did not cover");
    }

    /** The saved model with the value_info of every graph removed (outputs keep their declarations). */
    static OnnxModel withoutValueInfo(Path saved) throws Exception {
        var proto = dev.memplan.onnx.proto.OnnxProto.ModelProto.parseFrom(java.nio.file.Files.readAllBytes(saved));
        var b = proto.toBuilder();
        b.setGraph(stripped(proto.getGraph()));
        return OnnxModel.read(saved + " (no value_info)", b.build().toByteArray());
    }

    private static dev.memplan.onnx.proto.OnnxProto.GraphProto stripped(dev.memplan.onnx.proto.OnnxProto.GraphProto g) {
        var b = g.toBuilder().clearValueInfo();
        for (int i = 0; i < b.getNodeCount(); i++) {
            var n = b.getNode(i).toBuilder();
            for (int k = 0; k < n.getAttributeCount(); k++) {
                var a = n.getAttribute(k);
                if (a.hasG()) {
                    n.setAttribute(k, a.toBuilder().setG(stripped(a.getG())));
                }
            }
            b.setNode(i, n);
        }
        return b.build();
    }

    /** What the saved graphs hold, by op (domain:op) and level: the evidence for which rules matter. */
    static Map<String, Integer> opCounts(OnnxModel m) {
        Map<String, Integer> counts = new TreeMap<>();
        for (var n : m.proto().getGraph().getNodeList()) {
            counts.merge(n.getDomain() + ":" + n.getOpType(), 1, Integer::sum);
        }
        return counts;
    }
}
